"""Read a log of any size as UTF-8 byte chunks, for envcheck.explain.scanner.

Bytes are read in binary (the scanner decodes the lines it keeps as UTF-8 with replacement, so
stray Latin-1 or binary garbage still reads); nothing but a chunk is held in memory. A log with a
UTF-16 byte-order mark (what Windows PowerShell 5's `>` writes) is transcoded from UTF-16. A file
whose first block holds a NUL byte is not a text log (an executable, an archive, a core dump:
text logs never contain NUL, the test git and grep use too); it is refused with an InputError
rather than "explained" as noise.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path
from typing import BinaryIO, TypeVar

from envcheck.errors import InputError

SNIFF = 8192  # bytes looked at for a NUL (git's buffer_is_binary looks at the first 8000)
CHUNK = 4 * 1024 * 1024  # large enough that a chunk costs little in Python, small for memory


T = TypeVar("T")


class NotTextError(InputError):
    """The input is binary, not a text log (exit 2)."""


def _until_end(stream: BinaryIO, size: int, before: bytes, asked: int) -> Iterator[bytes]:
    """The stream's further chunks. A buffered read returns less than it was asked for only at
    the end of the input, and there it stops: on a terminal the end is one Ctrl-D, and another
    read would wait for a second one (a user pasting a log saw explain hang)."""
    if len(before) < asked:
        return
    while chunk := stream.read(size):
        yield chunk
        if len(chunk) < size:
            return


def _chunks(stream: BinaryIO, name: str, size: int) -> Iterator[bytes]:
    """The log as UTF-8 byte chunks: UTF-16 (with its BOM) transcoded, binary refused."""
    head = stream.read(SNIFF)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and b"\x00" in head:
        decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")  # reads the BOM
        for chunk in chain([head], _until_end(stream, size, head, SNIFF)):
            yield decoder.decode(chunk).encode("utf-8")
        yield decoder.decode(b"", final=True).encode("utf-8")
        return
    if b"\x00" in head:
        raise NotTextError(
            f"{name} is not a text log: its first {SNIFF // 1024} KiB hold NUL bytes (a binary "
            "file?); give the text TensorFlow printed (a .log or .txt file, or paste it on stdin)"
        )
    yield head
    yield from _until_end(stream, size, head, SNIFF)


def read_chunks(source: str, size: int = CHUNK) -> Iterator[bytes]:
    """The file `source` (or standard input for '-') in chunks of about `size` bytes, as UTF-8."""
    yield from _read(source, lambda stream, name: _chunks(stream, name, size))


def _read(source: str, reader: Callable[[BinaryIO, str], Iterator[T]]) -> Iterator[T]:
    """What `reader` makes of the file `source` (standard input for '-'), with one-line errors
    for a directory, a missing or an unreadable file."""
    if source == "-":
        if sys.stdin is None:  # closed before envcheck started (`envcheck explain <&-`)
            raise InputError(
                "standard input is closed: give the log as a file (envcheck explain FILE) or "
                "pipe it in (python train.py 2>&1 | envcheck explain -)"
            )
        yield from reader(sys.stdin.buffer, "standard input")
        return
    path = Path(source)
    if path.is_dir():
        raise InputError(f"{source!r} is a directory, not a log file")
    try:
        with path.open("rb") as stream:
            yield from reader(stream, f"log file {source!r}")
    except FileNotFoundError as exc:
        raise InputError(f"log file {source!r} does not exist") from exc
    except OSError as exc:
        raise InputError(f"log file {source!r} cannot be read: {exc.strerror or exc}") from exc
