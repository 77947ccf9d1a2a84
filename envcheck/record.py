"""`@record`: a frozen dataclass whose methods are shared code, not compiled one by one.

The standard library writes each dataclass method as source text and compiles it when the class
is created: a frozen dataclass costs six compiles (`__init__`, `__repr__`, `__eq__`, `__hash__`,
`__setattr__`, `__delattr__`), about 0.45 ms, and an ordered one four more. `envcheck doctor`
loads ~80 record classes before it can answer and instantiates ~70 of them. A record is a
dataclass all the same (`fields`, `replace`, `asdict`, typed by mypy as a frozen one through
`dataclass_transform`), made with `init=False, eq=False, repr=False` and frozen here rather than
by `dataclasses`, so it compiles nothing when it is created:

- `__eq__`, `__hash__`, `__repr__`, `__setattr__` and `__delattr__` (and with
  `@record(order=True)`, `__lt__`, `__le__`, `__gt__`, `__ge__`) are closures over the class and
  its field names (a function object each, from code compiled once with this module). They
  answer as the generated methods do: the same tuple comparisons, the same hash of the same
  tuple, the same text, `FrozenInstanceError` for the same assignments.
- `__init__` is written as dataclasses writes it (the same parameters, defaults, default
  factories, `__post_init__` call) but compiled on the class's first instantiation, so a class
  a command never instantiates never pays for it.

tests/test_record.py holds every record of envcheck, and edge cases, to a frozen dataclass twin.
A class that writes `__eq__`, `__hash__` or `__repr__` itself keeps its own, as with
`@dataclass`; one that writes `__setattr__` or `__delattr__` (or, ordered, a comparison) is
refused, as with `@dataclass(frozen=True, order=...)`. An `InitVar` is refused (no record has
one; use `@dataclass`).
"""

from __future__ import annotations

import dataclasses
import operator
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:  # typing has it from 3.11 on; mypy reads it from its own stubs
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda decorated: decorated


T = TypeVar("T")
_MISSING = dataclasses.MISSING
FrozenInstanceError = dataclasses.FrozenInstanceError


class _Factory:
    """The default of a parameter whose field has a default factory (shown as dataclasses
    shows it in a signature)."""

    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _Factory()


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function of an object: the tuple of its attributes `names` (attrgetter, in C)."""
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)  # several names: a tuple


def _compared(
    fields: tuple[dataclasses.Field[Any], ...], compared: Callable[[Any], tuple[Any, ...]]
) -> dict[str, Any]:
    """__eq__, __hash__ and __repr__ as dataclass(frozen=True) makes them: the `compared`
    fields (compare=True) compared as a tuple when the classes are the same, the hash of the
    fields hash=True (or compare=True where hash is None), repr=True fields shown."""
    hashed = _values(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))
    shown = tuple(f.name for f in fields if f.repr)

    def equal(self: Any, other: object) -> object:  # a bool, or NotImplemented
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def hashed_fields(self: Any) -> int:
        return hash(hashed(self))

    @reprlib.recursive_repr()
    def represent(self: Any) -> str:
        inside = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inside})"

    return {"__eq__": equal, "__hash__": hashed_fields, "__repr__": represent}


_ORDER = {
    "__lt__": operator.lt,
    "__le__": operator.le,
    "__gt__": operator.gt,
    "__ge__": operator.ge,
}


def _ordered(compared: Callable[[Any], tuple[Any, ...]]) -> dict[str, Any]:
    """__lt__, __le__, __gt__ and __ge__ as dataclass(order=True) makes them: the `compared`
    fields (compare=True) compared as tuples when the classes are the same."""

    def comparison(test: Callable[[Any, Any], bool]) -> Callable[[Any, object], object]:
        def compare(self: Any, other: object) -> object:  # a bool, or NotImplemented
            if other.__class__ is self.__class__:
                return test(compared(self), compared(other))
            return NotImplemented

        return compare

    return {name: comparison(test) for name, test in _ORDER.items()}


def _frozen(cls: Any, names: frozenset[str]) -> dict[str, Any]:
    """__setattr__ and __delattr__ as dataclass(frozen=True) makes them: any attribute of the
    class itself, and a field's of a subclass, cannot be assigned or deleted."""

    def assign(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def delete(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return {"__setattr__": assign, "__delattr__": delete}


def _init_source(
    fields: tuple[dataclasses.Field[Any], ...], post_init: bool
) -> tuple[str, dict[str, Any]]:
    """The source of the record's __init__, as dataclasses writes a frozen one, and the names
    it reads (defaults, factories). Parameter names are the fields'; every other name the code
    uses starts with __record_, which no field of a record does; `self` is named as dataclasses
    names it (a field may be called self)."""
    names: dict[str, Any] = {"__record_set": object.__setattr__, "__record_factory": _HAS_FACTORY}
    me = "__dataclass_self__" if any(f.name == "self" for f in fields) else "self"
    positional, keyword, body = [me], list[str](), list[str]()
    for f in fields:
        name = f.name
        if f.default_factory is not _MISSING:
            names[f"__record_make_{name}"] = f.default_factory
            value = f"__record_make_{name}()"
            if f.init:
                value = f"{value} if {name} is __record_factory else {name}"
            default = "=__record_factory"
        elif f.init and f.default is not _MISSING:
            names[f"__record_default_{name}"] = f.default
            value, default = name, f"=__record_default_{name}"
        elif f.init:
            value, default = name, ""
        else:
            continue  # init=False with a default: the class attribute answers
        if f.init:
            (keyword if getattr(f, "kw_only", False) else positional).append(name + default)
        body.append(f"  __record_set({me}, {name!r}, {value})")
    if post_init:
        body.append(f"  {me}.__post_init__()")
    parameters = ", ".join([*positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({parameters}):\n" + "\n".join(body or ["  pass"]) + "\n"
    return source, names


def compiled_init(cls: type) -> Callable[..., None]:
    """The record's __init__, compiled now (its first instantiation does this), as dataclass
    writes a frozen dataclass's: the same parameters and defaults, the same body."""
    fields = dataclasses.fields(cls)
    source, names = _init_source(fields, hasattr(cls, "__post_init__"))
    exec(source, names)  # our own text, made of the class's field names
    made: Callable[..., None] = names["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    made.__module__ = cls.__module__
    made.__annotations__ = {f.name: f.type for f in fields if f.init} | {"return": None}
    return made


def _lazy_init(cls: type) -> Callable[..., None]:
    """An __init__ that compiles the real one on first use and puts it on the class."""

    def first_init(self: Any, *args: Any, **kwargs: Any) -> None:
        made = compiled_init(cls)
        type.__setattr__(cls, "__init__", made)
        made(self, *args, **kwargs)

    return first_init


def _check(cls: type, fields: tuple[dataclasses.Field[Any], ...], order: bool) -> None:
    """What dataclass(frozen=True, order=order) refuses when it writes __init__, the frozen
    methods and the ordering."""
    for name in ("__setattr__", "__delattr__", *(_ORDER if order else ())):
        if name in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    initvar = getattr(dataclasses, "_FIELD_INITVAR", None)  # how dataclasses marks one
    every = cls.__dict__.get("__dataclass_fields__", {}).values()
    if any(getattr(f, "_field_type", None) is initvar for f in every):
        raise TypeError(f"{cls.__name__}: a record has no InitVar (use @dataclass)")
    defaulted = False
    for f in fields:
        if not f.init or getattr(f, "kw_only", False):
            continue
        if f.default is _MISSING and f.default_factory is _MISSING:
            if defaulted:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
        else:
            defaulted = True


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, order: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[T] | None = None, /, *, order: bool = False) -> Any:
    """The class as a frozen dataclass (see the module's docstring); `@record(order=True)` also
    orders it, as dataclass(order=True) does."""
    if cls is None:
        return lambda decorated: _make(decorated, order)
    return _make(cls, order)


def _make(cls: type[T], order: bool) -> type[T]:
    own = cls.__dict__
    # What @dataclass would leave alone: a method the class writes itself. Writing __eq__ sets
    # __hash__ to None in the class body; dataclass(eq=True, frozen=True) still adds its hash.
    keep = {name for name in ("__eq__", "__repr__") if name in own}
    if own.get("__hash__") is not None:
        keep.add("__hash__")
    if cls.__doc__ is None:
        # dataclass would write the signature here, through inspect.signature (~0.1 ms a class).
        cls.__doc__ = cls.__name__
    made: Any = dataclasses.dataclass(init=False, eq=False, repr=False)(cls)
    fields = dataclasses.fields(made)
    _check(made, fields, order)
    compared = _values(tuple(f.name for f in fields if f.compare))
    methods = {
        **_compared(fields, compared),
        **(_ordered(compared) if order else {}),
        **_frozen(made, frozenset(f.name for f in fields)),
        "__init__": _lazy_init(made),
    }
    for name, method in methods.items():
        if name not in keep:
            method.__name__, method.__qualname__ = name, f"{made.__qualname__}.{name}"
            type.__setattr__(made, name, method)
    return cls  # the same class object, made a dataclass in place


def is_record(cls: type) -> bool:
    """Whether `cls` was made by @record (its frozen __setattr__ is this module's)."""
    method = cls.__dict__.get("__setattr__")
    return getattr(method, "__code__", None) is _FROZEN_SETATTR


_FROZEN_SETATTR = _frozen(object, frozenset())["__setattr__"].__code__
