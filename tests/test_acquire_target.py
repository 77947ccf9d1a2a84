"""install's target interpreter is described by the probe's interpreter child, through the child
runner: the same timeout, process-group and signal handling as every other child of envcheck."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from envcheck.acquire.install_plan import read_target
from envcheck.errors import InputError
from envcheck.probe import isolation


def test_the_target_is_asked_through_the_child_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    register = isolation.register_child

    def recording(process: subprocess.Popen[Any]) -> None:
        started.append(list(process.args))  # type: ignore[arg-type]
        register(process)

    monkeypatch.setattr(isolation, "register_child", recording)
    target = read_target(sys.executable)
    assert [args[0] for args in started] == [sys.executable]  # one child, registered
    assert target.python.startswith(f"{sys.version_info.major}.{sys.version_info.minor}.")
    assert target.prefix == sys.prefix and target.base_prefix == sys.base_prefix
    assert target.distributions is not None and "pytest" in target.distributions


def _running(pid: int) -> bool:
    """Whether `pid` is alive (a zombie, killed and waiting to be reaped, is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_hanging_target_and_what_it_started_are_stopped_at_the_timeout(tmp_path: Path) -> None:
    # A wrapper script that started a process of its own (as a module system's python wrapper
    # can): a plain subprocess.run kills the wrapper at the timeout and leaves that process
    # running; the child runner kills the whole process group.
    python = tmp_path / "python"
    started = tmp_path / "started"
    python.write_text(f"#!/bin/sh\nsleep 60 &\necho $! > {started}\nsleep 60\n")
    python.chmod(0o755)
    began = time.monotonic()
    with pytest.raises(InputError, match="did not answer within 1 s"):
        read_target(str(python), timeout=1.0)
    assert time.monotonic() - began < 15
    pid = int(started.read_text())
    deadline = time.monotonic() + 5
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid), "the wrapper's own process outlived the timeout"
