"""Camera frames per second through the ``simulo`` contract against raw ``getCameraImage`` on the same worlds.

The scene is the one of the SDK's cartpole-from-camera sample: a cartpole per environment, a shared ground
plane, and a fixed policy camera per environment 5 m behind the cart (focal length 24 mm, clipping 0.1 to
20 m). Each timed frame steps the physics once and then takes every environment's image:

* contract: ``camera.read_rgb()`` (num_envs, H, W, 3) uint8;
* raw: for each environment, ``pybullet.getCameraImage`` with the TinyRenderer in that environment's world,
  with the same view and projection matrices, its RGBA buffer reshaped into a (num_envs, H, W, 3) array.

Two layouts: ``envs_per_world=1`` (one PyBullet world per environment; both loops draw the same picture,
checked bit for bit: column ``same``) and the engine's default bound, where environments share a world: the
contract hides the neighbours' visual shapes while it draws each camera (alpha 0), the raw loop draws
whatever is in the world, neighbours included (``same`` is then ``-``).

Timing: both loops run on the same simulation, in alternating blocks (contract, raw, raw, contract, ...) of
``--frames`` frames for ``--repeats`` blocks with ``time.perf_counter``. The frames/s columns give each
loop's fastest block (camera images per second, environments counted), ``ratio`` the median of back-to-back
block pairs' ratios and ``spread`` the range of those ratios over their median. ``ms/step`` is the
contract's cost of one policy step's images per environment.

Goal: contract/raw >= 0.9.

Run::

    python benchmarks/cameras.py            # 64x64 and 100x100, N = 1, 16, 64
    python benchmarks/cameras.py --quick    # tiny sizes (for the tests)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import pybullet as p

import simulo
from simulo.engine.registry import engine_factory

DEFAULT_ENVS_PER_WORLD = engine_factory("pybullet").default_envs_per_world


def build(num_envs: int, size: int, envs_per_world: int) -> tuple[simulo.Simulation, simulo.Camera]:
    """The cartpole-from-camera scene at ``size`` x ``size`` pixels."""
    scene = simulo.Scene(num_envs=num_envs, env_spacing=20.0)
    scene.add(simulo.Terrain.plane(name="ground", size=1000.0), at="/", per_environment=False)
    scene.add(simulo.Robot(simulo.Asset.from_registry("simulo/robot/cartpole:v1")), at="/World/Robot")
    camera = simulo.Camera(width=size, height=size, purpose="policy",
                           offset=simulo.SensorOffset(pos=(-5.0, 0.0, 2.0), rot=(1.0, 0.0, 0.0, 0.0),
                                                      convention="world"),
                           spawn=simulo.CameraSpawnConfig(clipping_range=(0.1, 20.0)))
    scene.add(camera, at="/World/policy_camera")
    return simulo.Simulation(scene, dt=1.0 / 120.0, envs_per_world=envs_per_world), camera


def raw_draw(sim: simulo.Simulation, camera: simulo.Camera) -> Callable[[], np.ndarray]:
    """Every environment's image by ``getCameraImage`` in its own world (no physics step)."""
    engine = sim._engine  # the benchmark draws in the simulation's own worlds
    poses = np.asarray(camera.sensor_poses(camera=True))
    near, far = camera.spawn.clipping_range
    proj = p.computeProjectionMatrixFOV(camera.spawn.vertical_fov_deg(camera.width, camera.height),
                                        camera.width / camera.height, near, far)
    views = []
    for pose in poses:
        rot = np.asarray(p.getMatrixFromQuaternion([pose[4], pose[5], pose[6], pose[3]])).reshape(3, 3)
        views.append(p.computeViewMatrix(pose[:3].tolist(), (pose[:3] + rot[:, 0]).tolist(), rot[:, 2].tolist()))
    clients = [engine.env_world[i].cid for i in range(sim.num_envs)]
    w, h = camera.width, camera.height

    def draw() -> np.ndarray:
        out = np.empty((sim.num_envs, h, w, 3), dtype=np.uint8)
        for i, cid in enumerate(clients):
            img = p.getCameraImage(w, h, views[i], proj, renderer=p.ER_TINY_RENDERER,
                                   flags=p.ER_NO_SEGMENTATION_MASK, physicsClientId=cid)
            out[i] = np.reshape(np.asarray(img[2], dtype=np.uint8), (h, w, 4))[:, :, :3]
        return out

    return draw


def contract_loop(sim: simulo.Simulation, camera: simulo.Camera) -> Callable[[], np.ndarray]:
    """One contract frame: a physics step, then ``camera.read_rgb()``."""
    def frame() -> np.ndarray:
        sim.step(1)
        return np.asarray(camera.read_rgb())

    return frame


def _block(frame: Callable[[], np.ndarray], frames: int) -> float:
    start = time.perf_counter()
    for _ in range(frames):
        frame()
    return time.perf_counter() - start


def measure(num_envs: int, size: int, envs_per_world: int, frames: int, repeats: int) -> dict[str, object]:
    """Frames per second of both loops on one simulation, in alternating blocks."""
    sim, camera = build(num_envs, size, envs_per_world)
    try:
        draw = raw_draw(sim, camera)
        contract = contract_loop(sim, camera)

        def raw() -> np.ndarray:
            sim.step(1)
            return draw()

        same = "-"
        if envs_per_world == 1:
            sim.step(1)
            same = str(bool(np.array_equal(np.asarray(camera.read_rgb()), draw())))
        contract(), raw()  # warm up
        times: dict[str, list[float]] = {"contract": [], "raw": []}
        for r in range(repeats):
            order = (("contract", contract), ("raw", raw)) if r % 2 == 0 else (("raw", raw), ("contract", contract))
            for name, loop in order:
                times[name].append(_block(loop, frames))
        ratios = [t_raw / t_con for t_con, t_raw in zip(times["contract"], times["raw"])]
        ratio = statistics.median(ratios)
        images = frames * num_envs
        return {"N": num_envs, "size": size, "per_world": envs_per_world,
                "contract/s": images / min(times["contract"]), "raw/s": images / min(times["raw"]),
                "ratio": ratio, "spread": (max(ratios) - min(ratios)) / ratio,
                "ms/step": 1000.0 * min(times["contract"]) / images, "same": same}
    finally:
        sim.close()


def main(argv: list[str] | None = None) -> int:
    """Print the table; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 100])
    parser.add_argument("--envs", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--frames", type=int, default=10, help="frames per timed block")
    parser.add_argument("--repeats", type=int, default=6, help="timed blocks per loop")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the tests")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.envs, args.frames, args.repeats = [16], [1, 2], 2, 2
    print(f"{'N':>4} {'size':>5} {'per_world':>9} {'contract/s':>11} {'raw/s':>9} {'ratio':>6} {'spread':>7} "
          f"{'ms/step':>8} {'same':>5}")
    for size in args.sizes:
        for n in args.envs:
            for per_world in sorted({1, min(n, DEFAULT_ENVS_PER_WORLD)}):
                row = measure(n, size, per_world, args.frames, args.repeats)
                print(f"{row['N']:>4} {row['size']:>5} {row['per_world']:>9} {row['contract/s']:>11.0f} "
                      f"{row['raw/s']:>9.0f} {row['ratio']:>6.2f} {row['spread']:>7.2f} {row['ms/step']:>8.2f} "
                      f"{row['same']:>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
