"""app.runtime.imports() and @app.runtime.torch_jit in discovery and execution mode."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import simulo
from simulo.errors import JobError, MissingDependencyError
from simulo.platform.discovery import Placeholder, discovery_mode, in_discovery_mode


def test_discovery_imports_give_placeholders_and_leave_no_trace() -> None:
    app = simulo.App("demo")
    assert not in_discovery_mode()
    with discovery_mode():
        assert in_discovery_mode()
        with app.runtime.imports():
            import json  # standard library: real

            import simulo_test_heavy_pkg.nn as heavy_nn  # type: ignore[import-not-found]

        class Net(heavy_nn.Module):  # a placeholder works as a base class
            pass

    assert isinstance(heavy_nn.Module, Placeholder)
    assert isinstance(heavy_nn.Tensor | None, Placeholder)
    assert Net.__mro__ == (Net, object)
    assert json.dumps([1]) == "[1]"
    assert not any(name.startswith("simulo_test_heavy_pkg") for name in sys.modules)
    assert not in_discovery_mode()


def test_execution_imports_run_and_missing_package_says_what_to_install() -> None:
    app = simulo.App("demo")
    with app.runtime.imports():
        import json  # noqa: F401
    with pytest.raises(MissingDependencyError, match="imports 'simulo_test_heavy_pkg' inside app.runtime.imports"):
        with app.runtime.imports():
            import simulo_test_heavy_pkg  # type: ignore[import-not-found] # noqa: F401


def test_torch_jit_is_identity_in_discovery_mode() -> None:
    app = simulo.App("demo")

    def f(x: int) -> int:
        return x + 1

    with discovery_mode():
        assert app.runtime.torch_jit(f) is f
    with pytest.raises(JobError, match="decorates a function"):
        app.runtime.torch_jit(3)  # type: ignore[arg-type]


def test_torch_jit_scripts_lazily_and_falls_back_without_torch(tmp_path: Path) -> None:
    script = tmp_path / "jit_check.py"  # torch.jit.script reads the function's source file
    script.write_text(textwrap.dedent(
        """
        import sys
        import simulo

        app = simulo.App("demo")

        def add(x: "torch.Tensor", y: "torch.Tensor") -> "torch.Tensor":
            return x + y

        sys.modules["torch"] = None  # torch "not installed"
        plain = app.runtime.torch_jit(add)
        assert plain is add and plain(1, 2) == 3
        del sys.modules["torch"]

        lazy = app.runtime.torch_jit(add)
        assert "torch" not in sys.modules, "decorating must not import torch"
        import torch
        add.__globals__["torch"] = torch
        assert lazy(torch.ones(2), torch.ones(2)).tolist() == [2.0, 2.0]
        assert type(lazy._compiled).__name__ == "ScriptFunction"
        eager = app.runtime.torch_jit(add)  # torch loaded now: scripted at once
        assert type(eager).__name__ == "ScriptFunction"
        print("ok")
        """
    ))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
