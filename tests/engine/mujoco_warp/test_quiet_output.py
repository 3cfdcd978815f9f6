"""A simulation on the MuJoCo Warp engine prints nothing of Warp's own: no banner, no line per kernel module.

Left at its default, Warp prints its start-up banner and one line for every kernel module it loads or compiles
(about a hundred for one step of a MuJoCo Warp model), which would bury an app's output. The package sets Warp's
log level to warnings.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("mujoco_warp")

_PROGRAM = """
import simulo
scene = simulo.Scene(num_envs=2)
scene.add(simulo.Terrain.plane(), at="/World/Ground", per_environment=False)
scene.add(simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1")), at="/World/Cartpole")
sim = simulo.Simulation(scene, engine="mujoco_warp")
for _ in range(3):
    sim.step()
print("stepped", sim.num_envs)
"""


def test_a_warp_simulation_prints_only_the_apps_output() -> None:
    run = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "SIMULO_WARP_DEVICE": "cpu"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["stepped 2"]
    # (on a machine without a GPU, Warp's C library still warns once on stderr that it found no CUDA driver)
    assert "Module " not in run.stderr and "initialized" not in run.stderr
