"""``simulo.callbacks``: the SDK's job lifecycle callbacks, which only the Simulo cloud platform honours.

Constructing one raises :class:`~simulo.authoring.unavailable.CloudOnlyError`; a local run has no job
lifecycle to attach them to.
"""

from __future__ import annotations

from typing import Any

from simulo.authoring.unavailable import CloudOnlyError


class _CloudCallback:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise CloudOnlyError(f"simulo.callbacks.{type(self).__name__} is honoured only by the Simulo cloud platform; "
                             "simulo-local runs have no job lifecycle to attach it to")


class CommitVolume(_CloudCallback):
    """Commit a cloud volume at checkpoints and at the end of a job (cloud-only)."""


class DebugOnAnomaly(_CloudCallback):
    """Capture debug data when training hits an anomaly (cloud-only)."""


__all__ = ["CommitVolume", "DebugOnAnomaly"]
