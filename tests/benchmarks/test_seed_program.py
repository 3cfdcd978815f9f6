"""The seed program rebuilt from the seed text prints the seed's own lines.

Skipped when the seed file is not next to the repository (``../shared/seeds``).
"""

from __future__ import annotations

import ast
import importlib.util
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from simulo.apps.pick_place.ik import solve_ik
from simulo.apps.pick_place.motion import linear_path
from simulo.errors import SimuloValueError, UnreachableError

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT.parent / "shared" / "seeds" / "000_e63e4e11bcdcc457.txt"

pytestmark = pytest.mark.skipif(not SEED.is_file(), reason=f"seed text not present at {SEED}")


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_seed_program", ROOT / "benchmarks" / "_seed_program.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _normalise(line: str) -> str:
    return " ".join(line.split())


def test_rebuilt_program_prints_the_seed_lines(tmp_path: Path) -> None:
    builder = _builder()
    program = tmp_path / "pick_place.py"
    program.write_text(builder.build_seed_program(SEED), encoding="utf-8")
    expected = builder.seed_expected_lines(SEED)
    assert len(expected) == 9
    assert expected[0].startswith("start:") and expected[-1].startswith("simulated")
    run = subprocess.run(
        [sys.executable, str(program)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr
    assert [_normalise(line) for line in run.stdout.splitlines()] == [_normalise(line) for line in expected]


def _seed_functions() -> dict:
    """The seed's arm constants and ``arm_ik``, taken from the rebuilt program without running it."""
    tree = ast.parse(_builder().build_seed_program(SEED))
    wanted = [
        node
        for node in tree.body
        if (isinstance(node, ast.FunctionDef) and node.name == "arm_ik")
        or (
            isinstance(node, ast.Assign)
            and any(isinstance(t, (ast.Name, ast.Tuple)) for t in node.targets)
            and ast.unparse(node.targets[0]) in ("H_SHOULDER", "(L_UPPER, L_FORE)", "L_UPPER, L_FORE", "L_HAND")
        )
    ]
    assert len(wanted) == 4
    namespace: dict = {"math": math}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), str(SEED), "exec"), namespace)
    return namespace


def test_solve_ik_is_bit_identical_to_the_seed() -> None:
    arm_ik = _seed_functions()["arm_ik"]
    rng = np.random.default_rng(7)
    checked = 0
    for x, y, z, yaw in rng.uniform([-0.6, -0.6, 0.0, -3.0], [0.6, 0.6, 0.5, 3.0], size=(2000, 4)):
        try:
            ours = solve_ik(x, y, z, yaw)
        except UnreachableError:
            continue
        assert list(ours) == arm_ik(x, y, z, yaw)
        checked += 1
    assert checked > 500


def test_seed_move_targets_are_bit_identical() -> None:
    arm_ik = _seed_functions()["arm_ik"]
    dt = 1.0 / 240.0
    start, goal, yaw = np.array([0.42, -0.12, 0.15]), np.array([0.25, 0.35, 0.15]), 0.3
    n = int(2.0 / dt)
    seed_targets = []
    for i in range(1, n + 1):
        s = i / n
        s = 3 * s * s - 2 * s**3
        seed_targets.append(arm_ik(*((1 - s) * start + s * goal), yaw))
    ours = [list(solve_ik(*point, yaw)) for point in linear_path(start, goal, 2.0, dt)]
    assert ours == seed_targets


def test_builder_reports_a_missing_program(tmp_path: Path) -> None:
    builder = _builder()
    text = tmp_path / "seed.txt"
    text.write_text("no code here\n", encoding="utf-8")
    with pytest.raises(SimuloValueError, match="no line starts with"):
        builder.build_seed_program(text)
    with pytest.raises(SimuloValueError, match="does not exist"):
        builder.build_seed_program(tmp_path / "absent.txt")


def test_reindent_rules() -> None:
    flat = [
        "def f(a):",
        '"""Doc."""',
        "if a < 0:",
        "raise ValueError('x')",
        "total = (a +",
        "1)",
        "for i in range(2):",
        "total += i",
        "step(60)",
        "return total",
        "with open(__file__) as fh:",
        "first = fh.readline()",
        "TEXT = '''",
        "  kept: as is",
        "'''",
        "def step(n):",
        "return n",
        "out = f(2)",
    ]
    source = _builder().reindent(flat)
    namespace: dict = {"__file__": __file__}
    exec(compile(source, "<reindent>", "exec"), namespace)
    assert namespace["out"] == 4  # (2 + 1) + 0 + 1
    assert namespace["TEXT"] == "\n  kept: as is\n"
    assert "    first = fh.readline()" in source.splitlines()
