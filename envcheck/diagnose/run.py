"""Run the doctor end to end: facts (probed or from a file), the smoke test, the rules, and the
atomic write of a report file. The only module of the doctor that does I/O."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

from envcheck.diagnose.checks import not_checked
from envcheck.diagnose.context import Target
from envcheck.diagnose.doctor import Report, diagnose
from envcheck.diagnose.facts_file import read_facts
from envcheck.findings import Finding
from envcheck.framework_names import FRAMEWORKS, framework_of, label
from envcheck.matrix.model import Matrix
from envcheck.probe import deadline
from envcheck.probe.background import StartedProbe, probe_timeout, start_probe
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
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Diagnose a facts file, or this machine (`started`: its probe, already running).
    `progress` hears of each step that takes seconds (a smoke test), before it starts."""
    if facts_file is not None:
        facts = read_facts(facts_file)
    else:
        if started is None:
            started = start_probe(python, probe_timeout(timeout))
        facts = collect_facts(matrix, started)
    extra: list[Finding] = []
    smoke_data: dict[str, Any] | None = None
    present = [name for name in smoke_frameworks(facts) if framework in (None, name)]
    if not smoke or not present:
        unchecked = not_checked(deadline.cut())
        return diagnose(facts, matrix, target, extra, smoke_data, framework, (), unchecked)
    smoke_tests: dict[str, Any] = {}
    results = []
    # Each smoke child also answers the import order that starts with its framework, after its
    # smoke test (probe/smoke.py run_smoke_and_order): with two frameworks no order needs a
    # process of its own.
    from envcheck.probe.import_order import first_orders  # noqa: PLC0415

    answers = first_orders(present)

    def one(name: str) -> tuple[list[Finding], dict[str, Any], Any, Any]:
        then = answers.get(name, (name,))[1:]
        if progress is not None:
            progress(f"running the {label(name)} smoke test…")
        return _smoke(matrix, facts, python, timeout, target, name, then)

    if _no_gpu(facts, target) and len(present) > 1:
        # No GPU to share: the children compete only for the CPUs, two at a time as the order
        # children do. With a GPU they stay one at a time: each may take the whole device, and
        # in the exclusive-process compute mode a second one would fail to start on it.
        from envcheck.probe.isolation import run_concurrently  # noqa: PLC0415

        outcomes = run_concurrently(one, present, 2, "envcheck-smoke")
    else:
        outcomes = [one(name) for name in present]
    answered = []
    for name, (found, data, result, tail) in zip(present, outcomes):
        extra += found
        smoke_tests[name] = data
        results.append(result)
        if tail is not None:
            answered.append(tail)
        if name == "tensorflow":
            smoke_data = data
    copies, orders = _import_orders(present, results, python, timeout, answered)
    extra += copies
    # Under --deadline: what its children could not finish (the last children are done now).
    unchecked = not_checked(deadline.cut())
    report = diagnose(
        facts, matrix, target, extra, smoke_data, framework, _measured(orders), unchecked
    )
    return replace(report, smoke_tests=smoke_tests, import_orders=orders)


def smoke_frameworks(facts: Facts) -> list[str]:
    """The frameworks installed that have a smoke test, TensorFlow first (its result is the
    report's `smoke_test`)."""
    found = {framework_of(f.name) for f in facts.frameworks}
    return [name for name in FRAMEWORKS if name in found]


def _no_gpu(facts: Facts, target: Target | None) -> bool:
    """No GPU a framework could use here: none listed, and no driver that could show one."""
    return target is not None or (
        not facts.gpus and facts.driver.state in ("missing", "stub", "no-device")
    )


def _import_orders(
    present: list[str],
    results: list[Any],
    python: str | None,
    timeout: float,
    tails: list[Any],
) -> tuple[list[Finding], dict[str, Any]]:
    """Every import order of the frameworks present (none for one), with each smoke test as the
    framework alone; judged: which copy of each CUDA library each framework gets. The orders
    the smoke children answered (`tails`) get no child of their own."""
    from envcheck.diagnose.loaded_copies_rules import loaded_copy_findings  # noqa: PLC0415
    from envcheck.probe.import_order import (  # noqa: PLC0415
        probe_import_orders,
        run_from_tail,
        with_smoke_runs,
    )

    answered = [run for run in map(run_from_tail, tails) if run is not None]
    facts = with_smoke_runs(
        probe_import_orders(present, python, timeout, answered=answered), results
    )
    return loaded_copy_findings(facts), facts.to_json()


def _measured(orders: dict[str, Any]) -> set[str]:
    """The frameworks a child imported and whose libraries it mapped (ImportOrderFacts as
    JSON): their measured copies replace the static loader model's."""
    measured = set()
    for run in orders.get("runs", []):
        after = {copy.get("after") for copy in run.get("copies", [])}
        for step in run.get("imports", []):
            if step.get("status") == "ok" and f"import:{step.get('framework')}" in after:
                measured.add(str(step.get("framework")))
    return measured


def _smoke(
    matrix: Matrix,
    facts: Facts,
    python: str | None,
    timeout: float,
    target: Target | None,
    framework: str = "tensorflow",
    then: tuple[str, ...] = (),
) -> tuple[list[Finding], dict[str, Any], Any, Any]:
    """Run `framework`'s smoke test and judge it: its findings, its result as data, the result,
    and the import order (framework, *then) the child answered afterwards (an OrderTail)."""
    # Imported here: the smoke test's modules (and the log signatures they judge its output
    # with) are not needed by `doctor --no-smoke`, whose time is benchmarked.
    from envcheck.diagnose.smoke_rules import smoke_findings  # noqa: PLC0415
    from envcheck.probe.smoke import run_smoke_and_order  # noqa: PLC0415

    # TF >= 2.13 logs failed dlopen()s only at VLOG(1) (docs/facts.md section 7, row 1):
    # ask the DSO loader for them so the log names the missing library.
    env = {**os.environ, "TF_CPP_VMODULE": "dso_loader=1"}
    result, tail = run_smoke_and_order(python, timeout, env, None, framework, then)
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
    return extra, smoke_data, result, tail
