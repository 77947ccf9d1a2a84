"""Standard output that cannot take envcheck's output: a full disk, a quota, an I/O error.

Exit 2 with one line, as for an `-o` file that cannot be written (docs/exit-codes.md), never
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


_STREAMS = ("stdin", "stdout", "stderr")  # file descriptors 0, 1 and 2


def adopt_closed_streams() -> int | None:
    """Make a start with closed standard streams (`envcheck matrix >&-`, `explain <&-`) safe;
    the exit code when envcheck must stop at once, else None.

    Python sets a stream it finds closed to None, and print(file=None) writes to stdout. Each
    closed descriptor gets the null device, so the next file envcheck opens cannot take its
    number (a child would inherit that file as its stdout); a closed stderr becomes the null
    device, its lines lost but never mixed into stdout. A closed stdout cannot take envcheck's
    output: exit 2 as for any standard output that cannot be written. A closed stdin stays None
    for the commands that read it to say so."""
    closed = [fd for fd, name in enumerate(_STREAMS) if getattr(sys, name) is None]
    for fd in closed:
        try:
            os.fstat(fd)
            continue  # opened since (by an embedding caller)
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
    if sys.stderr is None:
        # For the life of the process; os.fdopen, not Path: --version must not import pathlib.
        sys.stderr = os.fdopen(os.open(os.devnull, os.O_WRONLY), "w")
    if sys.stdout is None:
        with contextlib.suppress(OSError):
            print(
                "envcheck: error: cannot write to standard output: it is closed",
                file=sys.stderr,
                flush=True,
            )
        return EXIT_USAGE
    return None


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
