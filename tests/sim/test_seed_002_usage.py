"""The usage quoted by seed 002 (the shipped cartpole app), run as written, with physics checked."""

from __future__ import annotations

import numpy as np

import simulo


def test_seed_002_cartpole_snippet_drives_the_cart() -> None:
    cartpole = simulo.Asset.from_registry("simulo/robot/cartpole:v1")
    scene = simulo.Scene(num_envs=4)

    # construction and scene placement, as the seed writes them
    robot = simulo.Robot(asset=cartpole, initial_pose=simulo.Pose.identity())
    scene.add(robot, at="/World/Robot")
    dt = 1.0 / 120.0
    with simulo.Simulation(scene, dt=dt) as sim:
        # "later, once — resolve joint indices by name"
        cart_dof_idx = robot.find_joints("slider_to_cart")
        assert cart_dof_idx == [0]
        assert robot.get_joint_names()[cart_dof_idx[0]] == "slider_to_cart"

        # cart + pole mass from the URDF (1 kg + 0.25 kg) is the slider's diagonal mass-matrix entry
        m0 = np.asarray(robot.get_mass_matrix())[0]
        np.testing.assert_allclose(m0[0, 0], 1.25, rtol=1e-9)
        m_eff = m0[0, 0] - m0[0, 1] ** 2 / m0[1, 1]  # the cart's effective mass with a free pole on it

        action_scale = 100.0
        actions = np.array([[0.1], [-0.2], [0.05], [0.0]])
        steps = 12
        for _ in range(steps):  # "every step — drive the resolved joints"
            robot.set_joint_effort_target(action_scale * actions, joint_ids=cart_dof_idx)
            sim.step()

        t = steps * dt
        force = action_scale * actions[:, 0]
        q, qd = (np.asarray(a) for a in robot.get_joint_state())
        # the cart moves the way it is pushed, by about F/m t²/2 (between the free and rigid-pole masses)
        assert np.all(np.sign(q[:, 0]) == np.sign(force))
        x_rigid = 0.5 * force / 1.25 * t**2
        x_free = 0.5 * force / m_eff * t**2
        nonzero = force != 0
        ratio = q[nonzero, 0] / x_free[nonzero]
        assert np.all((ratio > 0.95) & (ratio < 1.15)), (q[:, 0], x_rigid, x_free)
        # the slider coordinate is cyclic: its generalised momentum equals the impulse F·t
        m = np.asarray(robot.get_mass_matrix())
        momentum = np.einsum("nij,nj->ni", m, qd)[:, 0]
        np.testing.assert_allclose(momentum, force * t, rtol=0.01, atol=1e-12)
        # the cart pushes the pole back (it tips against the push) and the applied effort is reported
        assert np.all(np.sign(q[nonzero, 1]) == -np.sign(force[nonzero]))
        np.testing.assert_allclose(np.asarray(robot.state.joint_efforts)[:, 0], force)
        # the environment that was not pushed did not move
        assert q[3, 0] == 0.0 and q[3, 1] == 0.0
