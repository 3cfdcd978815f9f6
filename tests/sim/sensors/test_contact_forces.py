"""``ContactSensor.read_net_forces``: a cube resting on a robot body presses with its weight."""

from __future__ import annotations

import numpy as np

import simulo

CUBE_MASS = 1.5


def test_a_resting_cube_presses_on_the_body_with_its_weight(cartpole) -> None:
    scene = simulo.Scene(num_envs=2)
    robot = simulo.Robot(cartpole)
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(0.1,) * 3, pose=simulo.Pose.from_xyz(0.0, 0.0, 2.13),
                                     physics=simulo.RigidPhysics(mass=CUBE_MASS)))
    touch = simulo.ContactSensor(other=cube, name="touch")
    robot.add_sensor(touch, attach_to="cart|pole")
    scene.add(robot, at="/World/Robot")
    scene.add(cube, at="/World/Cube")
    with simulo.Simulation(scene) as sim:
        sim.step(120)
        forces = np.asarray(touch.read_net_forces())
        assert forces.shape == (2, 2, 3)  # two environments, the cart and the pole
        np.testing.assert_allclose(forces[:, 0], [[0.0, 0.0, -CUBE_MASS * 9.81]] * 2, atol=0.05)
        np.testing.assert_allclose(forces[:, 1], 0.0, atol=1e-9)  # the pole does not touch the cube
        assert (np.asarray(touch.read()) > 0).all()
