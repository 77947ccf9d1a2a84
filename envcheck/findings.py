"""Findings: what is wrong (or notable), the evidence, and the concrete fix.

Codes are a public contract (docs/json.md); docs/finding-codes.md lists them. A finding says
what was seen; "could not determine" is not a finding of a problem but a component whose
status is `unknown` in the report, never shown as fine and never as broken.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


CODES = frozenset(
    {
        "driver-missing",
        "driver-too-old",
        "driver-library-mismatch",
        "no-gpu",
        "cuda-library-missing",
        "cuda-version-mismatch",
        "cudnn-missing",
        "cudnn-version-mismatch",
        "cudnn-sublibrary-missing",
        "library-wrong-architecture",
        "library-dependency-missing",
        "library-shadowed",
        "windows-native-gpu-unsupported",
        "compute-capability-unsupported",
        "python-unsupported",
        # Framework-neutral (issue 20): the framework is in the finding's data ("framework").
        "framework-cpu-only",  # the installed framework cannot use CUDA at all
        "framework-missing",  # no deep-learning framework installed
        "framework-conflict",
        "xla-toolchain-missing",
        "gpu-out-of-memory",
        "smoke-test-crashed",
        "smoke-test-timeout",
        "benign-warning",
        "known-bug",
        # Added for kinds of problem the table does not name:
        "smoke-test-failed",  # a smoke step raised (the message says which and why)
        "library-load-mismatch",  # the child loaded another copy than the probe predicted
        "probe-incomplete",  # a part of the probe could not run (the report says which)
        "usage-pitfall",  # a mistake in user code (explain)
        "driver-too-new",  # a driver branch past the GPU architecture's last (Kepler after R470)
        # Failure classes of logs (explain, issue 15):
        "gpu-unusable",  # the GPU or driver in a bad state (unknown error after suspend, Xid)
        "container-gpu-unavailable",  # a container without GPU access or toolkit
        "platform-unsupported",  # no build for this OS, libc, CPU or architecture
        "nccl-error",  # NCCL communication failed
        "program-error",  # the program's own bug (shape, index, device-side assert): a note
    }
)


# Codes renamed when the doctor learnt more frameworks than TensorFlow (issue 20): a facts file,
# a saved report or a signature row written before still names the old code; read it as the new.
RENAMED_CODES = {
    "tensorflow-cpu-only": "framework-cpu-only",
    "tensorflow-missing": "framework-missing",
}


def current_code(code: str) -> str:
    """The code `code` is called now (an old name read from a file, or already a current one)."""
    return RENAMED_CODES.get(code, code)


@dataclass(frozen=True)
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
