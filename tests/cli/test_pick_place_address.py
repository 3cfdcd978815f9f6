"""simulo pick-place --address: a malformed address is a usage error; one where nothing listens fails in seconds."""

from __future__ import annotations

import socket
import types
from typing import Any

import pytest

from simulo.cli import pick_place
from simulo.scale import cluster


def _closed_port() -> int:
    """A loopback port nothing listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _no_ray() -> types.SimpleNamespace:
    def init(**kwargs: Any) -> None:
        raise AssertionError("Ray must not be asked to join an address nothing listens on")

    return types.SimpleNamespace(is_initialized=lambda: False, init=init, shutdown=lambda: None)


def test_pick_place_malformed_address_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert pick_place.main(["--trials", "1", "--address", "foo"]) == 2
    err = capsys.readouterr().err
    assert err == ("simulo pick-place: error: --address: address 'foo' is not a Ray address; expected "
                   "'HOST:6379', 'ray://HOST:10001' or 'auto' (see 'simulo pick-place --help')\n")


def test_pick_place_unreachable_address_is_one_line_and_exit_1(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cluster, "require_ray", _no_ray)
    port = _closed_port()
    assert pick_place.main(["--trials", "1", "--address", f"127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"simulo pick-place: cannot reach a Ray cluster at '127.0.0.1:{port}': Connection refused; is the cluster "
        "running (ray start --head) and the port open?")
