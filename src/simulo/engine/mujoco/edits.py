"""Model edits of an articulation batch of either MuJoCo engine: masses, inertias, friction, restitution, damping,
limits, armature, collisions.

Each edit is a function of one model, applied through the engine's environments
(:class:`~simulo.engine.mujoco.worlds.EditableWorlds`) to every distinct model (``edit_all``) or to the given
environments' own copies (``edit_envs``), and replayed there after every recompile while the scene is built.
"""

from __future__ import annotations

from typing import Generic

import mujoco
import numpy as np

from simulo.engine.base import EnvIds
from simulo.engine.mujoco.rigid import set_restitution
from simulo.engine.mujoco.worlds import WorldsT


class ArticulationEdits(Generic[WorldsT]):
    """The model edits of an articulation batch of either MuJoCo engine (a base class of
    :class:`~simulo.engine.mujoco.articulation.ArticulationBase`: the batch sets the attributes below)."""

    _worlds: WorldsT
    _model: mujoco.MjModel  # the compiled model the indices below were looked up in
    body_ids: np.ndarray  # MuJoCo body index of each body
    dofs: np.ndarray  # DOF address of each joint column
    body_geoms: list[np.ndarray]  # each body's geoms
    geoms: np.ndarray  # every geom of the robot
    _max_velocity: np.ndarray  # per joint column, the velocity limit clipped to after each step (inf: none)
    _velocity_limited: bool  # whether any is finite

    def scale_masses(self, factor: float) -> None:
        """Multiply every link mass (and inertia) by ``factor``; at 0 the joints keep a tiny armature so the
        mass matrix stays invertible."""
        bids, dofs = self.body_ids, self.dofs

        def edit(m: mujoco.MjModel) -> None:
            m.body_mass[bids] *= factor
            m.body_inertia[bids] *= factor
            if factor == 0.0:
                m.dof_armature[dofs] = np.maximum(m.dof_armature[dofs], 1e-6)
        self._worlds.edit_all(edit)

    def set_joint_properties(self, joint: int, *, damping: float | None = None, max_velocity: float | None = None,
                             limits: tuple[float, float] | None = None) -> None:
        """Override damping, velocity limit (enforced by clipping after each step) and position limits."""
        dof = int(self.dofs[joint])
        jid = int(self._model.dof_jntid[dof])

        def edit(m: mujoco.MjModel) -> None:
            if damping is not None:
                m.dof_damping[dof] = damping
            if limits is not None:
                m.jnt_range[jid] = limits
                m.jnt_limited[jid] = limits[0] <= limits[1]
        self._worlds.edit_all(edit)
        if max_velocity is not None:
            self._max_velocity[joint] = max_velocity
            self._velocity_limited = bool(np.isfinite(self._max_velocity).any())
            self._velocity_limits_changed()

    def _velocity_limits_changed(self) -> None:
        """Called after :meth:`set_joint_properties` set a velocity limit (nothing to do here; an engine whose
        step plan depends on the limits overrides it)."""

    def set_body_friction(self, body: int, friction: float) -> None:
        """Set the sliding friction of body ``body``'s shapes in every copy."""
        geoms = self.body_geoms[body]
        self._worlds.edit_all(lambda m: m.geom_friction.__setitem__((geoms, 0), friction))

    def link_masses(self) -> np.ndarray:
        """Mass of every body of every copy (num_envs, B) in kg."""
        return np.array([m.body_mass[self.body_ids] for m in self._worlds.models])

    def set_link_masses(self, env_ids: EnvIds, masses: np.ndarray) -> None:
        """Set the body masses (len(env_ids), B); inertias scale with them (the shapes keep their density)."""
        values, bids = np.array(masses, dtype=float), self.body_ids

        def edit(m: mujoco.MjModel, k: int) -> None:
            old = m.body_mass[bids]
            ratio = np.divide(values[k], old, out=np.ones_like(old), where=old > 0)
            m.body_inertia[bids] *= ratio[:, None]
            m.body_mass[bids] = values[k]
        self._worlds.edit_envs(env_ids, edit)

    def set_link_surface(self, env_ids: EnvIds, friction: np.ndarray | None,
                         restitution: np.ndarray | None) -> None:
        """Set each body's friction and/or restitution (len(env_ids), B) on all of its shapes."""
        fr = None if friction is None else np.array(friction, dtype=float)
        rs = None if restitution is None else np.array(restitution, dtype=float)
        body_geoms = self.body_geoms

        def edit(m: mujoco.MjModel, k: int) -> None:
            for b, geoms in enumerate(body_geoms):
                if fr is not None:
                    m.geom_friction[geoms, 0] = fr[k, b]
                if rs is not None:
                    set_restitution(m, geoms, float(rs[k, b]))
        self._worlds.edit_envs(env_ids, edit)

    def set_link_centers_of_mass(self, env_ids: EnvIds, offsets: np.ndarray) -> None:
        """Move each body's centre of mass to ``offsets`` (len(env_ids), B, 3) in its body frame."""
        values, bids = np.array(offsets, dtype=float), self.body_ids
        self._worlds.edit_envs(env_ids, lambda m, k: m.body_ipos.__setitem__(bids, values[k]))

    def set_joint_armature(self, env_ids: EnvIds, armature: np.ndarray) -> None:
        """Set each joint's armature (len(env_ids), J)."""
        values, dofs = np.array(armature, dtype=float), self.dofs
        self._worlds.edit_envs(env_ids, lambda m, k: m.dof_armature.__setitem__(dofs, values[k]))

    def disable_collisions(self) -> None:
        """Make every copy collide with nothing."""
        geoms = self.geoms

        def edit(m: mujoco.MjModel) -> None:
            m.geom_contype[geoms] = 0
            m.geom_conaffinity[geoms] = 0
        self._worlds.edit_all(edit)
