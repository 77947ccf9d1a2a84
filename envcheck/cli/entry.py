"""The console-script entry point: answers `envcheck --version` without loading the CLI.

Even the parser (argparse and the command table) is not needed for that: a version query in a
Docker build or a setup script pays only for the interpreter.
"""

from __future__ import annotations

import os
import sys

from envcheck import __version__


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        try:
            print(f"envcheck {__version__}", flush=True)
        except BrokenPipeError:  # `| true`: nobody reads it, and that is not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return
    from envcheck.cli.main import main as cli_main  # noqa: PLC0415 - the point of this module

    cli_main()
