"""The local robot catalog (``simulo/robot/<name>:v<N>``) and organisation assets (``robot/<name>:v<N>``).

The organisation names (``ASSET_PATH_ENV``, ``OrgAsset``, ``locate``) load on first use (PEP 562): a catalog
model is found without the organisation search and its ``json`` import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from simulo.authoring.catalog.registry import AssetRef, CatalogEntry, available, entries, lookup, parse_ref

if TYPE_CHECKING:
    from simulo.authoring.catalog.organisation import ASSET_PATH_ENV, OrgAsset, locate

__all__ = ["ASSET_PATH_ENV", "AssetRef", "CatalogEntry", "OrgAsset", "available", "entries", "locate", "lookup",
           "parse_ref"]

_ORGANISATION = ("ASSET_PATH_ENV", "OrgAsset", "locate")


def __getattr__(name: str) -> Any:
    if name in _ORGANISATION:
        return getattr(importlib.import_module("simulo.authoring.catalog.organisation"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
