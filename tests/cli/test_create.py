"""`simulo create NAME` writes the starter app; the app passes its preview and trains."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simulo.cli import create
from simulo.cli.starter import FILES


def test_create_writes_the_starter_files_with_the_app_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert create.main(["my-app", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    folder = tmp_path / "my-app"
    assert sorted(p.name for p in folder.iterdir()) == sorted(FILES)
    assert 'simulo.App("my-app")' in (folder / "task.py").read_text()
    assert "simulo run preview.py" in out and "simulo run train.py" in out
    for name in FILES:
        if name.endswith(".py"):
            compile((folder / name).read_text(), name, "exec")


def test_create_refuses_bad_names_and_a_folder_in_use_unless_forced(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for bad in ("../evil", "9lives", "con", "a b"):
        assert create.main([bad, "--dir", str(tmp_path)]) == 2
        assert "simulo create: error:" in capsys.readouterr().err
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "task.py").write_text("mine")
    assert create.main(["taken", "--dir", str(tmp_path)]) == 2
    assert "not empty; pass --force" in capsys.readouterr().err
    assert (tmp_path / "taken" / "task.py").read_text() == "mine"
    assert create.main(["taken", "--dir", str(tmp_path), "--force"]) == 0
    assert "Overwrote task.py" in capsys.readouterr().out
    assert create.main([]) == 2 and "NAME is missing" in capsys.readouterr().err


@pytest.mark.slow
def test_the_created_app_passes_preview_and_trains(tmp_path: Path) -> None:
    assert create.main(["starter", "--dir", str(tmp_path)]) == 0
    folder = tmp_path / "starter"
    env = {**os.environ, "SIMULO_RUNS_DIR": str(tmp_path / "runs")}

    def simulo(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "simulo.cli.main", "run", *argv, "--json"], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=300)

    preview = simulo("preview.py", "--num-envs", "4")
    assert preview.returncode == 0, preview.stderr
    assert json.loads(preview.stdout)["verdict"] == "passed"
    train = simulo("train.py", "--num-envs", "8", "--max-iterations", "2")
    assert train.returncode == 0, train.stderr
    result = json.loads(train.stdout)
    assert result["num_envs"] == 8 and result["iterations"] == 2
    assert Path(result["best_checkpoint"]).is_file()
