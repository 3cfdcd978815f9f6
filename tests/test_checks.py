"""simulo.checks: one definition of "an integer" and "a real number", and the messages that refuse others."""

from __future__ import annotations

import math

import pytest

from simulo.checks import check_int, check_real, describe_int, describe_real, is_int, is_real
from simulo.errors import SceneError, SimuloValueError


@pytest.mark.parametrize("value", [0, 1, -3, 10**20])
def test_is_int_accepts_python_ints(value: int) -> None:
    assert is_int(value)


@pytest.mark.parametrize("value", [True, False, 1.0, "1", None, [1], float("nan")])
def test_is_int_refuses_bools_floats_and_others(value: object) -> None:
    assert not is_int(value)


def test_is_int_bounds_are_inclusive() -> None:
    assert is_int(1, low=1) and not is_int(0, low=1)
    assert is_int(28, high=28) and not is_int(29, high=28)
    assert is_int(8, 8, 4096) and is_int(4096, 8, 4096) and not is_int(4097, 8, 4096)


@pytest.mark.parametrize("value", [0, 1, -2.5, 1e300, 3.0])
def test_is_real_accepts_ints_and_floats(value: float) -> None:
    assert is_real(value)


@pytest.mark.parametrize("value", [True, False, "1.0", None, (1.0,), complex(1, 0)])
def test_is_real_refuses_bools_strings_and_others(value: object) -> None:
    assert not is_real(value)


def test_is_real_refuses_nan_always_and_infinity_unless_asked() -> None:
    assert not is_real(float("nan"))
    assert not is_real(float("nan"), finite=False)
    assert not is_real(math.inf)
    assert not is_real(-math.inf)
    assert is_real(math.inf, finite=False)
    assert is_real(math.inf, low=0, finite=False)


def test_is_real_open_and_closed_bounds() -> None:
    assert is_real(0, low=0) and not is_real(0, low=0, low_open=True)
    assert is_real(1e-12, low=0, low_open=True)
    assert is_real(120, 0, 120) and not is_real(120, 0, 120, high_open=True)
    assert not is_real(-0.1, low=0)
    assert not is_real(120.5, high=120)


def test_describe_int_words() -> None:
    assert describe_int() == "an integer"
    assert describe_int(1) == "an integer >= 1"
    assert describe_int(high=5) == "an integer <= 5"
    assert describe_int(1, 28) == "an integer from 1 to 28"


def test_describe_real_words() -> None:
    assert describe_real() == "a finite number"
    assert describe_real(finite=False) == "a number"
    assert describe_real(0) == "a finite number >= 0"
    assert describe_real(0, low_open=True) == "a finite number > 0"
    assert describe_real(high=1.5, high_open=True) == "a finite number < 1.5"
    assert describe_real(0, 120, low_open=True) == "a number in (0, 120]"
    assert describe_real(0.1, 8) == "a number in [0.1, 8]"


def test_check_int_returns_the_value() -> None:
    assert check_int(3, "num_envs", low=1) == 3


@pytest.mark.parametrize(("value", "message"), [
    (0, "num_envs must be an integer >= 1, got 0"),
    (True, "num_envs must be an integer >= 1, got True"),
    (2.0, "num_envs must be an integer >= 1, got 2.0"),
    ("4", "num_envs must be an integer >= 1, got '4'"),
])
def test_check_int_message_names_the_value_and_what_was_expected(value: object, message: str) -> None:
    with pytest.raises(SimuloValueError) as info:
        check_int(value, "num_envs", low=1)
    assert str(info.value) == message


def test_check_int_range_message_and_error_class() -> None:
    with pytest.raises(SceneError) as info:
        check_int(100, "envs_per_world", 1, 28, error=SceneError)
    assert str(info.value) == "envs_per_world must be an integer from 1 to 28, got 100"


def test_check_real_returns_a_float() -> None:
    value = check_real(2, "mass", low=0, low_open=True)
    assert value == 2.0 and isinstance(value, float)


@pytest.mark.parametrize(("kwargs", "value", "message"), [
    ({"low": 0}, -1, "RigidPhysics.friction must be a finite number >= 0, got -1"),
    ({"low": 0}, float("nan"), "RigidPhysics.friction must be a finite number >= 0, got nan"),
    ({"low": 0}, math.inf, "RigidPhysics.friction must be a finite number >= 0, got inf"),
    ({"low": 0, "low_open": True}, 0, "RigidPhysics.friction must be a finite number > 0, got 0"),
    ({}, False, "RigidPhysics.friction must be a finite number, got False"),
    ({"low": 0, "high": 120, "low_open": True}, 0, "RigidPhysics.friction must be a number in (0, 120], got 0"),
])
def test_check_real_message_names_the_value_and_what_was_expected(
    kwargs: dict[str, object], value: object, message: str
) -> None:
    with pytest.raises(SimuloValueError) as info:
        check_real(value, "RigidPhysics.friction", **kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_check_real_infinite_allowed_when_asked() -> None:
    assert check_real(math.inf, "limit", low=0, finite=False) == math.inf
