"""@record (envcheck/record.py) against the standard library's own dataclass(frozen=True).

The oracle is CPython's generated code: each case below is declared twice, once with @record and
once with @dataclass(frozen=True), and the two must give the same equality, hash, text,
construction (signature, defaults, factories, __post_init__, errors) and frozenness. Then every
record of envcheck is checked the same way against a twin made from its own fields.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
from dataclasses import FrozenInstanceError, InitVar, dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest

import envcheck
from envcheck.record import compiled_init, is_record, record

V = TypeVar("V")


def _pair(body: dict[str, Any], bases: tuple[type, ...] = ()) -> tuple[type, type]:
    """The same class body made a record and a frozen dataclass."""
    made: list[type] = []
    for decorate in (record, dataclass(frozen=True)):
        namespace = {"__module__": __name__, **body}
        made.append(decorate(type("Case", bases, namespace)))
    return made[0], made[1]


CASES: dict[str, dict[str, Any]] = {
    "no fields": {"__annotations__": {}},
    "one field": {"__annotations__": {"a": "int"}},
    "several": {"__annotations__": {"a": "int", "b": "str", "c": "tuple[int, ...]"}},
    "defaults": {"__annotations__": {"a": "int", "b": "str"}, "b": "x"},
    "compare=False": {"__annotations__": {"a": "int", "b": "int"}, "b": field(compare=False)},
    "hash=False": {"__annotations__": {"a": "int", "b": "int"}, "b": field(hash=False)},
    "hash=True, compare=False": {
        "__annotations__": {"a": "int", "b": "int"},
        "b": field(hash=True, compare=False),
    },
    "repr=False": {"__annotations__": {"a": "int", "b": "int"}, "b": field(repr=False)},
}
# Values for each case's fields, in order: alike pairs and different ones.
VALUES = [(1, "x", (1, 2)), (1, "x", (1, 2)), (2, "x", (1, 2)), (1, "y", (3,)), (1, 1.0, ())]


def _instances(cls: type) -> list[Any]:
    names = [f.name for f in dataclasses.fields(cls)]
    return [cls(**dict(zip(names, values))) for values in VALUES]


@pytest.mark.parametrize("case", sorted(CASES))
def test_equality_hash_and_text_are_the_generated_ones(case: str) -> None:
    ours, theirs = _pair(CASES[case])
    mine, reference = _instances(ours), _instances(theirs)
    assert [repr(x) for x in mine] == [repr(x) for x in reference]
    assert [hash(x) for x in mine] == [hash(x) for x in reference]
    for i, (a, ref_a) in enumerate(zip(mine, reference)):
        for b, ref_b in zip(mine, reference):
            assert (a == b) is (ref_a == ref_b), (case, i)
            assert (a != b) is (ref_a != ref_b), (case, i)
    # Another class, even of the same fields, is never equal; the comparison is not ours to make.
    assert mine[0] != reference[0]
    assert mine[0].__eq__(reference[0]) is NotImplemented


# Class bodies whose construction is compared: the args each is called with, in turn.
INIT_CASES: dict[str, tuple[dict[str, Any], list[tuple[tuple[Any, ...], dict[str, Any]]]]] = {
    "required and defaulted": (
        {"__annotations__": {"a": "int", "b": "str"}, "b": "x"},
        [((1,), {}), ((1, "y"), {}), ((), {"a": 2, "b": "z"}), ((), {}), ((1, 2, 3), {})],
    ),
    "default factory": (
        {"__annotations__": {"a": "int", "b": "list[int]"}, "b": field(default_factory=list)},
        [((1,), {}), ((1, [2]), {}), ((), {"a": 1, "b": None})],
    ),
    "init=False": (
        {
            "__annotations__": {"a": "int", "b": "int", "c": "list[int]"},
            "b": field(default=5, init=False),
            "c": field(default_factory=lambda: [7], init=False),
        },
        [((1,), {}), ((1, 2), {}), ((), {"a": 1, "b": 2})],
    ),
    "keyword only": (
        {"__annotations__": {"a": "int", "b": "int"}, "b": field(default=0, kw_only=True)},
        [((1,), {}), ((1,), {"b": 2}), ((1, 2), {})],
    ),
    "a field named self": (
        {"__annotations__": {"self": "int", "other": "int"}},
        [((1, 2), {}), ((), {"self": 1, "other": 2})],
    ),
    "__post_init__": (
        {
            "__annotations__": {"a": "int"},
            "__post_init__": lambda self: object.__setattr__(self, "seen", self.a * 2),
        },
        [((3,), {}), ((), {})],
    ),
    "no fields": ({"__annotations__": {}}, [((), {}), ((1,), {})]),
}


def _outcome(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What calling `cls` gives: its instance's attributes, or the error's type and text."""
    try:
        made = cls(*args, **kwargs)
    except TypeError as error:
        return ("TypeError", str(error).replace("Case.", ""))
    return dict(vars(made))


@pytest.mark.parametrize("case", sorted(INIT_CASES))
def test_construction_is_the_generated_one(case: str) -> None:
    body, calls = INIT_CASES[case]
    ours, theirs = _pair(body)
    assert str(inspect.signature(compiled_init(ours))) == str(
        inspect.signature(vars(theirs)["__init__"])
    )
    for args, kwargs in calls:
        assert _outcome(ours, args, kwargs) == _outcome(theirs, args, kwargs), (args, kwargs)
    # The factory is called afresh for each instance, as the generated code does.
    if case == "default factory":
        assert ours(1).b is not ours(1).b


def test_init_is_compiled_on_first_use_only() -> None:
    ours, _ = _pair({"__annotations__": {"a": "int"}})
    stub = vars(ours)["__init__"]
    assert stub.__code__.co_varnames[:1] == ("self",) and inspect.signature(
        stub
    ).parameters.keys() == {"self", "args", "kwargs"}
    ours(1)
    assert vars(ours)["__init__"] is not stub
    assert str(inspect.signature(ours)) == "(a: 'int') -> None"
    assert ours(2).a == 2


ORDERED_CASES: dict[str, tuple[dict[str, Any], list[tuple[Any, ...]]]] = {
    "one field": ({"__annotations__": {"a": "int"}}, [(1,), (2,), (1,)]),
    "two fields": ({"__annotations__": {"a": "int", "b": "str"}}, [(1, "b"), (1, "a"), (0, "z")]),
    "compare=False": (
        {"__annotations__": {"a": "int", "b": "int"}, "b": field(compare=False)},
        [(1, 9), (1, 0), (2, 0)],
    ),
}


@pytest.mark.parametrize("case", sorted(ORDERED_CASES))
def test_ordering_is_the_generated_one(case: str) -> None:
    body, rows = ORDERED_CASES[case]
    ours: type = record(order=True)(type("Case", (), {"__module__": __name__, **body}))
    theirs: type = dataclass(frozen=True, order=True)(
        type("Case", (), {"__module__": __name__, **body})
    )
    mine, reference = [ours(*r) for r in rows], [theirs(*r) for r in rows]
    for name in ("__lt__", "__le__", "__gt__", "__ge__"):
        for a, ref_a in zip(mine, reference):
            got = [getattr(a, name)(b) for b in mine]
            assert got == [getattr(ref_a, name)(b) for b in reference], name
            # Another class is not ours to order, as with the generated methods.
            assert getattr(a, name)(ref_a) is NotImplemented
    assert sorted(mine, reverse=True) == [
        ours(*vars(x).values()) for x in sorted(reference, reverse=True)
    ]
    with pytest.raises(TypeError):
        mine[0] < reference[0]  # noqa: B015 - the comparison is what raises
    with pytest.raises(TypeError, match="__lt__"):
        record(order=True)(type("Case", (), {"__lt__": lambda *_: True, "__annotations__": {}}))
    # Without order=True a record is not ordered, as a frozen dataclass is not.
    with pytest.raises(TypeError):
        _pair(body)[0](*rows[0]) < _pair(body)[0](*rows[1])  # noqa: B015


def _frozen_outcome(instance: Any, name: str, delete: bool) -> str:
    try:
        if delete:
            delattr(instance, name)
        else:
            setattr(instance, name, 9)
    except (FrozenInstanceError, AttributeError) as error:
        return f"{type(error).__name__}: {error}"
    return f"set {getattr(instance, name, None)!r}"


@pytest.mark.parametrize("delete", [False, True])
def test_frozen_as_the_generated_methods_are(delete: bool) -> None:
    ours, theirs = _pair({"__annotations__": {"a": "int"}})

    class PlainOurs(ours):  # type: ignore[misc, valid-type]
        pass

    class PlainTheirs(theirs):  # type: ignore[misc, valid-type]
        pass

    for mine, reference in ((ours, theirs), (PlainOurs, PlainTheirs)):
        for name in ("a", "new"):
            a, b = mine(1), reference(1)
            if delete and name == "new":
                object.__setattr__(a, "new", 1)
                object.__setattr__(b, "new", 1)
            assert _frozen_outcome(a, name, delete) == _frozen_outcome(b, name, delete)
    # A plain subclass may add attributes, and never touch a field.
    assert _frozen_outcome(PlainOurs(1), "new", False) == "set 9"
    assert _frozen_outcome(PlainOurs(1), "a", False).startswith("FrozenInstanceError")


def test_what_a_frozen_dataclass_refuses_a_record_refuses() -> None:
    def own_setattr(self: Any, name: str, value: Any) -> None:
        pass

    for body in (
        {"__annotations__": {"a": "int"}, "__setattr__": own_setattr},
        {"__annotations__": {"a": "int"}, "__delattr__": own_setattr},
        {"__annotations__": {"a": "int", "b": "int"}, "a": 0},  # non-default after default
    ):
        for decorate in (record, dataclass(frozen=True)):
            with pytest.raises(TypeError):
                decorate(type("Case", (), {"__module__": __name__, **body}))
    with pytest.raises(TypeError, match="InitVar"):
        record(type("Case", (), {"__module__": __name__, "__annotations__": {"a": InitVar[int]}}))
    # Inheritance: frozen and not frozen do not mix, whichever comes first.
    frozen: type = dataclass(frozen=True)(type("Frozen", (), {"__annotations__": {"a": "int"}}))
    with pytest.raises(TypeError):
        record(type("Case", (frozen,), {"__module__": __name__}))
    ours: type = record(type("Ours", (), {"__module__": __name__, "__annotations__": {"a": "int"}}))
    derived: type = record(
        type("Derived", (ours,), {"__module__": __name__, "__annotations__": {"b": "int"}, "b": 0})
    )
    assert vars(derived(1)) == {"a": 1, "b": 0}


@record
class Pair:
    a: int
    b: str = "x"


def test_a_record_is_a_frozen_dataclass() -> None:
    one = Pair(a=1)
    assert dataclasses.is_dataclass(one)
    assert dataclasses.replace(one, b="y") == Pair(1, "y")
    assert dataclasses.asdict(one) == {"a": 1, "b": "x"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.a = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del one.a


def test_a_method_the_class_writes_is_kept() -> None:
    @record
    class Written:  # noqa: PLW1641 - the hash is what this checks
        a: int

        def __eq__(self, other: object) -> bool:
            return True

        def __repr__(self) -> str:
            return "mine"

    assert Written(1) == Written(2)
    assert repr(Written(1)) == "mine"
    # Writing __eq__ leaves __hash__ None in the class body; as with dataclass(frozen=True),
    # the record still gets the hash of its fields.
    assert hash(Written(1)) == hash((1,))

    @record
    class OwnHash:
        a: int

        def __hash__(self) -> int:
            return 7

    assert hash(OwnHash(1)) == 7


def test_subclasses_and_generics_compare_as_dataclasses_do() -> None:
    @record
    class Base:
        a: int

    @record
    class Derived(Base):
        b: int = 0

    @dataclass(frozen=True)
    class BaseRef:
        a: int

    @dataclass(frozen=True)
    class DerivedRef(BaseRef):
        b: int = 0

    assert (Base(1) == Derived(1)) is (BaseRef(1) == DerivedRef(1)) is False
    assert repr(Derived(1, 2)) == repr(DerivedRef(1, 2)).replace("DerivedRef", "Derived")
    assert hash(Derived(1, 2)) == hash(DerivedRef(1, 2))

    @record
    class Box(Generic[V]):
        value: V

    assert Box(1) == Box(1) and hash(Box("a")) == hash(("a",))


def test_a_record_that_holds_itself_is_shown_without_recursing() -> None:
    @record
    class Holder:
        items: list[Any]

    holder = Holder([])
    holder.items.append(holder)
    assert (
        repr(holder)
        == "test_a_record_that_holds_itself_is_shown_without_recursing.<locals>.Holder(items=[...])"
    )


# --- every record of envcheck, against a twin made from its own fields ------------------------


def _records() -> list[type]:
    found = []
    for module in pkgutil.walk_packages(envcheck.__path__, "envcheck."):
        if ".children" in module.name or module.name.endswith("__main__"):
            continue  # children run as scripts in other interpreters; __main__ runs the CLI
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            if isinstance(value, type) and value.__module__ == module.name and is_record(value):
                found.append(value)
    return found


RECORDS = _records()


def _twin(cls: type) -> type:
    """A frozen dataclass with `cls`'s name and fields (their compare, hash and repr kept)."""
    namespace: dict[str, Any] = {
        "__annotations__": {f.name: "object" for f in dataclasses.fields(cls)},
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
    }
    for f in dataclasses.fields(cls):
        namespace[f.name] = field(compare=f.compare, hash=f.hash, repr=f.repr)
    return dataclass(frozen=True)(type(cls.__name__, (), namespace))


def _filled(cls: type, values: list[Any]) -> Any:
    """An instance with these field values, set as the frozen __init__ sets them (a record's
    __post_init__ checks are not what is compared here)."""
    instance: Any = object.__new__(cls)
    for f, value in zip(dataclasses.fields(cls), values):
        object.__setattr__(instance, f.name, value)
    return instance


def _init_twin(cls: type) -> type:
    """A frozen dataclass with `cls`'s name and fields, their defaults, factories, init and
    keyword-only settings kept: the oracle for the record's __init__."""
    namespace: dict[str, Any] = {
        "__annotations__": {f.name: f.type for f in dataclasses.fields(cls)},
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
    }
    for f in dataclasses.fields(cls):
        options: dict[str, Any] = {"init": f.init, "kw_only": f.kw_only}
        if f.default is not dataclasses.MISSING:
            options["default"] = f.default
        if f.default_factory is not dataclasses.MISSING:
            options["default_factory"] = f.default_factory
        namespace[f.name] = field(**options)
    return dataclass(frozen=True)(type(cls.__name__, (), namespace))


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_each_record_is_constructed_as_its_twin(cls: type) -> None:
    # The parameters but self (dataclasses' default-factory marker and ours print alike).
    ours = (
        str(inspect.signature(compiled_init(cls))).replace("(self, ", "(").replace("(self)", "()")
    )
    assert ours == str(inspect.signature(_init_twin(cls)))


def test_the_records_are_found() -> None:
    names = {c.__qualname__ for c in RECORDS}
    assert {"Finding", "Facts", "Matrix", "Report", "Recipe"} <= names
    assert len(RECORDS) > 100


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_each_record_answers_as_its_frozen_dataclass_twin(cls: type) -> None:
    twin = _twin(cls)
    count = len(dataclasses.fields(cls))
    rows = [
        [f"v{i}" for i in range(count)],
        [f"v{i}" for i in range(count)],
        [f"w{i}" if i == count - 1 else f"v{i}" for i in range(count)],
    ]
    ours = [_filled(cls, row) for row in rows]
    theirs = [_filled(twin, row) for row in rows]
    own = {name for name in ("__eq__", "__hash__", "__repr__") if name in _written(cls)}
    if "__repr__" not in own:
        assert [repr(x) for x in ours] == [repr(x) for x in theirs]
    if "__hash__" not in own and cls.__hash__ is not None:
        assert [hash(x) for x in ours] == [hash(x) for x in theirs]
    if "__eq__" not in own:
        assert [ours[0] == x for x in ours] == [theirs[0] == x for x in theirs]


def _written(cls: type) -> set[str]:
    """The dunder methods the class body of `cls` writes itself, read from its source."""
    source = Path(importlib.import_module(cls.__module__).__file__ or "").read_text()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            return {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return set()


def test_no_module_makes_a_frozen_dataclass_another_way() -> None:
    # One idiom: @record (with order=True where the records are ordered).
    wrong = []
    for path in sorted(Path(envcheck.__file__).parent.rglob("*.py")):
        if "children" in path.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            text = line.strip()
            if text.startswith("@dataclass(") and "frozen=True" in text:
                wrong.append(f"{path.name}:{number}: {text}")
    assert wrong == []
