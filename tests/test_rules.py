"""The pure compatibility rules (envcheck.matrix.rules) and the version parsers (envcheck.versions).

Expected numbers are quoted from docs/facts.md ("facts" below, with the section) or derived
from the bundled matrix; each test says which.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from envcheck.errors import InputError
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.matrix.records import TensorflowRelease
from envcheck.matrix.rules import (
    Outcome,
    Status,
    cuda_runtime_compatible,
    cudnn_runtime_compatible,
    driver_supports_cuda,
    gpu_build_available,
    gpu_runs_build,
    platform_has_wheel,
    python_supported,
)
from envcheck.versions import ComputeCapability, CudaTarget, DriverVersion, PythonVersion


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def series(matrix: Matrix, name: str) -> TensorflowRelease:
    """The release row of one TensorFlow minor series, e.g. '2.10'."""
    rows = [r for r in matrix.releases if r.series == name]
    assert len(rows) == 1, f"expected one {name} row, found {len(rows)}"
    return rows[0]


def cc(text: str) -> ComputeCapability:
    return ComputeCapability.parse(text)


def drv(text: str) -> DriverVersion:
    return DriverVersion.parse(text)


# --- the data the rule tests lean on ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "targets"),
    [
        # facts 1.2, the `cuda_compute_capabilities` column of build_info.py of each wheel.
        ("2.3", "sm_35,sm_37,sm_52,sm_60,sm_61,compute_70"),
        ("2.10", "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80"),
        ("2.15", "sm_50,sm_60,sm_70,sm_75,compute_80"),
        ("2.16", "sm_50,sm_60,sm_70,sm_80,compute_90"),
        ("2.17", "sm_60,sm_70,sm_80,sm_89,compute_90"),
        ("2.20", "sm_60,sm_70,sm_80,sm_89,compute_90"),
    ],
)
def test_matrix_cuda_targets_match_the_wheels(matrix: Matrix, name: str, targets: str) -> None:
    assert [str(t) for t in series(matrix, name).cuda_targets] == targets.split(",")


@pytest.mark.parametrize(
    ("name", "cuda", "cudnn"),
    [
        # facts 1.1, the Linux GPU table (2.18+ CUDA as build_info gives it, 12.5.1: facts 1.2).
        ("2.3", "10.1", "7.6"),
        ("2.10", "11.2", "8.1"),
        ("2.14", "11.8", "8.7"),
        ("2.15", "12.2", "8.9"),
        ("2.16", "12.3", "8.9"),
        ("2.18", "12.5.1", "9.3"),
    ],
)
def test_matrix_build_versions_match_the_docs(
    matrix: Matrix, name: str, cuda: str, cudnn: str
) -> None:
    release = series(matrix, name)
    assert release.cuda == Version(cuda)
    assert release.cudnn == Version(cudnn)


# --- cuDNN: TensorFlow's IsSourceCompatibleWithCudnnLibrary --------------------------------------


@pytest.mark.parametrize(
    ("build_series", "runtime", "status"),
    [
        # The seed's message: "Loaded runtime CuDNN library: 8.0.5 but source was compiled
        # with: 8.1.0" (facts section 7, #6) -- 2.10 was built with cuDNN 8.1.
        ("2.10", "8.0.5", Status.INCOMPATIBLE),
        ("2.10", "8.1.1", Status.OK),  # patch level never matters
        ("2.10", "8.1.0", Status.OK),
        ("2.10", "8.2.4", Status.OK),  # a newer minor of the same major is accepted
        ("2.16", "8.9.7", Status.OK),  # the and-cuda extra of 2.16 pins nvidia-cudnn-cu12 8.9.7
        ("2.18", "9.1.0", Status.INCOMPATIBLE),  # real log "9.1.0 but ... 9.3.0" (facts 7, #6)
        ("2.18", "9.3.0", Status.OK),
        ("2.16", "9.3.0", Status.INCOMPATIBLE),  # another major
        ("2.18", "8.9.7", Status.INCOMPATIBLE),  # an older major
    ],
)
def test_cudnn_runtime_against_build(
    matrix: Matrix, build_series: str, runtime: str, status: Status
) -> None:
    build = series(matrix, build_series).cudnn
    assert build is not None
    outcome = cudnn_runtime_compatible(build, Version(runtime))
    assert outcome.status is status
    assert outcome.rule == "cudnn"
    assert outcome.ok is (status is Status.OK)


def test_cudnn_older_minor_names_what_to_install() -> None:
    outcome = cudnn_runtime_compatible(Version("8.1"), Version("8.0.5"))
    assert "8.0.5" in outcome.message
    assert "8.1" in outcome.message


def test_cudnn_other_major_says_major() -> None:
    outcome = cudnn_runtime_compatible(Version("8.9"), Version("9.3.0"))
    assert "major" in outcome.message
    assert "8.x" in outcome.message


# --- CUDA runtime libraries: the soname carries the major ----------------------------------------


@pytest.mark.parametrize(
    ("build", "runtime", "status"),
    [
        ("11.2", "11.8", Status.OK),
        ("11.2", "11.2.2", Status.OK),
        ("11.2", "12.2", Status.INCOMPATIBLE),
        ("11.2", "12.5.1", Status.INCOMPATIBLE),
        ("11.2", "10.1", Status.INCOMPATIBLE),
        ("12.5.1", "12.8", Status.OK),
    ],
)
def test_cuda_runtime_major(build: str, runtime: str, status: Status) -> None:
    outcome = cuda_runtime_compatible(Version(build), Version(runtime))
    assert outcome.status is status
    if status is Status.INCOMPATIBLE:
        assert f"{Version(build).major}.x" in outcome.message


# --- driver floors ------------------------------------------------------------------------------


def test_driver_older_than_toolkit_runs_by_minor_version_compat(matrix: Matrix) -> None:
    # 2.18-2.21 are built with CUDA 12.5.1. 535.104.05 is above the CUDA 12.x floor 525.60.13
    # but below CUDA 12.5 Update 1's own driver 555.42.06 (facts 2.1 Table 3, 2.2).
    cuda = series(matrix, "2.18").cuda
    assert cuda == Version("12.5.1")
    outcome = driver_supports_cuda(matrix, cuda, drv("535.104.05"), "linux", needs_ptx_jit=False)
    assert outcome.status is Status.OK
    assert len(outcome.notes) == 1
    assert "555.42.06" in outcome.notes[0]
    assert "JIT" in outcome.notes[0]


def test_driver_older_than_toolkit_cannot_jit_its_ptx(matrix: Matrix) -> None:
    # facts 2.2: "PTX JIT needs a driver at least as new as the toolkit that generated the PTX".
    outcome = driver_supports_cuda(
        matrix, Version("12.5.1"), drv("535.104.05"), "linux", needs_ptx_jit=True
    )
    assert outcome.status is Status.INCOMPATIBLE
    assert "555.42.06" in outcome.message


def test_driver_newer_than_toolkit_is_plain_ok(matrix: Matrix) -> None:
    outcome = driver_supports_cuda(
        matrix, Version("12.5.1"), drv("560.35.03"), "linux", needs_ptx_jit=True
    )
    assert outcome.status is Status.OK
    assert outcome.notes == ()


def test_driver_below_cuda12_floor(matrix: Matrix) -> None:
    # 470.82.01 is CUDA 11.4 Update 3's driver; CUDA 12.x needs >= 525.60.13 (facts 2.2).
    outcome = driver_supports_cuda(
        matrix, Version("12.2"), drv("470.82.01"), "linux", needs_ptx_jit=False
    )
    assert outcome.status is Status.INCOMPATIBLE
    assert "525.60.13" in outcome.message
    assert "470.82.01" in outcome.message


@pytest.mark.parametrize(
    ("driver", "status"),
    [
        # facts 2.2: CUDA 11.x minor-version compatibility from 450.80.02 (Linux).
        ("450.80.02", Status.OK),  # exactly the floor
        ("450.80.01", Status.INCOMPATIBLE),
        ("450.51.06", Status.INCOMPATIBLE),  # CUDA 11.0.3's own driver is below the 11.x floor
    ],
)
def test_cuda_11_floor_is_inclusive(matrix: Matrix, driver: str, status: Status) -> None:
    outcome = driver_supports_cuda(
        matrix, Version("11.8"), drv(driver), "linux", needs_ptx_jit=False
    )
    assert outcome.status is status


@pytest.mark.parametrize(
    ("driver", "os_name", "status"),
    [
        # facts 2.2: CUDA 12.x Windows floor 527.41 (Linux 525.60.13); WSL uses the Windows driver.
        ("527.41", "windows", Status.OK),
        ("526.98", "windows", Status.INCOMPATIBLE),
        ("527.41", "wsl", Status.OK),
        ("526.98", "wsl", Status.INCOMPATIBLE),
        ("526.98", "linux", Status.OK),  # the same number clears the Linux floor
        ("525.60.13", "linux", Status.OK),
        ("525.60.12", "linux", Status.INCOMPATIBLE),
    ],
)
def test_cuda_12_floor_per_os(matrix: Matrix, driver: str, os_name: str, status: Status) -> None:
    outcome = driver_supports_cuda(matrix, Version("12.2"), drv(driver), os_name, False)
    assert outcome.status is status
    if status is Status.INCOMPATIBLE:
        floor = "525.60.13" if os_name == "linux" else "527.41"
        assert floor in outcome.message


@pytest.mark.parametrize(
    ("driver", "os_name", "status"),
    [
        # facts 2.2: no minor-version compatibility before CUDA 11; CUDA 10.1 needs its own
        # toolkit driver, >= 418.39 (Linux) / >= 418.96 (Windows).
        ("418.39", "linux", Status.OK),
        ("418.30", "linux", Status.INCOMPATIBLE),
        ("410.48", "linux", Status.INCOMPATIBLE),  # CUDA 10.0's driver does not run 10.1
        ("418.96", "windows", Status.OK),
        ("418.81", "windows", Status.INCOMPATIBLE),
    ],
)
def test_cuda_10_1_needs_its_own_driver(
    matrix: Matrix, driver: str, os_name: str, status: Status
) -> None:
    cuda = series(matrix, "2.3").cuda
    assert cuda == Version("10.1")
    outcome = driver_supports_cuda(matrix, cuda, drv(driver), os_name, needs_ptx_jit=False)
    assert outcome.status is status
    if status is Status.INCOMPATIBLE:
        assert ("418.39" if os_name == "linux" else "418.96") in outcome.message


@pytest.mark.parametrize("needs_ptx_jit", [False, True])
def test_unknown_driver_is_unknown_never_ok(matrix: Matrix, needs_ptx_jit: bool) -> None:
    outcome = driver_supports_cuda(matrix, Version("12.5.1"), None, "linux", needs_ptx_jit)
    assert outcome.status is Status.UNKNOWN
    assert not outcome.ok
    assert "525.60.13" in outcome.message


def test_cuda_without_driver_data_is_unknown(matrix: Matrix) -> None:
    # No [[toolkit]] or [[family]] row for CUDA 7.5 (cuda_drivers.toml leaves 7.x out).
    outcome = driver_supports_cuda(matrix, Version("7.5"), drv("560.35.03"), "linux", False)
    assert outcome.status is Status.UNKNOWN


def test_cuda_13_on_windows_is_unknown(matrix: Matrix) -> None:
    # facts 2.1: NVIDIA prints "N/A" for Windows on every CUDA 13.x row; no number, no "ok".
    outcome = driver_supports_cuda(matrix, Version("13.0"), drv("581.15"), "windows", False)
    assert outcome.status is Status.UNKNOWN
    linux = driver_supports_cuda(matrix, Version("13.0"), drv("580.65.06"), "linux", False)
    assert linux.status is Status.OK


# --- GPU architecture against the build's SASS and PTX ------------------------------------------


def test_sass_runs_on_higher_minor_of_same_major() -> None:
    outcome = gpu_runs_build(cc("8.6"), [cc("8.0")], [])
    assert outcome.status is Status.OK
    assert "sm_80" in outcome.message
    assert outcome.notes == ()


def test_sass_does_not_run_on_lower_minor() -> None:
    outcome = gpu_runs_build(cc("8.0"), [cc("8.6")], [])
    assert outcome.status is Status.INCOMPATIBLE


def test_sass_does_not_cross_majors_but_ptx_does() -> None:
    # The .bazelrc example quoted in facts 3.1: "sm_80 kernels can run on sm_89 GPUs but not on
    # sm_90 GPUs. compute_80 kernels though can also run on sm_90 GPUs."
    outcome = gpu_runs_build(cc("9.0"), [cc("8.0")], [cc("8.0")])
    assert outcome.status is Status.OK
    assert "JIT" in outcome.message
    assert "compute_80" in outcome.message
    assert any("JIT" in note for note in outcome.notes)
    assert gpu_runs_build(cc("9.0"), [cc("8.0")], []).status is Status.INCOMPATIBLE


def test_ptx_is_not_backward_compatible() -> None:
    assert gpu_runs_build(cc("7.5"), [], [cc("8.0")]).status is Status.INCOMPATIBLE


def test_native_preferred_over_jit_when_both_apply() -> None:
    outcome = gpu_runs_build(cc("8.9"), [cc("8.0"), cc("8.9")], [cc("9.0"), cc("8.0")])
    assert outcome.status is Status.OK
    assert "sm_89" in outcome.message
    assert outcome.notes == ()


def test_blackwell_on_tf_2_20_needs_jit(matrix: Matrix) -> None:
    # facts 3.2 rule 3: CC 12.0 above every SASS major of 2.20 -> JIT from compute_90.
    release = series(matrix, "2.20")
    outcome = gpu_runs_build(cc("12.0"), release.sass, release.ptx)
    assert outcome.status is Status.OK
    assert "compute_90" in outcome.message
    assert outcome.notes


def test_ada_on_tf_2_21_is_native(matrix: Matrix) -> None:
    release = series(matrix, "2.21")
    outcome = gpu_runs_build(cc("8.9"), release.sass, release.ptx)
    assert outcome.status is Status.OK
    assert "sm_89" in outcome.message
    assert outcome.notes == ()


@pytest.mark.parametrize(
    ("name", "capability", "floor"),
    [
        # facts 3.2 "GPU ignored if CC <": 3.5 for 2.3 (Kepler 3.0 is below it), 6.0 for 2.17+.
        ("2.3", "3.0", "3.5"),
        ("2.17", "5.2", "6.0"),
        ("2.15", "3.7", "5.0"),
    ],
)
def test_gpu_below_the_builds_floor(matrix: Matrix, name: str, capability: str, floor: str) -> None:
    release = series(matrix, name)
    outcome = gpu_runs_build(cc(capability), release.sass, release.ptx)
    assert outcome.status is Status.INCOMPATIBLE
    assert f"CC {floor}" in outcome.message


def test_unknown_capability_is_unknown(matrix: Matrix) -> None:
    release = series(matrix, "2.21")
    outcome = gpu_runs_build(None, release.sass, release.ptx)
    assert outcome.status is Status.UNKNOWN
    assert not outcome.ok


def test_build_without_targets_runs_nothing() -> None:
    outcome = gpu_runs_build(cc("8.6"), [], [])
    assert outcome.status is Status.INCOMPATIBLE


# --- Python, wheels, OS ------------------------------------------------------------------------


def test_python_supported(matrix: Matrix) -> None:
    release = series(matrix, "2.10")  # facts 1.1: 3.7-3.10
    assert python_supported(release, PythonVersion(3, 10)).ok
    too_new = python_supported(release, PythonVersion(3, 12))
    assert too_new.status is Status.INCOMPATIBLE
    assert "too new" in too_new.message
    assert "3.7-3.10" in too_new.message
    too_old = python_supported(series(matrix, "2.21"), PythonVersion(3, 9))  # 2.21: 3.10-3.13
    assert too_old.status is Status.INCOMPATIBLE
    assert "too new" not in too_old.message


@pytest.mark.parametrize(
    ("version", "ok"),
    [("2.6.0", True), ("2.6.2", True), ("2.6.3", False), ("2.6.5", False), (None, False)],
)
def test_an_earlier_patch_has_wheels_for_a_python_the_newest_has_none_for(
    matrix: Matrix, version: str | None, ok: bool
) -> None:
    # Measured on the package index: tensorflow 2.6.0 to 2.6.2 have cp36 wheels, 2.6.3 to 2.6.5
    # none (a TensorFlow 2.6.0 image runs Python 3.6.9: tensorflow/tensorflow:2.6.0-gpu).
    release = series(matrix, "2.6")
    outcome = python_supported(
        release, PythonVersion(3, 6), None if version is None else Version(version)
    )
    assert outcome.ok is ok
    if not ok:
        assert f"TensorFlow {version or release.latest} " in outcome.message
        assert "3.7-3.9" in outcome.message


@pytest.mark.parametrize(
    ("name", "platform", "status"),
    [
        # facts 1.4: "TensorFlow 2.16 was the last TensorFlow release that supported macOS x86";
        # arm64 wheels from 2.13 (tensorflow.toml platforms, wheel-index source).
        ("2.16", "macos-x86_64", Status.OK),
        ("2.17", "macos-x86_64", Status.INCOMPATIBLE),
        ("2.13", "macos-arm64", Status.OK),
        ("2.12", "macos-arm64", Status.INCOMPATIBLE),
        ("2.21", "linux-aarch64", Status.OK),
        ("2.9", "linux-aarch64", Status.INCOMPATIBLE),
    ],
)
def test_platform_has_wheel(matrix: Matrix, name: str, platform: str, status: Status) -> None:
    outcome = platform_has_wheel(series(matrix, name), platform)
    assert outcome.status is status
    if status is Status.INCOMPATIBLE:
        assert platform in outcome.message


def test_gpu_build_available_per_os(matrix: Matrix) -> None:
    tf210, tf211 = series(matrix, "2.10"), series(matrix, "2.11")
    assert gpu_build_available(tf210, "windows", "x86_64").ok
    ended = gpu_build_available(tf211, "windows", "x86_64")
    assert ended.status is Status.INCOMPATIBLE
    # facts 1.3 / tf-docs-windows: "GPU support on native-Windows is only available for 2.10 or
    # earlier versions"; WSL2 counts as Linux.
    assert "2.10" in ended.message
    assert "WSL2" in ended.message
    assert gpu_build_available(tf211, "wsl", "x86_64").ok
    assert gpu_build_available(tf211, "linux", "x86_64").ok
    mac = gpu_build_available(series(matrix, "2.16"), "macos", "x86_64")
    assert mac.status is Status.INCOMPATIBLE
    assert "macOS" in mac.message
    arm = gpu_build_available(series(matrix, "2.21"), "linux", "aarch64")
    assert arm.status is Status.INCOMPATIBLE
    assert "CPU-only" in arm.message


def test_outcome_ok_only_for_ok() -> None:
    assert Outcome("x", Status.OK, "m").ok
    assert not Outcome("x", Status.UNKNOWN, "m").ok
    assert not Outcome("x", Status.INCOMPATIBLE, "m").ok


# --- driver branches per architecture -----------------------------------------------------------


def test_driver_branch_limit(matrix: Matrix) -> None:
    # driver_branches.toml: R470 is the last branch for Kepler (CC 3.5 is Kepler only).
    assert matrix.driver_available(cc("3.5"), drv("470.82.01"))
    assert not matrix.driver_available(cc("3.5"), drv("525.60.13"))
    assert matrix.driver_available(cc("8.6"), drv("580.65.06"))  # Ampere: no limit


# --- parsers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8.6", (8, 6)),
        ("86", (8, 6)),
        ("sm_86", (8, 6)),
        ("compute_90", (9, 0)),
        ("sm_120", (12, 0)),
        ("sm_90a", (9, 0)),
        ("SM_100", (10, 0)),
        (" 12.1 ", (12, 1)),
    ],
)
def test_compute_capability_parse(text: str, expected: tuple[int, int]) -> None:
    parsed = ComputeCapability.parse(text)
    assert (parsed.major, parsed.minor) == expected


@pytest.mark.parametrize("text", ["", "8", "8.66", "eight", "sm_", "8.6.1", "gfx90a"])
def test_compute_capability_parse_rejects(text: str) -> None:
    with pytest.raises(InputError):
        ComputeCapability.parse(text)


def test_compute_capability_orders_numerically() -> None:
    assert cc("12.0") > cc("9.0") > cc("8.9") > cc("8.6")
    assert str(cc("sm_120")) == "12.0"


def test_cuda_target_parse() -> None:
    sass, ptx = CudaTarget.parse("sm_86"), CudaTarget.parse("compute_90")
    assert (sass.kind, sass.capability) == ("sass", cc("8.6"))
    assert (ptx.kind, ptx.capability) == ("ptx", cc("9.0"))
    assert (str(sass), str(ptx)) == ("sm_86", "compute_90")
    with pytest.raises(InputError):
        CudaTarget.parse("lto_90")


def test_driver_version_orders_numerically_and_prints_as_given() -> None:
    # String comparison would put "535.86.10" after "535.104.05".
    assert drv("535.104.05") > drv("535.86.10")
    assert drv("450.80.02") < drv("450.80.10")
    assert drv("1000.0") > drv("999.99.99")
    assert str(drv("450.80.02")) == "450.80.02"  # packaging would print 450.80.2
    assert drv("450.80.02") == drv("450.80.2")
    assert hash(drv("450.80.02")) == hash(drv("450.80.2"))
    assert str(drv(" 535.104.05 ")) == "535.104.05"


@pytest.mark.parametrize("text", ["banana", "", "535.104.05a", "v535", "535..104"])
def test_driver_version_parse_rejects(text: str) -> None:
    with pytest.raises(InputError):
        DriverVersion.parse(text)


def test_python_version_parse() -> None:
    assert PythonVersion.parse("3.11") == PythonVersion(3, 11)
    assert PythonVersion.parse("3.11.4") == PythonVersion(3, 11)
    assert PythonVersion.parse("3.9") < PythonVersion.parse("3.10")  # numeric, not "3.9" > "3.10"
    assert str(PythonVersion.parse(" 3.12 ")) == "3.12"


@pytest.mark.parametrize("text", ["three", "3", "", "3.x", "python3.11"])
def test_python_version_parse_rejects(text: str) -> None:
    with pytest.raises(InputError, match=r"X\.Y"):
        PythonVersion.parse(text)
