"""`@record`: a frozen dataclass whose equality, hash and repr are shared code, not generated.

The standard library writes each dataclass method as source text and compiles it when the class
is created: a frozen dataclass costs six compiles (`__init__`, `__repr__`, `__eq__`, `__hash__`,
`__setattr__`, `__delattr__`), about 0.45 ms. `envcheck doctor` creates ~90 records before it can
answer, ~40 ms of its ~0.2 s. A record is a dataclass all the same (`fields`, `replace`,
`asdict`, frozen, typed by mypy as one), made with `eq=False, repr=False`: it compiles three
methods, and takes `__eq__`, `__hash__` and `__repr__` from the functions below, which read the
field names the dataclass settled. They answer as the generated methods do (the same tuple
comparisons, the same hash of the same tuple, the same text; tests/test_record.py holds each
record of envcheck to that). A class that writes one of the three itself keeps its own, as with
`@dataclass`.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # typing has it from 3.11 on; mypy reads it from its own stubs
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda decorated: decorated


T = TypeVar("T")


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function of an object: the tuple of its attributes `names` (attrgetter, in C)."""
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)  # several names: a tuple


def _methods(cls: type) -> dict[str, Callable[..., Any]]:
    """__eq__, __hash__ and __repr__ of the dataclass `cls`, as dataclass(frozen=True) makes
    them: fields with compare=True compared as a tuple when the classes are the same, the hash
    of the fields hash=True (or compare=True where hash is None), repr=True fields shown."""
    fields = dataclasses.fields(cls)
    compared = _values(tuple(f.name for f in fields if f.compare))
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


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[T]) -> type[T]:
    """The class as a frozen dataclass (see the module's docstring)."""
    own = cls.__dict__
    # What @dataclass would leave alone: a method the class writes itself. Writing __eq__ sets
    # __hash__ to None in the class body; dataclass(eq=True, frozen=True) still adds its hash.
    keep = {name for name in ("__eq__", "__repr__") if name in own}
    if own.get("__hash__") is not None:
        keep.add("__hash__")
    if cls.__doc__ is None:
        # dataclass would write the signature here, through inspect.signature (~0.1 ms a class).
        cls.__doc__ = cls.__name__
    made = dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls)
    for name, method in _methods(made).items():
        if name not in keep:
            method.__name__, method.__qualname__ = name, f"{made.__qualname__}.{name}"
            setattr(made, name, method)
    return made
