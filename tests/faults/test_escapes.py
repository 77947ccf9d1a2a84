"""Escape sequences from an index never reach the terminal (issue 24, 11).

An index listing a file URL with `ESC]0;...BEL ESC[2J` (retitle and clear the terminal) got
it printed raw in the digest-mismatch error, and a wheel named with a C1 CSI (U+009B) and a
right-to-left override (U+202E) in its platform tag reached the "has wheels for" list. Reports
passed their values through `terminal_text.shown`; error lines did not. Now the command line
puts stderr behind the one filter (`terminal_text.FilteredStream`) while a command runs, so
every error and notice is escaped whichever code printed it. Driven through `envcheck fetch` in
a child process against a loopback index (tests/index_server.py).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from envcheck.report.terminal_text import escaped
from tests.faults.processes import ENVCHECK
from tests.index_server import ServedFile, faulty_index, isolated_pip_environment

TF = "2.15.1"
# What must never reach a terminal raw: C0 controls but newline and tab, DEL, C1 controls and
# the bidirectional overrides and isolates.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def fetch(index_url: str, dest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENVCHECK, "fetch", "--dest", str(dest), "--tensorflow", TF, "--platform", "win_amd64",
         "--python-version", "3.10", "--index-url", index_url],
        capture_output=True, text=True, encoding="utf-8", errors="replace",
        env=isolated_pip_environment(), timeout=120, check=False,
    )  # fmt: skip


def test_a_file_url_with_escape_sequences_is_shown_escaped(tmp_path: Path) -> None:
    name = f"tensorflow-{TF}-cp310-cp310-win_amd64.whl"
    hostile = "?\x1b]0;pwned\x07\x1b[2J"
    with faulty_index() as index:
        url = "../../files/" + quote(name) + hostile
        index.add(ServedFile(name, b"x" * 1000, listed_sha256="0" * 64, url=url))
        result = fetch(index.url, tmp_path / "wheels")
    assert result.returncode == 1, result.stderr
    assert RAW.search(result.stdout + result.stderr) is None, repr(result.stderr)
    assert "does not match the index's" in result.stderr
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_c1_and_bidi_characters_in_a_wheel_name_are_shown_escaped(tmp_path: Path) -> None:
    name = f"tensorflow-{TF}-cp310-cp310-win\u009b2J\u202e_amd64.whl"
    with faulty_index() as index:
        index.add(ServedFile(name, b"x" * 1000))
        result = fetch(index.url, tmp_path / "wheels")
    assert result.returncode == 1, result.stderr
    assert RAW.search(result.stdout + result.stderr) is None, repr(result.stderr)
    assert "has wheels for cp310-cp310-win\\x9b2j\\u202e_amd64" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_an_exception_text_is_escaped_too(tmp_path: Path) -> None:
    # Whatever prints: here the command line's own internal-error line.
    script = tmp_path / "bug.py"
    script.write_text(
        "import envcheck.cli.main as main\n"
        "def boom(args):\n"
        "    raise RuntimeError('\\x1b[2J\\u202e gone')\n"
        "main.run = boom\n"
        "main.main(['matrix'])\n"
    )
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, encoding="utf-8",
        env=isolated_pip_environment(), timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 3
    assert RAW.search(result.stderr) is None, repr(result.stderr)
    assert "RuntimeError: \\x1b[2J\\u202e gone" in result.stderr


def test_escaped_keeps_lines_and_tabs_and_is_idempotent() -> None:
    text = "line one\tcolumn\n\x1b[31mred\x1b[0m \u009b2J \u202eevil\r\n"
    once = escaped(text)
    assert once == "line one\tcolumn\n\\x1b[31mred\\x1b[0m \\x9b2J \\u202eevil\\r\n"
    assert escaped(once) == once
