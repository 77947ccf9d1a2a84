"""`doctor --facts FILE` with files that are not a facts document of sane size (issue 16, 5 and
7): a FIFO, a device, a directory, a huge file, JSON nested without end, and a document with a
byte-order mark or in UTF-16. Each is one clear line and exit 2, or is read as what it is.

`doctor --facts /dev/zero` was killed by the OOM killer at 23 GB. The device nodes here are made
with mknod in a temporary directory (root), never the machine's own /dev, and each envcheck runs
under an address-space limit so that the code before the fix fails instead of eating memory.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.facts_builder import machine
from tests.faults.processes import ENVCHECK, environment

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
MEMORY_LIMIT = 2 * 1024**3
FACTS = json.loads(json.dumps(machine().to_json()))


def _limit_memory() -> None:
    import resource  # noqa: PLC0415 - POSIX only, and only in the child

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def doctor(facts: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENVCHECK, "doctor", "--facts", str(facts), *extra],
        capture_output=True, text=True, env=environment(), timeout=30, check=False,
        preexec_fn=_limit_memory if os.name == "posix" else None,
    )  # fmt: skip


def assert_refused(result: subprocess.CompletedProcess[str], words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("envcheck: error: --facts "), result.stderr
    assert words in result.stderr, result.stderr


@pytest.mark.skipif(not ROOT or not hasattr(os, "mknod"), reason="mknod needs root")
def test_a_character_device_is_refused_not_read(tmp_path: Path) -> None:
    zero = tmp_path / "zero"
    os.mknod(zero, stat.S_IFCHR | 0o444, os.makedev(1, 5))  # /dev/zero's numbers: endless NULs
    assert_refused(doctor(zero), "is a character device, not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "facts.json"
    os.mkfifo(fifo)
    assert_refused(doctor(fifo), "is a FIFO, not a regular file")


def test_a_directory_is_refused(tmp_path: Path) -> None:
    assert_refused(doctor(tmp_path), "is a directory, not a regular file")


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    huge = tmp_path / "facts.json"
    with huge.open("wb") as stream:
        stream.truncate(16 * 1024 * 1024 + 1)  # sparse: no disk used
    assert_refused(doctor(huge), "is larger than 16 MiB")


def test_a_long_string_inside_the_limit_is_read(tmp_path: Path) -> None:
    data = machine().to_json()
    data["platform"]["python_executable"] = "x" * (8 * 1024 * 1024)
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(data))
    result = doctor(path, "--json")
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(result.stdout)["facts"]["platform"]["python_executable"] == "x" * 8388608


@pytest.mark.parametrize("depth", [100, 100_000])
def test_json_nested_without_end_is_refused(tmp_path: Path, depth: int) -> None:
    data = machine().to_json()
    path = tmp_path / "facts.json"
    nested = "[" * depth + "]" * depth
    path.write_text(json.dumps(data)[:-1] + f', "deep": {nested}}}')
    assert_refused(doctor(path), "is nested more than")


def test_deep_nesting_inside_a_known_field_is_refused(tmp_path: Path) -> None:
    """`build` is an object of any shape: 900 levels parse, then broke the report."""
    text = json.dumps(machine().to_json())
    nested = '{"a": ' * 900 + "1" + "}" * 900
    path = tmp_path / "facts.json"
    path.write_text(text.replace('"build": {', f'"build": {{"deep": {nested}, ', 1))
    assert_refused(doctor(path), "is nested more than")


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be"])
def test_a_byte_order_mark_is_read(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "facts.json"
    text = json.dumps(FACTS)
    if encoding in ("utf-16-le", "utf-16-be"):
        text = "\ufeff" + text  # PowerShell's `>` writes the BOM, then UTF-16
    path.write_bytes(text.encode(encoding))
    result = doctor(path, "--json")
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(result.stdout)["facts"]["platform"] == FACTS["platform"]


def test_the_reasons_are_not_tracebacks(tmp_path: Path) -> None:
    path = tmp_path / "facts.json"
    path.write_bytes(b"\xff\xfe{\x00")  # a UTF-16 BOM and a broken document
    result = doctor(path)
    assert_refused(result, "is not JSON")
    assert "Traceback" not in result.stderr
    assert sys.executable not in result.stderr
