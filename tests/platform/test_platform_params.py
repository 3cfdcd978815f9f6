"""Job parameters as command-line flags."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Literal

import pytest

from simulo.errors import JobError
from simulo.platform.params import job_flags, parse_flags


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def job(
    num_envs: int,
    lr: float = 0.5,
    name: str = "run",
    render: bool = False,
    mode: Literal["fast", "slow", 3] = "fast",
    seed: int | None = None,
    color: Color = Color.RED,
    out: Path = Path("x"),
    untyped=7,
    tags: list[str] | None = None,
    **extra: object,
) -> dict:
    return {}


FLAGS = job_flags(job)


def parse(*argv: str) -> dict:
    return parse_flags(FLAGS, list(argv))


def test_flag_names_kinds_and_defaults() -> None:
    assert [f.flag for f in FLAGS] == [
        "--num-envs", "--lr", "--name", "--render", "--mode", "--seed", "--color", "--out", "--untyped", "--tags",
    ]
    assert [f.kind for f in FLAGS] == [
        "int", "float", "str", "bool", "literal", "int", "enum", "path", "int", "unsupported",
    ]
    assert FLAGS[0].required and not FLAGS[1].required
    assert FLAGS[5].optional and not FLAGS[0].optional


def test_values_are_typed() -> None:
    values = parse(
        "--num-envs", "64", "--lr=1e-3", "--name", "a b", "--mode", "3", "--seed", "-5",
        "--color", "blue", "--out", "runs/o", "--untyped", "9",
    )
    assert values == {
        "num_envs": 64, "lr": 0.001, "name": "a b", "mode": 3, "seed": -5,
        "color": Color.BLUE, "out": Path("runs/o"), "untyped": 9,
    }
    assert parse("--num-envs", "1") == {"num_envs": 1}  # unset parameters keep their defaults
    assert parse("--num_envs", "2", "--seed", "none")["seed"] is None
    assert parse("--num-envs", "1", "--color", "RED")["color"] is Color.RED


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--render"], True),
        (["--no-render"], False),
        (["--render", "false"], False),
        (["--render=yes"], True),
        (["--render", "0"], False),
    ],
)
def test_bool_spellings(argv: list[str], expected: bool) -> None:
    assert parse("--num-envs", "1", *argv)["render"] is expected


def test_bool_flag_does_not_eat_the_next_flag() -> None:
    assert parse("--render", "--num-envs", "2") == {"render": True, "num_envs": 2}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--num-envs", "4.5"], "--num-envs: invalid value '4.5'; expected int"),
        (["--num-envs", "1", "--lr", "fast"], "--lr: invalid value 'fast'; expected float"),
        (["--num-envs", "1", "--render=maybe"], "--render: invalid value 'maybe'; expected bool"),
        (["--num-envs", "1", "--mode", "medium"], "--mode: invalid value 'medium'; expected one of 'fast', 'slow', 3"),
        (["--num-envs", "1", "--color", "green"], "--color: invalid value 'green'; expected one of 'red', 'blue'"),
        (["--num-envs", "1", "--seed", "x"], "--seed: invalid value 'x'; expected int or none"),
        (["--num-envs", "1", "--num-env", "3"], "unknown flag '--num-env'; did you mean --num-envs?"),
        (["--num-envs", "1", "--tags", "a"], "unknown flag '--tags'"),
        (["--num-envs", "1", "--num-envs", "2"], "--num-envs was given more than once"),
        (["--num-envs"], "--num-envs needs a value (int)"),
        (["--num-envs", "--lr", "1"], "--num-envs needs a value (int)"),
        (["64"], "unexpected argument '64'"),
        (["--lr", "1"], "missing required flag(s): --num-envs (int)"),
    ],
)
def test_bad_flags_name_flag_value_and_type(argv: list[str], message: str) -> None:
    with pytest.raises(JobError) as info:
        parse(*argv)
    assert message in str(info.value)


def test_required_parameter_without_a_flag_is_refused() -> None:
    def needs_list(points: list[int]) -> None:
        return None

    with pytest.raises(JobError, match="'points' has type list\\[int\\], which no command-line flag can set"):
        parse_flags(job_flags(needs_list), [])


def test_positional_only_parameter_is_refused() -> None:
    def positional(x: int, /) -> None:
        return None

    with pytest.raises(JobError, match="positional-only"):
        job_flags(positional)


def test_string_annotations_resolve() -> None:
    namespace: dict = {}
    exec(
        "from __future__ import annotations\n"
        "from typing import Optional\n"
        "def f(a: int = 1, b: Optional[float] = None, c: Missing = 2) -> Missing: ...\n",
        namespace,
    )
    flags = job_flags(namespace["f"])
    assert [(f.kind, f.optional) for f in flags] == [("int", False), ("float", True), ("unsupported", False)]
    assert flags[2].type_text == "Missing"
