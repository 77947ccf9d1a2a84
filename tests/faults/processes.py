"""Helpers the fault tests share: run envcheck as a real process, and tell whether a pid lives."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ENVCHECK = [sys.executable, "-m", "envcheck"]


def alive(pid: int) -> bool:
    """Running, not a zombie (a container's PID 1 may never reap an orphan)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def wait_for_file(path: Path, seconds: float) -> str:
    """The text of `path` once something wrote it; AssertionError after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and (text := path.read_text()).strip():
            return text
        time.sleep(0.05)
    raise AssertionError(f"{path} was not written within {seconds} s")


def environment(**variables: str) -> dict[str, str]:
    """This process's environment without ENVCHECK_* settings, plus `variables`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return {**env, **variables}


def frameworkless_python(directory: Path) -> str:
    """A virtual environment with no framework in it (made once in `directory`): the probe then
    searches every CUDA and cuDNN name the matrix knows, so a file planted on LD_LIBRARY_PATH is
    read. The test venv's own interpreter has tensorflow-cpu (the test extra), which asks for no
    CUDA library, so a probe of it reads none of them."""
    python = directory / "frameworkless" / "bin" / "python"
    if not python.exists():
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(directory / "frameworkless")],
            check=True,
            timeout=120,
        )
    return str(python)
