"""A revolute joint whose ``<limit>`` gives effort and velocity but no lower or upper turns freely, with a note,
as PyBullet and MuJoCo load it (pybullet_data's minitaur has eight)."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo.authoring.urdf import check_urdf

HINGE = """<?xml version="1.0"?>
<robot name="hinge">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>
  </inertial></link>
  <link name="arm">
    <inertial><origin xyz="0.1 0 0"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
    <collision><origin xyz="0.1 0 0"/><geometry><box size="0.2 0.02 0.02"/></geometry></collision>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit effort="5" velocity="20"/>
  </joint>
</robot>
"""


def test_the_joint_is_accepted_with_a_note_and_no_limits() -> None:
    model = check_urdf(HINGE, source="hinge.urdf")
    (joint,) = model.joints
    assert joint.type == "revolute" and joint.limits is None
    assert model.notes == ("joint 'hinge' (revolute): <limit> gives no lower or upper, so it turns freely, as "
                           "PyBullet and MuJoCo load it (write type=\"continuous\" to say so)",)


def test_one_limit_missing_is_still_a_problem() -> None:
    with pytest.raises(simulo.errors.UrdfError, match=r"<limit> is missing upper"):
        check_urdf(HINGE.replace('<limit effort="5"', '<limit lower="-1" effort="5"'), source="hinge.urdf")


@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_the_joint_turns_past_zero_on_both_engines(engine: str) -> None:
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(simulo.Asset.from_urdf_string(HINGE, fixed_base=True))
    scene.add(robot, at="/World/Hinge")
    with simulo.Simulation(scene, engine=engine) as sim:
        for _ in range(120):
            robot.set_joint_effort_target(np.array([[0.05]]))
            sim.step()
        angle = float(np.asarray(robot.state.joint_positions)[0, 0])
    assert angle > 1.0  # a limit at 0 would hold it there
