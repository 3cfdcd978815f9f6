"""A job function's parameters as command-line flags.

Parameter ``num_envs`` is flag ``--num-envs`` (``--num_envs`` is accepted too). The annotation gives
the type; without one, the default's type does, and otherwise the value stays text:

============================  ==========================================================
annotation                    accepted values
============================  ==========================================================
``int``, ``float``, ``str``   ``--x 3``, ``--x=3``; ints reject ``3.5``
``bool``                      ``--x`` / ``--no-x``, or ``--x true|false|yes|no|on|off|1|0``
``pathlib.Path``              any text, made a ``Path``
``Literal["a", 2]``           one of the listed values
an ``Enum`` subclass          a member's name or value
``Optional[T]`` / ``T | None``  a ``T``, or ``none``
``simulo.PolicyCheckpoint``   a checkpoint reference (``best.pt``, ``RUN_DIR:best``, ``latest``);
                              the job's process resolves it (:mod:`simulo.platform.policies`)
============================  ==========================================================

A parameter without a default is a required flag. A parameter of another type (``list[int]``) gets
no flag: it keeps its default, and a job that has no default for it cannot run from the command line.
Errors are :class:`JobError` naming the flag, the bad value and the expected type.
"""

from __future__ import annotations

import difflib
import enum
import inspect
import math
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

from simulo.errors import JobError
from simulo.platform.policies import REFERENCE_HELP, PolicyCheckpoint

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "null")
_SCALARS: dict[type, str] = {int: "int", float: "float", str: "text", bool: "bool", Path: "path"}


@dataclass(frozen=True)
class Flag:
    """One job parameter as a command-line flag.

    Attributes:
        name: The parameter name.
        kind: ``int``, ``float``, ``str``, ``bool``, ``path``, ``literal``, ``enum``, ``checkpoint``
            (the reference text, resolved in the job's process), or ``unsupported`` (no flag).
        optional: Whether ``none`` is accepted.
        required: Whether the parameter has no default.
        default: The default (``inspect.Parameter.empty`` when required).
        choices: Allowed values for ``literal`` and ``enum`` kinds.
        type_text: The type as shown in help and error messages.
    """

    name: str
    kind: str
    optional: bool
    required: bool
    default: Any
    choices: tuple[Any, ...]
    type_text: str

    @property
    def flag(self) -> str:
        """``--num-envs`` for ``num_envs``."""
        return "--" + self.name.replace("_", "-")

    @property
    def settable(self) -> bool:
        """Whether the command line can set this parameter."""
        return self.kind != "unsupported"

    def usage(self) -> str:
        """One help line: the flag, its type, and its default or ``required``."""
        left = f"{self.flag}/--no-{self.flag[2:]}" if self.kind == "bool" else f"{self.flag} {self.metavar()}"
        if not self.settable:
            return f"{self.name}: {self.type_text} (no flag: keeps its default {_show(self.default)})"
        tail = "required" if self.required else f"default {_show(self.default)}"
        return f"{left}  ({self.type_text}; {tail})"

    def metavar(self) -> str:
        if self.kind in ("literal", "enum"):
            return "{" + ",".join(str(_choice_text(c)) for c in self.choices) + "}"
        return {"int": "INT", "float": "FLOAT", "str": "TEXT", "path": "PATH", "bool": "BOOL",
                "checkpoint": "CHECKPOINT"}.get(self.kind, "VALUE")

    def convert(self, raw: str) -> Any:
        """Convert one command-line value to the parameter's type.

        Raises:
            JobError: the value does not fit; the message names the flag, the value and the type.
        """
        if self.optional and raw.strip().lower() in _NONE:
            return None
        try:
            return self._convert(raw)
        except (ValueError, KeyError):
            raise JobError(f"{self.flag}: invalid value {raw!r}; expected {self.type_text}") from None

    def _convert(self, raw: str) -> Any:
        if self.kind == "int":
            return int(raw.strip())
        if self.kind == "float":
            number = float(raw.strip())
            if not math.isfinite(number):
                raise JobError(f"{self.flag}: invalid value {raw!r}; expected a finite number (NaN and "
                               "infinities cannot be saved in params.json)")
            return number
        if self.kind == "bool":
            lowered = raw.strip().lower()
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
            raise ValueError(raw)
        if self.kind == "path":
            return Path(raw)
        if self.kind == "checkpoint":
            if not raw.strip():
                raise ValueError(raw)
            return raw.strip()
        if self.kind in ("literal", "enum"):
            for choice in self.choices:
                if raw == str(_choice_text(choice)) or (isinstance(choice, enum.Enum) and raw == choice.name):
                    return choice
            raise ValueError(raw)
        return raw


def _show(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return repr(value.value)
    if isinstance(value, Path):
        return repr(str(value))
    return repr(value)


def _choice_text(choice: Any) -> Any:
    return choice.value if isinstance(choice, enum.Enum) else choice


def _describe(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _resolve_annotations(fn: Callable[..., Any]) -> dict[str, Any]:
    """The function's annotations, evaluated where possible (PEP 563 strings included)."""
    try:
        return typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - one bad annotation must not hide the good ones
        pass
    hints: dict[str, Any] = {}
    namespace = dict(getattr(fn, "__globals__", {}))
    for name, annotation in getattr(fn, "__annotations__", {}).items():
        if isinstance(annotation, str):
            try:
                annotation = eval(annotation, namespace)  # noqa: S307 - the app's own annotation text
            except Exception:  # noqa: BLE001
                pass
        hints[name] = annotation
    return hints


def _classify(annotation: Any, default: Any) -> tuple[str, bool, tuple[Any, ...], str]:
    """(kind, optional, choices, type_text) for an annotation (or the default's type if none)."""
    if annotation is inspect.Parameter.empty:
        if default is inspect.Parameter.empty or default is None:
            return "str", default is None, (), "text"
        annotation = type(default)
    optional = False
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) != 1:
            return "unsupported", False, (), _describe(annotation)
        optional = True
        annotation = members[0]
        origin = typing.get_origin(annotation)
    suffix = " or none" if optional else ""
    if origin is Literal:
        choices = typing.get_args(annotation)
        return "literal", optional, choices, "one of " + ", ".join(repr(c) for c in choices) + suffix
    if _is_checkpoint_type(annotation):
        return "checkpoint", optional, (), "checkpoint: " + REFERENCE_HELP + suffix
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        choices = tuple(annotation)
        return "enum", optional, choices, "one of " + ", ".join(repr(_choice_text(c)) for c in choices) + suffix
    if isinstance(annotation, type):
        for scalar, text in _SCALARS.items():
            if annotation is scalar or (scalar is Path and issubclass(annotation, Path)):
                kind = "path" if scalar is Path else scalar.__name__
                return kind, optional, (), text + suffix
    return "unsupported", False, (), _describe(annotation)


def _is_checkpoint_type(annotation: Any) -> bool:
    """``simulo.PolicyCheckpoint``, or the SDK's class of that name (``simulo.interfaces``)."""
    return (
        isinstance(annotation, type)
        and annotation.__name__ == PolicyCheckpoint.__name__
        and annotation.__module__.split(".")[0] == "simulo"
    )


def job_flags(fn: Callable[..., Any]) -> list[Flag]:
    """The flags of a job function's parameters, in signature order (``*args``/``**kwargs`` skipped).

    Raises:
        JobError: a parameter is positional-only.
    """
    hints = _resolve_annotations(fn)
    flags: list[Flag] = []
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise JobError(f"job {fn.__name__!r}: parameter {name!r} is positional-only; jobs take keyword arguments")
        kind, optional, choices, text = _classify(hints.get(name, param.annotation), param.default)
        required = param.default is inspect.Parameter.empty
        flags.append(Flag(name, kind, optional, required, param.default, choices, text))
    return flags


def parse_flags(flags: Sequence[Flag], argv: Sequence[str]) -> dict[str, Any]:
    """Parse job flags into keyword arguments; unset parameters keep their defaults (absent here).

    Raises:
        JobError: a positional value, an unknown or repeated flag, a missing value, a value of the
            wrong type, or a required flag that was not given. A required parameter that has no flag
            (unsupported type) is a :class:`JobError` too.
    """
    by_flag: dict[str, Flag] = {}
    for f in flags:
        if f.settable:
            by_flag[f.flag] = f
            by_flag["--" + f.name] = f
    negations = {f"--no-{f.flag[2:]}": f for f in flags if f.kind == "bool"}
    values: dict[str, Any] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if not token.startswith("--") or token == "--":
            raise JobError(f"unexpected argument {token!r}; job parameters are given as --name value")
        key, eq, inline = token.partition("=")
        if key in negations and not eq:
            flag, value = negations[key], False
        elif key in by_flag:
            flag = by_flag[key]
            if eq:
                value = flag.convert(inline)
            elif flag.kind == "bool":
                value = True
                if i < len(argv) and argv[i].strip().lower() in _TRUE + _FALSE:
                    value = flag.convert(argv[i])
                    i += 1
            elif i < len(argv) and not _is_flag(argv[i], by_flag, negations):
                value = flag.convert(argv[i])
                i += 1
            else:
                raise JobError(f"{flag.flag} needs a value ({flag.type_text})")
        else:
            raise JobError(_unknown_message(key, flags))
        if flag.name in values:
            raise JobError(f"{flag.flag} was given more than once")
        values[flag.name] = value
    missing = [f for f in flags if f.required and f.name not in values]
    if missing:
        first = missing[0]
        if not first.settable:
            raise JobError(
                f"parameter {first.name!r} has type {first.type_text}, which no command-line flag can set; "
                "give it a default in the job function"
            )
        raise JobError("missing required flag(s): " + ", ".join(f"{f.flag} ({f.type_text})" for f in missing))
    return values


def _is_flag(token: str, by_flag: dict[str, Flag], negations: dict[str, Flag]) -> bool:
    key = token.partition("=")[0]
    return key in by_flag or key in negations


def _unknown_message(key: str, flags: Sequence[Flag]) -> str:
    known = [f.flag for f in flags if f.settable] + [f"--no-{f.flag[2:]}" for f in flags if f.kind == "bool"]
    message = f"unknown flag {key!r}"
    close = difflib.get_close_matches(key, known, n=1)
    if close:
        message += f"; did you mean {close[0]}?"
    return message + (f" (this job's flags: {', '.join(known)})" if known else " (this job takes no flags)")


def jsonable_params(values: dict[str, Any]) -> dict[str, Any]:
    """Parsed values as JSON-ready data (paths as text, enum members as their values)."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, enum.Enum):
            value = value.value
        elif isinstance(value, Path):
            value = str(value)
        out[name] = value
    return out
