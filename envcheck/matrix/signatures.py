"""Known log messages (matrix/log_signatures.toml) as data: what each means and how to see it.

`load_signatures` reads the data file strictly, like `envcheck.matrix.load`: every field is
checked, unknown fields are refused, every regex is compiled once here and every message
template may name only groups of its own pattern, so a bad row is a MatrixDataError naming the
signature, never a crash in the middle of a user's log. A row with `follows` names another row
(its leader). Matching a log against them is `envcheck.explain.matcher`'s job.
"""

from __future__ import annotations

import re
import string
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envcheck.findings import CODES, Severity
from envcheck.matrix.load import SCHEMA, MatrixDataError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

FILE = "log_signatures.toml"

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_MISSING = "?"


class TemplateValues(dict[str, str]):
    """Template values where a group that did not take part in the match reads as '?'."""

    def __missing__(self, key: str) -> str:
        return _MISSING


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
        text.format_map(TemplateValues())
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
