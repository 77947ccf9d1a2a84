"""What would change the answer when no driver is installed: the driver that unlocks a GPU build."""

from __future__ import annotations

from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.recommend.machine import GpuDescription, MachineDescription
from envcheck.recommend.rank import recommend
from envcheck.versions import ComputeCapability, PythonVersion


def _machine(gpus: tuple[GpuDescription, ...]) -> MachineDescription:
    return MachineDescription(
        os="linux", arch="x86_64", python=PythonVersion.parse("3.11"), driver=None, gpus=gpus
    )


def test_a_described_gpu_without_a_driver_gets_the_driver_to_install() -> None:
    matrix = load_matrix(bundled_matrix_dir())
    rtx_3060 = GpuDescription("RTX 3060", ComputeCapability.parse("8.6"))
    result = recommend(matrix, _machine((rtx_3060,)), None)
    assert not result.has_gpu_candidate
    # 525.60.13: the CUDA 12 minor-version floor (cuda_drivers.toml); 8.6 runs 2.21's sm_80 code.
    assert result.advice == (
        "Installing the NVIDIA driver 525.60.13 or newer would allow TensorFlow 2.21.0 with "
        "CUDA 12.5.1.",
    )


def test_no_gpu_and_no_driver_gets_no_driver_advice() -> None:
    matrix = load_matrix(bundled_matrix_dir())
    result = recommend(matrix, _machine(()), None)
    assert not any("driver" in a for a in result.advice)
