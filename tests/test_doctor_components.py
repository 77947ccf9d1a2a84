"""The doctor's component table and the CPU-only finding: nothing unchecked is shown as fine, and
a Docker build for GPU machines (any --target-* flag) does not pass a CPU-only TensorFlow."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from envcheck.diagnose.context import Target
from envcheck.diagnose.doctor import Report, diagnose
from envcheck.findings import Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.probe.facts import Facts, GpuFacts
from envcheck.versions import ComputeCapability, DriverVersion
from tests.facts_builder import driver, gpu, machine, tensorflow


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def row(report: Report, name: str) -> tuple[str, str]:
    component = next(c for c in report.components if c.name == name)
    return component.found, component.status


def cpu_only(**fields: Any) -> Facts:
    return machine(
        frameworks=(tensorflow("2.21.0", "tensorflow-cpu", is_cuda_build=False),), **fields
    )


def finding_severity(report: Report, code: str) -> Severity | None:
    return next((f.severity for f in report.findings if f.code == code), None)


# The build machine: no driver, no GPU, no device nodes (what a `docker build` step sees).
BUILD = {"driver": driver(None, None, "missing"), "gpus": ()}


def test_a_docker_build_for_gpu_machines_fails_on_a_cpu_only_tensorflow(matrix: Matrix) -> None:
    facts = cpu_only(**BUILD)
    for target in (
        Target(DriverVersion.parse("535.104.05"), (), ()),  # --target-driver alone
        Target(None, (ComputeCapability.parse("8.6"),), ("RTX 3060",)),  # --target-gpu alone
    ):
        report = diagnose(facts, matrix, target)
        assert finding_severity(report, "framework-cpu-only") is Severity.ERROR
        assert report.status == "error"


def test_without_driver_gpu_or_target_a_cpu_build_is_only_worth_knowing(matrix: Matrix) -> None:
    report = diagnose(cpu_only(**BUILD), matrix)
    cpu = next(f for f in report.findings if f.code == "framework-cpu-only")
    assert cpu.severity is Severity.INFO
    # No advice to download gigabytes of CUDA wheels onto a machine without a driver.
    assert "and-cuda" not in cpu.fix
    assert "install its driver first" in cpu.fix
    with_driver = diagnose(cpu_only(driver=driver("550.54.14", "12.4"), gpus=()), matrix)
    assert finding_severity(with_driver, "framework-cpu-only") is Severity.ERROR


def test_a_target_without_a_driver_shows_the_driver_as_unchecked(matrix: Matrix) -> None:
    target = Target(None, (ComputeCapability.parse("8.6"),), ("RTX 3060",))
    report = diagnose(machine(**BUILD), matrix, target)
    assert row(report, "NVIDIA driver") == ("not given (target)", "unknown")


def test_an_unreadable_driver_release_is_not_ok(matrix: Matrix) -> None:
    report = diagnose(machine(driver=driver("banana", None)), matrix)
    found, status = row(report, "NVIDIA driver")
    assert found == "'banana' (not a driver release)"
    assert status != "ok"


def test_a_gpu_without_a_capability_gets_it_from_its_name(matrix: Matrix) -> None:
    # nvidia-smi before driver 510 prints [N/A] for compute_cap; the GPU table knows the name.
    smi_gpu = GpuFacts(0, "NVIDIA GeForce RTX 3060", None, 12288, "GPU-1", "nvidia-smi")
    report = diagnose(machine(gpus=(smi_gpu,)), matrix)
    assert row(report, "GPU") == ("NVIDIA GeForce RTX 3060 (CC 8.6)", "ok")


def test_a_gpu_whose_capability_nobody_knows_is_unknown(matrix: Matrix) -> None:
    mystery = GpuFacts(0, "Mystery Accelerator 9000", None, None, None, "nvidia-smi")
    report = diagnose(machine(gpus=(mystery,)), matrix)
    assert row(report, "GPU") == ("Mystery Accelerator 9000 (CC ?)", "unknown")
    assert report.verdict() == "No problem found in what could be checked; not checked: GPU."


def test_a_healthy_machine_still_shows_ok(matrix: Matrix) -> None:
    report = diagnose(machine(gpus=(gpu("NVIDIA GeForce RTX 4090", "8.9"),)), matrix)
    assert row(report, "NVIDIA driver") == ("550.54.14", "ok")
    assert row(report, "GPU")[1] == "ok"
    assert replace(report).status in ("ok", "warning")
