"""The console-script entry point: answers `envcheck --version` without loading the CLI.

Every command module (typer, requests, the probe, the doctor) costs about 0.2 s to import;
a version query in a Docker build or a setup script should not pay for them.
"""

from __future__ import annotations

import sys

from envcheck import __version__


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        print(f"envcheck {__version__}")
        return
    from envcheck.cli import main as cli_main  # noqa: PLC0415 - the point of this module

    cli_main()
