"""LearningEnv(device="cuda"): the state buffers are CPU memory, so the environment runs on the CPU and says so."""

from __future__ import annotations

import warnings

import pytest


def test_cuda_request_runs_on_the_cpu_even_where_cuda_exists(monkeypatch):
    torch = pytest.importorskip("torch")
    import simulo.rl.devices as env_module

    monkeypatch.setattr(env_module, "_CUDA_WARNED", False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert env_module.env_device("cuda:0") == "cpu"  # the state buffers are CPU memory
    assert any("running on the CPU" in str(w.message) for w in caught)
