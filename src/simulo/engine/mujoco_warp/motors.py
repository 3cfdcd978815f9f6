"""The MuJoCo engine's joint motor (:mod:`simulo.engine.mujoco.commands`), run on Warp worlds.

The law is the same: between ``step1`` and ``step2`` each motor joint gets the effort that reaches the velocity
PyBullet's motor constraint aims at, within its force limit, iterated through the constraint solver where a world
has constraint rows. Here the Warp calls (``solve_m``, ``fwd_acceleration``, ``solve``) run on every world at once,
and the small per-world arithmetic (:func:`~simulo.engine.mujoco.commands.box_solve`) runs in numpy on the host:
on a GPU every step so moves the motor rows between device and host.
"""

from __future__ import annotations

import mujoco_warp as mjw
import numpy as np
import warp as wp

from simulo.engine.base import ControlMode
from simulo.engine.mujoco.commands import MOTOR_ITERATIONS, MotorLaw, box_solve, motor_update
from simulo.engine.mujoco_warp.worlds import WarpWorlds

_POSITION = int(ControlMode.POSITION_MOTOR)
_VELOCITY = int(ControlMode.VELOCITY_MOTOR)


def _solve_m(worlds: WarpWorlds, y: np.ndarray) -> np.ndarray:
    """``inv(M) y`` for every world's row of ``y`` (num_envs, nv), at the state of the last ``step1``."""
    assert worlds.warp_model is not None and worlds.data is not None
    with wp.ScopedDevice(worlds.device):
        x = wp.zeros(y.shape, dtype=wp.float32)
        mjw.solve_m(worlds.warp_model, worlds.data, x, wp.array(y.astype(np.float32), dtype=wp.float32))
        return np.asarray(x.numpy(), dtype=np.float64)


class WarpMotors:
    """Runs one articulation's :class:`MotorLaw` on the Warp worlds.

    Args:
        law: The articulation's commands.
    """

    def __init__(self, law: MotorLaw) -> None:
        self.law = law
        self._modes = law.mode.copy()
        #: per motor joint, the effort it applied in the last step, which the next step's iteration starts from
        self._last = np.zeros(law.mode.shape)

    def modes_set(self) -> None:
        """Forget the last efforts of joints whose mode changed (call after every ``law.set``)."""
        changed = self.law.mode != self._modes
        if changed.any():
            self._last[changed] = 0.0
            self._modes[:] = self.law.mode

    def drive(self, worlds: WarpWorlds, dofs: np.ndarray, qadr: np.ndarray, applied: np.ndarray) -> None:
        """Write the motor joints' efforts of every world with a motor into ``applied`` (num_envs, nv), the
        ``qfrc_applied`` rows the step will use, after ``step1``. ``applied`` already holds every torque."""
        law, dt = self.law, self.law.dt
        envs = np.flatnonzero(law.motor_envs)
        if not envs.size:
            return
        qpos = np.asarray(worlds.host("qpos"), dtype=np.float64)
        qvel = np.asarray(worlds.host("qvel"), dtype=np.float64)
        nefc = np.asarray(worlds.host("nefc"))
        free_acc = _solve_m(worlds, np.asarray(worlds.host("qfrc_passive"), dtype=np.float64)
                            - np.asarray(worlds.host("qfrc_bias"), dtype=np.float64))
        motor = (law.mode == _POSITION) | (law.mode == _VELOCITY)
        inverse: dict[int, np.ndarray] = {}  # DOF -> its column of inv(M) in every world
        groups: dict[bytes, list[int]] = {}
        for env in envs.tolist():
            groups.setdefault(law.mode[env].tobytes(), []).append(env)
        for members in groups.values():
            g = np.array(members)
            cols = np.flatnonzero(motor[g[0]])
            mdofs, mqadr = dofs[cols], qadr[cols]
            for dof in mdofs.tolist():
                if dof not in inverse:
                    unit = np.zeros((worlds.num_envs, applied.shape[1]))
                    unit[:, dof] = 1.0
                    inverse[dof] = _solve_m(worlds, unit)
            block = np.stack([inverse[dof][g][:, mdofs] for dof in mdofs.tolist()], axis=1)
            at = np.ix_(g, cols)
            qd, q = qvel[np.ix_(g, mdofs)], qpos[np.ix_(g, mqadr)]
            pull = np.where(law.mode[at] == _POSITION, law.kp[at] * (law.position[at] - q), 0.0)
            target = qd + law.kv[at] * (law.velocity[at] - qd) + pull / dt
            limit = law.force[at]
            efforts = np.empty((len(g), len(cols)))
            free = nefc[g] == 0  # no contact, limit or equality: the free motion is the motion
            if free.any():
                efforts[free] = box_solve(block[free], (target[free] - qd[free]) / dt - free_acc[g[free]][:, mdofs],
                                          limit[free])
            if (~free).any():
                efforts[~free] = self._solve(worlds, g[~free], cols, mdofs, target[~free], qd[~free],
                                             block[~free], limit[~free], applied)
            applied[np.ix_(g, mdofs)] = efforts
            self._last[at] = efforts
            law.effort[at] = efforts

    def _solve(self, worlds: WarpWorlds, envs: np.ndarray, cols: np.ndarray, dofs: np.ndarray, target: np.ndarray,
               qd: np.ndarray, block: np.ndarray, limit: np.ndarray, applied: np.ndarray) -> np.ndarray:
        """The motor efforts (len(envs), motors) that reach ``target`` through this step's constraints, within
        ``limit`` (the MuJoCo engine's iteration, every world's constraint solve in one Warp call)."""
        assert worlds.warp_model is not None and worlds.data is not None
        dt = self.law.dt
        effort = np.clip(self._last[np.ix_(envs, cols)], -limit, limit)
        going = np.arange(len(envs))
        reached = np.empty_like(effort)
        rows = applied.copy()
        for _ in range(MOTOR_ITERATIONS):
            rows[np.ix_(envs[going], dofs)] = effort[going]
            worlds.replace("qfrc_applied", rows)
            with wp.ScopedDevice(worlds.device):
                mjw.fwd_acceleration(worlds.warp_model, worlds.data)
                mjw.solve(worlds.warp_model, worlds.data)
            reached[going] = np.asarray(worlds.host("qacc"), dtype=np.float64)[np.ix_(envs[going], dofs)]
            going = motor_update(effort, going, reached, qd, target, block, limit, dt)
            if not going.size:
                break
        return effort
