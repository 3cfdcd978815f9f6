"""simulo.scale.cluster: a Ray address that Ray refuses, or a cluster it cannot reach, is a clear SimuloError."""

from __future__ import annotations

import types
from typing import Any

import pytest

from simulo.errors import SimuloValueError, WorkerError
from simulo.scale import cluster


def _fake_ray(error: Exception) -> types.SimpleNamespace:
    def init(**kwargs: Any) -> None:
        raise error

    return types.SimpleNamespace(is_initialized=lambda: False, init=init, shutdown=lambda: None)


def test_cluster_refuses_an_address_ray_cannot_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "require_ray", lambda: _fake_ray(ValueError("Invalid address format: foo")))
    with pytest.raises(SimuloValueError, match=r"address 'foo' is not a Ray address.*HOST:6379"):
        cluster.Cluster(1, "foo")


def test_cluster_reports_an_unreachable_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster, "require_ray", lambda: _fake_ray(ConnectionError("GCS timed out")))
    with pytest.raises(WorkerError, match=r"cannot reach a Ray cluster at '10.0.0.9:6379'"):
        cluster.Cluster(2, "10.0.0.9:6379")
