"""The cache's folder as the user's own: found, created and used so that nobody else can plant a
file or a link where envcheck reads or writes an entry.

Entry names are predictable (the SHA-256 of public files). In a folder another user could write
(XDG_CACHE_HOME on a shared /tmp, a group-writable home) that user planted a symlink at an
entry's name, and envcheck, run by root, replaced the link's target with JSON. So, on POSIX:

- The folder is reached from / one folder at a time, each opened relative to the one before and
  never through a link (O_DIRECTORY | O_NOFOLLOW), and each is checked on the open handle, not
  by name (a name can change between a check and a use; a handle cannot): a folder above the
  cache must belong to root or the user and be writable by nobody else, unless it is sticky
  (/tmp: others can add names there but not move or replace the user's); the cache folder must
  belong to the user and be writable by nobody else. Missing folders are created 0700.
- A link in the path as given (~/.cache -> /data/cache, macOS's /tmp -> /private/tmp) is taken
  only when it belongs to root or the user; the folders it leads to are then checked as above.
- Entries are read and written relative to the checked handle: read without following a link,
  only a regular file of the user's (envcheck.bounded_input); written to a new name
  (O_CREAT | O_EXCL | O_NOFOLLOW) and renamed over the entry, which replaces a link at that name
  instead of writing through it.

Where the OS lacks these calls (Windows) no cache is kept: every run parses the TOML.
Anything refused is None or nothing written, never an error: the caller parses the TOML.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from envcheck.bounded_input import read_regular_file

SUPPORTED = (
    hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
    and hasattr(os, "geteuid")
    and {os.open, os.mkdir, os.rename, os.unlink} <= os.supports_dir_fd
)
_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
_ATTEMPTS = 100  # temporary names tried before giving up (tempfile tries as many)


class _UntrustedError(Exception):
    """Part of the path belongs to, or can be changed by, another user."""


def open_folder(path: Path, create: bool) -> int | None:
    """A handle (to close) on the cache folder `path`, checked as the user's own; created
    (with the folders above it that are missing) when `create`. None when it is missing and not
    to be created, or refused."""
    if not SUPPORTED:
        return None
    user = os.geteuid()
    try:
        return _walk(_resolved(path, user), user, create)
    except (OSError, _UntrustedError):
        return None


def read_entry(folder: int, name: str, limit: int) -> bytes | None:
    """The bytes of the entry `name` in the checked folder: a regular file of the user's of at
    most `limit` bytes, not reached through a link (a FIFO, a device, a link to /dev/zero, a
    file of someone else's are None)."""
    try:
        return read_regular_file(name, limit, follow_links=False, dir_fd=folder, owner=os.geteuid())
    except OSError:
        return None


def write_entry(folder: int, name: str, data: bytes) -> None:
    """Make `data` the entry `name` in the checked folder: whole or not at all (a new file,
    synced, renamed over the old). Failures are silent: the next run parses the TOML again."""
    for _ in range(_ATTEMPTS):
        temporary = f".{name}.{os.urandom(6).hex()}.tmp"
        try:
            handle = os.open(temporary, _NEW_FILE, 0o600, dir_fd=folder)
            break
        except FileExistsError:
            continue
        except OSError:
            return
    else:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):  # renamed into place (the usual case), or gone
            os.unlink(temporary, dir_fd=folder)


def _resolved(path: Path, user: int) -> Path:
    """`path` made absolute with its links resolved; _UntrustedError when one of the links
    belongs to another user (who could point it anywhere, at any time)."""
    absolute = path.absolute()
    prefix = Path(absolute.anchor)
    for part in absolute.parts[1:]:
        prefix = prefix / part
        try:
            status = os.lstat(prefix)
        except FileNotFoundError:
            break  # the rest is created, by the walk, without following anything
        if stat.S_ISLNK(status.st_mode) and status.st_uid not in (0, user):
            raise _UntrustedError(str(prefix))
    return absolute.resolve()


def _walk(path: Path, user: int, create: bool) -> int | None:
    handle = os.open(path.anchor, _FOLDER)
    try:
        for part in path.parts[1:]:
            _check_above(os.fstat(handle), user)
            child = _open_child(handle, part, create)
            os.close(handle)
            handle = child
            if handle < 0:
                return None
        status = os.fstat(handle)
        if status.st_uid != user or status.st_mode & _OTHERS_WRITE:
            raise _UntrustedError(str(path))
    except BaseException:
        if handle >= 0:
            os.close(handle)
        raise
    return handle


def _open_child(parent: int, name: str, create: bool) -> int:
    """The folder `name` in `parent`, never through a link; -1 when missing and not `create`."""
    try:
        return os.open(name, _FOLDER, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            return -1
    # FileExistsError: made by someone else meanwhile; what is there now is checked all the same
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o700, dir_fd=parent)
    return os.open(name, _FOLDER, dir_fd=parent)


def _check_above(status: os.stat_result, user: int) -> None:
    """A folder on the way to the cache: root's or the user's, and nobody else can rename what
    is in it (not writable by others, or sticky)."""
    if status.st_uid not in (0, user):
        raise _UntrustedError("owned by another user")
    if status.st_mode & _OTHERS_WRITE and not status.st_mode & stat.S_ISVTX:
        raise _UntrustedError("writable by others")
