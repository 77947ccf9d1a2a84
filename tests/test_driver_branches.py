"""A driver branch past the last one for a GPU's architecture (matrix/driver_branches.toml: R470
for Kepler) does not run that GPU: recommend offers no GPU build, the doctor says why, and
neither advises updating the driver."""

from __future__ import annotations

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.recommend.machine import GpuDescription, MachineDescription
from envcheck.recommend.rank import recommend
from envcheck.versions import ComputeCapability, DriverVersion, PythonVersion
from tests.facts_builder import driver, gpu, machine, tensorflow


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def _k80(release: str) -> MachineDescription:
    return MachineDescription(
        os="linux",
        arch="x86_64",
        python=PythonVersion.parse("3.8"),
        driver=DriverVersion.parse(release),
        gpus=(GpuDescription("Tesla K80", ComputeCapability.parse("3.7")),),
    )


def test_a_kepler_gpu_under_r535_gets_no_gpu_build(matrix: Matrix) -> None:
    result = recommend(matrix, _k80("535.104.05"), None)
    assert not [c for c in result.candidates if c.kind == "gpu"]
    reasons = " ".join(n for c in result.candidates for n in c.notes)
    assert "does not support Kepler GPUs (R470 is their last driver branch)" in reasons
    assert "update the NVIDIA driver" not in reasons


def test_a_kepler_gpu_under_r470_keeps_its_gpu_builds(matrix: Matrix) -> None:
    result = recommend(matrix, _k80("470.82.01"), None)
    gpu_builds = [c for c in result.candidates if c.kind == "gpu"]
    assert gpu_builds, [c.notes for c in result.candidates]
    # R470 runs CUDA 11.4 and older (11.x by minor-version compatibility): no CUDA 12 build.
    assert all(c.cuda is not None and int(c.cuda.split(".")[0]) <= 11 for c in gpu_builds)


def test_the_doctor_names_the_branch_and_does_not_say_update(matrix: Matrix) -> None:
    facts = machine(
        driver=driver("535.104.05", "12.2"),
        gpus=(gpu("Tesla K80", "3.7"),),
        frameworks=(tensorflow("2.11.1", cuda_version="11.2", cudnn_version="8"),),
    )
    report = diagnose(facts, matrix)
    too_new = [f for f in report.findings if f.code == "driver-too-new"]
    assert too_new, [(f.code, f.message) for f in report.findings]
    assert "R470" in too_new[0].message
    assert "Install an R470 driver" in too_new[0].fix
