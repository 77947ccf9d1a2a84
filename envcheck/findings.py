"""Findings: what is wrong (or notable), the evidence, and the concrete fix.

Codes are a public contract (docs/json.md; docs/finding-codes.md lists them, from finding_codes.py).
A finding says what was seen; "could not determine" is not a finding of a problem but a
component whose status is `unknown` in the report, never shown as fine and never as broken.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from enum import Enum
from typing import Any

from envcheck.finding_codes import CODE_TABLE
from envcheck.record import record


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


# Every code a finding can carry, with its meaning: envcheck/finding_codes.py, the one registry.
CODES = frozenset(entry.code for entry in CODE_TABLE)
# The most severe level of each code (a program error is a note, however its line reads).
MOST_SEVERE = {entry.code: Severity(entry.severity) for entry in CODE_TABLE}


def at_most(severity: Severity, code: str) -> Severity:
    """`severity`, or the code's most severe level where that is lower."""
    ceiling = MOST_SEVERE.get(current_code(code))
    return ceiling if ceiling is not None and ceiling.rank > severity.rank else severity


# Codes renamed when the doctor learnt more frameworks than TensorFlow (issue 20): a facts file,
# a saved report or a signature row written before still names the old code; read it as the new.
RENAMED_CODES = {
    "tensorflow-cpu-only": "framework-cpu-only",
    "tensorflow-missing": "framework-missing",
}


def current_code(code: str) -> str:
    """The code `code` is called now (an old name read from a file, or already a current one)."""
    return RENAMED_CODES.get(code, code)


@record
class Finding:
    code: str
    severity: Severity
    message: str  # one sentence
    evidence: tuple[str, ...] = ()  # paths, versions, the log line
    fix: str = ""  # commands to run, or the exact version to install
    lines: tuple[int, ...] = field(default=())  # log line numbers, for findings from a log
    # How many log lines the finding stands for in all: a log repeating one message 80,900
    # times keeps the first lines as `lines`, and counts every one here. 0: len(lines).
    lines_total: int = 0
    # Machine-readable parts of the finding: "framework" (tensorflow, torch, jax), and for a
    # framework-conflict "frameworks", "library", "requirements", "installed". Not hashed.
    data: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown finding code {self.code!r}")

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "evidence": list(self.evidence),
            "fix": self.fix,
        }
        if self.data:
            data["data"] = dict(self.data)
        if self.lines:
            data["lines"] = list(self.lines)
            data["lines_total"] = max(self.lines_total, len(self.lines))
        return data


def ordered(findings: list[Finding]) -> list[Finding]:
    """Errors first, then warnings, then info; the order within a severity is kept."""
    return sorted(findings, key=lambda f: f.severity.rank)
