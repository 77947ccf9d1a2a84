"""Read a log of any size as decoded lines, one at a time.

Bytes are read in binary and decoded per line as UTF-8 with replacement, so a log with stray
Latin-1 or binary garbage still reads; CRLF and lone CR line ends are handled; nothing but the
current line is held in memory. A log with a UTF-16 byte-order mark (what Windows PowerShell 5's
`>` writes) is decoded as UTF-16. A file whose first block holds a NUL byte is not a text log
(an executable, an archive, a core dump: text logs never contain NUL, the test git and grep use
too); it is refused with an InputError rather than "explained" as noise.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path
from typing import BinaryIO, TypeVar

from envcheck.errors import InputError

# A longer line keeps its first and last halves of this: a line of megabytes is data (a JSON
# dump, a progress bar without line ends), and the message that matters is at one of its ends.
MAX_LINE = 64 * 1024
SNIFF = 8192  # bytes looked at for a NUL (git's buffer_is_binary looks at the first 8000)


T = TypeVar("T")


class NotTextError(InputError):
    """The input is binary, not a text log (exit 2)."""


def _ends(part: str) -> str:
    if len(part) <= MAX_LINE:
        return part
    half = MAX_LINE // 2
    return f"{part[:half]} [... {len(part) - 2 * half} characters not read ...] {part[-half:]}"


def _decoded(part: bytes) -> str:
    if len(part) <= MAX_LINE:
        return part.decode("utf-8", errors="replace")
    half = MAX_LINE // 2
    head, tail = (piece.decode("utf-8", errors="replace") for piece in (part[:half], part[-half:]))
    return f"{head} [... {len(part) - 2 * half} bytes not read ...] {tail}"


def _split(body: bytes) -> Iterator[str]:
    # A lone CR (old Mac line ends, progress bars) also ends a line.
    for part in body.split(b"\r"):
        yield _decoded(part)


def _utf16_lines(head: bytes, stream: BinaryIO) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")  # reads the BOM
    pending = ""
    for chunk in chain([head], iter(lambda: stream.read(1 << 16), b"")):
        pending += decoder.decode(chunk)
        *complete, pending = pending.split("\n")
        for line in complete:
            for part in line.removesuffix("\r").split("\r"):
                yield _ends(part)
    pending += decoder.decode(b"", final=True)
    if pending:
        for part in pending.removesuffix("\r").split("\r"):
            yield _ends(part)


def _lines(stream: BinaryIO, name: str) -> Iterator[str]:
    """Every line, blank ones included, so line numbers match an editor's."""
    head = stream.read(SNIFF)
    # A BOM alone is no proof (\xff\xfe is also Latin-1 garbage): UTF-16 text has NULs too.
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and b"\x00" in head:
        yield from _utf16_lines(head, stream)
        return
    if b"\x00" in head:
        raise NotTextError(
            f"{name} is not a text log: its first {SNIFF // 1024} KiB hold NUL bytes (a binary "
            "file?); give the text TensorFlow printed (a .log or .txt file, or paste it on stdin)"
        )
    pieces = head.split(b"\n")
    tail = pieces.pop()  # the start of a line the next read completes ("" after a newline)
    for piece in pieces:
        yield from _split(piece[:-1] if piece.endswith(b"\r") else piece)
    rest = iter(stream)
    first = next(rest, b"")
    if tail or first:
        raw = tail + first
        yield from _split(raw[:-2] if raw.endswith(b"\r\n") else raw.rstrip(b"\n"))
    for raw in rest:
        body = raw[:-2] if raw.endswith(b"\r\n") else raw.rstrip(b"\n")
        yield from _split(body)


def _chunks(stream: BinaryIO, name: str, size: int) -> Iterator[bytes]:
    """The log as UTF-8 byte chunks: UTF-16 (with its BOM) transcoded, binary refused."""
    head = stream.read(SNIFF)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and b"\x00" in head:
        decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")  # reads the BOM
        for chunk in chain([head], iter(lambda: stream.read(size), b"")):
            yield decoder.decode(chunk).encode("utf-8")
        yield decoder.decode(b"", final=True).encode("utf-8")
        return
    if b"\x00" in head:
        raise NotTextError(
            f"{name} is not a text log: its first {SNIFF // 1024} KiB hold NUL bytes (a binary "
            "file?); give the text TensorFlow printed (a .log or .txt file, or paste it on stdin)"
        )
    yield head
    yield from iter(lambda: stream.read(size), b"")


def read_chunks(source: str, size: int = 4 * 1024 * 1024) -> Iterator[bytes]:
    """The file `source` (or standard input for '-') in chunks of about `size` bytes, as UTF-8:
    what envcheck.explain.scanner reads. The same checks and errors as read_log."""
    yield from _read(source, lambda stream, name: _chunks(stream, name, size))


def read_log(source: str) -> Iterator[str]:
    """Lines of the file `source`, or of standard input for '-'."""
    yield from _read(source, _lines)


def _read(source: str, reader: Callable[[BinaryIO, str], Iterator[T]]) -> Iterator[T]:
    """What `reader` makes of the file `source` (standard input for '-'), with one-line errors
    for a directory, a missing or an unreadable file."""
    if source == "-":
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
