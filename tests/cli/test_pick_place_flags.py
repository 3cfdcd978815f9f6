"""``simulo pick-place``'s flags: the plain run's namespace is the parser's, and flags still parse and check."""

from __future__ import annotations

import json

import pytest

from simulo.cli.pick_place import _flags
from simulo.cli.pick_place_defaults import FLAG_DEFAULTS
from simulo.cli.pick_place_flags import parse_flags


def test_the_plain_run_gets_exactly_the_parsers_defaults() -> None:
    parsed = parse_flags(["--json"])
    assert not isinstance(parsed, int)
    assert {**vars(parsed), "json": False} == FLAG_DEFAULTS
    plain = _flags([])
    assert not isinstance(plain, int) and vars(plain) == FLAG_DEFAULTS


def test_given_flags_go_through_the_parser() -> None:
    parsed = _flags(["--friction", "0.4", "--ik", "numeric", "--trials", "3", "--seed", "2", "--noise", "3,2"])
    assert not isinstance(parsed, int)
    assert (parsed.friction, parsed.ik, parsed.trials, parsed.seed, parsed.noise) == (0.4, "numeric", 3, 2, (3.0, 2.0))
    assert parsed.speed == FLAG_DEFAULTS["speed"] and parsed.record is None


@pytest.mark.parametrize(("argv", "status", "message"), [
    (["--speed", "9"], 2, "expected a speed factor between 0.1 and 8, got '9'"),
    (["--seed", "1"], 2, "--seed seeds the random cube starts of --trials N; it needs --trials N"),
    (["--help"], 0, ""),
])
def test_usage_errors_and_help_are_exit_statuses(capsys: pytest.CaptureFixture[str], argv: list[str], status: int,
                                                 message: str) -> None:
    assert _flags(argv) == status
    captured = capsys.readouterr()
    assert message in captured.err
    if status == 0:
        assert captured.out.startswith("usage: simulo pick-place")


@pytest.mark.parametrize("argv", [["--json", "--friction", "nan"], ["--json", "--friction-sweep", "--friction", "0.5"],
                                  ["--trials", "x", "--json"]])
def test_a_usage_error_under_json_is_json_on_stdout(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert parse_flags(argv) == 2
    out, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert json.loads(out) == {"error": line, "exit_status": 2}
    assert line.startswith("simulo pick-place: error: ")


def test_a_usage_error_without_json_leaves_stdout_empty(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_flags(["--friction", "nan"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
