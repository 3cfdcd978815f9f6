"""``simulo.SurfaceGripperActuator``: a suction cup that holds the nearest object it reaches.

The SDK 0.34.0 names the class without defining it (its cloud backend's ``simulo.core`` does; the SDK's
docstrings attach it with ``robot.add_actuator(gripper, attach_to="picker_head/SurfaceGripper")``). The
parameters and their meaning are Isaac Lab's ``SurfaceGripperCfg`` (``max_grip_distance``,
``coaxial_force_limit``, ``shear_force_limit``, ``retry_interval``), the commands and states its
``SurfaceGripper``'s (:mod:`simulo.sim.actuators.gripper_types`), and ``forward_axis`` Isaac Sim's surface
gripper's ``isaac:forwardAxis``.

How it works here, per environment: a close command starts closing; while closing, after each physics step the
gripper looks for the nearest dynamic prop whose surface lies within ``max_grip_distance`` of the attach frame's
origin (:mod:`simulo.sim.actuators.reach`) and welds it to the attach body where it is (the engine's
:class:`~simulo.engine.base.WeldBatch`): closed. It gives up and opens after ``retry_interval`` seconds without
one. While closed, the weld's force on the object is split along the attach frame's forward axis (coaxial) and
across it (shear); either one above its limit breaks the grip (open). An open command releases at once.
Commands are edges, applied when given: a close while closed or an open while open does nothing. An
environment's reset (``LearningEnv.reset``, ``seeded_reset``, a finished episode, ``Simulation.reset``) releases its
grip before the task's ``reset_idx`` runs, as Isaac Lab's scene reset does: it starts its episode open.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from simulo._sdk_protocols import ActuatorBase
from simulo.errors import NotAttachedError, SceneError, SimuloValueError
from simulo.math.batched import quat_rotate
from simulo.sim.actuators.gripper_types import GripperState, split_commands
from simulo.sim.actuators.reach import Target, grip_targets, nearest

if TYPE_CHECKING:
    from simulo.engine.base import WeldBatch
    from simulo.sim.hooks import ActuatorContext
    from simulo.sim.robot_data import RobotData

_AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}
_OPEN, _CLOSING, _CLOSED = int(GripperState.OPEN), int(GripperState.CLOSING), int(GripperState.CLOSED)
#: The properties each environment may set with ``update_gripper_properties``, and whether 0 is allowed.
_PROPERTIES = {"max_grip_distance": False, "coaxial_force_limit": False, "shear_force_limit": False,
               "retry_interval": True}


def _limit(value: Any, what: str, allow_zero: bool = False, optional: bool = False) -> float:
    if optional and value is None:
        return math.inf
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) \
        and (value >= 0 if allow_zero else value > 0)
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise SimuloValueError(f"SurfaceGripperActuator.{what} must be a finite number {bound}"
                               f"{' or None (no limit)' if optional else ''}, got {value!r}")
    return float(value)


class SurfaceGripperActuator(ActuatorBase):
    """A suction (surface) gripper on one body of a robot, batched over environments (see the module docstring).

    Args:
        max_grip_distance: Farthest an object's surface may be from the attach frame's origin to be gripped, m.
        coaxial_force_limit: Largest pull along the forward axis the grip holds, N; ``None``: no limit.
        shear_force_limit: Largest force across the forward axis the grip holds, N; ``None``: no limit.
        retry_interval: How long a close command keeps looking for an object, s (0: one look).
        forward_axis: The attach frame's axis the cup faces along: ``"x"``, ``"y"`` or ``"z"``.
        name: Actuator name.

    ``attach_to`` names the attach body; a path ``"picker_head/SurfaceGripper"`` (a USD prim path, as the SDK
    writes it) names the body of its last component.

    Raises:
        SimuloValueError: A parameter is malformed (the message names it and its value).
    """

    def __init__(self, max_grip_distance: float = 0.1, coaxial_force_limit: float | None = 500.0,
                 shear_force_limit: float | None = 500.0, retry_interval: float = 0.1, forward_axis: str = "z",
                 name: str = "surface_gripper") -> None:
        self.max_grip_distance = _limit(max_grip_distance, "max_grip_distance")
        self.coaxial_force_limit = _limit(coaxial_force_limit, "coaxial_force_limit", optional=True)
        self.shear_force_limit = _limit(shear_force_limit, "shear_force_limit", optional=True)
        self.retry_interval = _limit(retry_interval, "retry_interval", allow_zero=True)
        if forward_axis not in _AXES:
            raise SimuloValueError(f"SurfaceGripperActuator.forward_axis must be 'x', 'y' or 'z', got {forward_axis!r}")
        self.forward_axis = forward_axis
        self._name = name
        self.path: str | None = None
        self.enabled = True
        self._data: RobotData | None = None
        self._body = -1
        self._welds: WeldBatch | None = None
        self._targets: list[Target] = []
        self._clock: Any = None
        self._state = np.zeros(0, dtype=np.int8)
        self._since = np.zeros(0)  # when each environment started closing, s
        self._held = np.zeros(0, dtype=np.int64)  # index into the targets of what each environment holds, -1: none
        self._forces = np.zeros((0, 2))  # coaxial and shear force of each grip in the last step, N
        self._per_env: dict[str, np.ndarray] = {}  # each environment's properties (update_gripper_properties)

    @property
    def name(self) -> str | None:
        """Actuator name."""
        return self._name

    @property
    def body_index(self) -> int:
        """Robot body index of the attach frame (-1 before the robot is attached)."""
        return self._body

    # -- runtime hooks -------------------------------------------------------------------------------
    def runtime_bind(self, data: RobotData, attach_to: str) -> None:
        """Find the attach body (runtime hook: the robot calls it when it is attached).

        Raises:
            NameNotFoundError: The body ``attach_to`` names does not exist.
            SimuloValueError: It names more than one body.
        """
        frame = attach_to.rstrip("/").rsplit("/", 1)[-1] if isinstance(attach_to, str) else attach_to
        bodies = data.find_bodies(frame)
        if len(bodies) != 1:
            raise SimuloValueError(f"SurfaceGripperActuator attach_to {attach_to!r} must name one body, matched "
                                   f"{[data.body_names[b] for b in bodies]}")
        self._data = data
        self._body = bodies[0]
        n = data.num_envs
        self._state = np.full(n, _OPEN, dtype=np.int8)
        self._since = np.zeros(n)
        self._held = np.full(n, -1, dtype=np.int64)
        self._forces = np.zeros((n, 2))
        self._per_env = {key: np.full(n, getattr(self, key)) for key in _PROPERTIES}

    def runtime_connect(self, context: ActuatorContext) -> None:
        """Make the engine's welds and list what can be held (runtime hook: the simulation calls it once built).

        Raises:
            SceneError: The engine makes no welds.
        """
        data = self._data
        assert data is not None
        add_welds = getattr(context.engine, "add_welds", None)
        if add_welds is None:
            raise SceneError(f"SurfaceGripperActuator {self._name!r} needs welds, which the "
                             f"{type(context.engine).__name__} engine does not make")
        self._welds = add_welds(data.batch, self._body)
        self._targets = grip_targets(context.props)
        self._clock = context.clock

    def runtime_step(self, dt: float) -> None:
        """Grip, give up or break after a physics step (runtime hook: the simulation calls it after every step)."""
        if self._welds is None or not self.enabled:
            return
        closed = np.flatnonzero(self._state == _CLOSED)
        if closed.size:
            self._check_forces(closed)
        closing = np.flatnonzero(self._state == _CLOSING)
        if closing.size:
            self._try_grip(closing)

    def runtime_reset(self, env_ids: np.ndarray) -> None:
        """Release the grips of the environments ``env_ids`` and clear their commands: each one open, holding
        nothing, its engine weld off (runtime hook: an environment's reset calls it before ``reset_idx``)."""
        if self._welds is not None and len(env_ids):
            self._release(np.asarray(env_ids, dtype=np.int64))

    def _frame(self, env_ids: np.ndarray) -> np.ndarray:
        """World poses (len(env_ids), 7) of the attach frame in ``env_ids``, read now."""
        data = self._data
        assert data is not None
        if self._body == 0:
            return np.array(data.pose[env_ids], dtype=np.float64)
        return data.batch.read_bodies([self._body], env_ids, velocity=False)[0][:, 0]

    def _try_grip(self, env_ids: np.ndarray) -> None:
        assert self._welds is not None
        found, distance = nearest(self._targets, self._frame(env_ids)[:, :3], env_ids)
        reach = found >= 0
        reach[reach] = distance[reach] <= self._per_env["max_grip_distance"][env_ids][reach]
        for k, target in enumerate(self._targets):
            ids = env_ids[reach & (found == k)]
            if ids.size:
                self._welds.attach(ids, target.batch)
                self._held[ids] = k
                self._state[ids] = _CLOSED
                self._forces[ids] = 0.0
        waited = self._clock() - self._since[env_ids] >= self._per_env["retry_interval"][env_ids] - 1e-12
        self._state[env_ids[~reach & waited]] = _OPEN

    def _check_forces(self, env_ids: np.ndarray) -> None:
        assert self._welds is not None
        force = self._welds.forces()[env_ids]
        axis = quat_rotate(self._frame(env_ids)[:, 3:], np.tile(np.array(_AXES[self.forward_axis]), (len(env_ids), 1)))
        coaxial = np.abs(np.einsum("ij,ij->i", force, axis))
        shear = np.linalg.norm(force - (force * axis).sum(axis=1, keepdims=True) * axis, axis=1)
        self._forces[env_ids] = np.stack([coaxial, shear], axis=1)
        limits = self._per_env
        broken = env_ids[(coaxial > limits["coaxial_force_limit"][env_ids])
                         | (shear > limits["shear_force_limit"][env_ids])]
        if broken.size:
            self._release(broken)

    def _release(self, env_ids: np.ndarray) -> None:
        assert self._welds is not None
        held = env_ids[self._state[env_ids] == _CLOSED]
        if held.size:
            self._welds.detach(held)
        self._state[env_ids] = _OPEN
        self._held[env_ids] = -1
        self._forces[env_ids] = 0.0

    # -- commands ------------------------------------------------------------------------------------
    def _require(self) -> RobotData:
        if not self.enabled:
            raise SimuloValueError(f"gripper {self._name!r} is disabled (enabled=False)")
        if self._data is None or not self._data.attached or self._welds is None:
            raise NotAttachedError("SurfaceGripperActuator is commanded after the simulation has attached its robot")
        return self._data

    def set_grippers_command(self, states: Any, env_ids: Any = None) -> None:
        """Open or close the grippers of ``env_ids`` (all by default), Isaac Lab's way.

        Args:
            states: A :class:`~simulo.GripperCommand` or a number for every selected environment, or one value per
                environment (len(env_ids),), each in [-1, 1]: up to -0.3 opens, from 0.3 closes, between does
                nothing.
            env_ids: Environments to command; ``None`` for all.

        Raises:
            ShapeError, NonFiniteError, SimuloValueError: Malformed commands (nothing is commanded).
        """
        data = self._require()
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        opening, closing = split_commands(data.tensors, states, ids, "SurfaceGripperActuator command")
        if opening.size:
            self._release(opening)
        start = closing[self._state[closing] == _OPEN]
        if start.size:
            self._state[start] = _CLOSING
            self._since[start] = self._clock()

    def open(self, env_ids: Any = None) -> None:
        """Release the grippers of ``env_ids`` (all by default)."""
        self.set_grippers_command(-1.0, env_ids)

    def close(self, env_ids: Any = None) -> None:
        """Start closing the grippers of ``env_ids`` (all by default): they grip after the next physics step."""
        self.set_grippers_command(1.0, env_ids)

    def set_command(self, command: Any) -> None:
        """Protocol form: a :class:`~simulo.GripperCommand`, a number or one value per environment (see
        :meth:`set_grippers_command`); or a mapping with ``command`` and optional ``env_ids``."""
        if isinstance(command, dict):
            if "command" not in command or not set(command) <= {"command", "env_ids"}:
                raise SimuloValueError(f"surface gripper command must be a dict with 'command' and optional "
                                       f"'env_ids', got {command!r}")
            self.set_grippers_command(command["command"], command.get("env_ids"))
            return
        self.set_grippers_command(command)

    def update_gripper_properties(self, max_grip_distance: Any = None, coaxial_force_limit: Any = None,
                                  shear_force_limit: Any = None, retry_interval: Any = None,
                                  env_ids: Any = None) -> None:
        """Set the properties of the grippers of ``env_ids`` (all by default), Isaac Lab's way (``None``: keep).

        Each value is a number or one per environment (len(env_ids),); the constructor's values stay the
        defaults. A force limit may be ``inf`` (no limit).

        Raises:
            ShapeError, NonFiniteError, SimuloValueError: A malformed value (nothing is changed).
        """
        data = self._require()
        ids = data.tensors.env_ids(env_ids, data.num_envs)
        given = {"max_grip_distance": max_grip_distance, "coaxial_force_limit": coaxial_force_limit,
                 "shear_force_limit": shear_force_limit, "retry_interval": retry_interval}
        checked = {}
        for key, value in given.items():
            if value is None:
                continue
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                value = np.full(len(ids), float(value))
            values = data.tensors.floats(value, (len(ids),), key, finite=False)
            limit = key.endswith("force_limit")
            low = values < 0 if _PROPERTIES[key] else values <= 0
            bad = np.flatnonzero(np.isnan(values) | low | (np.isinf(values) & (not limit)))
            if bad.size:
                bound = ">= 0" if _PROPERTIES[key] else "> 0"
                raise SimuloValueError(f"SurfaceGripperActuator {key} must be finite and {bound}"
                                       f"{' (or inf: no limit)' if limit else ''}, got {float(values[bad[0]])!r} "
                                       f"at index {int(bad[0])}")
            checked[key] = values
        for key, values in checked.items():
            self._per_env[key][ids] = values

    # -- reads ---------------------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        """:class:`~simulo.GripperState` of each environment (num_envs,) float32: -1 open, 0 closing, 1 closed."""
        data = self._require()
        return data.tensors.out(self._state.astype(np.float32))

    def get_state(self) -> Any:
        """:attr:`state`: each environment's :class:`~simulo.GripperState` (num_envs,) float32."""
        return self.state

    def held_objects(self) -> list[str | None]:
        """Name of the prop each environment holds (``None`` where it holds nothing)."""
        self._require()
        return [None if k < 0 else self._targets[k].name for k in self._held.tolist()]

    def grip_forces(self) -> Any:
        """Coaxial and shear force (num_envs, 2) of each grip in the last step, N (0 where nothing is held)."""
        data = self._require()
        return data.tensors.out(self._forces.copy())

    def reset(self) -> None:
        """Release every grip and clear the commands (every environment open)."""
        data = self._require()
        self._release(np.arange(data.num_envs))
