"""Validate everything before recording anything: a refused call changes nothing, huge finite inputs and
bools are refused, floating joints are refused, sizes are bounded, names are checked branch by branch, and use
after ``close()`` says "closed"."""

from __future__ import annotations

import numpy as np
import pytest

import simulo
from simulo import checks
from simulo.errors import NameNotFoundError, NotAttachedError, SceneError, SimuloValueError

torch = pytest.importorskip("torch")

FLOATING_URDF = """<?xml version="1.0"?>
<robot name="drifter">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>
  </inertial><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="pod"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>
  </inertial><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <joint name="free" type="floating"><parent link="base"/><child link="pod"/></joint>
</robot>
"""


def test_a_refused_torch_input_leaves_state_unchanged(cartpole, make) -> None:
    robot, sim = make(cartpole, num_envs=2)
    robot.set_joint_position_target(np.full((2, 2), 0.1))
    sim.step(2)
    before = (np.array(robot.state.joint_positions), robot.data.pos_t.copy(), robot.data.vel_t.copy(),
              np.array(sim.gravity))
    with pytest.raises(SimuloValueError, match="positions must have shape"):
        robot.set_joint_position_target(torch.zeros(3, 2))
    with pytest.raises(SimuloValueError, match="velocities"):  # positions pass, velocities do not
        robot.set_joint_state(torch.zeros(2, 2), velocities=torch.full((2, 2), float("nan")))
    with pytest.raises(SimuloValueError, match="gravity"):
        sim.set_gravity(torch.zeros(2, 2))
    after = (robot.state.joint_positions, robot.data.pos_t, robot.data.vel_t, sim.gravity)
    for kept, now in zip(before, after, strict=True):
        assert type(now) is np.ndarray
        np.testing.assert_array_equal(now, kept)


def test_a_numpy_simulation_given_a_torch_target_applies_it_and_keeps_returning_numpy(cartpole, make) -> None:
    robot, _ = make(cartpole, num_envs=2)
    robot.set_joint_position_target(torch.full((2, 2), 0.25))
    np.testing.assert_array_equal(robot.data.pos_t, np.full((2, 2), 0.25))
    assert type(robot.state.joint_positions) is np.ndarray


@pytest.mark.parametrize(("call", "name"), [
    (lambda r: r.set_root_pose([[0.0, 0.0, 1.0, 1e300, 0.0, 0.0, 0.0]]), "pose"),
    (lambda r: r.set_root_velocity([[1e300, 0.0, 0.0, 0.0, 0.0, 0.0]]), "velocity"),
    (lambda r: r.set_joint_state([[1e300, 0.0]]), "positions"),
    (lambda r: r.set_joint_velocity_target([[0.0, 1e200]]), "velocities"),
])
def test_finite_inputs_that_would_overflow_are_refused(floater, cartpole, make, call, name) -> None:
    robot, sim = make(floater, articulation=simulo.ArticulationConfig(fix_root_link=False)) \
        if name in ("pose", "velocity") else make(cartpole)
    before = np.array(robot.state.pose), np.array(robot.state.joint_positions)
    with pytest.raises(SimuloValueError, match=rf"{name} contains .*e\+[0-9]+.* would overflow"):
        call(robot)
    sim.step(2)
    assert np.isfinite(robot.state.pose).all()
    np.testing.assert_allclose(robot.state.pose[:, 3:], before[0][:, 3:], atol=1e-6)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"mass_scale": True}, "Robot.mass_scale must be a finite number > 0, got True"),
    ({"mass_scale": 1e300}, "Robot.mass_scale must be a finite number > 0 and <= 1e\\+12"),
    ({"scale": True}, "Robot.scale must be three finite factors > 0, got True"),
    ({"scale": (1.0, True, 1.0)}, "Robot.scale must be three finite factors"),
    ({"collision_enabled": "False"}, "Robot.collision_enabled must be True or False, got 'False'"),
    ({"visual_only": 1}, "Robot.visual_only must be True or False, got 1"),
    ({"disable_gravity": None}, "Robot.disable_gravity must be True or False, got None"),
])
def test_robot_arguments_refuse_bools_and_coercions(cartpole, kwargs, message) -> None:
    with pytest.raises(SimuloValueError, match=message):
        simulo.Robot(cartpole, **kwargs)


@pytest.mark.parametrize("flag", ["False", 0, None, "yes"])
def test_per_environment_must_be_a_bool(cartpole, flag) -> None:
    scene = simulo.Scene(num_envs=2)
    with pytest.raises(SceneError, match=f"per_environment must be True or False, got {flag!r}"):
        scene.add(simulo.Robot(cartpole), at="/World/Robot", per_environment=flag)
    assert scene.get_items() == []


def test_a_floating_joint_is_refused_not_bolted() -> None:
    asset = simulo.Asset.from_urdf_string(FLOATING_URDF)
    scene = simulo.Scene()
    scene.add(simulo.Robot(asset), at="/World/Drifter")
    with pytest.raises(SceneError, match=r"joints \['free'\] are floating"):
        simulo.Simulation(scene)
    assert scene.runtime_simulation is None


class Sized(simulo.Task):
    """A task with dimensions and nothing else: the environment count is refused before ``build``."""

    observation_dim = 1
    action_dim = 1

    def build(self, scene: simulo.Scene) -> None:
        raise AssertionError("build must not run")


def test_num_envs_beyond_the_machine_fails_before_anything_is_built(monkeypatch) -> None:
    with pytest.raises(SimuloValueError, match=r"num_envs=10000000 is more than the 1048576 environments"):
        simulo.LearningEnv(Sized(), num_envs=10**7)
    with pytest.raises(SceneError, match="num_envs=20000000"):
        simulo.Scene(num_envs=2 * 10**7)
    monkeypatch.setattr(checks, "available_memory", lambda: 64 * 2**20)  # a machine with 64 MiB free
    assert checks.max_num_envs() == 32
    with pytest.raises(SceneError, match=r"num_envs=40 needs about .* GiB \(2 MiB per environment\).*at most 32"):
        simulo.Scene(num_envs=40)
    simulo.Scene(num_envs=32)
    with pytest.raises(SimuloValueError, match="at most 32"):
        simulo.LearningEnv(Sized(), num_envs=33)


def test_a_typo_in_one_branch_of_a_pattern_is_named(arm, make) -> None:
    robot, sim = make(arm)
    assert robot.find_joints("shoulder|elbow") == [1, 2]
    with pytest.raises(NameNotFoundError, match=r"alternative 'elbw' matches no joint"):
        robot.find_joints("shoulder|elbw")
    with pytest.raises(NameNotFoundError, match=r"alternative 'tpc' matches no body"):
        robot.find_bodies("tcp|tpc")
    assert robot.find_joints("(shoulder|elbw)") == [1]  # inside a group: an ordinary regex


def test_use_after_close_says_closed(cartpole, make) -> None:
    robot, sim = make(cartpole)
    sim.close()
    for call in (lambda: sim.step(1), lambda: sim.reset(), lambda: sim.set_gravity([[0.0, 0.0, -9.81]]),
                 lambda: sim.gravity, lambda: sim.render()):
        with pytest.raises(NotAttachedError, match="closed"):
            call()
    with pytest.raises(NotAttachedError, match="closed"):
        robot.set_joint_position_target([[0.0, 0.0]])
    with pytest.raises(NotAttachedError, match="closed"):
        robot.state.joint_positions
    sim.close()  # a second close does nothing


