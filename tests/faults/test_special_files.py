"""Special files where a regular file is expected (issue 24, problem 6).

A FIFO waits for a writer for ever and /dev/zero never ends: as a matrix file (--matrix DIR), a
wheelhouse manifest, a cache entry, pip's configuration file or a `setup` input they hung the
command or filled memory until MemoryError. Each is now refused on sight (one line, the
documented exit code) or, for a cache entry, passed over for the TOML. Every run is a process
under a timeout and a memory limit (tests/faults/hostile_files.py), so a regression fails
instead of hanging or swapping. /dev/zero is only read through links; a device node a test
could write to is its own, made in its folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from envcheck.acquire.manifest import read_manifest
from envcheck.errors import InputError
from envcheck.matrix.load import bundled_matrix_dir
from tests.faults.hostile_files import (
    EXPLAIN,
    RECOMMEND,
    entry_names,
    one_line_error,
    run,
    zero_device,
)

EXIT_NEGATIVE, EXIT_USAGE = 1, 2
TIMEOUT = 30.0  # envcheck answers these in about a second; a FIFO would block for ever

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return "is a FIFO, not a regular file"


def _dev_zero(path: Path) -> str:
    path.symlink_to("/dev/zero")  # only ever read here
    return "is a character device, not a regular file"


SPECIAL: list[Callable[[Path], str]] = [_fifo, _dev_zero]


def _matrix_with(tmp_path: Path, name: str, make: Callable[[Path], str]) -> tuple[Path, str]:
    matrix = tmp_path / "matrix"
    matrix.mkdir()
    for source in bundled_matrix_dir().glob("*.toml"):
        if source.name != name:
            (matrix / source.name).write_bytes(source.read_bytes())
    return matrix, make(matrix / name)


@pytest.mark.parametrize("make", SPECIAL)
@pytest.mark.parametrize(
    ("name", "command"),
    [("tensorflow.toml", RECOMMEND), ("log_signatures.toml", EXPLAIN[:1] + EXPLAIN[2:])],
    ids=["recommend", "explain"],
)
def test_a_special_file_in_a_matrix_folder_is_one_line(
    tmp_path: Path, make: Callable[[Path], str], name: str, command: list[str]
) -> None:
    matrix, said = _matrix_with(tmp_path, name, make)
    result = run([*command, "--matrix", str(matrix)], TIMEOUT, ENVCHECK_CACHE_DIR="off")
    line = one_line_error(result, EXIT_USAGE)
    assert name in line and said in line, line


@pytest.mark.parametrize("make", SPECIAL)
def test_matrix_validate_names_a_special_file(tmp_path: Path, make: Callable[[Path], str]) -> None:
    matrix, said = _matrix_with(tmp_path, "cudnn.toml", make)
    result = run(["matrix", "validate", "--matrix", str(matrix)], TIMEOUT)
    assert result.returncode == EXIT_NEGATIVE, result.stderr
    assert f"cudnn.toml: {said}" in result.stdout, result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize("make", SPECIAL)
def test_a_special_wheelhouse_manifest_is_one_line(
    tmp_path: Path, make: Callable[[Path], str]
) -> None:
    said = make(tmp_path / "wheelhouse.json")
    result = run(["fetch", "--verify", str(tmp_path)], TIMEOUT)
    # Whichever check says it first (a link in the wheelhouse is refused on its own), one line:
    assert "wheelhouse.json" in one_line_error(result, EXIT_USAGE)
    with pytest.raises(InputError, match=said):  # only once the process above has not hung
        read_manifest(tmp_path)


def test_special_cache_entries_are_passed_over(tmp_path: Path) -> None:
    names = entry_names(RECOMMEND, EXPLAIN, folder=tmp_path / "scratch")
    expected = [run(c, TIMEOUT, ENVCHECK_CACHE_DIR="off").stdout for c in (RECOMMEND, EXPLAIN)]
    zero = zero_device(tmp_path)  # not /dev/zero: nothing may write through to anything in /dev
    for make in (os.mkfifo, lambda entry: entry.symlink_to(zero)):
        folder = tmp_path / "cache"
        folder.mkdir(mode=0o700)
        for name in names:
            make(folder / name)
        for command, answer in zip((RECOMMEND, EXPLAIN), expected):
            result = run(command, TIMEOUT, ENVCHECK_CACHE_DIR=str(folder))
            assert result.returncode in (0, 1) and result.stderr == "", result.stderr
            assert result.stdout == answer
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()


@pytest.mark.parametrize("make", SPECIAL)
def test_a_special_pip_configuration_file_is_one_line(
    tmp_path: Path, make: Callable[[Path], str]
) -> None:
    said = make(tmp_path / "pip.conf")
    command = [
        "fetch", "--dest", str(tmp_path / "wheels"), "--tensorflow", "2.15",
        "--platform", "win_amd64", "--python-version", "3.10",
    ]  # fmt: skip
    result = run(command, TIMEOUT, PIP_CONFIG_FILE=str(tmp_path / "pip.conf"))
    line = one_line_error(result, EXIT_USAGE)
    assert "pip.conf" in line and said in line, line


@pytest.mark.parametrize("make", SPECIAL)
def test_a_special_setup_input_is_one_line(tmp_path: Path, make: Callable[[Path], str]) -> None:
    said = make(tmp_path / "py-list.txt")
    command = ["setup", "windows-python", "--py-list", str(tmp_path / "py-list.txt")]
    line = one_line_error(run(command, TIMEOUT), EXIT_USAGE)
    assert "--py-list" in line and said in line, line
