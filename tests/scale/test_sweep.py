"""Sharded sweeps: shard layout, ordered gathering, reruns after a worker dies, no Ray without workers."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from simulo.errors import SimuloValueError, WorkerError
from simulo.scale.settings import ENV_WORKERS, ScaleSettings, current_settings
from simulo.scale.sweep import Shard, plan_shards, run_sweep

FIXTURE_APP = Path(__file__).with_name("fixtures") / "train_app.py"


# -- layout (no Ray) ------------------------------------------------------------------------------------
def test_one_shard_per_world_with_a_partial_last_world() -> None:
    shards = plan_shards(35, 16)
    assert [(s.index, s.first, s.count, s.total) for s in shards] == [(0, 0, 16, 35), (1, 16, 16, 35), (2, 32, 3, 35)]
    assert shards[2].stop == 35 and shards[2].describe() == "shard 2 (3 envs: 32..34 of 35)"


def test_parts_group_whole_worlds_evenly() -> None:
    assert [(s.first, s.count) for s in plan_shards(64, 16, parts=2)] == [(0, 32), (32, 32)]
    assert [(s.first, s.count) for s in plan_shards(24, 8, parts=2)] == [(0, 8), (8, 16)]
    assert [(s.first, s.count) for s in plan_shards(70, 16, parts=3)] == [(0, 16), (16, 32), (48, 22)]
    assert [(s.first, s.count) for s in plan_shards(5, 16, parts=4)] == [(0, 5)]  # never more shards than worlds
    for shards in (plan_shards(1000, 16), plan_shards(1000, 16, parts=7)):
        assert sum(s.count for s in shards) == 1000 and all(s.first % 16 == 0 for s in shards)


@pytest.mark.parametrize("args, name", [((0, 16), "total"), ((10, 0), "envs_per_world"), ((10, 2, 0), "parts"),
                                        ((True, 2), "total"), ((10, 2.0), "envs_per_world")])
def test_bad_layout_arguments(args: tuple[Any, ...], name: str) -> None:
    with pytest.raises(SimuloValueError, match=name):
        plan_shards(*args)


def test_settings_from_environment() -> None:
    assert current_settings({}) == ScaleSettings(1, None) and not ScaleSettings().uses_ray
    settings = current_settings({ENV_WORKERS: "3", "SIMULO_RAY_ADDRESS": "head:6379"})
    assert settings == ScaleSettings(3, "head:6379") and settings.uses_ray
    assert ScaleSettings(1, "ray://head:10001").uses_ray
    assert current_settings(settings.environ()) == settings
    with pytest.raises(SimuloValueError, match=r"SIMULO_WORKERS='two'"):
        current_settings({ENV_WORKERS: "two"})
    with pytest.raises(SimuloValueError, match="workers must be an integer >= 1, got 0"):
        ScaleSettings(0)
    with pytest.raises(SimuloValueError, match="address"):
        ScaleSettings(2, "head 6379")


def test_bad_sweep_arguments() -> None:
    shards = plan_shards(4, 2)
    with pytest.raises(SimuloValueError, match="max_retries"):
        run_sweep(_squares, shards, max_retries=-1)
    with pytest.raises(SimuloValueError, match="shards"):
        run_sweep(_squares, shards[1:])


# -- shard functions (they travel to the workers by value) ----------------------------------------------
def _squares(shard: Shard) -> list[int]:
    """Squares of the shard's indices; later shards finish sooner, so they arrive out of order."""
    time.sleep(0.2 * (shard.total - shard.first) / shard.total)
    return [i * i for i in range(shard.first, shard.stop)]


def _crash_once(marker_dir: str, crash_index: int, shard: Shard) -> list[int]:
    """Like :func:`_squares`, but the worker process running ``crash_index`` dies the first time."""
    marker = Path(marker_dir) / f"crashed-{shard.index}"
    if shard.index == crash_index and not marker.exists():
        marker.write_text(str(os.getpid()))
        os._exit(1)
    return _squares(shard)


def _always_crash(shard: Shard) -> list[int]:
    os._exit(1)


def _raise_on_second(shard: Shard) -> list[int]:
    if shard.index == 1:
        raise SimuloValueError(f"bad trial in {shard.describe()}")
    return [shard.first]


# -- on Ray ---------------------------------------------------------------------------------------------
def test_results_are_gathered_in_order_for_any_worker_count(
    ray_cluster: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = plan_shards(45, 8)
    local = run_sweep(_squares, shards, workers=1, progress=False)
    assert [x for part in local for x in part] == [i * i for i in range(45)]
    assert run_sweep(_squares, shards, workers=2, desc="squares") == local
    err = capsys.readouterr().err
    assert "squares" in err and "45/45" in err  # one bar, advanced as the workers' shards came back


def test_killed_worker_has_its_shard_rerun(
    ray_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = plan_shards(40, 8)
    expected = run_sweep(_squares, shards, progress=False)
    got = run_sweep(functools.partial(_crash_once, str(tmp_path), 2), shards, workers=2, max_retries=2)
    assert got == expected  # every shard reported once, with the same numbers
    assert (tmp_path / "crashed-2").is_file()
    assert int((tmp_path / "crashed-2").read_text()) != os.getpid()  # the worker died, not this process
    err = capsys.readouterr().err
    assert err.count("worker lost") == 1
    assert "shard 2 (8 envs: 16..23 of 40): worker lost (WorkerCrashedError); running it again (attempt 2/3)" in err


def test_worker_that_keeps_dying_gives_up(ray_cluster: Any) -> None:
    with pytest.raises(WorkerError, match=r"shard 0 \(2 envs: 0..1 of 2\): its worker died 2 times"):
        run_sweep(_always_crash, plan_shards(2, 2), workers=2, max_retries=1, progress=False)


def test_errors_of_the_shard_function_are_raised_not_retried(ray_cluster: Any) -> None:
    with pytest.raises(SimuloValueError, match=r"bad trial in shard 1 \(2 envs: 2..3 of 6\)"):
        run_sweep(_raise_on_second, plan_shards(6, 2), workers=2, progress=False)


# -- no Ray unless asked for ----------------------------------------------------------------------------
def test_nothing_imports_ray_without_workers(tmp_path: Path) -> None:
    app = tmp_path / "tiny_app.py"
    app.write_text(
        "import simulo\n"
        "app = simulo.App('tiny')\n"
        "@app.job\n"
        "def job() -> dict:\n"
        "    import sys\n"
        "    return {'ray': 'ray' in sys.modules}\n"
    )
    script = (
        "import sys\n"
        "from simulo.scale.sweep import plan_shards, run_sweep\n"
        "from simulo.scale.settings import current_settings\n"
        "import simulo\n"
        "out = run_sweep(lambda s: s.count, plan_shards(10, 4), progress=False)\n"
        "from simulo.platform.jobs import load_app_file\n"
        f"fixture = load_app_file({str(FIXTURE_APP)!r}, discovery=False).module\n"
        "env = simulo.LearningEnv(fixture.NumpyCartpole(), num_envs=2)\n"
        "assert type(env) is simulo.LearningEnv\n"
        "env.close()\n"
        "from simulo.cli import run\n"
        f"code = run.main([{str(app)!r}, '--json', '--runs-dir', {str(tmp_path / 'runs')!r}])\n"
        "print('RESULT', out, current_settings().workers, code, 'ray' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIMULO_")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert "RESULT [4, 4, 2] 1 0 False" in done.stdout
    assert '"ray": false' in done.stdout  # nor did the job process


# -- the pick-and-place trial sweep -------------------------------------------------------------------
def test_pick_place_trials_are_the_same_for_any_worker_count(ray_cluster: Any) -> None:
    from simulo.apps.pick_place.experiments.trials import run_trials, sweep_trials
    from simulo.apps.pick_place.report import trial_lines

    # 20 noisy trials: shards of 16 and 4 trials; some grasps fail, so outcomes differ between the shards
    one_simulation = run_trials(20, 1, 15, 10)
    assert 0 < one_simulation.passed < 20
    here = sweep_trials(20, 1, 15, 10, workers=1, progress=False)
    on_ray = sweep_trials(20, 1, 15, 10, workers=2, progress=False)
    assert here.to_json() == on_ray.to_json() == one_simulation.to_json()
    assert trial_lines(on_ray) == trial_lines(one_simulation)


def test_pick_place_workers_flags_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    from simulo.cli import pick_place

    for argv, message in ((["--workers", "2"], "--workers and --address shard a sweep: they need --trials N"),
                          (["--address", "head:6379"], "they need --trials N"),
                          (["--trials", "4", "--workers", "0"], "expected a whole number >= 1, got '0'")):
        assert pick_place.main(argv) == 2  # a usage error: one line on stderr
        assert message in capsys.readouterr().err


def test_pick_place_cli_prints_the_same_with_workers(ray_cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from simulo.cli import pick_place

    outputs = []
    for extra in ([], ["--workers", "2"], ["--workers", "1"]):
        status = pick_place.main(["--trials", "3", "--seed", "4", "--json", *extra])
        out, err = capsys.readouterr()
        outputs.append((status, out))
        if extra:
            assert "simulo pick-place: 3 trials in 1 shard of up to 3" in err
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0][0] == 0 and '"passed": 3' in outputs[0][1]


def test_pick_place_shard_arguments_are_checked() -> None:
    from simulo.apps.pick_place.experiments.trials import run_trials
    from simulo.errors import SceneError

    with pytest.raises(SimuloValueError, match=r"first_env=16, count=8: expected a shard inside the 20 trials"):
        run_trials(20, 0, first_env=16, count=8)
    with pytest.raises(SceneError, match="first_env a multiple of envs_per_world=16"):
        run_trials(20, 0, first_env=4, count=4)
