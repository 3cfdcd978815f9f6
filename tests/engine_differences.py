"""Where the engines differ: the one table of behaviour tests whose outcome depends on the engine.

The behaviour suites run every test once per engine through one ``engine`` fixture: ``tests/sim/contract``
(PyBullet, MuJoCo, MuJoCo Warp and a mock), ``tests/sim/sensors``, ``tests/sim/controllers`` and
``tests/sim/test_properties_physics.py`` (PyBullet, MuJoCo and MuJoCo Warp, the last on Warp's CPU device where
the ``gpu`` extra is installed). Nothing is skipped for an engine. A test named in :data:`DIFFERENCES` for an
engine must end there exactly as its entry says: with that exception, its message matching ``match``. If it
passes there, or fails in another way, it fails, so an entry cannot outlive the difference it names.
``tests/sim/conftest.py`` applies the table; docs/engines.md explains it to users.

MuJoCo Warp simulates the MuJoCo engine's models with MuJoCo's rules, so MuJoCo's differences from PyBullet are
its differences too; its entries of its own are the features it refuses
(``simulo.engine.mujoco_warp.unsupported.UNSUPPORTED``).
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from simulo.errors import MissingDependencyError

#: The MuJoCo engine and MuJoCo Warp, which shares its models and their rules.
MUJOCO_RULES = ("mujoco", "mujoco_warp")

#: The engines the sensor, controller and property suites run on (the contract suite adds its mock); MuJoCo Warp
#: where its package is installed (the ``gpu`` extra, which CI installs).
ENGINES = ("pybullet", "mujoco") + (("mujoco_warp",) if importlib.util.find_spec("mujoco_warp") else ())


@functools.cache
def mujoco_cannot_render() -> bool:
    """Whether MuJoCo's renderer finds no OpenGL context (EGL or OSMesa) on this machine (asked as the engine
    asks: a second try after a failure may abort the process)."""
    from simulo.engine.mujoco.camera import can_render

    return not can_render()


def _always() -> bool:
    return True


@dataclass(frozen=True)
class Difference:
    """One behaviour that one engine does not share, and how the test shows it there.

    Attributes:
        name: Short name of the difference (docs/engines.md uses the same words).
        engines: The engines that differ.
        tests: Regular expression searched in ``<file>::<test name with parameters>``.
        raises: The exception the test ends with on that engine.
        match: Regular expression its message must match.
        reason: Why the engine behaves so.
        applies: Whether the difference holds on this machine (default: always).
    """

    name: str
    engines: tuple[str, ...]
    tests: str
    raises: type[BaseException]
    match: str
    reason: str
    applies: Callable[[], bool] = _always


_RENDERING = (r"test_camera\.py::test_(a_box_appears|depth_is|each_environment_sees|a_shared_camera|look_at_points|"
              r"a_camera_on_a_robot|images_are_redrawn)|test_policy_frames\.py::")

DIFFERENCES: tuple[Difference, ...] = (
    Difference("cameras need OpenGL", MUJOCO_RULES, _RENDERING, MissingDependencyError,
               r"no context could be made here .*MUJOCO_GL=egl .*apt-get install libegl1.*MUJOCO_GL=osmesa",
               "MuJoCo draws through OpenGL (EGL or OSMesa); PyBullet's TinyRenderer needs none",
               mujoco_cannot_render),
    Difference("friction combines by the larger value", MUJOCO_RULES,
               r"test_properties_physics\.py::test_friction_decides_whether_a_pushed_box_slips", AssertionError,
               r"Not equal to tolerance",
               "MuJoCo's contact takes the larger of the two geoms' friction (the ground's 1.0 holds a box of 0.1); "
               "PyBullet multiplies them"),
    Difference("restitution mixes the two contact springs", MUJOCO_RULES,
               r"test_properties_physics\.py::test_restitution_makes_a_dropped_ball_bounce", AssertionError,
               r"assert np\.float64\(0\.3\d*\) < 0\.06",
               "MuJoCo averages the two geoms' contact springs, so a ground of restitution 1 bounces a ball of 0; "
               "PyBullet multiplies the coefficients"),
    Difference("gravity per environment", MUJOCO_RULES,
               r"test_properties_physics\.py::test_gravity_refused_when_it_would_split_a_world",
               pytest.fail.Exception, r"DID NOT RAISE",
               "every MuJoCo environment is its own MjData with its own model's gravity: there is no world to split"),
    Difference("a free wrist roll makes the last millimetre chaotic", MUJOCO_RULES,
               r"test_operational_space\.py::test_position_only_without_decoupling_converges\[mujoco(_warp)?\]",
               AssertionError, r"< 0\.001",
               "a position-only OSC leaves the pick arm's wrist roll and fingers passive; the tcp paths agree within "
               "0.1 mm for 160 steps, then part, and after 480 steps the tcp is 1.12 mm off (PyBullet: 0.80 mm), "
               "against a 1 mm check"),
    Difference("a partial-decoupling task term on the threshold", MUJOCO_RULES,
               r"test_operational_space\.py::test_efforts_are_the_documented_law\[mujoco(_warp)?-partial\]",
               AssertionError, r"assert np\.float64\(0\.99\d*\) > 1\.0",
               "the test's check that the task term is not negligible: 0.993 N m with MuJoCo's inertias (within "
               "1.4 % of PyBullet's), 1.015 N m on PyBullet, against a threshold of 1.0"),
    Difference("centres of mass and armature are editable", MUJOCO_RULES,
               r"test_properties_physics\.py::test_what_pybullet_cannot_change_is_refused",
               pytest.fail.Exception, r"DID NOT RAISE",
               "MuJoCo's model keeps each body's centre of mass and each joint's armature as editable fields"),
)


def expected(test_id: str, engine: str) -> Difference | None:
    """The difference the table names for test ``<file>::<name>`` on ``engine`` (that holds here), if any."""
    for difference in DIFFERENCES:
        if engine in difference.engines and re.search(difference.tests, test_id) and difference.applies():
            return difference
    return None


def mismatch(difference: Difference, engine: str, error: BaseException | None) -> str | None:
    """Why the test's end ``error`` on ``engine`` (None: it passed) is not the one ``difference`` names; None when
    it is."""
    wanted = f"{difference.raises.__name__} matching {difference.match!r}"
    if error is None:
        return (f"engine difference {difference.name!r} ({engine}) expects {wanted}, but the test "
                "passed: remove its entry from tests/engine_differences.py")
    if not isinstance(error, difference.raises) or not re.search(difference.match, str(error), re.DOTALL):
        return (f"engine difference {difference.name!r} ({engine}) expects {wanted}, got "
                f"{type(error).__name__}: {error}")
    return None
