"""MuJoCo's OpenGL back end: chosen before ``mujoco`` is imported where the user has not chosen one.

The rule (:func:`choose_backend`) is checked with a stand-in for the child interpreter's try; the processes
below check what a user gets: a fresh interpreter with the environment they set.
"""

from __future__ import annotations

import ctypes.util
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("mujoco")

from simulo.engine.mujoco.gl_backend import choose_backend

#: What a fresh interpreter reports: MUJOCO_GL after the engine is imported, why, the module of the OpenGL
#: context MuJoCo took, and (when asked) whether a context is made or the error naming what to install.
_REPORT = """
import json, os, sys
import simulo.engine.mujoco.engine
import mujoco
from simulo.engine.mujoco.camera import render_rgb
from simulo.engine.mujoco.gl_backend import select_backend
from simulo.errors import MissingDependencyError
out = {"gl": os.environ.get("MUJOCO_GL"), "reason": select_backend().reason, "context": mujoco.GLContext.__module__}
if "render" in sys.argv:
    model = mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom size='0.2'/></worldbody></mujoco>")
    try:
        out["image"] = render_rgb(model, mujoco.MjData(model), 16, 16, [1, 0, 0], [0, 0, 0]).shape
    except MissingDependencyError as exc:
        out["error"] = str(exc)
print(json.dumps(out))
"""


def _fresh(render: bool, **environ: str) -> dict[str, object]:
    """What :data:`_REPORT` prints in an interpreter without a display, MUJOCO_GL or PYOPENGL_PLATFORM, plus
    ``environ``."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "MUJOCO_GL", "PYOPENGL_PLATFORM")}
    env.update(environ)
    done = subprocess.run([sys.executable, "-c", _REPORT, *(["render"] if render else [])], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


class _Tries:
    """Stand-in for the child interpreter: back ends in ``works`` make a context; every name asked is kept."""

    def __init__(self, *works: str) -> None:
        self.works = works
        self.asked: list[str] = []

    def __call__(self, name: str) -> str | None:
        self.asked.append(name)
        return None if name in self.works else f"{name} is missing"


@pytest.mark.parametrize("value", ["glfw", "osmesa", "egl", ""])
def test_a_mujoco_gl_the_user_set_is_kept_and_nothing_is_tried(value: str) -> None:
    tries = _Tries("egl", "osmesa")
    choice = choose_backend({"MUJOCO_GL": value}, "Linux", tries)
    assert choice.backend == value and tries.asked == []


@pytest.mark.parametrize(("environ", "system"), [({"DISPLAY": ":0"}, "Linux"),
                                                 ({"WAYLAND_DISPLAY": "wayland-0"}, "Linux"),
                                                 ({}, "Darwin"), ({}, "Windows")])
def test_with_a_display_or_off_linux_mujocos_default_stands(environ: dict[str, str], system: str) -> None:
    tries = _Tries("egl", "osmesa")
    choice = choose_backend(environ, system, tries)
    assert choice.backend is None and tries.asked == []


@pytest.mark.parametrize(("works", "chosen", "asked"), [(("egl", "osmesa"), "egl", ["egl"]),
                                                        (("osmesa",), "osmesa", ["egl", "osmesa"]),
                                                        ((), None, ["egl", "osmesa"])])
def test_without_a_display_egl_then_osmesa_whichever_makes_a_context(works: tuple[str, ...], chosen: str | None,
                                                                      asked: list[str]) -> None:
    tries = _Tries(*works)
    choice = choose_backend({}, "Linux", tries)
    assert choice.backend == chosen and tries.asked == asked
    if chosen is None:
        assert "MUJOCO_GL=egl: egl is missing; MUJOCO_GL=osmesa: osmesa is missing" in choice.reason


def test_a_pinned_pyopengl_platform_rules_out_the_other_back_end() -> None:
    tries = _Tries("egl", "osmesa")
    choice = choose_backend({"PYOPENGL_PLATFORM": "osmesa"}, "Linux", tries)
    assert choice.backend == "osmesa" and tries.asked == ["osmesa"]


@pytest.mark.skipif(ctypes.util.find_library("EGL") is None, reason="this machine has no EGL library")
def test_without_a_display_the_engine_selects_egl_and_renders() -> None:
    report = _fresh(render=True)
    assert report["gl"] == "egl" and report["context"] == "mujoco.egl", report
    assert report.get("image") == [16, 16, 3], report


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_users_mujoco_gl_is_not_overridden_even_where_egl_would_work() -> None:
    # GLFW without a display makes no context: the user's choice stands, and the error names what to do
    report = _fresh(render=True, MUJOCO_GL="glfw")
    assert report["gl"] == "glfw" and report["context"] == "mujoco.glfw", report
    error = str(report.get("error"))
    assert "MUJOCO_GL='glfw' is set" in error and "apt-get install libegl1" in error, report


def test_with_a_display_the_choice_is_left_to_mujoco() -> None:
    report = _fresh(render=False, DISPLAY=":99")
    assert report["gl"] is None and report["context"] == "mujoco.glfw", report
