"""``simulo run FILE --workers N``: the same app file shards its LearningEnv over Ray, and a job whose
worker dies resumes from its latest checkpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simulo.cli import run
from simulo.errors import JobError
from simulo.platform.jobs import load_app_file
from simulo.scale.settings import ENV_WORKERS

APP = str(Path(__file__).with_name("fixtures") / "train_app.py")


def _simulo_run(tmp_path: Path, *flags: str) -> tuple[dict, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIMULO_")}
    done = subprocess.run([sys.executable, "-m", "simulo.cli.main", "run", APP, "--json", "--runs-dir", str(tmp_path),
                           *flags], capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout), done.stderr


def test_same_app_with_workers_resumes_after_a_lost_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")
    pytest.importorskip("torch")
    for name in (ENV_WORKERS, "SIMULO_RAY_ADDRESS", "SIMULO_RUN_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SIMULO_CHECKPOINT_DIR", str(tmp_path / "plain"))
    job = load_app_file(APP, discovery=False).select("train")
    plain = job()  # the job's body in this process, without Ray
    assert plain["env"] == "LocalEnv" and plain["attempt"] == 1 and plain["iterations"] == 4
    sharded, log = _simulo_run(tmp_path / "ray", "--workers", "2")
    assert sharded["env"] == "RayLearningEnv"
    # attempt 1 ran 2 iterations through the env runners, lost a worker; attempt 2 resumed at iteration 2
    # (env runners draw one stream per rollout shard, so the rewards differ from the plain run's)
    assert len(sharded["reward_history"]) == len(plain["reward_history"]) == 4
    assert (sharded["attempt"], sharded["iterations"], sharded["iterations_run"]) == (2, 4, 2)
    assert "WorkerError" in log and "retrying from" in log and "latest.pt" in log
    meta = json.loads(next((tmp_path / "ray").glob("*/*/*/run.json")).read_text())
    assert meta["workers"] == 2 and meta["address"] is None and meta["attempts"] == 2


def test_workers_and_address_flags_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    for flags, shown in ((["--workers", "0"], "'0'"), (["--workers", "two"], "'two'"),
                         (["--workers", "2", "--address", "a b"], "'a b'")):
        assert run.main([APP, *flags]) == 2
        err = capsys.readouterr().err
        assert "--workers needs a whole number >= 1" in err and shown in err
    options, rest = run._split(["--workers=3", "--address", "head:6379", "--num-envs", "4"])
    assert (options.workers, options.address, rest) == (3, "head:6379", ["--num-envs", "4"])
    with pytest.raises(JobError, match="--address needs a value"):
        run._split(["--address"])


def test_runner_clears_inherited_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from simulo.platform.context import RunContext
    from simulo.platform.runner import RunRequest, _run_attempt

    monkeypatch.setenv(ENV_WORKERS, "5")
    monkeypatch.setenv("SIMULO_RAY_ADDRESS", "elsewhere:6379")
    app = tmp_path / "env_app.py"
    app.write_text("import os, simulo\napp = simulo.App('envs')\n@app.job\ndef job() -> dict:\n"
                   "    return {k: os.environ.get(k) for k in ('SIMULO_WORKERS', 'SIMULO_RAY_ADDRESS')}\n")
    request = RunRequest(file=app, app="envs", job="job", argv=(), params={})
    context = RunContext.create(tmp_path / "run", 1, 1)
    with open(tmp_path / "log.txt", "ab") as log:
        assert _run_attempt(request, context, None, sys.stderr, log) == 0
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert result == {"SIMULO_WORKERS": "1", "SIMULO_RAY_ADDRESS": None}
