"""The data of one attached robot: state buffers, targets and the engine command tables.

:class:`RobotData` is what a :class:`~simulo.sim.robot.Robot` holds once a simulation has attached it (Isaac
Lab's ``ArticulationData``). Its attributes are the read API of sensors and actuators; its few methods are
the writes they may make. Apps use the robot's own members instead.

Every (num_envs, num_joints) array uses the robot's joint order (:attr:`RobotData.joint_names`). Targets
are NaN where unset.

State buffers are read when they are read (Isaac Lab's timestamped buffers): a physics step only marks
them stale, and the first read of ``q``, ``qd``, ``effort`` (joints) or ``pose``, ``lin_vel``, ``ang_vel``
(base) after it refreshes that group in place from the engine. A step nobody reads costs no engine read.
The buffers are the runtime's own; ``robot.state`` hands out objects a stray write cannot corrupt
(:attr:`published`, :mod:`simulo.sim.published`), and those a caller holds are refreshed after every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from simulo.engine.base import ArticulationBatch, ControlMode
from simulo.errors import NameNotFoundError
from simulo.math.batched import quat_conjugate, quat_mul, quat_rotate_inverse
from simulo.sim.names import match_names
from simulo.sim.properties import ForceBuffer
from simulo.sim.published import PublishedBuffers
from simulo.sim.tensors import Tensors, index_array

if TYPE_CHECKING:
    from simulo.sim.actuators.drive import JointDrive

#: Largest number of distinct ``joint_ids`` lists a robot remembers as validated.
_COLS_CACHE_SIZE = 64
#: the element types of a cacheable ``joint_ids`` list (``bool`` and floats equal to ints are not indices)
_INT_ONLY = frozenset((int,))

_JOINTS = frozenset(("q", "qd", "effort"))
_BASE = frozenset(("pose", "lin_vel", "ang_vel"))
_MEMBERS = ("pose", "lin_vel", "ang_vel", "q", "qd", "effort")

_PASSIVE = int(ControlMode.PASSIVE)
_POSITION = int(ControlMode.POSITION_MOTOR)
_TORQUE = int(ControlMode.TORQUE)


class RobotData:
    """State buffers, targets and drive tables of one attached robot, batched over environments.

    Args:
        batch: The engine's articulation batch.
        tensors: The simulation's tensor converter.
        default_pose: Root poses ``reset`` writes (num_envs, 7).
        default_q: Joint positions ``reset`` writes (num_envs, num_joints).
        default_qd: Joint velocities ``reset`` writes (num_envs, num_joints).
        effort_limit: Effort limit per joint (num_joints,); ``inf`` for none.
        drives: The drive laws; together they cover every joint once.

    Attributes:
        batch: The engine batch (``Robot.internals``).
        tensors: Converter for outputs.
        joint_names: Joint names in column order.
        body_names: Body names in body-index order, the root first.
        joint_kinds: ``"revolute"`` or ``"prismatic"`` per joint.
        fixed_base: Whether the root is bolted to the world.
        pose: Root pose (num_envs, 7). lin_vel / ang_vel: root velocities (num_envs, 3).
        q: Joint positions. qd: joint velocities. effort: efforts applied in the last step.
        pos_t: Position targets. vel_t: velocity targets. eff_t: effort targets (NaN: none).
        mode: Each joint's :class:`~simulo.engine.base.ControlMode` in the last flush (int8).
        torque: Explicit torques of the last flush.
        motor_force: Force limit of the engine motor (num_envs, num_joints); ``base_motor_force`` its default.
        motor_pos_gain / motor_vel_gain: Solver gains of the engine motor (num_envs, num_joints).
    """

    def __init__(self, batch: ArticulationBatch, tensors: Tensors, default_pose: np.ndarray, default_q: np.ndarray,
                 default_qd: np.ndarray, effort_limit: np.ndarray, drives: Sequence[JointDrive]) -> None:
        n, j = default_q.shape
        self.batch = batch
        self.tensors = tensors
        self.joint_names = [info.name for info in batch.joints]
        self.body_names = list(batch.body_names)
        self._body_index: dict[str, int] = {}
        for k, name in enumerate(self.body_names):
            self._body_index.setdefault(name, k)
        self.joint_kinds = [info.kind for info in batch.joints]
        self.fixed_base = batch.fixed_base
        self.default_pose = default_pose.copy()
        self.default_q = default_q
        self._shape = (n, j)  # (num_envs, num_joints), fixed for the data's life
        self.default_qd = default_qd
        self.effort_limit = effort_limit
        self.drives = list(drives)
        dtype = tensors.state_dtype  # the live buffers the state members view
        self._pose = default_pose.astype(dtype)
        self._lin_vel = np.zeros((n, 3), dtype)
        self._ang_vel = np.zeros((n, 3), dtype)
        self._q = np.zeros((n, j), dtype)
        self._qd = np.zeros((n, j), dtype)
        self._effort = np.zeros((n, j), dtype)
        #: whether the engine stepped since the joint / base buffers were last read (see the module docstring)
        self.joints_stale = False
        self.base_stale = False
        #: what ``robot.state`` hands out for the six buffers (see :mod:`simulo.sim.published`)
        self.published = PublishedBuffers(tensors, {
            "pose": self._pose, "lin_vel": self._lin_vel, "ang_vel": self._ang_vel, "q": self._q, "qd": self._qd,
            "effort": self._effort})
        self.pos_t = np.full((n, j), np.nan)
        self.vel_t = np.full((n, j), np.nan)
        self.eff_t = np.full((n, j), np.nan)
        self.torque = np.zeros((n, j))
        self.mode = np.zeros((n, j), dtype=np.int8)
        self.motor_pos_gain = np.zeros((n, j))
        self.motor_vel_gain = np.zeros((n, j))
        self.motor_force = np.zeros((n, j))
        for drive in self.drives:
            drive.configure(self)
        self.base_motor_force = self.motor_force.copy()
        self.any_explicit = any(drive.explicit for drive in self.drives)
        #: Engines keep motor commands between steps but apply a torque for one step only: a flush can be skipped
        #: while no target changed and no joint is torque-driven.
        self.commands_changed = True
        self.torque_active = False
        #: Only values of position targets on joints whose position motor runs in every environment changed since
        #: the last flush: the modes and every other command stay, so the next flush only resends the motors.
        self.positions_changed = False
        #: joint columns whose position motor runs in every environment (as of the last full flush)
        self._motor_everywhere = np.zeros(j, dtype=bool)
        #: id of a cached column array -> whether all its columns are in ``_motor_everywhere``
        self._motor_cols: dict[int, bool] = {}
        #: what the last full flush computed: velocity targets (0 where unset), and where efforts are the torques
        #: sent (torque mode) and where zero (passive), None for nowhere (see ``_effort_masks``)
        self._velocity = np.zeros((n, j))
        self._masks: tuple[np.ndarray | None, np.ndarray | None] | None = None
        self._mode_key: bytes | None = None  # ``mode`` when the masks and ``_motor_everywhere`` were computed
        self.attached = True
        #: The engine's time step in seconds (the robot sets it when attached; implicit drives integrate over it).
        self.physics_dt = 1.0 / 240.0
        #: external forces and torques kept on the bodies (see simulo.sim.properties)
        self.external = ForceBuffer(n, len(self.body_names))
        #: validated ``joint_ids`` lists (as tuples of ints) -> their column arrays (read-only)
        self.cols_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._all_cols = np.arange(j)
        self._all_cols.setflags(write=False)
        #: ids of the cached column arrays (kept alive by the caches) -> their index (a slice when contiguous)
        self._col_index: dict[int, Any] = {id(self._all_cols): slice(None)}

    # -- state buffers, refreshed on first read after a step ------------------------------------------
    @property
    def pose(self) -> np.ndarray:
        """Root pose (num_envs, 7), current."""
        if self.base_stale:
            self.refresh_base()
        return self._pose

    @property
    def lin_vel(self) -> np.ndarray:
        """Root linear velocity (num_envs, 3), current."""
        if self.base_stale:
            self.refresh_base()
        return self._lin_vel

    @property
    def ang_vel(self) -> np.ndarray:
        """Root angular velocity (num_envs, 3), current."""
        if self.base_stale:
            self.refresh_base()
        return self._ang_vel

    @property
    def q(self) -> np.ndarray:
        """Joint positions (num_envs, num_joints), current."""
        if self.joints_stale:
            self.refresh_joints()
        return self._q

    @property
    def qd(self) -> np.ndarray:
        """Joint velocities (num_envs, num_joints), current."""
        if self.joints_stale:
            self.refresh_joints()
        return self._qd

    @property
    def effort(self) -> np.ndarray:
        """Efforts applied in the last step (num_envs, num_joints), current."""
        if self.joints_stale:
            self.refresh_joints()
        return self._effort

    def mark_stepped(self) -> None:
        """Note that the engine stepped: the next read refreshes the buffers (a fixed base never moves)."""
        self.joints_stale = True
        self.base_stale = not self.fixed_base
        self.publish_held()

    def member(self, name: str) -> Any:
        """The current value of state buffer ``name`` as ``robot.state`` hands it out (see ``published``)."""
        if self.joints_stale and name in _JOINTS:
            self.refresh_joints()
        elif self.base_stale and name in _BASE:
            self.refresh_base()
        return self.published.get(name)

    def publish_held(self) -> None:
        """Bring the state objects callers still hold up to date now (after a step or a teleport)."""
        held = self.published.held(_MEMBERS)
        if not held:
            return
        if self.joints_stale and not _BASE.issuperset(held):
            self.refresh_joints()
        if self.base_stale and not _JOINTS.issuperset(held):
            self.refresh_base()
        self.published.sync(held)

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        return self._shape[0]

    @property
    def num_joints(self) -> int:
        """Number of joints."""
        return self._shape[1]

    def find_joints(self, name_pattern: str) -> list[int]:
        """Joint columns matching a name or full regex, in joint order (see :func:`match_names`)."""
        return match_names(name_pattern, self.joint_names, "joint")

    def find_bodies(self, name_pattern: str) -> list[int]:
        """Body indices matching a name or full regex, in body order (see :func:`match_names`)."""
        return match_names(name_pattern, self.body_names, "body")

    def joint_cols(self, joint_ids: Any) -> np.ndarray:
        """Validated joint columns of ``joint_ids`` (``None``: all); lists of ints are cached read-only.

        Raises:
            SimuloValueError: An index is out of range, repeated or not an integer.
        """
        if joint_ids is None:
            return self._all_cols
        if type(joint_ids) is list and _INT_ONLY.issuperset(map(type, joint_ids)):  # the common case, cached
            key = tuple(joint_ids)
            cols = self.cols_cache.get(key)
            if cols is None:
                cols = index_array(self.tensors, joint_ids, self.num_joints, "joint_ids", "joint")
                cols.setflags(write=False)
                if len(self.cols_cache) < _COLS_CACHE_SIZE:
                    self.cols_cache[key] = cols
                    run = cols.size > 0 and int(cols[-1]) - int(cols[0]) + 1 == cols.size \
                        and bool((np.diff(cols) == 1).all())
                    self._col_index[id(cols)] = slice(int(cols[0]), int(cols[-1]) + 1) if run else cols
            return cols
        return index_array(self.tensors, joint_ids, self.num_joints, "joint_ids", "joint")

    def col_index(self, cols: np.ndarray) -> Any:
        """An index of the columns ``cols`` (from :meth:`joint_cols`): a slice when they are a cached ascending
        run (basic indexing is faster than fancy indexing and selects the same elements), else ``cols``."""
        return self._col_index.get(id(cols), cols)

    def note_position_targets(self, cols: np.ndarray) -> None:
        """Record that position targets of columns ``cols`` (from :meth:`joint_cols`) were set to finite values."""
        if self.commands_changed:
            return
        everywhere = self._motor_cols.get(id(cols))
        if everywhere is None:
            everywhere = bool(self._motor_everywhere[cols].all())
            if id(cols) in self._col_index:  # a cached array: its id is not reused while the data lives
                self._motor_cols[id(cols)] = everywhere
        if everywhere:
            self.positions_changed = True
        else:
            self.commands_changed = True

    # -- body reads ---------------------------------------------------------------------------------
    def body_index(self, body_name: str) -> int:
        """Index of the body named exactly ``body_name``.

        Raises:
            NameNotFoundError: No body has that name (the message lists the bodies).
        """
        index = self._body_index.get(body_name) if isinstance(body_name, str) else None
        if index is None:
            raise NameNotFoundError(f"no body named {body_name!r}; available bodies: {self.body_names}")
        return index

    def body_pose(self, body: int) -> np.ndarray:
        """World pose (num_envs, 7) of a body's frame, read now (a new array)."""
        if body == 0:
            return self.pose.copy()
        return self.batch.read_bodies([body], range(self.num_envs), velocity=False)[0][:, 0]

    def body_velocity(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        """World pose (num_envs, 7) and velocity (num_envs, 6) of a body's frame origin, read now."""
        if body == 0:
            return self.pose.copy(), np.concatenate([self.lin_vel, self.ang_vel], axis=1)
        poses, vels = self.batch.read_bodies([body], range(self.num_envs), velocity=True)
        assert vels is not None
        return poses[:, 0], vels[:, 0]

    def body_pose_in_base(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        """Position (num_envs, 3) and quaternion (num_envs, 4) of a body's frame relative to the base frame."""
        world = self.body_pose(body)
        base_q = self.pose[:, 3:]
        pos = quat_rotate_inverse(base_q, world[:, :3] - self.pose[:, :3])
        return pos, quat_mul(quat_conjugate(base_q), world[:, 3:])

    def body_velocity_in_base(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        """Linear and angular velocity (num_envs, 3) each of a body relative to the base, in base axes."""
        pose, vel = self.body_velocity(body)
        lin_rel = vel[:, :3] - self.lin_vel - np.cross(self.ang_vel, pose[:, :3] - self.pose[:, :3])
        ang_rel = vel[:, 3:] - self.ang_vel
        base_q = self.pose[:, 3:]
        return quat_rotate_inverse(base_q, lin_rel), quat_rotate_inverse(base_q, ang_rel)

    # -- writes actuators may make ------------------------------------------------------------------
    def set_position_targets(self, values: np.ndarray, cols: np.ndarray, env_ids: np.ndarray) -> None:
        """Set validated position targets (len(env_ids), len(cols)); sent before the next physics step."""
        self.pos_t[np.ix_(env_ids, cols)] = values
        self.commands_changed = True

    def set_motor_force(self, forces: np.ndarray, cols: np.ndarray, env_ids: np.ndarray) -> None:
        """Override the engine motor's force limit (len(env_ids), len(cols)) until reset or release."""
        self.motor_force[np.ix_(env_ids, cols)] = forces
        self.commands_changed = True

    def release_joints(self, cols: np.ndarray) -> None:
        """Clear the position targets of some joint columns in every environment and restore their motor
        force limits (the joints go passive unless another target drives them)."""
        self.pos_t[:, cols] = np.nan
        self.motor_force[:, cols] = self.base_motor_force[:, cols]
        self.commands_changed = True

    # -- runtime ------------------------------------------------------------------------------------
    def refresh_joints(self) -> None:
        """Read joint state from the engine; explicit torques and passive zeros go into ``effort``."""
        self.joints_stale = False
        self.batch.read_joints(self._q, self._qd, self._effort)
        torque, passive = self._masks if self._masks is not None else self._effort_masks()
        if torque is not None:
            np.copyto(self._effort, self.torque, where=torque)
        if passive is not None:
            np.copyto(self._effort, 0.0, where=passive)

    def _effort_masks(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Where ``mode`` is torque and where passive (None: nowhere): where efforts are not the engine's."""
        torque, passive = self.mode == _TORQUE, self.mode == _PASSIVE
        return (torque if torque.any() else None), (passive if passive.any() else None)

    def refresh_base(self, env_ids: Sequence[int] | None = None) -> None:
        """Read the root pose and velocities from the engine: of ``env_ids`` (all when stale or ``None``)."""
        if self.base_stale or env_ids is None:
            self.base_stale = False
            self.batch.read_base(self._pose, self._lin_vel, self._ang_vel)
        else:
            self.batch.read_base(self._pose, self._lin_vel, self._ang_vel, env_ids)

    def clear_targets(self, env_ids: np.ndarray) -> None:
        """Forget every target and motor-force override of ``env_ids``."""
        self.pos_t[env_ids] = np.nan
        self.vel_t[env_ids] = np.nan
        self.eff_t[env_ids] = np.nan
        self.motor_force[env_ids] = self.base_motor_force[env_ids]
        self.commands_changed = True

    def flush(self, force: bool = False) -> bool:
        """Turn the targets into this step's engine commands with every drive's ``compute``.

        Args:
            force: Send the commands even when nothing changed.

        Returns:
            Whether commands were sent (False when nothing changed since the last flush and no joint is
            torque-driven: the engine's motors still hold exactly these commands).
        """
        if not (self.commands_changed or self.torque_active or force):
            if not self.positions_changed:
                return False
            # only position targets of running position motors changed: every drive would choose the same modes
            # and torques (no joint is torque-driven), so the last flush's commands go out with the new targets
            self.batch.apply(self.mode, self.pos_t, self._velocity, self.motor_force, self.motor_pos_gain,
                             self.motor_vel_gain, self.torque)
            self.positions_changed = False
            return True
        masks = self._masks if self._masks is not None else self._effort_masks()
        if self.joints_stale and masks[0] is not None:  # the last step's torques are its efforts: read them now,
            self.refresh_joints()                        # before the drives overwrite them
        pos_set = self.pos_t == self.pos_t  # False where NaN (no target)
        vel_set = self.vel_t == self.vel_t
        eff_set = self.eff_t == self.eff_t
        inputs = DriveInputs(pos_set, vel_set, eff_set, np.where(vel_set, self.vel_t, 0.0),
                             self.any_explicit or bool(eff_set.any()))
        for drive in self.drives:
            drive.compute(self, inputs)
        # position targets are sent only where a position motor runs, so unset ones (NaN) never reach the engine
        self.batch.apply(self.mode, self.pos_t, inputs.velocity, self.motor_force, self.motor_pos_gain,
                         self.motor_vel_gain, self.torque)
        self.commands_changed = self.positions_changed = False
        self._velocity = inputs.velocity
        key = self.mode.tobytes()
        if key != self._mode_key:  # what depends on the modes only
            self._mode_key = key
            self._masks = self._effort_masks()
            self._motor_everywhere = (self.mode == _POSITION).all(axis=0)
            self._motor_cols.clear()
        # without an explicit drive or an effort target no joint can be torque-driven
        self.torque_active = inputs.torques and self._masks is not None and self._masks[0] is not None
        return True


class DriveInputs:
    """What every drive's ``compute`` reads in one flush, besides the robot data.

    Attributes:
        pos_set / vel_set / eff_set: Where a position, velocity or effort target is set (num_envs, num_joints).
        velocity: Velocity targets with 0 where unset.
        torques: Whether any joint may be torque-driven this flush (an explicit drive or an effort target).
    """

    __slots__ = ("eff_set", "pos_set", "torques", "vel_set", "velocity")

    def __init__(self, pos_set: np.ndarray, vel_set: np.ndarray, eff_set: np.ndarray, velocity: np.ndarray,
                 torques: bool) -> None:
        self.pos_set = pos_set
        self.vel_set = vel_set
        self.eff_set = eff_set
        self.velocity = velocity
        self.torques = torques

