"""``simulo.Scene``: a declarative description of what exists in every environment."""

from __future__ import annotations

from typing import Any

from simulo._sdk_protocols import SceneBase, SceneGroupBase
from simulo.authoring.pose import Pose, Transform
from simulo.authoring.world import LightConfig, TerrainConfig
from simulo.checks import check_num_envs
from simulo.errors import NotAttachedError, SceneError
from simulo.frozen import frozen_dataclass
from simulo.sim.geometry import PRIMITIVES
from simulo.sim.hooks import RobotAttachment, SceneMember, SimulationSensor


@frozen_dataclass
class SceneItem:
    """One entry of a scene: what, where, and whether it is copied into every environment."""

    item: Any
    path: str
    kind: str
    per_environment: bool


def _kind(item: Any) -> str:
    from simulo.sim.prop import Prop
    from simulo.sim.robot import Robot

    if isinstance(item, Robot):
        return "robot"
    if isinstance(item, Prop):
        return "prop"
    if isinstance(item, PRIMITIVES):
        return "prop" if item.physics is not None and not item.physics.kinematic else "fixture"
    if isinstance(item, TerrainConfig):
        return "terrain"
    if isinstance(item, LightConfig):
        return "light"
    if isinstance(item, Transform):
        return "transform"
    if isinstance(item, SimulationSensor):
        if not item.scene_mountable:
            raise SceneError(f"a {type(item).__name__} is mounted on a robot body: robot.add_sensor(sensor, "
                             "attach_to=...)")
        return "sensor"
    if isinstance(item, RobotAttachment):
        return "sensor_or_actuator"
    raise SceneError(f"cannot add {type(item).__name__} {item!r} to a scene; expected a Robot, Prop, Cuboid, Sphere, "
                     "Cylinder, Cone, Terrain, Light, Camera (or another sensor) or Transform")


def _join(parent: str, child: str) -> str:
    """``parent/child`` (``/child`` under the root ``/``)."""
    return f"{parent.rstrip('/')}/{child.strip('/')}"


def _own_name(item: Any) -> str | None:
    """The name an item brings with it; robots and transforms bring none (``at`` is their own path)."""
    from simulo.sim.robot import Robot

    if isinstance(item, (Robot, Transform)):
        return None
    name = getattr(item, "name", None)
    return name if isinstance(name, str) and name else None


class SceneGroup(SceneGroupBase):
    """A named group (the SDK's ``SceneGroupProtocol``); items added through it land under its path."""

    def __init__(self, scene: Scene, name: str, parent_path: str) -> None:
        self.scene = scene
        self.name = name
        self.parent_path = parent_path

    @property
    def path(self) -> str:
        """Full scene path of the group (parent path + name)."""
        return _join(self.parent_path, self.name)

    def add(self, item: Any, at: str | None = None, per_environment: bool = True) -> None:
        """Add an item under this group, optionally under the sub-path ``at`` within it.

        A named item lands at ``<group>/<at>/<name>``; a robot or transform at ``<group>/<at>`` (at
        ``<group>/<type name>`` when ``at`` is not given).
        """
        if at is None:
            sub = self.path if _own_name(item) else _join(self.path, type(item).__name__)
        elif not isinstance(at, str) or at.startswith("/"):
            raise SceneError(f"a group's sub-path must be relative like 'Arm', got {at!r}")
        else:
            sub = _join(self.path, at)
        self.scene.add(item, at=sub, per_environment=per_environment)


class Scene(SceneBase):
    """Robots, props, fixtures, terrain and lights at logical paths, copied into ``num_envs`` environments.

    Args:
        num_envs: Number of environments (each gets its own copy of per-environment items).
        env_spacing: Distance between neighbouring environment origins on the grid, m.

    Environment ``i`` sits at ``(row * env_spacing, col * env_spacing, 0)`` with ``cols = ceil(sqrt(num_envs))``,
    ``row, col = divmod(i, cols)``; environment 0 is at the world origin.
    """

    DEFAULT_ROOT = "/World"

    def __init__(self, num_envs: int = 1, env_spacing: float = 2.0) -> None:
        self.num_envs = num_envs
        self.env_spacing = env_spacing
        self.runtime_check_layout()
        self._items: list[SceneItem] = []
        self._groups: dict[str, SceneGroup] = {}
        self._root: str | None = None
        self._origins: Any = None
        self._simulation: Any = None

    def runtime_check_layout(self) -> None:
        """Check ``num_envs`` and ``env_spacing`` (runtime hook: the simulation calls it after an override).

        Raises:
            SceneError: ``num_envs`` is not an integer >= 1 or more than the memory holds (about 2 MiB per
                environment, see ``docs/limits.md``), or ``env_spacing`` is not a finite number >= 0.
        """
        check_num_envs(self.num_envs, "num_envs", error=SceneError)
        if (isinstance(self.env_spacing, bool) or not isinstance(self.env_spacing, (int, float))
                or not 0 <= self.env_spacing <= 1e6):
            raise SceneError(f"env_spacing must be a finite number >= 0 m, at most 1e6, got {self.env_spacing!r}")

    @property
    def root(self) -> str:
        """The scene root: the first component of the first ``at`` given to :meth:`add` (``/World`` by default;
        ``/`` when that ``at`` was ``/``)."""
        return self._root or self.DEFAULT_ROOT

    def add(self, item: Any, at: str | None = None, per_environment: bool = True, variants: Any = None) -> None:
        """Add an item under a scene path.

        ``at`` is the parent path: an item with a name (terrain, light, primitive shape, prop, sensor) lands at
        ``<at>/<name>``, so ``scene.add(simulo.Terrain.plane(name="ground"), at="/")`` makes ``/ground``. A
        robot or transform brings no name: ``at`` is its own path (``at="/World/Robot"`` names it ``Robot``).

        Args:
            item: Robot, Prop, primitive shape (with physics: a prop; without: a static fixture), Terrain,
                Light, sensor (e.g. a :class:`simulo.Camera`: per environment, or shared with
                ``per_environment=False``) or Transform (its children are added under its path).
            at: Absolute parent path such as ``"/World"`` or ``"/"``; defaults to the root (a robot or
                transform then lands at ``<root>/<type name>``).
            per_environment: Copy the item into every environment (default). ``False`` makes a shared item;
                a shared robot or prop is refused when ``num_envs > 1``.
            variants: :class:`~simulo.sim.variants.ObjectVariants` for a primitive shape or prop: the object
                differs between copies (see :mod:`simulo.sim.variants`).

        Raises:
            SceneError: Unknown item type, bad or duplicate path (or one with a control character), item added
                twice, a shared robot/prop in a multi-environment scene, or variants for something that is not a
                prop.
        """
        if self._simulation is not None:
            raise SceneError("the scene is already simulated; add items before building simulo.Simulation(scene)")
        if not isinstance(per_environment, bool):
            raise SceneError(f"per_environment must be True or False, got {per_environment!r}")
        kind = _kind(item)
        name = _own_name(item)
        given = at
        if at is None:
            at = self.root if name else _join(self.root, type(item).__name__)
        if not isinstance(at, str) or not at.startswith("/") or "//" in at or (at == "/" and not name):
            raise SceneError(f"scene path must be an absolute path like '/World/Robot' ('/' only for an item with "
                             f"a name), got {at!r}")
        path = _join(at, name) if name else at.rstrip("/")
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
            raise SceneError(f"scene path {path!r} holds a control character (a newline, a tab, ...); expected "
                             "printable names")
        if any(e.path == path for e in self._items):
            raise SceneError(f"scene path {path!r} is already used")
        if any(e.item is item for e in self._items):
            raise SceneError(f"{item!r} was already added to this scene")
        if kind in ("robot", "prop") and not per_environment and self.num_envs > 1:
            raise SceneError(f"a shared (per_environment=False) {kind} is supported only with one environment; "
                             f"this scene has num_envs={self.num_envs}. Add {path!r} per environment instead")
        if variants is not None:
            item, kind = self._variant_prop(item, kind, variants, path), "prop"
        root_before, count_before = self._root, len(self._items)
        if self._root is None and isinstance(given, str):
            self._root = "/" + given.strip("/").split("/")[0] if given.strip("/") else "/"
        if kind == "prop" and isinstance(item, PRIMITIVES):
            from simulo.sim.prop import Prop

            item = Prop(item)
        if isinstance(item, SceneMember):
            item.runtime_set_path(path)
        self._items.append(SceneItem(item, path, kind, bool(per_environment)))
        if kind == "transform":
            try:  # nothing half-applied: a refused child removes the transform and its earlier children
                for child, rel in item.children:
                    rel = (rel or "").strip("/") or ("" if _own_name(child) else type(child).__name__)
                    self.add(child, at=_join(path, rel) if rel else path, per_environment=per_environment)
            except SceneError:
                del self._items[count_before:]
                self._root = root_before
                raise
        if kind == "robot":
            for extra in (*item.sensors, *item.actuators):
                extra.path = _join(path, extra.name or type(extra).__name__)
                self._items.append(SceneItem(extra, extra.path, "sensor_or_actuator", True))

    @staticmethod
    def _variant_prop(item: Any, kind: str, variants: Any, path: str) -> Any:
        from simulo.sim.prop import Prop
        from simulo.sim.variants import VariantProp, check_variants

        if kind != "prop" or (isinstance(item, Prop) and type(item) is not Prop):
            raise SceneError(f"variants are for props (a primitive shape with rigid physics); {path!r} is a {kind}")
        options, mode, origin, spacing = check_variants(variants)
        return VariantProp(item.shape if isinstance(item, Prop) else item, options, mode, origin, spacing)

    def group(self, name: str, at: str | None = None) -> SceneGroup:
        """Create (or fetch) the group ``name`` under the path ``at`` (the root by default; ``/`` is allowed).

        Raises:
            SceneError: ``name`` is empty or has a ``/``, or ``at`` is not an absolute path.
        """
        if not isinstance(name, str) or not name or "/" in name:
            raise SceneError(f"group name must be a non-empty string without '/', got {name!r}")
        parent = self.root if at is None else at
        if not isinstance(parent, str) or not parent.startswith("/") or "//" in parent:
            raise SceneError(f"group parent must be an absolute path like '/World' or '/', got {at!r}")
        parent = parent.rstrip("/") or "/"
        key = _join(parent, name)
        if key not in self._groups:
            self._groups[key] = SceneGroup(self, name, parent)
        return self._groups[key]

    def get_items(self) -> list[dict[str, Any]]:
        """A copy of every entry: ``{"item", "path", "kind", "per_environment"}``."""
        return [{"item": e.item, "path": e.path, "kind": e.kind, "per_environment": e.per_environment}
                for e in self._items]

    def items_of(self, kind: str) -> list[SceneItem]:
        """Entries of one kind in the order they were added."""
        return [e for e in self._items if e.kind == kind]

    def offset_of(self, path: str) -> Pose:
        """Pose of the innermost Transform above ``path`` (identity when there is none)."""
        best: SceneItem | None = None
        for e in self._items:
            if e.kind == "transform" and path.startswith(e.path + "/"):
                if best is None or len(e.path) > len(best.path):
                    best = e
        return best.item.pose if best is not None else Pose.identity()

    def clear(self) -> None:
        """Remove every item and group."""
        if self._simulation is not None:
            raise SceneError("cannot clear a scene that is being simulated; close the Simulation first")
        self._items.clear()
        self._groups.clear()
        self._root = None

    def reset(self) -> None:
        """Reset every attached robot and prop to its default state (targets and external forces cleared)."""
        for e in self._items:
            if e.kind in ("robot", "prop") and e.item.runtime_attached:  # a Robot or a Prop (see add)
                e.item.reset()

    def set_gravity(self, values: Any, env_ids: Any = None) -> None:
        """Set world-frame gravity (len(env_ids), 3) in m/s² for the environments ``env_ids`` (all by default).

        Raises:
            NotAttachedError: No simulation has attached the scene.
            SimuloValueError: Bad values, or an engine that keeps one gravity per world asked for two in one
                (PyBullet: build the simulation with ``envs_per_world=1`` for per-environment gravity).
        """
        if self._simulation is None:
            raise NotAttachedError("Scene.set_gravity needs the simulation that runs the scene; call it from "
                                   "on_start onward / after simulo.Simulation(scene) is built")
        self._simulation.set_gravity(values, env_ids)

    @property
    def env_origins(self) -> Any:
        """Environment origins (num_envs, 3), or None until a simulation has attached the scene."""
        return self._origins

    # -- runtime hooks (the simulation calls them) ----------------------------------------------------
    @property
    def runtime_simulation(self) -> Any:
        """The simulation that has attached the scene, or None (runtime hook)."""
        return self._simulation

    def runtime_attach(self, simulation: Any) -> None:
        """Record the simulation building this scene; the scene is frozen until it detaches (runtime hook)."""
        self._simulation = simulation

    def runtime_set_origins(self, origins: Any) -> None:
        """Publish the environment origins of the attached simulation (runtime hook)."""
        self._origins = origins

    def runtime_detach(self, simulation: Any) -> None:
        """Forget ``simulation`` and its origins, if it is the one attached (runtime hook)."""
        if self._simulation is simulation:
            self._simulation = None
            self._origins = None

    def flush_pending_commands(self) -> None:
        """Send the robots' buffered commands to the engine (the runtime calls this before each step)."""
        for member in self.runtime_flushed():
            member.runtime_flush()

    def runtime_flushed(self) -> list[Any]:
        """The attached robots and props, in scene order: what flushes commands before each step (runtime hook:
        a simulation takes the list once, since the scene is frozen while it is attached)."""
        return [e.item for e in self._items
                if e.kind in ("robot", "prop") and e.item.runtime_attached]  # a Robot or a Prop (see add)
