"""The environments of a MuJoCo Warp engine: one MuJoCo model, and one Warp world per environment.

While the scene is built the model is compiled on the host (through the MuJoCo engine's
:class:`~simulo.engine.mujoco.spec.SceneSpec`, so every asset that loads there loads here) and every
environment's state (``qpos``, ``qvel``, mocap poses) is kept in host arrays, carried over by name at each
recompile. The first step (:meth:`WarpWorlds.finalize`) puts the model on the Warp device and makes one
``mujoco_warp.Data`` of ``nworld = num_envs`` worlds holding that state; from then on the state lives on the
device and the scene is final.

Model edits work as on the MuJoCo engine (:mod:`simulo.engine.mujoco.worlds`): a model-wide edit changes the
shared model, a per-environment one gives that environment its own host copy, and each is replayed after every
recompile. Putting the model on the device (at the first step, and again after any later edit) sends every
batched ``mujoco_warp.Model`` field (and the gravity) in which the environments' models differ as one row per
world; every other field stays shared.

Reads and writes go through :meth:`WarpWorlds.host` (a numpy array of a state field, every world's rows) and
:meth:`WarpWorlds.commit`: on Warp's CPU device the array is the device memory itself (no copy, and commit does
nothing); on a GPU it is a copy, written back by commit. ``host_copies=True`` takes the GPU's way on the CPU
device too, so that the CPU's tests check that every write is committed. Warp computes in float32.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable

import mujoco
import mujoco_warp as mjw
import numpy as np
import warp as wp

from simulo.engine.base import EnvIds
from simulo.engine.mujoco.spec import SceneSpec
from simulo.engine.mujoco_warp.unsupported import unsupported

#: The state fields kept on the host while the scene is built.
_STATE = ("qpos", "qvel", "mocap_pos", "mocap_quat", "xfrc_applied")

#: A model edit applied to every distinct model: ``fn(model)``.
AllEdit = Callable[[mujoco.MjModel], None]
#: A per-environment model edit: ``fn(model, k)`` for the ``k``-th environment of ``env_ids``.
EnvEdit = Callable[[mujoco.MjModel, int], None]

#: The ``mujoco_warp.Model`` fields that may hold one row per world and that ``MjModel`` has under the same name.
_BATCHED = tuple(f.name for f in dataclasses.fields(mjw.Model)
                 if getattr(f.type, "shape", ())[:1] == ("*",) and hasattr(mujoco.MjModel, f.name))

#: The fields :func:`body_state` computes on the host while the scene is built.
_POSED = ("qpos", "qvel", "mocap_pos", "mocap_quat")


class WarpWorlds:
    """The model, and every environment's state, of one MuJoCo Warp engine.

    Args:
        num_envs: Number of environments (Warp worlds).
        scene: The MjSpec everything is added to.
        device: The Warp device (``"cpu"``, ``"cuda"``, ``"cuda:0"``...).
        host_copies: Whether :meth:`host` copies the device's arrays and :meth:`commit` writes them back; ``None``:
            on a GPU only (on the CPU device the arrays are the device memory itself).
    """

    def __init__(self, num_envs: int, scene: SceneSpec, device: str, host_copies: bool | None = None) -> None:
        self.num_envs = num_envs
        self.scene = scene
        self.device = wp.get_device(device)
        self.host_copies = self.device.is_cuda if host_copies is None else host_copies
        self.model: mujoco.MjModel | None = None
        self._state: dict[str, np.ndarray] = {}
        self._binders: list[Callable[[mujoco.MjModel], None]] = []
        #: every environment's model (the shared one until an edit of that environment copies it)
        self.models: list[mujoco.MjModel] = []
        self._owned = np.zeros(num_envs, dtype=bool)
        #: the model edits made so far, replayed after every compile: (None or the environments, the edit)
        self._edits: list[tuple[list[int] | None, AllEdit | EnvEdit]] = []
        self._scratch: mujoco.MjData | None = None
        self.warp_model: mjw.Model | None = None
        self.data: mjw.Data | None = None
        #: whether body poses and velocities (kinematics, com_pos, com_vel) match the state
        self.current = False
        #: whether ``xfrc_applied`` holds pushes for the coming step (cleared after it)
        self.pushed = False

    @property
    def final(self) -> bool:
        """Whether the model and data are on the device (the scene can no longer grow)."""
        return self.data is not None

    def bind(self, binder: Callable[[mujoco.MjModel], None]) -> None:
        """Call ``binder`` with the model now and after every recompile (a batch looks up its indices)."""
        self._binders.append(binder)
        assert self.model is not None
        binder(self.model)

    def recompile(self) -> None:
        """Compile the grown scene, carry every environment's state over by name, and rebind the batches.

        Raises:
            WarpUnsupportedError: The scene is final.
        """
        if self.final:
            unsupported("grow_after_step")
        old, state = self.model, self._state
        model = self.scene.compile()
        n = self.num_envs
        fresh = mujoco.MjData(model)
        new = {"qpos": np.tile(fresh.qpos, (n, 1)), "qvel": np.zeros((n, model.nv)),
               "mocap_pos": np.tile(fresh.mocap_pos, (n, 1, 1)), "mocap_quat": np.tile(fresh.mocap_quat, (n, 1, 1)),
               "xfrc_applied": np.zeros((n, model.nbody, 6))}  # (a push lasts one step: none is carried over)
        if old is not None:
            for j in range(old.njnt):
                k = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, old.joint(j).name)
                nq, nv = _joint_sizes(int(old.jnt_type[j]))
                qa, va, qb, vb = old.jnt_qposadr[j], old.jnt_dofadr[j], model.jnt_qposadr[k], model.jnt_dofadr[k]
                new["qpos"][:, qb:qb + nq] = state["qpos"][:, qa:qa + nq]
                new["qvel"][:, vb:vb + nv] = state["qvel"][:, va:va + nv]
            for b in range(old.nbody):
                mocap = old.body_mocapid[b]
                if mocap >= 0:
                    k = model.body_mocapid[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, old.body(b).name)]
                    new["mocap_pos"][:, k] = state["mocap_pos"][:, mocap]
                    new["mocap_quat"][:, k] = state["mocap_quat"][:, mocap]
        self.model, self._state = model, new
        self.models = [model] * n
        self._owned[:] = False
        self._scratch = mujoco.MjData(model)
        edits, self._edits = self._edits, []
        for ids, fn in edits:
            if ids is None:
                self.edit_all(fn)  # type: ignore[arg-type]
            else:
                self.edit_envs(ids, fn)  # type: ignore[arg-type]
        for binder in self._binders:
            binder(model)

    def _settle(self, model: mujoco.MjModel) -> None:
        """Recompute the model's derived constants after an edit (subtree masses, constraint weights...)."""
        assert self._scratch is not None
        mujoco.mj_setConst(model, self._scratch)

    def edit_all(self, fn: AllEdit) -> None:
        """Apply a model edit to every environment (``fn(model)`` on each distinct model), replayed after each
        later compile (recorded only while the scene can still grow); once the model is on the device, it is sent
        again."""
        seen: dict[int, mujoco.MjModel] = {}
        for model in self.models:
            seen.setdefault(id(model), model)
        for model in seen.values():
            fn(model)
            self._settle(model)
        if self.final:
            self._put()
        else:
            self._edits.append((None, fn))

    def edit_envs(self, env_ids: EnvIds, fn: EnvEdit) -> None:
        """Apply a per-environment model edit (``fn(model, k)`` on the own model of the ``k``-th of ``env_ids``),
        replayed after each later compile (recorded only while the scene can still grow: a weld made in every
        grip would pile up otherwise); once the model is on the device, it is sent again."""
        ids = [int(i) for i in env_ids]
        for k, env in enumerate(ids):
            if not self._owned[env]:
                self.models[env] = copy.copy(self.models[env])
                self._owned[env] = True
            fn(self.models[env], k)
            self._settle(self.models[env])
        if self.final:
            self._put()
        else:
            self._edits.append((ids, fn))

    def _put(self) -> None:
        """Put the model on the device: the shared model, with one row per world of every batched field (and the
        gravity) in which an environment's model differs from the shared one.

        Raises:
            WarpUnsupportedError: An edited field is laid out differently on the device than in ``MjModel``.
        """
        assert self.model is not None
        rows: dict[str, np.ndarray] = {}
        shared = self.model
        if self._owned.any():
            for name in _BATCHED:
                if any(not np.array_equal(getattr(m, name), getattr(shared, name)) for m in self.models):
                    rows[name] = np.stack([np.asarray(getattr(m, name)) for m in self.models])
        gravity = np.stack([np.asarray(m.opt.gravity) for m in self.models])
        with wp.ScopedDevice(self.device):
            model = mjw.put_model(self.model, batch_sizes={name: self.num_envs for name in rows})
            for name, values in rows.items():
                target = getattr(model, name)
                shape = target.numpy().shape
                if values.size != int(np.prod(shape)):
                    unsupported("model_layout")
                target.assign(values.reshape(shape).astype(target.numpy().dtype))
            if (gravity != shared.opt.gravity).any():
                model.opt.gravity = wp.array(gravity.astype(np.float32), dtype=wp.vec3)
        self.warp_model = model
        self.current = False

    def finalize(self) -> None:
        """Put the model on the device and make the worlds, holding the state kept so far (the first step)."""
        if self.final:
            return
        assert self.model is not None, "nothing was added to the scene"
        with wp.ScopedDevice(self.device):
            data = mjw.make_data(self.model, nworld=self.num_envs)
            for name in _STATE:
                getattr(data, name).assign(self._state[name].astype(np.float32))
        self.data = data
        self._state = {}
        self._put()

    def host(self, name: str) -> np.ndarray:
        """A state field of every world, as a numpy array (num_envs, ...): the device memory itself on the CPU
        device, a copy on a GPU or with ``host_copies`` (write it back with :meth:`commit`)."""
        if self.data is None:
            return self._state[name]
        array: np.ndarray = getattr(self.data, name).numpy()
        return array.copy() if self.host_copies and not self.device.is_cuda else array

    def commit(self, name: str, values: np.ndarray) -> None:
        """Write ``values`` (from :meth:`host`, changed) back to the device, and mark the kinematics stale."""
        self.current = False
        if self.data is not None and self.host_copies:
            getattr(self.data, name).assign(values.astype(np.float32))

    def replace(self, name: str, values: np.ndarray) -> None:
        """Set a whole state field of every world to ``values`` (without reading it first, unlike :meth:`host` and
        :meth:`commit`), and mark the kinematics stale."""
        if self.data is None or not self.host_copies:
            self.host(name)[...] = values
            self.current = False
        else:
            self.commit(name, values)

    def make_current(self) -> None:
        """Bring body poses, centre-of-mass quantities and body velocities up to date with the state."""
        if self.current or self.data is None:
            return
        assert self.warp_model is not None
        with wp.ScopedDevice(self.device):
            mjw.kinematics(self.warp_model, self.data)
            mjw.com_pos(self.warp_model, self.data)
            mjw.com_vel(self.warp_model, self.data)
        self.current = True


def _joint_sizes(kind: int) -> tuple[int, int]:
    """qpos and qvel sizes of a MuJoCo joint type."""
    if kind == mujoco.mjtJoint.mjJNT_FREE:
        return 7, 6
    if kind == mujoco.mjtJoint.mjJNT_BALL:
        return 4, 3
    return 1, 1


def body_state(worlds: WarpWorlds, env_ids: list[int]) -> dict[str, np.ndarray]:
    """Body frames and velocities of the environments ``env_ids``: ``xpos``, ``xquat``, ``cvel`` and
    ``subtree_com`` (len(env_ids), nbody, ...), float64. While the scene is built they are computed on the host
    (``mj_kinematics``, ``mj_comPos``, ``mj_comVel``), afterwards on the device."""
    fields = ("xpos", "xquat", "cvel", "subtree_com")
    if worlds.data is not None:
        worlds.make_current()
        return {name: np.asarray(getattr(worlds.data, name).numpy()[env_ids], dtype=np.float64) for name in fields}
    assert worlds.model is not None
    scratch = mujoco.MjData(worlds.model)
    out = {name: np.empty((len(env_ids), *getattr(scratch, name).shape)) for name in fields}
    for k, env in enumerate(env_ids):
        model = worlds.models[env]
        for name in _POSED:
            getattr(scratch, name)[:] = worlds.host(name)[env]
        mujoco.mj_kinematics(model, scratch)
        mujoco.mj_comPos(model, scratch)
        mujoco.mj_comVel(model, scratch)
        for name in fields:
            out[name][k] = getattr(scratch, name)
    return out
