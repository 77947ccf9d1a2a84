"""Where `envcheck fleet` reads reports from: files, directories (their *.json files, walked
in name order) and `-` (standard input: one or more JSON documents one after another, as
`cat */*.json` gives them). One document at a time, so memory stays flat in the number of
reports; each is bounded (REPORT_LIMIT) and read only when it is a regular file."""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from envcheck.bounded_input import describe_size, read_regular_file
from envcheck.errors import InputError
from envcheck.record import record

# A doctor report is 10-150 KB; one of more is no report of envcheck's.
REPORT_LIMIT = 16 * 1024 * 1024
STDIN = "-"
_CHUNK = 1024 * 1024


@record
class Document:
    """One report's text (or, from standard input, its parsed value), or why it has none."""

    source: str  # the path, or "-#3" for standard input's third document
    text: str | None = None
    value: Any = None  # parsed already (standard input)
    problem: str | None = None
    kind: str = "unreadable"  # what the problem makes it: unreadable | malformed


def check_sources(paths: Sequence[str]) -> None:
    """InputError for a path that does not exist (a typo, not a report to list apart)."""
    for path in paths:
        if path != STDIN and not os.path.lexists(path):
            raise InputError(f"{path!r} does not exist")
    if sum(1 for path in paths if path == STDIN) > 1:
        raise InputError("- (standard input) can be read once")


def documents(paths: Sequence[str], stdin: BinaryIO) -> Iterator[Document]:
    """Every report document under `paths`, in the order given (directories in name order)."""
    for path in paths:
        if path == STDIN:
            yield from _stream(stdin)
        elif Path(path).is_dir():
            for file in _json_files(Path(path)):
                yield _read(str(file))
        else:
            yield _read(path)


def _json_files(directory: Path) -> Iterator[Path]:
    """The *.json files under `directory`, hidden ones (a writer's temporary file) left out;
    links to directories are not followed (a loop would never end)."""
    for root, folders, files in os.walk(directory):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in sorted(files):
            if name.endswith(".json") and not name.startswith("."):
                yield Path(root) / name


def _read(path: str) -> Document:
    try:
        data = read_regular_file(path, REPORT_LIMIT)
    except OSError as exc:
        return Document(path, problem=f"cannot be read: {exc.strerror or exc}")
    try:
        return Document(path, text=data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return Document(path, problem="is not UTF-8 text")


def _stream(stdin: BinaryIO) -> Iterator[Document]:
    """The JSON documents on standard input, one after another. A document that does not
    parse ends the stream (where the next one would begin cannot be told)."""
    decoder = json.JSONDecoder()
    text_decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    buffer, position, number, ended = "", 0, 0, False
    while True:
        while position < len(buffer) and buffer[position] in " \t\r\n\ufeff":
            position += 1
        if position >= len(buffer):
            if ended:
                return
            buffer, ended = _more(stdin, text_decoder)
            position = 0
            continue
        try:
            value, end = decoder.raw_decode(buffer, position)
        except (ValueError, RecursionError):
            if not ended and len(buffer) - position <= REPORT_LIMIT:
                more, ended = _more(stdin, text_decoder)
                buffer, position = buffer[position:] + more, 0
                continue
            number += 1
            why = (
                f"is larger than {describe_size(REPORT_LIMIT)}"
                if len(buffer) - position > REPORT_LIMIT
                else "is not JSON (the rest of standard input is not read)"
            )
            yield Document(f"{STDIN}#{number}", problem=why, kind="malformed")
            return
        number += 1
        yield Document(f"{STDIN}#{number}", value=value)
        position = end


def _more(stdin: BinaryIO, decoder: codecs.IncrementalDecoder) -> tuple[str, bool]:
    """The next chunk of standard input as text, and whether the input has ended."""
    chunk = stdin.read(_CHUNK)
    return decoder.decode(chunk, final=not chunk), not chunk
