"""Real-machine scenarios: recommend() through the library, and `envcheck recommend` as a process.

Expected versions are derived from the bundled matrix where possible (and checked against the
numbers in docs/facts.md, "facts" below); each test says where a number
comes from.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.matrix.records import TensorflowRelease
from envcheck.platforms import host_os
from envcheck.recommend.machine import GpuDescription, MachineDescription
from envcheck.recommend.rank import Candidate, Recommendation, recommend
from envcheck.report.recommendation import to_json, to_text
from envcheck.versions import ComputeCapability, DriverVersion, PythonVersion


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def describe(
    matrix: Matrix,
    *,
    os_name: str = "linux",
    arch: str = "x86_64",
    python: str = "3.11",
    driver: str | None = None,
    gpu: str | None = None,
) -> MachineDescription:
    """A machine as the CLI builds it from flags (the GPU's CC comes from gpus.toml)."""
    gpus: tuple[GpuDescription, ...] = ()
    if gpu is not None:
        row = GpuIndex.build(matrix.gpus).find(gpu)
        gpus = (GpuDescription(row.name, row.compute_capability),)
    return MachineDescription(
        os=os_name,
        arch=arch,
        python=PythonVersion.parse(python),
        driver=DriverVersion.parse(driver) if driver is not None else None,
        gpus=gpus,
        found_via={"driver": "--driver"},
    )


def gpu_candidates(result: Recommendation) -> list[Candidate]:
    return [c for c in result.candidates if c.kind == "gpu"]


def rejection_reasons(result: Recommendation, version: str) -> tuple[str, ...]:
    found = [r for r in result.rejected if r.tensorflow == Version(version)]
    assert len(found) == 1, f"TensorFlow {version} is not rejected exactly once"
    return found[0].reasons


def cuda_major(release: TensorflowRelease) -> int | None:
    return release.cuda.major if release.cuda is not None else None


def newest(releases: list[TensorflowRelease]) -> Version:
    return max(r.latest for r in releases)


def run_cli(*args: str, path_prefix: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m envcheck recommend ARGS` with no ENVCHECK_* variable leaking in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    if path_prefix is not None:
        env["PATH"] = f"{path_prefix}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "recommend", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def run_json(*args: str, path_prefix: Path | None = None) -> tuple[int, dict[str, Any]]:
    completed = run_cli(*args, "--json", path_prefix=path_prefix)
    assert completed.stderr == ""
    return completed.returncode, json.loads(completed.stdout)


def assert_json_contract(data: dict[str, Any], matrix: Matrix) -> None:
    """The documented keys, and every matrix release exactly once across candidates+rejected."""
    for candidate in data["candidates"]:
        assert {"tensorflow", "cuda", "cudnn", "python", "commands", "notes"} <= set(candidate)
        assert isinstance(candidate["tensorflow"], str)
        assert candidate["cuda"] is None or isinstance(candidate["cuda"], str)
        assert candidate["cudnn"] is None or isinstance(candidate["cudnn"], str)
        assert all(isinstance(p, str) for p in candidate["python"])
        assert candidate["commands"]
        assert all(isinstance(c, str) for c in candidate["commands"])
        assert all(isinstance(n, str) for n in candidate["notes"])
    for rejection in data["rejected"]:
        assert {"tensorflow", "reasons"} <= set(rejection)
        assert rejection["reasons"]
        assert all(isinstance(r, str) and r for r in rejection["reasons"])
    listed = [c["tensorflow"] for c in data["candidates"]] + [
        r["tensorflow"] for r in data["rejected"]
    ]
    series: Counter[str] = Counter()
    for text in listed:
        release = matrix.release_for(Version(text))
        assert release is not None, f"{text} is no release of the matrix"
        assert Version(text) in release.versions
        series[release.series] += 1
    assert series == Counter({r.series: 1 for r in matrix.releases})


# --- (a) Pascal on a 470 driver -----------------------------------------------------------------


def test_pascal_on_470_driver(matrix: Matrix) -> None:
    machine = describe(matrix, python="3.9", driver="470.82.01", gpu="GTX 1080 Ti")
    result = recommend(matrix, machine)
    # The newest release on CUDA 11.x (floor 450.80.02 <= 470.82.01, facts 2.2) with Python 3.9
    # wheels; every CUDA 12 build needs 525.60.13. facts 2.3: 2.12-2.14 = CUDA 11.8.
    cuda11 = [r for r in matrix.releases if cuda_major(r) == 11 and machine.python in r.python]
    assert newest(cuda11) == Version("2.14.1")
    best = result.candidates[0]
    assert (best.kind, best.status, best.tensorflow) == ("gpu", "compatible", Version("2.14.1"))
    assert best.cuda == "11.8"
    assert not best.needs_ptx_jit  # GTX 1080 Ti is CC 6.1; 2.14 carries sm_60 SASS
    assert result.has_gpu_candidate
    for release in matrix.releases:
        if cuda_major(release) == 12:
            reasons = rejection_reasons(result, str(release.latest))
            assert any("525.60.13" in r for r in reasons), (release.series, reasons)
    assert any("Updating the NVIDIA driver" in a and "525.60.13" in a for a in result.advice)


def test_pascal_on_470_driver_cli(matrix: Matrix) -> None:
    code, data = run_json(
        "--os", "linux", "--arch", "x86_64", "--driver", "470.82.01",
        "--gpu", "GTX 1080 Ti", "--python-version", "3.9",
    )  # fmt: skip
    assert code == 0
    assert data["candidates"][0]["tensorflow"] == "2.14.1"
    assert data["candidates"][0]["cuda"] == "11.8"
    assert data["machine"]["gpus"] == [{"name": "GeForce GTX 1080 Ti", "compute_capability": "6.1"}]
    rejected = {r["tensorflow"]: r["reasons"] for r in data["rejected"]}
    assert any("525.60.13" in reason for reason in rejected["2.15.1"])
    assert any("driver" in advice for advice in data["advice"])
    assert_json_contract(data, matrix)


def test_kepler_gets_no_driver_update_advice(matrix: Matrix) -> None:
    # GTX 780 is Kepler CC 3.5: 2.14 is the last build with sm_35 (facts 3.2), and R470 is
    # Kepler's last driver branch (driver_branches.toml), so updating the driver buys nothing.
    result = recommend(matrix, describe(matrix, python="3.9", driver="470.82.01", gpu="GTX 780"))
    assert result.candidates[0].tensorflow == Version("2.14.1")
    assert result.has_gpu_candidate
    assert not any("Updating the NVIDIA driver" in a for a in result.advice)


# --- (b), (c) RTX 3060 on native Windows --------------------------------------------------------


def test_windows_python_311_has_no_gpu_choice(matrix: Matrix) -> None:
    machine = describe(matrix, os_name="windows", python="3.11", driver="531.79", gpu="RTX 3060")
    result = recommend(matrix, machine)
    assert not result.has_gpu_candidate
    assert result.candidates
    assert all(c.kind == "cpu" and c.status == "cpu-only" for c in result.candidates)
    # tf-docs-windows: native Windows GPU ends with 2.10; every later release says so.
    for release in matrix.releases:
        if release.latest < Version("2.11"):
            continue
        text = " ".join(
            [n for c in result.candidates if c.release is release for n in c.notes]
            + [s for r in result.rejected if r.release is release for s in r.reasons]
        )
        assert "2.10" in text, release.series
        assert "WSL2" in text, release.series
    assert any("Python 3.11" in r for r in rejection_reasons(result, "2.10.1"))
    assert any("Python 3.10" in a for a in result.advice)
    assert any("WSL2" in a for a in result.advice)


def test_windows_python_311_cli(matrix: Matrix) -> None:
    code, data = run_json(
        "--os", "windows", "--arch", "x86_64", "--python-version", "3.11",
        "--driver", "531.79", "--gpu", "RTX 3060",
    )  # fmt: skip
    assert code == 1
    assert all(c["cuda"] is None for c in data["candidates"])
    assert all(c["status"] == "cpu-only" for c in data["candidates"])
    assert " ".join(data["advice"]).count("WSL2") >= 1
    assert_json_contract(data, matrix)


def test_windows_python_310_gets_tf_2_10(matrix: Matrix) -> None:
    machine = describe(matrix, os_name="windows", python="3.10", driver="531.79", gpu="RTX 3060")
    result = recommend(matrix, machine)
    best = result.candidates[0]
    # facts 1.3 / tf-docs-windows: 2.10 is the last native Windows GPU build, CUDA 11.2, cuDNN 8.1.
    assert (best.kind, best.status, best.tensorflow) == ("gpu", "compatible", Version("2.10.1"))
    assert (best.cuda, best.cudnn) == ("11.2", "8.1")
    assert "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0" in best.commands
    # numpy-2-abi: 2.x wheels built against NumPy 1 break under NumPy 2.
    assert '"numpy<2"' in best.commands[0]
    assert best.commands[0].startswith('python -m pip install "tensorflow==2.10.1"')
    assert result.has_gpu_candidate


# --- (d) RTX 4090 on Linux ----------------------------------------------------------------------


def test_rtx_4090_linux(matrix: Matrix) -> None:
    result = recommend(matrix, describe(matrix, driver="535.104.05", gpu="RTX 4090"))
    best = result.candidates[0]
    # The newest release with native Ada SASS: sm_89 is in 2.17+ (facts 3.2), newest is 2.21.0;
    # but 2.21.0's own install skips the GPU until cuSOLVER's directory is on the loader's path
    # (known_bugs.toml, breaks_gpu_install), so 2.20.0, whose install works as it is, comes first
    # and 2.21.0 right after it, saying why (issue 23, point 13).
    with_sm89 = [r for r in matrix.releases if ComputeCapability(8, 9) in r.sass]
    assert newest(with_sm89) == Version("2.21.0")
    assert (best.kind, best.status, best.tensorflow) == ("gpu", "compatible", Version("2.20.0"))
    assert not best.needs_ptx_jit
    assert best.commands == ('python -m pip install "tensorflow[and-cuda]==2.20.0"',)
    second = result.candidates[1]
    assert (second.tensorflow, second.status) == (Version("2.21.0"), "compatible")
    assert second.needs_workaround
    assert any("nvidia.cusolver" in n and "LD_LIBRARY_PATH" in n for n in second.notes)
    # Driver below CUDA 12.5.1's own 555.42.06 (facts 2.1): runs, with the note.
    assert any("555.42.06" in n for n in best.notes)


def test_rtx_4090_linux_cli_text() -> None:
    completed = run_cli(
        "--os", "linux", "--arch", "x86_64", "--driver", "535.104.05",
        "--gpu", "RTX 4090", "--python-version", "3.11",
    )  # fmt: skip
    assert completed.returncode == 0
    assert "1. TensorFlow 2.20.0  (CUDA 12.5.1, cuDNN 9.3; compatible)" in completed.stdout
    assert "2. TensorFlow 2.21.0  (CUDA 12.5.1, cuDNN 9.3; compatible)" in completed.stdout
    assert "ranked after the releases whose install works as it is" in completed.stdout


# --- (e) macOS ----------------------------------------------------------------------------------


def test_macos_arm64_cli(matrix: Matrix) -> None:
    code, data = run_json("--os", "macos", "--arch", "arm64", "--python-version", "3.11")
    assert code == 1
    assert data["machine"]["driver"] is None
    # Candidates: exactly the releases with a macos-arm64 wheel for Python 3.11 (tensorflow.toml).
    expected = {
        str(r.latest)
        for r in matrix.releases
        if "macos-arm64" in r.platforms and PythonVersion(3, 11) in r.python
    }
    assert {c["tensorflow"] for c in data["candidates"]} == expected
    assert "2.21.0" in expected
    for candidate in data["candidates"]:
        assert candidate["cuda"] is None
        assert candidate["cudnn"] is None
        assert candidate["status"] == "cpu-only"
        assert any("macOS" in n for n in candidate["notes"])
    assert_json_contract(data, matrix)


# --- (f) Python too new for the TensorFlow asked for ---------------------------------------------


def test_python_too_new_for_requested_tf(matrix: Matrix) -> None:
    machine = describe(matrix, python="3.12", driver="535.104.05", gpu="RTX 3060")
    result = recommend(matrix, machine, "2.10")
    assert result.candidates == ()
    assert [str(r.tensorflow) for r in result.rejected] == ["2.10.1"]
    assert any("Python 3.12" in r and "too new" in r for r in result.rejected[0].reasons)
    text = to_text(result)
    assert "TensorFlow asked for: 2.10" in text


def test_python_too_new_cli() -> None:
    code, data = run_json(
        "--os", "linux", "--arch", "x86_64", "--tensorflow", "2.10", "--python-version", "3.12",
        "--driver", "535.104.05", "--gpu", "RTX 3060",
    )  # fmt: skip
    assert code == 1
    assert data["tensorflow_spec"] == "2.10"
    assert data["candidates"] == []
    assert [r["tensorflow"] for r in data["rejected"]] == ["2.10.1"]
    assert any("Python" in reason for reason in data["rejected"][0]["reasons"])


# --- (g) H100 on the R535 driver ----------------------------------------------------------------


def test_h100_on_tf_2_15_needs_jit(matrix: Matrix) -> None:
    result = recommend(matrix, describe(matrix, driver="535.104.05", gpu="H100"), "2.15")
    best = result.candidates[0]
    # 2.15's targets end at sm_75 + compute_80 (facts 1.2): Hopper 9.0 runs by JIT, and the PTX
    # is CUDA 12.2's, which 535.104.05 (>= 12.2 GA's 535.54.03, facts 2.1) can compile.
    assert (best.kind, best.status, best.tensorflow) == ("gpu", "compatible", Version("2.15.1"))
    assert best.needs_ptx_jit
    assert any("JIT" in n for n in best.notes)


def test_h100_on_tf_2_16_is_native(matrix: Matrix) -> None:
    result = recommend(matrix, describe(matrix, driver="560.35.03", gpu="H100"), "2.16")
    best = result.candidates[0]
    assert best.tensorflow == Version("2.16.2")
    assert not best.needs_ptx_jit


def test_driver_advice_names_a_newer_driver(matrix: Matrix) -> None:
    # RTX 5090 (CC 12.0) on R535: the first toolkit that targets CC 12.0 is CUDA 12.8, whose
    # driver is 570.26 (cuda_architectures.toml, cuda_drivers.toml), so the advice must name a
    # driver newer than the installed one, never an older floor such as 525.60.13.
    result = recommend(matrix, describe(matrix, driver="535.104.05", gpu="RTX 5090"))
    suggested = [
        DriverVersion.parse(m.group(1))
        for a in result.advice
        if (m := re.search(r"Updating the NVIDIA driver to ([\d.]+)", a))
    ]
    assert suggested, result.advice
    assert all(s > DriverVersion.parse("535.104.05") for s in suggested), result.advice
    assert DriverVersion.parse("570.26") in suggested


def test_h100_on_r535_needs_a_driver_for_the_mlir_kernels(matrix: Matrix) -> None:
    # H100 (CC 9.0) has native regular kernels in 2.16+ (compute_90 = SASS + PTX), but the
    # MLIR-generated kernels carry compute_90 as PTX only (facts 3.2): they are JIT-compiled,
    # which needs a driver at least as new as the build's CUDA (12.3 -> 545, 12.5.1 -> 555).
    # R535 (CUDA 12.2) cannot, so with Python 3.12 no release uses the GPU; the advice names both
    # ways out: Python 3.11 for 2.15.1 (CUDA 12.2, all kernels JIT) or a newer driver.
    result = recommend(matrix, describe(matrix, python="3.12", driver="535.104.05", gpu="H100"))
    assert gpu_candidates(result) == []
    assert any("Updating the NVIDIA driver to 555.42.06" in a for a in result.advice), result.advice
    assert any("Python 3.11" in a and "2.15.1" in a for a in result.advice), result.advice
    newer = recommend(matrix, describe(matrix, python="3.12", driver="555.42.06", gpu="H100"))
    # 2.20.0 first: 2.21.0's own install needs cuSOLVER's path (known_bugs.toml), next.
    assert [c.tensorflow for c in gpu_candidates(newer)[:2]] == [
        Version("2.20.0"),
        Version("2.21.0"),
    ]
    assert not any("Updating the NVIDIA driver" in a for a in newer.advice), newer.advice


# --- (h) Blackwell ------------------------------------------------------------------------------


def test_rtx_5090_runs_by_jit_but_is_never_called_compatible(matrix: Matrix) -> None:
    result = recommend(matrix, describe(matrix, python="3.12", driver="570.86.10", gpu="RTX 5090"))
    # No TensorFlow wheel has Blackwell SASS (facts 3.2): every GPU candidate needs PTX JIT, and
    # 570.86.10 is newer than CUDA 12.5.1's 555.42.06, so the driver can JIT the newest builds'
    # PTX. But the MLIR kernels' JIT fails on Blackwell with 2.16-2.21 (known_bugs.toml,
    # tensorflow/tensorflow#90291, #101746): those candidates are unverified, with the bug named.
    candidates = gpu_candidates(result)
    assert candidates
    assert all(c.needs_ptx_jit for c in candidates)
    assert all(any("JIT" in n for n in c.notes) for c in candidates)
    # 2.21.0's own install needs cuSOLVER's path (breaks_gpu_install): after 2.20.0.
    assert [c.tensorflow for c in candidates[:2]] == [Version("2.20.0"), Version("2.21.0")]
    for candidate in candidates:
        affected = Version("2.16") <= candidate.tensorflow < Version("2.22")
        assert (candidate.status == "unverified") is affected, candidate.tensorflow
        assert any("CUDA_ERROR_INVALID_PTX" in n for n in candidate.notes) is affected
    assert not result.has_gpu_candidate


def test_rtx_5090_on_older_driver_cannot_jit_cuda_12_5(matrix: Matrix) -> None:
    # 550.54.14 is older than CUDA 12.5.1's own 555.42.06 (needed to JIT its PTX) and than
    # 570.26, the first driver for CC 12.0 (CUDA 12.8): no release can use the GPU.
    result = recommend(matrix, describe(matrix, python="3.12", driver="550.54.14", gpu="RTX 5090"))
    assert not result.has_gpu_candidate
    for candidate in result.candidates:
        assert candidate.kind == "cpu"
        assert any("570.26" in n or "555.42.06" in n for n in candidate.notes), candidate.notes


def test_rtx_5090_needs_a_blackwell_driver(matrix: Matrix) -> None:
    result = recommend(matrix, describe(matrix, driver="535.104.05", gpu="RTX 5090"))
    assert not result.has_gpu_candidate


# --- (i) usage errors ---------------------------------------------------------------------------


def assert_usage_error(completed: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert "Traceback" not in completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith("envcheck: error: ")
    for needle in needles:
        assert needle in lines[0]


def test_unknown_gpu_lists_close_names() -> None:
    completed = run_cli("--os", "linux", "--driver", "535.104.05", "--gpu", "RTX 4095")
    assert_usage_error(completed, "RTX 4095", "Closest known names", "GeForce RTX 4090")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--os", "linux", "--driver", "banana"), "banana"),
        (("--os", "linux", "--driver", "535.104.05", "--python", "three"), "three"),
        (("--os", "linux", "--driver", "535.104.05", "--python-version", "three"), "three"),
        (("--os", "beos", "--driver", "535.104.05"), "beos"),
        (("--os", "linux", "--driver", "535.104.05", "--tensorflow", "two"), "two"),
        (("--os", "linux", "--driver", "535.104.05", "--compute-capability", "x"), "'x'"),
    ],
)
def test_bad_values_are_one_line_errors(args: tuple[str, ...], needle: str) -> None:
    assert_usage_error(run_cli(*args), needle)


def test_gpu_and_compute_capability_conflict() -> None:
    completed = run_cli(
        "--os", "linux", "--driver", "535.104.05", "--gpu", "RTX 3060",
        "--compute-capability", "7.5",
    )  # fmt: skip
    # gpus.toml: RTX 3060 is CC 8.6 (facts 3.3).
    assert_usage_error(completed, "8.6", "7.5")


# --- (j) driver known, GPU not ------------------------------------------------------------------


def test_driver_without_gpu_is_unverified(matrix: Matrix) -> None:
    result = recommend(matrix, describe(matrix, driver="535.104.05"))
    assert result.candidates
    assert all(c.kind == "gpu" and c.status == "unverified" for c in result.candidates)
    assert all(any("--gpu" in n for n in c.notes) for c in result.candidates)
    assert not result.has_gpu_candidate


def test_driver_without_gpu_cli(matrix: Matrix) -> None:
    code, data = run_json("--os", "linux", "--arch", "x86_64", "--driver", "535.104.05")
    assert code == 1
    assert data["candidates"]
    assert {c["status"] for c in data["candidates"]} == {"unverified"}
    assert_json_contract(data, matrix)


def test_driver_none_gives_cpu_only(matrix: Matrix) -> None:
    code, data = run_json("--os", "linux", "--arch", "x86_64", "--driver", "none")
    assert code == 1
    assert {c["status"] for c in data["candidates"]} == {"cpu-only"}
    assert all(any("no NVIDIA driver" in n for n in c["notes"]) for c in data["candidates"])
    assert_json_contract(data, matrix)


# --- (k) the JSON contract over many machines ---------------------------------------------------

MACHINES = [
    {"python": "3.9", "driver": "470.82.01", "gpu": "GTX 1080 Ti"},
    {"os_name": "windows", "python": "3.11", "driver": "531.79", "gpu": "RTX 3060"},
    {"os_name": "windows", "python": "3.10", "driver": "531.79", "gpu": "RTX 3060"},
    {"os_name": "wsl", "python": "3.11", "driver": "531.79", "gpu": "RTX 3060"},
    {"driver": "535.104.05", "gpu": "RTX 4090"},
    {"os_name": "macos", "arch": "aarch64"},
    {"driver": "535.104.05", "gpu": "H100"},
    {"python": "3.12", "driver": "570.86.10", "gpu": "RTX 5090"},
    {"driver": "535.104.05"},
    {"arch": "aarch64", "driver": "535.104.05", "gpu": "RTX 4090"},
    {"python": "3.7", "driver": "418.39", "gpu": "GTX 770"},
]


@pytest.mark.parametrize("spec", [None, ">=2.12"])
@pytest.mark.parametrize("flags", MACHINES)
def test_every_release_once(matrix: Matrix, flags: dict[str, str], spec: str | None) -> None:
    result = recommend(matrix, describe(matrix, **flags), spec)
    data = json.loads(json.dumps(to_json(result)))
    if spec is None:
        assert_json_contract(data, matrix)
    else:
        listed = [c["tensorflow"] for c in data["candidates"]]
        listed += [r["tensorflow"] for r in data["rejected"]]
        wanted = [r for r in matrix.releases if r.latest >= Version("2.12")]
        assert sorted(listed, key=Version) == sorted(str(r.latest) for r in wanted)
    # Candidates come best first: compatible, then unverified, then CPU-only.
    ranks = [{"compatible": 0, "unverified": 1, "cpu-only": 2}[c.status] for c in result.candidates]
    assert ranks == sorted(ranks)
    assert result.has_gpu_candidate == any(c.status == "compatible" for c in result.candidates)


# --- (l) Linux aarch64 --------------------------------------------------------------------------


def test_linux_aarch64_is_cpu_only(matrix: Matrix) -> None:
    code, data = run_json(
        "--os", "linux", "--arch", "aarch64", "--python-version", "3.11",
        "--driver", "535.104.05", "--gpu", "RTX 4090",
    )  # fmt: skip
    assert code == 1
    # wheel-aarch64: the aarch64 wheels are CPU builds although METADATA lists and-cuda.
    assert data["candidates"]
    assert {c["status"] for c in data["candidates"]} == {"cpu-only"}
    assert all(any("aarch64" in n for n in c["notes"]) for c in data["candidates"])
    expected = {
        str(r.latest)
        for r in matrix.releases
        if "linux-aarch64" in r.platforms and PythonVersion(3, 11) in r.python
    }
    assert {c["tensorflow"] for c in data["candidates"]} == expected
    assert_json_contract(data, matrix)


# --- this host, read through a fake nvidia-smi ---------------------------------------------------

on_linux_host = pytest.mark.skipif(
    sys.platform != "linux" or host_os() != "linux", reason="reads a Linux host"
)


def fake_nvidia_smi(directory: Path, line: str, before_510: bool = False) -> Path:
    """A directory holding an nvidia-smi that prints `line` for the probe's --query-gpu.

    `line` answers the query the probe sends (driver_version,name,compute_cap,memory.total,uuid;
    without compute_cap for a driver before 510). A driver before 510 rejects the compute_cap
    field as the real one does: message on stdout, exit code 2.
    """
    reject = (
        'case "$*" in *compute_cap*) '
        "echo 'Field \"compute_cap\" is not a valid field to query.'; echo; exit 2 ;; esac\n"
        if before_510
        else ""
    )
    script = directory / "nvidia-smi"
    script.write_text(f"#!/bin/sh\n{reject}echo '{line}'\n")
    script.chmod(0o755)
    return directory


@on_linux_host
def test_host_detection_through_nvidia_smi(tmp_path: Path) -> None:
    bin_dir = fake_nvidia_smi(
        tmp_path,
        "535.104.05, NVIDIA GeForce RTX 4090, 8.9, 24564, GPU-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
    )
    code, data = run_json("--python-version", "3.11", "--arch", "x86_64", path_prefix=bin_dir)
    assert code == 0
    assert data["machine"]["os"] == "linux"
    assert data["machine"]["driver"] == "535.104.05"
    assert data["machine"]["found_via"]["driver"] == "nvidia-smi"
    assert data["machine"]["gpus"] == [
        {"name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}
    ]
    # 2.20.0 first: 2.21.0's own install needs cuSOLVER's path (breaks_gpu_install).
    assert data["candidates"][0]["tensorflow"] == "2.20.0"


@on_linux_host
def test_host_gpu_without_cc_is_looked_up_by_name(tmp_path: Path) -> None:
    # A 470 driver cannot report the compute capability: the GPU's name is looked up in
    # gpus.toml (GTX 1080 Ti = 6.1), so the CUDA 11.8 build is a verified candidate.
    bin_dir = fake_nvidia_smi(
        tmp_path,
        "470.82.01, NVIDIA GeForce GTX 1080 Ti, 11178, GPU-7d9e8f6a-1b2c-3d4e-5f60-718293a4b5c6",
        before_510=True,
    )
    code, data = run_json("--python-version", "3.9", "--arch", "x86_64", path_prefix=bin_dir)
    assert data["machine"]["driver"] == "470.82.01"
    assert data["machine"]["gpus"] == [
        {"name": "NVIDIA GeForce GTX 1080 Ti", "compute_capability": "6.1"}
    ]
    assert code == 0
    assert data["candidates"][0]["tensorflow"] == "2.14.1"


# --- --python PATH (an interpreter) and --python-version X.Y ----------------------------------


def test_python_path_describes_that_interpreter() -> None:
    code, data = run_json(
        "--os", "linux", "--driver", "535.104.05", "--gpu", "RTX 3060", "--python", sys.executable
    )  # fmt: skip
    assert code == 0
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert data["machine"]["python"] == here
    assert data["machine"]["found_via"]["python"].startswith("--python /")


def test_python_version_describes_a_python() -> None:
    code, data = run_json(
        "--os", "linux", "--driver", "535.104.05", "--gpu", "RTX 3060", "--python-version", "3.9"
    )  # fmt: skip
    assert code == 0
    assert (data["machine"]["python"], data["machine"]["found_via"]["python"]) == (
        "3.9",
        "--python-version",
    )


def test_a_version_given_to_python_points_to_python_version() -> None:
    completed = run_cli("--os", "linux", "--driver", "535.104.05", "--python", "3.11")
    assert_usage_error(completed, "--python takes an interpreter path", "--python-version 3.11")


def test_python_and_python_version_together_are_a_usage_error() -> None:
    completed = run_cli("--python", sys.executable, "--python-version", "3.11", "--driver", "none")
    assert_usage_error(completed, "not both")


@pytest.mark.parametrize("os_name", ["linux", "wsl"])
def test_no_release_ranked_first_needs_a_known_bug_s_workaround_to_use_the_gpu(
    matrix: Matrix, os_name: str
) -> None:
    # What recommend puts first is what install installs and fetch downloads: its own install
    # must pass the doctor. A release whose install needs a workaround (breaks_gpu_install) may
    # be listed, after one that does not, never first while such a one exists.
    for driver, gpu in (("535.104.05", "RTX 4090"), ("570.133.07", "A100"), ("580.65.06", "H100")):
        result = recommend(matrix, describe(matrix, os_name=os_name, driver=driver, gpu=gpu))
        gpu_choices = [c for c in result.candidates if c.kind == "gpu"]
        assert gpu_choices and not gpu_choices[0].needs_workaround, (driver, gpu)
        for candidate in gpu_choices:
            broken = [
                b for b in matrix.known_bugs
                if b.breaks_gpu_install and b.affects(candidate.tensorflow, os_name, cuda_build=True)
            ]  # fmt: skip
            assert candidate.needs_workaround == bool(broken), candidate.tensorflow
