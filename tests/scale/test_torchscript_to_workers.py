"""An app's TorchScript functions reach Ray workers: pickled as source, scripted again, same results."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
cloudpickle = pytest.importorskip("ray.cloudpickle")

from simulo.errors import WorkerError  # noqa: E402
from simulo.scale.cluster import ship_by_value  # noqa: E402
from simulo.scale.torchscript import reduce_script_function  # noqa: E402

APP_MODULE = '''
import torch

@torch.jit.script
def shaped(x: torch.Tensor, k: float) -> torch.Tensor:
    return torch.where(x > 0.0, x * k, -x)

@torch.jit.script
def reward(x: torch.Tensor) -> torch.Tensor:
    return shaped(x, 2.0).sum(dim=-1)

class Task:
    def rewards(self, x: torch.Tensor) -> torch.Tensor:
        return reward(x)
'''


def _load_app(folder: Path, name: str) -> object:
    path = folder / f"{name}.py"
    path.write_text(APP_MODULE)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_a_task_using_scripted_functions_is_carried_and_computes_the_same(tmp_path: Path) -> None:
    module = _load_app(tmp_path, "scripted_app_task")
    try:
        task = module.Task()  # type: ignore[attr-defined]
        assert ship_by_value(task) == ["scripted_app_task"]
        payload = cloudpickle.dumps(task)
    finally:
        del sys.modules["scripted_app_task"]
    (tmp_path / "scripted_app_task.py").unlink()  # the worker has no copy of the app's files
    x = [[1.0, -2.0, 0.5], [-1.0, 3.0, 0.0]]
    expected = task.rewards(torch.tensor(x)).tolist()
    child = ("import pickle, sys, torch; task = pickle.loads(sys.stdin.buffer.read()); "
             f"print(type(task.rewards.__globals__['reward']).__name__, task.rewards(torch.tensor({x})).tolist())")
    done = subprocess.run([sys.executable, "-c", child], input=payload, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    kind, values = done.stdout.decode().split(" ", 1)
    assert kind == "ScriptFunction"
    assert values.strip() == str(expected)
    assert expected == [5.0, 7.0]  # 2*1 + 2 + 2*0.5, and 1 + 2*3 + 0


def test_a_scripted_function_without_python_source_is_refused_by_name() -> None:
    loaded = torch.jit.script(lambda_free_add)
    del loaded._torchdynamo_inline
    with pytest.raises(WorkerError, match="cannot go to the Ray workers"):
        reduce_script_function(loaded)


def lambda_free_add(x: torch.Tensor) -> torch.Tensor:
    """A module-level function to script."""
    return x + 1.0
