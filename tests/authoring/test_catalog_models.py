"""Every catalog model: passes the URDF checker, loads in a one-environment scene, steps, and has the
joint and body names, order and counts that the SDK's samples (and Isaac Lab's configs) assume."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import simulo
from simulo.authoring import catalog
from simulo.cli import check_urdf
from simulo.errors import UrdfError

REFS = catalog.available()
FRANKA = ("simulo/robot/franka-panda:v1", "simulo/robot/franka-panda:v2")

#: The humanoid sample's joint_gears, in the order its comment names (lower_waist x2, upper_arms x4,
#: pelvis, lower_arms x2, thighs x6, knees x2, feet x4), and the MuJoCo joints those gears drive.
HUMANOID_GEARS = [67.5] * 7 + [45.0, 45.0, 45.0, 135.0, 45.0, 45.0, 135.0, 45.0, 90.0, 90.0] + [22.5] * 4
HUMANOID_JOINTS = [
    "abdomen_z", "abdomen_y", "right_shoulder1", "right_shoulder2", "left_shoulder1", "left_shoulder2",
    "abdomen_x", "right_elbow", "left_elbow",
    "right_hip_x", "right_hip_y", "right_hip_z", "left_hip_x", "left_hip_y", "left_hip_z",
    "right_knee", "left_knee", "right_ankle_y", "right_ankle_x", "left_ankle_y", "left_ankle_x",
]
EXPECTED_JOINTS = {
    "simulo/robot/cartpole:v1": ["slider_to_cart", "cart_to_pole"],
    "simulo/robot/jetbot:v1": ["left_wheel_joint", "right_wheel_joint"],
    "simulo/robot/jetbot:v2": ["left_wheel_joint", "right_wheel_joint"],
    "simulo/robot/humanoid:v1": HUMANOID_JOINTS,
    "simulo/robot/anymal-c:v1": [f"{leg}_{j}" for leg in ("LF", "LH", "RF", "RH") for j in ("HAA", "HFE", "KFE")],
    "simulo/robot/unitree-h1:v1": [
        *(f"{side}_{j}_joint" for side in ("left", "right") for j in ("hip_yaw", "hip_roll", "hip_pitch", "knee",
                                                                        "ankle")),
        "torso_joint",
        *(f"{side}_{j}_joint" for side in ("left", "right") for j in ("shoulder_pitch", "shoulder_roll",
                                                                        "shoulder_yaw", "elbow")),
    ],
    "simulo/robot/pick-and-place:v1": ["x_axis", "y_axis", "z_axis"],
    "simulo/robot/pick_arm:v1": ["base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll", "finger_left_joint",
                                 "finger_right_joint"],
    FRANKA[0]: [f"panda_joint{i}" for i in range(1, 8)] + ["panda_finger_joint1", "panda_finger_joint2"],
    FRANKA[1]: [f"joint{i}" for i in range(1, 8)] + ["finger_joint1", "finger_joint2"],
}
#: Whose joint order the engine does not give in URDF document order today (see the test below).
DEPTH_FIRST_DIFFERS = {"simulo/robot/humanoid:v1"}


def resolved(ref: str) -> simulo.Asset:
    """The catalog asset, resolved; pybullet_data's Franka is skipped only while the checker refuses it."""
    try:
        return simulo.Asset.from_registry(ref).resolve()
    except UrdfError as exc:
        if ref not in FRANKA:
            raise
        pytest.skip(f"the URDF checker still refuses pybullet_data's franka_panda/panda.urdf "
                    f"({len(exc.problems)} problems, first: {exc.problems[0]})")


def test_every_entry_has_expected_joints() -> None:
    assert sorted(EXPECTED_JOINTS) == REFS


@pytest.mark.parametrize("ref", REFS)
def test_model_passes_the_checker_with_its_declared_joint_count(ref: str) -> None:
    entry = catalog.lookup(ref)
    asset = resolved(ref)
    assert asset.ref == ref and asset.fixed_base is entry.fixed_base and asset.spawn_pose == entry.spawn_pose
    assert [j.name for j in asset.model.movable_joints] == EXPECTED_JOINTS[ref]
    assert len(asset.model.movable_joints) == entry.joints
    assert check_urdf.main([str(entry.file)]) == 0
    for joint in asset.model.movable_joints:
        if joint.limits is not None:  # revolute and prismatic joints carry real limits and efforts
            assert joint.limits.lower < joint.limits.upper and joint.limits.effort > 0 and joint.limits.velocity > 0


@pytest.mark.parametrize("ref", REFS)
def test_model_loads_and_steps_in_a_scene_with_a_plane(ref: str) -> None:
    asset = resolved(ref)
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Terrain.plane(), at="/World/ground", per_environment=False)
    robot = simulo.Robot(asset=asset)
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene) as sim:
        sim.step(50)
        names = robot.get_joint_names()
        assert sorted(names) == sorted(EXPECTED_JOINTS[ref]) and robot.num_joints == len(EXPECTED_JOINTS[ref])
        if ref not in DEPTH_FIRST_DIFFERS:
            assert names == EXPECTED_JOINTS[ref]
        state = robot.state
        for value in (state.pose, state.joint_positions, state.joint_velocities):
            assert np.all(np.isfinite(np.asarray(value)))
        assert np.asarray(state.joint_positions).shape == (1, len(names))
        assert robot.is_fixed_base is catalog.lookup(ref).fixed_base
        height = float(np.asarray(state.pose)[0, 2])
        if not robot.is_fixed_base:  # a floating model stands on (or falls onto) the plane, never through it
            assert -0.01 < height < 1.5


def test_humanoid_joint_columns_follow_the_document_order() -> None:
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/humanoid:v1"))
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene):
        assert robot.get_joint_names() == HUMANOID_JOINTS


def test_humanoid_matches_the_samples_gear_list() -> None:
    model = simulo.Asset.from_registry("simulo/robot/humanoid:v1").model
    joints = model.movable_joints
    assert len(joints) == len(HUMANOID_GEARS) == 21
    assert [j.limits.effort if j.limits else None for j in joints] == HUMANOID_GEARS  # effort limit = gear
    knee = next(j for j in joints if j.name == "right_knee")
    assert knee.limits is not None and knee.limits.lower == pytest.approx(math.radians(-160), abs=1e-5)
    assert {"torso", "pelvis", "right_thigh", "left_foot", "right_lower_arm"} <= set(model.links)
    assert model.root_link == "torso"


def test_jetbot_wheels_drive_it_forward() -> None:
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Terrain.plane(), at="/World/ground", per_environment=False)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/jetbot:v1"), initial_pose=simulo.Pose.identity())
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene) as sim:
        wheels = robot.find_joints("left_wheel_joint") + robot.find_joints("right_wheel_joint")
        assert wheels == [0, 1]
        assert robot.get_body_names()[:1] == ["chassis"] and {"left_wheel", "right_wheel", "caster"} <= set(
            robot.get_body_names())
        robot.set_joint_velocity_target(np.full((1, 2), 10.0, dtype=np.float32), joint_ids=wheels)
        sim.step(240)
        pose = np.asarray(robot.state.pose)[0]
        assert pose[0] > 0.1 and abs(pose[1]) < 0.05  # straight ahead (+x) at about 10 rad/s * 0.0325 m
        assert abs(pose[2]) < 0.01


@pytest.mark.parametrize(("ref", "prefix"), [(FRANKA[0], "panda_"), (FRANKA[1], "")])
def test_franka_has_the_names_the_reach_samples_use(ref: str, prefix: str) -> None:
    # v1 keeps pybullet_data's names (the franka-reach sample); v2 has the SDK's (franka-reach-from-camera)
    asset = resolved(ref)
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(asset, initial_pose=simulo.Pose.identity())
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene):
        assert robot.find_joints(f"{prefix}joint[1-7]") == list(range(7))
        assert robot.find_joints(f"{prefix}finger_joint[12]") == [7, 8]
        assert f"{prefix}hand" in robot.get_body_names()
        position, _ = robot.get_body_pose_in_base_frame(f"{prefix}hand")
        assert np.all(np.isfinite(np.asarray(position)))


def test_quadruped_and_h1_name_patterns() -> None:
    anymal = simulo.Asset.from_registry("simulo/robot/anymal-c:v1").model
    names = [j.name for j in anymal.movable_joints]
    assert [n for n in names if re.fullmatch(".*HAA", n)] == ["LF_HAA", "LH_HAA", "RF_HAA", "RH_HAA"]
    assert {j.limits.effort for j in anymal.movable_joints if j.limits} == {80.0}
    assert {"base", "LF_FOOT", "RH_SHANK"} <= set(anymal.links)
    h1 = simulo.Asset.from_registry("simulo/robot/unitree-h1:v1").model
    assert h1.root_link == "pelvis" and "torso_link" in h1.links
    efforts = {j.name: j.limits.effort for j in h1.movable_joints if j.limits}
    assert efforts["left_knee_joint"] == 300 and efforts["right_ankle_joint"] == 40
    assert efforts["left_elbow_joint"] == 18


def test_pick_and_place_gantry_moves_its_axes() -> None:
    scene = simulo.Scene(num_envs=1)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/pick-and-place:v1"))
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene) as sim:
        assert "suction_cup" in robot.get_body_names()
        robot.set_joint_position_target(np.array([[0.3, -0.2, -0.4]], dtype=np.float32))
        sim.step(480)
        q = np.asarray(robot.state.joint_positions)[0]
        assert q == pytest.approx([0.3, -0.2, -0.4], abs=0.03)


def test_every_catalog_reference_parses_as_its_grammar_says() -> None:
    from simulo.authoring.catalog import registry

    for ref in catalog.available():  # parse_ref splits these without the regex: the same parts
        match = re.match(registry._REF, ref)
        assert match is not None
        assert registry.parse_ref(ref) == registry.AssetRef(ref, match["publisher"], match["kind"], match["name"],
                                                            int(match["version"]))
    assert registry.parse_ref(" simulo/robot/pick_arm:v1\t").text == "simulo/robot/pick_arm:v1"
