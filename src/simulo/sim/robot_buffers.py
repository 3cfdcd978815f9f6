"""The state half of a robot's data: six buffers read from the engine when they are read.

Isaac Lab's timestamped buffers: a physics step only marks the buffers stale, and the first read of ``q``,
``qd``, ``effort`` (joints) or ``pose``, ``lin_vel``, ``ang_vel`` (base) after it refreshes that group in
place from the engine. A step nobody reads costs no engine read. The buffers are the runtime's own;
``robot.state`` hands out objects a stray write cannot corrupt (:attr:`StateBuffers.published`,
:mod:`simulo.sim.published`), and those a caller holds are refreshed after every step and teleport.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simulo.engine.base import ArticulationBatch
from simulo.sim.published import PublishedBuffers
from simulo.sim.tensors import Tensors

_JOINTS = frozenset(("q", "qd", "effort"))
_BASE = frozenset(("pose", "lin_vel", "ang_vel"))
_MEMBERS = ("pose", "lin_vel", "ang_vel", "q", "qd", "effort")


class StateBuffers:
    """Root pose and velocities, joint positions, velocities and efforts of one robot, batched over environments.

    Args:
        batch: The engine's articulation batch.
        tensors: The simulation's tensor converter.
        default_pose: Root poses (num_envs, 7) the pose buffer starts with.
        num_joints: Number of joints.

    Attributes:
        joints_stale / base_stale: Whether the engine stepped since the joint / base buffers were last read.
        published: What ``robot.state`` hands out for the six buffers.
        effort_overrides: ``(index, values)``: after every joint read ``effort[index]`` takes ``values[index]``
            (``values`` None: zero), for the entries whose effort is not the engine's (explicit torques, passive
            joints); ``index`` is a boolean mask or a block of columns. The command half sets them when the joints'
            modes change, none for an engine whose reads give those entries too (``batch.reports_all_efforts``).
            (No view of a buffer is kept: it would read as a caller holding the buffer.)
        step_torques: While a flush has put the next step's torques in place of those the last step ran with
            and the joints have not been read since that step, the torques that step ran with, which the
            overrides then read instead; None otherwise (every step clears it). The command half keeps it.
    """

    def __init__(self, batch: ArticulationBatch, tensors: Tensors, default_pose: np.ndarray, num_joints: int) -> None:
        n = default_pose.shape[0]
        self.batch = batch
        self.fixed_base = batch.fixed_base
        dtype = tensors.state_dtype  # the live buffers the state members view
        self._pose = default_pose.astype(dtype)
        self._lin_vel = np.zeros((n, 3), dtype)
        self._ang_vel = np.zeros((n, 3), dtype)
        self._q = np.zeros((n, num_joints), dtype)
        self._qd = np.zeros((n, num_joints), dtype)
        self._effort = np.zeros((n, num_joints), dtype)
        self.joints_stale = False
        self.base_stale = False
        self.published = PublishedBuffers(tensors, {
            "pose": self._pose, "lin_vel": self._lin_vel, "ang_vel": self._ang_vel, "q": self._q, "qd": self._qd,
            "effort": self._effort})
        self.effort_overrides: list[tuple[Any, np.ndarray | None]] = []
        self.step_torques: np.ndarray | None = None
        self._kept_torques = np.zeros((n, num_joints))  # the memory step_torques points to while kept

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
        self.step_torques = None
        if self.published.given:  # only what was handed out can be held
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

    def refresh_joints(self) -> None:
        """Read joint state from the engine, then apply :attr:`effort_overrides` to ``effort`` (their torques from
        :attr:`step_torques` while it is kept)."""
        self.joints_stale = False
        self.batch.read_joints(self._q, self._qd, self._effort)
        effort, kept = self._effort, self.step_torques
        for index, values in self.effort_overrides:
            effort[index] = 0.0 if values is None else (values if kept is None else kept)[index]

    def keep_step_efforts(self, torque: np.ndarray) -> None:
        """Keep the efforts of the last step, which no read has taken yet, before a flush replaces ``torque`` (the
        array the overrides read, which that step ran with): a copy of it becomes :attr:`step_torques`. Without
        overrides the engine's own read reports those efforts, from the commands the flush overwrites: the joints
        are read now instead."""
        if self.effort_overrides:
            np.copyto(self._kept_torques, torque)
            self.step_torques = self._kept_torques
        else:
            self.refresh_joints()

    def refresh_base(self, env_ids: Sequence[int] | None = None) -> None:
        """Read the root pose and velocities from the engine: of ``env_ids`` (all when stale or ``None``)."""
        if self.base_stale or env_ids is None:
            self.base_stale = False
            self.batch.read_base(self._pose, self._lin_vel, self._ang_vel)
        else:
            self.batch.read_base(self._pose, self._lin_vel, self._ang_vel, env_ids)
