"""Seeded random OBJ and STL files: each is refused by the checks, or loads and steps in PyBullet (in a child
process, since a mesh that slipped through could crash it)."""

from __future__ import annotations

import random
import struct
import subprocess
import sys
from pathlib import Path

import simulo
from simulo.errors import UrdfError

from .files import mesh_link, robot


def _random_obj(rng: random.Random) -> bytes:
    lines = []
    vertices = 0
    for _ in range(rng.randint(0, 12)):
        if rng.random() < 0.55:
            coords = [rng.choice(["0", "1", "-2.5", "1e3", "nan", "inf", "x", "1e400"]) if rng.random() < 0.1
                      else f"{rng.uniform(-1, 1):.3f}" for _ in range(rng.choice([3, 3, 3, 2, 4]))]
            lines.append("v " + " ".join(coords))
            vertices += 1
        else:
            corners = [str(rng.randint(-vertices - 2, vertices + 2)) for _ in range(rng.choice([3, 3, 4, 2, 5]))]
            lines.append("f " + " ".join(corners))
    return ("\n".join(lines) + "\n").encode()


def _random_stl(rng: random.Random) -> bytes:
    count = rng.randint(0, 4)
    body = b"".join(struct.pack("<12fH", *(rng.uniform(-1, 1) for _ in range(12)), 0) for _ in range(count))
    header = b"x".ljust(80, b" ") + struct.pack("<I", count + rng.choice([0, 0, 0, 1, -1 if count else 0]))
    data = header + body
    return data[: rng.randint(0, len(data))] if rng.random() < 0.2 else data


def test_random_meshes_are_refused_or_load_and_step(tmp_path: Path) -> None:
    rng = random.Random(1234)
    accepted: list[Path] = []
    refused = 0
    for k in range(60):
        folder = tmp_path / f"case{k}"
        folder.mkdir()
        suffix = "obj" if k % 2 == 0 else "stl"
        (folder / f"m.{suffix}").write_bytes(_random_obj(rng) if suffix == "obj" else _random_stl(rng))
        (folder / "r.urdf").write_text(robot(mesh_link("a", f"m.{suffix}", collision=rng.random() < 0.7)))
        try:
            simulo.Asset.from_urdf_file(folder / "r.urdf")
        except UrdfError as exc:
            assert f"m.{suffix}" in str(exc)
            refused += 1
            continue
        accepted.append(folder / "r.urdf")
    assert refused > 10 and len(accepted) > 10  # the generator covers both sides
    script = Path(__file__).with_name("load_check.py")
    done = subprocess.run([sys.executable, str(script), *map(str, accepted)], capture_output=True, text=True,
                          timeout=300, check=False)
    results = [line for line in done.stdout.splitlines() if line.startswith(("OK ", "NOSHAPE ", "NONFINITE "))]
    assert done.returncode == 0, (done.returncode, results[-1:], done.stderr[-1500:])
    assert results == [f"OK {file}" for file in accepted]
