"""``import simulo`` stays lean, and every public name resolves."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest


def run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter and return its stdout (fails the test on a non-zero exit)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_simulo_loads_no_heavy_module() -> None:
    out = run_python(
        "import sys, json\n"
        "import simulo\n"
        "print(json.dumps({'heavy': [m for m in ('pybullet', 'numpy', 'torch') if m in sys.modules],\n"
        "                  'version': simulo.__version__}))\n")
    result = json.loads(out)
    assert result["heavy"] == []
    assert result["version"]


def test_authoring_names_stay_lean_too() -> None:
    # building a scene description needs no engine and no numpy
    out = run_python(
        "import sys, json, simulo\n"
        "pose = simulo.Pose.from_xyz(0, 0, 1)\n"
        "scene = simulo.Scene(num_envs=2)\n"
        "scene.add(simulo.Terrain.plane(), at='/World/Ground', per_environment=False)\n"
        "print(json.dumps([m for m in ('pybullet', 'torch') if m in sys.modules]))\n")
    assert json.loads(out) == []


def test_every_public_name_resolves() -> None:
    out = run_python(
        "import json, simulo\n"
        "bad = {}\n"
        "for name in simulo.__all__:\n"
        "    try:\n"
        "        getattr(simulo, name)\n"
        "    except Exception as exc:\n"
        "        bad[name] = repr(exc)\n"
        "dir_ok = set(simulo.__all__) <= set(dir(simulo))\n"
        "print(json.dumps({'bad': bad, 'count': len(simulo.__all__), 'dir_ok': dir_ok}))\n")
    result = json.loads(out)
    assert result["bad"] == {}, f"names in simulo.__all__ that do not resolve: {result['bad']}"
    assert result["count"] >= 20 and result["dir_ok"]
    import simulo

    with pytest.raises(AttributeError, match="module 'simulo' has no attribute 'NoSuchThing'"):
        simulo.NoSuchThing


def test_core_names_are_the_runtime_classes() -> None:
    import simulo
    from simulo.sim.robot import Robot
    from simulo.sim.scene import Scene

    assert simulo.Robot is Robot and simulo.Scene is Scene
    assert issubclass(simulo.NotAttachedError, simulo.SimuloError)
    assert {"Robot", "Scene", "Simulation", "Asset", "Pose", "Transform", "Terrain", "Light", "Prop",
            "ActuatorGainsConfig", "SimuloError"} <= set(simulo.__all__)


@pytest.mark.skipif(importlib.util.find_spec("simulo.interfaces") is None, reason="simulo-interfaces not installed")
def test_simulo_interfaces_resolves_next_to_simulo() -> None:
    out = run_python(
        "import simulo, simulo.interfaces\n"
        "from simulo.interfaces.authoring.robot import RobotProtocol\n"
        "print(RobotProtocol.__name__, simulo.Robot.__module__)\n")
    assert out.split() == ["RobotProtocol", "simulo.sim.robot"]


def test_the_namespace_is_extended_as_pkgutil_extends_it() -> None:
    import pkgutil

    import simulo

    for name in ("simulo", "json", "no_such_package_here"):
        assert simulo._extend_path(["/nowhere"], name) == pkgutil.extend_path(["/nowhere"], name)


def test_import_simulo_imports_neither_typing_nor_pkgutil() -> None:
    out = run_python("import sys, simulo\nprint([m for m in ('typing', 'pkgutil') if m in sys.modules])\n")
    assert out.strip() == "[]"
