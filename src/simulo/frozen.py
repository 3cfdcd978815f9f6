"""Dataclasses made without ``exec``: :func:`frozen_dataclass` and :func:`mutable_dataclass`.

``dataclasses.dataclass(frozen=True)`` writes the source text of six methods for every class (``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``) and compiles each one with ``exec``
(about 1 ms a class on the 2-core dev machine, two thirds of what ``simulo pick-place`` spends importing
simulo's own modules). :func:`frozen_dataclass` collects the fields as the standard library does, into the
standard library's ``Field`` objects, so ``dataclasses.fields``, ``replace``, ``asdict``, ``astuple`` and
``is_dataclass`` work as before, and gives the class those six methods from definitions written once here,
which read the class's fields when called. The fields are collected here for plain annotations (a third of
the standard library's time, which mostly goes to matching every string annotation against ``ClassVar``,
``InitVar`` and ``KW_ONLY``); a class whose annotations name one of those, or that has ``__slots__``, is
handed to the standard library's own collection.

The methods behave as the standard library's: field order, defaults and ``default_factory``, ``kw_only`` and
``init=False`` fields, ``__post_init__``, ``repr=False``/``compare=False``/``hash=`` per field, equality only
between instances of the same class, ``FrozenInstanceError`` on assignment and deletion, and the class's own
``__init__``, ``__repr__``, ``__eq__`` or ``__hash__`` kept when it defines one (``tests/test_frozen.py``
compares both). :func:`mutable_dataclass` is the same for a plain ``@dataclass`` (no ``__hash__``, fields
assignable). ``inspect.signature`` of the class and of its ``__init__`` (so ``help()`` and editors) give the
same parameters: the made ``__init__``'s ``__signature__``, whose parameters are built on first read (building
them for every class at import was a third of its cost). What differs:

- ``__dataclass_params__`` reports ``init``, ``repr``, ``eq`` and ``frozen`` as False (the standard library
  did not write those methods), so a subclass must use the same decorator;
- ``InitVar`` and ``ClassVar`` pseudo-fields are refused (TypeError) rather than supported;
- a wrong call names the problem in its own words (still a TypeError);
- the made ``__init__``'s ``__annotations__`` are those of ``(self, *args, **kwargs)``, so
  ``typing.get_type_hints(cls.__init__)`` does not list the fields (``inspect.signature`` does).

It is public, for apps whose configuration classes are built at start-up (the pick-and-place app's are).
"""

from __future__ import annotations

import abc
import dataclasses
import inspect
import operator
import reprlib
import types
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar, dataclass_transform

_T = TypeVar("_T")
_MISSING: Any = dataclasses.MISSING
_EMPTY = inspect.Parameter.empty
_FACTORY: Any = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", _EMPTY)  # shown as <factory>, as the standard library does


@dataclasses.dataclass(init=False, repr=False, eq=False)
class _Collected:
    """What ``dataclasses.dataclass(cls, init=False, repr=False, eq=False)`` leaves on a class, made once."""

    field: int


_PARAMS = _Collected.__dataclass_params__  # type: ignore[attr-defined]
_FIELD_MARK = _Collected.__dataclass_fields__["field"]._field_type  # type: ignore[attr-defined]


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
    """Collect the fields as the standard library does (no methods written, so no ``exec``); refuse pseudo-fields."""
    annotations = inspect.get_annotations(cls)  # the class's own, as the standard library reads them
    if "__slots__" in cls.__dict__ or not all(map(_plain, annotations.values())) or any(
            getattr(getattr(base, "__dataclass_params__", None), "frozen", False) for base in cls.__mro__[1:]):
        dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    else:
        _collect(cls, annotations)
    fields = dataclasses.fields(cls)
    declared = cls.__dict__["__dataclass_fields__"]
    if len(declared) != len(fields):
        pseudo = sorted(set(declared) - {f.name for f in fields})
        raise TypeError(f"dataclass {cls.__name__}: InitVar and ClassVar fields are not supported, got {pseudo}")
    return fields


def _plain(annotation: Any) -> bool:
    """Whether an annotation surely declares a plain field (not a ``ClassVar``, ``InitVar`` or ``KW_ONLY``)."""
    if isinstance(annotation, str):
        return "ClassVar" not in annotation and "InitVar" not in annotation and "KW_ONLY" not in annotation
    return not (annotation is dataclasses.KW_ONLY or annotation is dataclasses.InitVar or annotation is ClassVar
                or isinstance(annotation, dataclasses.InitVar) or getattr(annotation, "__origin__", None) is ClassVar)


def _collect(cls: type, annotations: dict[str, Any]) -> None:
    """What ``dataclasses.dataclass(cls, init=False, repr=False, eq=False)`` does to a class of plain fields.

    The fields of dataclass bases (in reverse method resolution order), then the class's own, each a
    ``dataclasses.Field`` named, typed and marked as the standard library marks a field; defaults replace
    ``field()`` class attributes; ``__dataclass_fields__``, ``__dataclass_params__`` and ``__match_args__`` set.

    Raises:
        ValueError: A default is a mutable (unhashable) value.
        TypeError: A ``field()`` class attribute has no annotation.
    """
    fields: dict[str, dataclasses.Field[Any]] = {}
    for base in cls.__mro__[-1:0:-1]:
        inherited = getattr(base, "__dataclass_fields__", None)
        if inherited is not None:
            fields.update((f.name, f) for f in inherited.values())
    own = []
    for name, annotation in annotations.items():
        default = getattr(cls, name, _MISSING)
        if isinstance(default, dataclasses.Field):
            made = default
        else:  # a slot inherited from a base is no default, as for the standard library
            made = dataclasses.field(default=_MISSING if isinstance(default, types.MemberDescriptorType) else default)
        made.name, made.type = name, annotation
        made._field_type = _FIELD_MARK  # type: ignore[attr-defined]
        if made.kw_only is _MISSING:
            made.kw_only = False
        if made.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(made.default)} for field {name} is not allowed: use "
                             "default_factory")
        own.append(made)
    for made in own:
        fields[made.name] = made
        if isinstance(getattr(cls, made.name, None), dataclasses.Field):
            if made.default is _MISSING:
                delattr(cls, made.name)
            else:
                setattr(cls, made.name, made.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, dataclasses.Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    setattr(cls, "__dataclass_fields__", fields)  # noqa: B010 (the names the standard library reads)
    setattr(cls, "__dataclass_params__", _PARAMS)  # noqa: B010
    if "__match_args__" not in cls.__dict__:
        setattr(cls, "__match_args__", tuple(f.name for f in fields.values() if f.init and not f.kw_only))  # noqa: B010
    abc.update_abstractmethods(cls)


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


class _InitSignature(inspect.Signature):
    """The ``__signature__`` of a made ``__init__``: ``(self, <the init fields>) -> None``, built on first read.

    ``inspect.signature`` returns it for the ``__init__`` and derives the class's from it (without ``self``), as
    for the standard library's ``__init__``. It keeps the fields and builds the parameters when something first
    reads them: its properties stand in for the two slots of :class:`inspect.Signature` that every method of
    that class reads. A changed copy (``replace``, as ``inspect`` makes for the class) and a pickled one are
    plain :class:`inspect.Signature` objects.
    """

    __slots__ = ("_built", "_fields")

    def __init__(self, fields: tuple[dataclasses.Field[Any], ...]) -> None:  # not Signature's: nothing built yet
        self._fields = fields
        self._built: inspect.Signature | None = None

    @property
    def _parameters(self) -> Mapping[str, inspect.Parameter]:
        return self._signature().parameters

    @property
    def _return_annotation(self) -> None:
        return None

    def _signature(self) -> inspect.Signature:
        if self._built is None:
            self._built = _signature(self._fields)
        return self._built

    def replace(self, **changes: Any) -> inspect.Signature:  # type: ignore[override]  # a plain Signature
        """The built signature with ``changes`` (``parameters``, ``return_annotation``), as a plain Signature."""
        return self._signature().replace(**changes)

    __replace__ = replace  # type: ignore[assignment]  # copy.replace (Python 3.13), as replace

    def __reduce__(self) -> str | tuple[Any, ...]:
        return self._signature().__reduce__()


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """A generic ``__init__`` for ``fields``; its ``__signature__`` gives the standard library's parameters."""
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

    setattr(__init__, "__signature__", _InitSignature(fields))  # noqa: B010 (read by inspect.signature)
    return __init__


def _signature(fields: tuple[dataclasses.Field[Any], ...]) -> inspect.Signature:
    """``(self, a, b=1, *, c=2) -> None``: ``self``, then the init fields, keyword-only ones after the others."""
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
