"""The checks a doctor report is made of, and which finding belongs to which (issue 21).

A check is what a health checker or a CI test report shows as one line (a JUnit test case):
driver, gpu-architecture, framework:KEY, cuda-libraries, smoke-test:KEY, co-residency,
known-bugs, probe. The names are a public contract (docs/report-schema.md): the report's
`not_checked` uses them. Pure: no I/O, and nothing above the findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from envcheck.findings import Finding

DRIVER_CODES = frozenset(
    {"driver-missing", "driver-too-old", "driver-too-new", "driver-library-mismatch"}
)

# What the deadline cut (probe/deadline.py names the child's check) -> the report's checks
# that could then not be told. Without the interpreter nothing could be probed at all.
_CUT_CHECKS = {
    "driver": ("driver", "gpu-architecture"),
    "interpreter": ("frameworks", "cuda-libraries", "co-residency"),
    "frameworks": ("frameworks", "cuda-libraries", "co-residency"),
    "libraries": ("cuda-libraries",),
    "import-orders": ("co-residency",),
}

# Finding codes by the check they belong to (the smoke tests' and the frameworks' own codes
# are told apart by the framework in the finding's data).
_CHECK_OF_CODE = {
    **dict.fromkeys(DRIVER_CODES, "driver"),
    "no-gpu": "driver",
    "compute-capability-unsupported": "gpu-architecture",
    **dict.fromkeys(
        (
            "cuda-library-missing",
            "cuda-version-mismatch",
            "cudnn-missing",
            "cudnn-version-mismatch",
            "cudnn-sublibrary-missing",
            "library-wrong-architecture",
            "library-dependency-missing",
            "library-shadowed",
            "library-load-mismatch",
        ),
        "cuda-libraries",
    ),
    "framework-conflict": "co-residency",
    "known-bug": "known-bugs",
    "probe-incomplete": "probe",
}
_FRAMEWORK_CODES = frozenset(
    {"framework-cpu-only", "framework-missing", "python-unsupported",
     "windows-native-gpu-unsupported"}
)  # fmt: skip
_SMOKE_CODES = frozenset(
    {"smoke-test-crashed", "smoke-test-timeout", "smoke-test-failed", "gpu-out-of-memory",
     "xla-toolchain-missing"}
)  # fmt: skip
# What a smoke child cut short by the deadline says about itself ("it hung"), or a driver
# cascade whose children were cut ("no driver"): artefacts of the deadline, not findings.
_ARTEFACTS = {
    "driver": frozenset(DRIVER_CODES | {"no-gpu"}),
    "frameworks": frozenset({"framework-missing"}),
}
_SMOKE_ARTEFACTS = frozenset({"smoke-test-crashed", "smoke-test-timeout", "smoke-test-failed"})


def not_checked(cut: Iterable[str]) -> tuple[str, ...]:
    """The report's checks the deadline left undone, from the children it cut (deadline.cut)."""
    names: list[str] = []
    for child in cut:
        for name in _CUT_CHECKS.get(child, (child,)):
            if name not in names:
                names.append(name)
    return tuple(names)


def check_of(finding: Finding) -> str:
    """The check a finding belongs to: driver, gpu-architecture, framework:KEY,
    cuda-libraries, smoke-test:KEY, co-residency, known-bugs, probe, other."""
    framework = finding.data.get("framework")
    key = framework if isinstance(framework, str) else "tensorflow"
    if finding.code in _SMOKE_CODES:
        return f"smoke-test:{key}"
    if finding.code in _FRAMEWORK_CODES:
        return f"framework:{key}"
    return _CHECK_OF_CODE.get(finding.code, "other")


def without_artefacts(findings: Sequence[Finding], unchecked: Sequence[str]) -> list[Finding]:
    """The findings, less those that only say a check was cut short by the deadline."""
    dropped: set[str] = set()
    for name in unchecked:
        dropped |= _ARTEFACTS.get(name, frozenset())
    kept = []
    for finding in findings:
        check = check_of(finding)
        if finding.code in dropped and check.split(":")[0] in ("driver", "framework"):
            continue
        if finding.code in _SMOKE_ARTEFACTS and check in unchecked:
            continue
        kept.append(finding)
    return kept
