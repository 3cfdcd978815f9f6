"""The OpenGL back end MuJoCo renders through, chosen before the engine first imports ``mujoco``.

MuJoCo reads ``MUJOCO_GL`` once, when ``mujoco`` is imported, and by default draws through GLFW, which needs a
display. On Linux without one (``DISPLAY`` and ``WAYLAND_DISPLAY`` unset) and with ``MUJOCO_GL`` unset, the
engine sets ``MUJOCO_GL`` to the first of ``egl`` and ``osmesa`` that makes a context, which a short-lived child
interpreter tries (a failed attempt can abort a process, so the engine's own never makes one). Child processes
inherit the choice. A ``MUJOCO_GL`` the user set is never changed; where no back end makes a context it stays
unset and cameras raise :class:`~simulo.errors.MissingDependencyError` naming what to install. Physics never
needs a context.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

#: The variable MuJoCo reads its OpenGL back end from.
VARIABLE = "MUJOCO_GL"

#: Back ends that need no display, in the order they are tried: EGL (a GPU's driver or Mesa's), then OSMesa
#: (software).
HEADLESS = ("egl", "osmesa")

#: How long the child interpreter may take to make a context, seconds.
PROBE_TIMEOUT_S = 30.0

_PROBE = "import mujoco; mujoco.Renderer(mujoco.MjModel.from_xml_string('<mujoco/>'), 8, 8).close()"


@dataclass(frozen=True)
class GLChoice:
    """The back end in effect for this process and how it came to be.

    Attributes:
        backend: The ``MUJOCO_GL`` value in effect; None where it is unset (MuJoCo's default, GLFW).
        reason: Why, in words (an error message quotes it).
    """

    backend: str | None
    reason: str


def choose_backend(environ: Mapping[str, str], system: str, failure: Callable[[str], str | None]) -> GLChoice:
    """The back end for a process with environment ``environ`` on operating system ``system``.

    Args:
        environ: The process's environment variables.
        system: ``platform.system()``'s answer; only ``"Linux"`` has a headless choice to make.
        failure: Why back end ``name`` makes no context here, or None when it makes one.
    """
    if VARIABLE in environ:
        return GLChoice(environ[VARIABLE], f"{VARIABLE}={environ[VARIABLE]!r} is set")
    if system != "Linux":
        return GLChoice(None, f"MuJoCo's default back end on {system}")
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return GLChoice(None, "a display is set, so MuJoCo's default back end (GLFW)")
    pinned = environ.get("PYOPENGL_PLATFORM", "").strip().lower()
    failures = []
    for name in HEADLESS:
        why = f"PYOPENGL_PLATFORM={pinned!r} rules it out" if pinned and pinned != name else failure(name)
        if why is None:
            return GLChoice(name, f"no display, and {VARIABLE}={name} makes a context")
        failures.append(f"{VARIABLE}={name}: {why}")
    return GLChoice(None, "no display, and no headless back end makes a context (" + "; ".join(failures) + ")")


def context_failure(name: str) -> str | None:
    """Why MuJoCo's renderer cannot make a context with ``MUJOCO_GL=name`` (tried in a child interpreter), or
    None when it can."""
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE], env={**os.environ, VARIABLE: name},
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return f"no context within {PROBE_TIMEOUT_S:g} s"
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"


@functools.cache
def select_backend() -> GLChoice:
    """Choose the back end once per process and put it in ``MUJOCO_GL`` (before ``mujoco`` is imported).

    Where ``mujoco`` is already imported or not installed, nothing is tried: its choice is made or moot.
    """
    if "mujoco" in sys.modules:
        return GLChoice(os.environ.get(VARIABLE), "mujoco was imported before the engine, which keeps its choice")
    if importlib.util.find_spec("mujoco") is None:
        return GLChoice(None, "mujoco is not installed")
    choice = choose_backend(os.environ, platform.system(), context_failure)
    if choice.backend is not None and VARIABLE not in os.environ:
        os.environ[VARIABLE] = choice.backend
    return choice
