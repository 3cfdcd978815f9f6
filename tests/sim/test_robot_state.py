"""``robot.state`` on PyBullet: live buffers refreshed by real physics (a falling base).

The engine-neutral state contract is in ``tests/sim/contract/test_state.py``.
"""

from __future__ import annotations

import numpy as np

import simulo

LIVE = ("pose", "linear_velocity", "angular_velocity", "joint_positions", "joint_velocities", "joint_efforts")
FREE = simulo.ArticulationConfig(fix_root_link=False)


def test_six_live_members_are_one_buffer_refreshed_in_place(floater, make) -> None:
    robot, sim = make(floater, num_envs=2, plane=True, initial_pose=simulo.Pose.from_xyz(0.0, 0.0, 0.4),
                      articulation=FREE)
    robot.set_joint_effort_target(np.array([[0.3], [-0.2]]), joint_ids=[0])
    sim.step(1)
    held = {m: getattr(robot.state, m) for m in LIVE}
    before = {m: np.array(held[m]) for m in LIVE}
    for member in LIVE:
        again = getattr(robot.state, member)
        assert again is held[member] and np.shares_memory(again, held[member]), member
    robot.set_joint_effort_target(np.array([[0.1], [0.4]]), joint_ids=[0])
    sim.step(10)
    for member in LIVE:
        now = getattr(robot.state, member)
        assert np.shares_memory(now, held[member]), member
        # the tensor held across the steps was refreshed in place: it shows the new values
        assert not np.array_equal(held[member], before[member]), member
        np.testing.assert_array_equal(held[member], now)
    # the base is falling: z dropped and the velocity points down
    assert held["pose"][0, 2] < before["pose"][0, 2]
    assert held["linear_velocity"][0, 2] < -0.2
    np.testing.assert_allclose(held["joint_efforts"][:, 0], [0.1, 0.4])
