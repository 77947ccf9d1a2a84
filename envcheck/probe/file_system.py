"""The probe's questions to the file system, answered without raising.

Paths come from the user's environment (LD_LIBRARY_PATH, PATH, CONDA_PREFIX, a RUNPATH, a
package's RECORD) and may name anything: a component over 255 bytes (ENAMETOOLONG), something
under a regular file (ENOTDIR), a symlink loop (ELOOP), a directory this user may not search
(EACCES). pathlib's is_dir() and exists() swallow only some of these and raise the rest; a
probe that meets one must report it as a fact about that entry, never end in "internal error".
Every file-system question in envcheck/probe goes through here.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import fnmatch
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Union

from envcheck.digests import sha256

PathLike = Union[str, "os.PathLike[str]"]


def _mode(path: PathLike, *, follow: bool = True) -> int | None:
    try:
        # os.stat, not Path(path).stat(): the probe asks ~300 of these a run, and a Path
        # object per question cost more than the system call.
        return (os.stat(path) if follow else os.lstat(path)).st_mode  # noqa: PTH116
    except (OSError, ValueError):  # ValueError: a NUL byte in the name
        return None


def is_dir(path: PathLike) -> bool:
    mode = _mode(path)
    return mode is not None and stat.S_ISDIR(mode)


def is_file(path: PathLike) -> bool:
    mode = _mode(path)
    return mode is not None and stat.S_ISREG(mode)


def exists(path: PathLike) -> bool:
    return _mode(path) is not None


def is_symlink(path: PathLike) -> bool:
    mode = _mode(path, follow=False)
    return mode is not None and stat.S_ISLNK(mode)


def link_target(path: PathLike) -> str | None:
    try:
        return str(Path(path).readlink())
    except (OSError, ValueError):
        return None


def is_symlink_loop(path: PathLike) -> bool:
    """A symlink whose chain never ends (a -> b -> a), as opposed to one that leads nowhere."""
    try:
        Path(path).stat()
    except OSError as exc:
        return exc.errno == errno.ELOOP
    except ValueError:
        return False
    return False


def real_path(path: PathLike) -> str:
    """os.path.realpath, which gives up quietly at a loop (Path.resolve raised before 3.13).
    Inside resolved_once(), each path is resolved once: the library search, the loader model and
    the owners of the copies ask for the same ~90 files ~190 times, an lstat per component."""
    memo = _RESOLVED.get()
    key = os.fspath(path)
    if memo is not None and key in memo:
        return memo[key]
    try:
        resolved = os.path.realpath(path)
    except (OSError, ValueError):
        resolved = str(Path(path).absolute())
    if memo is not None:
        memo[key] = resolved
    return resolved


_RESOLVED: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "resolved", default=None
)


@contextlib.contextmanager
def resolved_once() -> Iterator[None]:
    """Within the block, real_path resolves each path once (in this thread): for one probe of
    the machine, so no link changed later is answered from a stale resolution."""
    token = _RESOLVED.set({})
    try:
        yield
    finally:
        _RESOLVED.reset(token)


def children(directory: PathLike) -> list[Path]:
    """The entries of `directory`, sorted; none when it cannot be listed."""
    try:
        with os.scandir(directory) as entries:
            return sorted(Path(entry.path) for entry in entries)
    except (OSError, ValueError):
        return []


def names_in_order(directory: PathLike) -> list[str]:
    """The names in `directory` in the order the file system lists them (readdir's order, which
    Python's glob keeps: torch takes the first match), none when it cannot be listed."""
    try:
        with os.scandir(directory) as entries:
            return [entry.name for entry in entries]
    except (OSError, ValueError):
        return []


def names(directory: PathLike) -> list[str]:
    """The names in `directory`, sorted; none when it cannot be listed. Names only: a Path per
    entry costs seconds in a site-packages of 100,000 files."""
    try:
        return sorted(os.listdir(directory))  # noqa: PTH208
    except (OSError, ValueError):
        return []


def matching(directory: PathLike, pattern: str) -> Iterator[Path]:
    """Path(directory).glob(pattern) for one level, sorted, empty when it cannot be listed (glob
    raised for an unsearchable or over-long directory name)."""
    base = Path(directory)
    for name in fnmatch.filter(names(directory), pattern):
        yield base / name


def read_text(path: PathLike) -> str | None:
    try:
        return Path(path).read_text(errors="replace")
    except (OSError, ValueError):
        return None


def unsearchable(directory: PathLike) -> str | None:
    """Why the loader cannot search `directory` (os.strerror of the failure), or None when it can
    or when it does not exist at all (ld.so skips a missing entry silently, and so does the
    report: stale entries are common and harmless)."""
    try:
        with os.scandir(directory):
            return None
    except FileNotFoundError:
        return None
    except OSError as exc:
        return os.strerror(exc.errno) if exc.errno else str(exc)
    except ValueError as exc:  # a NUL byte in the name
        return str(exc)


def read_text_limited(path: PathLike, limit: int) -> str | None:
    """The first `limit` characters' worth of bytes of a regular file, as text; None when it is
    unreadable or no regular file (see read_bytes_limited)."""
    data = read_bytes_limited(path, limit)
    return None if data is None else data.decode("utf-8", errors="replace")


def read_bytes_limited(path: PathLike, limit: int) -> bytes | None:
    """The first `limit` bytes of a regular file; None when it is unreadable or no regular file
    (a FIFO planted as a RECORD is opened without waiting for a writer, seen for what it is,
    and not read: a plain open would wait forever)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            return None
        with os.fdopen(handle, "rb", closefd=False) as stream:
            return read_up_to(stream, limit, info.st_size)
    except (OSError, ValueError):
        return None
    finally:
        os.close(handle)


def read_up_to(stream: BinaryIO, limit: int, size: int) -> bytes:
    """stream.read(limit), in pieces of about the file's `size`: a single read of `limit`
    allocates `limit` bytes first (4 MiB for each of a site's ~100 RECORDs of ~10 KB, which
    cost more than reading them)."""
    piece = max(size + 1, 1 << 16)
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = stream.read(min(left, piece))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def file_size(path: PathLike) -> int | None:
    try:
        return Path(path).stat().st_size
    except (OSError, ValueError):
        return None


def sha256_urlsafe(path: PathLike, limit: int) -> str | None:
    """The file's SHA-256 as a wheel RECORD writes it (urlsafe base64, no padding); None when
    unreadable or larger than `limit` bytes (hashing costs about a second per 500 MB)."""
    import base64  # noqa: PLC0415 - only the import-order probe's owner search hashes

    size = file_size(path)
    if size is None or size > limit:
        return None
    digest = sha256()
    try:
        with Path(path).open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except (OSError, ValueError):
        return None
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")
