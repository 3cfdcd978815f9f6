"""The data of one attached robot: state buffers, targets and the engine command tables.

:class:`RobotData` is what a :class:`~simulo.sim.robot.Robot` holds once a simulation has attached it (Isaac
Lab's ``ArticulationData``). Its attributes are the read API of sensors and actuators; its few methods are
the writes they may make. Apps use the robot's own members instead.

Every (num_envs, num_joints) array uses the robot's joint order (:attr:`RobotData.joint_names`). Targets
are NaN where unset. The state buffers are read when they are read (:mod:`simulo.sim.robot_buffers`);
body poses and velocities are read from the engine on every call (:mod:`simulo.sim.robot_bodies`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from simulo.engine.base import ArticulationBatch
from simulo.errors import NameNotFoundError
from simulo.sim.command_changes import (
    EFFORTS,
    MOTOR_FORCES,
    MOTOR_POSITIONS,
    SAME_MODES,
    TARGETS,
    TORQUE_EFFORTS,
    Changes,
    SettledModes,
    run_index,
)
from simulo.sim.drives import DriveInputs, JointDrive
from simulo.sim.names import match_names
from simulo.sim.properties import ForceBuffer
from simulo.sim.robot_buffers import StateBuffers
from simulo.sim.tensors import Tensors, fits, index_array

#: Largest number of distinct ``joint_ids`` lists a robot remembers as validated.
_COLS_CACHE_SIZE = 64
#: the element types of a cacheable ``joint_ids`` list (``bool`` and floats equal to ints are not indices)
_INT_ONLY = frozenset((int,))

#: Which target array :meth:`RobotData.write_targets` writes.
POSITION_TARGETS, VELOCITY_TARGETS, EFFORT_TARGETS = 0, 1, 2


class _Block:
    """A validated ``joint_ids`` list's target block: its columns, their index (a slice for an ascending run),
    the shape of a value for every environment and, for a slice, views of ``pos_t``, ``vel_t``, ``eff_t`` there
    (writing into a kept view skips numpy's indexing)."""

    __slots__ = ("cols", "index", "shape", "views")

    def __init__(self, cols: np.ndarray, index: Any, num_envs: int, targets: tuple[np.ndarray, ...]) -> None:
        self.cols = cols
        self.index = index
        self.shape = (num_envs, cols.size)
        self.views = tuple(t[:, index] for t in targets) if isinstance(index, slice) else None


class RobotData(StateBuffers):
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
        drives: The drive laws; a flush that may change a mode sends the commands their ``compute`` returns.
        mode: Each joint's :class:`~simulo.engine.base.ControlMode` in the last flush (int8).
        torque: Explicit torques of the last flush.
        changes: What was written since the last flush (:class:`~simulo.sim.command_changes.Changes`).
        settled: What the modes of the last full flush imply (:class:`~simulo.sim.command_changes.SettledModes`).
        motor_force: Force limit of the engine motor (num_envs, num_joints); ``base_motor_force`` its default.
        motor_pos_gain / motor_vel_gain: Solver gains of the engine motor (num_envs, num_joints).
    """

    def __init__(self, batch: ArticulationBatch, tensors: Tensors, default_pose: np.ndarray, default_q: np.ndarray,
                 default_qd: np.ndarray, effort_limit: np.ndarray, drives: Sequence[JointDrive]) -> None:
        n, j = default_q.shape
        super().__init__(batch, tensors, default_pose, j)
        self.tensors = tensors
        self.joint_names = [info.name for info in batch.joints]
        self.body_names = list(batch.body_names)
        self._body_index: dict[str, int] = {}
        for k, name in enumerate(self.body_names):
            self._body_index.setdefault(name, k)
        #: per body index, the call that reads its world pose (see :func:`simulo.sim.robot_bodies.body_pose`)
        self.pose_readers: dict[int, Callable[[], np.ndarray]] = {}
        self.joint_kinds = [info.kind for info in batch.joints]
        self.default_pose = default_pose.copy()
        self.default_q = default_q
        self._shape = (n, j)  # (num_envs, num_joints), fixed for the data's life
        self.default_qd = default_qd
        self.effort_limit = effort_limit
        self.drives = list(drives)
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
        #: what was written since the last flush
        self.changes = Changes()
        #: what the last full flush's modes imply
        self.settled = self._settle()
        #: where position and velocity targets are set, and the velocity targets with 0 where unset, as the last
        #: full flush after a :data:`TARGETS` write found them
        self._masks = (np.zeros((n, j), dtype=bool), np.zeros((n, j), dtype=bool), np.zeros((n, j)))
        self.attached = True
        #: The engine's time step in seconds (the robot sets it when attached; implicit drives integrate over it).
        self.physics_dt = 1.0 / 240.0
        #: external forces and torques kept on the bodies (see simulo.sim.properties)
        self.external = ForceBuffer(n, len(self.body_names))
        all_cols = np.arange(j)
        all_cols.setflags(write=False)
        #: validated ``joint_ids`` lists (as tuples of ints; None: every joint) -> their target block (the column
        #: arrays are read-only and kept alive here, so their ids are not reused while the data lives)
        self._blocks: dict[tuple[int, ...] | None, _Block] = {
            None: _Block(all_cols, slice(None), n, (self.pos_t, self.vel_t, self.eff_t))}

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

    def body_index(self, body_name: str) -> int:
        """Index of the body named exactly ``body_name``.

        Raises:
            NameNotFoundError: No body has that name (the message lists the bodies).
        """
        index = self._body_index.get(body_name) if isinstance(body_name, str) else None
        if index is None:
            raise NameNotFoundError(f"no body named {body_name!r}; available bodies: {self.body_names}")
        return index

    # -- joint columns and targets -----------------------------------------------------------------
    def _cached_block(self, joint_ids: Any) -> _Block | None:
        """The block of a ``joint_ids`` list validated before (None: every joint), else None."""
        if joint_ids is None:
            return self._blocks[None]
        if type(joint_ids) is list and _INT_ONLY.issuperset(map(type, joint_ids)):
            return self._blocks.get(tuple(joint_ids))
        return None

    def joint_cols(self, joint_ids: Any) -> np.ndarray:
        """Validated joint columns of ``joint_ids`` (``None``: all); lists of ints are cached read-only.

        Raises:
            SimuloValueError: An index is out of range, repeated or not an integer.
        """
        return self.joint_block(joint_ids)[0]

    def joint_block(self, joint_ids: Any) -> tuple[np.ndarray, Any]:
        """Validated joint columns of ``joint_ids`` (see :meth:`joint_cols`) and an index of them: a slice when they
        are an ascending run (basic indexing is faster than fancy indexing and selects the same elements)."""
        block = self._cached_block(joint_ids)
        if block is not None:
            return block.cols, block.index
        cols = index_array(joint_ids, self.num_joints, "joint_ids", "joint")
        index = run_index(cols)
        if (type(joint_ids) is list and _INT_ONLY.issuperset(map(type, joint_ids))
                and len(self._blocks) <= _COLS_CACHE_SIZE):
            cols.setflags(write=False)
            self._blocks[tuple(joint_ids)] = _Block(cols, index, self.num_envs, (self.pos_t, self.vel_t, self.eff_t))
        return cols, index

    def write_targets(self, which: int, values: Any, joint_ids: Any) -> np.ndarray | None:
        """Write ``values`` for every environment into the targets ``which`` (:data:`POSITION_TARGETS`: ``pos_t``,
        ``VELOCITY_TARGETS``, ``EFFORT_TARGETS``) at the columns of ``joint_ids``, when nothing needs checking
        beyond a glance: a ``joint_ids`` list validated before and a float array of the block's shape that
        :func:`~simulo.sim.tensors.fits`.

        Returns:
            The columns written, or None when nothing was written (the caller takes the checked path).
        """
        if joint_ids is None:  # _cached_block, inlined on this per-step path
            block: _Block | None = self._blocks[None]
        elif type(joint_ids) is list and _INT_ONLY.issuperset(map(type, joint_ids)):
            block = self._blocks.get(tuple(joint_ids))
        else:
            return None
        if block is None or not fits(values, block.shape):
            return None
        if block.views is not None:
            block.views[which][...] = values
        else:
            (self.pos_t, self.vel_t, self.eff_t)[which][:, block.index] = values
        return block.cols

    def targets_written(self, which: int, cols: np.ndarray) -> None:
        """Record that finite targets ``which`` (see :meth:`write_targets`) of columns ``cols`` (from
        :meth:`joint_cols`) were written."""
        changes = self.changes
        if changes.bits & ~SAME_MODES:  # the drives run again anyway
            return
        if which == POSITION_TARGETS:
            changes.bits |= self.settled.position_write(cols)
        elif which == EFFORT_TARGETS:
            changes.bits |= self.settled.effort_write(cols)
        else:
            changes.bits |= TARGETS

    # -- writes actuators may make ------------------------------------------------------------------
    def set_position_targets(self, values: np.ndarray, cols: np.ndarray, env_ids: np.ndarray) -> None:
        """Set validated position targets (len(env_ids), len(cols)); sent before the next physics step."""
        self.pos_t[np.ix_(env_ids, cols)] = values
        self.changes.note(TARGETS)

    def set_motor_force(self, forces: np.ndarray, cols: np.ndarray, env_ids: np.ndarray) -> None:
        """Override the engine motor's force limit (len(env_ids), len(cols)) until reset or release."""
        self.motor_force[np.ix_(env_ids, cols)] = forces
        self.changes.note(MOTOR_FORCES)

    def release_joints(self, cols: np.ndarray) -> None:
        """Clear the position targets of some joint columns in every environment and restore their motor
        force limits (the joints go passive unless another target drives them)."""
        self.pos_t[:, cols] = np.nan
        self.motor_force[:, cols] = self.base_motor_force[:, cols]
        self.changes.note(TARGETS | MOTOR_FORCES)

    # -- runtime ------------------------------------------------------------------------------------
    def clear_targets(self, env_ids: np.ndarray) -> None:
        """Forget every target and motor-force override of ``env_ids``."""
        self.pos_t[env_ids] = np.nan
        self.vel_t[env_ids] = np.nan
        self.eff_t[env_ids] = np.nan
        self.motor_force[env_ids] = self.base_motor_force[env_ids]
        self.changes.note(TARGETS | EFFORTS | MOTOR_FORCES)

    def _settle(self) -> SettledModes:
        """What the current modes imply; the effort overrides follow them (an engine's own reads need none)."""
        settled = SettledModes(self.mode, self.torque, self.effort_limit, self.any_explicit,
                               self.batch.reports_all_efforts)
        self.effort_overrides = settled.effort_overrides
        return settled

    def flush(self, force: bool = False) -> bool:
        """Turn the targets into this step's engine commands, running every drive's ``compute`` when a mode may
        change.

        Args:
            force: Run the drives and send the commands even when nothing changed.

        Returns:
            Whether commands were sent (False when nothing changed since the last flush and no joint is
            torque-driven: the engine's motors still hold exactly these commands).
        """
        changes, settled = self.changes, self.settled
        if not (force or changes.bits & ~SAME_MODES):
            if not settled.has_torque:  # so no TORQUE_EFFORTS either: at most new positions of running motors
                bits, changes.bits = changes.bits, 0
                if not bits & MOTOR_POSITIONS:
                    return False
                self.batch.apply_positions(self.pos_t)
                return True
            if not self.any_explicit:
                self._flush_same_modes()
                return True
        if self.joints_stale and settled.has_torque:  # the last step's torques are its efforts: read them now,
            self.refresh_joints()                      # before the drives overwrite them
        if changes.bits & TARGETS:
            vel_set = self.vel_t == self.vel_t  # False where NaN (no target)
            self._masks = (self.pos_t == self.pos_t, vel_set, np.where(vel_set, self.vel_t, 0.0))
        pos_set, vel_set, velocity = self._masks
        eff_set = self.eff_t == self.eff_t
        inputs = DriveInputs(pos_set, vel_set, eff_set, velocity, self.any_explicit or bool(eff_set.any()))
        for drive in self.drives:
            commands = drive.compute(self, inputs)
            self.mode[:, commands.index] = commands.mode
            self.torque[:, commands.index] = commands.torque
        # position targets are sent only where a position motor runs, so unset ones (NaN) never reach the engine
        self.batch.apply(self.mode, self.pos_t, velocity, self.motor_force, self.motor_pos_gain,
                         self.motor_vel_gain, self.torque)
        changes.bits = 0
        if self.mode.tobytes() != settled.key:
            self.settled = self._settle()
        return True

    def _flush_same_modes(self) -> None:
        """The flush when no mode can change and no drive is explicit: only values of position targets of running
        motors and of effort targets of joints torque-driven everywhere changed, or nothing while joints are
        torque-driven. The drives would choose the same modes and clip the new efforts at their limits, which
        is all this does; then the commands go out again (a torque lasts one step)."""
        changes = self.changes
        if changes.bits & TORQUE_EFFORTS:
            if self.joints_stale and self.step_torques is None:  # the torques the unread last step ran with
                self.keep_step_efforts(self.torque)
            index, saturate = self.settled.torque_block
            self.torque[:, index] = saturate(self.eff_t[:, index])
        if changes.bits & MOTOR_POSITIONS:
            self.batch.apply(self.mode, self.pos_t, self._masks[2], self.motor_force, self.motor_pos_gain,
                             self.motor_vel_gain, self.torque)
        else:  # nothing but the torques changed since the last apply
            self.batch.apply_efforts(self.torque)
        changes.bits = 0
