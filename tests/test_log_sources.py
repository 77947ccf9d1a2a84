"""tests/logs/SOURCES.md stays true: what its tables say `envcheck explain` finds in each log.

Each row's last column lists the finding codes explain gives for that log (or "nothing"); a
signature added or changed later that makes explain say something else about a listed log fails
here until the table is brought up to date (issue 23: a row said "no known signature" of a log
explain had flagged for a while). Runs the real CLI, as a reader of the table would.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

LOGS = Path(__file__).resolve().parent / "logs"
SOURCES = (LOGS / "SOURCES.md").read_text(encoding="utf-8")
_ROW = re.compile(r"^\| `(?P<file>[^`]+\.log)` \|(?P<cells>.*)\|\s*$", re.MULTILINE)
_CODE = re.compile(r"`([a-z0-9-]+)`")
# A claim, in a row's prose, that explain recognises nothing in the log.
_NOTHING_CLAIMS = ("no known signature", "no signature should claim", "matches no")


def _rows() -> dict[str, list[str]]:
    return {m["file"]: [c.strip() for c in m["cells"].split("|")] for m in _ROW.finditer(SOURCES)}


def _explain_codes(path: Path) -> set[str]:
    completed = subprocess.run(
        [sys.executable, "-m", "envcheck", "explain", "--json", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode in (0, 1), completed.stderr
    return {finding["code"] for finding in json.loads(completed.stdout)["findings"]}


def test_the_tables_list_logs() -> None:
    rows = _rows()
    assert len(rows) >= 20
    assert all((LOGS / name).is_file() for name in rows), sorted(rows)


@pytest.mark.parametrize("name", sorted(_rows()))
def test_the_table_says_what_explain_finds(name: str) -> None:
    cells = _rows()[name]
    claimed = cells[-1]
    codes = set(_CODE.findall(claimed))
    assert codes or claimed == "nothing", f"{name}: last column {claimed!r} names no codes"
    found = _explain_codes(LOGS / name)
    assert found == codes, f"SOURCES.md says explain finds {sorted(codes)} in {name}"
    prose = " ".join(cells[:-1]).lower()
    if found:
        assert not any(claim in prose for claim in _NOTHING_CLAIMS), f"{name}: {prose}"
