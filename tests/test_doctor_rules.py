"""The doctor's rules on described machines: each scenario names the findings it must produce
and those it must not. Expected numbers come from the bundled matrix (cited per test)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from envcheck.diagnose.context import Target
from envcheck.diagnose.doctor import Report, diagnose
from envcheck.findings import CODES, Finding, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.probe.facts import FrameworkFacts, WheelFacts
from envcheck.versions import ComputeCapability, DriverVersion
from tests.facts_builder import LINUX, driver, gpu, healthy_libraries, lib, machine, tensorflow


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def codes(report: Report) -> set[str]:
    return {f.code for f in report.findings}


def one(report: Report, code: str) -> Finding:
    found = [f for f in report.findings if f.code == code]
    assert len(found) == 1, [f.code for f in report.findings]
    return found[0]


def test_healthy_machine_has_no_findings(matrix: Matrix) -> None:
    report = diagnose(machine(), matrix)
    # Only info: the usage-dependent XLA memory bug of TF >= 2.16 and the profiler's CUPTI
    # outside TF 2.15-2.19's RUNPATH (known_bugs.toml).
    assert [(f.code, f.severity) for f in report.findings] == [("known-bug", Severity.INFO)] * 2
    assert {f.evidence[0].rsplit("/", 1)[-1] for f in report.findings} == {"64170", "v2.20.0"}
    assert report.status == "ok"
    assert all(c.status == "ok" for c in report.components), report.components
    assert report.recommendation is not None and report.recommendation.has_gpu_candidate


def test_no_driver(matrix: Matrix) -> None:
    facts = machine(
        driver=driver(None, None, "missing", errors=("nvml: NVML Shared Library Not Found",)),
        gpus=(),
    )
    report = diagnose(facts, matrix)
    finding = one(report, "driver-missing")
    assert finding.severity is Severity.ERROR
    assert "nvml: NVML Shared Library Not Found" in finding.evidence
    assert report.status == "error"
    assert "no-gpu" not in codes(report)


def test_no_driver_inside_wsl_points_at_windows(matrix: Matrix) -> None:
    facts = machine(
        platform=replace(LINUX, os="wsl", wsl="wsl2"), driver=driver(None, None, "missing"), gpus=()
    )
    finding = one(diagnose(facts, matrix), "driver-missing")
    assert "/usr/lib/wsl/lib" in finding.message
    assert "Windows" in finding.fix


def test_stub_libcuda(matrix: Matrix) -> None:
    facts = machine(driver=driver(None, "12.2", "stub"), gpus=())
    assert "stub" in one(diagnose(facts, matrix), "driver-missing").message


def test_driver_library_mismatch_names_both_versions(matrix: Matrix) -> None:
    facts = machine(driver=driver("535.104.05", None, "mismatch", kernel_module="535.104.05",
                                  user_library="550.54.15"), gpus=())  # fmt: skip
    finding = one(diagnose(facts, matrix), "driver-library-mismatch")
    assert "535.104.05" in finding.message and "550.54.15" in finding.message
    assert "Reboot" in finding.fix


def test_container_without_gpus(matrix: Matrix) -> None:
    platform = replace(LINUX, container="docker", device_nodes=())
    facts = machine(platform=platform, driver=driver("550.54.14", "12.4", "no-device"), gpus=())
    finding = one(diagnose(facts, matrix), "no-gpu")
    assert "--gpus all" in finding.fix


def test_gpu_hidden_by_cuda_visible_devices(matrix: Matrix) -> None:
    platform = replace(LINUX, cuda_visible_devices="")
    facts = machine(platform=platform, driver=driver("550.54.14", "12.4", "no-device"), gpus=())
    finding = one(diagnose(facts, matrix), "no-gpu")
    assert "CUDA_VISIBLE_DEVICES=''" in finding.evidence
    assert "CUDA_VISIBLE_DEVICES" in finding.fix


def test_driver_too_old_for_cuda_12(matrix: Matrix) -> None:
    # TF 2.18 is built with CUDA 12.5.1; CUDA 12.x needs >= 525.60.13 (cuda_drivers.toml).
    facts = machine(driver=driver("470.82.01", "11.4"))
    found = [f for f in diagnose(facts, matrix).findings if f.code == "driver-too-old"]
    assert any("525.60.13" in f.message for f in found)
    assert all("525.60.13" in f.fix for f in found)
    # ... and R470 also predates the RTX 4090 (CC 8.9: CUDA 11.8, driver 520.61.05).
    assert any("520.61.05" in f.message for f in found)


def test_driver_too_old_known_only_by_its_cuda_version(matrix: Matrix) -> None:
    facts = machine(driver=driver(None, "11.4", "ok"))
    assert "CUDA 11.4" in one(diagnose(facts, matrix), "driver-too-old").message


def test_driver_older_than_the_gpu(matrix: Matrix) -> None:
    # RTX 5090 is CC 12.0, first targetable by CUDA 12.8, whose driver is 570.26.
    facts = machine(
        driver=driver("560.35.03", "12.6"), gpus=(gpu("NVIDIA GeForce RTX 5090", "12.0"),)
    )
    finding = next(f for f in diagnose(facts, matrix).findings if f.code == "driver-too-old")
    assert "570.26" in finding.message


def test_gpu_too_old_for_the_build(matrix: Matrix) -> None:
    # TF 2.18 targets sm_60 ... compute_90 (tensorflow.toml): a Maxwell GTX 970 (5.2) is ignored.
    facts = machine(gpus=(gpu("NVIDIA GeForce GTX 970", "5.2"),))
    finding = one(diagnose(facts, matrix), "compute-capability-unsupported")
    assert finding.severity is Severity.ERROR
    assert "5.2" in finding.message


def test_blackwell_runs_only_by_jit(matrix: Matrix) -> None:
    facts = machine(
        driver=driver("570.86.10", "12.8"), gpus=(gpu("NVIDIA GeForce RTX 5090", "12.0"),)
    )
    finding = one(diagnose(facts, matrix), "compute-capability-unsupported")
    assert finding.severity is Severity.WARNING
    assert "JIT" in finding.message


def test_tensorflow_missing_is_info_with_a_recommendation(matrix: Matrix) -> None:
    report = diagnose(machine(frameworks=(), libraries=()), matrix)
    assert one(report, "framework-missing").severity is Severity.INFO
    assert report.status == "ok"
    assert report.recommendation is not None
    # 2.20.0: 2.21.0's own install skips the GPU (cuSOLVER's RUNPATH gap, breaks_gpu_install).
    assert report.recommendation.candidates[0].tensorflow.public == "2.20.0"


def test_cpu_only_build_on_a_gpu_machine(matrix: Matrix) -> None:
    tf = tensorflow(
        "2.21.0", "tensorflow-cpu", is_cuda_build=False, cuda_version=None, cudnn_version=None
    )
    report = diagnose(machine(frameworks=(tf,)), matrix)
    finding = one(report, "framework-cpu-only")
    assert finding.severity is Severity.ERROR
    assert "tensorflow[and-cuda]==2.21.0" in finding.fix
    # The same release's GPU install needs cuSOLVER's path (known_bugs.toml): the fix says so.
    assert "nvidia.cusolver" in finding.fix
    assert not codes(report) & {"cuda-library-missing", "cudnn-missing"}


def test_macos_is_cpu_only_and_needs_no_driver(matrix: Matrix) -> None:
    platform = replace(LINUX, os="macos", arch="aarch64", device_nodes=())
    tf = tensorflow("2.21.0", is_cuda_build=False, cuda_version=None, cudnn_version=None)
    report = diagnose(machine(platform=platform, driver=driver(None, None, "missing"), gpus=(),
                              frameworks=(tf,), libraries=()), matrix)  # fmt: skip
    assert codes(report) - {"known-bug"} == {"framework-cpu-only"}
    assert "tensorflow-metal" in one(report, "framework-cpu-only").fix


def test_python_too_new(matrix: Matrix) -> None:
    # TF 2.10 has wheels for Python 3.7-3.10 (tensorflow.toml).
    platform = replace(LINUX, python="3.12.1")
    tf = tensorflow("2.10.1", cuda_version="11.2", cudnn_version="8")
    finding = one(
        diagnose(machine(platform=platform, frameworks=(tf,)), matrix), "python-unsupported"
    )
    assert "3.12" in finding.message
    assert "3.10" in finding.fix


def test_windows_native_after_2_10(matrix: Matrix) -> None:
    platform = replace(LINUX, os="windows", device_nodes=())
    tf = tensorflow(
        "2.15.1", "tensorflow-intel", cuda_version=None, cudnn_version=None, is_cuda_build=None
    )
    report = diagnose(machine(platform=platform, frameworks=(tf,), libraries=()), matrix)
    finding = one(report, "windows-native-gpu-unsupported")
    assert finding.severity is Severity.ERROR
    assert "WSL2" in finding.fix and "2.10.1" in finding.fix


def test_and_cuda_missing_means_cuda_libraries_missing(matrix: Matrix) -> None:
    libraries = healthy_libraries(skip=("cudart", "cublas", "cublasLt", "cufft", "curand", "cusolver", "cusparse", "cudnn",
         "cudnn_graph", "cudnn_ops", "cudnn_cnn", "cudnn_adv"))  # fmt: skip
    report = diagnose(machine(libraries=libraries, wheels=()), matrix)
    finding = one(report, "cuda-library-missing")
    assert "libcudart.so.12" in finding.evidence
    assert finding.fix == 'python -m pip install "tensorflow[and-cuda]==2.18.1"'
    assert one(report, "cudnn-missing").fix == finding.fix


def test_cuda_11_installed_for_a_cuda_12_build(matrix: Matrix) -> None:
    other = lib("cudart", "libcudart.so.12", "/usr/local/cuda-11.8/lib64/libcudart.so.11.0", "11.8.89",
                selected=False, found_via="another version",
                problems=("libcudart.so.11.0 is another version: the loader is asked for libcudart.so.12",))  # fmt: skip
    libraries = (*healthy_libraries(skip=("cudart",)), other)
    finding = one(diagnose(machine(libraries=libraries), matrix), "cuda-version-mismatch")
    assert "libcudart.so.11.0 is another version" in finding.evidence[0]


def test_cudnn_older_minor_than_the_build(matrix: Matrix) -> None:
    # TF 2.18 is built with cuDNN 9.3 (tensorflow.toml); 9.1.0 fails TF's minor rule.
    report = diagnose(machine(libraries=healthy_libraries(cudnn_version="9.1.0")), matrix)
    finding = one(report, "cudnn-version-mismatch")
    assert "9.1.0" in finding.message and "9.3" in finding.message


def test_cudnn_sublibrary_missing(matrix: Matrix) -> None:
    report = diagnose(machine(libraries=healthy_libraries(skip=("cudnn_cnn",))), matrix)
    finding = one(report, "cudnn-sublibrary-missing")
    assert "libcudnn_cnn.so.9" in finding.message


def test_wrong_architecture_and_missing_dependency(matrix: Matrix) -> None:
    platform = replace(LINUX, os="windows", device_nodes=())
    tf = tensorflow("2.10.1", cuda_version="11.2", cudnn_version="8")
    libraries = (
        lib("cudnn", "cudnn64_8.dll", "C:\\cuda\\bin\\cudnn64_8.dll", None, found_via="PATH"),
        lib("cudnn_cnn_infer", "cudnn_cnn_infer64_8.dll", "C:\\cuda\\bin\\cudnn_cnn_infer64_8.dll",
            found_via="PATH", arch="i386 32-bit",
            problems=("wrong architecture: i386 32-bit, but this Python is x86_64 64-bit",)),
        lib("cudnn_ops_infer", "cudnn_ops_infer64_8.dll", "C:\\cuda\\bin\\cudnn_ops_infer64_8.dll",
            found_via="PATH", problems=("needs zlibwapi.dll, which the loader cannot find",)),
    )  # fmt: skip
    report = diagnose(machine(platform=platform, frameworks=(tf,), libraries=libraries,
                              driver=driver("531.79", "12.1")), matrix)  # fmt: skip
    assert "error 193" in one(report, "library-wrong-architecture").message
    dependency = one(report, "library-dependency-missing")
    assert "zlibwapi.dll" in dependency.message and "zlibwapi.dll" in dependency.fix


def test_old_cudnn_shadows_a_good_one(matrix: Matrix) -> None:
    old = lib(
        "cudnn", "libcudnn.so.9", "/opt/old/libcudnn.so.9", "9.1.0", found_via="LD_LIBRARY_PATH"
    )
    good = lib("cudnn", "libcudnn.so.9", "/home/ada/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9",
               "9.3.0", selected=False)  # fmt: skip
    libraries = (*tuple(x for x in healthy_libraries() if x.name != "cudnn"), old, good)
    report = diagnose(machine(libraries=libraries), matrix)
    finding = one(report, "library-shadowed")
    assert "/opt/old/libcudnn.so.9" in finding.message
    assert "/opt/old" in finding.fix
    assert "cudnn-version-mismatch" in codes(report)


def test_frameworks_pin_different_cudnn(matrix: Matrix) -> None:
    tf = replace(
        tensorflow("2.18.1"), requires=('nvidia-cudnn-cu12==9.3.0.75; extra == "and-cuda"',)
    )
    torch = FrameworkFacts("torch", "torch", "2.4.0", "/site", {"cuda_version": "12.1"},
                           requires=("nvidia-cudnn-cu12==9.1.0.70",))  # fmt: skip
    wheels = (WheelFacts("nvidia-cudnn-cu12", "9.1.0.70", "/site"),)
    finding = one(
        diagnose(machine(frameworks=(tf, torch), wheels=wheels), matrix), "framework-conflict"
    )
    assert "PyTorch 2.4.0" in finding.message and "TensorFlow 2.18.1" in finding.message
    assert "cannot both hold" in finding.message and finding.severity is Severity.ERROR


def test_docker_build_target_mode(matrix: Matrix) -> None:
    # No driver and no GPU during `docker build`: the target flags stand in for the fleet.
    build = machine(
        driver=driver(None, None, "missing"), gpus=(), platform=replace(LINUX, device_nodes=())
    )
    fleet = Target(DriverVersion.parse("535.104.05"), (ComputeCapability(8, 0),), ("A100",))
    report = diagnose(build, matrix, fleet)
    assert not codes(report) & {"driver-missing", "no-gpu"}
    assert report.status == "ok"
    old_fleet = Target(DriverVersion.parse("470.82.01"), (ComputeCapability(8, 0),), ("A100",))
    assert "driver-too-old" in codes(diagnose(build, matrix, old_fleet))
    kepler = Target(DriverVersion.parse("535.104.05"), (ComputeCapability(3, 7),), ("Tesla K80",))
    assert "compute-capability-unsupported" in codes(diagnose(build, matrix, kepler))


def test_unknown_is_not_ok(matrix: Matrix) -> None:
    # Nothing said about the GPU: its component is unknown, never shown as ok.
    report = diagnose(machine(gpus=(), driver=driver("550.54.14", "12.4", "unknown")), matrix)
    gpu_row = next(c for c in report.components if c.name == "GPU")
    assert gpu_row.status in ("unknown", "error")  # so never "ok"


def test_every_rule_code_is_declared() -> None:
    with pytest.raises(ValueError, match="unknown finding code"):
        Finding("made-up", Severity.ERROR, "x")
    assert "driver-missing" in CODES


def test_known_bug_by_version(matrix: Matrix) -> None:
    # known_bugs.toml: TF 2.16.0/2.16.1 Linux wheels miss pip's CUDA libraries
    # (tensorflow/tensorflow#63362); the 2.16.2 wheel's RUNPATH names them again.
    report = diagnose(
        machine(frameworks=(tensorflow("2.16.1", cuda_version="12.3", cudnn_version="8"),)), matrix
    )
    bugs = [f for f in report.findings if f.code == "known-bug"]
    assert any("63362" in f.evidence[0] and f.severity is Severity.WARNING for f in bugs)
    for fixed in ("2.16.2", "2.17.1"):
        later = diagnose(
            machine(frameworks=(tensorflow(fixed, cuda_version="12.3", cudnn_version="8"),)), matrix
        )
        assert not any("63362" in f.evidence[0] for f in later.findings if f.code == "known-bug")


def test_known_bug_needs_every_condition(matrix: Matrix) -> None:
    # The Blackwell INVALID_PTX bug needs TF 2.16-2.21 and a GPU of CC >= 10.0.
    blackwell = machine(
        driver=driver("570.86.10", "12.8"), gpus=(gpu("NVIDIA GeForce RTX 5090", "12.0"),)
    )
    assert any(
        "90291" in f.evidence[0]
        for f in diagnose(blackwell, matrix).findings
        if f.code == "known-bug"
    )
    assert not any(
        "90291" in f.evidence[0]
        for f in diagnose(machine(), matrix).findings
        if f.code == "known-bug"
    )
