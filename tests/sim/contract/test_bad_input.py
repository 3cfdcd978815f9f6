"""Bad input, table-driven, on every engine: each case raises the expected SimuloError subclass, with a message
naming the bad value, and leaves every target, state buffer, engine state and scene exactly as it was."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import simulo
from simulo import errors as E
from simulo.sim.robot import Robot
from simulo.sim.variants import ObjectVariants

from .conftest import ENGINES

NAN, INF = math.nan, math.inf

GOOD_URDF_HEAD = '<?xml version="1.0"?>\n<robot name="r">\n'
NO_LIMIT_URDF = GOOD_URDF_HEAD + """  <link name="a"/><link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>
</robot>"""
TWO_ROOTS_URDF = GOOD_URDF_HEAD + '  <link name="a"/><link name="b"/>\n</robot>'
XXE_URDF = ('<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
            '<robot name="r"><link name="a">&x;</link></robot>')


@dataclass
class World:
    """One attached scene (cartpole x6, arm + gripper x6, a cube x6) and one free scene."""

    scene: simulo.Scene
    sim: simulo.Simulation
    cp: simulo.Robot
    arm: simulo.Robot
    gripper: simulo.ParallelGripper
    cube: simulo.Prop
    free_scene: simulo.Scene
    cartpole_asset: simulo.Asset


@pytest.fixture(scope="module", params=ENGINES)
def world(request: pytest.FixtureRequest) -> Any:
    cartpole = simulo.Asset.from_registry("simulo/robot/cartpole:v1")
    arm_asset = simulo.Asset.from_registry("simulo/robot/pick_arm:v1")
    scene = simulo.Scene(num_envs=6)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    cp = simulo.Robot(cartpole)
    arm = simulo.Robot(arm_asset, simulo.Pose.from_xyz(0.0, 0.7, 0.0))
    gripper = simulo.ParallelGripper(("finger_left_joint", "finger_right_joint"))
    arm.add_actuator(gripper, attach_to="hand")
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.04,) * 3, pose=simulo.Pose.from_xyz(0.4, 0.0, 0.02),
                                     physics=simulo.RigidPhysics(mass=0.1)))
    scene.add(cp, at="/World/Cartpole")
    scene.add(arm, at="/World/Arm")
    scene.add(cube, at="/World/Cube")
    sim = simulo.Simulation(scene, dt=1 / 120, engine=request.param)
    # a lived-in state: targets of every kind set, some steps taken
    cp.set_joint_position_target(np.full((3, 1), 0.2), joint_ids=[0], env_ids=[5, 1, 3])
    cp.set_joint_velocity_target(np.full((6, 1), 0.1), joint_ids=[1])
    arm.set_joint_effort_target(np.full((6, 1), 0.5), joint_ids=[0])
    gripper.command(0.02, 10.0)
    sim.step(5)
    free_scene = simulo.Scene(num_envs=1)
    free_scene.add(simulo.Light.dome(), at="/World/L")
    free_scene.add(simulo.Robot(cartpole), at="/World/Shared", per_environment=False)
    yield World(scene, sim, cp, arm, gripper, cube, free_scene, cartpole)
    sim.close()


def snapshot(w: World) -> list[bytes]:
    """Every buffer that a command could change, plus the engine's own state and the scenes."""
    out: list[bytes] = []
    for robot in (w.cp, w.arm):
        rt = robot.data
        for name in ("pos_t", "vel_t", "eff_t", "motor_force", "q", "qd", "effort", "pose", "lin_vel", "ang_vel",
                     "default_q", "default_qd", "default_pose"):
            out.append(getattr(rt, name).tobytes())
        q, qd, eff = np.empty_like(rt.q), np.empty_like(rt.q), np.empty_like(rt.q)
        rt.batch.read_joints(q, qd, eff)
        pose, lin, ang = np.empty_like(rt.pose), np.empty_like(rt.lin_vel), np.empty_like(rt.ang_vel)
        rt.batch.read_base(pose, lin, ang)
        out += [q.tobytes(), qd.tobytes(), pose.tobytes(), lin.tobytes(), ang.tobytes()]
    out.append(np.asarray(w.cube.state.pose).tobytes())
    out += [w.cube.data.batch.masses().tobytes(), w.arm.data.batch.link_masses().tobytes(),
            np.asarray(w.sim.gravity).tobytes(), w.cube.data.external.forces.tobytes(),
            w.cp.data.external.forces.tobytes()]
    out.append(repr([(e["path"], e["kind"], e["per_environment"]) for e in w.free_scene.get_items()]).encode())
    out.append(repr((w.free_scene.num_envs, w.free_scene.runtime_simulation, w.free_scene.env_origins)).encode())
    out.append(repr((w.scene.num_envs, len(w.scene.get_items()), w.sim.step_count)).encode())
    return out


def unattached(w: World) -> Robot:
    return simulo.Robot(w.cartpole_asset)


CASES: list[tuple[str, Callable[[World], Any], type[Exception], str]] = [
    # shapes
    ("position_target_shape", lambda w: w.cp.set_joint_position_target(np.zeros((6, 3))),
     E.ShapeError, r"positions must have shape \(6, 2\), got \(6, 3\)"),
    ("effort_target_rows", lambda w: w.cp.set_joint_effort_target(np.zeros((3, 1)), joint_ids=[0]),
     E.ShapeError, r"efforts must have shape \(6, 1\), got \(3, 1\)"),
    ("velocity_target_for_env_subset", lambda w: w.cp.set_joint_velocity_target(np.zeros((6, 2)), env_ids=[0, 2]),
     E.ShapeError, r"velocities must have shape \(2, 2\), got \(6, 2\)"),
    ("root_pose_shape", lambda w: w.cp.set_root_pose(np.zeros((6, 6))),
     E.ShapeError, r"pose must have shape \(6, 7\), got \(6, 6\)"),
    ("prop_pose_shape", lambda w: w.cube.set_pose(np.zeros((2, 3)), env_ids=[0, 1]),
     E.ShapeError, r"pose must have shape \(2, 7\), got \(2, 3\)"),
    ("joint_state_velocities_shape_after_good_positions",
     lambda w: w.cp.set_joint_state(np.full((6, 2), 0.3), velocities=np.zeros((6, 1))),
     E.ShapeError, r"velocities must have shape \(6, 2\), got \(6, 1\)"),
    ("ragged_list", lambda w: w.cp.set_joint_position_target([[0.1, 0.2], [0.3]], env_ids=[0, 1]),
     E.SimuloValueError, r"positions must be a numeric array, got \[\[0\.1, 0\.2\], \[0\.3\]\]"),
    ("text_values", lambda w: w.cp.set_joint_position_target([["a"]], joint_ids=[0], env_ids=[0]),
     E.SimuloValueError, r"positions must be numeric, got dtype <U1"),
    # non-finite values
    ("position_target_nan", lambda w: w.cp.set_joint_position_target(np.array([[0.1, NAN]]), env_ids=[4]),
     E.NonFiniteError, r"positions contains a non-finite value nan at index \[0, 1\]"),
    ("velocity_target_inf", lambda w: w.cp.set_joint_velocity_target([[INF]], joint_ids=[0], env_ids=[2]),
     E.NonFiniteError, r"velocities contains a non-finite value inf"),
    ("effort_target_minus_inf", lambda w: w.arm.set_joint_effort_target(np.full((6, 1), -INF), joint_ids=[1]),
     E.NonFiniteError, r"efforts contains a non-finite value -inf"),
    ("joint_state_nan", lambda w: w.cp.set_joint_state(np.array([[NAN, 0.0]]), env_ids=[3]),
     E.NonFiniteError, r"positions contains a non-finite value nan"),
    ("root_pose_nan", lambda w: w.cp.set_root_pose(np.array([[0, 0, NAN, 1, 0, 0, 0]]), env_ids=[1]),
     E.NonFiniteError, r"pose contains a non-finite value nan at index \[0, 2\]"),
    ("gripper_opening_nan", lambda w: w.gripper.command(NAN, 10.0),
     E.NonFiniteError, r"opening contains a non-finite value nan"),
    # env_ids
    ("env_ids_out_of_range", lambda w: w.cp.set_joint_position_target(np.zeros((2, 2)), env_ids=[0, 6]),
     E.EnvIdError, r"env_ids \[6\] out of range: there are 6 environments \(0\.\.5\)"),
    ("env_ids_negative", lambda w: w.cp.reset(env_ids=[-1]),
     E.EnvIdError, r"env_ids \[-1\] out of range"),
    ("env_ids_repeated", lambda w: w.cp.set_joint_state(np.zeros((3, 2)), env_ids=[5, 1, 5]),
     E.EnvIdError, r"env_ids repeats \[5\]"),
    ("env_ids_float", lambda w: w.cp.set_root_pose(np.tile([0, 0, 2, 1, 0, 0, 0.0], (2, 1)), env_ids=[1.0, 2.0]),
     E.EnvIdError, r"env_ids must hold integers, got dtype float64: \[1\.0, 2\.0\]"),
    ("env_ids_2d", lambda w: w.arm.reset(env_ids=[[1, 2]]),
     E.EnvIdError, r"env_ids must be a 1-D list of environment indices, got shape \(1, 2\)"),
    ("env_ids_text", lambda w: w.cp.reset(env_ids="all"),
     E.EnvIdError, r"env_ids must be a 1-D list of environment indices, got shape \(\): 'all'"),
    ("gripper_env_ids_out_of_range", lambda w: w.gripper.command(0.01, 5.0, env_ids=[7]),
     E.EnvIdError, r"env_ids \[7\] out of range"),
    ("prop_env_ids_repeated", lambda w: w.cube.reset(env_ids=[0, 0]),
     E.EnvIdError, r"env_ids repeats \[0\]"),
    # joint and body ids, names and patterns
    ("joint_ids_out_of_range", lambda w: w.cp.set_joint_effort_target(np.zeros((6, 1)), joint_ids=[2]),
     E.SimuloValueError, r"joint_ids \[2\] out of range: there are 2 joints"),
    ("joint_ids_names_not_indices", lambda w: w.cp.set_joint_velocity_target([[0.0]], joint_ids=["slider_to_cart"],
                                                                             env_ids=[0]),
     E.SimuloValueError, r"joint_ids must hold integers, got dtype <U14: \['slider_to_cart'\]"),
    ("mass_matrix_repeated_joint", lambda w: w.arm.get_mass_matrix([0, 0]),
     E.SimuloValueError, r"joint_ids repeats \[0\]"),
    ("jacobian_body_out_of_range", lambda w: w.cp.get_jacobians([9]),
     E.SimuloValueError, r"body_indices \[9\] out of range"),
    ("find_joints_unknown", lambda w: w.cp.find_joints("knee"),
     E.NameNotFoundError, r"no joint matches 'knee'; available joints: \['slider_to_cart', 'cart_to_pole'\]"),
    ("find_joints_bad_regex", lambda w: w.cp.find_joints("slider["),
     E.SimuloValueError, r"joint name pattern 'slider\[' is not a valid regex"),
    ("find_bodies_not_text", lambda w: w.arm.find_bodies(3),
     E.SimuloValueError, r"body name pattern must be a string, got 3"),
    ("body_pose_unknown", lambda w: w.cp.get_body_pose("hand"),
     E.NameNotFoundError, r"no body named 'hand'; available bodies: \['slider', 'cart', 'pole'\]"),
    ("body_velocity_in_base_unknown", lambda w: w.arm.get_body_velocity_in_base_frame("gripper"),
     E.NameNotFoundError, r"no body named 'gripper'"),
    ("friction_unknown_body", lambda w: w.arm.set_body_friction("pad_.*", 1.0),
     E.NameNotFoundError, r"no body matches 'pad_\.\*'"),
    # values out of their domain
    ("root_pose_zero_quaternion", lambda w: w.cp.set_root_pose(np.array([[0, 0, 2, 0, 0, 0, 0.0]]), env_ids=[2]),
     E.SimuloValueError, r"pose row 0 has a zero quaternion \[0\.0, 0\.0, 0\.0, 0\.0\]"),
    ("root_velocity_of_fixed_base", lambda w: w.cp.set_root_velocity(np.array([[0, 0, 1.0, 0, 0, 0]]), env_ids=[0]),
     E.SimuloValueError, r"robot 'Cartpole' has a fixed base"),
    ("body_friction_negative", lambda w: w.arm.set_body_friction("finger_.*", -0.5),
     E.SimuloValueError, r"friction must be a finite number >= 0, got -0\.5"),
    ("prop_friction_nan", lambda w: w.cube.set_friction(NAN),
     E.NonFiniteError, r"friction contains a non-finite value nan at index \[0, 0\]"),
    # per-copy properties, external forces and gravity
    ("prop_mass_zero", lambda w: w.cube.set_mass(np.array([[0.2], [0.0]]), env_ids=[5, 1]),
     E.SimuloValueError, r"masses must be > 0\.0, got 0\.0 at index \[1, 0\]"),
    ("prop_mass_shape", lambda w: w.cube.set_mass(np.ones((2, 2)), env_ids=[5, 1]),
     E.ShapeError, r"masses must have shape \(2, 1\), got \(2, 2\)"),
    ("robot_mass_nan", lambda w: w.arm.set_mass(np.full((1, w.arm.data.batch.link_masses().shape[1]), NAN),
                                                env_ids=[3]),
     E.NonFiniteError, r"masses contains a non-finite value nan at index \[0, 0\]"),
    ("prop_friction_negative_in_one_row", lambda w: w.cube.set_friction(np.array([[0.5], [-1.0]]), env_ids=[4, 0]),
     E.SimuloValueError, r"friction must be >= 0\.0, got -1\.0 at index \[1, 0\]"),
    ("robot_restitution_above_one", lambda w: w.cp.set_restitution(np.full((6, 3), 1.5)),
     E.SimuloValueError, r"restitution must be in 0\.0\.\.1\.0, got 1\.5 at index \[0, 0\]"),
    ("robot_gains_on_motor_joints", lambda w: w.cp.set_joint_gains(np.ones((2, 2)), np.ones((2, 2)), env_ids=[4, 2]),
     E.SimuloValueError, r"joints \['slider_to_cart', 'cart_to_pole'\] use the engine's motor"),
    ("robot_gains_negative", lambda w: w.cp.set_joint_gains(np.ones((1, 2)), -np.ones((1, 2)), env_ids=[4]),
     E.SimuloValueError, r"damping must be >= 0\.0, got -1\.0 at index \[0, 0\]"),
    ("robot_armature_shape", lambda w: w.arm.set_joint_armature(np.zeros((6, 1))),
     E.ShapeError, r"armature must have shape \(6, 7\), got \(6, 1\)"),
    ("force_env_ids_repeat", lambda w: w.cube.apply_external_force(np.ones((2, 1, 3)), np.zeros((2, 1, 3)),
                                                                   env_ids=[1, 1]),
     E.EnvIdError, r"env_ids repeats \[1\]"),
    ("force_torques_shape", lambda w: w.cp.apply_external_force(np.ones((6, 3, 3)), np.zeros((6, 3))),
     E.ShapeError, r"torques must have shape \(6, 3, 3\), got \(6, 3\)"),
    ("gravity_shape", lambda w: w.scene.set_gravity(np.zeros((6, 2))),
     E.ShapeError, r"gravity must have shape \(6, 3\), got \(6, 2\)"),
    ("gravity_nan", lambda w: w.scene.set_gravity(np.array([[0.0, 0.0, NAN]] * 6)),
     E.NonFiniteError, r"gravity contains a non-finite value nan at index \[0, 2\]"),
    ("gravity_before_attach", lambda w: w.free_scene.set_gravity(np.zeros((1, 3))),
     E.NotAttachedError, r"Scene\.set_gravity needs the simulation that runs the scene"),
    ("gripper_force_negative", lambda w: w.gripper.command(0.01, -5.0),
     E.SimuloValueError, r"gripper force must be a finite number > 0 N, got -5\.0"),
    ("gripper_command_missing_force", lambda w: w.gripper.set_command({"opening": 0.01}),
     E.SimuloValueError, r"gripper command must be a dict with 'opening' and 'force', got \{'opening': 0\.01\}"),
    ("step_count_negative", lambda w: w.sim.step(-1),
     E.SimuloValueError, r"step count must be an integer from 0 to 100000000, got -1"),
    ("step_count_endless", lambda w: w.sim.step(2**70),
     E.SimuloValueError, r"step count must be an integer from 0 to 100000000, got 1180591620717411303424"),
    # before attach
    ("target_before_attach", lambda w: unattached(w).set_joint_position_target(np.zeros((1, 2))),
     E.NotAttachedError, r"Robot\.set_joint_position_target is not available until the simulation has attached"),
    ("jacobians_before_attach", lambda w: unattached(w).get_jacobians(),
     E.NotAttachedError, r"Robot\.get_jacobians is not available until"),
    ("num_joints_before_attach", lambda w: unattached(w).num_joints,
     E.NotAttachedError, r"Robot\.num_joints is not available until"),
    ("default_pose_before_attach", lambda w: unattached(w).default_pose,
     E.NotAttachedError, r"Robot\.default_pose is not available until"),
    # models
    ("urdf_not_xml", lambda w: simulo.Asset.from_urdf_string("<robot"),
     E.UrdfError, r"not XML"),
    ("urdf_joint_without_limit", lambda w: simulo.Asset.from_urdf_string(NO_LIMIT_URDF),
     E.UrdfError, r"joint 'j' \(revolute\) has no <limit>"),
    ("urdf_external_entity", lambda w: simulo.Asset.from_urdf_string(XXE_URDF),
     E.UrdfError, r"hostile or unsupported XML refused"),
    ("urdf_two_roots", lambda w: simulo.Asset.from_urdf_string(TWO_ROOTS_URDF),
     E.UrdfError, r"2 root links: 'a' \(line 3\), 'b' \(line 3\)"),
    ("registry_without_version", lambda w: simulo.Asset.from_registry("simulo/robot/cartpole"),
     E.AssetError, r"bad registry reference 'simulo/robot/cartpole'.*the version is required"),
    ("registry_unknown_model", lambda w: simulo.Asset.from_registry("simulo/robot/hexapod:v1"),
     E.AssetError, r"unknown registry reference 'simulo/robot/hexapod:v1'.*available: .*simulo/robot/cartpole:v1"),
    ("usd_asset", lambda w: simulo.Asset.usd("robot.usd"),
     E.AssetError, r"USD file '.*robot\.usd' not found; expected a path to a \.usd, \.usda, \.usdc, \.usdz file"),
    # authoring values
    ("pose_two_numbers", lambda w: simulo.Pose((0.0, 1.0)),
     E.SimuloValueError, r"Pose position must have 3 numbers, got 2: \(0\.0, 1\.0\)"),
    ("pose_zero_quaternion", lambda w: simulo.Pose((0, 0, 0), (0, 0, 0, 0)),
     E.SimuloValueError, r"Pose quaternion must be non-zero, got \(0\.0, 0\.0, 0\.0, 0\.0\)"),
    ("pose_nan", lambda w: simulo.Pose((0, NAN, 0)),
     E.SimuloValueError, r"Pose position must be finite, got \(0, nan, 0\)"),
    ("robot_non_uniform_scale", lambda w: simulo.Robot(w.cartpole_asset, scale=(1, 2, 1)),
     E.SimuloValueError, r"Robot\.scale \(1, 2, 1\) is not uniform"),
    ("robot_scale_text", lambda w: simulo.Robot(w.cartpole_asset, scale="big"),
     E.SimuloValueError, r"Robot\.scale must be three finite factors > 0, got 'big'"),
    ("robot_mass_scale_negative", lambda w: simulo.Robot(w.cartpole_asset, mass_scale=-1.0),
     E.SimuloValueError, r"Robot\.mass_scale must be a finite number > 0, got -1\.0"),
    ("robot_asset_not_asset", lambda w: simulo.Robot("cartpole"),
     E.AssetError, r"Robot\.asset must be a simulo\.Asset, got str: 'cartpole'"),
    ("robot_gains_wrong_type", lambda w: simulo.Robot(w.cartpole_asset, actuator_gains={"slider_to_cart": 100.0}),
     E.SimuloValueError, r"Robot\.actuator_gains\['slider_to_cart'\] must be ActuatorGainsConfig or "
                         r"MotorGainsConfig, got 100\.0"),
    ("gains_negative_stiffness", lambda w: simulo.ActuatorGainsConfig(stiffness=-1.0),
     E.SimuloValueError, r"ActuatorGainsConfig\.stiffness must be a finite number >= 0, got -1\.0"),
    ("joint_config_reversed_limits", lambda w: simulo.JointConfig(name="j", limits=(1.0, -1.0)),
     E.SimuloValueError,
     r"JointConfig\('j'\)\.limits must be \(lower, upper\) with lower <= upper, got \(1\.0, -1\.0\)"),
    ("gripper_one_joint", lambda w: simulo.ParallelGripper(("finger_left_joint",)),
     E.SimuloValueError, r"ParallelGripper\.joints must be two joint names, got \('finger_left_joint',\)"),
    # scenes
    ("scene_relative_path", lambda w: w.free_scene.add(simulo.Light.dome(), at="World/Robot"),
     E.SceneError, r"scene path must be an absolute path like '/World/Robot' \('/' only for an item with a name\), "
                   r"got 'World/Robot'"),
    ("scene_duplicate_path", lambda w: w.free_scene.add(simulo.Light.dome(), at="/World/L"),
     E.SceneError, r"scene path '/World/L/domeLight' is already used"),
    ("scene_unnamed_robot_at_slash", lambda w: w.free_scene.add(unattached(w), at="/"),
     E.SceneError, r"\('/' only for an item with a name\), got '/'"),
    ("scene_group_relative_parent", lambda w: w.free_scene.group("Cells", at="World"),
     E.SceneError, r"group parent must be an absolute path like '/World' or '/', got 'World'"),
    ("scene_variants_for_a_robot", lambda w: w.free_scene.add(
        unattached(w), at="/World/V", variants=ObjectVariants([simulo.Sphere(name="a"), simulo.Sphere(name="b")])),
     E.SceneError, r"variants are for props \(a primitive shape with rigid physics\); '/World/V' is a robot"),
    ("scene_unknown_item", lambda w: w.free_scene.add("robot", at="/World/X"),
     E.SceneError, r"cannot add str 'robot' to a scene"),
    ("scene_add_while_simulated", lambda w: w.scene.add(simulo.Light.dome(), at="/World/Sun"),
     E.SceneError, r"the scene is already simulated"),
    ("scene_zero_envs", lambda w: simulo.Scene(num_envs=0),
     E.SceneError, r"num_envs must be an integer >= 1, got 0"),
    ("scene_fractional_envs", lambda w: simulo.Scene(num_envs=2.5),
     E.SceneError, r"num_envs must be an integer >= 1, got 2\.5"),
    ("scene_negative_spacing", lambda w: simulo.Scene(env_spacing=-1.0),
     E.SceneError, r"env_spacing must be a finite number >= 0 m, at most 1e6, got -1\.0"),
    # simulations
    ("sim_zero_dt", lambda w: simulo.Simulation(w.free_scene, dt=0.0),
     E.SimuloValueError, r"dt must be a finite number of seconds > 0 \(at most 1\), got 0\.0"),
    ("sim_nan_dt", lambda w: simulo.Simulation(w.free_scene, dt=NAN),
     E.SimuloValueError, r"dt must be a finite number of seconds > 0 \(at most 1\), got nan"),
    ("sim_bool_dt", lambda w: simulo.Simulation(w.free_scene, dt=True),
     E.SimuloValueError, r"dt must be a finite number of seconds > 0 \(at most 1\), got True"),
    ("sim_scalar_gravity", lambda w: simulo.Simulation(w.free_scene, gravity=9.81),
     E.SimuloValueError, r"gravity must be three finite numbers \(m/s², at most 1e6\), got \(9\.81,\)"),
    ("sim_text_gravity", lambda w: simulo.Simulation(w.free_scene, gravity=("0", "0", "-9.81")),
     E.SimuloValueError, r"gravity must be three finite numbers \(m/s², at most 1e6\), got \('0', '0', '-9\.81'\)"),
    ("sim_zero_envs_per_world", lambda w: simulo.Simulation(w.free_scene, envs_per_world=0),
     E.SimuloValueError, r"envs_per_world must be an integer from 1 to 28, got 0"),
    ("sim_num_envs_override_zero", lambda w: simulo.Simulation(w.free_scene, num_envs=0),
     E.SceneError, r"num_envs must be an integer >= 1, got 0"),
    ("sim_shared_robot_many_envs", lambda w: simulo.Simulation(w.free_scene, num_envs=3),
     E.SceneError, r"shared \(per_environment=False\) robots/props \['/World/Shared'\] need num_envs == 1, got 3"),
    ("sim_scene_already_attached", lambda w: simulo.Simulation(w.scene),
     E.SceneError, r"this scene is already attached to a Simulation"),
    ("sim_not_a_scene", lambda w: simulo.Simulation("scene"),
     E.SceneError, r"Simulation needs a simulo\.Scene, got 'scene'"),
]


def test_the_table_is_large_and_names_are_unique() -> None:
    names = [c[0] for c in CASES]
    assert len(names) >= 25 and len(set(names)) == len(names)


@pytest.mark.parametrize(("call", "error", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_clearly_and_nothing_is_half_applied(world, call, error, message) -> None:
    before = snapshot(world)
    with pytest.raises(error, match=message) as info:
        call(world)
    assert isinstance(info.value, simulo.SimuloError)
    assert snapshot(world) == before


def test_the_world_still_works_after_all_the_refusals(world) -> None:
    q = np.array(world.cp.state.joint_positions)
    world.sim.step(60)
    after = np.asarray(world.cp.state.joint_positions)
    np.testing.assert_allclose(after[[5, 1, 3], 0], 0.2, atol=0.02)  # the original targets still act
    assert not np.array_equal(after, q)
