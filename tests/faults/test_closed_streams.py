"""Standard streams closed before envcheck starts (issue 24, 13).

`envcheck explain <&-` and `envcheck matrix >&-` ended in exit 3 ("'NoneType' object has no
attribute ..."): Python sets a stream it finds closed to None. Now a closed stdout is exit 2 with
one line, as any standard output that cannot be written (docs/exit-codes.md); a closed stdin
is one line and exit 2 for `explain`, which reads the log from it, and nothing for commands
that never read it; a closed stderr loses envcheck's error lines but never mixes them into
stdout. The closed descriptors are closed in the child, before envcheck's interpreter starts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.faults.processes import ENVCHECK, environment

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="closing inherited descriptors")

STDIN_CLOSED = (
    "envcheck: error: standard input is closed: give the log as a file (envcheck explain FILE) "
    "or pipe it in (python train.py 2>&1 | envcheck explain -)\n"
)
STDOUT_CLOSED = "envcheck: error: cannot write to standard output: it is closed\n"


def closing(*descriptors: int) -> Callable[[], None]:
    def close() -> None:
        for descriptor in descriptors:
            os.close(descriptor)

    return close


def run(args: list[str], *closed: int) -> subprocess.CompletedProcess[str]:
    # A closed stream cannot be captured: PIPE for the others, DEVNULL where it gets closed.
    return subprocess.run(
        [*ENVCHECK, *args],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=environment(),
        timeout=120, check=False,
        preexec_fn=closing(*closed),
    )  # fmt: skip


@pytest.mark.parametrize("args", [["explain"], ["explain", "-"]])
def test_explain_with_stdin_closed_is_one_line_and_exit_2(args: list[str]) -> None:
    result = run(args, 0)
    assert (result.returncode, result.stderr, result.stdout) == (2, STDIN_CLOSED, "")


@pytest.mark.parametrize(
    "args", [["matrix"], ["--version"], ["recommend", "--driver", "550.54.15"]]
)
def test_a_command_with_stdout_closed_is_one_line_and_exit_2(args: list[str]) -> None:
    result = run(args, 1)
    assert (result.returncode, result.stderr) == (2, STDOUT_CLOSED)


def test_a_command_that_reads_no_stdin_runs_without_it() -> None:
    result = run(["matrix"], 0)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("TF ")


def test_install_without_stdin_has_no_terminal_to_ask_on() -> None:
    result = run(["install"], 0)
    assert result.returncode == 2
    assert "there is no terminal to ask on: pass --yes" in result.stderr
    assert "internal error" not in result.stderr


def test_with_stderr_closed_errors_never_reach_stdout() -> None:
    result = run(["matrix", "--no-such-option"], 2)
    assert (result.returncode, result.stdout) == (2, "")
    result = run(["explain"], 0, 2)
    assert (result.returncode, result.stdout) == (2, "")


def test_the_probe_runs_its_children_with_stdin_and_stderr_closed() -> None:
    # Children start with the null device as stdin, and none inherits a file of envcheck's.
    result = run(["probe", "--json"], 0, 2)
    assert result.returncode == 0
    assert result.stdout.startswith("{")
