"""Read the matrix data files (TOML) into records, strictly.

Every field is checked for presence and type, unknown fields are refused, and every row must
cite a source id that its file defines. A problem raises MatrixDataError naming the file, the
row and the field, so `envcheck matrix validate` can point a person at the line to fix.
Cross-file consistency (floors that must not decrease, references between files) is checked in
`envcheck.matrix.checks`, not here.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packaging.version import Version

from envcheck.errors import InputError
from envcheck.matrix import parsed_cache
from envcheck.matrix.records import (
    PLATFORMS,
    ArchitectureTargets,
    CudaFamily,
    CudaLibrarySet,
    CudaToolkit,
    CudnnMajor,
    CudnnRelease,
    DriverBranchLimit,
    Gpu,
    JaxPlugin,
    LibraryFile,
    Source,
    TensorflowRelease,
    TorchBuild,
)
from envcheck.matrix.rows import (
    MatrixDataError,
    Row,
    check_top_level,
    checked_against_toml,
    read_sources,
    read_toml,
    table_rows,
)
from envcheck.versions import (
    ComputeCapability,
    CudaTarget,
    PythonVersion,
    parse_numeric_version,
)

FILES = (
    "tensorflow.toml",
    "cuda_drivers.toml",
    "cuda_architectures.toml",
    "cudnn.toml",
    "libraries.toml",
    "gpus.toml",
    "driver_branches.toml",
    "log_signatures.toml",
    "log_signatures_frameworks.toml",
    "log_signatures_situations.toml",
    "known_bugs.toml",
    "error_codes.toml",
    "pytorch.toml",
    "jax.toml",
    "wheel_platforms.toml",
    "wheel_libraries.toml",
)


# Requirements this packaging found valid on an earlier run (kept in the parsed cache):
# importing packaging.requirements costs a sixth of explain's start-up, which never reads them.
_VALID_REQUIREMENTS: set[str] = set()


def _requirement(row: Row, key: str, text: str) -> str:
    if text in _VALID_REQUIREMENTS:
        return text
    # Imported here: only tensorflow.toml's pins need it.
    from packaging.requirements import InvalidRequirement, Requirement  # noqa: PLC0415

    try:
        Requirement(text)
    except InvalidRequirement as exc:
        raise MatrixDataError(f"{row.where}: field {key!r}: {text!r} is not a requirement") from exc
    return text


@checked_against_toml
def load_tensorflow(directory: Path) -> tuple[tuple[TensorflowRelease, ...], dict[str, Source]]:
    name = "tensorflow.toml"
    data = read_toml(directory, name)
    check_top_level(data, name, {"release"})
    sources = read_sources(data, name)
    pins = _requirements_content(data)
    recalled = parsed_cache.load(pins) == {"valid": True}
    if recalled:
        _VALID_REQUIREMENTS.update(_requirement_texts(data))
    releases = []
    for row in table_rows(data, name, "release", sources):
        versions = row.versions("versions")
        if list(versions) != sorted(versions):
            raise MatrixDataError(f"{row.where}: versions must be in ascending order")
        pythons = []
        for text in row.string_list("python"):
            try:
                pythons.append(PythonVersion.parse(text))
            except InputError as exc:
                raise MatrixDataError(f"{row.where}: field 'python': {exc}") from exc
        platforms = row.string_list("platforms")
        bad = [p for p in platforms if p not in PLATFORMS]
        if bad:
            raise MatrixDataError(
                f"{row.where}: field 'platforms': unknown {', '.join(bad)} "
                f"(known: {', '.join(PLATFORMS)})"
            )
        targets = []
        for text in row.string_list("cuda_targets", required=False):
            try:
                targets.append(CudaTarget.parse(text))
            except InputError as exc:
                raise MatrixDataError(f"{row.where}: field 'cuda_targets': {exc}") from exc
        releases.append(
            TensorflowRelease(
                versions=versions,
                gpu_package=row.string("gpu_package"),
                python=tuple(pythons),
                cuda=row.optional_version("cuda"),
                cudnn=row.optional_version("cudnn"),
                linux_gpu=row.boolean("linux_gpu"),
                windows_gpu=row.boolean("windows_gpu"),
                platforms=frozenset(platforms),
                cuda_targets=tuple(targets),
                and_cuda=tuple(
                    _requirement(row, "and_cuda", r)
                    for r in row.string_list("and_cuda", required=False)
                ),
                install_pins=tuple(
                    _requirement(row, "install_pins", r)
                    for r in row.string_list("install_pins", required=False)
                ),
                cuda_setup=row.string_list("cuda_setup", required=False),
                notes=row.string_list("notes", required=False),
                sources=row.sources(),
                python_until=_python_until(row, versions, pythons),
            )
        )
        row.done()
    if not recalled:
        parsed_cache.store(pins, {"valid": True})  # (every pin passed: an invalid one raised)
    return tuple(releases), sources


def _requirement_texts(data: Mapping[str, Any]) -> list[str]:
    """The requirements tensorflow.toml's rows name (each checked as its row is read)."""
    rows = data.get("release")
    texts: list[str] = []
    for table in rows if isinstance(rows, list) else ():
        for key in ("and_cuda", "install_pins"):
            named = table.get(key) if isinstance(table, dict) else None
            if isinstance(named, list):
                texts += [text for text in named if isinstance(text, str)]
    return texts


def _requirements_content(data: Mapping[str, Any]) -> bytes:
    """What names the cache entry that says these requirements passed this packaging."""
    import packaging  # noqa: PLC0415 (the package alone: its version)

    texts = sorted(set(_requirement_texts(data)))
    return "\n\0".join(["valid-requirements-1", packaging.__version__, *texts]).encode()


@checked_against_toml
def load_cuda_drivers(
    directory: Path,
) -> tuple[tuple[CudaToolkit, ...], tuple[CudaFamily, ...], dict[str, Source]]:
    name = "cuda_drivers.toml"
    data = read_toml(directory, name)
    check_top_level(data, name, {"toolkit", "family"})
    sources = read_sources(data, name)
    toolkits = []
    for row in table_rows(data, name, "toolkit", sources):
        toolkits.append(
            CudaToolkit(
                version=row.version("version"),
                label=row.string("label"),
                linux_driver=row.optional_driver("linux_driver"),
                windows_driver=row.optional_driver("windows_driver"),
                note=row.text("note"),
                sources=row.sources(),
            )
        )
        row.done()
    families = []
    for row in table_rows(data, name, "family", sources):
        note = row.text("note")
        windows_note = row.text("windows_driver_note")
        families.append(
            CudaFamily(
                major=row.integer("major"),
                linux_driver=row.driver("linux_driver"),
                windows_driver=row.optional_driver("windows_driver"),
                minor_version_compatibility=row.boolean("minor_version_compatibility"),
                note=" ".join(part for part in (note, windows_note) if part),
                sources=row.sources(),
            )
        )
        row.done()
    return tuple(toolkits), tuple(families), sources


@checked_against_toml
def load_architectures(
    directory: Path,
) -> tuple[tuple[ArchitectureTargets, ...], dict[str, Source]]:
    name = "cuda_architectures.toml"
    data = read_toml(directory, name)
    check_top_level(data, name, {"targets"})
    sources = read_sources(data, name)
    rows = []
    for row in table_rows(data, name, "targets", sources):
        capabilities = []
        for text in row.string_list("compute_capabilities"):
            try:
                capabilities.append(ComputeCapability.parse(text))
            except InputError as exc:
                raise MatrixDataError(f"{row.where}: {exc}") from exc
        rows.append(
            ArchitectureTargets(
                since=row.version("since"),
                capabilities=tuple(capabilities),
                note=row.text("note"),
                sources=row.sources(),
            )
        )
        row.done()
    return tuple(rows), sources


def _library(row: Row) -> LibraryFile:
    library = LibraryFile(
        role=row.string("role"),
        linux=row.optional_string("linux"),
        windows=row.optional_string("windows"),
        wheel=row.optional_string("wheel"),
        wheel_dir=row.optional_string("wheel_dir"),
        required=row.boolean("required"),
        loader=row.optional_string("loader"),
        fallback=row.optional_string("fallback"),
    )
    row.done()
    if library.linux is None and library.windows is None:
        raise MatrixDataError(f"{row.where}: needs a 'linux' or a 'windows' name")
    return library


def _libraries(row: Row, key: str, sources: Mapping[str, Source]) -> tuple[LibraryFile, ...]:
    return tuple(
        _library(Row(table, f"{row.where} {key} #{index}", sources))
        for index, table in enumerate(row.table_list(key), start=1)
    )


@checked_against_toml
def load_cudnn(
    directory: Path,
) -> tuple[tuple[CudnnRelease, ...], tuple[CudnnMajor, ...], dict[str, Source]]:
    name = "cudnn.toml"
    data = read_toml(directory, name)
    check_top_level(data, name, {"release", "major"})
    sources = read_sources(data, name)
    releases = []
    for row in table_rows(data, name, "release", sources):
        releases.append(
            CudnnRelease(
                first=row.version("first"),
                last=row.version("last"),
                cuda=row.versions("cuda"),
                note=row.text("note"),
                sources=row.sources(),
            )
        )
        row.done()
    majors = []
    for row in table_rows(data, name, "major", sources):
        majors.append(
            CudnnMajor(
                major=row.integer("major"),
                version_header=row.string("version_header"),
                version_multiplier=row.integer("version_multiplier"),
                sublibraries_beside_shim=row.boolean("sublibraries_beside_shim"),
                libraries=_libraries(row, "library", sources),
                windows_dependencies=row.string_list("windows_dependencies", required=False),
                note=row.text("note"),
                sources=row.sources(),
            )
        )
        row.done()
    return tuple(releases), tuple(majors), sources


@checked_against_toml
def load_libraries(directory: Path) -> tuple[tuple[CudaLibrarySet, ...], dict[str, Source]]:
    name = "libraries.toml"
    data = read_toml(directory, name)
    check_top_level(data, name, {"set"})
    sources = read_sources(data, name)
    sets = []
    for row in table_rows(data, name, "set", sources):
        sets.append(
            CudaLibrarySet(
                cuda=row.versions("cuda"),
                libraries=_libraries(row, "library", sources),
                note=row.text("note"),
                sources=row.sources(),
            )
        )
        row.done()
    return tuple(sets), sources


@checked_against_toml
def load_gpus(directory: Path) -> tuple[tuple[Gpu, ...], dict[str, Source]]:
    name = "gpus.toml"
    data = read_toml(directory, name)
    check_top_level(data, name, {"gpu"})
    sources = read_sources(data, name)
    gpus = []
    for row in table_rows(data, name, "gpu", sources):
        gpus.append(
            Gpu(
                name=row.string("name"),
                compute_capability=row.compute_capability("compute_capability"),
                architecture=row.string("architecture"),
                segment=row.string("segment"),
                aliases=row.string_list("aliases", required=False),
                note=row.text("note"),
                sources=row.sources(),
            )
        )
        row.done()
    return tuple(gpus), sources


@checked_against_toml
def load_driver_branches(
    directory: Path,
) -> tuple[tuple[DriverBranchLimit, ...], dict[str, Source]]:
    name = "driver_branches.toml"
    data = read_toml(directory, name)
    check_top_level(data, name, {"architecture"})
    sources = read_sources(data, name)
    limits = []
    for row in table_rows(data, name, "architecture", sources):
        limits.append(
            DriverBranchLimit(
                architecture=row.string("name"),
                last_branch=row.integer("last_branch"),
                note=row.text("note"),
                sources=row.sources(),
            )
        )
        row.done()
    return tuple(limits), sources


def bundled_matrix_dir() -> Path:
    """The matrix that ships inside the installed package (envcheck._matrix_data).

    Located through the import system's spec (its directory, which an editable install maps to
    the checkout's matrix/), not importlib.resources: that loads zipfile and its readers for a
    package that is always a directory.
    """
    spec = importlib.util.find_spec("envcheck._matrix_data")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise MatrixDataError("the bundled matrix package is missing; reinstall envcheck")
    path = Path(locations[0])
    if not (path / FILES[0]).is_file():
        raise MatrixDataError(f"the bundled matrix is missing from {path}; reinstall envcheck")
    return path


def matrix_dir(override: str | None = None) -> Path:
    """The directory to load: `override` (from --matrix), else ENVCHECK_MATRIX, else bundled."""
    chosen = override or os.environ.get("ENVCHECK_MATRIX") or None
    if chosen is None:
        return bundled_matrix_dir()
    path = Path(chosen).expanduser()
    if not path.is_dir():
        raise InputError(f"matrix directory {chosen!r} does not exist or is not a directory")
    return path


def _pythons(row: Row) -> tuple[PythonVersion, ...]:
    pythons = []
    for text in row.string_list("python"):
        try:
            pythons.append(PythonVersion.parse(text))
        except InputError as exc:
            raise MatrixDataError(f"{row.where}: field 'python': {exc}") from exc
    return tuple(pythons)


def _platform_list(row: Row, key: str) -> frozenset[str]:
    platforms = row.string_list(key, required=False)
    bad = [p for p in platforms if p not in PLATFORMS]
    if bad:
        raise MatrixDataError(
            f"{row.where}: field {key!r}: unknown {', '.join(bad)} (known: {', '.join(PLATFORMS)})"
        )
    return frozenset(platforms)


def _arch_list(row: Row) -> tuple[ComputeCapability, ...] | None:
    """`sm_XY` entries; absent reads as None (not known), which is not the same as empty."""
    texts = row.string_list("arch_list", required=False)
    if not texts:
        return None
    capabilities = []
    for text in texts:
        digits = text.removeprefix("sm_")
        if digits == text or not digits.isdigit() or len(digits) < 2:
            raise MatrixDataError(f"{row.where}: field 'arch_list': {text!r} is not sm_XY")
        capabilities.append(ComputeCapability(int(digits[:-1]), int(digits[-1])))
    return tuple(capabilities)


def _python_until(
    row: Row, versions: tuple[Version, ...], pythons: list[PythonVersion]
) -> tuple[tuple[PythonVersion, Version], ...]:
    """`python_until = { "3.6" = "2.6.2" }`: a Python the series' earlier patches have wheels
    for, up to that patch (one of `versions`, before the newest, which has none for it)."""
    result = []
    for key, value in row.optional_table("python_until").items():
        if not isinstance(value, str):
            raise row.error("python_until", f"{key}: expected a version string")
        try:
            python = PythonVersion.parse(key)
            last = parse_numeric_version(value, "version")
        except InputError as exc:
            raise row.error("python_until", str(exc)) from exc
        if last not in versions or last == versions[-1] or python in pythons:
            raise row.error(
                "python_until",
                f"{key} = {value!r}: expected an earlier patch of the series, for a Python the "
                "newest patch has no wheel for",
            )
        result.append((python, last))
    return tuple(sorted(result))


@checked_against_toml
def load_pytorch(directory: Path) -> tuple[tuple[TorchBuild, ...], dict[str, Source]]:
    name = "pytorch.toml"
    data = read_toml(directory, name)
    check_top_level(data, name, {"build"})
    sources = read_sources(data, name)
    builds = []
    for row in table_rows(data, name, "build", sources):
        versions = row.versions("versions")
        if list(versions) != sorted(versions):
            raise MatrixDataError(f"{row.where}: versions must be in ascending order")
        variant = row.string("variant")
        builds.append(
            TorchBuild(
                versions=versions,
                variant=variant,
                cuda=row.optional_version("cuda"),
                cudnn=row.optional_version("cudnn"),
                pypi_default=_platform_list(row, "pypi_default"),
                platforms=_platform_list(row, "platforms"),
                python=_pythons(row),
                arch_list=_arch_list(row),
                wheels=tuple(
                    _requirement(row, "wheels", r)
                    for r in row.string_list("wheels", required=False)
                ),
                note=row.text("note"),
                sources=row.sources(),
            )
        )
        row.done()
    return tuple(builds), sources


@checked_against_toml
def load_jax(directory: Path) -> tuple[tuple[JaxPlugin, ...], dict[str, Source]]:
    name = "jax.toml"
    data = read_toml(directory, name)
    check_top_level(data, name, {"plugin"})
    sources = read_sources(data, name)
    plugins = []
    for row in table_rows(data, name, "plugin", sources):
        plugins.append(
            JaxPlugin(
                jax=row.version("jax"),
                extra=row.string("extra"),
                plugin=row.string("plugin"),
                cuda_major=row.integer("cuda_major"),
                cudnn=_requirement(row, "cudnn", row.string("cudnn")),
                python=_pythons(row),
                with_cuda=tuple(
                    _requirement(row, "with_cuda", r) for r in row.string_list("with_cuda")
                ),
                sources=row.sources(),
            )
        )
        row.done()
    return tuple(plugins), sources
