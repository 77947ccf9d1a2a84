"""The user's --timeout bounds every wait, with no floor of envcheck's own (issue 16, 2).

The interpreter check used to wait at least 30 s for a `--python` that never answers, whatever
--timeout said.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.faults.processes import ENVCHECK, environment

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a shell script as --python")


def hanging_python(directory: Path) -> Path:
    python = directory / "python3"
    python.write_text("#!/bin/sh\nexec sleep 600\n")
    python.chmod(0o755)
    return python


@pytest.mark.parametrize("command", ["probe", "doctor"])
def test_a_hanging_python_is_given_up_on_after_the_timeout(tmp_path: Path, command: str) -> None:
    python = hanging_python(tmp_path)
    started = time.monotonic()
    result = subprocess.run(
        [*ENVCHECK, command, "--python", str(python), "--timeout", "1"],
        capture_output=True, text=True, env=environment(), timeout=25, check=False,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"envcheck: error: --python {str(python)!r} is not a runnable Python 3 interpreter: "
        "it did not answer within 1 s\n"
    )
    assert elapsed < 15, f"took {elapsed:.1f} s for a 1 s timeout"
