"""PTX JIT and the driver: a GPU whose kernels (all, or only TensorFlow's MLIR-generated ones) are
PTX in the build needs a driver at least as new as the build's CUDA, or those kernels fail to
load (CUDA_ERROR_UNSUPPORTED_PTX_VERSION). TF 2.18+ targets compute_90 (matrix/tensorflow.toml):
SASS and PTX for the regular kernels, PTX only for the MLIR ones, so an H100 needs driver >=
CUDA 12.5.1's own 555.42.06 there, while TF 2.17.1 (CUDA 12.3) runs on 545+."""

from __future__ import annotations

from dataclasses import replace

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.matrix.rules import ptx_jit_needed
from envcheck.recommend.machine import GpuDescription, MachineDescription
from envcheck.recommend.rank import recommend
from envcheck.versions import ComputeCapability, DriverVersion, PythonVersion
from tests.facts_builder import driver, gpu, machine, tensorflow


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def cc(text: str) -> ComputeCapability:
    return ComputeCapability.parse(text)


@pytest.mark.parametrize(
    ("capability", "sass", "ptx", "mlir", "expected"),
    [
        ("9.0", ["8.0", "9.0"], ["9.0"], ["8.0"], True),  # MLIR kernels only as PTX
        ("9.0", ["8.0", "9.0"], ["9.0"], ["8.0", "9.0"], False),  # native for both
        ("9.0", ["8.0", "9.0"], ["9.0"], None, False),  # no MLIR data: regular kernels native
        ("12.0", ["8.0", "9.0"], ["9.0"], ["8.0"], True),  # nothing native: all by JIT
        ("8.6", ["8.0"], ["9.0"], ["8.0"], False),  # native (sm_80 runs on 8.6), no usable PTX
        ("7.5", ["8.0"], ["8.0"], ["8.0"], False),  # no kernels at all: not a JIT question
        (None, ["8.0"], ["8.0"], ["8.0"], False),
    ],
)
def test_ptx_jit_needed(
    capability: str | None, sass: list[str], ptx: list[str], mlir: list[str] | None, expected: bool
) -> None:
    got = ptx_jit_needed(
        cc(capability) if capability else None,
        [cc(s) for s in sass],
        [cc(p) for p in ptx],
        [cc(m) for m in mlir] if mlir is not None else None,
    )
    assert got is expected


def _h100(driver_release: str) -> MachineDescription:
    return MachineDescription(
        os="linux",
        arch="x86_64",
        python=PythonVersion.parse("3.12"),
        driver=DriverVersion.parse(driver_release),
        gpus=(GpuDescription("H100 80GB HBM3", cc("9.0")),),
    )


def test_recommend_rejects_mlir_ptx_builds_on_an_older_driver(matrix: Matrix) -> None:
    result = recommend(matrix, _h100("550.54.15"), None)
    best = result.candidates[0]
    assert (str(best.tensorflow), best.status) == ("2.17.1", "compatible")
    rejected = {str(r.tensorflow): r.reasons for r in result.rejected}
    assert any("CUDA_ERROR_UNSUPPORTED_PTX_VERSION" in reason for reason in rejected["2.18.1"])
    # With the toolkit's own driver the newest releases are back on top (2.21.0 just after
    # 2.20.0: its GPU install needs a path line, known_bugs.toml's breaks_gpu_install).
    newest = recommend(matrix, _h100("555.42.06"), None).candidates
    assert [str(c.tensorflow) for c in newest[:2]] == ["2.20.0", "2.21.0"]


def test_doctor_says_the_driver_is_too_old_for_the_mlir_kernels(matrix: Matrix) -> None:
    facts = machine(
        driver=driver("550.54.14", "12.4"),
        gpus=(gpu("NVIDIA H100 80GB HBM3", "9.0"),),
        frameworks=(tensorflow("2.18.1"),),
    )
    report = diagnose(facts, matrix)
    too_old = [f for f in report.findings if f.code == "driver-too-old"]
    assert too_old, [f.code for f in report.findings]
    assert "555.42.06" in too_old[0].message
    healthy = diagnose(replace(facts, driver=driver("560.35.03", "12.6")), matrix)
    assert not [f for f in healthy.findings if f.code == "driver-too-old"]
