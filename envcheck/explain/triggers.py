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

import heapq
import importlib
import re
import sys
from collections.abc import Iterable
from dataclasses import field
from typing import Any, Protocol

from envcheck.explain.matcher import required_literals
from envcheck.matrix import parsed_cache
from envcheck.matrix.signatures import Signature
from envcheck.record import record

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


@record
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
    return [Trigger(_outside_quotes(literal), ignore_case) for literal in literals]


def _outside_quotes(literal: str) -> str:
    """The longest piece of `literal` between its quote marks, where that says enough: the scan
    reads a log's bytes before clean_line makes its typographic quotes plain, so a trigger with
    a quote in it would pass over a line whose quotes an editor curled."""
    if "'" not in literal and '"' not in literal:
        return literal
    piece = max(re.split(r"['\"]", literal), key=len)
    return piece if len(piece.strip()) >= _QUOTE_FREE else literal


_QUOTE_FREE = 8  # the shortest piece that still picks few lines (" is not in available ...")


def written_forms(trigger: Trigger) -> list[str]:
    """The exact texts a trigger stands for: a case-blind one in lower and Title case besides
    its own (UPPER only where the trigger says so, e.g. the alarm word "ERROR"): the forms
    logs write; and of each, its rest after a wrap at its first space (wrapped()). Both scan
    engines look for exactly these, so they pick the same lines."""
    text = trigger.text
    forms = (
        {text, text.lower(), text[:1].upper() + text[1:].lower()} if trigger.ignore_case else {text}
    )
    return sorted(forms | {rest for rest in map(wrapped, forms) if rest})


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


_NOWHERE = sys.maxsize  # where a text that is not written is
_SENTINEL = 0x01  # what every trigger's first character becomes in the translated text
_SPECIFIC = 3  # bytes of a piece's rest that folding must leave as they are


class TriggerScan(Protocol):
    """Finds the next place where one of the trigger texts is written, and counts lines.

    The scanner calls prepare() once per region of a buffer, then next() and newlines() with
    positions that only grow within the region. `digit_texts`: the trigger texts that hold a
    digit (whether a line holds one hangs on its digits: envcheck.explain.cycles)."""

    @property
    def digit_texts(self) -> tuple[bytes, ...]: ...

    def prepare(self, data: bytes, begin: int, stop: int) -> Any: ...

    def next(self, prepared: Any, data: bytes, start: int, stop: int) -> int:
        """Where in data[start:stop] a trigger starts (-1: none)."""
        ...

    def newlines(self, prepared: Any, data: bytes, upto: int) -> int:
        """How many LFs data[begin:upto] holds (begin: the region's), for `upto` the region's
        stop or a place next() returned, never smaller than the one asked before."""
        ...

    def passed(self, prepared: Any, place: int, count: int) -> None:
        """The scanner went on to `place` without asking; data[begin:place] holds `count` LFs."""
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

    def went_to(self, place: int, count: int) -> None:
        """data[begin:place] holds `count` LFs (known without counting them)."""
        if place > self.place:
            self.place, self.count = place, count


@record
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
    digit_texts: tuple[bytes, ...] = ()
    # [the buffer searched, the place searched from, a heap of (the next place at or after
    # it where a plain text is written (_NOWHERE: none), its prefix)]: the buffer itself, not
    # its id, since a freed buffer's id comes back for the next one. A call looks again only
    # for the prefixes found behind it, so a buffer is searched about once per prefix, and
    # finding the nearest is a look at the heap's top, not a pass over the 56 prefixes (55 µs
    # a line of a log where every line holds one).
    _plain_state: list[Any] = field(default_factory=list, compare=False, repr=False)
    # The last search of the folded pieces: (buffer, searched from, searched to, where the
    # confirmed piece starts (-1: none), where it ends, where its text begins). Where only
    # plain texts are written (a log of TensorFlow INFO lines), each call searched on to the
    # end of the buffer again, quadratic in its lines (issue 22).
    _last: list[tuple[bytes, int, int, int, int, int]] = field(
        default_factory=list, compare=False, repr=False
    )

    def prepare(self, data: bytes, begin: int, stop: int) -> tuple[bytes, LineCount]:  # noqa: ARG002
        return data.translate(self.table), LineCount(data, begin)

    def newlines(self, prepared: tuple[bytes, LineCount], data: bytes, upto: int) -> int:  # noqa: ARG002
        return prepared[1].upto(upto)

    def passed(self, prepared: tuple[bytes, LineCount], place: int, count: int) -> None:
        prepared[1].went_to(place, count)

    def next(self, prepared: tuple[bytes, LineCount], data: bytes, start: int, stop: int) -> int:
        best = self._folded(prepared[0], data, start, stop)
        at = self._next_plain(data, start)
        if at < stop and (best == -1 or at < best):
            best = at
        return best

    def _next_plain(self, data: bytes, start: int) -> int:
        """The next place at or after `start` where a plain text is written (_NOWHERE: none)."""
        state = self._plain_state
        if not state or state[0] is not data or start < state[1]:
            heap = [(self._plain(data, prefix, start), prefix) for prefix in self.plain]
            heapq.heapify(heap)
            state[:] = [data, start, heap]
        heap = state[2]
        state[1] = start
        while heap and heap[0][0] < start:
            heapq.heapreplace(heap, (self._plain(data, heap[0][1], start), heap[0][1]))
        return heap[0][0] if heap else _NOWHERE

    def _plain(self, data: bytes, prefix: bytes, start: int) -> int:
        """The next place at or after `start` where one of the texts that begin with `prefix`
        is written (_NOWHERE: none)."""
        texts = self.plain[prefix]
        at = data.find(prefix, start)
        while at != -1 and not any(data.startswith(text, at) for text in texts):
            at = data.find(prefix, at + 1)
        return _NOWHERE if at == -1 else at

    def _folded(self, prepared: bytes, data: bytes, start: int, stop: int) -> int:
        if self._last:
            buffer, since, until, at, end, begin = self._last[0]
            # The confirmed pieces of a buffer do not depend on where a search starts: the
            # first at or after `since` is the first at or after any later start up to it.
            if buffer is data and since <= start and (at == -1 or start <= at):
                if at == -1 and stop <= until:
                    return -1
                if at != -1 and end <= stop:
                    # A text that began before `start` lies on a line already read.
                    return max(begin, start)
        at, end, begin = self._search(prepared, data, start, stop)
        self._last[:] = [(data, start, stop, at, end, begin)]
        return -1 if at == -1 else max(begin, start)

    def _search(self, prepared: bytes, data: bytes, start: int, stop: int) -> tuple[int, int, int]:
        """The first confirmed piece at or after `start`: where it starts and ends, and where
        its whole text begins; (-1, -1, -1) when there is none before `stop`."""
        search, written = self.pattern.search, self.written
        while True:
            found = search(prepared, start, stop)
            if found is None:
                return -1, -1, -1
            at = found.start()
            for text, offset in written[found.group()]:
                begin = at - offset
                if begin >= 0 and data.startswith(text, begin):
                    return at, found.end(), begin
            start = at + 1


@record
class Re2Scan:
    """The RE2 engine (the optional google-re2 package): one automaton for every trigger text,
    whose cost per byte does not grow with their number. Each call searches from where the
    scanner stands to the next trigger: a region is never searched whole ahead of the scanner,
    since the scanner passes over runs of repeated lines (envcheck.explain.cycles) without
    asking, and finding every trigger of a region first cost a Python object per trigger, 18 µs
    a line on a log of TensorFlow INFO lines (issue 22)."""

    pattern: Any
    digit_texts: tuple[bytes, ...] = ()

    def prepare(self, data: bytes, begin: int, stop: int) -> LineCount:  # noqa: ARG002
        return LineCount(data, begin)

    def next(self, prepared: LineCount, data: bytes, start: int, stop: int) -> int:  # noqa: ARG002
        found = self.pattern.search(data, start, stop)
        return -1 if found is None else int(found.start())

    def newlines(self, prepared: LineCount, data: bytes, upto: int) -> int:  # noqa: ARG002
        return prepared.upto(upto)

    def passed(self, prepared: LineCount, place: int, count: int) -> None:
        prepared.went_to(place, count)


# The shortest rest of a trigger after its first space that is looked for as well (wrapped()),
# and what it must hold besides letters: a bare word ("version", "argument") is on too many lines.
_WRAPPED_REST = 7
_NOT_A_BARE_WORD = frozenset(" :(_.'=[")


def wrapped(text: str) -> str:
    """What of a trigger text a log shows on the next line when a console or a paste wrapped
    the message at the text's first space ("...so: undefined" / " symbol: _ZN3c10..."): its
    rest after that space, where that says enough (not a bare word, not short); "" else. The
    scanner hands on the line before a triggered one, so the message is read joined again."""
    _, space, rest = text.partition(" ")
    kept = rest.strip()
    if not space or len(kept) < _WRAPPED_REST or not _NOT_A_BARE_WORD & set(kept):
        return ""
    return rest


def _texts(triggers: Iterable[Trigger]) -> list[bytes]:
    texts = {text.encode("utf-8") for trigger in triggers for text in written_forms(trigger)}
    if not texts:
        raise ValueError("no triggers")
    return sorted(texts)


def _digit_texts(texts: Iterable[bytes | tuple[bytes, bytes, int]]) -> tuple[bytes, ...]:
    whole = {text[1] if isinstance(text, tuple) else text for text in texts}
    # (A text with a digit is changed by deleting the digits: one C call per text.)
    return tuple(sorted(text for text in whole if text.translate(None, _DIGITS) != text))


_DIGITS = b"0123456789"


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
    return FoldedScan(table, pattern, written, _by_prefix(plain), _digit_texts(pieces))


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
    texts = _texts(triggers)
    source = b"|".join(re.escape(text) for text in outermost(texts))
    return Re2Scan(re2.compile(source, options=options), _digit_texts(texts))


def outermost(texts: list[bytes]) -> list[bytes]:
    """The texts that hold no other text of `texts`: a line holding one that does holds the
    shorter one too, on the same line (no text spans lines), so the scan stops at the same
    lines without it. Of the matrix's ~1,000 trigger texts ~40% go ("CUDA error: " holds
    "error"), and compiling the automaton takes half as long. Worked out once per set of texts
    and kept in the parsed-matrix cache (it costs more than the compile it saves)."""
    content = b"\n\0".join([b"outermost-triggers-1", *texts])
    cached = parsed_cache.load(content)
    kept = cached.get("kept") if cached is not None else None
    if isinstance(kept, list) and all(isinstance(text, str) for text in kept):
        return [text.encode("utf-8") for text in kept]
    by_length = sorted(texts, key=len)
    found = [
        text
        for index, text in enumerate(by_length)
        if b"\n" in text or not any(shorter in text for shorter in by_length[:index])
    ]
    parsed_cache.store(content, {"kept": [text.decode("utf-8") for text in found]})
    return found


def combined(triggers: Iterable[Trigger]) -> TriggerScan:
    """The fastest scan this installation has for `triggers`."""
    chosen = list(triggers)
    return re2_scan(chosen) or folded_scan(chosen)
