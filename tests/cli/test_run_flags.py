"""`simulo run` accepts every option of the SDK's: what each does here, or why it exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulo.cli import run

FEATURES = str(Path(__file__).parents[1] / "platform" / "fixtures" / "platform_features" / "features_app.py")


@pytest.fixture(autouse=True)
def _local_volumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMULO_VOLUMES_DIR", str(tmp_path / "volumes"))


def simulo_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run.main([*argv[:1], "--json", *argv[1:]] if argv else [])  # the whole result on stdout
    out, err = capsys.readouterr()
    return code, out, err


def test_the_job_sees_the_run_flags_and_run_json_keeps_the_tags(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = simulo_run(
        capsys, FEATURES, "--job", "flags", "--from", "policy_a:latest", "--compare", "policy_b:best",
        "--repeatable", "--require-success", "0.9", "--fail-if-worse", "--tag", "nightly", "--tag=ci",
        "--tag", "nightly", "--frozen", "--strict-assets", "--no-viewstream", "--skip-preflight",
        "--runs-dir", str(tmp_path / "runs"),
    )
    assert code == 0, err
    assert json.loads(out) == {"from_policy": "policy_a:latest", "compare": "policy_b:best", "repeatable": True,
                               "require_success": 0.9, "fail_if_worse": True, "tags": ["nightly", "ci"]}
    record = json.loads((tmp_path / "runs" / "features" / "flags" / "0001" / "run.json").read_text())
    assert record["tags"] == ["nightly", "ci"] and record["status"] == "completed"


def test_defaults_are_all_off(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = simulo_run(capsys, FEATURES, "--job", "flags", "--runs-dir", str(tmp_path))
    assert code == 0, err
    assert json.loads(out) == {"from_policy": None, "compare": None, "repeatable": False, "require_success": None,
                               "fail_if_worse": False, "tags": []}


@pytest.mark.parametrize(("argv", "message"), [
    (["--viewstream", "--viewstream-port", "99999"], "--viewstream-port needs a port number from 1 to 65535"),
    (["--record-3d", "4"], "--record-3d works only on a training job (@app.job(type=\"train\")); 'flags' is "
                           "untyped"),
    (["--record-3d", "0"], "--record-3d needs a number of copies from 1 to 64, got '0'"),
    (["--tag", "Bad Tag"], "--tag 'Bad Tag' is invalid"),
    (["--require-success", "1.5"], "a rate from 0 to 1"),
    (["--require-success", "x"], "a rate from 0 to 1"),
    (["--detach", "--require-success", "0.5"], "cannot be used with --detach"),
    (["--detach", "--fail-if-worse"], "cannot be used with --detach"),
    (["--from"], "--from needs a value"),
])
def test_options_without_local_meaning_or_bad_values_exit_2_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    code, out, err = simulo_run(capsys, FEATURES, "--job", "flags", *argv, "--runs-dir", str(tmp_path))
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "features").exists()  # no run folder


def test_more_than_sixteen_tags_are_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tags = [arg for n in range(17) for arg in ("--tag", f"t{n}")]
    code, _, err = simulo_run(capsys, FEATURES, "--job", "flags", *tags, "--runs-dir", str(tmp_path))
    assert code == 2 and "at most 16 tags" in err


def test_strict_assets_refuses_an_asset_that_cannot_be_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    app = tmp_path / "app.py"
    app.write_text(
        "import simulo\n"
        "arm = simulo.Asset.from_registry('robot/features-missing-arm:v1')\n"
        "app = simulo.App('strict')\n"
        "@app.job\n"
        "def job() -> dict:\n"
        "    return {}\n",
        encoding="utf-8",
    )
    code, _, err = simulo_run(capsys, str(app), "--runs-dir", str(tmp_path / "runs"))
    assert code == 0, err  # without the flag the asset is never read
    code, _, err = simulo_run(capsys, str(app), "--strict-assets", "--runs-dir", str(tmp_path / "runs"))
    assert code == 1 and "AssetError" in err and "features-missing-arm" in err
    assert sorted(p.name for p in (tmp_path / "runs" / "strict" / "job").iterdir()) == ["0001"]
