"""Property tests: any text, any attribute value and any mesh bytes give a model or a clear refusal, never
another exception; the inertia rule agrees with the eigenvalues numpy computes."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulo.authoring.inertia import inertia_problem
from simulo.authoring.meshes import check_mesh_file
from simulo.authoring.urdf import check_urdf
from simulo.authoring.urdf_model import UrdfModel
from simulo.errors import UrdfError

from .files import link, revolute, robot

_FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow])
_VALUES = st.one_of(
    st.text(max_size=40),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**400), max_value=10**400).map(str),
    st.sampled_from(["nan", "-inf", "1e309", "1e-400", "0x10", "1_000", " 1 ", "", "1 2 3", "$(optenv X 1)",
                     "$(find pkg)", "&amp;", "\u00e9", "0 0 0"]),
)
_BOX = '<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>'
_TEMPLATE = robot(link("a", _BOX), link("b", _BOX), revolute("j", "a", "b"))
_SLOTS = ['size="0.1 0.1 0.1"', 'value="1"', 'ixx="0.01"', 'xyz="0 0 0.1"', 'xyz="0 0 1"', 'lower="-1"',
          'upper="1"', 'effort="1"', 'velocity="1"', 'type="revolute"', 'link="a"', 'name="j"']


def _check(text: str) -> UrdfModel | UrdfError:
    try:
        return check_urdf(text)
    except UrdfError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
        return exc


@_FUZZ
@given(st.text(max_size=300))
def test_any_text_is_a_model_or_a_urdf_error(text: str) -> None:
    _check(text)


@_FUZZ
@given(st.sampled_from(_SLOTS), _VALUES)
def test_any_attribute_value_is_a_model_or_a_urdf_error_naming_it(slot: str, value: str) -> None:
    name = slot.split("=")[0]
    quoted = value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    result = _check(_TEMPLATE.replace(slot, f'{name}="{quoted}"', 1))
    if isinstance(result, UrdfError):
        assert result.problems[0].startswith("line ")


@_FUZZ
@given(st.sampled_from([".stl", ".obj", ".dae"]), st.binary(max_size=400))
def test_any_mesh_bytes_give_a_verdict_and_no_exception(suffix: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"m{suffix}"
        path.write_bytes(data)
        checked = check_mesh_file(path)
    assert checked.problem is None or checked.problem.strip()


_MOMENT = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@_FUZZ
@given(st.tuples(_MOMENT, _MOMENT, _MOMENT, _MOMENT, _MOMENT, _MOMENT))
def test_inertia_rule_matches_the_eigenvalues(values: tuple[float, ...]) -> None:
    ixx, ixy, ixz, iyy, iyz, izz = values
    matrix = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    scale = float(np.abs(matrix).max()) or 1.0
    smallest = float(np.linalg.eigvalsh(matrix / scale).min())
    problem = inertia_problem(*values)
    if smallest < -1e-6:
        assert problem is not None
    elif smallest > 1e-6:
        assert problem is None
