"""Which digits of a line its reading depends on: the numbers that vary are masked (issue 22).

A log repeats its lines with other numbers in them: a timestamp, a thread id, a step count.
`envcheck explain` remembers how it read a line under the line's *mask* (every ASCII digit
written as 0) and reads a line with the same mask the same way, provided the digits that
decided the reading are the same: those are the line's *pinned* digits.

What makes that sound is a property of most patterns, *digit-blindness*: a pattern that
treats every ASCII digit alike (\\d, \\w, [^']: all ten or none) matches two lines that differ
only in digits at the same places, with the same groups, so its verdict is the mask's. The
digits it hands on (a library name, a version in a group) are pinned where they change
something. A pattern that tells digits apart (a literal "193", [12]) is run on its *relaxed*
form, with every digit it names widened to any digit: where that finds nothing, no line of the
mask can match; where it does, every digit of the line is pinned.
"""

from __future__ import annotations

import importlib
import re
import sys
from typing import Any

_NEW_RE = sys.version_info >= (3, 11)
_parser: Any = importlib.import_module("re._parser" if _NEW_RE else "sre_parse")
_compiler: Any = importlib.import_module("re._compiler" if _NEW_RE else "sre_compile")
_c: Any = importlib.import_module("re._constants" if _NEW_RE else "sre_constants")

# Bytes -> the same bytes with every ASCII digit written as "0".
MASK = bytes(0x30 if 0x30 <= byte <= 0x39 else byte for byte in range(256))
_DIGIT = re.compile(r"[0-9]")
_DIGITS = frozenset(range(0x30, 0x3A))

# Categories that hold every ASCII digit, and those that hold none.
_ALL_DIGITS = {"CATEGORY_DIGIT", "CATEGORY_UNI_DIGIT", "CATEGORY_WORD", "CATEGORY_UNI_WORD",
               "CATEGORY_LOC_WORD", "CATEGORY_NOT_SPACE", "CATEGORY_UNI_NOT_SPACE",
               "CATEGORY_NOT_LINEBREAK", "CATEGORY_UNI_NOT_LINEBREAK"}  # fmt: skip
_NO_DIGITS = {"CATEGORY_NOT_DIGIT", "CATEGORY_UNI_NOT_DIGIT", "CATEGORY_NOT_WORD",
              "CATEGORY_UNI_NOT_WORD", "CATEGORY_LOC_NOT_WORD", "CATEGORY_SPACE",
              "CATEGORY_UNI_SPACE", "CATEGORY_LINEBREAK", "CATEGORY_UNI_LINEBREAK"}  # fmt: skip


def masked(text: str) -> bytes:
    """The mask of a line: its UTF-8 with every ASCII digit written as 0."""
    return text.encode("utf-8", "surrogatepass").translate(MASK)


def digit_places(text: str, start: int = 0, end: int | None = None) -> list[int]:
    """The places of the ASCII digits of text[start:end]."""
    return [
        found.start() for found in _DIGIT.finditer(text, start, len(text) if end is None else end)
    ]


def _class_digits(items: Any) -> set[int] | None:
    """The ASCII digits a character class holds; None where it cannot be told."""
    held: set[int] = set()
    negated = False
    for op, value in items:
        if op is _c.NEGATE:
            negated = True
        elif op is _c.LITERAL:
            held |= {value} & _DIGITS
        elif op is _c.RANGE:
            low, high = value
            held |= {digit for digit in _DIGITS if low <= digit <= high}
        elif op is _c.CATEGORY and str(value) in _ALL_DIGITS:
            held |= _DIGITS
        elif not (op is _c.CATEGORY and str(value) in _NO_DIGITS):
            return None
    return set(_DIGITS - held) if negated else held


def _walk(items: Any, relax: bool, negative: bool) -> bool:
    """Whether the parsed pattern `items` is digit-blind. With `relax`, every node that tells
    digits apart is widened in place to take any digit; _CannotTellError where that would not
    give a wider pattern (inside a negative assertion widening narrows the match) or where a
    node is not understood (a back reference compares digits with digits)."""
    blind = True
    for index, (op, value) in enumerate(list(items)):
        if op in (_c.ANY, _c.AT):
            continue
        inner = _inner(op, value)
        if inner is not None:
            flip = op is _c.ASSERT_NOT
            for part in inner:
                blind = _walk(part, relax, negative != flip) and blind
            continue
        widened = _widened(op, value)
        if widened is None:
            continue
        blind = False
        if relax:
            if negative:
                raise _CannotTellError
            items[index] = widened
    return blind


def _inner(op: Any, value: Any) -> list[Any] | None:
    """The parts a node holds, for the nodes that hold parts."""
    if op is _c.BRANCH:
        return list(value[1])
    if op is _c.SUBPATTERN:
        return [value[-1]]
    if op in _REPEATS:
        return [value[2]]
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        return [value[1]]
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return [value]
    return None


def _widened(op: Any, value: Any) -> tuple[Any, Any] | None:
    """None for a node of one character that treats every digit alike; the node that takes
    any digit besides what it takes for one that tells digits apart; _CannotTellError else."""
    if op in (_c.LITERAL, _c.NOT_LITERAL):
        if value not in _DIGITS:
            return None
        return (_c.IN, [(_c.RANGE, (0x30, 0x39))]) if op is _c.LITERAL else (_c.ANY, None)
    if op is _c.IN:
        held = _class_digits(value)
        if held is None or (held and held != _DIGITS and _negated(value)):
            raise _CannotTellError
        if not held or held == _DIGITS:
            return None
        return (_c.IN, [*value, (_c.RANGE, (0x30, 0x39))])
    raise _CannotTellError


def _negated(items: Any) -> bool:
    return any(item[0] is _c.NEGATE for item in items)


class _CannotTellError(Exception):
    pass


_REPEATS = tuple(
    op for op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)) if op
)


def digit_blind(pattern: re.Pattern[str]) -> bool:
    """Whether `pattern` treats every ASCII digit alike wherever it looks at one."""
    try:
        return _walk(_parser.parse(pattern.pattern, pattern.flags), relax=False, negative=False)
    except _CannotTellError:
        return False


def relaxed(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """`pattern` with every node that tells digits apart widened to take any digit: it matches
    wherever `pattern` matches on any line of the same mask. None where that cannot be built
    (a back reference, a digit inside a negative assertion): a caller then pins every digit."""
    try:
        parsed = _parser.parse(pattern.pattern, pattern.flags)  # a tree of its own, widened here
        _walk(parsed, relax=True, negative=False)
        compiled: re.Pattern[str] = _compiler.compile(parsed, pattern.flags)
    except (_CannotTellError, re.error, TypeError, ValueError):
        return None
    return compiled


class DigitReader:
    """How one pattern's search depends on a line's digits (see the module docstring).
    `blind`: whether the pattern is digit-blind, where the caller knows (a cache of it)."""

    __slots__ = ("_relaxed", "blind", "pattern")

    def __init__(self, pattern: re.Pattern[str], blind: bool | None = None) -> None:
        self.pattern = pattern
        self.blind = digit_blind(pattern) if blind is None else blind
        self._relaxed: list[re.Pattern[str] | None] = []  # built when first needed

    def pins(self, text: str) -> list[int]:
        """The digits of `text` the search's outcome hangs on beyond its own groups: none for a
        digit-blind pattern, every digit where the relaxed pattern could match."""
        if self.blind:
            return []
        if not self._relaxed:
            self._relaxed.append(relaxed(self.pattern))
        wider = self._relaxed[0]
        if wider is not None and wider.search(text) is None:
            return []
        return digit_places(text)
