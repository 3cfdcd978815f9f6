"""frozen_dataclass gives a class the methods dataclass(frozen=True) would, without exec."""

from __future__ import annotations

import builtins
import copy
import dataclasses
import inspect
import pickle
import re
from dataclasses import field
from typing import Any, ClassVar

import pytest

from simulo.frozen import frozen_dataclass, mutable_dataclass


def _pair(body: dict[str, Any], bases: tuple[type, ...] = ()) -> tuple[type, type]:
    """The same class body made by frozen_dataclass and by dataclass(frozen=True)."""
    ours = frozen_dataclass(type("Shape", bases[:1], dict(body)))
    theirs = dataclasses.dataclass(frozen=True)(type("Shape", bases[1:], dict(body)))
    return ours, theirs


BODY: dict[str, Any] = {
    "__annotations__": {"name": "str", "size": "float", "tags": "list[str]", "color": "str | None",
                        "note": "str", "cache": "int"},
    "size": 1.0,
    "tags": field(default_factory=list),
    "color": field(default=None, kw_only=True),
    "note": field(default="", repr=False, compare=False),
    "cache": field(default=0, init=False),
}


def test_init_repr_eq_hash_and_signature_match_the_standard_library() -> None:
    ours, theirs = _pair(BODY)
    for args, kwargs in [(("a",), {}), (("a", 2.0), {"color": "red"}), ((), {"name": "b", "note": "x"})]:
        a, b = ours(*args, **kwargs), theirs(*args, **kwargs)
        assert repr(a) == repr(b)
        assert dataclasses.asdict(a) == dataclasses.asdict(b)
        assert dataclasses.astuple(a) == dataclasses.astuple(b)
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert ours.__doc__ == theirs.__doc__  # undocumented: its name and signature
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(theirs)]
    assert ours("a", note="x") == ours("a", note="y")  # compare=False
    assert ours("a") != ours("b")
    assert ours("a").__eq__(theirs("a")) is NotImplemented
    assert hash(ours("a", tags=())) == hash(theirs("a", tags=()))
    assert ours("a").tags is not ours("a").tags  # a fresh default_factory value each time


def test_assignment_and_deletion_raise_frozen_instance_error() -> None:
    ours, _ = _pair(BODY)
    shape = ours("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        shape.size = 2.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        del shape.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        shape.other = 1


def test_replace_copy_and_pickle_keep_the_values() -> None:
    ours, _ = _pair(BODY)
    shape = ours("a", 2.0, ["t"], color="red")
    assert dataclasses.replace(shape, size=3.0) == ours("a", 3.0, ["t"], color="red")
    assert copy.deepcopy(shape) == shape
    global Shape  # pickle finds the class by its module and name
    Shape = ours
    try:
        assert pickle.loads(pickle.dumps(shape)) == shape
    finally:
        del Shape


@pytest.mark.parametrize(("args", "kwargs", "words"), [
    ((), {}, "missing required argument(s): 'name'"),
    (("a", 1.0, [], "n", "red"), {}, "takes 4 positional argument(s) but 5 were given"),
    (("a",), {"name": "b"}, "multiple values for argument 'name'"),
    (("a",), {"cache": 1}, "unexpected keyword argument 'cache'"),
])
def test_a_wrong_call_is_a_type_error_like_the_standard_librarys(args: tuple[Any, ...], kwargs: dict[str, Any],
                                                                    words: str) -> None:
    ours, theirs = _pair(BODY)
    with pytest.raises(TypeError, match=re.escape(words)):
        ours(*args, **kwargs)
    with pytest.raises(TypeError):
        theirs(*args, **kwargs)


def test_post_init_inheritance_and_the_class_s_own_methods() -> None:
    @frozen_dataclass
    class Base:
        x: float

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError(f"x must be >= 0, got {self.x}")
            object.__setattr__(self, "x", float(self.x))

        def __repr__(self) -> str:
            return "mine"

    @frozen_dataclass
    class Child(Base):
        y: int = 0

        def __post_init__(self) -> None:
            super().__post_init__()
            object.__setattr__(self, "y", self.y * 2)

    assert dataclasses.astuple(Child(1, 2)) == (1.0, 4)
    assert repr(Base(1)) == "mine"  # its own, kept
    assert repr(Child(1)).endswith("Child(x=1.0, y=0)")  # a subclass gets the made one, as the standard library does
    assert Child(1, 2) == Child(1.0, 2) and Child(1) != Base(1)
    with pytest.raises(ValueError, match="x must be >= 0"):
        Child(-1)


def test_explicit_hash_none_and_refused_declarations() -> None:
    @frozen_dataclass
    class Unhashable:
        x: int
        __hash__ = None  # type: ignore[assignment]

    with pytest.raises(TypeError):
        hash(Unhashable(1))
    with pytest.raises(TypeError, match="cannot overwrite attribute __setattr__"):
        frozen_dataclass(type("Bad", (), {"__annotations__": {"x": "int"}, "__setattr__": object.__setattr__}))
    with pytest.raises(TypeError, match="InitVar and ClassVar fields are not supported"):
        frozen_dataclass(type("Bad", (), {"__annotations__": {"x": ClassVar[int]}, "x": 1}))


def test_making_a_class_runs_no_exec(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    real = builtins.exec

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(builtins, "exec", counting)
    frozen_dataclass(type("Shape", (), dict(BODY)))
    assert calls == []
    dataclasses.dataclass(frozen=True)(type("Shape", (), dict(BODY)))
    assert len(calls) == 6  # the standard library's six methods, each compiled


def test_a_mutable_dataclass_matches_the_standard_librarys_plain_one() -> None:
    ours = mutable_dataclass(type("Shape", (), dict(BODY)))
    theirs = dataclasses.dataclass(type("Shape", (), dict(BODY)))
    a, b = ours("a", 2.0, color="red"), theirs("a", 2.0, color="red")
    assert repr(a) == repr(b) and dataclasses.asdict(a) == dataclasses.asdict(b)
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    a.size = 3.0
    assert a == ours("a", 3.0, color="red") and a != ours("a", 2.0, color="red")
    assert ours.__hash__ is None and theirs.__hash__ is None


def _fresh_body() -> dict[str, Any]:
    """BODY with its own Field objects (the standard library fills in the ones it is given)."""
    return {**BODY, "tags": field(default_factory=list), "color": field(default=None, kw_only=True),
            "note": field(default="", repr=False, compare=False), "cache": field(default=0, init=False)}


def _described(cls: type) -> list[tuple[Any, ...]]:
    return [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare, dict(f.metadata),
             f.kw_only) for f in dataclasses.fields(cls)]


def test_the_fields_and_class_attributes_are_the_standard_librarys() -> None:
    ours = frozen_dataclass(type("Shape", (), _fresh_body()))
    theirs = dataclasses.dataclass(frozen=True)(type("Shape", (), _fresh_body()))
    assert _described(ours) == _described(theirs)
    assert ours.__match_args__ == theirs.__match_args__ == ("name", "size", "tags", "note")  # type: ignore[attr-defined]
    for name in ("size", "tags", "color", "note", "cache"):  # defaults as class attributes, no Field left
        assert getattr(ours, name, "absent") == getattr(theirs, name, "absent")

    child_body = {"__annotations__": {"size": "float", "extra": "int"}, "size": 5.0, "extra": field(default=3)}
    child = frozen_dataclass(type("Child", (ours,), dict(child_body)))
    reference = dataclasses.dataclass(frozen=True)(type("Child", (theirs,), dict(child_body, extra=field(default=3))))
    assert _described(child) == _described(reference)  # a base's field keeps its place, with the new default
    assert child("a").size == 5.0 and dataclasses.replace(child("a"), extra=4).extra == 4


def test_a_bad_default_is_refused_as_the_standard_library_refuses_it() -> None:
    with pytest.raises(ValueError, match="mutable default <class 'list'> for field tags is not allowed"):
        frozen_dataclass(type("Bad", (), {"__annotations__": {"tags": "list[str]"}, "tags": []}))
    with pytest.raises(TypeError, match="'extra' is a field but has no type annotation"):
        frozen_dataclass(type("Bad", (), {"__annotations__": {}, "extra": field(default=1)}))


def test_kw_only_markers_and_string_pseudo_fields_take_the_standard_librarys_path() -> None:
    body = {"__annotations__": {"a": "int", "_": "dataclasses.KW_ONLY", "b": "int"}, "b": 2}
    ours = frozen_dataclass(type("Marked", (), dict(body)))
    assert [f.kw_only for f in dataclasses.fields(ours)] == [False, True]
    assert str(inspect.signature(ours)) == "(a: 'int', *, b: 'int' = 2) -> None"
    with pytest.raises(TypeError, match="InitVar and ClassVar fields are not supported"):
        frozen_dataclass(type("Bad", (), {"__annotations__": {"x": "ClassVar[int]"}, "x": 1}))


def test_the_class_signature_is_built_on_first_use_and_follows_a_subclass_s_own_init(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from simulo import frozen

    built: list[int] = []
    real = frozen._signature
    monkeypatch.setattr(frozen, "_signature", lambda fields: built.append(len(fields)) or real(fields))
    ours = frozen_dataclass(type("Shape", (), {**_fresh_body(), "__doc__": "A shape."}))
    assert built == []  # nothing built while a documented class is made
    assert str(inspect.signature(ours)) == str(inspect.signature(ours)) == (
        "(name: 'str', size: 'float' = 1.0, tags: 'list[str]' = <factory>, note: 'str' = '', *, "
        "color: 'str | None' = None) -> None")
    assert str(inspect.signature(ours.__init__)).startswith("(self, name: 'str', size")
    assert built == [6]  # once, for the class and its __init__

    class Plain(ours):  # type: ignore[misc,valid-type]
        pass

    class Own(ours):  # type: ignore[misc,valid-type]
        def __init__(self, radius: float) -> None:
            super().__init__("round")

    assert str(inspect.signature(Plain)) == str(inspect.signature(ours))  # the inherited __init__'s
    assert str(inspect.signature(Own)) == "(radius: 'float') -> 'None'"  # its own
    assert Own(2.0).name == "round"


@pytest.mark.parametrize("make", [frozen_dataclass, mutable_dataclass], ids=["frozen", "mutable"])
def test_the_made_init_shows_the_standard_librarys_signature(make: Any) -> None:
    """``help()`` and tools that read ``cls.__init__`` see the fields, as for the standard library's ``__init__``."""
    ours = make(type("Shape", (), dict(BODY)))
    theirs = dataclasses.dataclass(type("Shape", (), dict(BODY)))
    assert str(inspect.signature(ours.__init__)) == str(inspect.signature(theirs.__init__)) == (
        "(self, name: 'str', size: 'float' = 1.0, tags: 'list[str]' = <factory>, note: 'str' = '', *, "
        "color: 'str | None' = None) -> None")
    assert str(inspect.signature(ours("a").__init__)) == str(inspect.signature(ours))  # bound: no self
    signature = inspect.signature(ours.__init__)
    standard = inspect.signature(theirs.__init__)
    assert signature == standard and hash(signature) == hash(standard)
    assert signature.bind(None, "a", color="red").arguments == {"self": None, "name": "a", "color": "red"}
    for copied in (pickle.loads(pickle.dumps(signature)), copy.copy(signature), copy.deepcopy(signature),
                   signature.replace(), signature.__replace__()):
        assert type(copied) is inspect.Signature and str(copied) == str(signature)  # <factory> is copied too
    assert str(signature.replace(return_annotation="int")).endswith("-> 'int'")
