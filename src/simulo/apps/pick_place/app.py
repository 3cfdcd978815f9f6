"""The scripted pick-and-place app, run through the simulo contract.

A five-joint arm with a gear-coupled parallel gripper (the catalog's ``simulo/robot/pick_arm:v1``) picks a
40 mm, 0.1 kg cube rotated 0.3 rad at (0.42, -0.12) and places it at (0.25, 0.35). Everything goes through
the public surface: :class:`simulo.Robot` (joints found by name, ``set_joint_position_target`` with the
engine motor at position gain 0.3 and the URDF effort limits), :class:`simulo.ParallelGripper` (the gear
coupling and the 20 N squeeze), :class:`simulo.Prop` (the cube), :class:`simulo.ContactSensor` (contact
counts) and :class:`simulo.Simulation`. No physics engine is imported here.

Layers:

* :class:`PickPlaceCell` is the simulated hardware of ``N`` environments of one simulation, moved in
  lock-step: straight-line tcp moves with IK at every 1/240 s step, gripper commands, the grasp check and
  the collision check before every move.
* :class:`SimulatedArm` and :class:`SimulatedGripper` give one environment of a cell the hardware-shaped
  interface of :mod:`simulo.apps.pick_place.hardware`, so :func:`~simulo.apps.pick_place.hardware.run_pick_and_place`
  runs the sequence unchanged; :func:`run_batch` runs the same sequence over every environment at once.
* :func:`run_pick_place` (the seed's run, optionally stacking a second cube), :func:`run_trials` and
  :func:`friction_sweep` are the experiments behind the ``simulo pick-place`` flags; :func:`report_lines`,
  :func:`trial_lines` and :func:`sweep_lines` turn their results into the printed lines.

Timing. The seed program moves with fixed durations (approach 1 s, lift 1 s, transfer 2 s, lower 1 s,
retreat 1 s) and settles 60 steps after each move, 240 after each gripper command and 240 at the end. The
hardware interface moves at a speed instead, so the simulated arm takes ``distance / speed`` and rounds it
up to whole quarter seconds (:data:`MOVE_QUANTUM`); with the plan speeds of :func:`seed_plan` that gives the
seed's durations exactly, and the run takes the seed's 2580 steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import numpy as np

import simulo
from simulo.apps.pick_place.hardware import PickPlacePlan, run_pick_and_place
from simulo.apps.pick_place.ik import solve_ik
from simulo.apps.pick_place.motion import smoothstep, step_count
from simulo.apps.pick_place.numeric_ik import down_rotation, dls_step, hand_yaw, pose_error, quat_to_matrix
from simulo.apps.pick_place.safety import BoxFixture, check_path
from simulo.errors import CollisionError, SimuloValueError, UnreachableError

ARM_REF = "simulo/robot/pick_arm:v1"
"""Catalog reference of the arm (the seed's URDF)."""
ARM_JOINTS = ("base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll")
FINGER_JOINTS = ("finger_left_joint", "finger_right_joint")
TCP_BODY = "tcp"
DT = 1.0 / 240.0
FRAME_EVERY = 8  # physics steps per video frame: 30 frames per simulated second
FRAME_SIZE = (320, 240)  # video width, height in pixels
CAMERA_EYE, CAMERA_TARGET = (0.85, -0.5, 0.45), (0.3, 0.1, 0.08)  # m, relative to the environment origin
POSITION_GAIN = 0.3
"""Engine-motor position gain of the arm joints (the seed's ``positionGains``)."""
GRIP_FORCE = 20.0
"""Squeeze per finger, N."""
OPENING = 0.035
"""Finger opening (distance of each finger from the centre line) when open, m."""
CUBE_SIZE = 0.04
CUBE_MASS = 0.1
PICK = (0.42, -0.12, CUBE_SIZE / 2)
PLACE = (0.25, 0.35, CUBE_SIZE / 2)
CUBE_YAW = 0.3
SECOND_CUBE = (0.40, 0.12, CUBE_SIZE / 2)
"""Start of the second cube in the stacking run."""
SECOND_CUBE_YAW = -0.2
HOVER_Z = 0.15
GRASP_Z = 0.03
TOLERANCE = 0.01
"""Largest horizontal placement error of a PASS, m."""
Z_TOLERANCE = 0.005
"""Largest height error of a PASS, m (the cube must rest where it belongs)."""
GAP_TOLERANCE = 0.003
"""The grasp check wants the finger gap within this of the cube size, m."""
SLIP_THRESHOLD = 0.005
"""A cube that sinks more than this relative to the tcp during the lift has slipped, m."""
GRAVITY = 9.81
"""m/s², as the simulation's default gravity."""
MOVE_QUANTUM = 0.25
"""Move durations are rounded up to whole multiples of this, s (divided by the speed factor)."""
SETTLE_START, SETTLE_MOVE, SETTLE_GRIPPER, SETTLE_END = 120, 60, 240, 240
TRAVEL_SPEED, LIFT_SPEED, DESCEND_SPEED = 0.25, 0.12, 0.12
"""Average tcp speeds of the plan, m/s: horizontal moves at hover height, lifts and descents."""
QUARTER_TURN = math.pi / 2

IkSolver = Literal["closed-form", "numeric"]


@dataclass(frozen=True)
class AppOptions:
    """How the cell is built and driven.

    Attributes:
        coupled: Couple the fingers with the gripper's gear (ratio -1).
        friction: Lateral friction coefficient of the cube(s) and of both fingers.
        ik: ``"closed-form"`` (the analytic solver) or ``"numeric"`` (damped least squares on the tcp Jacobian).
        speed: Every move this many times faster (and the arm's position gain raised to match).
        fixtures: Known obstacles for the collision check, in the arm's base frame.
        dls_damping: Damping of the numeric solver.
        compensate_gain: Raise the arm's position gain with ``speed`` (see :attr:`position_gain`).
    """

    coupled: bool = True
    friction: float = 1.0
    ik: IkSolver = "closed-form"
    speed: float = 1.0
    fixtures: tuple[BoxFixture, ...] = ()
    dls_damping: float = 0.01
    compensate_gain: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.friction, (int, float)) or isinstance(self.friction, bool) \
                or not math.isfinite(self.friction) or self.friction < 0:
            raise SimuloValueError(f"friction must be a finite number >= 0, got {self.friction!r}")
        if self.ik not in ("closed-form", "numeric"):
            raise SimuloValueError(f"ik must be 'closed-form' or 'numeric', got {self.ik!r}")
        if not isinstance(self.speed, (int, float)) or isinstance(self.speed, bool) \
                or not math.isfinite(self.speed) or not 0.1 <= self.speed <= 8:
            raise SimuloValueError(f"speed must be a number between 0.1 and 8 (times the seed's speed), "
                                   f"got {self.speed!r}")
        for fixture in self.fixtures:
            if not isinstance(fixture, BoxFixture):
                raise SimuloValueError(f"fixtures must be BoxFixture values, got {fixture!r}")
        if not isinstance(self.dls_damping, (int, float)) or isinstance(self.dls_damping, bool) \
                or not math.isfinite(self.dls_damping) or self.dls_damping < 0:
            raise SimuloValueError(f"dls_damping must be a finite number >= 0, got {self.dls_damping!r}")

    @property
    def position_gain(self) -> float:
        """Arm motor position gain: the seed's 0.3, times the speed factor when faster (at most 1).

        The engine motor lags its target by about ``velocity / gain``; scaling the gain with the speed keeps
        the tracking error of faster moves from growing with them.
        """
        if not self.compensate_gain:
            return POSITION_GAIN
        return min(1.0, POSITION_GAIN * max(1.0, self.speed))


def seed_plan(pick: Sequence[float] = PICK, place: Sequence[float] = PLACE, yaw: float = CUBE_YAW,
              speed: float = 1.0) -> PickPlacePlan:
    """The seed's plan: hover at 0.15 m, grasp at 0.03 m, release 5 mm higher, squeeze with 20 N.

    Args:
        pick: Cube centre at the pick location, base frame, m.
        place: Cube centre at the place location (its z says how high it rests), m.
        yaw: Cube yaw as planned, rad.
        speed: Speed factor; every plan speed is multiplied by it.

    Returns:
        The plan.
    """
    return PickPlacePlan(pick=tuple(pick), place=tuple(place), yaw=yaw, hover_z=HOVER_Z, grasp_z=GRASP_Z,
                         place_z_offset=0.005, travel_speed=TRAVEL_SPEED * speed, lift_speed=LIFT_SPEED * speed,
                         descend_speed=DESCEND_SPEED * speed, grip_force=GRIP_FORCE)


def euler_from_quat(q_wxyz: Sequence[float]) -> tuple[float, float, float]:
    """Roll, pitch, yaw (rad, extrinsic x-y-z) of a w-first quaternion, as PyBullet's getEulerFromQuaternion."""
    qw, qx, qy, qz = (float(v) for v in q_wxyz)
    sarg = -2.0 * (qx * qz - qw * qy)
    if sarg <= -0.99999:
        return 0.0, -0.5 * math.pi, 2.0 * math.atan2(qx, -qy)
    if sarg >= 0.99999:
        return 0.0, 0.5 * math.pi, 2.0 * math.atan2(-qx, qy)
    squ, sqx, sqy, sqz = qw * qw, qx * qx, qy * qy, qz * qz
    roll = math.atan2(2.0 * (qy * qz + qw * qx), squ - sqx - sqy + sqz)
    pitch = math.asin(sarg)
    yaw = math.atan2(2.0 * (qx * qy + qw * qz), squ + sqx - sqy - sqz)
    return roll, pitch, yaw


# ---------------------------------------------------------------------------------------------------------
# The simulated cell
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CubeStart:
    """Where a cube starts in every environment (base frame of each environment's arm).

    Attributes:
        xy: Centres (N, 2), m; the cube rests on the floor (or at ``z``).
        yaw: Yaws (N,), rad.
        z: Centre height, m.
        spawn: ``(x, y, yaw)`` every environment's cube is created at before it is moved to its start, or
            None for the first row. A shard of a larger batch passes the batch's first row, so its worlds are
            built (and step) exactly as in the whole batch.
    """

    xy: np.ndarray
    yaw: np.ndarray
    z: float = CUBE_SIZE / 2
    spawn: tuple[float, float, float] | None = None

    @property
    def created_at(self) -> tuple[float, float, float]:
        """``(x, y, yaw)`` the cubes are created at: :attr:`spawn`, else the first row."""
        if self.spawn is not None:
            return float(self.spawn[0]), float(self.spawn[1]), float(self.spawn[2])
        return float(self.xy[0, 0]), float(self.xy[0, 1]), float(self.yaw[0])


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

    Raises:
        SimuloValueError: Inconsistent shapes.
        UnreachableError: The start pose is out of reach.
    """

    def __init__(self, cubes: Sequence[CubeStart], start_tcp: np.ndarray, start_yaw: np.ndarray,
                 options: AppOptions = AppOptions(), video: Any = None, shard: tuple[int, int] | None = None) -> None:
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
        gains = {"|".join(ARM_JOINTS): simulo.MotorGainsConfig(position_gain=options.position_gain)}
        self.robot = simulo.Robot(simulo.Asset.from_registry(ARM_REF), actuator_gains=gains)
        self.gripper = simulo.ParallelGripper(FINGER_JOINTS, coupled=options.coupled, gear_ratio=-1.0,
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
        self.tcp_index = self.robot.find_bodies(TCP_BODY)[0]
        for cube, start in zip(self.cubes, cubes):
            self._place_cube(cube, start)
        self.active = np.ones(n, dtype=bool)
        self.failures: list[str | None] = [None] * n
        self.target = start_tcp.copy()
        self.yaw = start_yaw.copy()
        self.gripper_open = np.zeros(n, dtype=bool)
        self.tracking_mm: dict[str, np.ndarray] = {}
        self.grasp_cube = 0
        self.obstacles: list[list[BoxFixture]] = [[] for _ in range(n)]
        self.hand_yaw = hand_yaw(start_tcp[:, 0], start_tcp[:, 1], start_yaw)
        q0 = np.zeros((n, self.robot.num_joints))
        q0[:, self.arm_ids] = self._start_joints(start_tcp, start_yaw)
        self.roll = q0[:, self.arm_ids[4]].copy()
        self.robot.set_joint_state(q0)
        self.robot.set_joint_position_target(q0[:, self.arm_ids], joint_ids=self.arm_ids)

    # -- construction helpers -------------------------------------------------------------------------
    def _place_cube(self, cube: simulo.Prop, start: CubeStart) -> None:
        """Teleport the environments' cubes that do not start where they were created."""
        x0, y0, yaw0 = start.created_at
        moved = [i for i in range(self.num_envs) if start.xy[i, 0] != x0 or start.xy[i, 1] != y0 or start.yaw[i] != yaw0]
        if not moved:
            return
        poses = np.array([[*(start.xy[i] + self.origins[i, :2]), start.z + self.origins[i, 2],
                           *simulo.Pose.from_xyz_rpy((0.0, 0.0, 0.0), (0.0, 0.0, float(start.yaw[i]))).quat_wxyz]
                          for i in moved])
        cube.set_pose(poses, env_ids=moved)

    def _start_joints(self, tcp: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        if self.options.ik == "closed-form":
            return np.array([solve_ik(*tcp[i], yaw[i]) for i in range(self.num_envs)])
        return self._numeric_start(tcp, yaw)

    def _numeric_start(self, tcp: np.ndarray, yaw: np.ndarray, iterations: int = 200) -> np.ndarray:
        """Solve the start pose with DLS steps on teleported joint states (no physics step is taken)."""
        q = np.zeros((self.num_envs, self.robot.num_joints))
        q[:, self.arm_ids] = [0.0, 0.6, 1.6, 0.9, 0.0]  # elbow up, hand roughly down
        for _ in range(iterations):
            self.robot.set_joint_state(q)
            q[:, self.arm_ids] += self._dls(tcp, yaw)
        return q[:, self.arm_ids]

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
    def _dls(self, points: np.ndarray, yaw: np.ndarray) -> np.ndarray:
        """One DLS correction (N, 5) of the arm joints towards tcp ``points`` with the hand down at ``yaw``.

        The hand yaw aimed at is the equivalent of ``yaw`` (mod 90 degrees) nearest to the last one aimed
        at, so the wrist never flips mid-move (see :meth:`_command`).
        """
        pose = np.asarray(self.robot.get_body_pose(TCP_BODY), dtype=np.float64)
        jac = np.asarray(self.robot.get_jacobians([self.tcp_index]), dtype=np.float64)[:, 0][:, :, self.arm_ids]
        self.hand_yaw = hand_yaw(points[:, 0], points[:, 1], yaw, self.hand_yaw)
        err = pose_error(pose[:, :3] - self.origins, quat_to_matrix(pose[:, 3:]), points, down_rotation(self.hand_yaw))
        return dls_step(jac, err, self.options.dls_damping)

    def _command(self, points: np.ndarray, yaw: np.ndarray) -> None:
        """Send this step's arm targets for tcp ``points`` (N, 3).

        A cube looks the same every 90 degrees, so the closed-form IK wraps the wrist roll into +-45
        degrees. Along a move that would flip the roll by 90 degrees where the wrap boundary is crossed
        (whipping a held cube around), so the roll sent is the equivalent nearest to the last one sent.
        """
        if self.options.ik == "closed-form":
            q = np.array([solve_ik(*points[i], yaw[i]) for i in range(self.num_envs)])
            turns = np.round((self.roll - q[:, 4]) / QUARTER_TURN)
            if turns.any():
                q[:, 4] += turns * QUARTER_TURN
            self.roll = q[:, 4].copy()
        else:
            q = np.asarray(self.robot.state.joint_positions)[:, self.arm_ids] + self._dls(points, yaw)
        self.robot.set_joint_position_target(q, joint_ids=self.arm_ids)

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
                    solve_ik(*((1 - s) * self.target[i] + s * goals[i]), 0.0)
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
        start = self.target.copy()
        peak = np.zeros(self.num_envs)
        for k in range(1, n + 1):
            s = smoothstep(k / n)
            point = (1 - s) * start + s * goals
            self._command(point, yaws)
            self.advance(1)
            np.maximum(peak, np.linalg.norm(self.tcp() - point, axis=1), out=peak)
        self.target, self.yaw = goals, yaws
        self.tracking_mm[name] = peak * 1000
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


class SimulatedArm:
    """The :class:`~simulo.apps.pick_place.hardware.RobotArm` of a one-environment cell.

    Moves are named for the collision check's errors from ``move_names`` in order (``"move N"`` after that).
    A move to where the tcp already is does nothing (the seed starts at the hover pose).
    """

    def __init__(self, cell: PickPlaceCell, move_names: Sequence[str] = ()) -> None:
        if cell.num_envs != 1:
            raise SimuloValueError(f"SimulatedArm drives a one-environment cell, got {cell.num_envs} environments")
        self.cell = cell
        self.move_names = list(move_names)
        self.moves = 0

    def move_linear(self, x: float, y: float, z: float, yaw: float, speed: float) -> None:
        """Move the tcp in a straight line to (x, y, z) with the fingers across ``yaw`` at ``speed`` m/s."""
        name = self.move_names[self.moves] if self.moves < len(self.move_names) else f"move {self.moves + 1}"
        self.moves += 1
        self.cell.move(name, np.array([[x, y, z]]), np.array([yaw]), np.array([speed]))


class SimulatedGripper:
    """The :class:`~simulo.apps.pick_place.hardware.Gripper` of a one-environment cell.

    ``open`` on an open gripper does nothing; ``close`` squeezes towards the centre line; both settle
    240 steps (1 s). ``holding_object`` is :meth:`PickPlaceCell.holding`.
    """

    def __init__(self, cell: PickPlaceCell) -> None:
        if cell.num_envs != 1:
            raise SimuloValueError(f"SimulatedGripper drives a one-environment cell, got {cell.num_envs} environments")
        self.cell = cell

    def open(self) -> None:
        """Open the fingers to 35 mm each and wait for them."""
        if not self.cell.gripper_open[0]:
            self.cell.grip(OPENING, GRIP_FORCE)

    def close(self, force: float) -> None:
        """Drive the fingers past the cube faces so they squeeze it with ``force`` N each."""
        self.cell.grip(0.0, force)

    def holding_object(self) -> bool:
        """Finger gap about the cube size and contact on both fingers."""
        return bool(self.cell.holding()[0])


# ---------------------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PickResult:
    """What happened to one cube in one environment (positions in the environment's frame, m).

    Attributes:
        start_cube: Cube centre before the pick.
        target: Where the cube should end (its centre).
        approach_error_mm: Tcp distance from the grasp point after the approach and settling.
        finger_gap_mm: Finger gap after closing.
        contact_points: Contact points between the robot and the cube after closing.
        finger_contacts: Contact points of each finger with the cube after closing.
        grasped: Whether the grasp check passed.
        lift_below_mm: Cube centre below the tcp after the lift (None without a lift).
        lift_sideways_mm: Horizontal cube offset from the tcp after the lift.
        slipped: Whether the cube sank more than :data:`SLIP_THRESHOLD` relative to the tcp during the lift.
        tracking_mm: Largest tcp distance from the moving target during each move.
        final_position: Cube centre at the end of the run.
        final_rpy_deg: Cube roll, pitch, yaw at the end of the run, degrees.
        xy_error_mm: Horizontal distance from the target at the end.
        passed: The grasp held, nothing failed, and the cube ends within :data:`TOLERANCE` horizontally and
            :data:`Z_TOLERANCE` vertically of the target.
        failure: Why this environment stopped early, or None.
    """

    start_cube: tuple[float, ...]
    target: tuple[float, ...]
    approach_error_mm: float | None
    finger_gap_mm: float | None
    contact_points: int | None
    finger_contacts: tuple[int, ...] | None
    grasped: bool
    lift_below_mm: float | None
    lift_sideways_mm: float | None
    slipped: bool | None
    tracking_mm: dict[str, float]
    final_position: tuple[float, ...]
    final_rpy_deg: tuple[float, ...]
    xy_error_mm: float
    passed: bool
    failure: str | None


@dataclass(frozen=True)
class RunResult:
    """One run of the app in one environment.

    Attributes:
        start_tcp: Tcp position after the start settle.
        start_cube: First cube's centre then.
        picks: One :class:`PickResult` per cube (two when stacking; fewer if the run stopped early).
        passed: Every cube of the run was picked and passed.
        steps: Physics steps simulated.
        sim_time: Simulated seconds.
        options: The options of the run.
        ik_comparison_mm: With the numeric solver, the approach tcp error of both solvers
            (``{"closed-form": ..., "numeric": ...}``, from a second, closed-form run); else empty.
        seed_gain_tracking_mm: With a speed factor above 1, each move's largest tracking error in a second
            run at the seed's position gain 0.3 (what the gain compensation saves); else empty.
    """

    start_tcp: tuple[float, ...]
    start_cube: tuple[float, ...]
    picks: tuple[PickResult, ...]
    passed: bool
    steps: int
    sim_time: float
    options: AppOptions
    ik_comparison_mm: dict[str, float] = field(default_factory=dict)
    seed_gain_tracking_mm: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every number (the options included)."""
        return asdict(self)


class _Recorder:
    """Measures one cube in every environment of a cell as the phases complete."""

    def __init__(self, cell: PickPlaceCell, cube: int, targets: np.ndarray) -> None:
        self.cell = cell
        self.cube = cube
        self.targets = np.asarray(targets, dtype=np.float64)
        self.start = cell.cube_pose(cube)[:, :3].copy()
        self.values: list[dict[str, Any]] = [{} for _ in range(cell.num_envs)]
        self.grasp_height = np.zeros(cell.num_envs)

    def __call__(self, phase: str) -> None:
        cell, k = self.cell, self.cube
        if phase == "approach":
            err = np.linalg.norm(cell.tcp() - cell.target, axis=1) * 1000
            for v, e in zip(self.values, err):
                v["approach"] = float(e)
        elif phase == "close":
            gap, count, fingers = cell.finger_gap() * 1000, cell.contact_points(k), cell.finger_contacts(k)
            self.grasp_height = cell.tcp()[:, 2] - cell.cube_pose(k)[:, 2]
            for i, v in enumerate(self.values):
                v["gap"], v["contacts"] = float(gap[i]), int(count[i])
                v["fingers"] = tuple(int(c) for c in fingers[i])
        elif phase == "lift":
            offset = cell.cube_pose(k)[:, :3] - cell.tcp()
            for i, v in enumerate(self.values):
                if cell.active[i]:
                    v["below"] = float(-offset[i, 2] * 1000)
                    v["sideways"] = float(np.linalg.norm(offset[i, :2]) * 1000)
                    v["slipped"] = bool(-offset[i, 2] - self.grasp_height[i] > SLIP_THRESHOLD)

    def snapshot_tracking(self) -> None:
        """Keep this pick's tracking errors (a later pick's moves of the same name overwrite the cell's)."""
        for i, v in enumerate(self.values):
            v["tracking"] = {name: float(err[i]) for name, err in self.cell.tracking_mm.items()}

    def result(self, env: int, grasped: bool, failure: str | None) -> PickResult:
        """The pick's result in one environment, judged on the cube's pose now."""
        v = self.values[env]
        pose = self.cell.cube_pose(self.cube)[env]
        target = self.targets[env]
        xy_err = float(np.linalg.norm(pose[:2] - target[:2]))
        passed = failure is None and grasped and xy_err < TOLERANCE and abs(pose[2] - target[2]) < Z_TOLERANCE
        return PickResult(
            start_cube=tuple(self.start[env].tolist()), target=tuple(target.tolist()),
            approach_error_mm=v.get("approach"), finger_gap_mm=v.get("gap"), contact_points=v.get("contacts"),
            finger_contacts=v.get("fingers"), grasped=grasped, lift_below_mm=v.get("below"),
            lift_sideways_mm=v.get("sideways"), slipped=v.get("slipped"), tracking_mm=v.get("tracking", {}),
            final_position=tuple(pose[:3].tolist()),
            final_rpy_deg=tuple(math.degrees(a) for a in euler_from_quat(pose[3:])),
            xy_error_mm=xy_err * 1000, passed=bool(passed), failure=failure)


# ---------------------------------------------------------------------------------------------------------
# One environment: the seed's run, a stack
# ---------------------------------------------------------------------------------------------------------
def _one_cube(xy: Sequence[float], yaw: float) -> CubeStart:
    return CubeStart(np.array([xy[:2]], dtype=np.float64), np.array([yaw], dtype=np.float64))


def _phase_line(phase: str, v: dict[str, Any]) -> str | None:
    if phase == "approach":
        return f"approach: tcp error {v['approach']:.1f} mm"
    if phase == "close":
        return (f"close: finger gap {v['gap']:.1f} mm (cube is {CUBE_SIZE * 1000:.0f} mm), "
                f"contact points {v['contacts']}")
    if phase == "lift" and "below" in v:
        return f"lift: cube centre {v['below']:.1f} mm below the tcp, {v['sideways']:.1f} mm off-centre sideways"
    if phase == "release":
        return "release: gripper open"
    return None


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


def _pick(cell: PickPlaceCell, arm: SimulatedArm, gripper: SimulatedGripper, plan: PickPlacePlan, cube: int,
          on_line: Callable[[str], None] | None, prefix: str) -> tuple[_Recorder, bool, str | None]:
    """Run the hardware sequence for one cube of a one-environment cell, measuring as it goes."""
    cell.grasp_cube = cube
    cell.tracking_mm = {}
    recorder = _Recorder(cell, cube, np.array([plan.place]))

    def on_phase(phase: str) -> None:
        recorder(phase)
        line = _phase_line(phase, recorder.values[0])
        if on_line is not None and line is not None:
            on_line(prefix + line)

    arm.move_names = [s.phase for s in plan.steps() if s.kind == "move"]
    arm.moves = 0
    outcome = run_pick_and_place(arm, gripper, plan, on_phase=on_phase)
    recorder.snapshot_tracking()
    if outcome.failure is not None:
        reason = cell.grasp_failure(0)
        cell.fail(0, reason)
        if on_line is not None:
            on_line(prefix + reason)
    return recorder, outcome.grasped, cell.failures[0]


def _cube_fixture(cell: PickPlaceCell, k: int) -> BoxFixture:
    """Cube ``k`` of environment 0, where it is now, as an obstacle for the collision check."""
    pose = cell.cube_pose(k)[0]
    return BoxFixture(f"cube {k + 1}", tuple(pose[:3].tolist()), (CUBE_SIZE / 2,) * 3, euler_from_quat(pose[3:])[2])


def run_pick_place(options: AppOptions = AppOptions(), on_line: Callable[[str], None] | None = None,
                   stack: bool = False, video: Any = None) -> RunResult:
    """The seed's run in one environment (and, with ``stack``, a second cube placed on the first).

    The sequence is :func:`~simulo.apps.pick_place.hardware.run_pick_and_place` on a
    :class:`SimulatedArm` and :class:`SimulatedGripper`. While one cube is moved, the other (when
    stacking) is a fixture of the collision check.

    Args:
        options: Cell options (coupling, friction, IK solver, speed, fixtures).
        on_line: Called with each phase line as the run goes (``start``, ``approach``, ``close``, ``lift``,
            ``release``, and why a grasp failed); :func:`report_lines` gives the summary lines.
        stack: After the first cube, pick a second one from :data:`SECOND_CUBE` and put it on the first.
        video: A :class:`simulo.VideoWriter` that receives frames of the run (drawn headless on the CPU; the
            physics is the same with and without it).

    Returns:
        The result. With the numeric solver or a speed factor above 1, a second run is made for the
        comparison fields (see :class:`RunResult`).

    Raises:
        CollisionError: A move would collide with the floor or a fixture (named in the message).
    """
    cubes = [_one_cube(PICK, CUBE_YAW)] + ([_one_cube(SECOND_CUBE, SECOND_CUBE_YAW)] if stack else [])
    cell = start_cell(cubes, np.array([[PICK[0], PICK[1], HOVER_Z]]), np.array([CUBE_YAW]), options, video)
    try:
        start_tcp = tuple(cell.tcp()[0].tolist())
        start_cube = tuple(cell.cube_pose(0)[0, :3].tolist())
        if on_line is not None:
            on_line(f"start: tcp at {np.round(np.asarray(start_tcp), 4)}, "
                    f"cube at {np.round(np.asarray(start_cube), 4)}")
        arm, gripper = SimulatedArm(cell), SimulatedGripper(cell)
        plans = [seed_plan(speed=options.speed)]
        if stack:
            top = (PLACE[0], PLACE[1], PLACE[2] + CUBE_SIZE)
            plans.append(seed_plan(SECOND_CUBE, top, SECOND_CUBE_YAW, speed=options.speed))
        done = []
        for k, plan in enumerate(plans):
            if not cell.active[0]:
                break
            cell.obstacles[0] = [_cube_fixture(cell, j) for j in range(len(cubes)) if j != k]
            done.append(_pick(cell, arm, gripper, plan, k, on_line, "stack: " if k else ""))
        cell.hold(cell.settle_steps(SETTLE_END))
        picks = tuple(rec.result(0, grasped, failure) for rec, grasped, failure in done)
        steps, sim_time = cell.sim.step_count, cell.sim.time
    finally:
        cell.close()
    ik_comparison: dict[str, float] = {}
    if options.ik == "numeric":
        reference = run_pick_place(replace(options, ik="closed-form"))
        ik_comparison = {"closed-form": reference.picks[0].approach_error_mm or 0.0,
                         "numeric": picks[0].approach_error_mm or 0.0}
    seed_gain: dict[str, float] = {}
    if options.speed > 1.0 and options.compensate_gain:
        seed_gain = run_pick_place(replace(options, compensate_gain=False, ik="closed-form")).picks[0].tracking_mm
    return RunResult(start_tcp=start_tcp, start_cube=start_cube, picks=picks,
                     passed=len(picks) == len(cubes) and all(p.passed for p in picks), steps=steps,
                     sim_time=sim_time, options=options, ik_comparison_mm=ik_comparison,
                     seed_gain_tracking_mm=seed_gain)


def report_lines(result: RunResult) -> list[str]:
    """The summary lines printed after the phase lines: final pose and tilt, verdict, comparisons, steps."""
    lines = []
    names = ["cube", "second cube"]
    for name, pick in zip(names, result.picks):
        x, y, z = pick.final_position
        roll, pitch, yaw = pick.final_rpy_deg
        lines.append(f"{name} final position: x={x:.4f} y={y:.4f} z={z:.4f} m")
        lines.append(f"{name} final tilt: roll {roll:.2f} deg, pitch {pitch:.2f} deg, yaw {yaw:.1f} deg")
    for k, pick in enumerate(result.picks):
        label = f"{names[k]}: " if k else ""
        lines.append(f"{label}xy error {pick.xy_error_mm:.1f} mm, tolerance {TOLERANCE * 1000:.0f} mm: "
                     f"{'PASS' if pick.passed else 'FAIL'}")
    for k, pick in enumerate(result.picks):
        if pick.slipped:
            lines.append(f"{names[k]}: slipped in the grasp during the lift (it should hang "
                         f"{(GRASP_Z - CUBE_SIZE / 2) * 1000:.0f} mm below the tcp)")
    if result.ik_comparison_mm:
        c = result.ik_comparison_mm
        lines.append(f"ik: tcp error after the approach: closed-form {c['closed-form']:.3f} mm, "
                     f"numeric (DLS on the tcp Jacobian) {c['numeric']:.3f} mm")
    if result.seed_gain_tracking_mm and result.picks:
        pick = result.picks[0]
        now = ", ".join(f"{k} {v:.1f}" for k, v in pick.tracking_mm.items())
        seed = ", ".join(f"{k} {v:.1f}" for k, v in result.seed_gain_tracking_mm.items())
        slip = "n/a (no lift)" if pick.slipped is None else ("the cube slipped" if pick.slipped else "no slip")
        lines.append(f"speed x{result.options.speed:g}: largest tcp tracking error per move, mm: {now} "
                     f"(position gain {result.options.position_gain:.2f}); at the seed's gain {POSITION_GAIN}: {seed}")
        lines.append(f"speed x{result.options.speed:g}: lift: {slip}")
    lines.append(f"simulated {result.sim_time:.1f} s in {result.steps} steps")
    return lines


# ---------------------------------------------------------------------------------------------------------
# Batched trials
# ---------------------------------------------------------------------------------------------------------
TRIAL_RADIUS = (0.30, 0.50)
"""Range of the cube's horizontal distance from the arm's base axis in random trials, m."""
TRIAL_BEARING = (-math.pi / 3, math.pi / 9)
"""Range of the cube's bearing from the arm's x axis in random trials, rad (away from the place target)."""


def sample_trials(num: int, seed: int, noise_mm: float = 0.0, noise_deg: float = 0.0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Cube starts and the planner's estimates of them for ``num`` trials.

    Starts are uniform by area over the annular sector :data:`TRIAL_RADIUS` x :data:`TRIAL_BEARING` (all
    reachable from above), with a uniform yaw in [-45, 45) degrees (a cube looks the same every 90). The
    estimate adds Gaussian noise of standard deviation ``noise_mm`` to x and y and ``noise_deg`` to the yaw.
    Everything comes from ``numpy.random.default_rng(seed)``, trial by trial (three uniforms, then three
    normals, drawn whatever the noise level): trial ``i`` is the same whatever ``num`` and the noise are.

    Args:
        num: Number of trials, >= 1.
        seed: Generator seed.
        noise_mm: Position noise, mm (>= 0).
        noise_deg: Yaw noise, degrees (>= 0).

    Returns:
        ``(true, estimate)``, each (num, 3) rows of ``[x, y, yaw]``.

    Raises:
        SimuloValueError: A bad count, seed or noise level.
    """
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise SimuloValueError(f"number of trials must be an integer >= 1, got {num!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SimuloValueError(f"seed must be an integer >= 0, got {seed!r}")
    for name, value in (("noise_mm", noise_mm), ("noise_deg", noise_deg)):
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise SimuloValueError(f"{name} must be a finite number >= 0, got {value!r}")
    rng = np.random.default_rng(seed)
    uniform = np.empty((num, 3))
    normal = np.empty((num, 3))
    for i in range(num):
        uniform[i] = rng.random(3)
        normal[i] = rng.standard_normal(3)
    (r0, r1), (b0, b1) = TRIAL_RADIUS, TRIAL_BEARING
    r = np.sqrt(r0**2 + uniform[:, 0] * (r1**2 - r0**2))
    bearing = b0 + uniform[:, 1] * (b1 - b0)
    yaw = (uniform[:, 2] - 0.5) * (math.pi / 2)
    true = np.stack([r * np.cos(bearing), r * np.sin(bearing), yaw], axis=1)
    noise = normal * np.array([noise_mm / 1000, noise_mm / 1000, math.radians(noise_deg)])
    return true, true + noise


@dataclass(frozen=True)
class TrialsResult:
    """``N`` random-start trials run as ``N`` environments of one simulation.

    Attributes:
        seed: Generator seed.
        noise_mm: Position noise of the estimate (standard deviation), mm.
        noise_deg: Yaw noise of the estimate (standard deviation), degrees.
        starts: True cube starts ``[x, y, yaw]`` per trial.
        estimates: The planner's estimates ``[x, y, yaw]`` per trial.
        picks: Result per trial.
        passed: Number of trials that passed.
        steps: Physics steps (every environment ran them all).
        sim_time: Simulated seconds.
        worlds: PyBullet worlds the environments were split over.
        options: The options of the run.
    """

    seed: int
    noise_mm: float
    noise_deg: float
    starts: tuple[tuple[float, float, float], ...]
    estimates: tuple[tuple[float, float, float], ...]
    picks: tuple[PickResult, ...]
    passed: int
    steps: int
    sim_time: float
    worlds: int
    options: AppOptions

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every number (the options included)."""
        return asdict(self)


def move_seconds(plans: Sequence[PickPlacePlan], start: np.ndarray, speed: float = 1.0) -> list[float]:
    """Duration of each move of the plans' common sequence, s: the longest over the plans (0 where none moves).

    It depends on the plans and the start tcp positions ``start`` (N, 3) only, never on how the environments
    fare (a failed environment's planned move still counts), so every shard of a batch split over processes
    runs the same timeline as the whole batch.
    """
    quantum = MOVE_QUANTUM / speed
    at = np.asarray(start, dtype=np.float64)
    out = []
    for steps in zip(*(plan.steps() for plan in plans)):
        if steps[0].kind != "move":
            continue
        goals = np.array([s.target for s in steps], dtype=np.float64)
        distance = np.linalg.norm(goals - at, axis=1)
        out.append(max((math.ceil(d / s.speed / quantum - 1e-9) * quantum
                        for d, s in zip(distance, steps) if d > 1e-9), default=0.0))
        at = goals
    return out


def run_batch(cell: PickPlaceCell, plans: Sequence[PickPlacePlan], on_phase: Callable[[str], None] | None = None,
              timeline: Sequence[float] | None = None) -> np.ndarray:
    """Run :func:`~simulo.apps.pick_place.hardware.run_pick_and_place`'s sequence in every environment at once.

    ``plans[i]`` is environment ``i``'s plan; every plan has the same steps, so every environment runs the
    same phase timeline. After ``close`` each environment is checked on its own: one that fails the grasp
    check stops (its tcp holds still, its gripper opens) and is marked failed; the others go on. A move
    the collision check refuses fails that environment the same way.

    Args:
        cell: The cell (``len(plans)`` environments).
        plans: One plan per environment.
        on_phase: Called with each phase name once every environment has done it.
        timeline: The moves' durations from :func:`move_seconds` of the whole batch, or None to time each
            move by the environments still running. With a timeline the grippers also open after every
            close whether or not an environment is still running, so the step count is fixed by the plans.

    Returns:
        Which environments passed the grasp check, (N,) bool.
    """
    if len(plans) != cell.num_envs:
        raise SimuloValueError(f"run_batch needs one plan per environment ({cell.num_envs}), got {len(plans)}")
    grasped = np.zeros(cell.num_envs, dtype=bool)
    durations = None if timeline is None else iter(timeline)
    closed = False
    for steps in zip(*(plan.steps() for plan in plans)):
        first = steps[0]
        if first.kind == "open":
            if closed if durations is not None else not cell.gripper_open[cell.active].all():
                cell.grip(OPENING, GRIP_FORCE)
            closed = False
        elif first.kind == "close":
            cell.grip(0.0, first.force)  # type: ignore[arg-type]
            closed = True
        else:
            cell.move(first.phase, np.array([s.target for s in steps]), np.array([p.yaw for p in plans]),
                      np.array([s.speed for s in steps]), on_collision="fail",
                      seconds=None if durations is None else next(durations))
        if on_phase is not None:
            on_phase(first.phase)
        if first.kind == "close":
            grasped = cell.active & cell.holding()
            for i in np.nonzero(cell.active & ~grasped)[0]:
                cell.fail(int(i), cell.grasp_failure(int(i)))
    return grasped


def run_trials(num: int, seed: int, noise_mm: float = 0.0, noise_deg: float = 0.0,
               options: AppOptions = AppOptions(), first_env: int = 0, count: int | None = None) -> TrialsResult:
    """``num`` pick-and-place trials from random cube starts, batched as environments of one simulation.

    Each trial plans from its (possibly noisy) estimate of the cube pose: the arm starts above the
    estimate and the grasp, yaw and place are planned from it; the result is judged on the true cube.

    Args:
        num: Number of trials (environments).
        seed: Generator seed (see :func:`sample_trials`).
        noise_mm: Position noise of the estimate, mm.
        noise_deg: Yaw noise of the estimate, degrees.
        options: Cell options.
        first_env: With ``count``: run only trials ``first_env .. first_env + count - 1`` of the batch (a shard;
            ``first_env`` a multiple of the world size), with exactly the numbers they get in the whole batch.
        count: Trials of the shard; None for all from ``first_env`` on.

    Returns:
        Per-trial results and the pass count (of the shard's trials). The same arguments give the same numbers.
    """
    true, est = sample_trials(num, seed, noise_mm, noise_deg)
    return run_trial_set(true, est, options, seed=seed, noise_mm=noise_mm, noise_deg=noise_deg, first_env=first_env,
                         count=count)


def run_trial_set(true: np.ndarray, estimate: np.ndarray, options: AppOptions = AppOptions(), seed: int = -1,
                  noise_mm: float = 0.0, noise_deg: float = 0.0, first_env: int = 0, count: int | None = None
                  ) -> TrialsResult:
    """Run given trials (rows ``[x, y, yaw]`` of true cube starts and of their estimates) as one batch.

    :func:`run_trials` draws the rows; a benchmark passes one row at a time to time sequential runs.
    ``seed`` and the noise levels are only recorded in the result. The moves are timed by every row's plan
    (:func:`move_seconds`), so ``first_env``/``count`` can run one shard of the rows with the same numbers.

    Raises:
        SimuloValueError: ``true`` and ``estimate`` are not the same (N, 3) shape, or the shard is not inside.
        SceneError: ``first_env`` is not a multiple of the world size.
    """
    true = np.asarray(true, dtype=np.float64)
    est = np.asarray(estimate, dtype=np.float64)
    if true.ndim != 2 or true.shape[1] != 3 or est.shape != true.shape:
        raise SimuloValueError(f"trials need true and estimated rows [x, y, yaw] of the same shape (N, 3), got "
                               f"{true.shape} and {est.shape}")
    total = true.shape[0]
    stop = total if count is None else first_env + count
    if isinstance(first_env, bool) or not isinstance(first_env, int) or not 0 <= first_env < stop <= total:
        raise SimuloValueError(f"first_env={first_env!r}, count={count!r}: expected a shard inside the {total} trials")
    home = np.stack([est[:, 0], est[:, 1], np.full(total, HOVER_Z)], axis=1)
    plans = [seed_plan((est[i, 0], est[i, 1], CUBE_SIZE / 2), PLACE, float(est[i, 2]), options.speed)
             for i in range(total)]
    timeline = move_seconds(plans, home, options.speed)
    spawn = (float(true[0, 0]), float(true[0, 1]), float(true[0, 2]))
    true, est, home, plans = true[first_env:stop], est[first_env:stop], home[first_env:stop], plans[first_env:stop]
    num = stop - first_env
    cell = start_cell([CubeStart(true[:, :2].copy(), true[:, 2].copy(), spawn=spawn)], home, est[:, 2].copy(),
                      options, shard=(first_env, total))
    try:
        recorder = _Recorder(cell, 0, np.array([plan.place for plan in plans]))
        grasped = run_batch(cell, plans, on_phase=recorder, timeline=timeline)
        recorder.snapshot_tracking()
        cell.hold(cell.settle_steps(SETTLE_END))
        picks = tuple(recorder.result(i, bool(grasped[i]), cell.failures[i]) for i in range(num))
        return TrialsResult(seed=seed, noise_mm=float(noise_mm), noise_deg=float(noise_deg),
                            starts=tuple(tuple(r) for r in true.tolist()),
                            estimates=tuple(tuple(r) for r in est.tolist()),
                            picks=picks, passed=sum(p.passed for p in picks), steps=cell.sim.step_count,
                            sim_time=cell.sim.time, worlds=cell.sim.worlds, options=options)
    finally:
        cell.close()


def trial_lines(result: TrialsResult) -> list[str]:
    """Per-trial lines and the pass count."""
    lines = []
    for i, (start, est, pick) in enumerate(zip(result.starts, result.estimates, result.picks)):
        off_mm = math.hypot(est[0] - start[0], est[1] - start[1]) * 1000
        off_deg = math.degrees(est[2] - start[2])
        verdict = "PASS" if pick.passed else "FAIL"
        line = (f"trial {i:>{len(str(len(result.picks) - 1))}}: cube at ({start[0]:.4f}, {start[1]:.4f}) yaw "
                f"{math.degrees(start[2]):5.1f} deg")
        if result.noise_mm or result.noise_deg:
            line += f", estimate off {off_mm:.1f} mm {off_deg:+.1f} deg"
        line += f": xy error {pick.xy_error_mm:.1f} mm, z {pick.final_position[2]:.4f} m: {verdict}"
        if pick.slipped:
            line += " (slipped in the grasp during the lift)"
        if pick.failure is not None:
            line += f" ({pick.failure})"
        lines.append(line)
    noise = f", noise {result.noise_mm:g} mm {result.noise_deg:g} deg" if result.noise_mm or result.noise_deg else ""
    lines.append(f"trials: {result.passed}/{len(result.picks)} passed (seed {result.seed}{noise}); "
                 f"{len(result.picks)} environments of one simulation in {result.worlds} "
                 f"world{'s' if result.worlds != 1 else ''}, "
                 f"simulated {result.sim_time:.1f} s in {result.steps} steps each")
    return lines


# ---------------------------------------------------------------------------------------------------------
# Friction sweep
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepResult:
    """Where the cube starts to slip out of the grasp during the lift.

    Attributes:
        samples: ``(friction, slipped, sink_mm)`` for every run, in the order run; ``sink_mm`` is how far the
            cube sank relative to the tcp during the lift.
        slip_below: The measured threshold: the cube slips at frictions below this, holds above it.
        contact_friction: The coefficient of the finger-cube contact at the threshold. PyBullet combines
            two surfaces' coefficients by multiplying them, and the sweep sets both to the same value.
        coulomb_estimate: ``m g / (2 F)``: the contact coefficient below which two fingers squeezing with
            ``F`` each cannot hold the cube's weight.
        coulomb_lift_estimate: ``m (g + a) / (2 F)`` with ``a`` the lift's peak acceleration (``6 h / T^2``
            for the smooth 3s^2 - 2s^3 profile over height ``h`` in ``T`` seconds).
        grip_force: ``F``, N per finger.
    """

    samples: tuple[tuple[float, bool, float], ...]
    slip_below: float
    contact_friction: float
    coulomb_estimate: float
    coulomb_lift_estimate: float
    grip_force: float

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every number."""
        return asdict(self)


def lift_slips(friction: float, options: AppOptions = AppOptions()) -> tuple[bool, float]:
    """Run the seed's approach, close and lift at one friction coefficient (cube and fingers); report slip.

    Returns:
        ``(slipped, sink_mm)``: how far the cube sank relative to the tcp during the lift, and whether that
        is more than :data:`SLIP_THRESHOLD`. A cube that was not held at all sinks the whole lift.
    """
    opts = replace(options, friction=friction)
    above = np.array([[PICK[0], PICK[1], HOVER_Z]])
    cell = start_cell([_one_cube(PICK, CUBE_YAW)], above, np.array([CUBE_YAW]), opts)
    try:
        plan = seed_plan(speed=opts.speed)
        yaw = np.array([CUBE_YAW])
        cell.move("approach", np.array([[PICK[0], PICK[1], GRASP_Z]]), yaw, np.array([plan.descend_speed]))
        cell.grip(0.0, GRIP_FORCE)
        before = cell.tcp()[0, 2] - cell.cube_pose(0)[0, 2]
        cell.move("lift", above, yaw, np.array([plan.lift_speed]))
        sink = (cell.tcp()[0, 2] - cell.cube_pose(0)[0, 2]) - before
        return bool(sink > SLIP_THRESHOLD), float(sink * 1000)
    finally:
        cell.close()


def friction_sweep(options: AppOptions = AppOptions(), grid: Sequence[float] = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0),
                   resolution: float = 0.001, on_sample: Callable[[float, bool, float], None] | None = None
                   ) -> SweepResult:
    """Find the friction coefficient (cube and fingers alike) below which the cube slips during the lift.

    Runs :func:`lift_slips` over ``grid``, then bisects between the highest slipping and the lowest
    holding value until the bracket is narrower than ``resolution``.

    Args:
        options: Cell options (``friction`` is overridden by the sweep).
        grid: Frictions to try first, ascending; the first should slip and the last hold.
        resolution: Width of the final bracket.
        on_sample: Called with ``(friction, slipped, sink_mm)`` after every run.

    Returns:
        The samples, the measured threshold and the Coulomb estimate.

    Raises:
        SimuloValueError: The grid is not ascending, or no value slips or none holds.
    """
    values = [float(g) for g in grid]
    if not values or any(b <= a for a, b in zip(values, values[1:])) or values[0] < 0:
        raise SimuloValueError(f"grid must be ascending frictions >= 0, got {list(grid)!r}")
    samples: list[tuple[float, bool, float]] = []

    def sample(mu: float) -> bool:
        slipped, sink = lift_slips(mu, options)
        samples.append((mu, slipped, sink))
        if on_sample is not None:
            on_sample(mu, slipped, sink)
        return slipped

    outcomes = [sample(mu) for mu in values]
    holds = [mu for mu, slipped in zip(values, outcomes) if not slipped]
    if not holds or all(not s for s in outcomes) or holds[0] == values[0]:
        raise SimuloValueError(f"the grid {values} must start with a friction that slips and end with one that "
                               f"holds; slipped: {outcomes}")
    hi = holds[0]
    lo = max(mu for mu, slipped in zip(values, outcomes) if slipped and mu < hi)
    while hi - lo > resolution:
        mid = round((lo + hi) / 2, 6)
        if sample(mid):
            lo = mid
        else:
            hi = mid
    threshold = round((lo + hi) / 2, 4)
    plan = seed_plan(speed=options.speed)
    lift_time = math.ceil((HOVER_Z - GRASP_Z) / plan.lift_speed / (MOVE_QUANTUM / options.speed) - 1e-9) \
        * MOVE_QUANTUM / options.speed
    peak_accel = 6 * (HOVER_Z - GRASP_Z) / lift_time**2
    return SweepResult(samples=tuple(samples), slip_below=threshold, contact_friction=threshold * threshold,
                       coulomb_estimate=CUBE_MASS * GRAVITY / (2 * GRIP_FORCE),
                       coulomb_lift_estimate=CUBE_MASS * (GRAVITY + peak_accel) / (2 * GRIP_FORCE),
                       grip_force=GRIP_FORCE)


def sweep_lines(result: SweepResult) -> list[str]:
    """Lines describing a friction sweep."""
    lines = [f"friction {mu:.4f}: {'slips' if slipped else 'holds'} (cube sank {sink:.1f} mm during the lift)"
             for mu, slipped, sink in sorted(result.samples)]
    lines.append(f"slip threshold: friction {result.slip_below:.3f} on the cube and the fingers "
                 f"(contact coefficient {result.contact_friction:.4f}: PyBullet multiplies the two surfaces' values)")
    lines.append(f"Coulomb estimate: holding needs 2 mu F >= m g; F = {result.grip_force:.0f} N per finger and "
                 f"m = {CUBE_MASS} kg give mu* = {result.coulomb_estimate:.4f} for the contact "
                 f"({result.coulomb_lift_estimate:.4f} with the lift's peak acceleration), "
                 f"i.e. a friction of {math.sqrt(result.coulomb_estimate):.3f} on each surface")
    return lines
