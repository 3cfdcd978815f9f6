"""The local robot catalog (``simulo/robot/<name>:v<N>``) and organisation assets (``robot/<name>:v<N>``)."""

from __future__ import annotations

from simulo.authoring.catalog.organisation import ASSET_PATH_ENV, OrgAsset, locate
from simulo.authoring.catalog.registry import AssetRef, CatalogEntry, available, entries, lookup, parse_ref

__all__ = ["ASSET_PATH_ENV", "AssetRef", "CatalogEntry", "OrgAsset", "available", "entries", "locate", "lookup",
           "parse_ref"]
