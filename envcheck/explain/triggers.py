"""The trigger literals of a big-log scan: text that every line worth a close look contains.

Each signature's pattern requires some literal text (read from its parsed form, as the matcher's
screen does); each log fact and telling word has its own. A line without any of them can match
nothing, so envcheck.explain.scanner skips it in C instead of looking at it in Python.

The combined pattern is cheapest when its alternatives start with characters that are rare in
logs: the regex engine then stops only where such a character is. So each literal is cut to the
suffix that starts at its rarest character (a suffix of a required literal is required too),
and the alternatives are folded into a trie so that a stop tries few branches.
"""

from __future__ import annotations

import bisect
import importlib
import os
import re
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from envcheck.explain.matcher import required_literals
from envcheck.matrix.signatures import Signature

# Printable ASCII from most to least frequent in logs: the larger of its share in real logs
# (tests/logs, tests/corpus) and in a training run's bulk (Keras progress bars, TensorFlow INFO
# lines: bench/run.py's generated log). Characters not listed count as rarest.
_BY_FREQUENCY = (
    " =eorintac0sl:2/d1u3.p4-mh6_fbx57y9gw]v,8EICNAkTFGU[D)(R"
    "\\P\"*LjBOMVS'`>zW<XqH#Y;K&{}+$!J~%?ZQ@|^"
)
_RANK = {character: index for index, character in enumerate(_BY_FREQUENCY)}
_SHORTEST = 3  # a shorter suffix would stop too often on text that only looks like it
_LONGEST = 16  # enough to be specific; longer only lengthens the pattern


@dataclass(frozen=True)
class Trigger:
    text: str
    ignore_case: bool = False


def _rarity(character: str) -> int:
    """Higher is rarer."""
    return _RANK.get(character, len(_BY_FREQUENCY))


def cut(trigger: Trigger) -> Trigger:
    """The trigger's suffix starting at its rarest character, kept at least _SHORTEST long."""
    text = trigger.text
    if len(text) <= _SHORTEST:
        return trigger
    starts = range(len(text) - _SHORTEST + 1)
    best = max(starts, key=lambda i: (_rarity(text[i]), -i))
    return Trigger(text[best : best + _LONGEST], trigger.ignore_case)


def signature_triggers(signature: Signature) -> list[Trigger] | None:
    """The literals one of which every line `signature` matches contains; None if unknown."""
    literals = required_literals(signature.pattern)
    if not literals:
        return None
    # A scoped (?i:...) makes part of the pattern case-blind; treat the whole as case-blind.
    ignore_case = (
        bool(signature.pattern.flags & re.IGNORECASE) or "(?i" in signature.pattern.pattern
    )
    return [Trigger(literal, ignore_case) for literal in literals]


def written_forms(trigger: Trigger) -> list[str]:
    """The exact texts a trigger stands for: a case-blind one in lower and Title case besides
    its own (UPPER only where the trigger says so, e.g. the alarm word "ERROR"): the forms
    logs write. Both scan engines look for exactly these, so they pick the same lines."""
    if not trigger.ignore_case:
        return [trigger.text]
    text = trigger.text
    return sorted({text, text.lower(), text[:1].upper() + text[1:].lower()})


def _trie(words: Iterable[str]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for character in word:
            node = node.setdefault(character, {})
        node[""] = {}
    return root


def _render(node: dict[str, Any]) -> list[str]:
    """The alternatives of a trie node, each starting with a literal character."""
    if "" in node:
        return [""]  # a word ends here: the scan needs no longer one
    alternatives = []
    for character, child in sorted(node.items()):
        rest = _render(child)
        tail = rest[0] if len(rest) == 1 else "(?:" + "|".join(rest) + ")"
        alternatives.append(re.escape(character) + tail)
    return alternatives


_SENTINEL = 0x01  # what every trigger's first character becomes in the translated text
_SPECIFIC = 3  # bytes of a piece's rest that folding must leave as they are


class TriggerScan(Protocol):
    """Finds the next place where one of the trigger texts is written, and counts lines.

    The scanner calls prepare() once per region of a buffer, then next() and newlines() with
    positions that only grow within the region."""

    def prepare(self, data: bytes, begin: int, stop: int) -> Any: ...

    def next(self, prepared: Any, data: bytes, start: int, stop: int) -> int:
        """Where in data[start:stop] a trigger starts (-1: none)."""
        ...

    def newlines(self, prepared: Any, data: bytes, upto: int) -> int:
        """How many LFs data[begin:upto] holds (begin: the region's), for `upto` the region's
        stop or a place next() returned, never smaller than the one asked before."""
        ...


class LineCount:
    """newlines() by counting on from the place asked before (each LF counted once)."""

    def __init__(self, data: bytes, begin: int) -> None:
        self.data, self.place, self.count = data, begin, 0

    def upto(self, place: int) -> int:
        if place > self.place:
            self.count += self.data.count(b"\n", self.place, place)
            self.place = place
        return self.count


@dataclass(frozen=True)
class FoldedScan:
    """The standard-library engine. `table` maps the characters the triggers' cut pieces start
    with to one sentinel byte, and `pattern` (the sentinel, then each piece's rest) is searched
    in the translated text: a pattern with one literal first byte is the form the regex engine
    skips ahead on at memchr speed, where an alternation of many first characters made it test
    every byte, five times slower. A stop is confirmed against the whole texts, so it finds
    exactly what Re2Scan finds.
    """

    table: bytes
    pattern: re.Pattern[bytes]
    # Folded piece the pattern matches -> (whole text, offset of the piece in it) for every
    # text whose folded piece starts with it.
    written: dict[bytes, tuple[tuple[bytes, int], ...]]
    # Texts folding would blur into a run of sentinels ("ERROR", "FAIL", ".DLL": all their
    # characters start some piece), by a prefix they share ("CUDA_ER" for every CUDA_ERROR_X):
    # each prefix is found with bytes.find, about one pass per buffer, then its texts confirmed.
    plain: dict[bytes, tuple[bytes, ...]] = field(default_factory=dict)
    # prefix -> (the buffer searched, the next place found): the buffer itself, not its id,
    # since a freed buffer's id comes back for the next one.
    _found: dict[bytes, tuple[bytes, int]] = field(default_factory=dict, compare=False, repr=False)

    def prepare(self, data: bytes, begin: int, stop: int) -> tuple[bytes, LineCount]:  # noqa: ARG002
        return data.translate(self.table), LineCount(data, begin)

    def newlines(self, prepared: tuple[bytes, LineCount], data: bytes, upto: int) -> int:  # noqa: ARG002
        return prepared[1].upto(upto)

    def next(self, prepared: tuple[bytes, LineCount], data: bytes, start: int, stop: int) -> int:
        best = self._folded(prepared[0], data, start, stop)
        for prefix, texts in self.plain.items():
            at = self._plain(data, prefix, texts, start)
            if at != -1 and at < stop and (best == -1 or at < best):
                best = at
        return best

    def _plain(self, data: bytes, prefix: bytes, texts: tuple[bytes, ...], start: int) -> int:
        """The next place at or after `start` where one of `texts` (which all begin with
        `prefix`) is written; remembered per buffer, so a buffer is searched about once."""
        known = self._found.get(prefix)
        if known is not None and known[0] is data and (known[1] >= start or known[1] == -1):
            return known[1]
        at = data.find(prefix, start)
        while at != -1 and not any(data.startswith(text, at) for text in texts):
            at = data.find(prefix, at + 1)
        self._found[prefix] = (data, at)
        return at

    def _folded(self, prepared: bytes, data: bytes, start: int, stop: int) -> int:
        search, written = self.pattern.search, self.written
        while True:
            found = search(prepared, start, stop)
            if found is None:
                return -1
            at = found.start()
            for text, offset in written[found.group()]:
                begin = at - offset
                if begin >= 0 and data.startswith(text, begin):
                    # A text that began before `start` lies on a line already read.
                    return max(begin, start)
            start = at + 1


@dataclass(frozen=True)
class Found:
    """A region searched whole: where the triggers start, in order, and how many LFs come
    before each (from the region's begin), and in all."""

    starts: list[int]
    lines: dict[int, int]  # start -> LFs before it
    total: int


@dataclass(frozen=True)
class Re2Scan:
    """The RE2 engine (the optional google-re2 package): one automaton for every trigger text,
    whose cost per byte does not grow with their number. RE2 lets go of the interpreter lock
    while it searches, so a region's parts are searched by several threads at once, each also
    counting the lines before its matches; the scanner then only looks things up."""

    pattern: Any
    threads: int = field(default_factory=lambda: min(4, os.cpu_count() or 1))
    section: int = 1 << 20  # a region is searched in parts of about this size

    def prepare(self, data: bytes, begin: int, stop: int) -> Found:
        # Parts end at a line break: a trigger never holds one, so none is cut in two.
        bounds = [begin]
        while bounds[-1] + self.section < stop:
            cut = data.find(b"\n", bounds[-1] + self.section, stop)
            if cut == -1 or cut + 1 >= stop:
                break
            bounds.append(cut + 1)
        bounds.append(stop)
        parts = list(zip(bounds, bounds[1:]))
        if self.threads > 1 and len(parts) > 1:
            results = list(_pool(self.threads).map(lambda part: self._part(data, *part), parts))
        else:
            results = [self._part(data, *part) for part in parts]
        starts: list[int] = []
        lines: dict[int, int] = {}
        before = 0
        for found, counts, total in results:
            starts.extend(found)
            lines.update({start: before + count for start, count in zip(found, counts)})
            before += total
        return Found(starts, lines, before)

    def _part(self, data: bytes, begin: int, stop: int) -> tuple[list[int], list[int], int]:
        found, counts, count, place = [], [], 0, begin
        for match in self.pattern.finditer(data, begin, stop):
            start = int(match.start())
            count += data.count(b"\n", place, start)
            place = start
            found.append(start)
            counts.append(count)
        return found, counts, count + data.count(b"\n", place, stop)

    def next(self, prepared: Found, data: bytes, start: int, stop: int) -> int:  # noqa: ARG002
        # `data` is the protocol's; the matches were found in prepare().
        index = bisect.bisect_left(prepared.starts, start)
        if index == len(prepared.starts) or prepared.starts[index] >= stop:
            # A match that began before `start` may hide a later one (finditer does not
            # overlap); within a line it does not matter, and none spans a line break.
            return -1
        return prepared.starts[index]

    def newlines(self, prepared: Found, data: bytes, upto: int) -> int:  # noqa: ARG002
        known = prepared.lines.get(upto)
        return prepared.total if known is None else known


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool(threads: int) -> ThreadPoolExecutor:
    """One pool of search threads for the whole log (starting threads per chunk cost more than
    some chunks' search); its threads end with the process."""
    if threads not in _POOLS:
        _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="envcheck-scan")
    return _POOLS[threads]


def _texts(triggers: Iterable[Trigger]) -> list[bytes]:
    texts = {text.encode("utf-8") for trigger in triggers for text in written_forms(trigger)}
    if not texts:
        raise ValueError("no triggers")
    return sorted(texts)


def folded_scan(triggers: Iterable[Trigger]) -> FoldedScan:
    """The standard-library scan for `triggers`, each looked for by its rarest piece."""
    pieces: list[tuple[bytes, bytes, int]] = []  # (piece, whole text, offset)
    for text in _texts(triggers):
        piece = cut(Trigger(text.decode("utf-8"))).text.encode("utf-8")
        pieces.append((piece, text, text.find(piece)))
    table = bytes(
        _SENTINEL if byte in {piece[0] for piece, _, _ in pieces} else byte for byte in range(256)
    )
    folds: dict[bytes, list[tuple[bytes, int]]] = {}
    plain: list[bytes] = []
    for piece, text, offset in pieces:
        # Folding makes every start character one byte, so a piece whose rest is mostly such
        # characters would stop on any run of them: lengthen it until the rest says enough.
        end = offset + len(piece)
        while end < len(text) and _kept(text[offset + 1 : end], table) < _SPECIFIC:
            end += 1
        if _kept(text[offset + 1 : end], table) < _SPECIFIC:
            plain.append(text)
            continue
        folds.setdefault(text[offset:end].translate(table), []).append((text, offset))
    rests = [folded[1:].decode("latin-1") for folded in sorted(folds)]
    alternatives = _render(_trie(rests))
    body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
    pattern = re.compile((re.escape(chr(_SENTINEL)) + body).encode("latin-1"))
    # The trie keeps the shortest of two folded pieces where one starts the other, so what the
    # pattern matches stands for every longer one too.
    written = {
        folded: tuple(
            sorted(
                entry
                for other, entries in folds.items()
                if other.startswith(folded)
                for entry in entries
            )
        )
        for folded in folds
        if not any(folded != shorter and folded.startswith(shorter) for shorter in folds)
    }
    return FoldedScan(table, pattern, written, _by_prefix(plain))


_PREFIX = 7  # how much of a plain text its group shares: "CUDA_ER", "CUDNN_S", "tensorf"


_GROUP = 5  # a family of at least this many texts is found by what they share


def _by_prefix(texts: Iterable[bytes]) -> dict[bytes, tuple[bytes, ...]]:
    """Plain texts keyed by what bytes.find looks for: a large family by its longest common
    prefix (CUDA_ERROR for CUDA_ERROR_X), a small one text by text: a short shared prefix
    ("tensorflow" of "tensorflow ", "tensorflow=") would stop on every "tensorflow/" path."""
    groups: dict[bytes, list[bytes]] = {}
    for text in sorted(set(texts)):
        groups.setdefault(text[:_PREFIX], []).append(text)
    keyed: dict[bytes, tuple[bytes, ...]] = {}
    for members in groups.values():
        if len(members) < _GROUP:
            keyed.update({member: (member,) for member in members})
        else:
            keyed[_common_prefix(members)] = tuple(members)
    return keyed


def _common_prefix(texts: list[bytes]) -> bytes:
    first, last = min(texts), max(texts)
    size = next((i for i, (a, b) in enumerate(zip(first, last)) if a != b), len(first))
    return first[:size]


def _kept(rest: bytes, table: bytes) -> int:
    """How many bytes of `rest` folding leaves as they are."""
    return sum(1 for byte in rest if table[byte] == byte)


def re2_scan(triggers: Iterable[Trigger]) -> Re2Scan | None:
    """The RE2 scan for `triggers`, or None without the google-re2 package."""
    try:
        re2 = importlib.import_module("re2")  # optional: pip install 'envcheck[fast]'
    except ImportError:
        return None
    options = re2.Options()
    options.max_mem = 256 << 20  # room for the whole automaton: it falls back to slow NFA
    source = b"|".join(re.escape(text) for text in _texts(triggers))
    return Re2Scan(re2.compile(source, options=options))


def combined(triggers: Iterable[Trigger]) -> TriggerScan:
    """The fastest scan this installation has for `triggers`."""
    chosen = list(triggers)
    return re2_scan(chosen) or folded_scan(chosen)
