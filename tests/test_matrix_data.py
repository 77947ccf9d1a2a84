"""The bundled version matrix, tested row by row.

Every parametrized test names the row it is about, so a failure points at the line of the data
file to fix. Expected numbers come either from other rows of the matrix itself or from the
fact sheet docs/facts.md (section numbers are given next to each constant).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from envcheck.errors import InputError
from envcheck.matrix import load as load_module
from envcheck.matrix.gpu_names import GpuIndex, name_key
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.matrix.records import (
    CudaToolkit,
    CudnnMajor,
    CudnnRelease,
    Gpu,
    TensorflowRelease,
)
from envcheck.matrix.rules import Status, gpu_build_available
from envcheck.versions import ComputeCapability, DriverVersion, major_minor

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11 only
    import tomli as tomllib


@functools.cache
def _bundled() -> Matrix:
    return load_matrix(bundled_matrix_dir())


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    """The bundled matrix, read once for the whole module."""
    return _bundled()


# Parametrization needs the rows at collection time; this is the same cached object the
# fixture returns, so the data files are read once.
RELEASES = _bundled().releases
GPU_RELEASES = tuple(r for r in RELEASES if r.has_gpu_build)
TOOLKITS = _bundled().toolkits
CUDNN_RELEASES = _bundled().cudnn_releases
CUDNN_MAJORS = _bundled().cudnn_majors
GPUS = _bundled().gpus


def _release_id(release: TensorflowRelease) -> str:
    return f"tf-{release.series}"


def _series(release: TensorflowRelease) -> tuple[int, int]:
    return major_minor(release.latest)


def _release(matrix: Matrix, series: str) -> TensorflowRelease:
    release = matrix.release_for(Version(series))
    assert release is not None, f"the matrix has no TensorFlow {series} row"
    return release


def _raw(name: str) -> dict[str, Any]:
    with (bundled_matrix_dir() / name).open("rb") as handle:
        return tomllib.load(handle)


# --- TensorFlow releases: one row at a time ------------------------------------------------


@pytest.mark.parametrize("release", RELEASES, ids=_release_id)
def test_release_sources_exist(matrix: Matrix, release: TensorflowRelease) -> None:
    known = matrix.sources["tensorflow.toml"]
    assert release.sources, f"TensorFlow {release.series}: no source cited"
    unknown = [s for s in release.sources if s not in known]
    assert not unknown, f"TensorFlow {release.series}: unknown source id(s) {unknown}"
    for source in release.sources:
        assert known[source].citation.strip(), f"source {source!r} has an empty citation"


@pytest.mark.parametrize("release", RELEASES, ids=_release_id)
def test_release_versions_are_one_series_ascending(release: TensorflowRelease) -> None:
    versions = list(release.versions)
    assert versions, f"TensorFlow {release.series}: no versions"
    series = {major_minor(v) for v in versions}
    assert len(series) == 1, f"TensorFlow {release.series}: versions of several series {versions}"
    assert versions == sorted(set(versions)), (
        f"TensorFlow {release.series}: versions not strictly ascending: {versions}"
    )


@pytest.mark.parametrize("release", RELEASES, ids=_release_id)
def test_release_versions_are_in_no_other_row(matrix: Matrix, release: TensorflowRelease) -> None:
    others = [r for r in matrix.releases if r is not release]
    for version in release.versions:
        holders = [r.series for r in others if version in r.versions]
        assert not holders, f"TensorFlow {version} is in row {release.series} and in {holders}"
    same_series = [r for r in others if r.series == release.series]
    assert not same_series, f"series {release.series} has more than one row"


@pytest.mark.parametrize("release", RELEASES, ids=_release_id)
def test_release_python_is_ascending(release: TensorflowRelease) -> None:
    pythons = list(release.python)
    assert pythons, f"TensorFlow {release.series}: no Python versions"
    assert pythons == sorted(set(pythons)), (
        f"TensorFlow {release.series}: python not strictly ascending: {[str(p) for p in pythons]}"
    )


@pytest.mark.parametrize("release", RELEASES, ids=_release_id)
def test_gpu_release_cuda_has_toolkit_drivers_and_libraries(
    matrix: Matrix, release: TensorflowRelease
) -> None:
    name = f"TensorFlow {release.series}"
    if release.cuda is None or release.cudnn is None:
        # A CPU-only row must not claim a GPU build anywhere.
        assert not release.linux_gpu, f"{name}: linux_gpu without cuda"
        assert not release.windows_gpu, f"{name}: windows_gpu without cuda"
        return
    assert release.linux_gpu or release.windows_gpu, f"{name}: cuda given but no GPU platform"
    assert matrix.toolkit(release.cuda) is not None, (
        f"{name}: CUDA {release.cuda} has no [[toolkit]] row in cuda_drivers.toml"
    )
    assert matrix.driver_requirement(release.cuda, "linux") is not None, (
        f"{name}: no Linux driver requirement for CUDA {release.cuda}"
    )
    if release.windows_gpu:
        assert matrix.driver_requirement(release.cuda, "windows") is not None, (
            f"{name}: native Windows GPU build but no Windows driver requirement for CUDA "
            f"{release.cuda}"
        )
    assert matrix.cuda_libraries(release.cuda) is not None, (
        f"{name}: CUDA {release.cuda} has no [[set]] in libraries.toml"
    )
    cudnn_major = release.cudnn.release[0]
    assert matrix.cudnn_major(cudnn_major) is not None, (
        f"{name}: cuDNN major {cudnn_major} has no [[major]] row in cudnn.toml"
    )


@pytest.mark.parametrize("release", RELEASES, ids=_release_id)
def test_native_windows_gpu_only_up_to_2_10(release: TensorflowRelease) -> None:
    # docs/facts.md 1.3: "GPU support on native-Windows is only available for 2.10 or earlier
    # versions, starting in TF 2.11, CUDA build is not supported for Windows"; the Windows GPU
    # table lists every release from 2.1.0 to 2.10.0.
    name = f"TensorFlow {release.series}"
    if release.windows_gpu:
        assert _series(release) <= (2, 10), f"{name}: windows_gpu after 2.10"
    if (2, 1) <= _series(release) <= (2, 10):
        assert release.windows_gpu, f"{name}: 2.1-2.10 had native Windows GPU builds"
    outcome = gpu_build_available(release, "windows", "x86_64")
    assert outcome.ok == release.windows_gpu, f"{name}: rules disagree with windows_gpu"


def test_the_model_has_no_macos_gpu_flag() -> None:
    # docs/facts.md 1.4: "There is *no* GPU support for macOS"; the record therefore has GPU
    # flags only for Linux and Windows.
    gpu_fields = sorted(f.name for f in dataclasses.fields(TensorflowRelease) if "gpu" in f.name)
    assert gpu_fields == ["gpu_package", "linux_gpu", "windows_gpu"]
    assert any(p.startswith("macos") for r in RELEASES for p in r.platforms), (
        "no release has a macOS wheel, so the macOS checks below test nothing"
    )


@pytest.mark.parametrize("arch", ["x86_64", "arm64"])
@pytest.mark.parametrize("release", RELEASES, ids=_release_id)
def test_macos_never_gets_a_gpu_build(release: TensorflowRelease, arch: str) -> None:
    outcome = gpu_build_available(release, "macos", arch)
    assert outcome.status is Status.INCOMPATIBLE, (
        f"TensorFlow {release.series} on macOS {arch}: {outcome.status} ({outcome.message})"
    )


@pytest.mark.parametrize("release", RELEASES, ids=_release_id)
def test_and_cuda_extra_exactly_from_2_14(release: TensorflowRelease) -> None:
    # docs/facts.md 1.2: the `and-cuda` extra first appears in 2.14.0.
    name = f"TensorFlow {release.series}"
    assert bool(release.and_cuda) == (_series(release) >= (2, 14)), (
        f"{name}: and_cuda is {'set' if release.and_cuda else 'empty'}"
    )
    if not release.and_cuda:
        return
    assert release.cuda is not None
    assert release.cudnn is not None
    suffix = f"-cu{release.cuda.release[0]}"
    for text in release.and_cuda:
        requirement = Requirement(text)
        if requirement.name.startswith("nvidia-"):
            assert requirement.name.endswith(suffix), (
                f"{name}: {text} is not a {suffix} wheel for CUDA {release.cuda}"
            )
        if requirement.name.startswith("nvidia-cudnn-"):
            # The pinned cuDNN wheel must be of the major the build was compiled with.
            majors = {Version(s.version).release[0] for s in requirement.specifier}
            assert release.cudnn.release[0] in majors, (
                f"{name}: {text} does not pin cuDNN {release.cudnn.release[0]}.x"
            )


@pytest.mark.parametrize("release", GPU_RELEASES, ids=_release_id)
def test_release_targets_are_compilable_by_its_cuda(
    matrix: Matrix, release: TensorflowRelease
) -> None:
    assert release.cuda is not None
    name = f"TensorFlow {release.series}"
    assert release.cuda_targets, f"{name}: GPU build without cuda_targets"
    targetable = set(matrix.targetable_capabilities(release.cuda))
    assert targetable, f"{name}: cuda_architectures.toml has no row for CUDA {release.cuda}"
    for kind, capabilities in (("SASS", release.sass), ("PTX", release.ptx)):
        for capability in capabilities:
            assert capability in targetable, (
                f"{name}: {kind} target {capability} cannot be compiled by CUDA {release.cuda}"
            )


# --- CUDA toolkits and driver floors ---------------------------------------------------------


@pytest.mark.parametrize("attribute", ["linux_driver", "windows_driver"])
def test_toolkit_drivers_never_decrease_as_cuda_rises(attribute: str) -> None:
    ordered = sorted(TOOLKITS, key=lambda t: t.version)
    previous: CudaToolkit | None = None
    for toolkit in ordered:
        driver = getattr(toolkit, attribute)
        if driver is None:
            continue
        if previous is not None:
            before = getattr(previous, attribute)
            assert driver >= before, (
                f"{attribute} falls from {before} (CUDA {previous.version}) to {driver} "
                f"(CUDA {toolkit.version})"
            )
        previous = toolkit


def test_toolkit_versions_are_unique() -> None:
    versions = [t.version for t in TOOLKITS]
    assert len(versions) == len(set(versions)), "a CUDA version has two [[toolkit]] rows"


@pytest.mark.parametrize(
    ("major", "linux", "windows"),
    [
        # docs/facts.md 2.2: NVIDIA's minor-version-compatibility floors.
        (11, "450.80.02", "452.39"),
        (12, "525.60.13", "527.41"),
        (13, "580.65.06", None),  # Linux only: the Windows 13.x toolkits bundle no driver
    ],
)
def test_family_floor_is_nvidias_exact_value(
    matrix: Matrix, major: int, linux: str, windows: str | None
) -> None:
    family = matrix.family(major)
    assert family is not None, f"no [[family]] row for CUDA {major}.x"
    assert family.minor_version_compatibility, f"CUDA {major}.x has minor-version compatibility"
    # Compare the strings: NVIDIA's spelling (450.80.02) is what a person looks up.
    assert str(family.linux_driver) == linux
    assert (str(family.windows_driver) if family.windows_driver else None) == windows


def _raw_driver_texts() -> list[Any]:
    """(row, text in the TOML file, loaded DriverVersion) for every driver field."""
    raw = _raw("cuda_drivers.toml")
    matrix = _bundled()
    assert len(raw["toolkit"]) == len(matrix.toolkits)
    assert len(raw["family"]) == len(matrix.families)
    params = []
    rows = [
        *((f"toolkit {t['version']}", t, r) for t, r in zip(raw["toolkit"], matrix.toolkits)),
        *((f"family {t['major']}", t, r) for t, r in zip(raw["family"], matrix.families)),
    ]
    for label, table, record in rows:
        for key in ("linux_driver", "windows_driver"):
            if key in table:
                where = f"{label} {key}"
                params.append(pytest.param(where, table[key], getattr(record, key), id=where))
    return params


@pytest.mark.parametrize(("where", "text", "driver"), _raw_driver_texts())
def test_driver_keeps_nvidias_spelling(where: str, text: str, driver: DriverVersion | None) -> None:
    assert driver is not None, f"{where}: {text!r} was not loaded"
    assert str(driver) == text, f"{where}: printed as {driver}, the file says {text}"


def test_driver_spelling_and_numeric_order() -> None:
    # packaging would print 450.80.02 as 450.80.2 (versions.py docstring).
    assert str(DriverVersion.parse("450.80.02")) == "450.80.02"
    assert str(Version("450.80.02")) == "450.80.2"
    # Compared as numbers, not text: 535.104.05 (CUDA 12.2 Update 2) is newer than 535.86.09
    # (12.2 Update 1), although "104" < "86" as strings (docs/facts.md 2.1).
    assert DriverVersion.parse("535.104.05") > DriverVersion.parse("535.86.09")
    assert DriverVersion.parse("450.80.02") == DriverVersion.parse("450.80.2")


# --- cuDNN ---------------------------------------------------------------------------------


@pytest.mark.parametrize("release", CUDNN_RELEASES, ids=lambda r: f"cudnn-{r.first}-{r.last}")
def test_cudnn_release_cuda_versions_have_toolkit_rows(
    matrix: Matrix, release: CudnnRelease
) -> None:
    assert release.first <= release.last, f"cuDNN {release.first}-{release.last}: reversed"
    assert release.cuda, f"cuDNN {release.first}-{release.last}: no CUDA versions"
    for cuda in release.cuda:
        assert matrix.toolkit(cuda) is not None, (
            f"cuDNN {release.first}-{release.last}: CUDA {cuda} has no [[toolkit]] row"
        )


@pytest.mark.parametrize("row", CUDNN_MAJORS, ids=lambda m: f"cudnn-major-{m.major}")
def test_cudnn_library_names_carry_the_major(row: CudnnMajor) -> None:
    # Sonames end in .so.<major>, DLLs in 64_<major>.dll (docs/facts.md 4.2/4.3, 5.2).
    assert row.libraries, f"cuDNN {row.major}: no libraries"
    assert row.libraries[0].role == "cudnn", f"cuDNN {row.major}: the shim must come first"
    for lib in row.libraries:
        if lib.linux is not None:
            assert lib.linux.endswith(f".so.{row.major}"), f"cuDNN {row.major}: {lib.linux}"
        if lib.windows is not None:
            assert lib.windows.endswith(f"64_{row.major}.dll"), f"cuDNN {row.major}: {lib.windows}"


# --- GPUs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("gpu", GPUS, ids=lambda g: g.name)
def test_gpu_capability_is_targetable_by_some_toolkit(matrix: Matrix, gpu: Gpu) -> None:
    builders = [
        t.version
        for t in matrix.toolkits
        if gpu.compute_capability in matrix.targetable_capabilities(t.version)
    ]
    assert builders, (
        f"{gpu.name}: compute capability {gpu.compute_capability} is not a target of any toolkit"
    )


def test_no_two_gpu_rows_share_a_name_key() -> None:
    # Keyed by row position, not by name: two rows with the very same name are a clash too.
    owners: dict[str, set[int]] = defaultdict(set)
    for index, gpu in enumerate(GPUS):
        for spelling in (gpu.name, *gpu.aliases):
            owners[name_key(spelling)].add(index)
    clashes = {
        key: sorted(GPUS[i].name for i in rows) for key, rows in owners.items() if len(rows) > 1
    }
    assert not clashes, f"GPU rows that read the same: {clashes}"


@pytest.mark.parametrize(
    ("query", "capability"),
    [
        # docs/facts.md 3.3 (NVIDIA's CUDA GPUs pages): 8.6 RTX 30, 9.0 H100, 7.0 V100,
        # 6.1 GTX 10, 8.9 RTX 40, 12.0 RTX 50, 8.0 A100, 7.5 T4, 3.7 K80.
        ("RTX 3060", "8.6"),
        ("NVIDIA GeForce RTX 3060 Laptop GPU", "8.6"),
        ("H100 80GB HBM3", "9.0"),
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("GTX 1080 Ti", "6.1"),
        ("RTX 4090", "8.9"),
        ("RTX 5090", "12.0"),
        ("A100-SXM4-40GB", "8.0"),
        ("Tesla T4", "7.5"),
        ("Tesla K80", "3.7"),
    ],
)
def test_well_known_gpu_names_resolve(matrix: Matrix, query: str, capability: str) -> None:
    gpu = GpuIndex.build(matrix.gpus).find(query)
    assert gpu.compute_capability == ComputeCapability.parse(capability), (
        f"{query!r} resolved to {gpu.name} with CC {gpu.compute_capability}"
    )


def test_unknown_gpu_name_lists_close_names(matrix: Matrix) -> None:
    index = GpuIndex.build(matrix.gpus)
    with pytest.raises(InputError, match="not in the GPU table") as caught:
        index.find("RTX 9999")
    match = re.search(r"Closest known names: (.+?)\.", str(caught.value))
    assert match is not None, f"no suggestions in: {caught.value}"
    suggested = [s.strip() for s in match.group(1).split(",")]
    row_names = {g.name for g in matrix.gpus}
    assert suggested
    assert set(suggested) <= row_names, f"suggestions that are no GPU row: {suggested}"
    assert all("RTX" in s for s in suggested), f"suggestions unlike 'RTX 9999': {suggested}"


def test_ambiguous_gpu_name_is_refused(matrix: Matrix) -> None:
    # "RTX 5000" is the Turing Quadro RTX 5000 (7.5) or the RTX 5000 Ada (8.9), docs/facts.md 3.3.
    names = {g.name for g in matrix.gpus}
    candidates = {"Quadro RTX 5000", "RTX 5000 Ada Generation"}
    assert candidates <= names, "the data no longer has both RTX 5000 models"
    with pytest.raises(InputError, match="ambiguous") as caught:
        GpuIndex.build(matrix.gpus).find("RTX 5000")
    for name in candidates:
        assert name in str(caught.value)


# --- spot checks against the reference ------------------------------------------------------


@pytest.mark.parametrize(
    ("series", "cuda", "cudnn", "python", "windows_gpu"),
    [
        # docs/facts.md 1.1 (Linux GPU table), 1.2 (wheel build_info: the exact CUDA from 2.18 on;
        # 2.21's 12.5.1 from docs/facts.md section 8) and 1.3 (Windows GPU table).
        # python is (first, last) of the docs row; None where the row's newest patch dropped an
        # interpreter the .0 release had (the data lists the newest patch's wheels).
        ("2.21", "12.5.1", "9.3", ("3.10", "3.13"), False),
        ("2.20", "12.5.1", "9.3", ("3.9", "3.13"), False),
        ("2.18", "12.5.1", "9.3", ("3.9", "3.12"), False),
        ("2.17", "12.3", "8.9", ("3.9", "3.12"), False),
        ("2.16", "12.3", "8.9", ("3.9", "3.12"), False),
        ("2.15", "12.2", "8.9", ("3.9", "3.11"), False),
        ("2.14", "11.8", "8.7", ("3.9", "3.11"), False),
        ("2.12", "11.8", "8.6", ("3.8", "3.11"), False),
        ("2.10", "11.2", "8.1", ("3.7", "3.10"), True),
        ("2.8", "11.2", "8.1", ("3.7", "3.10"), True),
        ("2.4", "11.0", "8.0", ("3.6", "3.8"), True),
        ("2.3", "10.1", "7.6", None, True),
        ("2.0", "10.0", "7.4", None, True),
    ],
)
def test_reference_release_rows(
    matrix: Matrix,
    series: str,
    cuda: str,
    cudnn: str,
    python: tuple[str, str] | None,
    windows_gpu: bool,
) -> None:
    release = _release(matrix, series)
    assert release.cuda == Version(cuda)
    assert release.cudnn == Version(cudnn)
    assert release.linux_gpu
    assert release.windows_gpu is windows_gpu
    if python is not None:
        assert (str(release.python[0]), str(release.python[-1])) == python


@pytest.mark.parametrize(
    ("series", "targets"),
    [
        # docs/facts.md 1.2 / 3.2 (build_info cuda_compute_capabilities of the wheels).
        ("2.3", "sm_35,sm_37,sm_52,sm_60,sm_61,compute_70"),
        ("2.4", "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80"),
        ("2.14", "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80"),
        ("2.15", "sm_50,sm_60,sm_70,sm_75,compute_80"),
        ("2.16", "sm_50,sm_60,sm_70,sm_80,compute_90"),
        ("2.20", "sm_60,sm_70,sm_80,sm_89,compute_90"),
        # docs/facts.md section 8 (build_info of the 2.21.0 wheel).
        ("2.21", "sm_60,sm_70,sm_80,sm_89,compute_90"),
    ],
)
def test_reference_cuda_targets(matrix: Matrix, series: str, targets: str) -> None:
    release = _release(matrix, series)
    assert ",".join(str(t) for t in release.cuda_targets) == targets


@pytest.mark.parametrize(
    ("cuda", "linux", "windows"),
    [
        # docs/facts.md 2.1 (NVIDIA Table 3, toolkit driver versions).
        ("12.2.2", "535.104.05", "537.13"),
        ("12.2", "535.54.03", "536.25"),  # X.Y means the GA release
        ("12.0.0", "525.60.13", "527.41"),
        ("12.5.1", "555.42.06", "555.85"),
        ("12.8.0", "570.26", "570.65"),
        ("11.8.0", "520.61.05", "520.06"),
        ("11.2.0", "460.27.03", "460.82"),
        ("11.0.2", "450.51.05", "451.48"),
        ("10.1", "418.39", "418.96"),
        ("10.0.130", "410.48", "411.31"),
        ("13.0.0", "580.65.06", None),  # "N/A" for Windows 13.x
    ],
)
def test_reference_toolkit_drivers(
    matrix: Matrix, cuda: str, linux: str, windows: str | None
) -> None:
    toolkit = matrix.toolkit(Version(cuda))
    assert toolkit is not None, f"no [[toolkit]] row for CUDA {cuda}"
    assert str(toolkit.linux_driver) == linux
    assert (str(toolkit.windows_driver) if toolkit.windows_driver else None) == windows


def test_cuda_12_7_does_not_exist(matrix: Matrix) -> None:
    # docs/facts.md 2.1: CUDA 12.7 does not exist (12.6 -> 12.8).
    assert matrix.toolkit(Version("12.7")) is None
    assert matrix.toolkit(Version("12.6")) is not None
    assert matrix.toolkit(Version("12.8")) is not None


# docs/facts.md 2.3 (driver floor per CUDA a TensorFlow build uses): CUDA 10.x needs its own
# toolkit driver, 11.x and 12.x the minor-version-compatibility floors of 2.2. For 12.x on
# Windows the reference gives 527.41 (12.0-12.3-era notes) or 528.33 (12.4+-era notes).
_FLOORS: dict[tuple[int, int] | int, tuple[str, set[str]]] = {
    (10, 0): ("410.48", {"411.31"}),
    (10, 1): ("418.39", {"418.96"}),
    11: ("450.80.02", {"452.39"}),
    12: ("525.60.13", {"527.41", "528.33"}),
}


@pytest.mark.parametrize("release", GPU_RELEASES, ids=_release_id)
def test_reference_driver_floor_per_release(matrix: Matrix, release: TensorflowRelease) -> None:
    assert release.cuda is not None
    key: tuple[int, int] | int = major_minor(release.cuda)
    if key not in _FLOORS:
        key = release.cuda.release[0]
    assert key in _FLOORS, f"TensorFlow {release.series}: CUDA {release.cuda} not in the reference"
    linux, windows = _FLOORS[key]
    linux_req = matrix.driver_requirement(release.cuda, "linux")
    windows_req = matrix.driver_requirement(release.cuda, "windows")
    assert linux_req is not None
    assert windows_req is not None
    assert str(linux_req.minimum) == linux, f"TensorFlow {release.series} (CUDA {release.cuda})"
    assert str(windows_req.minimum) in windows, f"TensorFlow {release.series} (CUDA {release.cuda})"


def test_the_bundled_gpu_table_is_read_only_when_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Half of the matrix's load time, and a machine without a GPU never needs it.
    calls: list[Path] = []
    real = load_module.load_gpus

    def counted(directory: Path) -> Any:
        calls.append(directory)
        return real(directory)

    monkeypatch.setattr(load_module, "load_gpus", counted)
    lazy = load_matrix(bundled_matrix_dir(), gpus_when_needed=True)
    assert calls == []
    assert lazy.gpus and calls == [bundled_matrix_dir()]
    assert lazy.gpus and len(calls) == 1  # read once
    eager = load_matrix(bundled_matrix_dir())
    assert len(calls) == 2 and eager.gpus == lazy.gpus
