"""The local robot catalog, addressed by registry references (``simulo/robot/<name>:v<N>``)."""

from __future__ import annotations

from simulo.authoring.catalog.registry import CatalogEntry, available, lookup

__all__ = ["CatalogEntry", "available", "lookup"]
