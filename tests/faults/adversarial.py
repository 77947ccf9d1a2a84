"""Lines built to make a regular expression backtrack, from the pattern's own pieces.

A backtracking engine turns quadratic when an unbounded repeat can run over most of a line
from many start places and then fail: `\\S*/stubs/libcuda` on a line of "a"s that ends in
"/stubs/libcuda", `[\\w.+-]+\\.so` on "libcudart.so.aaaa...", a long message repeated a thousand
times. The lines here are the shapes that expose it: each literal of the pattern repeated,
each literal before and after a long run of each kind of character the pattern's classes take,
and the pattern's literals in order, repeated, with and without the last. Real matches are not
the point; the time a search takes is.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from typing import Any

_NEW_RE = sys.version_info >= (3, 11)
_parser: Any = importlib.import_module("re._parser" if _NEW_RE else "sre_parse")
_c: Any = importlib.import_module("re._constants" if _NEW_RE else "sre_constants")

# Characters a filler run may be made of: one of each kind logs hold.
_POOL = (
    " \t!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
    "abcdefghijklmnopqrstuvwxyz{|}~\u00e9\u4e2d"
)
# A repeat that may take more than this many characters counts as one that runs long.
_LONG = 64
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
_CATEGORIES: dict[Any, re.Pattern[str]] = {
    _c.CATEGORY_DIGIT: re.compile(r"\d"),
    _c.CATEGORY_NOT_DIGIT: re.compile(r"\D"),
    _c.CATEGORY_SPACE: re.compile(r"\s"),
    _c.CATEGORY_NOT_SPACE: re.compile(r"\S"),
    _c.CATEGORY_WORD: re.compile(r"\w"),
    _c.CATEGORY_NOT_WORD: re.compile(r"\W"),
}


def _in_set(items: Any, character: str) -> bool:
    negate = False
    found = False
    for op, value in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            found = found or ord(character) == value
        elif op is _c.RANGE:
            found = found or value[0] <= ord(character) <= value[1]
        elif op is _c.CATEGORY:
            found = found or bool(_CATEGORIES[value].match(character))
    return found != negate


def _takes(op: Any, value: Any, character: str) -> bool | None:
    """Whether a one-character node takes `character` (None: not such a node)."""
    if op is _c.LITERAL:
        return bool(ord(character) == value)
    if op is _c.NOT_LITERAL:
        return bool(ord(character) != value)
    if op is _c.ANY:
        return character != "\n"
    if op is _c.IN:
        return _in_set(value, character)
    return None


def _children(op: Any, value: Any) -> list[Any]:
    """The sub-patterns of a parsed node (none for a one-character node or an anchor)."""
    if op in _REPEATS:
        return [value[2]]
    if op is _c.SUBPATTERN:
        return [value[-1]]
    if op is _c.BRANCH:
        return list(value[1])
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        return [value[1]]
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return [value]
    if op is _c.GROUPREF_EXISTS:
        return [branch for branch in value[1:] if branch is not None]
    return []


class _Pieces:
    def __init__(self) -> None:
        self.literals: list[str] = []  # runs of literal characters, in pattern order
        # the one-character nodes inside a repeat that can run long: what a filler feeds
        self.nodes: list[tuple[Any, Any]] = []

    def walk(self, items: Any, long: bool = False) -> None:
        """Collect the literals and long-running nodes of a parsed pattern; `long`: inside a
        repeat that can run long."""
        run: list[str] = []
        for op, value in items:
            if long and _takes(op, value, "a") is not None:
                self.nodes.append((op, value))
            if op is _c.LITERAL:
                run.append(chr(value))
                continue
            if run:
                self.literals.append("".join(run))
                run = []
            inner = long or (op in _REPEATS and value[1] > _LONG)
            for child in _children(op, value):
                self.walk(child, inner)
        if run:
            self.literals.append("".join(run))

    def fillers(self) -> list[str]:
        """One character of each kind: kinds differ in which long-running nodes of the pattern
        take them. A character the literals hold stands for its kind first ('.' of `\\.so`
        rather than '+', both in `[\\w.+-]`)."""
        kinds: dict[tuple[bool, ...], str] = {}
        written = "".join(self.literals)
        for character in sorted(_POOL, key=lambda c: c not in written):
            kind = tuple(bool(_takes(op, value, character)) for op, value in self.nodes)
            if any(kind):
                kinds.setdefault(kind, character)
        return list(kinds.values())


def adversarial_lines(pattern: re.Pattern[str], size: int) -> Iterator[str]:
    """Lines of about `size` characters shaped to make `pattern` backtrack."""
    pieces = _Pieces()
    pieces.walk(_parser.parse(pattern.pattern, pattern.flags))
    literals = list(dict.fromkeys(piece for piece in pieces.literals if piece))
    fillers = pieces.fillers()

    def repeated(unit: str) -> str:
        return unit * max(1, size // max(1, len(unit)))

    for literal in literals:
        yield repeated(literal)
        for filler in fillers:
            run = filler * size
            yield literal + run
            yield run + literal
            yield repeated(literal + filler * 8)
    if literals:
        for joint in fillers or [" "]:
            yield repeated(joint.join(literals))
            if len(literals) > 1:
                yield repeated(joint.join(literals[:-1]))
