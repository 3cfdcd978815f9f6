"""``simulo.Prop``: a rigid object (cube, ball, crate) whose pose you can read and write, batched."""

from __future__ import annotations

from typing import Any

import numpy as np

from simulo._sdk_protocols import PropBase, PropStateBase
from simulo.engine.base import RigidBatch
from simulo.errors import NotAttachedError, SimuloValueError
from simulo.sim.geometry import PRIMITIVES, Primitive, surface_of
from simulo.sim.properties import ForceBuffer, batch_values
from simulo.sim.published import PublishedBuffers
from simulo.sim.tensors import Tensors, unit_poses

_MEMBERS = ("pose", "lin_vel", "ang_vel")


class PropState(PropStateBase):
    """``prop.state``: live pose and velocities of the prop in every environment.

    As ``robot.state`` (see :mod:`simulo.sim.robot_state`): each member is the same object on every read,
    current after every step or teleport; a numpy view is read-only and a torch tensor a mirror the runtime
    rewrites, so a stray write cannot change what the simulation reports.
    """

    def __init__(self, prop: Prop) -> None:
        self._prop = prop

    @property
    def pose(self) -> Any:
        """World pose of the shape's centre (num_envs, 7), ``[x, y, z, qw, qx, qy, qz]``. Live buffer."""
        return self._prop._require("state.pose").member("pose")

    @property
    def linear_velocity(self) -> Any:
        """Linear velocity (num_envs, 3) in m/s. Live buffer."""
        return self._prop._require("state.linear_velocity").member("lin_vel")

    @property
    def angular_velocity(self) -> Any:
        """Angular velocity (num_envs, 3) in rad/s. Live buffer."""
        return self._prop._require("state.angular_velocity").member("ang_vel")


class PropData:
    """The engine batch and state buffers of one attached prop (what sensors read).

    As a robot's (:mod:`simulo.sim.robot_data`), the buffers are read when they are read: a physics step marks
    them stale, and the first read of ``pose``, ``lin_vel`` or ``ang_vel`` after it refreshes all three from the
    engine; those ``prop.state`` handed out and a caller still holds are refreshed right after the step.

    Args:
        batch: The engine's rigid batch.
        tensors: The simulation's tensor converter.
        default_pose: Poses ``reset`` writes (num_envs, 7).
    """

    def __init__(self, batch: RigidBatch, tensors: Tensors, default_pose: np.ndarray) -> None:
        self.batch = batch
        self.tensors = tensors
        self.default_pose = default_pose.copy()
        n = default_pose.shape[0]
        dtype = tensors.state_dtype  # the live buffers the state members share
        self._pose = default_pose.astype(dtype)
        self._lin_vel = np.zeros((n, 3), dtype)
        self._ang_vel = np.zeros((n, 3), dtype)
        #: whether the engine stepped since the buffers were last read
        self.stale = False
        #: what ``prop.state`` hands out for the three buffers (see :mod:`simulo.sim.published`)
        self.published = PublishedBuffers(tensors, {"pose": self._pose, "lin_vel": self._lin_vel,
                                                    "ang_vel": self._ang_vel})
        #: the external force and torque kept on the prop (see simulo.sim.properties)
        self.external = ForceBuffer(n, 1)

    @property
    def pose(self) -> np.ndarray:
        """World pose of the shape's centre (num_envs, 7), current."""
        if self.stale:
            self.refresh()
        return self._pose

    @property
    def lin_vel(self) -> np.ndarray:
        """Linear velocity (num_envs, 3), current."""
        if self.stale:
            self.refresh()
        return self._lin_vel

    @property
    def ang_vel(self) -> np.ndarray:
        """Angular velocity (num_envs, 3), current."""
        if self.stale:
            self.refresh()
        return self._ang_vel

    @property
    def num_envs(self) -> int:
        """Number of environments."""
        return self._pose.shape[0]

    def refresh(self) -> None:
        """Read the pose and velocities from the engine now, and bring the state objects callers hold up to date."""
        self.stale = False
        self.batch.read(self._pose, self._lin_vel, self._ang_vel)
        self.published.sync(self.published.held(_MEMBERS))

    def mark_stepped(self) -> None:
        """Note that the engine stepped: the next read refreshes the buffers, held state objects at once."""
        self.stale = True
        if self.published.held(_MEMBERS):
            self.refresh()

    def member(self, name: str) -> Any:
        """The current value of buffer ``name`` as ``prop.state`` hands it out (see ``published``)."""
        if self.stale:
            self.refresh()
        return self.published.get(name)


class Prop(PropBase):
    """A rigid body built from a primitive shape with :class:`~simulo.RigidPhysics`.

    Args:
        shape: A :class:`~simulo.Cuboid`, :class:`~simulo.Sphere`, :class:`~simulo.Cylinder` or ``Cone`` whose
            ``physics`` is set; its ``pose`` is the spawn pose relative to each environment's origin.

    Raises:
        SimuloValueError: The shape is not a primitive or has no rigid physics.
    """

    def __init__(self, shape: Primitive) -> None:
        if not isinstance(shape, PRIMITIVES):
            raise SimuloValueError(f"Prop.shape must be a Cuboid, Sphere, Cylinder or Cone, got {shape!r}")
        if shape.physics is None:
            raise SimuloValueError(f"Prop {shape.name!r} needs physics=RigidPhysics(...); a shape without physics "
                                   "is a static fixture: add it to the scene directly")
        self.shape = shape
        self._name: str | None = shape.name
        self._path: str | None = None
        self._state = PropState(self)
        self._data: PropData | None = None
        self._closed = False

    @property
    def name(self) -> str | None:
        """The shape's name, or the last component of the scene path."""
        return self._name

    @property
    def path(self) -> str | None:
        """Scene path, set when the prop is added."""
        return self._path

    def _require(self, member: str) -> PropData:
        if self._data is None and self._closed:
            raise NotAttachedError(f"Prop.{member} is not available until the simulation has attached the prop: "
                                   f"the simulation of prop {self._name!r} was closed")
        if self._data is None:
            raise NotAttachedError(f"Prop.{member} is not available until the simulation has attached the prop")
        return self._data

    @property
    def state(self) -> PropState:
        """Live state accessor; the same object on every access."""
        return self._state

    @property
    def default_pose(self) -> Any:
        """Spawn pose in the world frame with each environment's origin (num_envs, 7); a copy."""
        data = self._require("default_pose")
        return data.tensors.out(data.default_pose.copy())

    @property
    def internals(self) -> Any:
        """Engine-specific handle (the engine's rigid batch); unstable."""
        return self._require("internals").batch

    @property
    def data(self) -> PropData:
        """The prop's engine batch and buffers, for sensors (runtime API; apps use ``state``).

        Raises:
            NotAttachedError: No simulation has attached the prop.
        """
        return self._require("data")

    def set_pose(self, pose: Any, env_ids: Any = None) -> None:
        """Teleport the prop to world poses (len(env_ids), 7); read back immediately."""
        data = self._require("set_pose")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        poses = unit_poses(data.tensors.floats(pose, (len(ids), 7), "pose"))
        data.batch.write_pose(ids, poses)
        data.refresh()

    def set_velocity(self, velocity: Any, env_ids: Any = None) -> None:
        """Set velocities ``[vx, vy, vz, wx, wy, wz]`` (len(env_ids), 6)."""
        data = self._require("set_velocity")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        data.batch.write_velocity(ids, data.tensors.floats(velocity, (len(ids), 6), "velocity"))
        data.refresh()

    def reset(self, env_ids: Any = None) -> None:
        """Put the prop back at its default pose, at rest."""
        data = self._require("reset")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        data.external.clear(ids)
        data.batch.write_pose(ids, data.default_pose[ids])
        data.batch.write_velocity(ids, np.zeros((len(ids), 6)))
        data.refresh()

    # -- per-copy properties (PropPropertiesProtocol, ExternalForceProtocol; see simulo.sim.properties) -----
    # Shapes in the SDK's letters: K selected copies; a prop has one body and one contact shape.
    def set_mass(self, values: Any, env_ids: Any = None) -> None:
        """Set the mass (len(env_ids), 1) in kg, > 0."""
        data = self._require("set_mass")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        masses = batch_values(data.tensors, values, (len(ids), 1), "masses", low=0.0, positive=True)
        data.batch.set_masses(ids, masses[:, 0])

    def set_center_of_mass(self, values: Any, env_ids: Any = None) -> None:
        """Set the centre of mass (len(env_ids), 1, 3) in the body frame; the PyBullet engine refuses."""
        data = self._require("set_center_of_mass")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        offsets = batch_values(data.tensors, values, (len(ids), 1, 3), "centers of mass")
        data.batch.set_center_of_mass(ids, offsets[:, 0])

    def set_friction(self, values: Any, env_ids: Any = None) -> None:
        """Set the friction coefficient (len(env_ids), 1), >= 0; a plain number sets every selected copy."""
        self._set_surface(self._require("set_friction"), values, env_ids, "friction")

    def set_restitution(self, values: Any, env_ids: Any = None) -> None:
        """Set the restitution (len(env_ids), 1), 0..1; a plain number sets every selected copy."""
        self._set_surface(self._require("set_restitution"), values, env_ids, "restitution")

    @staticmethod
    def _set_surface(data: PropData, values: Any, env_ids: Any, what: str) -> None:
        """Set the ``friction`` (>= 0) or ``restitution`` (0..1), (K, 1): one shape."""
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        arr = batch_values(data.tensors, values, (len(ids), 1), what, low=0.0,
                           high=1.0 if what == "restitution" else None)[:, 0]
        data.batch.set_surface(ids, arr if what == "friction" else None, arr if what == "restitution" else None)

    def set_scale(self, values: Any, env_ids: Any = None) -> None:
        """Set the scale (len(env_ids), 1, 3) relative to the authored size (a sphere evenly; a cylinder or cone
        with equal x and y). PyBullet rebuilds the body, keeping its pose, velocity, mass and surface."""
        data = self._require("set_scale")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        scales = batch_values(data.tensors, values, (len(ids), 1, 3), "scales", low=0.0, positive=True)
        data.batch.set_scale(ids, scales[:, 0])

    def apply_external_force(self, forces: Any, torques: Any, env_ids: Any = None) -> None:
        """Keep a world-frame force and torque (len(env_ids), 1, 3) on the centre of mass at every physics step
        until set again (zeros stop it) or the environment is reset."""
        data = self._require("apply_external_force")
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        f = batch_values(data.tensors, forces, (len(ids), 1, 3), "forces")
        t = batch_values(data.tensors, torques, (len(ids), 1, 3), "torques")
        data.external.set(ids, f, t)

    def runtime_flush(self) -> None:
        """Send this step's external forces (runtime hook: once per physics step)."""
        data = self._data
        if data is not None and data.external.active.size:
            pushed = data.external.active
            data.batch.apply_force(pushed, data.external.forces[pushed, 0], data.external.torques[pushed, 0])

    def update(self, dt: float) -> None:
        """Mark the state buffers stale after a step (the runtime calls this): the next read refreshes them."""
        self._require("update").mark_stepped()

    # -- runtime hooks (see simulo.sim.hooks.SceneMember) -----------------------------------------
    @property
    def runtime_attached(self) -> bool:
        """Whether a simulation has attached the prop (runtime hook)."""
        return self._data is not None

    def runtime_set_path(self, path: str) -> None:
        """Take the scene path the prop was added at (runtime hook: the scene calls it)."""
        self._path = path
        self._name = path.rstrip("/").rsplit("/", 1)[-1]

    def runtime_attach(self, batch: RigidBatch, tensors: Tensors, default_pose: np.ndarray) -> None:
        """Bind the prop to its engine batch (runtime hook: the simulation calls it)."""
        self._data = PropData(batch, tensors, default_pose)
        friction, restitution = surface_of(self.shape)
        if friction is not None:
            batch.set_friction(friction)
        if restitution is not None:
            batch.set_surface(range(batch.num_envs), None, np.full(batch.num_envs, restitution))
        self._data.refresh()

    def runtime_detach(self) -> None:
        """Forget the engine batch (runtime hook: the simulation calls it when it closes)."""
        self._closed = self._closed or self._data is not None
        self._data = None

    def __repr__(self) -> str:
        return f"Prop(name={self._name!r}, shape={type(self.shape).__name__})"
