"""``simulo run`` of the cartpole sample killed with SIGKILL at random instants leaves no torn record (issue 28).

Twenty runs (a fixed seed) are killed between 1.5 s and 6 s after they start: at import, while the environments
are built, or while training writes ``best.pt`` and ``latest.pt`` (every second iteration here). After each
kill, once the job process has died with ``simulo run``: every checkpoint present loads, every ``result.json``,
``run.json`` and ``policy.json`` present is whole JSON, ``simulo policy list`` lists every policy registered so
far, and ``--from RUN:latest`` continues from the checkpoint's own iteration (end to end for a few of them, to
keep the test near two minutes).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simulo.cli import policy as policy_cli
from simulo.platform.policies import PolicyCheckpoint

pytest.importorskip("torch")
pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).parents[2] / "samples" / "cartpole"
KILLS = 20
END_TO_END_RESUMES = 3
APP = '''\
"""The cartpole sample's training job, saving latest.pt every second iteration."""

import simulo

app = simulo.App("cartpole")

with app.runtime.imports():
    from task import CartpoleTask


@app.job(type="train", timeout=300)
def train(num_envs: int = 8, max_iterations: int = 40, seed: int = 42) -> dict:
    """Train the cartpole policy."""
    env = simulo.LearningEnv(task=CartpoleTask(), num_envs=num_envs, device="cpu", dt=1.0 / 120.0,
                             physics_steps_per_action=2, env_spacing=4.0, headless=True, seed=seed)
    trainer = simulo.RLTrainer(env=env, algorithm="PPO", device="cpu", seed=seed)
    try:
        return trainer.train(max_iterations=max_iterations, checkpoint_every=2)
    finally:
        trainer.close()
        env.close()
'''
CONTINUES = re.compile(r"--from \S+ -> \S+ \(\S*:latest, iteration (\d+)\): training continues from it")


def _simulo_run(app: Path, runs: Path, *argv: str) -> list[str]:
    return [sys.executable, "-m", "simulo.cli.main", "run", str(app), "--runs-dir", str(runs), "--num-envs", "8",
            *argv]


def _job_processes(runs: Path) -> list[int]:
    """The pids of job processes (``simulo.platform._child``) of runs under ``runs``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"simulo.platform._child" in command and str(runs).encode() in command:
            found.append(int(entry.name))
    return found


def _kill(proc: subprocess.Popen[bytes], runs: Path) -> None:
    """SIGKILL ``simulo run``, then wait until its job process has died with it (no write after the checks)."""
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 20
    while _job_processes(runs):
        assert time.monotonic() < deadline, f"job processes outlived simulo run: {_job_processes(runs)}"
        time.sleep(0.05)


def _check_records(runs: Path) -> set[str]:
    """Assert that every record under ``runs`` is whole; return the policy IDs registered."""
    from simulo.rl.training.checkpoints import read_checkpoint

    policies = set()
    for run_dir in sorted(runs.glob("cartpole/train/*")):
        for checkpoint in sorted((run_dir / "checkpoints").glob("*.pt")):
            assert isinstance(read_checkpoint(checkpoint)["iteration"], int), checkpoint
        for name in ("result.json", "run.json", "policy.json", "params.json", "request.json"):
            if (run_dir / name).exists():
                json.loads((run_dir / name).read_text(encoding="utf-8"))
        if (run_dir / "policy.json").exists():
            policies.add(json.loads((run_dir / "policy.json").read_text(encoding="utf-8"))["policy_id"])
    return policies


def _listed(runs: Path, capsys: pytest.CaptureFixture[str]) -> set[str]:
    capsys.readouterr()
    assert policy_cli.main(["list", "--json", "--runs-dir", str(runs)]) == 0
    return {record["policy_id"] for record in json.loads(capsys.readouterr().out)}


def test_sigkill_at_random_instants_leaves_whole_records_and_resumable_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SAMPLE / "task.py", tmp_path / "task.py")
    app = tmp_path / "train.py"
    app.write_text(APP, encoding="utf-8")
    runs = tmp_path / "runs"
    done = subprocess.run(_simulo_run(app, runs, "--max-iterations", "4"), capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    registered = _check_records(runs)
    assert len(registered) == 1

    chooser = random.Random(28)
    resumes = 0
    for kill in range(KILLS):
        proc = subprocess.Popen(_simulo_run(app, runs), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(chooser.uniform(1.5, 6.0))
        _kill(proc, runs)
        registered |= _check_records(runs)
        assert registered <= _listed(runs, capsys), f"kill {kill}: a policy registered earlier is not listed"
        killed = max(runs.glob("cartpole/train/*"), key=lambda p: int(p.name))
        latest = killed / "checkpoints" / "latest.pt"
        if not latest.exists():
            continue
        source = PolicyCheckpoint.resolve(f"{killed}:latest", runs / "cartpole")
        from simulo.rl.training.checkpoints import read_checkpoint

        assert source.path == latest and source.iteration == read_checkpoint(latest)["iteration"]
        if resumes < END_TO_END_RESUMES and kill % 5 == 4:
            resumes += 1
            again = subprocess.run(_simulo_run(app, runs, "--from", f"{killed}:latest", "--max-iterations",
                                               str(source.iteration + 1)), capture_output=True, text=True,
                                   timeout=300)
            assert again.returncode == 0, again.stderr
            assert [int(n) for n in CONTINUES.findall(again.stderr)] == [source.iteration], again.stderr
            registered |= _check_records(runs)
    assert resumes > 0, "no kill left a latest.pt to resume from; the kill instants need a longer range"
    assert not [p for p in runs.rglob("*") if p.is_file() and p.suffix == ".tmp" and not p.name.startswith(".")]
