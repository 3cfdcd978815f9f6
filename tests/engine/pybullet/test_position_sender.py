"""PyBullet engine: the bound position-motor call leaves out arguments equal to PyBullet's defaults.

PyBullet's ``POSITION_CONTROL`` motor defaults to velocity target 0 and velocity gain 1; the sender omits those
arguments when they hold exactly these values. The physics must be bit for bit what the call with every argument
spelled out gives, and other values must still reach the motor.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pybullet as p
import pytest

import simulo
from simulo.engine.pybullet.world import PyBulletWorld

ARM = Path(simulo.__file__).parent / "authoring" / "catalog" / "pick_arm.urdf"
JOINTS = [0, 1, 2, 3, 4]
FORCES = [50.0, 50.0, 30.0, 10.0, 5.0]
GAINS = [0.3] * 5


def _run(velocities: list[float], velocity_gains: list[float], explicit: bool) -> np.ndarray:
    """Joint positions and velocities after 120 steps towards moving targets, sent by the sender or spelled out."""
    world = PyBulletWorld(1.0 / 240.0)
    try:
        body = world.load_urdf(ARM, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), fixed_base=True)
        if explicit:
            send = functools.partial(p.setJointMotorControlArray, body, JOINTS, p.POSITION_CONTROL,
                                     targetVelocities=velocities, forces=FORCES, positionGains=GAINS,
                                     velocityGains=velocity_gains, physicsClientId=world.cid)
        else:
            send = world.position_sender(body, JOINTS, velocities, FORCES, GAINS, velocity_gains)
        for k in range(120):
            send([0.4 * np.sin(0.05 * k + j) for j in JOINTS])
            world.stepper()
        states = p.getJointStates(body, JOINTS, physicsClientId=world.cid)
        return np.array([[s[0], s[1]] for s in states])
    finally:
        world.close()


@pytest.mark.parametrize(("velocities", "velocity_gains"), [
    ([0.0] * 5, [1.0] * 5),            # both left out
    ([0.0] * 5, [0.5] * 5),            # the gain is sent
    ([0.1, 0.0, 0.0, 0.0, 0.0], [1.0] * 5),  # the velocity targets are sent
])
def test_sender_drives_the_motor_exactly_as_the_full_call(velocities: list[float],
                                                          velocity_gains: list[float]) -> None:
    np.testing.assert_array_equal(_run(velocities, velocity_gains, explicit=False),
                                  _run(velocities, velocity_gains, explicit=True))


def test_non_default_velocity_arguments_change_the_motion() -> None:
    # guards the test above: were the arguments dropped whatever their values, these would match the defaults
    defaults = _run([0.0] * 5, [1.0] * 5, explicit=False)
    assert not np.array_equal(_run([0.0] * 5, [0.5] * 5, explicit=False), defaults)
    assert not np.array_equal(_run([0.1, 0.0, 0.0, 0.0, 0.0], [1.0] * 5, explicit=False), defaults)
