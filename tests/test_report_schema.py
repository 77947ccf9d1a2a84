"""The node verdict contract (issue 21, 1): every report validates against
schemas/envcheck.report-1.json, the verdict word agrees with the findings, and the fingerprint
is equal for nodes set up alike and different where a deciding fact differs.

The reports here are made in-process from described machines (tests/facts_builder.py), one per
kind of verdict; the doctor's end-to-end runs validate theirs in test_doctor_cli.report_of.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from envcheck.diagnose.context import Target
from envcheck.diagnose.doctor import Report, diagnose
from envcheck.diagnose.node import node_result
from envcheck.diagnose.verdict import no_result
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.probe.facts import Facts
from envcheck.report.doctor import to_json
from envcheck.report.node import contract_fields
from envcheck.report.stamp import Stamp
from envcheck.versions import ComputeCapability, DriverVersion
from tests.facts_builder import LINUX, driver, gpu, healthy_libraries, jax, machine, torch
from tests.report_schema import problems, validated

MATRIX = load_matrix(bundled_matrix_dir())
STAMP = Stamp("gpu001", "2026-12-02T10:15:30Z", "0.1.0", 1796292930.0)

SCENARIOS: dict[str, Facts] = {
    "healthy": machine(),
    "driver-too-old": machine(driver=driver("450.80.02", "11.0")),
    "no-gpu": machine(
        driver=driver(None, None, "missing"), gpus=(),
        platform=replace(LINUX, nvidia_gpu="absent", device_nodes=()),
    ),
    "torch-and-jax": machine(frameworks=(torch(), *jax()), libraries=()),
    "no-framework": machine(frameworks=(), libraries=healthy_libraries()),
}  # fmt: skip


def _report(facts: Facts, **options: Any) -> Report:
    return diagnose(facts, MATRIX, **options)


def _json(report: Report) -> dict[str, Any]:
    """The report as the doctor writes it (JSON text), read back."""
    written: dict[str, Any] = json.loads(
        json.dumps(to_json(report, node_result(report, smoke_asked=False), STAMP))
    )
    return written


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_validates(name: str) -> None:
    report = _json(_report(SCENARIOS[name]))
    validated(report)
    assert report["verdict"] == {"error": "fail", "warning": "warn", "ok": "pass"}[report["status"]]


def test_a_docker_build_report_validates() -> None:
    target = Target(DriverVersion.parse("535.104.05"), (ComputeCapability.parse("8.0"),), ("A100",))
    report = _json(_report(machine(driver=driver(None, None, "missing"), gpus=()), target=target))
    validated(report)
    assert report["key_facts"]["target"] == {
        "driver": "535.104.05",
        "compute_capabilities": ["8.0"],
    }


def test_a_report_cut_by_the_deadline_is_unknown_and_validates() -> None:
    report = _json(_report(SCENARIOS["healthy"], not_checked=("driver", "gpu-architecture")))
    validated(report)
    assert report["verdict"] == "unknown"
    assert report["not_checked"] == ["driver", "gpu-architecture"]


def test_a_run_without_a_diagnosis_writes_the_contract_fields_alone() -> None:
    report = json.loads(
        json.dumps(contract_fields(no_result("the --deadline passed first"), STAMP))
    )
    validated(report)
    assert report["verdict"] == "unknown"
    assert "status" not in report


def test_the_verdicts_cover_pass_warn_and_fail() -> None:
    verdicts = {_json(_report(facts))["verdict"] for facts in SCENARIOS.values()}
    assert {"pass", "fail"} <= verdicts, verdicts


def test_the_schema_refuses_what_breaks_the_contract() -> None:
    good = _json(_report(SCENARIOS["driver-too-old"]))
    assert good["verdict"] == "fail"
    broken: list[tuple[str, dict[str, Any]]] = []
    changes: tuple[Callable[[dict[str, Any]], object], ...] = (
        lambda r: r.pop("node"),
        lambda r: r.update(verdict="ok"),
        lambda r: r.update(verdict="pass"),  # status error: the two must agree
        lambda r: r.update(fingerprint="abc"),
        lambda r: r.update(time="2026-12-02 10:15:30"),
        lambda r: r.update(not_checked=["driver"]),  # something unchecked: only unknown fits
        lambda r: r.update(schema="envcheck.report/2"),
        lambda r: r["findings"][0].update(severity="fatal"),
        lambda r: r.pop("facts"),  # a full report (it has a status) has all its parts
    )
    for number, change in enumerate(changes):
        report = copy.deepcopy(good)
        change(report)
        broken.append((f"change {number}", report))
    for what, report in broken:
        assert problems(report), f"the schema let this through: {what}"


def test_two_nodes_set_up_alike_share_a_fingerprint() -> None:
    one = _report(SCENARIOS["healthy"])
    # Another user's venv, another GPU index and UUID, the probe's own time: not decisive.
    other_platform = replace(LINUX, python_executable="/home/bob/env/bin/python")
    other = _report(
        machine(platform=other_platform, gpus=(gpu(index=3), gpu(index=4)), seconds=9.9)
    )
    first = node_result(one, smoke_asked=False)
    second = node_result(other, smoke_asked=False)
    assert first.fingerprint == second.fingerprint
    stamped = to_json(other, second, replace(STAMP, node="gpu002", time="2026-12-03T00:00:00Z"))
    assert stamped["fingerprint"] == _json(one)["fingerprint"]


@pytest.mark.parametrize(
    "change",
    [
        {"driver": driver("535.104.05", "12.2")},
        {"gpus": (gpu("NVIDIA A100-SXM4-80GB", "8.0"),)},
        {"libraries": healthy_libraries(cudnn_version="9.1.0")},
        {"frameworks": (torch(),)},
    ],
    ids=["driver", "gpu", "cudnn", "framework"],
)
def test_a_deciding_fact_changes_the_fingerprint(change: dict[str, Any]) -> None:
    base = node_result(_report(SCENARIOS["healthy"]), smoke_asked=False)
    changed = node_result(_report(machine(**change)), smoke_asked=False)
    assert base.fingerprint != changed.fingerprint
