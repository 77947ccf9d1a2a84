"""Standard output that cannot take the output (issue 16, 7): a full disk is one line and exit 2,
as an `-o` file that cannot be written is; a reader that left (`| head`) stays quiet, exit 1.

The full device is made here with mknod (/dev/full's numbers, 1 7: every write fails with
ENOSPC), never the machine's own /dev.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.faults.processes import ENVCHECK, environment

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
FULL = "envcheck: error: cannot write to standard output: No space left on device\n"


@pytest.fixture
def full(tmp_path: Path) -> Path:
    if not ROOT or not hasattr(os, "mknod"):
        pytest.skip("mknod needs root")
    device = tmp_path / "full"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    return device


@pytest.mark.parametrize(
    "args",
    [
        ("--version",),  # the fast path of entry.py
        ("matrix", "--tensorflow", "2.15"),  # a few KB, flushed at the end
        ("matrix", "--json"),  # more than a buffer: written while the command runs
        ("doctor", "--help"),
    ],
)
def test_a_full_disk_is_one_line_and_exit_2(full: Path, args: tuple[str, ...]) -> None:
    with full.open("w") as stdout:
        result = subprocess.run(
            [*ENVCHECK, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
            env=environment(), timeout=60, check=False,
        )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr == FULL
    assert stat.S_ISCHR(full.stat().st_mode)


@pytest.mark.parametrize("args", [("--version",), ("matrix", "--json")])
def test_a_reader_that_left_is_quiet(args: tuple[str, ...]) -> None:
    process = subprocess.Popen(
        [*ENVCHECK, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment(),
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # as `| head -c0` does, before envcheck writes
    stderr = process.stderr.read()
    process.wait(timeout=60)
    assert stderr == b""
    assert process.returncode == (0 if args == ("--version",) else 1)
