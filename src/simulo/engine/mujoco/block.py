"""Every environment's MuJoCo state in one array, stepped by MuJoCo's own batched C loop.

While a step needs nothing between MuJoCo's stages (only torques drive; no motor law, held prop, velocity limit,
joint wrench or push), the engine keeps the state of all environments in one ``(num_envs, nstate)`` array of
MuJoCo's ``mjSTATE_FULLPHYSICS`` layout and steps them with ``mujoco.rollout``: one call that releases the GIL and
runs the environments on MuJoCo's thread pool. The step's inputs are one ``(num_envs, ncontrol)`` array in the
layout of :data:`CONTROL`'s components that the model has: applied joint forces (the torques), mocap poses (fixed
robot roots and static props, which a rollout would otherwise put back to the model's) and equality switches.
Joint positions and velocities are read and written through 2-D views of these arrays, with no Python per
environment.

Each environment's rollout starts from its own state, controls and warm start and from nothing else a thread
holds, so the bytes do not depend on the number of threads. A rollout gives back the state but not the
constraint solver's warm start (the last step's accelerations); :class:`StateBlock` carries
``(qvel_after - qvel_before) / dt`` instead, the same accelerations to rounding. The solver converges to its
tolerance from either, so a scene with contacts runs within that tolerance of the per-environment path, not
bit for bit.

The previous step's inputs are kept (two state and two warm-start buffers that swap, and a copy of the
controls), so that the contacts and constraint forces of that step, which a rollout does not return, can be
recomputed exactly when something asks for them (:meth:`StateBlock.replay`).
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np
from mujoco import rollout

_FULL = int(mujoco.mjtState.mjSTATE_FULLPHYSICS)
_QPOS, _QVEL = int(mujoco.mjtState.mjSTATE_QPOS), int(mujoco.mjtState.mjSTATE_QVEL)
_QFRC = int(mujoco.mjtState.mjSTATE_QFRC_APPLIED)
_EQ = int(mujoco.mjtState.mjSTATE_EQ_ACTIVE)
_MOCAP_POS, _MOCAP_QUAT = int(mujoco.mjtState.mjSTATE_MOCAP_POS), int(mujoco.mjtState.mjSTATE_MOCAP_QUAT)

#: Environments per thread-pool task: MuJoCo's default divisor (ten tasks per thread).
_CHUNKS_PER_THREAD = 10


def _offset(model: mujoco.MjModel, spec: int, component: int) -> int:
    """Where ``component`` starts in a state vector of ``spec``: the size of the components before it."""
    return int(mujoco.mj_stateSize(model, spec & (component - 1)))


class StateBlock:
    """The state and step inputs of every environment as arrays, and the rollout that steps them.

    Every environment starts in the state of ``fresh``, a data just made for the model (its ``qpos0``, the mocap
    bodies at their model poses, at rest).

    Args:
        model: The compiled model (every environment's model has its sizes).
        num_envs: Number of environments.
        threads: Threads of MuJoCo's pool (1: step in the calling thread), started on the first step.
        fresh: A data of ``model`` in its initial state.
    """

    def __init__(self, model: mujoco.MjModel, num_envs: int, threads: int, fresh: mujoco.MjData) -> None:
        self.num_envs = num_envs
        self.dt = float(model.opt.timestep)
        nq, nv, nmocap = model.nq, model.nv, model.nmocap
        self.spec = _QFRC | (_EQ if model.neq else 0) | ((_MOCAP_POS | _MOCAP_QUAT) if nmocap else 0)
        nstate = int(mujoco.mj_stateSize(model, _FULL))
        ncontrol = int(mujoco.mj_stateSize(model, self.spec))
        self._states = (np.zeros((num_envs, nstate)), np.zeros((num_envs, nstate)))
        self._warms = (np.zeros((num_envs, nv)), np.zeros((num_envs, nv)))
        self._current = 0
        self.control = np.zeros((num_envs, ncontrol))
        self._used = np.zeros_like(self.control)  # the controls of the last step (for replay)
        q0, v0 = _offset(model, _FULL, _QPOS), _offset(model, _FULL, _QVEL)
        self._q, self._v = slice(q0, q0 + nq), slice(v0, v0 + nv)
        #: the torques of the coming step, (num_envs, nv), a view of :attr:`control` (its first component)
        self.qfrc = self.control[:, :nv]
        self._rest = slice(nv, ncontrol)  # the other components, which the environments' data hold too
        p0, r0 = _offset(model, self.spec, _MOCAP_POS), _offset(model, self.spec, _MOCAP_QUAT)
        #: mocap positions (num_envs, nmocap, 3) and quaternions (num_envs, nmocap, 4), views of :attr:`control`
        self.mocap_pos = self.control[:, p0:p0 + 3 * nmocap].reshape(num_envs, nmocap, 3)
        self.mocap_quat = self.control[:, r0:r0 + 4 * nmocap].reshape(num_envs, nmocap, 4)
        #: per state buffer, its per-environment views of ``qpos`` and ``qvel``; then those of the mocap poses
        #: (made on first use: per-environment writes and reads need them, the batched step does not)
        self._rows: list[tuple[list[np.ndarray], list[np.ndarray]] | None] = [None, None]
        self._mocap_rows: tuple[list[np.ndarray], list[np.ndarray]] | None = None
        mujoco.mj_getState(model, fresh, self._states[0][0], _FULL)
        mujoco.mj_getState(model, fresh, self.control[0, self._rest], self.spec & ~_QFRC)
        self._states[0][1:] = self._states[0][0]
        self.control[1:] = self.control[0]
        self._model = model
        self._threads = threads
        self._scratch: list[mujoco.MjData] = []  # the pool's data and the pool, made on the first step
        self._pool: rollout.Rollout | None = None
        self._chunk = max(1, num_envs // (max(threads, 1) * _CHUNKS_PER_THREAD))
        self._control3 = self.control.reshape(num_envs, 1, ncontrol)
        self.stepped = False  # whether the last step was a batched one (its contacts are not in any data)

    # -- the current state ------------------------------------------------------------------------------
    @property
    def state(self) -> np.ndarray:
        """The current state of every environment (num_envs, nstate)."""
        return self._states[self._current]

    @property
    def qpos(self) -> np.ndarray:
        """Joint positions (num_envs, nq): a view of the current state."""
        return self._states[self._current][:, self._q]

    @property
    def qvel(self) -> np.ndarray:
        """Joint velocities (num_envs, nv): a view of the current state."""
        return self._states[self._current][:, self._v]

    def _state_rows(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        rows = self._rows[self._current]
        if rows is None:
            state = self.state
            rows = self._rows[self._current] = (list(state[:, self._q]), list(state[:, self._v]))
        return rows

    @property
    def qpos_rows(self) -> list[np.ndarray]:
        """Per environment, a view of its joint positions in the current state."""
        return self._state_rows()[0]

    @property
    def qvel_rows(self) -> list[np.ndarray]:
        """Per environment, a view of its joint velocities in the current state."""
        return self._state_rows()[1]

    @property
    def mocap_pos_rows(self) -> list[np.ndarray]:
        """Per environment, a view of its mocap positions (nmocap, 3)."""
        if self._mocap_rows is None:
            self._mocap_rows = (list(self.mocap_pos), list(self.mocap_quat))
        return self._mocap_rows[0]

    @property
    def mocap_quat_rows(self) -> list[np.ndarray]:
        """Per environment, a view of its mocap quaternions (nmocap, 4)."""
        if self._mocap_rows is None:
            self._mocap_rows = (list(self.mocap_pos), list(self.mocap_quat))
        return self._mocap_rows[1]

    # -- moving the state between the block and the environments' data ----------------------------------
    def gather(self, models: Sequence[mujoco.MjModel], datas: Sequence[mujoco.MjData]) -> None:
        """Take every environment's state, mocap poses, equality switches and warm start from its data."""
        for i, (m, d) in enumerate(zip(models, datas)):
            self._take(i, m, d)
        self.qfrc.fill(0.0)
        self.stepped = False

    def scatter(self, models: Sequence[mujoco.MjModel], datas: Sequence[mujoco.MjData]) -> None:
        """Give every environment's data its state, mocap poses, equality switches and warm start from the block
        (its applied forces are cleared: a step's torques are written before the step)."""
        for i, (m, d) in enumerate(zip(models, datas)):
            self._give(i, m, d)

    def _take(self, env: int, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Take one environment's state, mocap poses, equality switches and warm start from its data."""
        mujoco.mj_getState(model, data, self.state[env], _FULL)
        mujoco.mj_getState(model, data, self.control[env, self._rest], self.spec & ~_QFRC)
        self._warms[self._current][env] = data.qacc_warmstart

    def put(self, env: int, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Give one environment's data its state, mocap poses and equality switches (for queries that read it)."""
        mujoco.mj_setState(model, data, self.state[env], _FULL)
        mujoco.mj_setState(model, data, self.control[env, self._rest], self.spec & ~_QFRC)

    def _give(self, env: int, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """:meth:`put`, and the warm start, with the applied forces cleared: the data hold the state from now on."""
        self.put(env, model, data)
        data.qacc_warmstart[:] = self._warms[self._current][env]
        data.qfrc_applied[:] = 0.0

    def replay(self, models: Sequence[mujoco.MjModel], datas: Sequence[mujoco.MjData], held: bool) -> None:
        """Recompute in every environment's data the contacts and constraint forces of the last batched step,
        from that step's inputs (``mj_forward`` computes what ``mj_step`` did before integrating), and leave the
        data at the current state (their kinematics stale): the block's when it ``held`` the state, else the
        data's own."""
        if not held:  # the data hold the state now (perhaps changed since): keep theirs
            for i, (m, d) in enumerate(zip(models, datas)):
                self._take(i, m, d)
        last = 1 - self._current
        before, warm_before = self._states[last], self._warms[last]
        for i, (m, d) in enumerate(zip(models, datas)):
            mujoco.mj_setState(m, d, before[i], _FULL)
            mujoco.mj_setState(m, d, self._used[i], self.spec)
            d.qacc_warmstart[:] = warm_before[i]
            mujoco.mj_forward(m, d)
            self._give(i, m, d)
        self.stepped = False

    # -- stepping ----------------------------------------------------------------------------------------
    def step(self, models: list[mujoco.MjModel]) -> None:
        """Advance every environment by one time step with the controls in :attr:`control`."""
        if self._pool is None:
            self._scratch = [mujoco.MjData(self._model) for _ in range(max(self._threads, 1))]
            self._pool = rollout.Rollout(nthread=self._threads if self._threads > 1 else 0)
        before, warm_before = self._current, self._warms[self._current]
        after = 1 - before
        state_after = self._states[after]
        self._pool.rollout(models, self._scratch, self._states[before], self._control3, control_spec=self.spec,
                           skip_checks=True, nstep=1, initial_warmstart=warm_before,
                           state=state_after.reshape(self.num_envs, 1, -1), sensordata=None, chunk_size=self._chunk)
        warm = self._warms[after]
        np.subtract(state_after[:, self._v], self._states[before][:, self._v], out=warm)
        warm *= 1.0 / self.dt
        self._used[...] = self.control
        self._current = after
        self.stepped = True

    def close(self) -> None:
        """Stop MuJoCo's threads, if started."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
