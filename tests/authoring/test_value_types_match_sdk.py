"""simulo's value types are the SDK's (simulo-interfaces 0.25.0): same fields, constructors and methods.

simulo-local keeps its own classes (validated, normalised, frozen; they import no ``simulo.interfaces``) where
the PyBullet runtime consumes them. This test proves each one matches simulo-interfaces' definition: every
field, constructor parameter (name, kind, default) and public method of the SDK's class exists in ours with the
same shape. Ours may add members only where :data:`EXTENSIONS` lists them, and an added constructor parameter
must be keyword-only with a default, so that no SDK call changes meaning.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

import simulo
import simulo.interfaces.authoring as sdk

#: Names whose simulo class is our own and must match the SDK's.
OWN = ("Pose", "Transform", "PrimitiveShape", "Cone", "Cuboid", "Sphere", "Cylinder", "Collision", "RigidPhysics",
       "Physics", "Material", "SurfaceMaterial", "ActuatorGainsConfig", "JointConfig", "ArticulationConfig",
       "Terrain", "Light", "PolicyCheckpoint", "ObjectVariants", "TerrainConfig", "GroundPlane", "SubTerrainConfig",
       "RoughTerrain", "LightConfig", "DistantLight", "DomeLight")

#: (class, member) -> why simulo-local adds it.
EXTENSIONS: dict[tuple[str, str], str] = {
    ("Pose", "from_xyz_rpy"): "roll/pitch/yaw constructor used by the pick-and-place app",
    ("Pose", "to_list"): "the contract's [x, y, z, qw, qx, qy, qz] row",
    ("Pose", "is_identity"): "lets the scene skip composing identity offsets",
    ("Transform", "name"): "node name of the scene path (keyword-only)",
    ("Transform", "pose"): "the offset as a validated Pose (keyword-only, or read back)",
    ("RigidPhysics", "friction"): "lateral friction of the body; the SDK has no per-shape friction (keyword-only)",
    **{(shape, member): reason for shape in ("PrimitiveShape", "Cone", "Cuboid", "Sphere", "Cylinder")
       for member, reason in (("color", "recording colour; defaults to material.color (keyword-only)"),
                              ("engine_geometry", "how the engine creates the shape"))},
    ("PolicyCheckpoint", "resolve"): "finds a local checkpoint by reference",
    ("GroundPlane", "restitution"): "bounciness of the ground (keyword-only)",
    ("RoughTerrain", "seed"): "seed of the height-field generator (keyword-only)",
    ("RoughTerrain", "horizontal_scale"): "distance between height samples (keyword-only)",
    ("RoughTerrain", "friction"): "friction of the ground (keyword-only)",
}

#: (class, member) -> why simulo-local does not match the SDK yet, and what will fix it.
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {}


def _params(func: Any) -> list[tuple[str, str, bool]]:
    """``(name, kind, has_default)`` of each parameter, the SDK backend's conformance rule."""
    return [(p.name, p.kind.name, p.default is not inspect.Parameter.empty)
            for p in inspect.signature(func).parameters.values()]


def _defaults(func: Any) -> dict[str, Any]:
    """Default value of each parameter that has one."""
    return {p.name: p.default for p in inspect.signature(func).parameters.values()
            if p.default is not inspect.Parameter.empty}


def _members(cls: type) -> dict[str, str]:
    """Public members and what they are (classmethod, staticmethod, property, function, value).

    Besides the class body, the instance attributes that a plain (non-dataclass) class sets in ``__init__``
    count, read from an instance built with the constructor's defaults.
    """
    out = {}
    if not dataclasses.is_dataclass(cls):
        try:
            out.update((name, "value") for name in vars(cls()) if not name.startswith("_"))
        except TypeError:  # the constructor needs arguments
            pass
    for name in dir(cls):
        if name.startswith("_") or name in _fields(cls):  # fields are compared as fields
            continue
        raw = inspect.getattr_static(cls, name)
        if inspect.ismethod(raw):  # a method bound to a class, as the SDK's Material.surface
            out[name] = "classmethod"
        elif isinstance(raw, (classmethod, staticmethod, property)):
            out[name] = type(raw).__name__
        else:
            out[name] = "function" if inspect.isfunction(raw) else "value"
    return out


def _fields(cls: type) -> list[str]:
    """Dataclass field names, in order (their defaults are the constructor's, compared there)."""
    return [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else []


def _param_problems(name: str, where: str, theirs: Any, ours: Any) -> list[str]:
    """The SDK's parameters must lead ours unchanged; ours may add keyword-only parameters with defaults."""
    their_params, our_params = _params(theirs), _params(ours)
    if our_params[:len(their_params)] != their_params:
        return [f"{where} {our_params} does not start with the SDK's {their_params}"]
    return [f"{where}: added parameter {extra[0]!r} must be keyword-only with a default"
            for extra in our_params[len(their_params):] if extra[1] != "KEYWORD_ONLY" or not extra[2]]


def _differences(name: str, excluding_known: bool = True) -> list[str]:
    ours, theirs = getattr(simulo, name), getattr(sdk, name)
    problems: list[str] = []
    problems += _param_problems(name, "constructor", theirs, ours)
    for extra in _params(ours)[len(_params(theirs)):]:
        if (name, extra[0]) not in EXTENSIONS:
            problems.append(f"added constructor parameter {extra[0]!r} is not listed in EXTENSIONS")
    their_defaults, our_defaults = _defaults(theirs), _defaults(ours)
    for param, default in their_defaults.items():
        if param in our_defaults and our_defaults[param] != default:
            problems.append(f"default {param}={our_defaults[param]!r} differs from the SDK's {default!r}")
    their_fields = _fields(theirs)
    our_fields = [f for f in _fields(ours) if (name, f) not in EXTENSIONS]
    if our_fields != their_fields:
        problems.append(f"fields {our_fields} are not the SDK's {their_fields}")
    their_members, our_members = _members(theirs), _members(ours)
    for member, kind in their_members.items():
        if member not in our_members:
            problems.append(f"{member!r} ({kind}) is missing")
        elif our_members[member] != kind and {our_members[member], kind} != {"property", "value"}:
            problems.append(f"{member!r} is a {our_members[member]}, the SDK's is a {kind}")
        elif kind in ("function", "classmethod", "staticmethod"):
            problems += _param_problems(name, member, getattr(theirs, member), getattr(ours, member))
    for member in set(our_members) - set(their_members):
        if (name, member) not in EXTENSIONS:
            problems.append(f"{member!r} is not the SDK's and not listed in EXTENSIONS")
    known = [m for (c, m) in KNOWN_DIFFERENCES if c == name and excluding_known]
    return [p for p in problems if not any(p.startswith((f"'{m}'", f"{m} ", f"{m}:")) for m in known)]


@pytest.mark.parametrize("name", OWN)
def test_our_value_type_has_the_sdk_shape(name: str) -> None:
    assert _differences(name) == []


def test_every_listed_extension_and_difference_is_real() -> None:
    for cls_name, member in KNOWN_DIFFERENCES:
        assert any(p.startswith((f"'{member}'", f"{member} ", f"{member}:"))
                   for p in _differences(cls_name, excluding_known=False)), f"{cls_name}.{member} matches now"
    for cls_name, member in EXTENSIONS:
        ours, theirs = getattr(simulo, cls_name), getattr(sdk, cls_name)
        in_ours = member in _members(ours) or member in inspect.signature(ours).parameters
        in_theirs = member in _members(theirs) or member in inspect.signature(theirs).parameters
        assert in_ours != in_theirs, f"{cls_name}.{member} is listed but both or neither class has it"


@pytest.mark.parametrize(("name", "kwargs"), [
    ("Pose", {"position": [0.5, 0.3, 0.7], "orientation": [1, 0, 0, 0]}),
    ("Pose", {"xyz": (1.0, 2.0, 3.0)}),
    ("Cuboid", {"name": "box", "size": (0.1, 0.2, 0.3)}),
    ("Sphere", {"name": "ball", "radius": 0.2}),
    ("Cylinder", {"name": "can", "radius": 0.1, "height": 0.4}),
    ("Cone", {"name": "cone"}),
    ("RigidPhysics", {"mass": 2.0, "kinematic": True, "activate_contact_sensors": True}),
    ("SurfaceMaterial", {"color": (0.1, 0.2, 0.3), "roughness": 0.9}),
    ("ActuatorGainsConfig", {"stiffness": 10.0, "damping": 1.0}),
    ("JointConfig", {"name": "j", "limits": (-1.0, 1.0)}),
    ("ArticulationConfig", {"fix_root_link": True}),
])
def test_the_same_call_gives_the_same_values(name: str, kwargs: dict[str, Any]) -> None:
    ours, theirs = getattr(simulo, name)(**kwargs), getattr(sdk, name)(**kwargs)
    for field in (f.name for f in dataclasses.fields(theirs)):
        mine, sdks = getattr(ours, field), getattr(theirs, field)
        if hasattr(sdks, "xyz"):
            mine, sdks = (mine.xyz, mine.quat_wxyz), (tuple(sdks.xyz), tuple(sdks.quat_wxyz))
        assert mine == (tuple(sdks) if isinstance(sdks, list) else sdks), (name, field)


def test_factories_and_transform_behave_as_the_sdks() -> None:
    assert simulo.Physics.rigid(mass=3.0) == simulo.RigidPhysics(mass=3.0)
    assert simulo.Collision.disabled().enabled is False and simulo.Collision.enabled() == simulo.Collision(True)
    assert simulo.Material.surface(roughness=0.2) == simulo.SurfaceMaterial(roughness=0.2)
    transform = simulo.Transform(translation=(2.75, 0, 0))
    assert (transform.translation, transform.rotation) == ((2.75, 0.0, 0.0), None)
    assert transform.add("item", at="Robot") is transform and transform.children == [("item", "Robot")]
    with pytest.raises(NotImplementedError, match="rigid"):
        simulo.Physics.deformable()


def test_validation_is_kept() -> None:
    with pytest.raises(simulo.SimuloValueError):
        simulo.Pose((0.0, float("nan"), 0.0))
    with pytest.raises(simulo.SimuloValueError):
        simulo.Material(color=(2.0, 0.0, 0.0))
    assert simulo.Cuboid("box", material=simulo.Material(color=(0.1, 0.2, 0.3))).color == (0.1, 0.2, 0.3)
    assert simulo.Physics.rigid(collision=simulo.Collision.enabled()).collision == simulo.Collision(True)
    with pytest.raises(NotImplementedError, match="not available in simulo-local yet"):
        simulo.Physics.rigid(collision=simulo.Collision.disabled())
