"""Joint commands of one PyBullet articulation batch, grouped into as few PyBullet calls as possible.

Per control mode, environments that share a row of modes share one entry of the command plan: the index
of their rows and the mode's columns in a (num_envs, num_joints) array, the PyBullet joint indices, and
their ``(world, body)`` handles. Plans and the rarely changing motor arguments are cached, so a step with
unchanged modes does no per-environment index work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from simulo.engine.base import ControlMode
from simulo.engine.pybullet.world import Handle

_PASSIVE = int(ControlMode.PASSIVE)
_POSITION = int(ControlMode.POSITION_MOTOR)
_VELOCITY = int(ControlMode.VELOCITY_MOTOR)
_TORQUE = int(ControlMode.TORQUE)

#: One entry of a plan: (row/column index into a (num_envs, num_joints) array, PyBullet joints, handles).
_Commands = tuple[Any, list[int], list[Handle]]


class JointCommander:
    """Sends the joint commands of one articulation batch; remembers each joint's current mode.

    Args:
        handles: ``(world, body id)`` per environment.
        joint_indices: PyBullet joint index of each joint column.
    """

    def __init__(self, handles: list[Handle], joint_indices: list[int]) -> None:
        self._handles = handles
        self._joint_indices = joint_indices
        self.mode = np.zeros((len(handles), len(joint_indices)), dtype=np.int8)
        self._mode_key = self.mode.tobytes()  # ``mode`` as bytes, kept with it
        self._plan_key: bytes | None = None  # the mode array the cached command plan was built for
        self._plan: dict[int, list[_Commands]] = {}
        self._fixed_key: tuple[bytes, ...] | None = None  # the arrays the cached motor arguments were built for
        self._fixed: dict[int, list[list[tuple[list[float], ...]]]] = {}
        #: per position group of the plan, each environment's position motor call with those arguments bound
        self._senders: list[list[Callable[[list[float]], None]]] = []
        #: per torque group of the plan, each environment's torque call with everything but the torques bound
        self._torque_senders: list[list[Callable[..., None]]] = []
        #: the position array of the last ``apply`` and, per position group of the plan, its block of it (a view
        #: when the group is every environment, else None): a kept view skips numpy's indexing
        self._position_views: tuple[np.ndarray, list[np.ndarray | None]] | None = None

    @property
    def reports_all_efforts(self) -> bool:
        """False: PyBullet's joint reads give the motors' efforts only (zero motor torque on a torque-driven or
        passive joint), so the caller writes those joints' efforts itself."""
        return False

    def disable_motors(self, env_ids: Iterable[int], joints: list[int] | None = None) -> None:
        """Switch the motors of some joint columns (all when ``None``) off in ``env_ids``: passive joints."""
        cols = list(range(len(self._joint_indices))) if joints is None else list(joints)
        if not cols:
            return
        idx = [self._joint_indices[j] for j in cols]
        for i in env_ids:
            w, b = self._handles[i]
            w.disable_motors(b, idx)
            self.mode[i, cols] = _PASSIVE
        self._mode_key = self.mode.tobytes()

    def apply(self, mode: np.ndarray, position: np.ndarray, velocity: np.ndarray, force: np.ndarray,
              position_gain: np.ndarray, velocity_gain: np.ndarray, torque: np.ndarray) -> None:
        """Send one step's commands; see :meth:`simulo.engine.base.ArticulationBatch.apply`."""
        key = mode.tobytes()
        if key != self._mode_key:
            prev = self.mode
            leaving = (((prev == _POSITION) | (prev == _VELOCITY)) & (mode != prev)
                       & ((mode == _TORQUE) | (mode == _PASSIVE)))
            for i in np.flatnonzero(leaving.any(axis=1)).tolist():
                self.disable_motors([i], np.flatnonzero(leaving[i]).tolist())
            prev[:] = mode
            self._mode_key = key
        # per body the calls keep their order (position, velocity, torque); bodies do not affect each other
        plan = self._plan if key == self._plan_key else self._command_plan(mode, key)
        fixed = self._motor_arguments(plan, key, velocity, force, position_gain, velocity_gain)
        self._send_positions(position)
        for (_, joints, handles), args in zip(plan[_VELOCITY], fixed[_VELOCITY]):
            for (w, b), (tv, fmax, kv) in zip(handles, args):
                w.velocity_motors(b, joints, tv, fmax, kv)
        self._send_torques(torque)

    def apply_positions(self, position: np.ndarray) -> None:
        """Send the last :meth:`apply`'s position motors again with new targets (nothing else changed since:
        velocity motors keep their commands in PyBullet, and no joint is torque-driven)."""
        self._send_positions(position)

    def apply_efforts(self, effort: np.ndarray) -> None:
        """Send the last :meth:`apply`'s torques again with new values (nothing else changed since: PyBullet's
        motors keep their commands, a torque acts for one step)."""
        self._send_torques(effort)

    def _send_torques(self, torque: np.ndarray) -> None:
        """Send the torques of the current plan's torque-driven joints."""
        for (index, _, _), senders in zip(self._plan[_TORQUE], self._torque_senders):
            for send, tq in zip(senders, torque[index].tolist()):
                send(forces=tq)

    def _send_positions(self, position: np.ndarray) -> None:
        """Send the position motors of the current plan with the targets ``position``."""
        views = self._position_views
        if views is None or views[0] is not position:
            views = self._views_of(position)
        for (index, _, _), senders, view in zip(self._plan[_POSITION], self._senders, views[1]):
            for send, tp in zip(senders, (position[index] if view is None else view).tolist()):
                send(tp)

    def _views_of(self, position: np.ndarray) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """``position`` and, per position group of the plan, its block of it (a view when the group is one run of
        columns in every environment, else None: a fancy index would copy the targets of this call), kept for
        the next call."""
        self._position_views = (position, [position[ix] if type(ix[0]) is slice and type(ix[1]) is slice else None
                                           for ix, _, _ in self._plan[_POSITION]])
        return self._position_views

    def _motor_arguments(self, plan: dict[int, list[_Commands]], key: bytes, velocity: np.ndarray, force: np.ndarray,
                         position_gain: np.ndarray, velocity_gain: np.ndarray
                         ) -> dict[int, list[list[tuple[list[float], ...]]]]:
        """Per motor command group, each environment's argument lists other than the position targets.

        Position motors get ``(velocity targets, forces, position gains, velocity gains)``, velocity motors
        ``(velocity targets, forces, velocity gains)``. These rarely change from step to step, so the lists
        are cached until the modes or one of these arrays change.
        """
        fixed_key = (key, velocity.tobytes(), force.tobytes(), position_gain.tobytes(), velocity_gain.tobytes())
        if fixed_key != self._fixed_key:
            self._fixed = {
                _POSITION: [list(zip(velocity[ix].tolist(), force[ix].tolist(), position_gain[ix].tolist(),
                                     velocity_gain[ix].tolist())) for ix, _, _ in plan[_POSITION]],
                _VELOCITY: [list(zip(velocity[ix].tolist(), force[ix].tolist(), velocity_gain[ix].tolist()))
                            for ix, _, _ in plan[_VELOCITY]],
            }
            self._fixed_key = fixed_key
            self._senders = [[w.position_sender(b, joints, tv, fmax, kp, kv)
                              for (w, b), (tv, fmax, kp, kv) in zip(handles, args)]
                             for (_, joints, handles), args in zip(plan[_POSITION], self._fixed[_POSITION])]
        return self._fixed

    def _command_plan(self, mode: np.ndarray, key: bytes) -> dict[int, list[_Commands]]:
        """The commands of ``mode``: per control mode, one entry per group of environments sharing a mode row.

        Built when ``mode`` changes (``apply`` keeps the plan of the last ``key``).
        """
        groups: dict[bytes, list[int]] = {}
        for i, row in enumerate(mode):
            groups.setdefault(row.tobytes(), []).append(i)
        plan: dict[int, list[_Commands]] = {_POSITION: [], _VELOCITY: [], _TORQUE: []}
        num_envs = len(self._handles)
        for envs in groups.values():
            row = mode[envs[0]]
            for kind, commands in plan.items():
                cols = np.flatnonzero(row == kind)
                if not cols.size:
                    continue
                index: Any
                if len(envs) == num_envs:
                    contiguous = cols[-1] - cols[0] + 1 == cols.size
                    index = (slice(None), slice(int(cols[0]), int(cols[-1]) + 1) if contiguous else cols)
                else:
                    index = np.ix_(np.asarray(envs), cols)
                joints = [self._joint_indices[j] for j in cols.tolist()]
                commands.append((index, joints, [self._handles[i] for i in envs]))
        self._plan = plan
        self._plan_key = key
        self._position_views = None
        self._torque_senders = [[w.torque_sender(b, joints) for w, b in handles]
                                for _, joints, handles in plan[_TORQUE]]
        return self._plan
