"""The simulated pick-and-place cell: ``N`` arms, grippers and cubes moved in lock-step in one simulation.

Everything goes through the public surface: :class:`simulo.Robot` (joints found by name,
``set_joint_position_target`` with the engine motor at position gain 0.3 and the URDF effort limits),
:class:`simulo.ParallelGripperActuator` (the gear coupling and the 20 N squeeze), :class:`simulo.Prop` (the cube),
:class:`simulo.ContactSensor` (contact counts) and :class:`simulo.Simulation`. No physics engine is
imported here. The cell moves the tcp along straight lines with IK at every 1/240 s step, commands the
grippers, checks the grasp, and checks every move for collisions before it starts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

import simulo
from simulo.apps.pick_place.config import (
    ARM_JOINTS,
    ARM_REF,
    CAMERA_EYE,
    CAMERA_TARGET,
    CUBE_MASS,
    CUBE_SIZE,
    DEFAULT_OPTIONS,
    DT,
    FINGER_JOINTS,
    FRAME_EVERY,
    FRAME_SIZE,
    GAP_TOLERANCE,
    GRIP_FORCE,
    MOVE_QUANTUM,
    OPENING,
    SETTLE_GRIPPER,
    SETTLE_MOVE,
    SETTLE_START,
    TCP_BODY,
    AppOptions,
    CubeStart,
)
from simulo.apps.pick_place.control import ArmControl
from simulo.apps.pick_place.ik import solve_ik
from simulo.apps.pick_place.motion import smoothstep, step_count
from simulo.apps.pick_place.safety import BoxFixture, check_path
from simulo.errors import CollisionError, SimuloValueError, UnreachableError


class PickPlaceCell:
    """``N`` arms, grippers and cubes in ``N`` environments of one :class:`simulo.Simulation`, in lock-step.

    Every environment runs the same timeline (the same phases, the same number of steps); targets differ
    per environment. Positions the cell takes and reports are in each environment's own frame (the arm's
    base frame), not world coordinates.

    Args:
        cubes: Start of each cube (one :class:`CubeStart` per cube, each with N rows).
        start_tcp: Tcp position (N, 3) the arm is put at before the run.
        start_yaw: Grasp yaw (N,) of that start pose, rad.
        options: How the cell is built and driven.
        video: A :class:`simulo.VideoWriter` that records environment 0, or None.
        shard: ``(first_env, total_envs)`` when the cell holds environments ``first_env ..`` of a larger batch
            (see :class:`simulo.Simulation`): they get the origins and worlds they have in the whole batch.

    Attributes:
        track: Read the tcp after every step of a move for :attr:`tracking_mm` (each move's largest distance
            from its moving target, mm, per environment); False leaves those reads out and ``tracking_mm``
            empty (for a run that reports no tracking error).

    Raises:
        SimuloValueError: Inconsistent shapes.
        UnreachableError: The start pose is out of reach.
    """

    def __init__(self, cubes: Sequence[CubeStart], start_tcp: np.ndarray, start_yaw: np.ndarray,
                 options: AppOptions = DEFAULT_OPTIONS, video: Any = None,
                 shard: tuple[int, int] | None = None) -> None:
        start_tcp = np.asarray(start_tcp, dtype=np.float64)
        start_yaw = np.asarray(start_yaw, dtype=np.float64)
        n = start_tcp.shape[0]
        if start_tcp.shape != (n, 3) or start_yaw.shape != (n,) or not cubes \
                or any(c.xy.shape != (n, 2) or c.yaw.shape != (n,) for c in cubes):
            raise SimuloValueError(f"PickPlaceCell needs start_tcp (N, 3), start_yaw (N,) and cubes with xy (N, 2), "
                                   f"yaw (N,); got {start_tcp.shape}, {start_yaw.shape}, "
                                   f"{[(c.xy.shape, c.yaw.shape) for c in cubes]}")
        self.options = options
        self.num_envs = n
        scene = simulo.Scene(num_envs=n)
        scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
        gains: dict[str, simulo.ActuatorGainsConfig | simulo.MotorGainsConfig] = {
            "|".join(ARM_JOINTS): simulo.MotorGainsConfig(position_gain=options.position_gain)
        }
        self.robot = simulo.Robot(simulo.Asset.from_registry(ARM_REF), actuator_gains=gains)
        self.gripper = simulo.ParallelGripperActuator(FINGER_JOINTS, coupled=options.coupled, gear_ratio=-1.0,
                                                      gear_erp=0.1, gear_max_force=50.0)
        self.robot.add_actuator(self.gripper, attach_to="hand")
        scene.add(self.robot, at="/World/Arm")
        self.cubes: list[simulo.Prop] = []
        self._all_contacts: list[simulo.ContactSensor] = []
        self._finger_contacts: list[simulo.ContactSensor] = []
        for k, start in enumerate(cubes):
            name = "cube" if k == 0 else f"cube{k + 1}"
            x0, y0, yaw0 = start.created_at
            spawn = simulo.Pose.from_xyz_rpy((x0, y0, start.z), (0.0, 0.0, yaw0))
            cube = simulo.Prop(simulo.Cuboid(name=name, size=(CUBE_SIZE,) * 3, pose=spawn,
                                             physics=simulo.RigidPhysics(mass=CUBE_MASS, friction=options.friction)))
            scene.add(cube, at=f"/World/{name}")
            every_link = simulo.ContactSensor(other=cube, name=f"{name}_contacts")
            fingers = simulo.ContactSensor(other=cube, name=f"{name}_finger_contacts")
            self.robot.add_sensor(every_link, attach_to=".*")
            self.robot.add_sensor(fingers, attach_to="finger_.*")
            self.cubes.append(cube)
            self._all_contacts.append(every_link)
            self._finger_contacts.append(fingers)
        self.video = video
        self.sim = simulo.Simulation(scene, dt=DT, visuals=video is not None, shard=shard)
        self.robot.set_body_friction("finger_.*", options.friction)
        self.origins = np.asarray(self.sim.env_origins, dtype=np.float64)
        self.arm_ids = [self.robot.find_joints(name)[0] for name in ARM_JOINTS]
        for cube, start in zip(self.cubes, cubes):
            self._place_cube(cube, start)
        self.active = np.ones(n, dtype=bool)
        self.failures: list[str | None] = [None] * n
        self.target = start_tcp.copy()
        self.yaw = start_yaw.copy()
        self.gripper_open = np.zeros(n, dtype=bool)
        self.track = True
        self.tracking_mm: dict[str, np.ndarray] = {}
        self.grasp_cube = 0
        self.obstacles: list[list[BoxFixture]] = [[] for _ in range(n)]
        self.control = ArmControl(self.robot, self.origins, self.arm_ids, self.robot.find_bodies(TCP_BODY)[0], options)
        q0 = np.zeros((n, self.robot.num_joints))
        q0[:, self.arm_ids] = self.control.start(start_tcp, start_yaw)
        self.robot.set_joint_state(q0)
        self.robot.set_joint_position_target(q0[:, self.arm_ids], joint_ids=self.arm_ids)

    # -- construction helpers -------------------------------------------------------------------------
    def _place_cube(self, cube: simulo.Prop, start: CubeStart) -> None:
        """Teleport the environments' cubes that do not start where they were created."""
        x0, y0, yaw0 = start.created_at
        moved = [i for i in range(self.num_envs)
                 if start.xy[i, 0] != x0 or start.xy[i, 1] != y0 or start.yaw[i] != yaw0]
        if not moved:
            return
        poses = np.array([[*(start.xy[i] + self.origins[i, :2]), start.z + self.origins[i, 2],
                           *simulo.Pose.from_xyz_rpy((0.0, 0.0, 0.0), (0.0, 0.0, float(start.yaw[i]))).quat_wxyz]
                          for i in moved])
        cube.set_pose(poses, env_ids=moved)

    # -- reads ----------------------------------------------------------------------------------------
    def tcp(self) -> np.ndarray:
        """Tcp positions (N, 3) in each environment's frame."""
        return np.asarray(self.robot.get_body_pose(TCP_BODY))[:, :3] - self.origins

    def cube_pose(self, k: int = 0) -> np.ndarray:
        """Cube ``k`` poses (N, 7) ``[x, y, z, qw, qx, qy, qz]`` in each environment's frame."""
        pose = np.array(self.cubes[k].state.pose, dtype=np.float64)
        pose[:, :3] -= self.origins
        return pose

    def finger_gap(self) -> np.ndarray:
        """Distance between the fingers (N,), m."""
        return np.asarray(self.gripper.gap(), dtype=np.float64)

    def contact_points(self, k: int = 0) -> np.ndarray:
        """Contact points between the robot and cube ``k`` (N,)."""
        return np.asarray(self._all_contacts[k].read())

    def finger_contacts(self, k: int = 0) -> np.ndarray:
        """Contact points of each finger with cube ``k`` (N, 2)."""
        return np.asarray(self._finger_contacts[k].read_per_body())

    def holding(self) -> np.ndarray:
        """Grasp check per environment (N,): the finger gap is within :data:`GAP_TOLERANCE` of the cube size and
        both fingers touch the cube being grasped."""
        gap_ok = np.abs(self.finger_gap() - CUBE_SIZE) <= GAP_TOLERANCE
        return gap_ok & np.all(self.finger_contacts(self.grasp_cube) > 0, axis=1)

    def grasp_failure(self, env: int) -> str:
        """Why the grasp check of one environment fails."""
        gap = self.finger_gap()[env]
        touching = self.finger_contacts(self.grasp_cube)[env]
        reasons = []
        if abs(gap - CUBE_SIZE) > GAP_TOLERANCE:
            reasons.append(f"finger gap {gap * 1000:.1f} mm is not within {GAP_TOLERANCE * 1000:.0f} mm of the "
                           f"{CUBE_SIZE * 1000:.0f} mm cube")
        if not np.all(touching > 0):
            reasons.append(f"contact points per finger {touching.tolist()} (both fingers must touch the cube)")
        return "grasp failed: " + " and ".join(reasons) + "; stopped before the lift"

    # -- control --------------------------------------------------------------------------------------
    def _command(self, points: np.ndarray, yaw: np.ndarray) -> None:
        """Send this step's arm targets for tcp ``points`` (N, 3) with the fingers across ``yaw`` (N,)."""
        self.robot.set_joint_position_target(self.control.targets(points, yaw), joint_ids=self.arm_ids)

    def hold(self, steps: int) -> None:
        """Step the simulation ``steps`` times with the tcp held at its target."""
        if self.options.ik == "closed-form":
            self.advance(steps)
            return
        for _ in range(steps):
            self._command(self.target, self.yaw)
            self.advance(1)

    def settle_steps(self, steps: int) -> int:
        """Settling steps after a move or gripper command at the current speed factor."""
        return steps if self.options.speed == 1.0 else max(1, round(steps / self.options.speed))

    def move(self, name: str, goals: np.ndarray, yaws: np.ndarray, speeds: np.ndarray,
             on_collision: Literal["raise", "fail"] = "raise", seconds: float | None = None) -> None:
        """Straight-line tcp moves of the active environments to ``goals`` (N, 3), then settle.

        The move takes the longest of the environments' durations (``distance / speed`` rounded up to
        :data:`MOVE_QUANTUM` over the speed factor), or ``seconds`` when given (0: no move, no settling).
        Inactive environments and environments already at their goal hold still. Every path is checked
        against the floor and the known fixtures first.

        Raises:
            CollisionError: With ``on_collision="raise"``, a path would collide. With ``"fail"`` the
                environment is marked failed instead and holds still (its gripper keeps its state).
            UnreachableError: Likewise for a path that leaves the arm's reach.
            SimuloValueError: A speed is not a finite number > 0, or a goal or yaw is not finite.
            In every case nothing has moved.
        """
        goals, yaws, speeds = (np.asarray(v, dtype=np.float64) for v in (goals, yaws, speeds))
        if goals.shape != (self.num_envs, 3) or yaws.shape != (self.num_envs,) or speeds.shape != (self.num_envs,):
            raise SimuloValueError(f"move {name!r} needs goals (N, 3), yaws (N,) and speeds (N,) for N="
                                   f"{self.num_envs}; got {goals.shape}, {yaws.shape}, {speeds.shape}")
        goals = np.where(self.active[:, None], goals, self.target)
        yaws = np.where(self.active, yaws, self.yaw)
        if not (np.isfinite(goals).all() and np.isfinite(yaws).all()):
            raise SimuloValueError(f"move {name!r}: goals and yaws must be finite, got {goals.tolist()}, "
                                   f"{yaws.tolist()}")
        if not (np.isfinite(speeds[self.active]).all() and (speeds[self.active] > 0).all()):
            raise SimuloValueError(f"move {name!r}: speeds must be finite numbers > 0 m/s, got {speeds.tolist()}")
        for i in np.nonzero(self.active)[0]:
            try:
                check_path(name, self.target[i], goals[i], [*self.options.fixtures, *self.obstacles[i]])
                for s in np.linspace(0.0, 1.0, 9):
                    x, y, z = (1 - s) * self.target[i] + s * goals[i]
                    solve_ik(x, y, z, 0.0)
            except (CollisionError, UnreachableError) as exc:
                if on_collision == "raise":
                    if isinstance(exc, UnreachableError):
                        raise UnreachableError(f"move {name!r} refused: {exc}") from exc
                    raise
                self.fail(int(i), f"move {name!r} refused: {exc}", open_gripper=False)
                goals[i], yaws[i] = self.target[i], self.yaw[i]
        distance = np.linalg.norm(goals - self.target, axis=1)
        moving = self.active & (distance > 1e-9)
        if seconds is None:
            if not moving.any():
                return
            quantum = MOVE_QUANTUM / self.options.speed
            seconds = max(math.ceil(distance[i] / speeds[i] / quantum - 1e-9) * quantum for i in np.nonzero(moving)[0])
        elif seconds <= 0:
            return
        n = step_count(seconds, DT)
        # every step's point at once: the seed's (1 - s) * start + s * goal, element for element
        s = np.array([smoothstep(k / n) for k in range(1, n + 1)])[:, None, None]
        points = (1 - s) * self.target + s * goals
        reached = np.empty_like(points) if self.track else None  # the tcp after each step, world frame
        closed_form = self.options.ik == "closed-form"  # its targets depend on the path only: solved beforehand
        targets = self.control.path_targets(points, yaws) if closed_form else None
        for k in range(n):
            if targets is not None:
                self.robot.set_joint_position_target(targets[k], joint_ids=self.arm_ids)
            else:
                self._command(points[k], yaws)
            self.advance(1)
            if reached is not None:
                reached[k] = self.robot.get_body_pose(TCP_BODY)[:, :3]
        self.target, self.yaw = goals, yaws
        if reached is not None:
            self.tracking_mm[name] = np.linalg.norm(reached - self.origins - points, axis=2).max(axis=0) * 1000
        self.hold(self.settle_steps(SETTLE_MOVE))

    def grip(self, opening: float, force: float) -> None:
        """Command every active gripper to ``opening`` with ``force`` per finger, then settle."""
        ids = np.nonzero(self.active)[0].tolist()
        if ids:
            self.gripper.command(opening, force, env_ids=ids)
            self.gripper_open[ids] = opening >= OPENING
        self.hold(self.settle_steps(SETTLE_GRIPPER))

    def fail(self, env: int, reason: str, open_gripper: bool = True) -> None:
        """Stop one environment: it keeps its tcp target from now on and, if asked, opens its gripper."""
        if not self.active[env]:
            return
        self.active[env] = False
        self.failures[env] = reason
        if open_gripper:
            self.gripper.command(OPENING, GRIP_FORCE, env_ids=[env])
            self.gripper_open[env] = True

    def advance(self, steps: int) -> None:
        """Step the simulation; when recording, draw environment 0 every :data:`FRAME_EVERY` steps."""
        if self.video is None:
            self.sim.step(steps)
            return
        for _ in range(steps):
            self.sim.step()
            if self.sim.step_count % FRAME_EVERY == 0:
                self.video.add(self.sim.render(0, *FRAME_SIZE, eye=CAMERA_EYE, target=CAMERA_TARGET))

    def close(self) -> None:
        """Release the simulation."""
        self.sim.close()


def start_cell(cubes: Sequence[CubeStart], home: np.ndarray, yaw: np.ndarray, options: AppOptions,
               video: Any = None, shard: tuple[int, int] | None = None) -> PickPlaceCell:
    """Build a cell with the arm above ``home`` (N, 3), open the grippers and let everything settle 120 steps.

    ``video`` (a :class:`simulo.VideoWriter`) records environment 0 as the cell runs.
    """
    cell = PickPlaceCell(cubes, home, yaw, options, video, shard)
    cell.gripper.command(OPENING, GRIP_FORCE)
    cell.gripper_open[:] = True
    cell.hold(SETTLE_START)
    return cell
