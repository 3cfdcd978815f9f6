"""First use, as a new user meets it: NaN results, stray files in the runs folder, --record, progress, --address."""

from __future__ import annotations

import json
import socket
import textwrap
from pathlib import Path
from typing import Any

import pytest

from simulo.cli import pick_place, run
from simulo.cli.main import main as simulo_main
from simulo.errors import CollisionError

JOBS = str(Path(__file__).parents[1] / "platform" / "fixtures" / "jobs_app.py")


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_a_nan_result_prints_valid_json_with_null(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    app = tmp_path / "nan_app.py"
    app.write_text(textwrap.dedent("""
        import simulo
        import numpy as np
        app = simulo.App("nan")

        @app.job
        def main() -> dict:
            return {"loss": float("nan"), "values": np.array([1.0, np.inf]), "ok": 2.5, "worst": -float("inf")}
        """), encoding="utf-8")
    code = run.main([str(app), "--json", "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert code == 0, err
    expected = {"loss": None, "values": [1.0, None], "ok": 2.5, "worst": None}
    assert _strict_json(out) == expected
    saved = tmp_path / "runs" / "nan" / "main" / "0001" / "result.json"
    assert _strict_json(saved.read_text(encoding="utf-8")) == expected
    assert ("the job's result holds 3 NaN or infinite number(s), saved as null: ['loss'], ['values'][1], "
            "['worst']") in err


def test_stray_files_in_the_runs_folder_do_not_break_later_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    job_dir = runs / "jobs_demo" / "echo"
    job_dir.mkdir(parents=True)
    (runs / "notes.txt").write_text("stray")
    (runs / "jobs_demo" / "stray").write_text("stray")
    (job_dir / "0002").write_text("a file named like a run")
    (job_dir / "②").mkdir()  # str.isdigit() says True; int() refuses it
    (job_dir / "run.json").mkdir()
    damaged = job_dir / "0001"
    damaged.mkdir()
    (damaged / "run.json").write_bytes(b"\xff\xfe not json")
    for expected in ("0003", "0004"):
        code = simulo_main(["run", JOBS, "--job", "echo", "--count", "2", "--runs-dir", str(runs)])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert f"echo/{expected}/result.json" in out
    assert simulo_main(["result", "--runs-dir", str(runs)]) == 0
    assert _strict_json(capsys.readouterr().out)["count"] == 2
    assert simulo_main(["logs", "jobs_demo/echo/0001", "--runs-dir", str(runs)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run.json is unreadable (UnicodeDecodeError" in err


def test_record_to_an_unwritable_path_fails_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from simulo.apps.pick_place.experiments import single

    def must_not_run(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the run started")

    monkeypatch.setattr(single, "run_pick_place", must_not_run)
    (tmp_path / "file.txt").write_text("not a folder")
    for target, why in ((tmp_path / "file.txt" / "run.gif", "Not a directory"),
                        (tmp_path / "missing" / "run.mp4", "No such file or directory"),
                        (tmp_path, "must end in .gif or .mp4")):
        assert pick_place.main(["--record", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith("simulo pick-place: error: --record: ") and why in err


def test_record_says_what_it_does_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from simulo.apps.pick_place.experiments import single

    def fail_at_once(*args: Any, **kwargs: Any) -> None:
        raise CollisionError("stopped by the test")

    monkeypatch.setattr(single, "run_pick_place", fail_at_once)
    target = tmp_path / "run.gif"
    assert pick_place.main(["--record", str(target)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"simulo pick-place: recording {target} (drawn on the CPU")  # said before the run
    assert err[-1] == "simulo pick-place: FAIL: stopped by the test"


def test_trials_say_what_they_do_at_once_and_report_each_phase(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from simulo.apps.pick_place.experiments import trials

    seen: list[str] = []

    def fake_trials(num: int, seed: int, mm: float, deg: float, options: Any, on_phase: Any = None) -> None:
        seen.append(capsys.readouterr().err)  # what the user saw before the trials started
        on_phase("approach")
        raise CollisionError("stopped by the test")

    monkeypatch.setattr(trials, "run_trials", fake_trials)
    assert pick_place.main(["--trials", "3", "--seed", "5"]) == 1
    assert seen == ["simulo pick-place: 3 trial(s) from seed 5 in one simulation; loading the cell...\n"]
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("simulo pick-place: approach done in all 3 trial(s) (")
    assert err[-1] == "simulo pick-place: FAIL: stopped by the test"


def test_run_with_an_address_nothing_listens_on_fails_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    with socket.socket() as sock:  # a loopback port nothing listens on: bound, then closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    runs = tmp_path / "runs"
    code = run.main([JOBS, "--job", "echo", "--count", "1", "--workers", "2", "--address", f"127.0.0.1:{port}",
                     "--runs-dir", str(runs)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert err == (f"simulo run: error: WorkerError: cannot reach a Ray cluster at '127.0.0.1:{port}': Connection "
                   "refused; is the cluster running (ray start --head) and the port open?\n")
    assert not runs.exists()


def test_a_job_printing_non_ascii_runs_under_an_ascii_terminal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")  # what the job process would inherit
    app = tmp_path / "accents.py"
    app.write_text("import simulo\napp = simulo.App('accents')\n\n@app.job\ndef main() -> dict:\n"
                   "    print('h\\u00e9llo \\u2713')\n    return {'mark': '\\u2713'}\n", encoding="utf-8")
    code = run.main([str(app), "--json", "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert _strict_json(out) == {"mark": "\u2713"} and "h\u00e9llo \u2713" in err
