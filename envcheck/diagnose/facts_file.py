"""Reading a facts file (`doctor --facts FILE`): user input, so bounded before it is parsed.

Only a regular file of at most MAX_BYTES is read (envcheck.bounded_input: `--facts /dev/zero`
once grew to 23 GB before the OOM killer stopped it; a FIFO waited for a writer forever), its
byte-order mark decides the encoding (PowerShell's `>` writes UTF-16), and JSON nested deeper
than any facts document is refused before the rules and the report recurse through it.
"""

from __future__ import annotations

import codecs

from envcheck.bounded_input import (
    FileTooLargeError,
    TooDeepError,
    UnsuitableFileError,
    loads_json,
    read_regular_file,
)
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


def read_facts(path: str) -> Facts:
    """The Facts in the file at `path`; InputError (one line, naming --facts) for anything else."""
    text = decode(read_bounded(path))
    try:
        data = loads_json(text, MAX_DEPTH)
    except TooDeepError as exc:
        raise InputError(f"--facts {path!r} is {exc}") from None
    except ValueError as exc:
        raise InputError(f"--facts {path!r} is not JSON: {exc}") from exc
    try:
        return facts_from_json(data)
    except FactsFileError as exc:
        raise InputError(f"--facts {path!r}: {exc}") from exc


def read_bounded(path: str) -> bytes:
    """The bytes of a regular file of at most MAX_BYTES; InputError for anything else."""
    try:
        return read_regular_file(path, MAX_BYTES)
    except FileTooLargeError:
        raise InputError(_too_large(path)) from None
    except UnsuitableFileError as exc:  # a FIFO, a device, a directory
        raise InputError(f"--facts {path!r} {exc}") from None
    except OSError as exc:
        raise InputError(f"--facts {path!r} cannot be read: {exc.strerror or exc}") from None


def decode(data: bytes) -> str:
    """Text by the byte-order mark (UTF-8, UTF-16, UTF-32), else UTF-8; bad bytes replaced, so
    that the JSON parser names where the document breaks."""
    encoding = next((name for mark, name in _BOMS if data.startswith(mark)), "utf-8")
    return data.decode(encoding, errors="replace")


def _too_large(path: str) -> str:
    return (
        f"--facts {path!r} is larger than {MAX_BYTES // (1024 * 1024)} MiB, which no facts file "
        "is: give the output of envcheck probe --json"
    )
