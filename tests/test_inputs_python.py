"""`--python PATH` that is no runnable Python 3 (a text file, a program that is not Python, a
Python 2): `probe` and `doctor` stop with one line and exit 2, and never report on envcheck's
own interpreter in its place."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NOT_PYTHON_3 = "is not a runnable Python 3 interpreter"


def _python2() -> str | None:
    found = shutil.which("python2.7") or shutil.which("python2")
    if found is not None:
        completed = subprocess.run([found, "--version"], capture_output=True, check=False)
        if completed.returncode == 0:
            return found
    pyenv = sorted((Path.home() / ".pyenv" / "versions").glob("2.7*/bin/python2.7"))
    return str(pyenv[-1]) if pyenv else None


PYTHON2 = _python2()


def envcheck(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "envcheck", *args],
        env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip


def assert_refused(completed: subprocess.CompletedProcess[str], path: Path | str, why: str) -> None:
    assert completed.returncode == 2, (completed.stdout, completed.stderr)
    assert completed.stdout == ""
    lines = completed.stderr.splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith(f"envcheck: error: --python {str(path)!r} {NOT_PYTHON_3}: ")
    assert why in lines[0], lines[0]


def _text_file(tmp_path: Path) -> Path:
    path = tmp_path / "passwd"
    path.write_text("root:x:0:0:root:/root:/bin/sh\n")
    return path


def _not_python(tmp_path: Path) -> Path:
    path = tmp_path / "python"
    path.write_text("#!/bin/sh\necho 'some other program'\n")
    path.chmod(0o755)
    return path


COMMANDS = [("probe", "--json"), ("doctor", "--no-smoke", "--json")]


@pytest.mark.parametrize("command", COMMANDS, ids=["probe", "doctor"])
def test_a_file_that_cannot_run(tmp_path: Path, command: tuple[str, ...]) -> None:
    path = _text_file(tmp_path)
    assert_refused(envcheck(*command, "--python", str(path)), path, "cannot be started")


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the program")
@pytest.mark.parametrize("command", COMMANDS, ids=["probe", "doctor"])
def test_a_program_that_is_not_python(tmp_path: Path, command: tuple[str, ...]) -> None:
    # Before: probe exited 0 ("framework probe failed (exit code 0)"), doctor diagnosed its own
    # interpreter's Python.
    path = _not_python(tmp_path)
    assert_refused(envcheck(*command, "--python", str(path)), path, "exited with code 0")


@pytest.mark.skipif(PYTHON2 is None, reason="no Python 2.7 on this machine")
@pytest.mark.parametrize("command", COMMANDS, ids=["probe", "doctor"])
def test_python_2(command: tuple[str, ...]) -> None:
    assert PYTHON2 is not None
    assert_refused(envcheck(*command, "--python", PYTHON2), PYTHON2, "it is Python 2.7")


def test_a_python_3_is_probed_as_itself() -> None:
    completed = envcheck("probe", "--json", "--python", sys.executable)
    assert completed.returncode == 0, completed.stderr
    facts = json.loads(completed.stdout)
    assert facts["platform"]["python"] == platform.python_version()
    assert not [e for e in facts["errors"] if "could not run" in e]
