"""Pick and place a cube with a five-joint arm and a gear-coupled parallel gripper.

    python samples/pick_place.py             # prints the phase lines, exit 0 on PASS
    simulo run samples/pick_place.py         # the same as a job; the result is saved as JSON

The arm comes from the catalog (a URDF of boxes and cylinders). Its joints are found by name, driven by
the engine's position motor at gain 0.3, and the tool centre point (tcp) moves along straight lines with a
smooth start and stop, solving the closed-form inverse kinematics at every 1/240 s step. The gripper's
two fingers are tied together like a rack and pinion, so the cube is always held centred.

Copy this file to start your own scripted app: everything below uses the public ``simulo`` names, plus
the closed-form IK of the pick arm.
"""

import math

import numpy as np

import simulo
from simulo.apps.pick_place.ik import solve_ik

app = simulo.App("pick_place")

DT = 1.0 / 240.0
CUBE = 0.04  # m, edge length
PICK = np.array([0.42, -0.12, CUBE / 2])
PLACE = np.array([0.25, 0.35, CUBE / 2])
CUBE_YAW = 0.3  # rad: the cube is not square to the robot
HOVER_Z, GRASP_Z = 0.15, 0.03  # tcp heights; at GRASP_Z the finger tips are 5 mm above the floor
OPEN, GRIP_FORCE = 0.035, 20.0  # m from the centre line per finger, N per finger
ARM = ["base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll"]


@app.job(type="play", system=simulo.SystemType.TIER_1, timeout=120)
def pick_place(friction: float = 1.0, coupled: bool = True) -> dict:
    """Pick the cube, place it, and report where it ended."""
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
    robot = simulo.Robot(simulo.Asset.from_registry("simulo/robot/pick_arm:v1"),
                         actuator_gains={"|".join(ARM): simulo.MotorGainsConfig(position_gain=0.3)})
    gripper = simulo.ParallelGripper(("finger_left_joint", "finger_right_joint"), coupled=coupled)
    robot.add_actuator(gripper, attach_to="hand")
    scene.add(robot, at="/World/Arm")
    cube = simulo.Prop(simulo.Cuboid(name="cube", size=(CUBE, CUBE, CUBE),
                                     pose=simulo.Pose.from_xyz_rpy(PICK, (0.0, 0.0, CUBE_YAW)),
                                     physics=simulo.RigidPhysics(mass=0.1, friction=friction)))
    scene.add(cube, at="/World/Cube")
    contacts = simulo.ContactSensor(other=cube)
    robot.add_sensor(contacts, attach_to=".*")

    with simulo.Simulation(scene, dt=DT) as sim:
        robot.set_body_friction("finger_.*", friction)
        arm = [robot.find_joints(name)[0] for name in ARM]

        def tcp() -> np.ndarray:
            return np.asarray(robot.get_body_pose("tcp"))[0, :3]

        def cube_position() -> np.ndarray:
            return np.asarray(cube.state.pose)[0, :3]

        def move_tcp(start: np.ndarray, goal: np.ndarray, seconds: float) -> None:
            """Straight-line tcp move with a smooth start and stop, IK at every step, then settle."""
            n = int(seconds / DT)
            for i in range(1, n + 1):
                s = i / n
                s = 3 * s * s - 2 * s**3
                robot.set_joint_position_target(np.array([solve_ik(*((1 - s) * start + s * goal), CUBE_YAW)]),
                                                joint_ids=arm)
                sim.step()
            sim.step(60)

        # Start above the cube with the gripper open.
        above_pick, at_pick = np.array([*PICK[:2], HOVER_Z]), np.array([*PICK[:2], GRASP_Z])
        above_place, at_place = np.array([*PLACE[:2], HOVER_Z]), np.array([*PLACE[:2], GRASP_Z + 0.005])
        q = np.zeros((1, robot.num_joints))
        q[0, arm] = solve_ik(*above_pick, CUBE_YAW)
        robot.set_joint_state(q)
        robot.set_joint_position_target(q[:, arm], joint_ids=arm)
        gripper.command(OPEN, GRIP_FORCE)
        sim.step(120)
        print(f"start: tcp at {np.round(tcp(), 4)}, cube at {np.round(cube_position(), 4)}")

        move_tcp(above_pick, at_pick, 1.0)
        print(f"approach: tcp error {np.linalg.norm(tcp() - at_pick) * 1000:.1f} mm")
        gripper.command(0.0, GRIP_FORCE)  # aim past the cube faces so the fingers squeeze with 20 N
        sim.step(240)
        print(f"close: finger gap {float(gripper.gap()[0]) * 1000:.1f} mm (cube is {CUBE * 1000:.0f} mm), "
              f"contact points {int(contacts.read()[0])}")
        move_tcp(at_pick, above_pick, 1.0)
        offset = cube_position() - tcp()
        print(f"lift: cube centre {-offset[2] * 1000:.1f} mm below the tcp, "
              f"{np.linalg.norm(offset[:2]) * 1000:.1f} mm off-centre sideways")
        move_tcp(above_pick, above_place, 2.0)
        move_tcp(above_place, at_place, 1.0)
        gripper.command(OPEN, GRIP_FORCE)
        sim.step(240)
        print("release: gripper open")
        move_tcp(at_place, above_place, 1.0)
        sim.step(240)

        pose = np.asarray(cube.state.pose)[0]
        qw, qx, qy, qz = pose[3:]
        roll = math.atan2(2 * (qy * qz + qw * qx), qw * qw - qx * qx - qy * qy + qz * qz)
        pitch = math.asin(-2 * (qx * qz - qw * qy))
        yaw = math.atan2(2 * (qx * qy + qw * qz), qw * qw + qx * qx - qy * qy - qz * qz)
        xy_error = float(np.linalg.norm(pose[:2] - PLACE[:2]))
        passed = xy_error < 0.01 and abs(pose[2] - CUBE / 2) < 0.005
        print(f"cube final position: x={pose[0]:.4f} y={pose[1]:.4f} z={pose[2]:.4f} m")
        print(f"cube final tilt: roll {math.degrees(roll):.2f} deg, pitch {math.degrees(pitch):.2f} deg, "
              f"yaw {math.degrees(yaw):.1f} deg")
        print(f"xy error {xy_error * 1000:.1f} mm, tolerance 10 mm: {'PASS' if passed else 'FAIL'}")
        print(f"simulated {sim.time:.1f} s in {sim.step_count} steps")
        return {"final_position": pose[:3].tolist(), "xy_error_mm": xy_error * 1000, "passed": passed,
                "steps": sim.step_count, "sim_time": sim.time}


if __name__ == "__main__":
    raise SystemExit(0 if pick_place()["passed"] else 1)
