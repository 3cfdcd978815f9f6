"""Run as a script: load each URDF file named on the command line as the engine would, step it, and print
``OK <file>`` when every link with a <collision> got a collision shape (else ``NOSHAPE <file> <links>``) and
the robot also steps in a :class:`simulo.Simulation` with a finite pose (else ``NONFINITE <file>``).

A separate process, because a file that gets past the checks and is still bad may crash the interpreter.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pybullet as p

import simulo


def _load(file: Path, cid: int) -> str:
    asset = simulo.Asset.from_urdf_file(file)
    body = p.loadURDF(str(asset.urdf_path()), useFixedBase=True, physicsClientId=cid)
    for _ in range(10):
        p.stepSimulation(physicsClientId=cid)
    names = {p.getJointInfo(body, j, physicsClientId=cid)[12].decode(): j for j in range(
        p.getNumJoints(body, physicsClientId=cid))}
    names[p.getBodyInfo(body, physicsClientId=cid)[0].decode()] = -1
    text = asset.urdf_text
    missing = [name for name, index in names.items()
               if f'<link name="{name}">' in text and "<collision>" in text.split(f'<link name="{name}">')[1]
               .split("</link>")[0] and not p.getCollisionShapeData(body, index, physicsClientId=cid)]
    if missing:
        return f"NOSHAPE {file} {missing}"
    return f"OK {file}" if _steps_in_a_simulation(asset) else f"NONFINITE {file}"


def _steps_in_a_simulation(asset: simulo.Asset) -> bool:
    """Whether the robot also builds and steps in a simulo Simulation with its pose staying finite."""
    scene = simulo.Scene(num_envs=1)
    scene.add(simulo.Terrain.plane(), at="/World/ground", per_environment=False)
    robot = simulo.Robot(asset=asset, initial_pose=simulo.Pose(position=(0, 0, 0.5)))
    scene.add(robot, at="/World/Robot")
    with simulo.Simulation(scene) as sim:
        sim.step(20)
        return bool(np.isfinite(np.asarray(robot.state.pose)).all())


def main() -> None:
    cid = p.connect(p.DIRECT)
    for name in sys.argv[1:]:
        print(_load(Path(name), cid), flush=True)


if __name__ == "__main__":
    main()
