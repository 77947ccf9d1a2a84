"""One fetch at a time per wheelhouse: an OS file lock on `DEST/.envcheck-fetch.lock`.

The operating system releases the lock when its holder ends in any way (even SIGKILL), so a
lock is never stale and nothing has to guess whether its holder is alive. fcntl.flock on POSIX
and msvcrt.locking on Windows sit behind `_try_lock`/`_unlock`; the rest is the same everywhere.
The holder removes the lock file on release, and a waiter that then gets the lock on the removed
file notices (the path no longer names the file it locked) and tries again, so the directory is
left as it was found.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from envcheck.errors import InputError

LOCK_NAME = ".envcheck-fetch.lock"
_POLL_S = 0.05  # how often a waiter tries again (the lock is held for a whole fetch)
# O_NONBLOCK: a FIFO planted at the lock's name must not hang the open (it is refused after).
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError as exc:  # ENOLCK and the like: a file system without locks
            raise InputError(f"cannot lock a file in --dest: {exc.strerror or exc}") from exc
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class WheelhouseLock:
    """`with WheelhouseLock(dest, on_wait):` holds the wheelhouse for this process.

    `on_wait` is called once when another fetch holds it (to tell the user why nothing happens);
    the wait ends when that fetch ends, or with Ctrl-C. InputError when `dest` cannot take the
    lock file: a wheelhouse that cannot be written, said once, before any download starts.
    """

    def __init__(self, dest: Path, on_wait: Callable[[Path], None] | None = None) -> None:
        self.path = dest / LOCK_NAME
        self._dest = dest
        self._on_wait = on_wait
        self._fd: int | None = None

    def __enter__(self) -> WheelhouseLock:
        told = False
        while True:
            fd = self._open()
            if _try_lock(fd):
                if self._still_ours(fd):
                    self._fd = fd
                    return self
                _unlock(fd)  # the holder removed the file we waited on: take the new one
                os.close(fd)
                continue
            os.close(fd)
            if not told and self._on_wait is not None:
                self._on_wait(self._dest)
                told = True
            time.sleep(_POLL_S)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if sys.platform != "win32":  # Windows cannot remove a file that is open
                self.path.unlink(missing_ok=True)
            _unlock(fd)
        finally:
            os.close(fd)
        if sys.platform == "win32":  # pragma: no cover
            with contextlib.suppress(OSError):  # another fetch has it open: it removes it
                self.path.unlink()

    def _open(self) -> int:
        """The lock file, never through a link: a dangling `.envcheck-fetch.lock` symlink made
        a fetch create its target outside --dest (InputError naming it instead)."""
        flags = os.O_RDWR | os.O_CREAT | _NO_FOLLOW | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(self.path, flags, 0o666)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a link
                raise self._not_a_file("is a symbolic link") from None
            raise InputError(
                f"--dest {str(self._dest)!r} cannot be written: {exc.strerror or exc}"
            ) from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or a device at its name
            os.close(fd)
            raise self._not_a_file("is not a regular file")
        return fd

    def _not_a_file(self, what: str) -> InputError:
        return InputError(
            f"--dest {str(self._dest)!r}: {LOCK_NAME!r} {what}, where envcheck keeps its lock "
            "file (following it could create or change a file outside the wheelhouse); remove "
            "it and run again"
        )

    def _still_ours(self, fd: int) -> bool:
        try:
            named = os.lstat(self.path)  # the name itself: a link put there since is not ours
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (named.st_dev, named.st_ino) == (mine.st_dev, mine.st_ino)
