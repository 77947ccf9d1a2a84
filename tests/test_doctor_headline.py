"""The cause heads the report (issue 23, point 14): tensorflow[and-cuda]==2.21.0 with a truncated
libcudart.so.12 first on LD_LIBRARY_PATH, as the real install (tests/test_real_installs.py, opt
in) gives it: the import dies with SIGBUS, the probe has already read the truncated file.

The libraries are the probe's facts for that install (facts_builder's CUDA 12 / cuDNN 9 set,
with the truncated copy selected and the wheel's shadowed, and 2.21.0's cuSOLVER out of reach of
its RUNPATH); the crash is the smoke child's record of a SIGBUS during import.
"""

from __future__ import annotations

from dataclasses import replace

from envcheck.diagnose.context import Target
from envcheck.diagnose.doctor import Report, diagnose
from envcheck.diagnose.smoke_rules import smoke_findings
from envcheck.findings import Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.probe.facts import Facts, LibraryFacts, WheelFacts
from envcheck.probe.smoke import SmokeResult, SmokeStep
from envcheck.versions import ComputeCapability, DriverVersion
from tests.facts_builder import LINUX, SITE, driver, healthy_libraries, lib, machine, tensorflow

MATRIX = load_matrix(bundled_matrix_dir())
TRUNCATED = "/tmp/broken/libcudart.so.12"
PROBLEM = "truncated: the file is 100000 bytes but its ELF headers need 741088 bytes"
WHEEL_CUDART = f"{SITE}/nvidia/cuda_runtime/lib/libcudart.so.12"
CUSOLVER = f"{SITE}/nvidia/cusolver/lib/libcusolver.so.11"
NO_GPU = replace(LINUX, device_nodes=(), nvidia_gpu="absent",
                 nvidia_gpu_evidence=("no NVIDIA display device among the 6 PCI devices",))  # fmt: skip
A100 = Target(DriverVersion.parse("570.133.07"), (ComputeCapability.parse("8.0"),), ("A100",))


def _libraries(truncated: bool) -> tuple[LibraryFacts, ...]:
    libraries: list[LibraryFacts] = []
    for library in healthy_libraries("9.28.0", skip=("cusolver",)):
        if library.name == "cusolver":  # 2.21.0's RUNPATH lacks nvidia/cusolver/lib
            libraries.append(library)
            libraries.append(lib("cusolver", "libcusolver.so.11", CUSOLVER, None, selected=False,
                                 found_via="pip wheel nvidia/cusolver"))  # fmt: skip
        elif library.name == "cudart" and truncated:
            libraries.append(lib("cudart", "libcudart.so.12", TRUNCATED, "12",
                                 found_via="LD_LIBRARY_PATH", problems=(PROBLEM,)))  # fmt: skip
            libraries.append(replace(library, path=WHEEL_CUDART, version="12.9.79",
                                     selected=False))  # fmt: skip
        else:
            libraries.append(library)
    return tuple(libraries)


def _facts(truncated: bool = True, gpu: bool = False) -> Facts:
    wheels = (WheelFacts("nvidia-cudnn-cu12", "9.28.0.42", SITE),)
    tf = tensorflow("2.21.0")
    if gpu:
        return machine(libraries=_libraries(truncated), frameworks=(tf,), wheels=wheels)
    return machine(platform=NO_GPU, driver=driver(None, None, "missing"), gpus=(),
                   libraries=_libraries(truncated), frameworks=(tf,), wheels=wheels)  # fmt: skip


def _sigbus_in_import() -> SmokeResult:
    steps = (SmokeStep("import", "started", 0.0, "", None),)
    return SmokeResult("crashed", steps, None, {}, (), (), (), "", -7, "SIGBUS", 3.1)


def _with_smoke(facts: Facts, target: Target | None = None) -> Report:
    result = _sigbus_in_import()
    extra = smoke_findings(result, MATRIX.signatures, facts.libraries, driver_missing=True)
    return diagnose(facts, MATRIX, target, extra_findings=extra, smoke={"status": "crashed"})


def test_a_crash_is_tied_to_the_damaged_file_the_probe_saw() -> None:
    report = _with_smoke(_facts())  # the default doctor on this machine (no GPU)
    (crash,) = [f for f in report.findings if f.code == "smoke-test-crashed"]
    assert TRUNCATED in crash.message and "truncated" in crash.message
    assert TRUNCATED in crash.fix
    assert "findings above" not in crash.fix
    assert report.verdict().count(TRUNCATED) == 1  # the verdict names the cause too


def test_a_crash_with_nothing_damaged_does_not_point_at_findings_that_are_not_there() -> None:
    report = _with_smoke(_facts(truncated=False))
    (crash,) = [f for f in report.findings if f.code == "smoke-test-crashed"]
    assert "findings above" not in crash.fix
    assert "python -c 'import tensorflow" in crash.fix


def test_in_a_docker_build_the_damaged_copy_heads_the_report() -> None:
    report = _with_smoke(_facts(), A100)
    errors = [f.code for f in report.findings if f.severity is Severity.ERROR]
    assert errors[0] == "library-shadowed", errors
    assert errors[-1] == "smoke-test-crashed", errors
    assert "cuda-library-missing" in errors  # the cuSOLVER gap is still reported, after it
    shadowed = report.findings[0]
    assert f'export LD_LIBRARY_PATH="{WHEEL_CUDART.rsplit("/", 1)[0]}' in shadowed.fix
    assert TRUNCATED in report.verdict()


def test_the_cuda_runtime_row_is_the_runtime_s_own() -> None:
    # The cuSOLVER gap alone: libcudart is fine, so its row is; the TensorFlow row carries it.
    rows = {c.name: c.status for c in diagnose(_facts(truncated=False), MATRIX, A100).components}
    assert rows["CUDA runtime"] == "ok", rows
    assert rows["TensorFlow"] == "error", rows
    broken = {c.name: c.status for c in diagnose(_facts(), MATRIX, A100).components}
    assert broken["CUDA runtime"] == "error", broken


def test_a_missing_cudnn_sub_library_fix_is_the_command_that_restores_it() -> None:
    libraries = tuple(
        lib("cudnn_cnn", "libcudnn_cnn.so.9") if c.name == "cudnn_cnn" else c
        for c in _libraries(truncated=False)
    )
    facts = replace(_facts(truncated=False, gpu=True), libraries=libraries)
    report = diagnose(facts, MATRIX)
    (missing,) = [f for f in report.findings if f.code == "cudnn-sublibrary-missing"]
    assert (
        'python -m pip install --force-reinstall --no-deps "nvidia-cudnn-cu12==9.28.0.42"'
        in missing.fix
    )


def test_a_copy_of_another_version_is_not_called_damaged() -> None:
    # TensorFlow's fallback to the ld.so cache's libcupti.so (CUDA 13's) is a version problem,
    # not a damaged file: a crash is not pinned on it.
    cupti = lib("cupti", "libcupti.so", "/usr/local/cuda-13.0/lib/libcupti.so", "13",
                found_via="ld.so.cache; TensorFlow's fallback when libcupti.so.12 fails",
                problems=("is libcupti.so.13, another version than the libcupti.so.12 this "
                          "build needs",))  # fmt: skip
    facts = replace(_facts(truncated=False), libraries=(*_libraries(truncated=False), cupti))
    (crash,) = [f for f in _with_smoke(facts).findings if f.code == "smoke-test-crashed"]
    assert "libcupti" not in crash.message and "libcupti" not in crash.fix
