"""simulo pick-place --address: an address that Ray refuses is one line on stderr and exit 1, not a traceback."""

from __future__ import annotations

import types
from typing import Any

import pytest

from simulo.cli import pick_place
from simulo.scale import cluster


def _fake_ray(error: Exception) -> types.SimpleNamespace:
    def init(**kwargs: Any) -> None:
        raise error

    return types.SimpleNamespace(is_initialized=lambda: False, init=init, shutdown=lambda: None)


def test_pick_place_bad_address_is_a_message_and_exit_1(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cluster, "require_ray", lambda: _fake_ray(ValueError("Invalid address format: foo")))
    assert pick_place.main(["--trials", "1", "--address", "foo"]) == 1
    err = capsys.readouterr().err
    assert "simulo pick-place: address 'foo' is not a Ray address" in err
    assert "Traceback" not in err
