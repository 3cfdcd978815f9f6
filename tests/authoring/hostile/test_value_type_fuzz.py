"""Property test over the public value types' constructors: any value for any one parameter gives a value or a
SimuloError, never another exception (issue 28: a wrong type may be refused, not crash later)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simulo
from simulo.errors import SimuloError

TYPES = ["Material", "SurfaceMaterial", "RigidPhysics", "LightConfig", "DistantLight", "DomeLight", "GroundPlane",
         "SubTerrainConfig", "RoughTerrain", "Cone", "Cuboid", "Sphere", "Cylinder", "ActuatorGainsConfig",
         "ArticulationConfig", "JointConfig", "MotorGainsConfig", "ObjectVariants", "Pose"]

#: A valid value for each required parameter, so that one other parameter at a time is fuzzed.
REQUIRED: dict[str, Any] = {"name": "item", "type": "flat", "options": [simulo.Sphere(name="a", radius=0.1),
                                                                       simulo.Sphere(name="b", radius=0.2)]}

HOSTILE = st.one_of(
    st.sampled_from([float("nan"), float("inf"), -float("inf"), -1, 0, -1e300, 1e300, 2**70, True, None, "", "x",
                     (), [], {}, [float("nan")] * 3, (1.0, 2.0), object()]),
    st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.text(max_size=4),
    st.lists(st.floats(allow_nan=True), max_size=5))


def _parameters(name: str) -> list[inspect.Parameter]:
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p for p in inspect.signature(getattr(simulo, name)).parameters.values() if p.kind in kinds]


@pytest.mark.parametrize("name", TYPES)
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_value_of_one_parameter_gives_a_value_or_a_simulo_error(name: str, data: st.DataObject) -> None:
    parameters = _parameters(name)
    chosen = data.draw(st.sampled_from(parameters), label="parameter")
    value = data.draw(HOSTILE, label="value")
    required = {p.name: REQUIRED[p.name] for p in parameters
                if p.default is inspect.Parameter.empty and p.name != chosen.name}
    try:
        getattr(simulo, name)(**required, **{chosen.name: value})
    except SimuloError:
        pass
