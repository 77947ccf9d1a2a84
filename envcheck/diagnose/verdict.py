"""The node verdict contract (issue 21): the one word a report ends in, the checks it is made
of, and the fingerprint of the facts it rests on, as one record every output format renders.

Health checkers (Slurm, NHC, a Kubernetes DaemonSet) and `envcheck fleet` read these, so they
are a public contract (docs/report-schema.md): the words and the check names do not change
meaning within the schema envcheck.report/1. Light on purpose (no rules, no matrix): the
doctor's --deadline watchdog loads it before the diagnosis, and `envcheck fleet` reads reports
with it. diagnose/node.py makes the record from a Report.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from envcheck.digests import sha256_hex
from envcheck.findings import Finding, Severity
from envcheck.record import record

Verdict = Literal["pass", "warn", "fail", "unknown"]
# Worst first: the order `envcheck fleet` lists groups in. `unknown` sits between a failure
# and a warning: nothing is known to be broken, but nothing is known to work either.
VERDICTS: tuple[Verdict, ...] = ("fail", "unknown", "warn", "pass")

# Every check a report can leave undone: what a run that produced no diagnosis at all (a
# --python that did not answer before the deadline) reports as not checked.
ALL_CHECKS = ("driver", "gpu-architecture", "frameworks", "cuda-libraries", "co-residency")


@record
class FrameworkState:
    key: str  # tensorflow | torch | jax
    version: str
    ready: bool  # framework_ready


@record
class NodeResult:
    """What every output format says about the node (JSON's contract fields, Prometheus,
    NFD, JUnit): one record, so all of them carry the same verdict."""

    verdict: Verdict
    summary: str  # the verdict in one sentence
    key_facts: dict[str, Any]
    fingerprint: str
    checks: tuple[Check, ...]
    not_checked: tuple[str, ...]
    findings: tuple[Finding, ...]
    frameworks: tuple[FrameworkState, ...]
    driver: str | None  # the driver release
    cuda: str | None  # the CUDA version the driver supports
    cudnn: str | None  # the cuDNN (major.minor) the frameworks load, where one is known


def no_result(why: str) -> NodeResult:
    """The result of a run that reached no diagnosis before its deadline: nothing checked."""
    facts: dict[str, Any] = {"not_checked": sorted(ALL_CHECKS)}
    return NodeResult(
        verdict="unknown",
        summary=f"No verdict: {why}.",
        key_facts=facts,
        fingerprint=fingerprint(facts),
        checks=tuple(
            Check(name, (), False, "not checked: the --deadline passed first")
            for name in ALL_CHECKS
        ),
        not_checked=ALL_CHECKS,
        findings=(),
        frameworks=(),
        driver=None,
        cuda=None,
        cudnn=None,
    )


@record
class Check:
    """One check of the report (a JUnit test case): its findings, and whether it was done."""

    name: str
    findings: tuple[Finding, ...]
    done: bool  # False: not checked (the deadline, or the smoke test not asked for)
    why_not: str = ""

    @property
    def failed(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)


def fingerprint(facts: dict[str, Any]) -> str:
    """SHA-256 of the key facts in canonical JSON (sorted keys, no spaces), hex."""
    text = json.dumps(facts, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return sha256_hex(text.encode("ascii"))
