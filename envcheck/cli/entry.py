"""The console-script entry point: answers `envcheck --version` without loading the CLI.

Even the parser (argparse and the command table) is not needed for that: a version query in a
Docker build or a setup script pays only for the interpreter.
"""

from __future__ import annotations

import gc
import sys

from envcheck import __version__


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from envcheck.cli import standard_output  # noqa: PLC0415 - only when it is needed

        closed = standard_output.adopt_closed_streams()
        if closed is not None:
            sys.exit(closed)
        try:
            print(f"envcheck {__version__}", flush=True)
        except BrokenPipeError:  # `| true`: nobody reads it, and that is not an error
            standard_output.discard()
        except OSError as exc:  # a full disk
            if not standard_output.is_output_failure(exc):
                raise
            sys.exit(standard_output.give_up(exc))
        return
    # The cyclic collector's first generation runs every 700 allocations: loading envcheck
    # (~100 frozen records, the matrix) and probing ran it ~60 times, ~12% of `doctor
    # --no-smoke`'s own CPU time, to find almost nothing (the records hold no cycles). mypy
    # raises the same threshold for the same reason; memory still returns by reference count.
    gc.set_threshold(200_000, 30, 30)
    from envcheck.cli.main import main as cli_main  # noqa: PLC0415 - the point of this module

    try:
        cli_main()
    finally:
        # The command is over and its output flushed (cli.main). Interpreter shutdown would
        # now run one full collection over every object still alive (the matrix, the records,
        # the facts): ~15 ms of `doctor --no-smoke`'s ~0.2 s, to free memory the process is
        # about to give back anyway. Frozen objects are left out of it; nothing envcheck writes
        # waits for a collection (files are closed where they are written, temporary folders
        # are removed by their own atexit finalizers).
        gc.freeze()
