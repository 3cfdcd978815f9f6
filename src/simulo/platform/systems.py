"""Job types and system tiers named by ``@app.job(type=..., system=...)``.

The member names and values match the public ``simulo`` SDK, so an app written for the cloud
declares its jobs here unchanged. Locally a system tier is metadata only: every job runs on this
computer's CPU, whatever tier it names.
"""

from __future__ import annotations

from enum import StrEnum


class JobType(StrEnum):
    """What a job does. The value is the spelling accepted by ``@app.job(type="...")``."""

    PREVIEW = "preview"
    TRAIN = "train"
    EVAL = "eval"
    PLAY = "play"


class SystemType(StrEnum):
    """A GPU system tier of the cloud product (``simulo.SystemType.TIER_1`` ...).

    Accepted by ``@app.job(system=...)`` and recorded on the job; it does not change how the job
    runs locally.
    """

    TIER_1 = "tier1"
    TIER_2 = "tier2"
    TIER_3 = "tier3"
    TIER_4 = "tier4"
