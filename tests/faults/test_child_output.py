"""A child's output is read with a cap (issue 24, 7).

A `--python` that printed 1.5 GB reached 2.9 GB of memory and exit 3: every child's stdout and
stderr were read whole (Popen.communicate). Now the pipes are read in chunks: past
OUTPUT_LIMIT bytes of stdout the child is killed and that is its answer (`--python` is then no
runnable Python: exit 2, one line); of stderr only the last OUTPUT_LIMIT bytes are kept. The
fake interpreter is a shell script that takes any arguments and prints without end; envcheck
runs under a 1 GiB address-space limit, which reading the output whole passes in seconds.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envcheck.probe.isolation import (
    OUTPUT_LIMIT,
    ChildGroup,
    ChildOutputTooLargeError,
    run_child,
    run_streaming_child,
)
from tests.faults.processes import ENVCHECK, environment

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a shell script as interpreter")

MEMORY_LIMIT = 1 << 30


def loud_python(directory: Path) -> Path:
    """An 'interpreter' that accepts any arguments and prints lines without end."""
    script = directory / "loud-python"
    script.write_text("#!/bin/sh\nexec yes 'a line no Python prints when asked what it is'\n")
    script.chmod(0o755)
    return script


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.mark.parametrize("command", ["probe", "doctor"])
def test_a_python_that_prints_without_end_is_one_line_and_exit_2(
    tmp_path: Path, command: str
) -> None:
    python = loud_python(tmp_path)
    started = time.monotonic()
    result = subprocess.run(
        [*ENVCHECK, command, "--python", str(python), "--timeout", "60"],
        capture_output=True, text=True, env=environment(), timeout=120, check=False,
        preexec_fn=_limit_memory,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr == (
        f"envcheck: error: --python {str(python)!r} is not a runnable Python 3 interpreter: "
        f"it printed more than {OUTPUT_LIMIT >> 20} MiB on standard output and was stopped\n"
    )
    assert result.stdout == ""
    assert time.monotonic() - started < 60  # stopped at the cap, not at the --timeout


def test_a_child_group_stops_a_child_at_the_cap(tmp_path: Path) -> None:
    python = loud_python(tmp_path)
    with pytest.raises(ChildOutputTooLargeError) as raised:
        ChildGroup().run([str(python)], timeout=60)
    assert 0 < len(raised.value.stdout) <= OUTPUT_LIMIT
    result = run_child("interpreter", None, python=str(python), timeout=60)
    assert (result.status, result.data) == ("too-large", None)
    assert result.describe() == (
        f"printed more than {OUTPUT_LIMIT >> 20} MiB on standard output and was stopped"
    )


def test_a_streaming_child_is_stopped_at_the_cap_and_says_so(tmp_path: Path) -> None:
    child = run_streaming_child([str(loud_python(tmp_path))], timeout=60)
    assert child.stopped is not None
    assert "printed more than" in child.stopped
    assert not child.timed_out
    assert 0 < len(child.stdout) <= OUTPUT_LIMIT


def test_endless_stderr_keeps_its_end_until_the_timeout() -> None:
    # stderr is no answer: the child is not stopped for it, but only its end is kept.
    source = "import sys\nwhile True: sys.stderr.write('x' * 65536)"
    child = run_streaming_child([sys.executable, "-c", source], timeout=3)
    assert child.timed_out
    assert child.stopped is None
    assert 0 < len(child.stderr) <= OUTPUT_LIMIT


def test_output_under_the_cap_is_read_whole() -> None:
    source = (
        "import sys\n"
        "sys.stdout.write('y' * 5_000_000 + '\\r\\n{\"last\": 1}\\n')\n"
        "sys.stderr.write('e' * 3_000_000 + '\\nend')\n"
    )
    completed = ChildGroup().run([sys.executable, "-c", source], timeout=60)
    assert completed.returncode == 0
    assert completed.stdout == "y" * 5_000_000 + '\n{"last": 1}\n'
    assert completed.stderr == "e" * 3_000_000 + "\nend"
    child = run_streaming_child([sys.executable, "-c", source], timeout=60)
    assert (child.stdout, child.stderr, child.stopped) == (
        completed.stdout,
        completed.stderr,
        None,
    )
