"""Read a log of any size as decoded lines, one at a time.

Bytes are read in binary and decoded per line as UTF-8 with replacement, so a log with stray
Latin-1 or binary garbage still reads; CRLF and lone CR line ends are handled; nothing but the
current line is held in memory.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from envcheck.errors import InputError

MAX_LINE = 64 * 1024  # longer lines are cut: a log line of megabytes is data, not a message


def _lines(stream: BinaryIO) -> Iterator[str]:
    """Every line, blank ones included, so line numbers match an editor's."""
    for raw in stream:
        body = raw[:-2] if raw.endswith(b"\r\n") else raw.rstrip(b"\n")
        # A lone CR (old Mac line ends, progress bars) also ends a line.
        for part in body.split(b"\r"):
            yield part[:MAX_LINE].decode("utf-8", errors="replace")


def read_log(source: str) -> Iterator[str]:
    """Lines of the file `source`, or of standard input for '-'."""
    if source == "-":
        yield from _lines(sys.stdin.buffer)
        return
    path = Path(source)
    if path.is_dir():
        raise InputError(f"{source!r} is a directory, not a log file")
    try:
        with path.open("rb") as stream:
            yield from _lines(stream)
    except FileNotFoundError as exc:
        raise InputError(f"log file {source!r} does not exist") from exc
    except OSError as exc:
        raise InputError(f"log file {source!r} cannot be read: {exc.strerror or exc}") from exc
