"""Run the doctor end to end: facts (probed or from a file), the smoke test, the rules, and the
atomic write of a report file. The only module of the doctor that does I/O."""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

from envcheck.diagnose.context import Target
from envcheck.diagnose.doctor import Report, diagnose
from envcheck.diagnose.facts_file import read_facts
from envcheck.findings import Finding
from envcheck.matrix.model import Matrix
from envcheck.probe.background import StartedProbe, probe_timeout
from envcheck.probe.collect import collect_facts
from envcheck.probe.facts import Facts


def run_doctor(
    matrix: Matrix,
    facts_file: str | None = None,
    python: str | None = None,
    smoke: bool = True,
    timeout: float = 120.0,
    target: Target | None = None,
    started: StartedProbe | None = None,
    framework: str | None = None,
) -> Report:
    """Diagnose a facts file, or this machine (`started`: its probe, already running)."""
    if facts_file is not None:
        facts = read_facts(facts_file)
    else:
        facts = collect_facts(
            matrix, python=python, timeout=probe_timeout(timeout), started=started
        )
    extra: list[Finding] = []
    smoke_data: dict[str, Any] | None = None
    has_tensorflow = any(f.name == "tensorflow" for f in facts.frameworks)
    if smoke and has_tensorflow and framework in (None, "tensorflow"):
        extra, smoke_data = _smoke(matrix, facts, python, timeout, target)
    return diagnose(facts, matrix, target, extra, smoke_data, framework)


def _smoke(
    matrix: Matrix, facts: Facts, python: str | None, timeout: float, target: Target | None
) -> tuple[list[Finding], dict[str, Any]]:
    """Run the smoke test and judge it: its findings, and its result as data."""
    # Imported here: the smoke test's modules (and the log signatures they judge its output
    # with) are not needed by `doctor --no-smoke`, whose time is benchmarked.
    from envcheck.diagnose.smoke_rules import smoke_findings  # noqa: PLC0415
    from envcheck.probe.smoke import run_smoke_test  # noqa: PLC0415

    # TF >= 2.13 logs failed dlopen()s only at VLOG(1) (docs/facts.md section 7, row 1):
    # ask the DSO loader for them so the log names the missing library.
    env = {**os.environ, "TF_CPP_VMODULE": "dso_loader=1"}
    result = run_smoke_test(python=python, timeout=timeout, env=env)
    signatures = matrix.signatures
    # In a Docker build there is no driver either: TF's no-driver lines are expected there.
    no_driver = facts.driver.state in ("missing", "stub")
    extra = smoke_findings(
        result, signatures, facts.libraries, driver_missing=no_driver,
        gpus_expected=len(facts.gpus) if target is None else 0,
    )  # fmt: skip
    smoke_data = {**asdict(result), "describe": result.describe()}
    smoke_data["stderr"] = result.stderr[-20_000:]
    return extra, smoke_data
