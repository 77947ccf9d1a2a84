"""`doctor -o FILE`: the report gets the mode open() would give it (or keeps the replaced file's),
and a path that cannot take it is refused before the doctor runs."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from envcheck.atomic_file import check_writable, write_atomically
from envcheck.errors import InputError
from tests.facts_builder import machine

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and umask")


def doctor(cwd: Path, *args: str, umask: int = 0o022) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "doctor", *args],
        cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
        check=False, preexec_fn=lambda: os.umask(umask),
    )  # fmt: skip


def facts_file(tmp_path: Path) -> Path:
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(machine().to_json()))
    return path


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_a_new_report_gets_the_mode_open_would_give(tmp_path: Path, umask: int) -> None:
    # Before: always 0600 (mkstemp's), whatever the umask.
    report = tmp_path / "report.json"
    completed = doctor(tmp_path, "--facts", str(facts_file(tmp_path)), "--json", "-o", str(report),
                       umask=umask)  # fmt: skip
    assert completed.stderr == ""
    assert mode(report) == 0o666 & ~umask
    assert json.loads(report.read_text())["schema"] == "envcheck.report/1"


def test_a_replaced_report_keeps_its_mode(tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    report.write_text("old report\n")
    report.chmod(0o604)
    completed = doctor(tmp_path, "--facts", str(facts_file(tmp_path)), "-o", str(report))
    assert completed.stderr == ""
    assert report.read_text() != "old report\n"
    assert mode(report) == 0o604
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.json", "report.txt"]


def test_write_atomically_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path) -> None:
    target = tmp_path / "constraints.txt"
    target.write_text("x\n")
    target.chmod(0o640)
    write_atomically(target, "y\n", "--constraints-out")
    assert (target.read_text(), mode(target)) == ("y\n", 0o640)


def _assert_refused(completed: subprocess.CompletedProcess[str], *words: str) -> None:
    assert completed.returncode == 2, (completed.stdout, completed.stderr)
    assert completed.stdout == ""
    lines = completed.stderr.splitlines()
    assert len(lines) == 1, completed.stderr
    assert all(word in lines[0] for word in words), lines[0]


def test_an_empty_output_path_is_a_clear_error(tmp_path: Path) -> None:
    # Before: "'.' cannot be written: Device or resource busy".
    completed = doctor(tmp_path, "--facts", str(facts_file(tmp_path)), "-o", "")
    _assert_refused(completed, "-o ''", "no file name")
    with pytest.raises(InputError, match="no file name"):
        check_writable("")


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("missing/dir/report.txt", ("does not exist", "missing/dir")),
        ("a-directory", ("cannot be written", "it is a directory")),
        ("a-directory/", ("cannot be written", "it is a directory")),
        ("/sys/report.txt", ("cannot write in '/sys'",)),  # takes no new file, even from root
    ],
)
def test_a_bad_output_path_is_refused_before_the_probe_starts(
    tmp_path: Path, name: str, words: tuple[str, ...]
) -> None:
    if name.startswith("/sys") and not Path("/sys").is_dir():
        pytest.skip("no /sys here")
    (tmp_path / "a-directory").mkdir()
    # The program given as --python records that it was started: the probe runs it first.
    started = tmp_path / "started"
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\ntouch '{started}'\nexit 1\n")
    python.chmod(0o755)
    completed = doctor(tmp_path, "--no-smoke", "--python", str(python), "-o", name)
    _assert_refused(completed, f"-o {name!r}", *words)
    assert not started.exists()  # refused before any probing (or a smoke test of minutes)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-directory", "python"]
    assert list((tmp_path / "a-directory").iterdir()) == []
