"""Volume, save_output and the job callbacks work in a local run, with the SDK's signatures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import simulo
from simulo.cli import run
from simulo.errors import NotInJobError, SimuloValueError
from simulo.platform.volumes import Volume, volume_env_key

FIXTURES = Path(__file__).parent / "fixtures" / "platform_features"
FEATURES = str(FIXTURES / "features_app.py")


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMULO_VOLUMES_DIR", str(tmp_path / "volumes"))
    monkeypatch.setenv("FEATURES_EVENTS", str(tmp_path / "events.jsonl"))
    monkeypatch.chdir(tmp_path)


def simulo_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run.main([*argv[:1], "--json", *argv[1:]] if argv else [])  # the whole result on stdout
    out, err = capsys.readouterr()
    return code, out, err


def test_a_mounted_volume_is_a_local_folder_the_job_writes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = simulo_run(capsys, FEATURES, "--job", "volume", "--text", "kept", "--runs-dir", "runs")
    assert code == 0, err
    folder = tmp_path / "volumes" / "features-scratch"
    assert json.loads(out) == {"path": str(folder), "env": str(folder)}
    assert (folder / "note.txt").read_text() == "kept"


def test_a_volume_that_does_not_exist_fails_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = simulo_run(capsys, str(FIXTURES / "missing_volume.py"), "--runs-dir", "runs")
    assert code == 1 and "ResourceNotFoundError: volume 'features-absent' does not exist" in err
    assert "create_if_missing=True" in err and not (tmp_path / "runs").exists()
    (tmp_path / "volumes" / "features-absent").mkdir(parents=True)
    code, _, err = simulo_run(capsys, str(FIXTURES / "missing_volume.py"), "--runs-dir", "runs")
    assert code == 0, err


def test_volume_errors_are_the_sdks_and_simulo_locals(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match="non-empty name"):
        Volume(" ")
    missing = Volume.from_name("nowhere")
    assert missing.name == "nowhere" and missing.create_if_missing is False
    with pytest.raises(simulo.ResourceNotFoundError) as info:
        _ = missing.path
    assert isinstance(info.value, simulo.SimuloError)
    made = Volume("made here", create_if_missing=True)
    assert Path(made.path) == tmp_path / "volumes" / "made_here" and Path(made.path).is_dir()
    assert volume_env_key("made here") == "SIMULO_VOLUME_MADE_HERE"


def test_outputs_of_a_successful_run_are_kept_with_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = simulo_run(capsys, FEATURES, "--job", "outputs", "--runs-dir", "runs")
    assert code == 0, err
    assert json.loads(out) == {"kept": [True, True]}
    run_dir = tmp_path / "runs" / "features" / "outputs" / "0001"
    listed = json.loads((run_dir / "outputs.json").read_text())
    assert [(o["name"], o["kind"], o["file"]) for o in listed] == [
        ("report.json", "report", "outputs/report.json"), ("report.json", "file", "outputs/report-2.json")]
    assert (run_dir / "outputs" / "report.json").read_text() == '{"ok": true}'


def test_a_failed_run_publishes_no_outputs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, _ = simulo_run(capsys, FEATURES, "--job", "outputs", "--fail", "--runs-dir", "runs")
    assert code == 1
    run_dir = tmp_path / "runs" / "features" / "outputs" / "0001"
    assert not (run_dir / "outputs.json").exists() and not (run_dir / "outputs").exists()


def test_save_output_checks_its_arguments_and_needs_a_job(tmp_path: Path) -> None:
    with pytest.raises(SimuloValueError, match="save_output"):
        simulo.save_output("a/b.txt", "x.txt")
    with pytest.raises(SimuloValueError):
        simulo.save_output("b.txt", "x.txt", kind="not-a-kind")
    with pytest.raises(NotInJobError, match="simulo run"):
        simulo.save_output("b.txt", tmp_path / "x.txt")


def _events(tmp_path: Path) -> list[list[str]]:
    return [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]


def test_callbacks_hear_the_start_each_checkpoint_and_the_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = simulo_run(capsys, FEATURES, "--job", "hooked", "--runs-dir", "runs")
    assert code == 0, err
    events = _events(tmp_path)
    assert events[0] == ["start", "features/hooked/0001"] and events[-1] == ["end", "features/hooked/0001", "completed"]
    assert sorted(e for e in events if e[0] == "checkpoint") == [
        ["checkpoint", "agent_10.pt", "10"], ["checkpoint", "agent_5.pt", "5"]]


def test_a_non_finite_failure_is_an_anomaly(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, _ = simulo_run(capsys, FEATURES, "--job", "hooked", "--anomaly", "--runs-dir", "runs")
    assert code == 1
    events = _events(tmp_path)
    assert ["anomaly", "the loss is NaN at iteration 3"] in events
    assert events[-1] == ["end", "features/hooked/0001", "failed"]


def test_the_sdks_callbacks_declare_their_settings() -> None:
    volume = simulo.Volume.from_name("ckpt")
    commit = simulo.callbacks.CommitVolume(volume, commit_on_checkpoint=False)
    assert commit.manifest_entry() == {"type": "CommitVolume", "config": {
        "volume": "ckpt", "commit_on_checkpoint": False, "commit_on_end": True}}
    debug = simulo.callbacks.DebugOnAnomaly(window_steps=32, env_indices=[0, 2])
    assert debug.manifest_entry()["config"]["window_steps"] == 32 and debug.env_indices == (0, 2)
    assert debug.to_runtime_config(output_dir="runs/debug-here").output_dir == "runs/debug-here"
    with pytest.raises(ValueError):
        simulo.callbacks.DebugOnAnomaly(window_steps=0)
    commit.on_job_start("x")  # the hooks are there and do nothing


def test_the_sdks_error_names_are_simulo_errors_too() -> None:
    from simulo import errors

    for name in ("ContractViolationError", "ImportResolutionError", "ResourceNotFoundError",
                 "ResumeIncompatibleError", "JobFailedError"):
        local = getattr(errors, name)
        assert issubclass(local, errors.SimuloError) and issubclass(local, getattr(simulo, name))
        assert getattr(errors, name) is local
    with pytest.raises(AttributeError):
        _ = errors.NoSuchError  # type: ignore[attr-defined]


def test_result_and_outputs_commands_read_the_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from simulo.cli import outputs, result

    assert run.main([FEATURES, "--job", "outputs", "--runs-dir", "runs"]) == 0
    capsys.readouterr()
    assert result.main(["--runs-dir", "runs"]) == 0
    assert json.loads(capsys.readouterr().out) == {"kept": [True, True]}
    assert outputs.main(["features/outputs/0001", "--runs-dir", "runs"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("report.json  [report]  ") and "outputs/report-2.json" in lines[1]
    assert outputs.main(["--json", "--runs-dir", "runs"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    assert run.main([FEATURES, "--job", "outputs", "--fail", "--runs-dir", "runs"]) == 1
    capsys.readouterr()
    assert result.main(["features/outputs/0002", "--runs-dir", "runs"]) == 1
    assert "has no result; it is failed" in capsys.readouterr().err


def test_a_volume_has_no_path_while_jobs_are_only_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from simulo.platform.discovery import discovery_mode

    volume = Volume("listed", create_if_missing=True)
    with discovery_mode(), pytest.raises(simulo.ResourceNotFoundError, match="only inside a running job"):
        _ = volume.path
    assert not (tmp_path / "volumes" / "listed").exists()
    monkeypatch.setenv(volume.env_key, str(tmp_path / "mounted"))
    assert volume.path == str(tmp_path / "mounted")  # the folder simulo run prepared for the job
