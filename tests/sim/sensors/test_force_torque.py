"""``simulo.ForceTorqueSensor``: the joint wrench of a hanging mass at rest is its weight."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.errors import SimuloValueError

MASS = 2.0
HANGING = f"""<robot name="hanging">
  <link name="mount"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
  <link name="bob"><inertial><origin xyz="0 0 -0.5"/><mass value="{MASS}"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 -0.5"/><geometry><sphere radius="0.05"/></geometry></collision></link>
  <link name="arm"><inertial><origin xyz="0.4 0 0"/><mass value="{MASS}"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="revolute"><parent link="mount"/><child link="bob"/><origin xyz="0 0 2"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="100" velocity="10"/></joint>
  <joint name="weld" type="fixed"><parent link="mount"/><child link="arm"/><origin xyz="0 1 2"/></joint>
</robot>
"""


def _build(num_envs: int = 2) -> tuple[simulo.ForceTorqueSensor, simulo.ForceTorqueSensor, simulo.Simulation]:
    scene = simulo.Scene(num_envs=num_envs)
    robot = simulo.Robot(simulo.Asset.from_urdf_string(HANGING, fixed_base=True))
    hanging, welded = simulo.ForceTorqueSensor(), simulo.ForceTorqueSensor()
    robot.add_sensor(hanging, attach_to="bob")
    robot.add_sensor(welded, attach_to="arm")
    scene.add(robot, at="/World/Robot")
    return hanging, welded, simulo.Simulation(scene)


def test_a_hanging_mass_at_rest_reads_its_weight_upward() -> None:
    hanging, _, sim = _build()
    with sim:
        sim.step(120)
        force = np.asarray(hanging.read_force())
        assert force.shape == (2, 3)
        np.testing.assert_allclose(force, [[0.0, 0.0, MASS * 9.81]] * 2, atol=1e-3)
        np.testing.assert_allclose(np.asarray(hanging.read_torque()), 0.0, atol=1e-3)


def test_a_cantilever_reads_its_weight_and_the_moment_of_its_lever() -> None:
    _, welded, sim = _build(num_envs=1)
    with sim:
        sim.step(10)
        wrench = np.asarray(welded.read_wrench())[0]
        np.testing.assert_allclose(wrench[:3], [0.0, 0.0, MASS * 9.81], atol=1e-3)
        # the weight hangs 0.4 m out along x: the joint holds a moment m·g·0.4 about +y
        assert abs(wrench[4]) == pytest.approx(MASS * 9.81 * 0.4, rel=1e-3)


def test_the_root_body_has_no_joint_to_measure() -> None:
    scene = simulo.Scene()
    robot = simulo.Robot(simulo.Asset.from_urdf_string(HANGING, fixed_base=True))
    robot.add_sensor(simulo.ForceTorqueSensor(), attach_to="mount")
    scene.add(robot, at="/World/Robot")
    with pytest.raises(SimuloValueError, match="root body, which has no joint"):
        simulo.Simulation(scene)
