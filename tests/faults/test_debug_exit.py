"""ENVCHECK_DEBUG=1 shows the traceback of a bug and still exits 3 (issue 24, 16).

The variable made the command line re-raise the exception, and Python's own exit code for an
uncaught exception is 1, which envcheck's table gives to "a negative answer": a CI step asking
for the traceback of a crash read it as "doctor found an error". The bug is put in by replacing
the command line's `run` in a child interpreter: envcheck has no known one to trigger.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.faults.processes import environment

BUGGY = (
    "import envcheck.cli.main as main\n"
    "def buggy(args):\n"
    "    raise ZeroDivisionError('division by zero in a bug')\n"
    "main.run = buggy\n"
    "main.main(['matrix'])\n"
)
LINE = "envcheck: internal error: ZeroDivisionError: division by zero in a bug"


def run_buggy(tmp_path: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "buggy.py"
    script.write_text(BUGGY)
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True,
        env=environment(**variables), timeout=60, check=False,
    )  # fmt: skip


def test_with_envcheck_debug_the_traceback_is_shown_and_the_exit_is_3(tmp_path: Path) -> None:
    result = run_buggy(tmp_path, ENVCHECK_DEBUG="1")
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith("Traceback (most recent call last):\n")
    assert "in buggy\n" in result.stderr
    assert result.stderr.endswith(f"{LINE} (please report it, with the traceback above)\n")
    assert result.stdout == ""


def test_without_it_one_line_and_exit_3(tmp_path: Path) -> None:
    result = run_buggy(tmp_path)
    assert result.returncode == 3
    assert result.stderr == (
        f"{LINE} (set ENVCHECK_DEBUG=1 for the traceback, and please report it)\n"
    )
