"""Matrix files as parsed once: the JSON of each TOML file's content, kept in the user's cache.

tomllib is pure Python: the matrix files `explain` reads take it 0.06 s on every run, a third of
explain's start-up, while json (in C) reads the same data in 0.004 s. A cache entry is named by
the SHA-256 of the file's bytes (and this module's format), so an edited file, another matrix
(--matrix) or another envcheck version never meets a stale entry. Reading or writing the cache
never fails a command: anything wrong with it means the file is parsed as TOML, as without one.

Where: ENVCHECK_CACHE_DIR (`off` disables it), else $XDG_CACHE_HOME/envcheck, else
~/.cache/envcheck (%LOCALAPPDATA%\\envcheck\\cache on Windows). JSON, never pickle: what sits in
a cache folder is read as data, not run.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from envcheck.atomic_file import write_atomically
from envcheck.errors import EnvcheckError

FORMAT = b"envcheck-parsed-toml-1"


def cache_dir() -> Path | None:
    chosen = os.environ.get("ENVCHECK_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "no") else Path(chosen)
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"], "envcheck", "cache")
    base = os.environ.get("XDG_CACHE_HOME")
    return Path(base, "envcheck") if base else Path("~", ".cache", "envcheck").expanduser()


def _entry(content: bytes) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    return folder / f"{hashlib.sha256(FORMAT + content).hexdigest()}.json"


def load(content: bytes) -> dict[str, Any] | None:
    """The cached parse of `content`, or None (none kept, unreadable, not a table)."""
    entry = _entry(content)
    if entry is None:
        return None
    try:
        data = json.loads(entry.read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def store(content: bytes, data: dict[str, Any]) -> None:
    """Keep `data` (the parse of `content`) for the next run, if it can be: a table that JSON
    cannot hold as it is (a TOML date) or a folder that cannot be written is left alone."""
    entry = _entry(content)
    if entry is None:
        return
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
        if json.loads(text) != data:
            return
        entry.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(entry, text, "the cache entry")
    except (OSError, TypeError, ValueError, EnvcheckError):
        return
