"""Input read whole, bounded: a regular file of at most a stated size, data nested at most so deep.

A FIFO waits for a writer forever and /dev/zero never ends (`--facts /dev/zero` grew to 23 GB;
a FIFO or a link to /dev/zero as a matrix file, a wheelhouse manifest or a cache entry did the
same), so every file envcheck reads whole comes through `read_regular_file`: opened with
O_NONBLOCK, so that opening a FIFO cannot wait for a writer, then fstat on what was opened (not
the name, which may change in between): only a regular file of at most `limit` bytes is read.

A log for `explain` is not read whole: it is streamed, and a pipe is a fine source for it.

Parsers recurse: json and tomllib raise RecursionError on a document nested ~1000 deep (an
index page, a manifest, a cache entry, a matrix file were each found to end envcheck with exit 3
that way), and anything that walks the parse (repr, json.dumps) recurses too.
`loads_json` and `nested_deeper_than` turn both into an answer the caller words.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

CHUNK = 1024 * 1024
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


class UnsuitableFileError(OSError):
    """What the name leads to is not a file to read whole. An OSError, so a caller's `except
    OSError` (cannot be read) covers it; its text completes a sentence about the file:
    "is a FIFO, not a regular file"."""


class NotRegularFileError(UnsuitableFileError):
    def __init__(self, mode: int) -> None:
        super().__init__(f"is {kind_of(mode)}, not a regular file")
        self.mode = mode


class FileTooLargeError(UnsuitableFileError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"is larger than {describe_size(limit)}")
        self.limit = limit


class NotOwnedError(UnsuitableFileError):
    def __init__(self) -> None:
        super().__init__("belongs to another user")


def describe_size(size: int) -> str:
    """'16 MiB' for the limits used here (whole MiB), else bytes."""
    mib = 1024 * 1024
    return f"{size // mib} MiB" if size % mib == 0 else f"{size} bytes"


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "something else")


def read_regular_file(
    path: str | Path,
    limit: int,
    *,
    follow_links: bool = True,
    dir_fd: int | None = None,
    owner: int | None = None,
) -> bytes:
    """The bytes of the regular file at `path` (relative to the directory `dir_fd` when given).

    Raises FileNotFoundError and the other OSErrors of opening it, or an UnsuitableFileError: not a
    regular file, over `limit` bytes (also when it grows past them while it is read), or, with
    `owner`, owned by another user. With `follow_links=False` a symbolic link at `path` is an
    OSError (ELOOP) instead of being followed.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if not follow_links:
        flags |= os.O_NOFOLLOW
    handle = os.open(path, flags, dir_fd=dir_fd)
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            raise NotRegularFileError(status.st_mode)
        if owner is not None and status.st_uid != owner:
            raise NotOwnedError()
        if status.st_size > limit:
            raise FileTooLargeError(limit)
        data = _read_at_most(handle, limit + 1)
    finally:
        os.close(handle)
    if len(data) > limit:
        raise FileTooLargeError(limit)
    return data


def _read_at_most(handle: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(handle, min(left, CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class TooDeepError(ValueError):
    """A document nested deeper than its reader allows. A ValueError, as json's own errors are,
    so a caller's `except ValueError` (does not parse) covers it."""

    def __init__(self, limit: int | None) -> None:
        super().__init__(
            f"nested more than {limit} levels deep" if limit else "nested too deeply to be read"
        )
        self.limit = limit


def loads_json(text: str | bytes, max_depth: int | None = None) -> Any:
    """json.loads, with a document nested past the parser's recursion (or past `max_depth`,
    when given) raising TooDeepError instead of RecursionError."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise TooDeepError(max_depth) from None
    if max_depth is not None and nested_deeper_than(data, max_depth):
        raise TooDeepError(max_depth)
    return data


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether `value` (lists and dicts, as json and tomllib build them) nests deeper than
    `limit` containers. Iterative: the point is not to recurse."""
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
