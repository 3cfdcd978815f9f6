"""Dataclasses made without ``exec``: :func:`frozen_dataclass` and :func:`mutable_dataclass`.

``dataclasses.dataclass(frozen=True)`` writes the source text of six methods for every class (``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``) and compiles each one with ``exec``
(about 1 ms a class on the 2-core dev machine, two thirds of what ``simulo pick-place`` spends importing
simulo's own modules). :func:`frozen_dataclass` lets the standard library collect the fields, so
``dataclasses.fields``, ``replace``, ``asdict``, ``astuple`` and ``is_dataclass`` work as before, and gives
the class those six methods from definitions written once here, which read the class's fields when called.

The methods behave as the standard library's: field order, defaults and ``default_factory``, ``kw_only`` and
``init=False`` fields, ``__post_init__``, ``repr=False``/``compare=False``/``hash=`` per field, equality only
between instances of the same class, ``FrozenInstanceError`` on assignment and deletion, and the class's own
``__init__``, ``__repr__``, ``__eq__`` or ``__hash__`` kept when it defines one (``tests/test_frozen.py``
compares both). :func:`mutable_dataclass` is the same for a plain ``@dataclass`` (no ``__hash__``, fields
assignable). ``inspect.signature`` of the class gives the same parameters. What differs:

- ``__dataclass_params__`` reports ``init``, ``repr``, ``eq`` and ``frozen`` as False (the standard library
  did not write those methods), so a subclass must use the same decorator;
- ``InitVar`` and ``ClassVar`` pseudo-fields are refused (TypeError) rather than supported;
- a wrong call names the problem in its own words (still a TypeError).
"""

from __future__ import annotations

import dataclasses
import inspect
import operator
import reprlib
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T")
_MISSING: Any = dataclasses.MISSING
_EMPTY = inspect.Parameter.empty
_FACTORY: Any = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", _EMPTY)  # shown as <factory>, as the standard library does


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen_dataclass(cls: type[_T]) -> type[_T]:
    """Make ``cls`` a frozen dataclass, as ``@dataclasses.dataclass(frozen=True)`` does, without ``exec``.

    Raises:
        TypeError: The class declares ``InitVar`` or ``ClassVar`` fields, or defines ``__setattr__`` or
            ``__delattr__`` (a frozen class cannot).
    """
    for name in ("__setattr__", "__delattr__"):
        if name in cls.__dict__:
            raise TypeError(f"cannot overwrite attribute {name} in frozen class {cls.__name__}")
    explicit_hash = "__hash__" in cls.__dict__ and not (cls.__dict__["__hash__"] is None and "__eq__" in cls.__dict__)
    documented = cls.__dict__.get("__doc__") is not None
    fields = _fields(cls)
    methods = _methods(cls, fields, frozen=True)
    if not explicit_hash:
        methods["__hash__"] = _hash(fields)
    _attach(cls, methods, keep=("__init__", "__repr__", "__eq__"))
    names = frozenset(f.name for f in fields)
    _attach(cls, dict(zip(("__setattr__", "__delattr__"), _frozen(cls, names))), keep=())
    _document(cls, documented)
    return cls


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def mutable_dataclass(cls: type[_T]) -> type[_T]:
    """Make ``cls`` a dataclass, as a plain ``@dataclasses.dataclass`` does (``__hash__`` None), without ``exec``.

    Fields are set through ``setattr`` in ``__init__``, as the standard library's ``self.name = value``.

    Raises:
        TypeError: The class declares ``InitVar`` or ``ClassVar`` fields.
    """
    explicit_hash = "__hash__" in cls.__dict__ and not (cls.__dict__["__hash__"] is None and "__eq__" in cls.__dict__)
    documented = cls.__dict__.get("__doc__") is not None
    fields = _fields(cls)
    methods = _methods(cls, fields, frozen=False)
    _attach(cls, methods, keep=("__init__", "__repr__", "__eq__"))
    if not explicit_hash:
        setattr(cls, "__hash__", None)  # noqa: B010 (eq without frozen: unhashable, as the standard library)
    _document(cls, documented)
    return cls


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    """Let the standard library collect the fields (no methods written, so no ``exec``); refuse pseudo-fields."""
    dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    fields = dataclasses.fields(cls)
    declared = cls.__dict__["__dataclass_fields__"]
    if len(declared) != len(fields):
        pseudo = sorted(set(declared) - {f.name for f in fields})
        raise TypeError(f"dataclass {cls.__name__}: InitVar and ClassVar fields are not supported, got {pseudo}")
    return fields


def _document(cls: type, documented: bool) -> None:
    """An undocumented class gets the standard library's docstring, its name and signature."""
    if not documented:
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")


def _methods(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> dict[str, Callable[..., Any]]:
    return {"__init__": _init(cls, fields, frozen), "__repr__": _repr(fields), "__eq__": _eq(fields)}


def _attach(cls: type, methods: dict[str, Callable[..., Any]], keep: tuple[str, ...]) -> None:
    """Set ``methods`` on ``cls``, except those in ``keep`` that the class body defines itself."""
    for name, method in methods.items():
        if name in keep and name in cls.__dict__:
            continue
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """A generic ``__init__`` for ``fields``, with the signature the standard library would write."""
    positional = tuple(f.name for f in fields if f.init and not f.kw_only)
    accepted = frozenset(f.name for f in fields if f.init)
    plan: tuple[tuple[str, bool, Any, Any], ...] = tuple(
        (f.name, f.init, f.default, f.default_factory) for f in fields)
    post_init = hasattr(cls, "__post_init__")
    set_field = object.__setattr__ if frozen else setattr
    qualname = f"{cls.__qualname__}.__init__()"

    every = tuple(f.name for f in fields)
    plain = positional == every  # every field is a positional init field: a call with all of them is one loop

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if plain and not kwargs and len(args) == len(every):
            for name, value in zip(every, args):
                set_field(self, name, value)
            if post_init:
                self.__post_init__()
            return
        if len(args) > len(positional):
            raise TypeError(f"{qualname} takes {len(positional)} positional argument(s) but {len(args)} were given")
        values = dict(zip(positional, args))
        for key in kwargs:
            if key in values:
                raise TypeError(f"{qualname} got multiple values for argument {key!r}")
            if key not in accepted:
                raise TypeError(f"{qualname} got an unexpected keyword argument {key!r}")
        values.update(kwargs)
        missing = []
        for name, init, default, factory in plan:
            if init and name in values:
                set_field(self, name, values[name])
            elif default is not _MISSING:
                set_field(self, name, default)
            elif factory is not _MISSING:
                set_field(self, name, factory())
            elif init:
                missing.append(name)
        if missing:
            raise TypeError(f"{qualname} missing required argument(s): {', '.join(map(repr, missing))}")
        if post_init:
            self.__post_init__()

    __init__.__signature__ = _signature(fields)  # type: ignore[attr-defined]
    return __init__


def _signature(fields: tuple[dataclasses.Field[Any], ...]) -> inspect.Signature:
    """``(self, a, b=1, *, c=2)``: the init fields, keyword-only ones after the others."""
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for kw_only in (False, True):
        kind = inspect.Parameter.KEYWORD_ONLY if kw_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
        for f in fields:
            if f.init and f.kw_only == kw_only:
                default = f.default if f.default is not _MISSING else (
                    _FACTORY if f.default_factory is not _MISSING else _EMPTY)
                params.append(inspect.Parameter(f.name, kind, default=default, annotation=f.type))
    return inspect.Signature(params, return_annotation=None, __validate_parameters__=False)


def _repr(fields: tuple[dataclasses.Field[Any], ...]) -> Callable[[Any], str]:
    shown = tuple(f.name for f in fields if f.repr)

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these attributes of an object (one C-level call for two or more)."""
    if len(names) == 1:
        single = operator.attrgetter(names[0])
        return lambda obj: (single(obj),)
    if not names:
        return lambda obj: ()
    return operator.attrgetter(*names)


def _eq(fields: tuple[dataclasses.Field[Any], ...]) -> Callable[[Any, object], Any]:
    compared = _values(tuple(f.name for f in fields if f.compare))

    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    return __eq__


def _hash(fields: tuple[dataclasses.Field[Any], ...]) -> Callable[[Any], int]:
    hashed = _values(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))

    def __hash__(self: Any) -> int:
        return hash(hashed(self))

    return __hash__


def _frozen(cls: type[Any], names: frozenset[str]) -> tuple[Callable[..., None], Callable[..., None]]:
    """``__setattr__`` and ``__delattr__`` that refuse the fields (any attribute of ``cls`` itself)."""

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__
