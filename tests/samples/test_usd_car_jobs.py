"""A USD robot through `simulo run`: the SDK samples' F1TENTH car, published as ``robot/f1tenth:v1``, trains a few
iterations and its policy is evaluated, on both engines (``../shared/peer/f1tenth.usd``; skipped without it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'simulo-local[usd]')")

APP = Path(__file__).parent / "usd_car"
F1TENTH = Path(__file__).resolve().parents[3] / "shared" / "peer" / "f1tenth.usd"


def _simulo_run(engine: str, assets: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "SIMULO_ENGINE": engine, "SIMULO_ASSET_PATH": str(assets)}
    return subprocess.run([sys.executable, "-m", "simulo.cli.main", "run", *argv, "--json"], capture_output=True,
                          text=True, timeout=300, env=environment)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["pybullet", "mujoco"])
def test_the_usd_car_trains_and_its_policy_is_evaluated(tmp_path: Path, engine: str) -> None:
    if not F1TENTH.is_file():
        pytest.skip(f"the F1TENTH sample is not here ({F1TENTH}); it lives in ../shared/peer/ beside the checkout")
    if engine == "mujoco":
        pytest.importorskip("mujoco")
    assets = tmp_path / "assets"
    (assets / "robot" / "f1tenth").mkdir(parents=True)
    shutil.copy(F1TENTH, assets / "robot" / "f1tenth" / "f1tenth.usd")
    (assets / "robot" / "f1tenth" / "simulo.asset.json").write_text('{"base": "floating"}', encoding="utf-8")
    runs = str(tmp_path / "runs")
    train = _simulo_run(engine, assets, str(APP / "train.py"), "--num-envs", "16", "--max-iterations", "6",
                        "--runs-dir", runs)
    assert train.returncode == 0, train.stderr
    stats = json.loads(train.stdout)
    assert stats["iterations"] == 6 and len(stats["reward_history"]) == 6
    assert isinstance(stats["reward_history"][-1], float)  # 96 steps of 60-step episodes: some have ended
    evaluate = _simulo_run(engine, assets, str(APP / "eval.py"), "--policy", "latest", "--episodes", "4",
                           "--num-envs", "4", "--runs-dir", runs)
    assert evaluate.returncode == 0, evaluate.stderr
    result = json.loads(evaluate.stdout)["result"]
    assert result["episodes"] == 4 and [c["name"] for c in result["checks"]] == ["moving forward", "lasted"]
