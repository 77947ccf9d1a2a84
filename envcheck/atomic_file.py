"""Write a file so that it is either wholly new or untouched: never half-written.

The text goes to a temporary file beside the target, is flushed to disk and read back, and only
then renamed over the target (atomic on one file system).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from envcheck.errors import InputError


def write_atomically(path: Path, text: str, option: str = "-o") -> None:
    """Write `text` to `path`; InputError naming `option` when the place cannot take it."""
    directory = path.parent if str(path.parent) else Path()
    if not directory.is_dir():
        raise InputError(f"{option} {str(path)!r}: the directory {str(directory)!r} does not exist")
    data = text.encode("utf-8")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(
            f"{option} {str(path)!r}: cannot write in {str(directory)!r}: {exc.strerror or exc}"
        ) from exc
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if Path(temporary).read_bytes() != data:
            raise InputError(f"{option} {str(path)!r}: the written file did not read back intact")
        Path(temporary).replace(path)
    except OSError as exc:
        raise InputError(
            f"{option} {str(path)!r} cannot be written: {exc.strerror or exc}"
        ) from exc
    finally:
        Path(temporary).unlink(missing_ok=True)
