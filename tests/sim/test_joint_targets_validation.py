"""Joint targets: complex numbers are refused with a SimuloValueError, never silently truncated to their real part."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError


def test_complex_targets_are_refused_not_truncated(cartpole):
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(asset=cartpole)
    scene.add(robot, at="/World/Robot")
    sim = simulo.Simulation(scene)
    with sim, warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SimuloValueError, match="positions must be numeric, got dtype complex128"):
            robot.set_joint_position_target(np.array([[1 + 2j, 0.0], [0.0, 0.0]]))
        assert np.isnan(robot.data.pos_t).all()
