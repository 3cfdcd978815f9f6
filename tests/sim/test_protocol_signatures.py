"""Scene, group, prop and robot members match simulo-interfaces' Protocols parameter by parameter (name, kind,
has-default), the SDK's own conformance rule; the optional capability Protocols included."""

from __future__ import annotations

import inspect

import pytest

import simulo
from simulo.sim.scene import SceneGroup
from simulo.sim.variants import VariantProp

properties = pytest.importorskip("simulo.interfaces.authoring.properties")
scene_protocols = pytest.importorskip("simulo.interfaces.authoring.scene")
prop_protocols = pytest.importorskip("simulo.interfaces.authoring.prop")

PAIRS = [
    (scene_protocols.SceneProtocol, simulo.Scene, {"add"}),  # add also takes the variants extension
    (scene_protocols.SceneVariantsProtocol, simulo.Scene, set()),
    (scene_protocols.SceneGroupProtocol, SceneGroup, set()),
    (properties.SceneGravityProtocol, simulo.Scene, set()),
    (properties.RobotPropertiesProtocol, simulo.Robot, set()),
    (properties.ExternalForceProtocol, simulo.Robot, set()),
    (properties.PropPropertiesProtocol, simulo.Prop, set()),
    (properties.ExternalForceProtocol, simulo.Prop, set()),
    (prop_protocols.VariantPropProtocol, VariantProp, set()),
]


def _params(func: object) -> list[tuple[str, object, bool]]:
    sig = inspect.signature(func)  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default is not inspect.Parameter.empty) for p in sig.parameters.values()]


@pytest.mark.parametrize(("proto", "cls", "extended"), PAIRS, ids=lambda v: getattr(v, "__name__", ""))
def test_members_match_the_protocol(proto, cls, extended) -> None:
    checked = 0
    for name, member in vars(proto).items():
        if name.startswith("_") or not callable(member):
            continue
        checked += 1
        mine = inspect.getattr_static(cls, name)
        assert callable(mine), (proto.__name__, name)
        theirs, ours = _params(member), _params(mine)
        if name in extended:
            ours = ours[:len(theirs)]
        assert ours == theirs, (proto.__name__, name, ours, theirs)
    assert checked, proto.__name__
    for name in ("path", "variant_index", "root", "env_origins"):
        if isinstance(vars(proto).get(name), property):
            assert isinstance(inspect.getattr_static(cls, name), property), (proto.__name__, name)
