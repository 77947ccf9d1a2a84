"""What `envcheck fetch` says is what happened (issue 24, 18).

A manifest entry that names a file outside the wheelhouse was blamed on "the index" and a
project called "the manifest"; a 5 MB manifest entry was echoed whole in the error line; and a
fetch ended by SIGTERM said "interrupted", the words of a Ctrl-C.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.index_server import FaultyIndex, ServedFile, faulty_index, isolated_pip_environment
from tests.test_fetch import TF, WIN_CP310, run_cli

EXIT_USAGE, EXIT_TERMINATED = 2, 143
DIGEST = "a" * 64


def _manifest(directory: Path, *entries: dict[str, object]) -> None:
    data = {"schema": "envcheck.wheelhouse/2", "generator": "test", "files": list(entries)}
    (directory / "wheelhouse.json").write_text(json.dumps(data))


def _entry(**fields: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "file": WIN_CP310, "sha256": DIGEST, "size": 10, "url": None,
        "platform": "win_amd64", "python": "3.10", "status": "downloaded",
    }  # fmt: skip
    return {**entry, **fields}


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr[:2000]
    assert "Traceback" not in stderr and "internal error" not in stderr
    return lines[0]


@pytest.mark.parametrize("name", ["../../evil.whl", "/etc/passwd", ".hidden.whl"])
def test_a_manifest_entry_outside_the_wheelhouse_is_blamed_on_the_manifest(
    tmp_path: Path, name: str
) -> None:
    _manifest(tmp_path, _entry(file=name))
    result = run_cli("--verify", str(tmp_path))
    assert result.exit_code == EXIT_USAGE
    line = _one_line(result.stderr)
    assert "wheelhouse.json" in line and "not a plain file name in the wheelhouse" in line
    assert "the index" not in line and "project" not in line
    assert repr(name) in line


@pytest.mark.parametrize(
    "entry",
    [
        _entry(url="http://h/" + "x" * 5_000_000, sha256="not-hex"),
        _entry(file="x" * 5_000_000 + ".whl"),
        _entry(platform="\x1b]0;title\x07" * 1_000_000, size=-1),
    ],
    ids=["url", "file", "platform"],
)
def test_a_huge_manifest_entry_is_cut_in_the_error_line(
    tmp_path: Path, entry: dict[str, object]
) -> None:
    _manifest(tmp_path, entry)
    for result in (
        run_cli("--verify", str(tmp_path)),
        run_cli("--dest", str(tmp_path), "--tensorflow", TF, "--platform", "win_amd64",
                "--python-version", "3.10", "--index-url", "http://127.0.0.1:9/simple/"),
    ):  # fmt: skip
        assert result.exit_code == EXIT_USAGE
        line = _one_line(result.stderr)
        assert "wheelhouse.json" in line
        assert len(line) < 5_000, len(line)
        assert "more characters]" in line
        assert "\x1b" not in line and "\x07" not in line


@pytest.fixture
def trickling() -> Iterator[FaultyIndex]:
    with faulty_index() as index:
        block = (b"slow" * 16) * 4_700
        index.add(ServedFile(WIN_CP310, block, trickle=(10_000, 0.05)))
        yield index


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM cannot be handled on Windows")
def test_sigterm_during_fetch_says_terminated_not_interrupted(
    trickling: FaultyIndex, tmp_path: Path
) -> None:
    command = [
        sys.executable, "-m", "envcheck", "fetch", "--dest", str(tmp_path), "--tensorflow", TF,
        "--platform", "win_amd64", "--python-version", "3.10", "--index-url", trickling.url,
    ]  # fmt: skip
    process = subprocess.Popen(
        command, env=isolated_pip_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not any(p.stat().st_size > 0 for p in tmp_path.glob("*.part")):
        assert process.poll() is None and time.monotonic() < deadline, "no download started"
        time.sleep(0.01)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == EXIT_TERMINATED, stderr
    line = _one_line(stderr)
    assert "terminated (SIGTERM)" in line
    assert "interrupted" not in line
    assert ".part" in line  # and what was kept
