"""The one reader of a matrix data file's rows: a file read (bounded, through the parsed
cache) and checked for its schema, its [sources], its top-level keys, and each row read field
by field (`Row`), refusing fields nobody read.

Every matrix loader reads through it: the release tables (load.py), the log signatures
(signatures.py), NVIDIA's result codes (error_codes.py) and the known bugs (advisories.py).
A problem raises MatrixDataError naming the file, the row and the field.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from packaging.version import Version

from envcheck.bounded_input import (
    TooDeepError,
    UnsuitableFileError,
    nested_deeper_than,
    read_regular_file,
)
from envcheck.errors import EnvcheckError, InputError
from envcheck.matrix import parsed_cache
from envcheck.matrix.records import Source
from envcheck.versions import ComputeCapability, DriverVersion, parse_numeric_version

SCHEMA = 1
MAX_FILE_BYTES = 16 * 1024 * 1024  # the largest bundled file is ~120 KB
MAX_DEPTH = parsed_cache.MAX_DEPTH  # a matrix file nests 6 deep (log_signatures.toml)
T = TypeVar("T")


class MatrixDataError(EnvcheckError):
    """A matrix data file is missing, unreadable or does not follow the schema."""


class Row:
    """One table of a data file, read field by field; `done()` refuses fields nobody read.

    The one row reader of every matrix file (log_signatures.toml too)."""

    def __init__(self, table: Any, where: str, sources: Mapping[str, Source]) -> None:
        if not isinstance(table, dict):
            raise MatrixDataError(f"{where}: expected a table, got {type(table).__name__}")
        self._table: dict[str, Any] = table
        self.where = where
        self._sources = sources
        self._read: set[str] = set()

    def error(self, key: str, message: str) -> MatrixDataError:
        return MatrixDataError(f"{self.where}: field {key!r}: {message}")

    def _get(self, key: str, required: bool) -> Any:
        self._read.add(key)
        if key not in self._table:
            if required:
                raise MatrixDataError(f"{self.where}: missing field {key!r}")
            return None
        return self._table[key]

    def string(self, key: str) -> str:
        value = self._get(key, required=True)
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, "expected a non-empty string")
        return value

    def optional_string(self, key: str) -> str | None:
        value = self._get(key, required=False)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, "expected a non-empty string")
        return value

    def text(self, key: str) -> str:
        """An optional free-text field such as `note`; absent reads as ''."""
        return self.optional_string(key) or ""

    def integer(self, key: str) -> int:
        value = self._get(key, required=True)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(key, "expected an integer")
        return value

    def boolean(self, key: str) -> bool:
        value = self._get(key, required=True)
        if not isinstance(value, bool):
            raise self.error(key, "expected true or false")
        return value

    def optional_boolean(self, key: str) -> bool | None:
        value = self._get(key, required=False)
        if value is not None and not isinstance(value, bool):
            raise self.error(key, "expected true or false")
        return value

    def string_list(self, key: str, required: bool = True) -> tuple[str, ...]:
        value = self._get(key, required=required)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(
            isinstance(item, str) and item.strip() for item in value
        ):
            raise self.error(key, "expected a list of non-empty strings")
        return tuple(value)

    def nested(self, table: Any, where: str) -> Row:
        """A row for a table inside this one, citing the same file's sources."""
        return Row(table, where, self._sources)

    def optional_table_list(self, key: str) -> list[Any]:
        """An array of tables that may be absent (read as empty)."""
        value = self._get(key, required=False)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(key, "expected an array of tables")
        return value

    def optional_table(self, key: str) -> dict[str, Any]:
        """A plain table (key = value pairs) that may be absent (read as empty)."""
        value = self._get(key, required=False)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error(key, "expected a table")
        return value

    def table_list(self, key: str) -> list[Any]:
        value = self._get(key, required=True)
        if not isinstance(value, list) or not value:
            raise self.error(key, "expected a non-empty array of tables")
        return value

    def version(self, key: str) -> Version:
        return self._as_version(key, self.string(key))

    def optional_version(self, key: str) -> Version | None:
        text = self.optional_string(key)
        return None if text is None else self._as_version(key, text)

    def _as_version(self, key: str, text: str) -> Version:
        try:
            return parse_numeric_version(text, "version")
        except InputError as exc:
            raise self.error(key, str(exc)) from exc

    def driver(self, key: str) -> DriverVersion:
        text = self.string(key)
        self._as_version(key, text)
        return DriverVersion(text)

    def optional_driver(self, key: str) -> DriverVersion | None:
        text = self.optional_string(key)
        if text is None:
            return None
        self._as_version(key, text)
        return DriverVersion(text)

    def versions(self, key: str) -> tuple[Version, ...]:
        return tuple(self._as_version(key, text) for text in self.string_list(key))

    def compute_capability(self, key: str) -> ComputeCapability:
        text = self.string(key)
        try:
            return ComputeCapability.parse(text)
        except InputError as exc:
            raise self.error(key, str(exc)) from exc

    def sources(self) -> tuple[str, ...]:
        value = self._get("source", required=True)
        ids = (value,) if isinstance(value, str) else value
        if (
            not isinstance(ids, (list, tuple))
            or not ids
            or not all(isinstance(i, str) for i in ids)
        ):
            raise self.error("source", "expected a source id or a non-empty list of them")
        unknown = [i for i in ids if i not in self._sources]
        if unknown:
            raise self.error("source", f"unknown source id(s) {', '.join(unknown)}")
        return tuple(ids)

    def done(self) -> None:
        unknown = sorted(set(self._table) - self._read)
        if unknown:
            raise MatrixDataError(f"{self.where}: unknown field(s) {', '.join(unknown)}")


def tomllib_module() -> Any:
    """The TOML parser, imported when a file is not in the parsed cache (a tenth of explain's
    imports where it is; issue 22)."""
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415
    else:  # pragma: no cover - exercised on Python < 3.11 only
        import tomli as tomllib  # noqa: PLC0415
    return tomllib


def read_toml(directory: Path, name: str) -> dict[str, Any]:
    path = directory / name
    try:
        content = read_regular_file(path, MAX_FILE_BYTES)
    except FileNotFoundError as exc:
        raise MatrixDataError(f"{path}: file is missing") from exc
    except UnsuitableFileError as exc:  # a FIFO, a device, a link to /dev/zero, a huge file
        raise MatrixDataError(f"{path}: {exc}") from None
    except OSError as exc:
        raise MatrixDataError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    data = parsed_cache.load(content)
    if data is None:
        tomllib = tomllib_module()
        try:
            data = tomllib.loads(content.decode("utf-8"))
        except RecursionError:  # tomllib recurses into inline tables and arrays
            raise MatrixDataError(f"{path}: {TooDeepError(MAX_DEPTH)}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise MatrixDataError(f"{path}: cannot be read as TOML: {exc}") from exc
        if nested_deeper_than(data, MAX_DEPTH):  # 5,000 nested [a.a.a...] tables parse
            raise MatrixDataError(f"{path}: {TooDeepError(MAX_DEPTH)}")
        parsed_cache.store(content, data)
    schema = data.get("schema")
    if schema != SCHEMA:
        raise MatrixDataError(f"{path}: schema must be {SCHEMA}, found {schema!r}")
    return data


def checked_against_toml(loader: Callable[[Path], T]) -> Callable[[Path], T]:
    """`loader` (a file's rows from a directory), with a MatrixDataError found in a cached parse
    confirmed on the TOML itself: a cache entry that passed its own checks but not the rows'
    means "parse the file", never an error (or an answer) the file does not give."""

    @functools.wraps(loader)
    def load(directory: Path) -> T:
        if not parsed_cache.reading():
            return loader(directory)
        try:
            return loader(directory)
        except MatrixDataError:
            with parsed_cache.parsed_afresh():
                return loader(directory)

    return load


def read_sources(data: Mapping[str, Any], name: str) -> dict[str, Source]:
    table = data.get("sources")
    if not isinstance(table, dict) or not table:
        raise MatrixDataError(f"{name}: missing [sources] table")
    sources: dict[str, Source] = {}
    for key, citation in table.items():
        if not isinstance(citation, str) or not citation.strip():
            raise MatrixDataError(f"{name}: [sources] {key!r} must be a non-empty citation")
        sources[key] = Source(key, citation)
    return sources


def table_rows(
    data: Mapping[str, Any], name: str, key: str, sources: Mapping[str, Source]
) -> Iterator[Row]:
    tables = data.get(key)
    if not isinstance(tables, list) or not tables:
        raise MatrixDataError(f"{name}: no [[{key}]] rows")
    for index, table in enumerate(tables, start=1):
        label = ""
        if isinstance(table, dict):
            hint = table.get("name") or table.get("version") or table.get("versions")
            if isinstance(hint, list) and hint:
                hint = hint[-1]
            label = f" ({hint})" if isinstance(hint, (str, int)) else ""
        yield Row(table, f"{name}: [[{key}]] #{index}{label}", sources)


def check_top_level(data: Mapping[str, Any], name: str, allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed - {"schema", "sources"})
    if unknown:
        raise MatrixDataError(f"{name}: unknown top-level key(s) {', '.join(unknown)}")
