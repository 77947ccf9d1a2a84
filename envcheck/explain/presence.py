"""Which of many literals a line holds, found in one pass instead of one test per literal.

Judging a line of a log tests the literals that screen each signature and each log fact: 17
candidate signatures of a few literals each and some 60 gates of the log facts, about 85
`any(map(text.__contains__, ...))` calls a line, half of what judging a line cost on a log of
distinct lines (issue 22). An RE2 set (the optional google-re2 package) of every literal, in
the form the line's *mask* shows it (digits.masked: every ASCII digit written as 0), answers
which are there in one pass whose cost does not grow with their number; the judge then visits
only what a literal present enables.

Looking in the mask makes the answer hold for every line of that mask (explain remembers a
line's reading per mask, digits.py): a literal the mask lacks is in no line of the mask, with
any digits. The answer is a screen, never the verdict: what it lets through is tested exactly
as before, so it may let through more, never less. Where it cannot answer (no google-re2, a
line that is not ASCII, where Python's case folding reaches beyond RE2's ASCII test), `held`
says None and the caller tests every literal itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from envcheck.explain.digits import masked

T = TypeVar("T")


class Presence:
    """An RE2 set of literals, each looked for in a line's mask, as written or case-blind."""

    def __init__(self, automaton: Any) -> None:
        self._match = automaton.Match

    def held(self, mask: bytes) -> list[int] | None:
        """The indexes (in the order given to `presence`) of the literals `mask` holds; None
        where this cannot be told (a mask that is not ASCII)."""
        if not mask.isascii():
            return None
        return self._match(mask) or []


def presence(literals: Sequence[tuple[str, bool]]) -> Presence | None:
    """The Presence of `literals`, (text, ignore_case) each; None without google-re2."""
    try:
        re2 = importlib.import_module("re2")  # optional: pip install 'envcheck[fast]'
    except ImportError:
        return None
    options = re2.Options()
    options.max_mem = 64 << 20  # room for the automaton of a few hundred literals
    automaton = re2._re2.Set(re2._Anchor.UNANCHORED, options)  # the C set, without re-encoding
    for text, ignore_case in literals:
        pattern = b"".join(b"\\x%02x" % byte for byte in masked(text))
        # (?i) in RE2 folds ASCII letters in an ASCII line as Python's IGNORECASE does there.
        if automaton.Add(b"(?i)" + pattern if ignore_case else pattern) == -1:
            return None
    if not automaton.Compile():
        return None
    return Presence(automaton)


class Deferred(Generic[T]):
    """What `build()` makes, made once `after` calls of get() have gone without it (None until
    then, and always with `after` 0): a screen that costs ~3 ms to build pays for itself on a
    long log, not on a pasted one of a few lines."""

    def __init__(self, after: int, build: Callable[[], T | None]) -> None:
        self._left = after
        self._build = build
        self._built: T | None = None

    def get(self) -> T | None:
        if self._left:
            self._left -= 1
            if self._left:
                return None
            self._built = self._build()
        return self._built
