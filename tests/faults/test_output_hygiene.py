"""What envcheck prints of what it read is safe to print and of sane size (issue 16, 8).

Control characters from facts files, paths and directory names (ESC, CSI sequences that could
recolour or rewrite the terminal) are shown escaped; a huge value (a 10 MB string in a facts
file, a 64 KB log line) is cut with a marker that says how much is left out; a message repeated
80,900 times in a log is counted in full; and a symlink loop is named a loop, not "dangling".
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envcheck.report.terminal_text import shown
from tests.facts_builder import machine
from tests.faults.processes import ENVCHECK, environment, frameworkless_python

ESC = "\x1b"
CSI_RED = "\x1b[31m"


def run(*args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENVCHECK, *args], input=stdin, capture_output=True, text=True,
        env=environment(**env), timeout=120, check=False,
    )  # fmt: skip


def facts_file(tmp_path: Path, change: dict[str, object]) -> Path:
    data = json.loads(json.dumps(machine().to_json()))
    for dotted, value in change.items():
        where = data
        *parents, last = dotted.split(".")
        for part in parents:
            where = where[int(part)] if isinstance(where, list) else where[part]
        where[last] = value
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(data))
    return path


def test_shown_escapes_and_cuts() -> None:
    assert shown(f"a{CSI_RED}b\r\n\x07\x9b\u202ec") == "a\\x1b[31mb\\r\\n\\x07\\x9b\\u202ec"
    assert shown("x" * 1000, limit=200) == "x" * 200 + "… [800 more characters]"
    assert shown("plain text, ümlauts and 中文 stay") == "plain text, ümlauts and 中文 stay"


@pytest.mark.parametrize("output", ["text", "markdown"])
def test_control_characters_from_a_facts_file_are_escaped(tmp_path: Path, output: str) -> None:
    path = facts_file(
        tmp_path,
        {
            "gpus.0.name": f"RTX {CSI_RED}4090",
            "frameworks.0.location": f"/home/{ESC}]0;pwned{chr(7)}/site-packages",
            "errors": [f"nvml: {ESC}[2J cleared the screen"],
            "libraries.0.path": f"/usr/lib/{ESC}[1mbold/libcudart.so.12",
        },
    )
    result = run("doctor", "--facts", str(path), "--format", output)
    assert result.returncode in (0, 1), result.stderr
    assert ESC not in result.stdout and "\x07" not in result.stdout
    assert "\\x1b[2J cleared the screen" in result.stdout


def test_control_characters_in_a_directory_name_are_escaped(tmp_path: Path) -> None:
    directory = tmp_path / f"lib{CSI_RED}red"
    directory.mkdir()
    (directory / "libcudart.so.12").write_bytes(b"not a library")
    python = frameworkless_python(tmp_path)
    result = run("probe", "--python", python, LD_LIBRARY_PATH=str(directory))
    assert result.returncode == 0, result.stderr
    assert ESC not in result.stdout
    assert "lib\\x1b[31mred/libcudart.so.12" in result.stdout


def test_a_huge_value_is_cut_in_text_and_whole_in_json(tmp_path: Path) -> None:
    huge = "y" * (10 * 1024 * 1024)
    path = facts_file(tmp_path, {"errors": [huge]})
    result = run("doctor", "--facts", str(path))
    assert result.returncode in (0, 1), result.stderr
    assert len(result.stdout) < 50_000
    assert "more characters]" in result.stdout
    whole = run("doctor", "--facts", str(path), "--json")
    assert huge in json.loads(whole.stdout)["facts"]["errors"]


def test_a_64_kb_log_line_is_cut() -> None:
    line = "Could not load dynamic library 'libcudnn.so.8'; dlerror: " + "z" * 65536
    result = run("explain", "-", stdin=line + "\n")
    assert result.returncode in (0, 1), result.stderr
    assert "libcudnn.so.8" in result.stdout
    assert "z" * 4000 not in result.stdout
    assert len(result.stdout) < 20_000
    assert "more characters]" in result.stdout


def test_a_repeated_line_is_counted_in_full() -> None:
    line = "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open"
    result = run("explain", "-", stdin=(line + "\n") * 80_900)
    assert result.returncode in (0, 1), result.stderr
    assert "(lines 1, 2, 3, 4, 5, 6 (+80894 more))" in result.stdout, result.stdout
    as_json = json.loads(run("explain", "-", "--json", stdin=(line + "\n") * 80_900).stdout)
    assert as_json["findings"][0]["lines_total"] == 80_900


@pytest.mark.skipif(sys.platform != "linux", reason="ld.so's LD_LIBRARY_PATH")
def test_a_symlink_loop_is_named_a_loop(tmp_path: Path) -> None:
    (tmp_path / "libcudart.so.12").symlink_to(tmp_path / "other")
    (tmp_path / "other").symlink_to(tmp_path / "libcudart.so.12")
    python = frameworkless_python(tmp_path / "venv")
    result = run("probe", "--json", "--python", python, LD_LIBRARY_PATH=str(tmp_path))
    assert result.returncode == 0, result.stderr
    found = [lib for lib in json.loads(result.stdout)["libraries"] if lib["path"]]
    looped = [
        lib
        for lib in found
        if lib["file"] == "libcudart.so.12" and lib["path"] == str(tmp_path / "libcudart.so.12")
    ]
    assert looped and looped[0]["found_via"] == "symlink loop", found
    assert looped[0]["problems"] == [
        f"symlink loop (libcudart.so.12 -> {tmp_path / 'other'} -> ...): the loader skips it"
    ]
    assert not any("dangling" in json.dumps(lib) for lib in looped)
