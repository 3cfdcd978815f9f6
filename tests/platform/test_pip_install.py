"""Runtime.pip_install: packages installed with pip into a cached folder per requirement set, for the job only."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import zipfile
from pathlib import Path

import pytest

from simulo.cli import run
from simulo.platform.pip_cache import COMPLETE, normalise, requirement_key

PIP_APP = str(Path(__file__).parent / "fixtures" / "platform_features" / "pip_app.py")


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(folder: Path) -> Path:
    """A pure-Python wheel of ``tinypkg`` 1.0 (``tinypkg.ANSWER == 42``), written by hand."""
    files = {
        "tinypkg/__init__.py": b"ANSWER = 42\n",
        "tinypkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": (b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
                                        b"Tag: py3-none-any\n"),
    }
    record = "\n".join([*(_record_line(n, d) for n, d in files.items()), "tinypkg-1.0.dist-info/RECORD,,", ""])
    wheel = folder / "tinypkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr("tinypkg-1.0.dist-info/RECORD", record)
    return wheel


@pytest.fixture
def offline_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    build_wheel(wheels)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("SIMULO_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "pip"


@pytest.mark.slow
def test_the_job_imports_the_package_from_the_cache_and_the_cache_is_reused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, offline_index: Path
) -> None:
    assert importlib.util.find_spec("tinypkg") is None
    code = run.main([PIP_APP, "--json", "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    assert result["answer"] == 42
    folders = [p for p in offline_index.iterdir() if not p.name.startswith(".")]
    assert len(folders) == 1 and (folders[0] / COMPLETE).is_file()
    assert Path(result["from"]).parent == folders[0]
    assert "installing tinypkg" in err
    assert importlib.util.find_spec("tinypkg") is None  # never in this environment

    code = run.main([PIP_APP, "--json", "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["answer"] == 42 and "installing" not in err  # the cached folder, no pip


def test_a_package_pip_cannot_install_fails_at_once_with_pips_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, offline_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FEATURES_PIP", "tinypkg==9.9")
    code = run.main([PIP_APP, "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 1
    assert "MissingDependencyError: Runtime.pip_install could not install tinypkg==9.9" in err
    assert "pip said:" in err and "No matching distribution" in err
    assert not (tmp_path / "runs").exists()
    assert [p for p in offline_index.iterdir() if not p.name.startswith(".")] == []  # nothing half-installed


def test_a_package_the_runtime_provides_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, offline_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FEATURES_PIP", "torch")
    code = run.main([PIP_APP, "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 2 and "the runtime provides this package itself" in err


def test_the_cache_key_is_the_normalised_requirement_set() -> None:
    assert normalise(" Foo_Bar.baz >= 1.0 ") == "foo-bar-baz>=1.0"
    same = requirement_key([(("Foo_Bar == 1.0", "wandb"), False)])
    assert same == requirement_key([(("wandb", "foo-bar==1.0"), False)])
    assert same != requirement_key([(("foo-bar==1.0", "wandb"), True)])
    assert same != requirement_key([(("foo-bar==1.0",), False), (("wandb",), False)])
