"""Run the doctor end to end: facts (probed or from a file), the smoke test, the rules, and the
atomic write of a report file. The only module of the doctor that does I/O."""

from __future__ import annotations

import os
from dataclasses import asdict, replace
from typing import Any

from envcheck.diagnose.context import Target
from envcheck.diagnose.doctor import Report, diagnose
from envcheck.diagnose.facts_file import read_facts
from envcheck.findings import Finding
from envcheck.framework_names import FRAMEWORKS, framework_of
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
    present = [name for name in smoke_frameworks(facts) if framework in (None, name)]
    if not smoke or not present:
        return diagnose(facts, matrix, target, extra, smoke_data, framework)
    smoke_tests: dict[str, Any] = {}
    results = []
    for name in present:  # one at a time: each may take the whole GPU, and the CPUs
        found, data, result = _smoke(matrix, facts, python, timeout, target, name)
        extra += found
        smoke_tests[name] = data
        results.append(result)
        if name == "tensorflow":
            smoke_data = data
    copies, orders = _import_orders(present, results, python, timeout)
    extra += copies
    report = diagnose(facts, matrix, target, extra, smoke_data, framework)
    return replace(report, smoke_tests=smoke_tests, import_orders=orders)


def smoke_frameworks(facts: Facts) -> list[str]:
    """The frameworks installed that have a smoke test, TensorFlow first (its result is the
    report's `smoke_test`)."""
    found = {framework_of(f.name) for f in facts.frameworks}
    return [name for name in FRAMEWORKS if name in found]


def _import_orders(
    present: list[str], results: list[Any], python: str | None, timeout: float
) -> tuple[list[Finding], dict[str, Any]]:
    """Every import order of the frameworks present (none for one), with each smoke test as the
    framework alone; judged: which copy of each CUDA library each framework gets."""
    from envcheck.diagnose.loaded_copies_rules import loaded_copy_findings  # noqa: PLC0415
    from envcheck.probe.import_order import probe_import_orders, with_smoke_runs  # noqa: PLC0415

    facts = with_smoke_runs(probe_import_orders(present, python, timeout), results)
    return loaded_copy_findings(facts), facts.to_json()


def _smoke(
    matrix: Matrix,
    facts: Facts,
    python: str | None,
    timeout: float,
    target: Target | None,
    framework: str = "tensorflow",
) -> tuple[list[Finding], dict[str, Any], Any]:
    """Run `framework`'s smoke test and judge it: its findings, its result as data, the result."""
    # Imported here: the smoke test's modules (and the log signatures they judge its output
    # with) are not needed by `doctor --no-smoke`, whose time is benchmarked.
    from envcheck.diagnose.smoke_rules import smoke_findings  # noqa: PLC0415
    from envcheck.probe.smoke import run_smoke_test  # noqa: PLC0415

    # TF >= 2.13 logs failed dlopen()s only at VLOG(1) (docs/facts.md section 7, row 1):
    # ask the DSO loader for them so the log names the missing library.
    env = {**os.environ, "TF_CPP_VMODULE": "dso_loader=1"}
    result = run_smoke_test(python=python, timeout=timeout, env=env, framework=framework)
    signatures = matrix.signatures
    # In a Docker build there is no driver either: TF's no-driver lines are expected there.
    no_driver = facts.driver.state in ("missing", "stub")
    # The probe's library prediction models TensorFlow's loader; the rules use it for TF only.
    extra = smoke_findings(
        result, signatures, facts.libraries, driver_missing=no_driver,
        gpus_expected=len(facts.gpus) if target is None else 0,
    )  # fmt: skip
    smoke_data = {**asdict(result), "describe": result.describe(), "title": result.title}
    smoke_data["stderr"] = result.stderr[-20_000:]
    return extra, smoke_data, result
