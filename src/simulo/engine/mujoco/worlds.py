"""The environments of a MuJoCo engine: one compiled model, and every environment's state.

Every environment starts on the same ``MjModel``; the first per-environment model edit (a mass, a friction, a
gravity) gives that environment its own copy (copy on write), so a batch without per-copy properties holds one
model. The model is recompiled whenever the scene grows; then each environment's state is carried over by
name and the model edits made so far are replayed, so the order of spawning and editing does not matter while
the scene is built. After the first step the scene is final.

The state lives in one of two places. A :class:`~simulo.engine.mujoco.block.StateBlock` holds every
environment's state in arrays (:attr:`Worlds.blocked`) from the first compile on: the scene is built, reset and
stepped by the batched path without any ``MjData`` per environment (an ``MjData`` takes a megabyte or more, and
about a millisecond to make). The first thing that needs the environments' ``MjData`` (``datas``: a step per
environment, a weld, a contact read) has them made, gives them the state and leaves the state there; the next
batched step takes it back. Body poses, rays, cameras and dynamics queries only read the data: the state is
copied into the data of the environments they read (``read_datas``), and stays in the block.

Environments never share an ``MjData``, so a step of one is independent of the others, and of how they are
grouped into worlds or threads: the same commands give the same bytes. The arrays a step writes and reads in
every environment (``qpos``, ``qvel``, ``qfrc_applied``, ``xfrc_applied``, the mocap poses) are kept as numpy
views, of the block's arrays or of each ``MjData`` (taken once: each attribute read of an ``MjData`` makes a new
array object).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import mujoco
import numpy as np

from simulo.engine.base import EnvIds
from simulo.engine.mujoco.block import StateBlock
from simulo.engine.mujoco.spec import SceneSpec

#: :attr:`Worlds.fresh`: the body poses are up to date (``mj_kinematics``).
POSED = 1
#: :attr:`Worlds.fresh`: the body poses, centre-of-mass quantities and body velocities are (``mj_comPos``,
#: ``mj_comVel``).
CURRENT = 2

#: The per-environment arrays kept as views, by their ``MjData`` names (the block has the state's and the mocap
#: poses' too, under the same names).
_ARRAYS = ("qpos", "qvel", "qfrc_applied", "xfrc_applied", "mocap_pos", "mocap_quat")

#: A model edit applied to every distinct model: ``fn(model)``.
AllEdit = Callable[[mujoco.MjModel], None]
#: A per-environment model edit: ``fn(model, k)`` for the ``k``-th environment of ``env_ids``.
EnvEdit = Callable[[mujoco.MjModel, int], None]


class Bound(Protocol):
    """A batch whose model indices are looked up again after each compile."""

    def bind(self, model: mujoco.MjModel) -> None:
        """Look up the batch's indices in a freshly compiled model."""
        ...


class EditableWorlds(Protocol):
    """The environments of either MuJoCo engine (:class:`Worlds`, or the MuJoCo Warp engine's worlds) as the
    batch code both engines share sees them: every environment's model, and the two ways to edit them."""

    #: number of environments
    num_envs: int
    #: every environment's model (one object shared until an edit of that environment copies it)
    models: list[mujoco.MjModel]

    def edit_all(self, fn: AllEdit) -> None:
        """Apply a model edit to every environment (``fn(model)`` on each distinct model)."""
        ...

    def edit_envs(self, env_ids: EnvIds, fn: EnvEdit) -> None:
        """Apply a per-environment model edit (``fn(model, k)`` on the own model of the ``k``-th of
        ``env_ids``)."""
        ...


#: The environments type of a batch whose code both MuJoCo engines share.
WorldsT = TypeVar("WorldsT", bound=EditableWorlds)


@dataclass(frozen=True)
class BodyWrites(Generic[WorldsT]):
    """How an engine writes the state of a body it moves as a whole (the functions of
    :mod:`simulo.engine.mujoco.free_bodies`, or their MuJoCo Warp counterparts), for the batch code both MuJoCo
    engines share.

    Attributes:
        pose: ``pose(worlds, env_ids, poses, qadr, mocap)`` teleports the free joint at ``qadr`` (or, when
            ``qadr`` < 0, mocap body ``mocap``) of ``env_ids`` to ``poses`` (len(env_ids), 7).
        velocity: ``velocity(worlds, env_ids, velocities, qadr, dofadr)`` sets the velocities
            ``[vx, vy, vz, wx, wy, wz]`` (world axes, len(env_ids), 6) of the free joint at ``qadr``/``dofadr``.
    """

    pose: Callable[[WorldsT, EnvIds, np.ndarray, int, int], None]
    velocity: Callable[[WorldsT, EnvIds, np.ndarray, int, int], None]


class Worlds:
    """The compiled model(s) of every environment, and their state.

    Args:
        num_envs: Number of environments.
        scene: The specification the model is compiled from.
        threads: Threads of MuJoCo's pool for the batched step.
    """

    def __init__(self, num_envs: int, scene: SceneSpec, threads: int = 1) -> None:
        self.num_envs = num_envs
        self.scene = scene
        self.threads = threads
        self.models: list[mujoco.MjModel] = []
        self.template: mujoco.MjModel | None = None
        self._datas: list[mujoco.MjData] | None = None  # None: not made yet for the current model
        self._owned = np.zeros(num_envs, dtype=bool)
        self._bound: list[Bound] = []
        self._edits: list[tuple[list[int] | None, AllEdit | EnvEdit]] | None = []
        #: how far each environment's kinematics are up to date with its state: 0 (stale, after a step or a
        #: write), :data:`POSED` (body poses), :data:`CURRENT` (poses, centre-of-mass quantities, velocities)
        #: (a list: a step marks every environment stale with ``fresh[:] = stale``, cheaper than a numpy fill). A
        #: data whose environment is fresh holds its state, also while the block holds it.
        self.fresh = [0] * num_envs
        self.stale = [0] * num_envs
        #: whether any ``xfrc_applied`` was written since the last step (a step clears them all then)
        self.pushed = False
        #: bumped whenever what a step does besides ``mj_step`` may change (see ``MuJoCoEngine``'s step plan)
        self.revision = 0
        self._views: tuple[list[np.ndarray], ...] = ()
        #: the state and step inputs as arrays (remade with every compile), and whether they hold the state now
        self.block: StateBlock | None = None
        self._blocked = False
        #: whether something read a step's contacts or constraint forces, which only the per-environment step
        #: leaves in the data (from then on every step is one)
        self.wants_step_data = False
        self.recompile()

    # -- the environments' data ----------------------------------------------------------------------
    @property
    def datas(self) -> list[mujoco.MjData]:
        """Every environment's ``MjData``, holding its state from now on (made and given it on first use)."""
        datas = self._datas
        if datas is None or self._blocked:
            datas = self._data_list()
            if self._blocked:
                self._unblock()
        return datas

    def _data_list(self) -> list[mujoco.MjData]:
        """The data, made on first use (before the block gives them its state, they hold none)."""
        if self._datas is None:
            assert self.template is not None
            self._datas = [mujoco.MjData(self.template) for _ in range(self.num_envs)]
            self._views = tuple([getattr(d, name) for d in self._datas] for name in _ARRAYS)
            self.fresh[:] = self.stale
        return self._datas

    def _view(self, k: int) -> list[np.ndarray]:
        self.datas  # noqa: B018 - the data hold the state from now on
        return self._views[k]

    def _rows(self, k: int) -> list[np.ndarray]:
        """Per environment, array ``k`` of :data:`_ARRAYS`: a row of the block while it holds the state, else a
        view of the environment's data."""
        if self._blocked:
            return getattr(self.block, _ARRAYS[k] + "_rows")
        return self._view(k)

    def _matrix(self, k: int) -> np.ndarray:
        """Array ``k`` of :data:`_ARRAYS` (``qpos`` or ``qvel``) of every environment as one array: the block's
        view while it holds the state, else a new array."""
        if self._blocked:
            return getattr(self.block, _ARRAYS[k])
        return np.array(self._view(k))

    @property
    def qpos(self) -> list[np.ndarray]:
        """Every environment's ``qpos`` array (a row of the block while it holds the state)."""
        return self._rows(0)

    @property
    def qvel(self) -> list[np.ndarray]:
        """Every environment's ``qvel`` array (a row of the block while it holds the state)."""
        return self._rows(1)

    @property
    def mocap_pos(self) -> list[np.ndarray]:
        """Every environment's mocap positions (nmocap, 3) (rows of the block while it holds the state)."""
        return self._rows(4)

    @property
    def mocap_quat(self) -> list[np.ndarray]:
        """Every environment's mocap quaternions (nmocap, 4) (rows of the block while it holds the state)."""
        return self._rows(5)

    def qpos_matrix(self) -> np.ndarray:
        """Every environment's ``qpos`` as one (num_envs, nq) array (the block's view while it holds the state)."""
        return self._matrix(0)

    def qvel_matrix(self) -> np.ndarray:
        """Every environment's ``qvel`` as one (num_envs, nv) array (the block's view while it holds the state)."""
        return self._matrix(1)

    @property
    def qfrc(self) -> list[np.ndarray]:
        """Every environment's ``qfrc_applied`` array (the data hold the state from this call on)."""
        return self._view(2)

    @property
    def xfrc(self) -> list[np.ndarray]:
        """Every environment's ``xfrc_applied`` array (the data hold the state from this call on)."""
        return self._view(3)

    def read_datas(self, env_ids: Iterable[int]) -> list[mujoco.MjData]:
        """Every environment's ``MjData``, those of ``env_ids`` holding their state, for a query that only reads
        them: the block keeps the state if it holds it."""
        datas = self._data_list()
        if self._blocked:
            assert self.block is not None
            fresh, block, models = self.fresh, self.block, self.models
            for i in env_ids:
                if fresh[i] == 0:
                    block.put(i, models[i], datas[i])
        return datas

    # -- the batched step's block ------------------------------------------------------------------------
    @property
    def blocked(self) -> bool:
        """Whether the block holds the state (from the first compile, and since a batched step, until something
        uses the data)."""
        return self._blocked

    def enter_block(self) -> StateBlock:
        """The block, holding the state (taken from the data unless it holds it already)."""
        assert self.block is not None
        if not self._blocked:
            self.block.gather(self.models, self._data_list())
            self._blocked = True
        return self.block

    def _unblock(self) -> None:
        assert self.block is not None and self._datas is not None
        self._blocked = False
        self.block.scatter(self.models, self._datas)
        self.fresh[:] = self.stale

    def step_data(self) -> None:
        """Make the data hold the last step's contacts and constraint forces. After a batched step they are
        recomputed from its inputs, and every later step is taken per environment, which leaves them."""
        block = self.block
        if block is None or not block.stepped:
            return
        held, self._blocked = self._blocked, False
        block.replay(self.models, self._data_list(), held)
        self.fresh[:] = self.stale
        self.wants_step_data = True
        self.revision += 1

    def close(self) -> None:
        """Stop the block's threads, if any."""
        if self.block is not None:
            self.block.close()

    @property
    def final(self) -> bool:
        """Whether the scene is final (the first step was taken)."""
        return self._edits is None

    def finalize(self) -> None:
        """Stop recording model edits: the scene can no longer grow."""
        self._edits = None

    def bind(self, batch: Bound) -> None:
        """Keep ``batch``'s model indices current across recompiles (binds it now)."""
        assert self.template is not None
        batch.bind(self.template)
        self._bound.append(batch)

    # -- compiling ---------------------------------------------------------------------------------
    def recompile(self) -> None:
        """Compile the specification again, carrying every environment's state and model edits over.

        Raises:
            NotImplementedError: The scene was already stepped (it is final then).
        """
        if self.final:
            raise NotImplementedError("the MuJoCo engine builds its scene before the first step; add every robot, "
                                      "prop and terrain before stepping")
        model = self.scene.compile()
        old, old_model = self.block, self.template
        if old is not None and not self._blocked:  # the data hold the state: into the old block first
            old.gather(self.models, self._data_list())
        self._datas = None
        self._views = ()
        self.template = model
        self._scratch = mujoco.MjData(model)
        self.block = StateBlock(model, self.num_envs, self.threads, self._scratch)
        self._blocked = True
        if old is not None:
            assert old_model is not None
            self._carry_state(old_model, old)
            old.close()
        self.models = [model] * self.num_envs
        self._owned[:] = False
        for batch in self._bound:
            batch.bind(model)
        edits, self._edits = self._edits, []
        for env_ids, fn in edits or []:
            if env_ids is None:
                self.edit_all(fn)  # type: ignore[arg-type]
            else:
                self.edit_envs(env_ids, fn)  # type: ignore[arg-type]
        self.fresh[:] = self.stale

    def _carry_state(self, old: mujoco.MjModel, old_block: StateBlock) -> None:
        """Copy joint positions and velocities and mocap poses, matched by name, into the new block."""
        new, block = self.template, self.block
        assert new is not None and block is not None
        qpos, qvel, mocap = [], [], []
        for j in range(old.njnt):
            name = old.joint(j).name
            k = mujoco.mj_name2id(new, mujoco.mjtObj.mjOBJ_JOINT, name) if name else -1
            if k < 0:
                continue
            width = {0: 7, 1: 4}.get(int(old.jnt_type[j]), 1)
            vel_width = {0: 6, 1: 3}.get(int(old.jnt_type[j]), 1)
            qpos += list(zip(range(old.jnt_qposadr[j], old.jnt_qposadr[j] + width),
                             range(new.jnt_qposadr[k], new.jnt_qposadr[k] + width)))
            qvel += list(zip(range(old.jnt_dofadr[j], old.jnt_dofadr[j] + vel_width),
                             range(new.jnt_dofadr[k], new.jnt_dofadr[k] + vel_width)))
        for b in range(old.nbody):
            if old.body_mocapid[b] >= 0:
                k = mujoco.mj_name2id(new, mujoco.mjtObj.mjOBJ_BODY, old.body(b).name)
                if k >= 0 and new.body_mocapid[k] >= 0:
                    mocap.append((int(old.body_mocapid[b]), int(new.body_mocapid[k])))
        q_old, q_new = (np.array([p[i] for p in qpos], dtype=np.int64) for i in (0, 1))
        v_old, v_new = (np.array([p[i] for p in qvel], dtype=np.int64) for i in (0, 1))
        m_old, m_new = (np.array([p[i] for p in mocap], dtype=np.int64) for i in (0, 1))
        block.qpos[:, q_new] = old_block.qpos[:, q_old]
        block.qvel[:, v_new] = old_block.qvel[:, v_old]
        block.mocap_pos[:, m_new] = old_block.mocap_pos[:, m_old]
        block.mocap_quat[:, m_new] = old_block.mocap_quat[:, m_old]

    # -- model edits -------------------------------------------------------------------------------
    def distinct_models(self) -> list[mujoco.MjModel]:
        """Every distinct model object, once each."""
        seen: dict[int, mujoco.MjModel] = {}
        for model in self.models:
            seen.setdefault(id(model), model)
        return list(seen.values())

    def own(self, env: int) -> mujoco.MjModel:
        """Environment ``env``'s own model (copied from the shared one on first use)."""
        if not self._owned[env]:
            self.models[env] = copy.copy(self.models[env])
            self._owned[env] = True
        return self.models[env]

    def _settle(self, model: mujoco.MjModel) -> None:
        """Recompute the model's derived constants (MuJoCo caches the mass matrix of simple bodies, the subtree
        masses and constraint weights at ``qpos0``; they must follow a mass or inertia edit)."""
        mujoco.mj_setConst(model, self._scratch)

    def edit_all(self, fn: AllEdit) -> None:
        """Apply a model edit to every environment (recorded while the scene is being built)."""
        for model in self.distinct_models():
            fn(model)
            self._settle(model)
        if self._edits is not None:
            self._edits.append((None, fn))

    def edit_envs(self, env_ids: EnvIds, fn: EnvEdit) -> None:
        """Apply a per-environment model edit to ``env_ids`` (recorded while the scene is being built)."""
        ids = [int(i) for i in env_ids]
        for k, i in enumerate(ids):
            model = self.own(i)
            fn(model, k)
            self._settle(model)
        if self._edits is not None:
            self._edits.append((ids, fn))

    def mark_stale(self, env_ids: EnvIds) -> None:
        """Mark the kinematics of ``env_ids`` stale (their state was written)."""
        fresh = self.fresh
        for i in np.asarray(env_ids, dtype=np.int64).tolist():
            fresh[i] = 0

    def current(self, env_ids: Iterable[int], velocities: bool = True) -> None:
        """Bring the body poses (and, with ``velocities``, the centre-of-mass quantities and body velocities) of
        ``env_ids`` up to date with their state."""
        want = CURRENT if velocities else POSED
        fresh = self.fresh
        ids = [i for i in env_ids if fresh[i] < want]
        if not ids:
            return
        datas = self.read_datas(ids)
        for i in ids:
            if fresh[i] < want:
                m, d = self.models[i], datas[i]
                if fresh[i] < POSED:
                    mujoco.mj_kinematics(m, d)
                if velocities:
                    mujoco.mj_comPos(m, d)
                    mujoco.mj_comVel(m, d)
                fresh[i] = want
