"""The friction sweep's bracketing and bisection (with the lift itself stubbed out)."""

from __future__ import annotations

import pytest

from simulo.apps.pick_place.experiments import friction
from simulo.errors import SimuloValueError


def test_friction_sweep_rejects_a_grid_that_does_not_bracket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(friction, "lift_slips", lambda mu, options: (False, 0.0))
    with pytest.raises(SimuloValueError, match="must start with a friction that slips"):
        friction.friction_sweep(grid=(0.1, 0.2))
    with pytest.raises(SimuloValueError, match="grid must be ascending"):
        friction.friction_sweep(grid=(0.2, 0.1))


def test_friction_sweep_bisects_between_slip_and_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(friction, "lift_slips", lambda mu, options: (mu < 0.1234, 100.0 if mu < 0.1234 else 0.0))
    result = friction.friction_sweep(grid=(0.05, 0.1, 0.2), resolution=0.001)
    assert result.slip_below == pytest.approx(0.1234, abs=0.001)
    assert result.contact_friction == pytest.approx(result.slip_below**2)
    assert [s[0] for s in result.samples[:3]] == [0.05, 0.1, 0.2]
