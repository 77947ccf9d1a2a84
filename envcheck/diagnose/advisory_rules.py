"""known-bug: the installed versions match a known upstream bug (matrix/known_bugs.toml)."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from envcheck.diagnose.context import Context
from envcheck.findings import Finding, Severity
from envcheck.matrix.advisories import KnownBug


def known_bugs(context: Context) -> list[Finding]:
    cudnn = context.selected("cudnn")
    cudnn_version = None
    if cudnn is not None and cudnn.version:
        try:
            cudnn_version = Version(cudnn.version)
        except InvalidVersion:
            cudnn_version = None
    capabilities = [c for _, c in context.capabilities if c is not None]
    findings = []
    for bug in context.known_bugs:
        if bug.affects(
            context.tensorflow_version,
            context.os,
            cudnn_version,
            capabilities,
            context.is_cuda_build,
        ):
            findings.append(
                Finding(
                    "known-bug",
                    Severity(bug.severity),
                    f"Known bug: {bug.title}.",
                    (bug.url,),
                    bug.workaround,
                    # Bound to no install detail (only a TensorFlow range): whether it bites
                    # depends on the program, so a report counts it instead of repeating it.
                    data={"usage_dependent": True} if _usage_dependent(bug) else {},
                )
            )
    return findings


def _usage_dependent(bug: KnownBug) -> bool:
    return not (
        bug.cuda_build_only or bug.os or bug.cudnn or bug.min_compute_capability or bug.symptoms
    )
