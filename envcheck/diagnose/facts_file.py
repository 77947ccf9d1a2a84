"""Reading a facts file (`doctor --facts FILE`): user input, so bounded before it is parsed.

Only a regular file of at most MAX_BYTES is read (`--facts /dev/zero` once grew to 23 GB before
the OOM killer stopped it; a FIFO waited for a writer forever), its byte-order mark decides the
encoding (PowerShell's `>` writes UTF-16), and JSON nested deeper than any facts document is
refused before the rules and the report recurse through it.
"""

from __future__ import annotations

import codecs
import json
import os
import stat
from typing import Any

from envcheck.errors import InputError
from envcheck.probe.facts import Facts, FactsFileError, facts_from_json

MAX_BYTES = 16 * 1024 * 1024  # a real facts file is a few KB; a thousand libraries, a few MB
MAX_DEPTH = 32  # a facts document nests 5 deep (facts, frameworks, [0], build, a list)
_BOMS = (  # longest first: the UTF-32-LE mark begins with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def read_facts(path: str) -> Facts:
    """The Facts in the file at `path`; InputError (one line, naming --facts) for anything else."""
    text = decode(read_bounded(path))
    try:
        data = json.loads(text)
    except RecursionError:
        raise InputError(f"--facts {path!r} is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:
        raise InputError(f"--facts {path!r} is not JSON: {exc}") from exc
    if _depth_exceeds(data, MAX_DEPTH):
        raise InputError(f"--facts {path!r} is nested more than {MAX_DEPTH} levels deep")
    try:
        return facts_from_json(data)
    except FactsFileError as exc:
        raise InputError(f"--facts {path!r}: {exc}") from exc


def read_bounded(path: str) -> bytes:
    """The bytes of a regular file of at most MAX_BYTES; InputError for anything else."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused.
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(f"--facts {path!r} cannot be read: {exc.strerror or exc}") from None
    try:
        mode, size = _mode_and_size(handle)
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "something else")
            raise InputError(f"--facts {path!r} is {kind}, not a regular file")
        if size > MAX_BYTES:
            raise InputError(_too_large(path))
        data = _read_at_most(handle, MAX_BYTES + 1)  # it may grow while it is read
    except OSError as exc:
        raise InputError(f"--facts {path!r} cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(handle)
    if len(data) > MAX_BYTES:
        raise InputError(_too_large(path))
    return data


def decode(data: bytes) -> str:
    """Text by the byte-order mark (UTF-8, UTF-16, UTF-32), else UTF-8; bad bytes replaced, so
    that the JSON parser names where the document breaks."""
    encoding = next((name for mark, name in _BOMS if data.startswith(mark)), "utf-8")
    return data.decode(encoding, errors="replace")


def _mode_and_size(handle: int) -> tuple[int, int]:
    status = os.fstat(handle)
    return status.st_mode, status.st_size


def _read_at_most(handle: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(handle, min(left, 1024 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _too_large(path: str) -> str:
    return (
        f"--facts {path!r} is larger than {MAX_BYTES // (1024 * 1024)} MiB, which no facts file "
        "is: give the output of envcheck probe --json"
    )


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether JSON `value` nests deeper than `limit` (iteratively: the point is not to recurse)."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = list(item.values()) if isinstance(item, dict) else item
        if not isinstance(children, list):
            continue
        if children and depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False
