"""The target setters' unchecked write (a joint_ids list validated before, a float array that fits) writes what the
checked path writes, and every input it does not take still gets the checked path's error with nothing written."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simulo
from simulo.errors import NonFiniteError, NotAttachedError, ShapeError, SimuloValueError
from simulo.sim.tensors import MAX_MAGNITUDE, Tensors, fits

ARM = ["base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll"]


def _arm(num_envs: int = 2) -> tuple[simulo.Robot, simulo.Simulation, list[int]]:
    scene = simulo.Scene(num_envs=num_envs)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/pick_arm:v1"))
    scene.add(robot, at="/World/Arm")
    sim = simulo.Simulation(scene)
    return robot, sim, [robot.find_joints(name)[0] for name in ARM]


def _targets(robot: simulo.Robot) -> tuple[np.ndarray, ...]:
    data = robot.data
    return data.pos_t.copy(), data.vel_t.copy(), data.eff_t.copy()


@pytest.mark.parametrize("value", [np.ones((2, 5)), np.ones((2, 5), np.float32), -np.full((2, 5), MAX_MAGNITUDE),
                                   np.full((2, 5), MAX_MAGNITUDE * 0.9)])
def test_fits_takes_a_float_array_of_the_shape_within_range(value: np.ndarray) -> None:
    small = fits(value, (2, 5))
    # a sum of magnitudes beyond the bound is left to the checked path, which accepts it value by value
    assert small == (np.abs(value).sum() <= MAX_MAGNITUDE)
    np.testing.assert_array_equal(Tensors().floats(value, (2, 5), "x"), value.astype(np.float64))


@pytest.mark.parametrize("value", [np.full((2, 5), np.nan), np.full((2, 5), np.inf), np.full((2, 5), 2e12),
                                   np.ones((2, 4)), np.ones((2, 5), dtype=np.int64), [[1.0] * 5] * 2,
                                   np.ones((40, 5)) * np.nan])
def test_fits_leaves_everything_else_to_the_checked_path(value: Any) -> None:
    shape = np.shape(value) if np.shape(value)[0] == 40 else (2, 5)
    assert not fits(value, shape)


def test_a_cached_joint_ids_list_writes_what_the_checked_path_writes() -> None:
    robot, sim, ids = _arm()
    with sim:
        values = np.arange(10.0).reshape(2, 5) / 10
        robot.set_joint_position_target(values, joint_ids=ids)  # checked: validates and caches the list
        checked = _targets(robot)
        robot.set_joint_position_target(values.tolist(), joint_ids=ids)  # a list: the checked path again
        assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(checked, _targets(robot)))
        robot.set_joint_position_target(values.astype(np.float32) * 0 + values, joint_ids=ids)  # unchecked write
        assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(checked, _targets(robot)))
        robot.set_joint_velocity_target(values, joint_ids=ids)
        robot.set_joint_velocity_target(values, joint_ids=ids)
        robot.set_joint_effort_target(values, joint_ids=ids)
        robot.set_joint_effort_target(values, joint_ids=ids)
        np.testing.assert_array_equal(robot.data.vel_t[:, ids], values)
        np.testing.assert_array_equal(robot.data.eff_t[:, ids], values)


@pytest.mark.parametrize(("values", "error"), [(np.full((2, 5), np.nan), NonFiniteError),
                                               (np.full((2, 5), 1e13), SimuloValueError),
                                               (np.ones((2, 4)), ShapeError),
                                               (np.ones((1, 5)), ShapeError)])
def test_bad_values_on_a_cached_joint_ids_list_are_refused_with_nothing_written(values: np.ndarray,
                                                                                error: type[Exception]) -> None:
    robot, sim, ids = _arm()
    with sim:
        robot.set_joint_position_target(np.full((2, 5), 0.1), joint_ids=ids)
        before = _targets(robot)
        for setter in (robot.set_joint_position_target, robot.set_joint_velocity_target,
                       robot.set_joint_effort_target):
            with pytest.raises(error):
                setter(values, joint_ids=ids)
            assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(before, _targets(robot)))


@pytest.mark.parametrize("joint_ids", [[True, 1], [0.0, 1.0], [0, 0], [0, 99]])
def test_a_joint_ids_list_that_looks_like_a_cached_one_is_still_checked(joint_ids: list[Any]) -> None:
    robot, sim, _ = _arm()
    with sim:
        robot.set_joint_position_target(np.zeros((2, 2)), joint_ids=[0, 1])  # cached: (0, 1) == (True, 1.0)
        before = _targets(robot)
        with pytest.raises(SimuloValueError):
            robot.set_joint_position_target(np.ones((2, 2)), joint_ids=joint_ids)
        assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(before, _targets(robot)))


def test_non_contiguous_cached_columns_write_the_right_columns() -> None:
    robot, sim, ids = _arm()
    with sim:
        cols = [ids[4], ids[0], ids[2]]
        for k in range(2):  # checked, then unchecked
            robot.set_joint_position_target(np.full((2, 3), 0.1 * (k + 1)), joint_ids=cols)
            np.testing.assert_array_equal(robot.data.pos_t[:, cols], np.full((2, 3), 0.1 * (k + 1)))
            assert np.isnan(robot.data.pos_t[:, ids[1]]).all()


def test_state_and_targets_of_a_closed_simulation_say_so() -> None:
    robot, sim, ids = _arm()
    state = robot.state
    sim.close()
    assert robot.state is state
    with pytest.raises(NotAttachedError, match="closed"):
        state.joint_positions
    with pytest.raises(NotAttachedError, match="closed"):
        robot.set_joint_position_target(np.zeros((2, 5)), joint_ids=ids)
    with pytest.raises(NotAttachedError, match="closed"):
        sim.step()


def _drive(robot: simulo.Robot, sim: simulo.Simulation, ids: list[int], forget: bool) -> np.ndarray:
    """Efforts for 20 steps, then position targets, then velocity targets, then a reset and efforts again;
    ``forget`` drops the flush's cached target masks before every step (the full recomputation)."""
    for k in range(60):
        if k < 20 or k >= 45:
            robot.set_joint_effort_target(np.full((2, 5), 0.05 * np.sin(k)), joint_ids=ids)
        elif k < 30:
            robot.set_joint_position_target(np.full((2, 5), 0.02 * k), joint_ids=ids)
        elif k < 40:
            robot.set_joint_velocity_target(np.full((2, 5), 0.1), joint_ids=ids)
        else:
            robot.reset(env_ids=[1])
        if forget:
            robot.data._set_cache = None
        sim.step()
    return np.array(robot.state.joint_positions)


def test_effort_only_changes_reuse_the_flush_masks_with_the_same_physics() -> None:
    runs = []
    for forget in (False, True):
        robot, sim, ids = _arm()
        with sim:
            runs.append(_drive(robot, sim, ids, forget))
    np.testing.assert_array_equal(runs[0], runs[1])
