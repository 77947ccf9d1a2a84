"""Standard output that cannot take envcheck's output: a full disk, a quota, an I/O error.

Exit 2 with one line, as for an `-o` file that cannot be written (README, "Exit codes"), never
"internal error" and never a traceback. A reader that left (`| head`) is another matter: that is
main's BrokenPipeError, quiet. Imported by entry.py's --version path too, so it stays small.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys

from envcheck.errors import EXIT_USAGE

# What a write to a file or device that cannot take more fails with.
_CANNOT_TAKE_MORE = {
    errno.ENOSPC,
    errno.EFBIG,
    errno.EIO,
    getattr(errno, "EDQUOT", errno.ENOSPC),
}


def is_output_failure(exc: OSError) -> bool:
    """Whether `exc` is a failed write to standard output rather than a bug.

    Every file envcheck writes itself goes through atomic_file, which names the file; an OSError
    with no file name and a "cannot take more" errno that reaches the command line can only come
    from writing standard output (print, sys.stdout.write, the final flush)."""
    return exc.filename is None and exc.errno in _CANNOT_TAKE_MORE


def give_up(exc: OSError) -> int:
    """Report that standard output cannot be written; return the exit code."""
    discard()
    with contextlib.suppress(OSError):  # stderr may be on the same full disk
        print(
            f"envcheck: error: cannot write to standard output: {exc.strerror or exc}",
            file=sys.stderr,
            flush=True,
        )
    return EXIT_USAGE


def discard() -> None:
    """Point standard output at the null device: what is still buffered cannot reach its
    reader, and the interpreter's flush at exit must not fail again ("Exception ignored")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
