"""Checks a report against the SDK's TypedDicts (simulo-interfaces), key for key and type for type.

``shape_errors(value, "PreviewReport")`` lists every place ``value`` differs from the TypedDict of that name in
``simulo.interfaces.platform.preview`` or ``.evaluation``: a missing required key, a key the TypedDict does not
declare, or a value of another type (``float`` means a finite real number, ``bool`` is not an ``int``).
"""

from __future__ import annotations

import math
import types
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints, is_typeddict

from simulo.interfaces.platform import evaluation, preview


def _typed_dict(name: str) -> Any:
    return getattr(preview, name, None) or getattr(evaluation, name)


def shape_errors(value: Any, expected: Any, where: str = "report") -> list[str]:
    """Every difference between ``value`` and ``expected`` (a TypedDict, its name, or an annotation)."""
    if isinstance(expected, str):
        expected = _typed_dict(expected)
    origin = get_origin(expected)
    if origin in (Required, NotRequired):
        return shape_errors(value, get_args(expected)[0], where)
    if is_typeddict(expected):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        hints = get_type_hints(expected)
        errors = [f"{where}: missing {key!r}" for key in sorted(expected.__required_keys__ - value.keys())]
        errors += [f"{where}: unexpected key {key!r}" for key in sorted(value.keys() - hints.keys())]
        for key in sorted(value.keys() & hints.keys()):
            errors += shape_errors(value[key], hints[key], f"{where}.{key}")
        return errors
    if origin is Literal:
        return [] if value in get_args(expected) else [f"{where}: {value!r} is not one of {get_args(expected)}"]
    if origin in (Union, types.UnionType):
        options = [shape_errors(value, option, where) for option in get_args(expected)]
        return [] if any(not found for found in options) else min(options, key=len)
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: expected a list, got {type(value).__name__}"]
        (item,) = get_args(expected)
        return [error for i, entry in enumerate(value) for error in shape_errors(entry, item, f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        key_type, item = get_args(expected)
        errors = [f"{where}: key {key!r} is not {key_type.__name__}" for key in value if not isinstance(key, key_type)]
        for key, entry in value.items():
            errors += shape_errors(entry, item, f"{where}[{key!r}]")
        return errors
    if expected is Any:
        return []
    if expected is type(None):
        return [] if value is None else [f"{where}: expected null, got {value!r}"]
    if expected is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        return [] if ok else [f"{where}: expected a finite number, got {value!r}"]
    if expected in (int, str):
        ok = isinstance(value, expected) and not isinstance(value, bool)
        return [] if ok else [f"{where}: expected {expected.__name__}, got {value!r}"]
    if expected is bool:
        return [] if isinstance(value, bool) else [f"{where}: expected a boolean, got {value!r}"]
    return [f"{where}: cannot check {expected!r}"]
