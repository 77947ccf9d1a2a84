"""The matcher: which known messages (envcheck.matrix.signatures) a log's lines hold.

`match_lines` streams: it looks at one line at a time and never holds the log. A row with
`follows` is tried only on the FOLLOW_WINDOW lines after its leader's hit (what a call printed:
the `[]` after `list_physical_devices('GPU')`), never on every line. A screen of each pattern's
required words picks the few signatures worth searching on a line.

This module does not read logs from disk, print, or decide which hits matter most; callers
(`envcheck explain`, the doctor's smoke test) turn hits into findings.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import field, replace
from typing import Any

from envcheck.explain.digits import DigitReader, digit_blind, digit_places, masked
from envcheck.explain.presence import Deferred, Presence, presence
from envcheck.findings import Finding, Severity, at_most
from envcheck.matrix import parsed_cache
from envcheck.matrix.signatures import Signature, TemplateValues
from envcheck.record import record

# The regex parser, to read which literal text a pattern requires (Screen). It is CPython's own
# (re._parser since 3.11, sre_parse before); typed loosely since it has no public stubs.
_NEW_RE = sys.version_info >= (3, 11)
_parser: Any = importlib.import_module("re._parser" if _NEW_RE else "sre_parse")
_constants: Any = importlib.import_module("re._constants" if _NEW_RE else "sre_constants")
_BRANCH, _LITERAL, _SUBPATTERN = _constants.BRANCH, _constants.LITERAL, _constants.SUBPATTERN


# CSI (colours, cursor moves), OSC (terminal titles, hyperlinks) and the other two-byte escapes.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
# "> " quote markers of e-mail and Markdown, nested or not; a Python prompt (">>> ") is kept.
_QUOTE = re.compile(r"^[ \t]*(?:>(?:[ \t]+|$))+")
_FENCE_START = re.compile(r"^[ \t]*(?:```|~~~)[ \t]*")
# (From the start of a run of blanks only: tried from each blank of a long run, it ran to the
# run's end every time, quadratic in the run.)
_FENCE_END = re.compile(r"(?<![ \t])[ \t]*(?:```|~~~)$")
# The regexes clean_line applies to every line (each must be linear in it, as log_facts.PATTERNS).
CLEANING_PATTERNS = (_ANSI, _QUOTE, _FENCE_START, _FENCE_END)
# How many lines after its leader's hit a `follows` row is tried: TensorFlow logs its device
# set-up (a few dozen lines, more with several GPUs) between a call and what the call printed.
FOLLOW_WINDOW = 200


@record
class LogHit:
    """A line of a log that a signature recognised."""

    signature: Signature
    code: str  # the signature's code after `code_when`
    line: int  # 1-based
    text: str  # the cleaned line
    groups: dict[str, str] = field(default_factory=dict)  # groups that matched
    # Where the log is read as a whole (explain sets them once the log is read): the framework
    # the hit is read as ("" unknown), the places of fix_keys.FIX_PLACES the log ran in, and
    # the values of the framework fields a fix variant names (signatures.FRAMEWORK_FIELDS).
    framework: str = ""
    places: frozenset[str] = frozenset()
    framework_values: tuple[tuple[str, str], ...] = ()
    # For a hit of a with_leader row: the line of the leader's hit (what the row replaces, it
    # reads there too); 0 otherwise.
    leader_line: int = 0
    # Whether this is a cause the log leaves open beside the line's own reading (a platform
    # without wheels, Signature.if_unknown): its finding says so (Finding.data "reading").
    open_reading: bool = False

    @property
    def message(self) -> str:
        return self.signature.message.format_map(TemplateValues(self.groups))

    def read_as(
        self,
        code: str,
        message: str,
        fix: str,
        groups: dict[str, str] | None = None,
        **changes: Any,
    ) -> LogHit:
        """This hit read as `code` with its own message and fix (none of the row's framework
        variants), `groups` added, the signature's other fields changed by `changes`."""
        return replace(
            self,
            code=code,
            signature=replace(
                self.signature, code=code, message=message, fix=fix, fix_for=(), **changes
            ),
            groups={**self.groups, **(groups or {})},
        )

    @property
    def fix(self) -> str:
        # A caller that does not read the log as a whole (the doctor's smoke test of
        # TensorFlow) gets the row's own fix.
        if not self.framework_values:
            return self.signature.fix.format_map(TemplateValues(self.groups))
        template = self.signature.fix_template(self.framework, self.places)
        return template.format_map(TemplateValues({**dict(self.framework_values), **self.groups}))

    @property
    def benign(self) -> bool:
        """Noise: a benign signature, or a line routed to benign-warning (TensorRT missing)."""
        return self.signature.benign or self.code == "benign-warning"

    @property
    def severity(self) -> Severity:
        # (A line routed to another code by code_when or code_on takes that code's most severe
        # level at most: a program error is a note, however its row reads.)
        return Severity.INFO if self.benign else at_most(self.signature.severity, self.code)

    @property
    def root_cause(self) -> bool:
        return self.signature.root_cause and not self.benign

    def to_finding(self) -> Finding:
        return Finding(
            code=self.code,
            severity=self.severity,
            message=self.message,
            evidence=(self.text,),
            fix=self.fix,
            lines=(self.line,),
        )


_TYPOGRAPHIC_QUOTES = {0x2018: "'", 0x2019: "'", 0x201C: '"', 0x201D: '"'}


def clean_line(raw: str) -> str:
    """A pasted line as the patterns expect it.

    Removes ANSI escape sequences, the line end (CR of Windows logs included) and trailing
    blanks, leading "> " quote markers and Markdown code-fence markers (```) at either end, and
    makes typographic quotes plain.
    """
    text = (_ANSI.sub("", raw) if "\x1b" in raw else raw).rstrip()
    if not text.isascii():
        # A log copied through an editor or a web page may have its quotes made typographic
        # (U+2018 and U+2019 around a provider's name); the patterns quote as
        # programs print. One character for one: the places of its digits stay where they are.
        text = text.translate(_TYPOGRAPHIC_QUOTES)
    # Most lines have no quote marker or fence: skip those substitutions unless one can apply.
    if text.lstrip(" \t").startswith(">"):
        text = _QUOTE.sub("", text)
    if "```" in text or "~~~" in text:
        text = _FENCE_END.sub("", _FENCE_START.sub("", text))
    return text


def match_lines(
    lines: Iterable[str], signatures: Sequence[Signature], first_line: int = 1
) -> Iterator[LogHit]:
    """Every (line, signature) match, in log order and then in data-file order.

    Lines are consumed one at a time, so a file object or a generator of any length works.
    `first_line` is the number of the first line (for a log read in parts).
    """
    screen = Screen.of(signatures)
    followers = Followers(screen)
    for number, raw in enumerate(lines, start=first_line):
        text = clean_line(raw)
        if not text:
            continue
        hits = list(screen.match(text, number))
        if followers.waiting:
            hits.extend(followers.match(text, number))
        if hits:
            followers.opened_by(hits, number)
            yield from hits


_WORD = re.compile(r"[a-z_]{4,}")


def _required_literals(items: Any) -> set[str] | None:
    """Literals one of which every match of the parsed pattern contains (None: cannot tell)."""
    best: set[str] | None = None
    run: list[str] = []

    def consider(candidate: set[str] | None) -> None:
        nonlocal best
        if (
            candidate
            and all(_WORD.search(c.lower()) for c in candidate)
            and (best is None or min(map(len, candidate)) > min(map(len, best)))
        ):
            best = candidate

    for op, value in items:
        if op is _LITERAL:
            run.append(chr(value))
            continue
        if run:
            consider({"".join(run)})
            run = []
        if op is _SUBPATTERN:
            consider(_required_literals(value[-1]))
        elif op is _BRANCH:
            branches = [_required_literals(branch) for branch in value[1]]
            if all(branches):
                consider(set().union(*[b for b in branches if b]))
    if run:
        consider({"".join(run)})
    return best


@record
class Screen:
    """Which signatures can match a line, from one word each must contain.

    Most log lines match no signature, and one regex search per signature per line was the cost
    of explaining a big log. Each pattern's required literals (read from its parsed form) give a
    key word, one bounded on both sides inside the literal (an edge may sit inside a line's
    word); a line's words then pick the few signatures worth searching. A pattern whose required
    text gives no such word is always searched. The screen may pass lines no signature
    matches; it never drops one a signature would match.
    """

    always: tuple[int, ...]
    by_word: dict[str, tuple[int, ...]]
    signatures: tuple[Signature, ...]
    followers: dict[str, tuple[int, ...]] = field(default_factory=dict)  # leader id -> rows
    # [the deferred _ByLiteral], made when first judging a line (envcheck.explain.presence).
    _literals: list[Deferred[_ByLiteral]] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def of(cls, signatures: Sequence[Signature]) -> Screen:
        key = tuple(id(s) for s in signatures)
        cached = _SCREENS.get(key)
        if cached is not None:
            return cached
        prime_literals(s.pattern for s in signatures if not s.follows)
        always: list[int] = []
        by_word: dict[str, list[int]] = {}
        followers: dict[str, list[int]] = {}
        for index, signature in enumerate(signatures):
            if signature.follows:
                followers.setdefault(signature.follows, []).append(index)
                continue
            words = _key_words(signature.pattern)
            if words is None:
                always.append(index)
            for word in words or ():
                by_word.setdefault(word, []).append(index)
        screen = cls(
            tuple(always),
            {w: tuple(i) for w, i in by_word.items()},
            tuple(signatures),
            {leader: tuple(i) for leader, i in followers.items()},
        )
        _SCREENS[key] = screen
        return screen

    def match(self, text: str, number: int) -> Iterator[LogHit]:
        """The hits on one cleaned line (line `number` of its log), `follows` rows aside."""
        yield from self.hits(self.judge(text)[0], text, number)

    def judge(self, text: str, mask: bytes | None = None) -> tuple[tuple[Found, ...], list[int]]:
        """Which signatures match `text` and where their groups are, and the places of the
        digits that decided it (envcheck.explain.digits; `mask`: the line's mask): a pure
        function of the line, which explain remembers per mask and turns into hits with
        hits()."""
        mask = masked(text) if mask is None else mask
        lowered = text.lower()
        ascii_lowered = lowered if text.isascii() else None
        found_here: list[Found] = []
        pins: list[int] = []
        if not self._literals:
            signatures = self.signatures
            self._literals.append(Deferred(LITERAL_SCREEN_AFTER, lambda: _ByLiteral.of(signatures)))
        by_literal = self._literals[0].get()
        held = None if by_literal is None else by_literal.candidates(mask)
        for index in self._candidate_indexes(lowered) if held is None else held:
            signature = self.signatures[index]
            searcher = _searcher(signature)
            if not searcher.reader.blind:
                pins += searcher.pins(text, mask)
            if not searcher.may_match(text, ascii_lowered):
                continue
            found = signature.pattern.search(text)
            if found is None:
                continue
            spans = tuple(
                (name, *found.span(name))
                for name in signature.pattern.groupindex
                if found.span(name)[0] != -1
            )
            found_here.append((index, spans))
            for name, start, end in spans:
                if name in FACT_GROUPS:
                    # (What the log's facts keep from a hit: it must be this line's own.)
                    pins += digit_places(text, start, end)
        return tuple(found_here), pins

    def hits(self, found: Iterable[Found], text: str, number: int) -> list[LogHit]:
        """The hits judge() found, on line `number` whose text is `text` (or any line of the
        same mask and pinned digits)."""
        hits = []
        for index, spans in found:
            signature = self.signatures[index]
            groups = {name: text[start:end] for name, start, end in spans}
            hits.append(LogHit(signature, signature.code_for(groups), number, text, groups))
        return hits

    def candidates(self, text: str) -> list[Signature]:
        return [self.signatures[i] for i in self.candidate_indexes(text)]

    def candidate_indexes(self, text: str) -> list[int]:
        return self._candidate_indexes(text.lower())

    def _candidate_indexes(self, lowered: str) -> list[int]:
        by_word = self.by_word
        picked = set(self.always)
        # (Looked up word by word: set.intersection(dict) walked the whole dictionary.)
        for word in set(_WORD.findall(lowered)):
            if word in by_word:
                picked.update(by_word[word])
        return sorted(picked)


class _ByLiteral:
    """The signatures a line's mask holds a required literal of, in one pass (presence.py):
    on a line where the word screen picks a dozen candidates, most hold none of the literals
    that `_Searcher.may_match` then tests one by one. A signature whose literals cannot be
    read, or a case-blind one with literals beyond ASCII, is always a candidate. Candidates
    are a superset of the signatures that can match any line of the mask, and the digits
    pinned for them a superset of those the word screen's candidates pinned."""

    def __init__(self, finder: Presence, owners: list[tuple[int, ...]], always: set[int]):
        self._held = finder.held
        self._owners = owners
        self._always = always

    @classmethod
    def of(cls, signatures: Sequence[Signature]) -> _ByLiteral | None:
        entries: dict[tuple[str, bool], list[int]] = {}
        always: set[int] = set()
        for index, signature in enumerate(signatures):
            if signature.follows:
                continue
            literals = required_literals(signature.pattern)
            blind_to_case = pattern_traits(signature.pattern)[1]
            if not literals or (blind_to_case and not all(x.isascii() for x in literals)):
                always.add(index)
                continue
            for literal in literals:
                entries.setdefault((literal, blind_to_case), []).append(index)
        if not entries:
            return None
        finder = presence(list(entries))
        if finder is None:
            return None
        return cls(finder, [tuple(owners) for owners in entries.values()], always)

    def candidates(self, mask: bytes) -> list[int] | None:
        """The candidates for a line of this mask, in order; None: the word screen decides."""
        held = self._held(mask)
        if held is None:
            return None
        if not held:
            return sorted(self._always)
        owners = self._owners
        picked = set(self._always)
        for entry in held:
            picked.update(owners[entry])
        return sorted(picked)


# Lines judged by the word screen before the literal screen is built: building it costs about
# 3 ms, 2% of explaining a pasted log of a few lines, and saves about 0.1 ms a line judged.
LITERAL_SCREEN_AFTER = 64


# (signature index, ((group, start, end), ...) for each group that took part)
Found = tuple[int, tuple[tuple[str, int, int], ...]]
# Groups of a hit whose value the log's facts keep (log_facts.LogFactCollector.hits).
FACT_GROUPS = frozenset(
    {"cudnn", "runtime", "compiled", "capability", "minimum", "driver", "kernel", "dso"}
)


class _Searcher:
    """How one signature's pattern is searched on a line: the screen picks it by one word of
    its required literals; a line that holds none of the literals themselves cannot match, so
    the regex is not run (a line of TensorFlow's with "failed" in it picked a dozen patterns,
    of which none could match); and how its outcome hangs on digits (digits.DigitReader)."""

    __slots__ = ("_in_lowered", "_in_mask", "_in_text", "pattern", "reader")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        blind, blind_to_case = pattern_traits(pattern)
        self.reader = DigitReader(pattern, blind)
        found = required_literals(pattern)
        literals = sorted(found) if found else []
        # A case-blind pattern's literals are looked for in the lowered line, where that is
        # exact: ASCII literals in an ASCII line (elsewhere the long s, U+017F, matches "s").
        if blind_to_case and not all(literal.isascii() for literal in literals):
            literals = []
        # Plain `in` tests, not a regex of the literals: compiling one per pattern cost ~0.15 ms
        # each, a tenth of explain's start on a big log (issue 22), for no faster a test.
        self._in_text = tuple(literals) if literals and not blind_to_case else None
        self._in_lowered = (
            tuple(x.lower() for x in literals) if literals and blind_to_case else None
        )
        self._in_mask = (
            tuple(masked(x) for x in literals) if literals and not blind_to_case else None
        )

    def may_match(self, text: str, ascii_lowered: str | None) -> bool:
        """False where the pattern cannot match `text` (`ascii_lowered`: the line lowered,
        None unless it is ASCII)."""
        if self._in_text is not None:
            return any(map(text.__contains__, self._in_text))
        if self._in_lowered is not None and ascii_lowered is not None:
            return any(map(ascii_lowered.__contains__, self._in_lowered))
        return True

    def pins(self, text: str, mask: bytes) -> list[int]:
        """The digits the pattern's outcome hangs on beyond its groups (DigitReader.pins),
        none where no line of this mask holds one of its literals."""
        if self._in_mask is not None and not any(map(mask.__contains__, self._in_mask)):
            return []
        return self.reader.pins(text)


_SEARCHERS: dict[int, _Searcher] = {}


def _searcher(signature: Signature) -> _Searcher:
    """The signature's _Searcher, worked out when first needed (parsing every pattern up front
    cost as much as compiling them)."""
    searcher = _SEARCHERS.get(id(signature.pattern))
    if searcher is None or searcher.pattern is not signature.pattern:
        searcher = _SEARCHERS[id(signature.pattern)] = _Searcher(signature.pattern)
    return searcher


def ignores_case(pattern: re.Pattern[str]) -> bool:
    """Whether any part of the pattern is case-blind (its flags or a scoped (?i...))."""
    if pattern.flags & re.IGNORECASE:
        return True
    try:
        return _scoped_case(_sre_parse(pattern.pattern, pattern.flags))
    except Exception:
        return True


def _scoped_case(items: Any) -> bool:
    for op, value in items:
        if op is _SUBPATTERN:
            if value[1] & re.IGNORECASE or _scoped_case(value[-1]):
                return True
        elif op is _BRANCH:
            if any(_scoped_case(branch) for branch in value[1]):
                return True
        elif isinstance(value, tuple) and any(
            hasattr(v, "data") and _scoped_case(v) for v in value
        ):
            return True
    return False


_SCREENS: dict[tuple[int, ...], Screen] = {}


def _hit(signature: Signature, found: re.Match[str], number: int, text: str) -> LogHit:
    groups = {k: v for k, v in found.groupdict().items() if v is not None}
    return LogHit(signature, signature.code_for(groups), number, text, groups)


class Followers:
    """The `follows` rows waiting for a line: each is tried on the FOLLOW_WINDOW lines after a
    hit of its leader, until it matches once. `waiting` is empty on almost every line, so a
    caller checks it before calling `match`."""

    def __init__(self, screen: Screen) -> None:
        self._screen = screen
        self.waiting: dict[int, int] = {}  # row index -> the last line number it may match
        self._leaders: dict[int, tuple[int, str]] = {}  # row index -> the leader's line, text
        self.moves = 0  # windows opened and closed so far (explain's cycles compare it)

    def match(self, text: str, number: int) -> list[LogHit]:
        hits = []
        for index, last in list(self.waiting.items()):
            signature = self._screen.signatures[index]
            hit = self._tried(signature, index, text, number) if number <= last else None
            if hit is not None:
                hits.append(hit)
            if hit is not None or number >= last:
                del self.waiting[index]
                self._leaders.pop(index, None)
                self.moves += 1
        return hits

    def _tried(self, signature: Signature, index: int, text: str, number: int) -> LogHit | None:
        found = signature.pattern.search(text)
        if found is not None:
            return _hit(signature, found, number, text)
        if not signature.with_leader or index not in self._leaders:
            return None
        leader_line, leader_text = self._leaders[index]
        joined = f"{leader_text} {text}"
        found = signature.pattern.search(joined)
        if found is None:
            return None
        return replace(_hit(signature, found, number, joined), leader_line=leader_line)

    def opened_by(self, hits: Iterable[LogHit], number: int) -> None:
        """Open the window of every row that follows one of these hits (on line `number`)."""
        for hit in hits:
            for index in self._screen.followers.get(hit.signature.id, ()):
                self.waiting[index] = number + FOLLOW_WINDOW
                if self._screen.signatures[index].with_leader:
                    self._leaders[index] = (number, hit.text)
                self.moves += 1


def _sre_parse(pattern: str, flags: int) -> Any:
    return _parser.parse(pattern, flags)


def required_literals(pattern: re.Pattern[str]) -> set[str] | None:
    """Literals one of which every match of `pattern` contains (None: cannot tell)."""
    key = _key(pattern.pattern, pattern.flags)
    if key not in _PRIMED:
        _PRIMED[key] = _literals_of(pattern.pattern, pattern.flags)
    known = _PRIMED[key]
    return None if known is None else set(known)


# "flags\tsource" -> the pattern's literals: worked out once per process (parsing a pattern
# costs more than compiling it, and the screen and the scan triggers both ask), or read from
# the parsed-matrix cache by prime_literals.
_PRIMED: dict[str, list[str] | None] = {}


def _key(source: str, flags: int) -> str:
    return f"{flags}\t{source}"


def _literal_list(value: object) -> bool:
    return value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def prime_literals(patterns: Iterable[re.Pattern[str]]) -> None:
    """Read the literals of all `patterns` from the parsed-matrix cache (or work them out and
    keep them there): parsing every signature's regex for its literals cost as much as
    compiling them all, on every run, for the same patterns."""
    keys = sorted({_key(p.pattern, p.flags) for p in patterns} - set(_PRIMED))
    if not keys:
        return
    # Each pattern's literals, whether it is digit-blind and whether it ignores case
    # (pattern_traits): explain asks for all three of every pattern it tries.
    content = "\n\0".join(["required-literals-2", *keys]).encode("utf-8")
    cached = parsed_cache.load(content)
    if cached is None or set(cached) != set(keys) or not all(map(_primed, cached.values())):
        cached = {}
        for key in keys:
            flags, source = key.split("\t", 1)
            cached[key] = [_literals_of(source, int(flags)), *_traits_of(source, int(flags))]
        parsed_cache.store(content, cached)
    for key, (literals, blind, blind_to_case) in cached.items():
        _PRIMED[key] = literals
        _TRAITS[key] = (blind, blind_to_case)


def _primed(value: object) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 3
        and _literal_list(value[0])
        and all(isinstance(flag, bool) for flag in value[1:])
    )


# "flags\tsource" -> (digit-blind, ignores case): see pattern_traits.
_TRAITS: dict[str, tuple[bool, bool]] = {}


def pattern_traits(pattern: re.Pattern[str]) -> tuple[bool, bool]:
    """Whether `pattern` is digit-blind (digits.digit_blind) and whether any part of it ignores
    case (ignores_case): primed with its literals, else worked out once per process."""
    key = _key(pattern.pattern, pattern.flags)
    if key not in _TRAITS:
        _TRAITS[key] = _traits_of(pattern.pattern, pattern.flags)
    return _TRAITS[key]


def _traits_of(source: str, flags: int) -> tuple[bool, bool]:
    try:
        compiled = re.compile(source, flags)
    except re.error:
        return False, True
    return digit_blind(compiled), ignores_case(compiled)


def _literals_of(source: str, flags: int) -> list[str] | None:
    try:
        found = _required_literals(_sre_parse(source, flags))
    except Exception:
        return None
    return None if found is None else sorted(found)


def _key_words(pattern: re.Pattern[str]) -> set[str] | None:
    """One word per required literal (its longest), or None when the pattern gives none."""
    literals = required_literals(pattern)
    if not literals:
        return None
    words = set()
    for literal in literals:
        # Whole words only, bounded on both sides inside the literal: a literal's edge can be
        # the middle of a line's word ("ExecutionProvider." after (CUDA|TensorRT), "mpatible"
        # left of a factored alternation), and a key that is a fragment misses the line.
        lowered = literal.lower()
        tokens = [
            found.group()
            for found in _TOKEN.finditer(lowered)
            if found.start() > 0 and found.end() < len(lowered)
        ]
        choice = max(tokens, key=len, default=None)
        if choice is None:
            return None
        words.add(choice)
    return words


_TOKEN = re.compile(r"(?<![a-z_])[a-z_]{4,}(?![a-z_])")
