"""Honest placeholders for SDK names that simulo-local does not implement (yet).

Each name resolves from ``import simulo`` and can be named in annotations, ``isinstance`` checks and base
class lists, so an app written for the SDK imports unchanged. Using one — constructing it or calling it —
raises at once with a message that says what is missing and what to do locally. Nothing here pretends to work.

:class:`NotYetAvailable` subclasses are engine features another part of simulo-local will provide; they
raise :class:`NotImplementedError`.
"""

from __future__ import annotations

from typing import Any, ClassVar

#: The issue that tracks the SDK surface simulo-local still lacks.
ISSUE = 9


class NotYetAvailable:
    """Base of the placeholders: constructing one raises :class:`NotImplementedError`.

    Subclasses set ``_missing`` (what simulo-local lacks), optionally ``_instead`` (what to use meanwhile).
    """

    _missing: ClassVar[str] = "this SDK name"
    _instead: ClassVar[str] = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        instead = f"; meanwhile {self._instead}" if self._instead else ""
        raise NotImplementedError(f"simulo.{type(self).__name__} ({self._missing}) is not available in "
                                  f"simulo-local yet (issue {ISSUE}){instead}")


class ObservationSet(NotYetAvailable):
    """A set of observation components."""

    _missing = "observation sets"
    _instead = "list simulo.ObservationComponent instances in Task.observation_components"


class RewardSet(NotYetAvailable):
    """A weighted set of reward components."""

    _missing = "reward sets"
    _instead = "list simulo.RewardComponent instances in Task.reward_components"


class TerminationSet(NotYetAvailable):
    """A set of termination conditions."""

    _missing = "termination sets"
    _instead = "list simulo.TerminationCondition instances in Task.termination_conditions"


class Player(NotYetAvailable):
    """Base of the SDK's policy players."""

    _missing = "the Player base class"
    _instead = "use simulo.RLPlayer or simulo.PolicyPlayer"


class Trainer(NotYetAvailable):
    """Base of the SDK's trainers."""

    _missing = "the Trainer base class"
    _instead = "use simulo.RLTrainer"


class PolicyNetwork(NotYetAvailable):
    """A loaded policy network."""

    _missing = "policy networks loaded by checkpoint.load()"
    _instead = "use simulo.PolicyPlayer with a local checkpoint"
