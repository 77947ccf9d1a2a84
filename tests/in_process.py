"""envcheck's command line run in the test's own process, isolated from this machine's settings.

Shared by the fetch and install tests: they run many commands against the tests' index, where a
child process per command would cost a second each.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass

from envcheck.cli import main as cli
from tests.index_server import isolated_pip_environment


@dataclass(frozen=True)
class Result:
    exit_code: int
    stdout: str
    stderr: str


def run_envcheck(args: Sequence[str], **env: str) -> Result:
    """`envcheck ARGS` in-process, with no ENVCHECK_*/PIP_* settings of this machine (pip's
    config files off) and `env` set; os.environ is restored afterwards."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(isolated_pip_environment(), **env)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main(list(args))
    except SystemExit as exited:
        code = exited.code if isinstance(exited.code, int) else 1
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return Result(code, out.getvalue(), err.getvalue())
