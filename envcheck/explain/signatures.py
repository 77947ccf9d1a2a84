"""Known log messages (matrix/log_signatures.toml) and the matcher that finds them in a log.

`load_signatures` reads the data file strictly, like `envcheck.matrix.load`: every field is
checked, unknown fields are refused, every regex is compiled once here and every message
template may name only groups of its own pattern, so a bad row is a MatrixDataError naming the
signature, never a crash in the middle of a user's log. `match_lines` streams: it looks at one
line at a time and never holds the log. A row with `follows` names another row (its leader): it
is tried only on the FOLLOW_WINDOW lines after the leader's hit (what a call printed: the `[]`
after `list_physical_devices('GPU')`), never on every line.

This module does not read logs from disk, print, or decide which hits matter most; callers
(`envcheck explain`, the doctor's smoke test) turn hits into findings.
"""

from __future__ import annotations

import importlib
import re
import string
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envcheck.findings import CODES, Finding, Severity
from envcheck.matrix.load import SCHEMA, MatrixDataError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

# The regex parser, to read which literal text a pattern requires (Screen). It is CPython's own
# (re._parser since 3.11, sre_parse before); typed loosely since it has no public stubs.
_NEW_RE = sys.version_info >= (3, 11)
_parser: Any = importlib.import_module("re._parser" if _NEW_RE else "sre_parse")
_constants: Any = importlib.import_module("re._constants" if _NEW_RE else "sre_constants")
_BRANCH, _LITERAL, _SUBPATTERN = _constants.BRANCH, _constants.LITERAL, _constants.SUBPATTERN

FILE = "log_signatures.toml"

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_MISSING = "?"

# CSI (colours, cursor moves), OSC (terminal titles, hyperlinks) and the other two-byte escapes.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
# "> " quote markers of e-mail and Markdown, nested or not; a Python prompt (">>> ") is kept.
_QUOTE = re.compile(r"^[ \t]*(?:>(?:[ \t]+|$))+")
_FENCE_START = re.compile(r"^[ \t]*(?:```|~~~)[ \t]*")
_FENCE_END = re.compile(r"[ \t]*(?:```|~~~)$")
# How many lines after its leader's hit a `follows` row is tried: TensorFlow logs its device
# set-up (a few dozen lines, more with several GPUs) between a call and what the call printed.
FOLLOW_WINDOW = 200


@dataclass(frozen=True)
class Signature:
    """One known message: how to recognise it and what it means."""

    id: str
    pattern: re.Pattern[str]
    code: str
    severity: Severity
    message: str  # str.format template over the pattern's named groups
    fix: str  # the same
    code_when: tuple[tuple[str, re.Pattern[str], str], ...] = ()  # (group, regex, code)
    root_cause: bool = False
    benign: bool = False
    sources: tuple[str, ...] = ()
    note: str = ""
    follows: str = ""  # the id of the leader row; "" for a row tried on every line

    def code_for(self, groups: Mapping[str, str]) -> str:
        """The code of a hit: the first `code_when` entry whose regex finds its group's value."""
        for group, regex, code in self.code_when:
            value = groups.get(group)
            if value is not None and regex.search(value):
                return code
        return self.code


class _Filled(dict[str, str]):
    """Template values where a group that did not take part in the match reads as '?'."""

    def __missing__(self, key: str) -> str:
        return _MISSING


@dataclass(frozen=True)
class LogHit:
    """A line of a log that a signature recognised."""

    signature: Signature
    code: str  # the signature's code after `code_when`
    line: int  # 1-based
    text: str  # the cleaned line
    groups: dict[str, str] = field(default_factory=dict)  # groups that matched

    @property
    def message(self) -> str:
        return self.signature.message.format_map(_Filled(self.groups))

    @property
    def fix(self) -> str:
        return self.signature.fix.format_map(_Filled(self.groups))

    @property
    def benign(self) -> bool:
        """Noise: a benign signature, or a line routed to benign-warning (TensorRT missing)."""
        return self.signature.benign or self.code == "benign-warning"

    @property
    def severity(self) -> Severity:
        return Severity.INFO if self.benign else self.signature.severity

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


def clean_line(raw: str) -> str:
    """A pasted line as the patterns expect it.

    Removes ANSI escape sequences, the line end (CR of Windows logs included) and trailing
    blanks, leading "> " quote markers and Markdown code-fence markers (```) at either end.
    """
    text = (_ANSI.sub("", raw) if "\x1b" in raw else raw).rstrip()
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


@dataclass(frozen=True)
class Screen:
    """Which signatures can match a line, from one word each must contain.

    Most log lines match no signature, and one regex search per signature per line was the cost
    of explaining a big log. Each pattern's required literals (read from its parsed form) give a
    key word; a line's words then pick the few signatures worth searching. A pattern whose
    required text cannot be read is always searched. The screen may pass lines no signature
    matches; it never drops one a signature would match.
    """

    always: tuple[int, ...]
    by_word: dict[str, tuple[int, ...]]
    signatures: tuple[Signature, ...]
    followers: dict[str, tuple[int, ...]] = field(default_factory=dict)  # leader id -> rows

    @classmethod
    def of(cls, signatures: Sequence[Signature]) -> Screen:
        key = tuple(id(s) for s in signatures)
        cached = _SCREENS.get(key)
        if cached is not None:
            return cached
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
        for signature in self.candidates(text):
            found = signature.pattern.search(text)
            if found is not None:
                yield _hit(signature, found, number, text)

    def candidates(self, text: str) -> list[Signature]:
        words = set(_WORD.findall(text.lower()))
        picked = set(self.always)
        for word in words.intersection(self.by_word):
            picked.update(self.by_word[word])
        return [self.signatures[i] for i in sorted(picked)]


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

    def match(self, text: str, number: int) -> list[LogHit]:
        hits = []
        for index, last in list(self.waiting.items()):
            signature = self._screen.signatures[index]
            found = signature.pattern.search(text) if number <= last else None
            if found is not None:
                hits.append(_hit(signature, found, number, text))
            if found is not None or number >= last:
                del self.waiting[index]
        return hits

    def opened_by(self, hits: Iterable[LogHit], number: int) -> None:
        """Open the window of every row that follows one of these hits (on line `number`)."""
        for hit in hits:
            for index in self._screen.followers.get(hit.signature.id, ()):
                self.waiting[index] = number + FOLLOW_WINDOW


def _sre_parse(pattern: str, flags: int) -> Any:
    return _parser.parse(pattern, flags)


def _key_words(pattern: re.Pattern[str]) -> set[str] | None:
    """One word per required literal (its longest), or None when the pattern gives none."""
    try:
        literals = _required_literals(_sre_parse(pattern.pattern, pattern.flags))
    except Exception:
        return None
    if not literals:
        return None
    words = set()
    for literal in literals:
        # Whole words only: a literal cut mid-word ("cuda_dnn.c" from a longer name) would
        # miss lines, so only tokens bounded on both sides inside the literal count.
        tokens = re.findall(r"(?<![a-z_])[a-z_]{4,}(?![a-z_])", literal.lower())
        inner = tokens[1:-1] if len(tokens) > 2 else []
        choice = max(inner or tokens, key=len, default=None)
        if choice is None:
            return None
        words.add(choice)
    return words


# --- loading -------------------------------------------------------------------------------


class _Table:
    """One TOML table read field by field; `done()` refuses fields nobody read."""

    def __init__(self, table: object, where: str) -> None:
        if not isinstance(table, dict):
            raise MatrixDataError(f"{where}: expected a table, got {type(table).__name__}")
        self._table: dict[str, Any] = table
        self.where = where
        self._read: set[str] = set()

    def error(self, key: str, message: str) -> MatrixDataError:
        return MatrixDataError(f"{self.where}: field {key!r}: {message}")

    def _get(self, key: str) -> Any:
        self._read.add(key)
        return self._table.get(key)

    def string(self, key: str) -> str:
        value = self._get(key)
        if value is None:
            raise MatrixDataError(f"{self.where}: missing field {key!r}")
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, "expected a non-empty string")
        return value

    def optional_string(self, key: str) -> str:
        if self._table.get(key) is None:
            self._read.add(key)
            return ""
        return self.string(key)

    def boolean(self, key: str, default: bool) -> bool:
        value = self._get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(key, "expected true or false")
        return value

    def tables(self, key: str) -> list[Any]:
        value = self._get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(key, "expected an array of tables")
        return value

    def sources(self, known: Mapping[str, str]) -> tuple[str, ...]:
        value = self._get("source")
        ids = [value] if isinstance(value, str) else value
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise self.error("source", "expected a source id or a non-empty list of them")
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise self.error("source", f"unknown source id(s) {', '.join(unknown)}")
        return tuple(ids)

    def done(self) -> None:
        unknown = sorted(set(self._table) - self._read)
        if unknown:
            raise MatrixDataError(f"{self.where}: unknown field(s) {', '.join(unknown)}")


def _compile(row: _Table, key: str, text: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as exc:
        raise row.error(key, f"invalid regular expression {text!r}: {exc}") from exc


def _template(row: _Table, key: str, pattern: re.Pattern[str]) -> str:
    """A str.format template that names only groups of `pattern` (checked by formatting it)."""
    text = row.string(key)
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as exc:
        raise row.error(key, f"not a valid format template: {exc}") from exc
    for name in fields:
        if name not in pattern.groupindex:
            raise row.error(
                key,
                f"{{{name}}} is not a named group of the pattern "
                f"(groups: {', '.join(pattern.groupindex) or 'none'}); write {{{{ }}}} for a brace",
            )
    try:
        text.format_map(_Filled())
    except (ValueError, KeyError, IndexError, AttributeError) as exc:
        raise row.error(key, f"not a valid format template: {exc}") from exc
    return text


def _code(row: _Table, key: str, value: str) -> str:
    if value not in CODES:
        raise row.error(key, f"unknown finding code {value!r} (see envcheck/findings.py)")
    return value


def _code_when(
    row: _Table, pattern: re.Pattern[str]
) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    routes = []
    for index, table in enumerate(row.tables("code_when"), start=1):
        entry = _Table(table, f"{row.where} code_when #{index}")
        group = entry.string("group")
        if group not in pattern.groupindex:
            raise entry.error("group", f"{group!r} is not a named group of the pattern")
        regex = _compile(entry, "match", entry.string("match"))
        routes.append((group, regex, _code(entry, "code", entry.string("code"))))
        entry.done()
    return tuple(routes)


def _signature(row: _Table, sources: Mapping[str, str]) -> Signature:
    identifier = row.string("id")
    if not _ID.fullmatch(identifier):
        raise row.error("id", f"{identifier!r} is not kebab-case (a-z, 0-9, single dashes)")
    pattern = _compile(row, "pattern", row.string("pattern"))
    if pattern.search("") is not None:
        raise row.error("pattern", "matches an empty line, so it would match every line")
    severity_text = row.string("severity")
    try:
        severity = Severity(severity_text)
    except ValueError as exc:
        raise row.error("severity", f"{severity_text!r} is not error, warning or info") from exc
    code = _code(row, "code", row.string("code"))
    benign = row.boolean("benign", default=False)
    root_cause = row.boolean("root_cause", default=False)
    if benign != (code == "benign-warning"):
        raise row.error("benign", "benign = true goes with code benign-warning, and only with it")
    if benign and root_cause:
        raise row.error("root_cause", "a benign line is not a root cause")
    signature = Signature(
        id=identifier,
        pattern=pattern,
        code=code,
        severity=severity,
        message=_template(row, "message", pattern),
        fix=_template(row, "fix", pattern),
        code_when=_code_when(row, pattern),
        root_cause=root_cause,
        benign=benign,
        sources=row.sources(sources),
        note=row.optional_string("note"),
        follows=row.optional_string("follows"),
    )
    row.done()
    return signature


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError as exc:
        raise MatrixDataError(f"{path}: file is missing") from exc
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise MatrixDataError(f"{path}: cannot be read as TOML: {exc}") from exc
    if data.get("schema") != SCHEMA:
        raise MatrixDataError(f"{path}: schema must be {SCHEMA}, found {data.get('schema')!r}")
    unknown = sorted(set(data) - {"schema", "sources", "signature"})
    if unknown:
        raise MatrixDataError(f"{path}: unknown top-level key(s) {', '.join(unknown)}")
    return data


def _sources(data: Mapping[str, Any]) -> dict[str, str]:
    table = data.get("sources")
    if not isinstance(table, dict) or not table:
        raise MatrixDataError(f"{FILE}: missing [sources] table")
    for key, citation in table.items():
        if not isinstance(citation, str) or not citation.strip():
            raise MatrixDataError(f"{FILE}: [sources] {key!r} must be a non-empty citation")
    return dict(table)


def load_signatures(directory: Path) -> tuple[Signature, ...]:
    """The signatures of `directory`/log_signatures.toml, in file order (the match order)."""
    data = _read(directory / FILE)
    sources = _sources(data)
    tables = data.get("signature")
    if not isinstance(tables, list) or not tables:
        raise MatrixDataError(f"{FILE}: no [[signature]] rows")
    signatures: list[Signature] = []
    seen: set[str] = set()
    for index, table in enumerate(tables, start=1):
        hint = table.get("id") if isinstance(table, dict) else None
        label = f" ({hint})" if isinstance(hint, str) else ""
        signature = _signature(_Table(table, f"{FILE}: [[signature]] #{index}{label}"), sources)
        if signature.id in seen:
            raise MatrixDataError(f"{FILE}: [[signature]] #{index}: duplicate id {signature.id!r}")
        seen.add(signature.id)
        signatures.append(signature)
    for index, signature in enumerate(signatures, start=1):
        leader = next((s for s in signatures if s.id == signature.follows), None)
        if signature.follows and (leader is None or leader.follows):
            raise MatrixDataError(
                f"{FILE}: [[signature]] #{index} ({signature.id}): field 'follows': "
                f"{signature.follows!r} is not the id of a row without 'follows' of its own"
            )
    return tuple(signatures)
