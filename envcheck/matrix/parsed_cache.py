"""Matrix files as parsed once: the JSON of each TOML file's content, kept in the user's cache.

tomllib is pure Python: the matrix files `explain` reads take it 0.06 s on every run, a third of
explain's start-up, while json (in C) reads the same data in 0.004 s. A cache entry is named by
the SHA-256 of the file's bytes (and this module's format), so an edited file, another matrix
(--matrix) or another envcheck version never meets a stale entry. Reading or writing the cache
never fails a command: anything wrong with it means the file is parsed as TOML, as without one.

Where: ENVCHECK_CACHE_DIR (`off` disables it), else $XDG_CACHE_HOME/envcheck, else
~/.cache/envcheck (%LOCALAPPDATA%\\envcheck\\cache on Windows). JSON, never pickle: what sits in
a cache folder is read as data, not run.

What is read back is checked before it is used, since an edited entry once made `recommend`
print another package and `explain` miss an error: the folder must be the user's own and is
used without following links (`cache_folder`); an entry is `DIGEST\\nJSON`, where DIGEST is the
SHA-256 of its name's key and the JSON, so a changed, cut or swapped entry is no entry; and the
JSON must be what tomllib could have produced (tables, arrays, strings, numbers, booleans, at
most MAX_DEPTH deep). The loaders then check the rows as they check a parse; a row that fails on
a cached parse is loaded again from the TOML (envcheck.matrix.load.checked_against_toml).
"""

from __future__ import annotations

import contextvars
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from envcheck.bounded_input import loads_json, nested_deeper_than
from envcheck.digests import sha256_hex
from envcheck.matrix import cache_folder

FORMAT = b"envcheck-parsed-toml-2"
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # the bundled files' entries are ~120 KB at most
MAX_DEPTH = 32  # a matrix file nests 6 deep (log_signatures.toml)

# False while `parsed_afresh` runs: loads parse the TOML. A ContextVar, so that a thread that
# loads the matrix meanwhile keeps its cache.
_READING: contextvars.ContextVar[bool] = contextvars.ContextVar("parsed_cache", default=True)


def cache_dir() -> Path | None:
    chosen = os.environ.get("ENVCHECK_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "no") else Path(chosen)
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"], "envcheck", "cache")
    base = os.environ.get("XDG_CACHE_HOME")
    return Path(base, "envcheck") if base else Path("~", ".cache", "envcheck").expanduser()


@contextmanager
def parsed_afresh() -> Iterator[None]:
    """Within it every load parses the TOML, trusting no entry (`matrix validate` checks the
    files themselves); what it parses is still kept for the next run."""
    token = _READING.set(False)
    try:
        yield
    finally:
        _READING.reset(token)


def reading() -> bool:
    """Whether loads may be answered from the cache here (not inside `parsed_afresh`)."""
    return _READING.get()


def load(content: bytes) -> dict[str, Any] | None:
    """The cached parse of `content`, or None: none kept, not readable as the user's own, or
    failing a check (digest, JSON, shape)."""
    folder = cache_dir()
    if folder is None or not reading():
        return None
    key = _key(content)
    handle = cache_folder.open_folder(folder, create=False)
    if handle is None:
        return None
    try:
        raw = cache_folder.read_entry(handle, f"{key}.json", MAX_ENTRY_BYTES)
    finally:
        os.close(handle)
    if raw is None:
        return None
    digest, newline, payload = raw.partition(b"\n")
    if not newline or digest != _digest(key, payload):  # a check for changes, not a secret
        return None
    try:
        data = loads_json(payload)  # the shape check below bounds the depth
    except ValueError:
        return None
    return data if isinstance(data, dict) and _toml_shaped(data) else None


def store(content: bytes, data: dict[str, Any]) -> None:
    """Keep `data` (the parse of `content`) for the next run, if it can be: a table that JSON
    cannot hold as it is (a TOML date), one nested deeper than MAX_DEPTH or a folder that is not
    the user's own is left alone."""
    folder = cache_dir()
    if folder is None or nested_deeper_than(data, MAX_DEPTH):
        return
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
        if json.loads(text) != data:
            return
    except (TypeError, ValueError, RecursionError):
        return
    key = _key(content)
    payload = text.encode("utf-8")
    handle = cache_folder.open_folder(folder, create=True)
    if handle is None:
        return
    try:
        cache_folder.write_entry(handle, f"{key}.json", _digest(key, payload) + b"\n" + payload)
    finally:
        os.close(handle)


def _key(content: bytes) -> str:
    return sha256_hex(FORMAT + content)


def _digest(key: str, payload: bytes) -> bytes:
    """Binds the JSON to its entry's name: an entry copied over another's name fails too."""
    return sha256_hex(key.encode("ascii") + b"\n" + payload).encode("ascii")


def _toml_shaped(data: dict[str, Any]) -> bool:
    """Whether `data` holds only what tomllib produces (JSON's null, for one, it never does),
    nested at most MAX_DEPTH containers deep (bounded_input.nested_deeper_than's measure). One
    pass, a level at a time: the cached parse is checked on every run, and a second walk for
    the depth cost as much again (~4 ms of the doctor's matrix load)."""
    level: list[Any] = [data]
    depth = 1
    while level:
        below: list[Any] = []
        for item in level:
            if isinstance(item, dict):  # from JSON: its keys are strings
                below.extend(item.values())
            elif isinstance(item, list):
                below.extend(item)
            elif not isinstance(item, (str, int, float)):  # bool is an int
                return False
        if below and depth > MAX_DEPTH:
            return False
        level, depth = below, depth + 1
    return True
