"""Read the matrix data files (TOML) into records, strictly.

Every field is checked for presence and type, unknown fields are refused, and every row must
cite a source id that its file defines. A problem raises MatrixDataError naming the file, the
row and the field, so `envcheck matrix validate` can point a person at the line to fix.
Cross-file consistency (floors that must not decrease, references between files) is checked in
`envcheck.matrix.checks`, not here.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from packaging.version import Version

from envcheck.bounded_input import (
    TooDeepError,
    UnsuitableFileError,
    nested_deeper_than,
    read_regular_file,
)
from envcheck.errors import EnvcheckError, InputError
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
from envcheck.versions import (
    ComputeCapability,
    CudaTarget,
    DriverVersion,
    PythonVersion,
    parse_numeric_version,
)

SCHEMA = 1

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
    "known_bugs.toml",
    "error_codes.toml",
    "pytorch.toml",
    "jax.toml",
)


MAX_FILE_BYTES = 16 * 1024 * 1024  # the largest bundled file is ~120 KB
MAX_DEPTH = parsed_cache.MAX_DEPTH  # a matrix file nests 6 deep (log_signatures.toml)
T = TypeVar("T")


class MatrixDataError(EnvcheckError):
    """A matrix data file is missing, unreadable or does not follow the schema."""


class _Row:
    """One table of a data file, read field by field; `done()` refuses fields nobody read.

    The one row reader of every matrix file (log_signatures.toml too)."""

    def __init__(self, table: Any, where: str, sources: Mapping[str, Source]) -> None:
        if not isinstance(table, dict):
            raise MatrixDataError(f"{where}: expected a table, got {type(table).__name__}")
        self._table: dict[str, Any] = table
        self.where = where
        self._sources = sources
        self._read: set[str] = set()

    def error(self, key: str, message: str) -> MatrixDataError:
        return MatrixDataError(f"{self.where}: field {key!r}: {message}")

    def _get(self, key: str, required: bool) -> Any:
        self._read.add(key)
        if key not in self._table:
            if required:
                raise MatrixDataError(f"{self.where}: missing field {key!r}")
            return None
        return self._table[key]

    def string(self, key: str) -> str:
        value = self._get(key, required=True)
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, "expected a non-empty string")
        return value

    def optional_string(self, key: str) -> str | None:
        value = self._get(key, required=False)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, "expected a non-empty string")
        return value

    def text(self, key: str) -> str:
        """An optional free-text field such as `note`; absent reads as ''."""
        return self.optional_string(key) or ""

    def integer(self, key: str) -> int:
        value = self._get(key, required=True)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(key, "expected an integer")
        return value

    def boolean(self, key: str) -> bool:
        value = self._get(key, required=True)
        if not isinstance(value, bool):
            raise self.error(key, "expected true or false")
        return value

    def optional_boolean(self, key: str) -> bool | None:
        value = self._get(key, required=False)
        if value is not None and not isinstance(value, bool):
            raise self.error(key, "expected true or false")
        return value

    def string_list(self, key: str, required: bool = True) -> tuple[str, ...]:
        value = self._get(key, required=required)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(
            isinstance(item, str) and item.strip() for item in value
        ):
            raise self.error(key, "expected a list of non-empty strings")
        return tuple(value)

    def nested(self, table: Any, where: str) -> _Row:
        """A row for a table inside this one, citing the same file's sources."""
        return _Row(table, where, self._sources)

    def optional_table_list(self, key: str) -> list[Any]:
        """An array of tables that may be absent (read as empty)."""
        value = self._get(key, required=False)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(key, "expected an array of tables")
        return value

    def optional_table(self, key: str) -> dict[str, Any]:
        """A plain table (key = value pairs) that may be absent (read as empty)."""
        value = self._get(key, required=False)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error(key, "expected a table")
        return value

    def table_list(self, key: str) -> list[Any]:
        value = self._get(key, required=True)
        if not isinstance(value, list) or not value:
            raise self.error(key, "expected a non-empty array of tables")
        return value

    def version(self, key: str) -> Version:
        return self._as_version(key, self.string(key))

    def optional_version(self, key: str) -> Version | None:
        text = self.optional_string(key)
        return None if text is None else self._as_version(key, text)

    def _as_version(self, key: str, text: str) -> Version:
        try:
            return parse_numeric_version(text, "version")
        except InputError as exc:
            raise self.error(key, str(exc)) from exc

    def driver(self, key: str) -> DriverVersion:
        text = self.string(key)
        self._as_version(key, text)
        return DriverVersion(text)

    def optional_driver(self, key: str) -> DriverVersion | None:
        text = self.optional_string(key)
        if text is None:
            return None
        self._as_version(key, text)
        return DriverVersion(text)

    def versions(self, key: str) -> tuple[Version, ...]:
        return tuple(self._as_version(key, text) for text in self.string_list(key))

    def compute_capability(self, key: str) -> ComputeCapability:
        text = self.string(key)
        try:
            return ComputeCapability.parse(text)
        except InputError as exc:
            raise self.error(key, str(exc)) from exc

    def sources(self) -> tuple[str, ...]:
        value = self._get("source", required=True)
        ids = (value,) if isinstance(value, str) else value
        if (
            not isinstance(ids, (list, tuple))
            or not ids
            or not all(isinstance(i, str) for i in ids)
        ):
            raise self.error("source", "expected a source id or a non-empty list of them")
        unknown = [i for i in ids if i not in self._sources]
        if unknown:
            raise self.error("source", f"unknown source id(s) {', '.join(unknown)}")
        return tuple(ids)

    def done(self) -> None:
        unknown = sorted(set(self._table) - self._read)
        if unknown:
            raise MatrixDataError(f"{self.where}: unknown field(s) {', '.join(unknown)}")


def _tomllib() -> Any:
    """The TOML parser, imported when a file is not in the parsed cache (a tenth of explain's
    imports where it is; issue 22)."""
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415
    else:  # pragma: no cover - exercised on Python < 3.11 only
        import tomli as tomllib  # noqa: PLC0415
    return tomllib


def _read_toml(directory: Path, name: str) -> dict[str, Any]:
    path = directory / name
    try:
        content = read_regular_file(path, MAX_FILE_BYTES)
    except FileNotFoundError as exc:
        raise MatrixDataError(f"{path}: file is missing") from exc
    except UnsuitableFileError as exc:  # a FIFO, a device, a link to /dev/zero, a huge file
        raise MatrixDataError(f"{path}: {exc}") from None
    except OSError as exc:
        raise MatrixDataError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    data = parsed_cache.load(content)
    if data is None:
        tomllib = _tomllib()
        try:
            data = tomllib.loads(content.decode("utf-8"))
        except RecursionError:  # tomllib recurses into inline tables and arrays
            raise MatrixDataError(f"{path}: {TooDeepError(MAX_DEPTH)}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise MatrixDataError(f"{path}: cannot be read as TOML: {exc}") from exc
        if nested_deeper_than(data, MAX_DEPTH):  # 5,000 nested [a.a.a...] tables parse
            raise MatrixDataError(f"{path}: {TooDeepError(MAX_DEPTH)}")
        parsed_cache.store(content, data)
    schema = data.get("schema")
    if schema != SCHEMA:
        raise MatrixDataError(f"{path}: schema must be {SCHEMA}, found {schema!r}")
    return data


def checked_against_toml(loader: Callable[[Path], T]) -> Callable[[Path], T]:
    """`loader` (a file's rows from a directory), with a MatrixDataError found in a cached parse
    confirmed on the TOML itself: a cache entry that passed its own checks but not the rows'
    means "parse the file", never an error (or an answer) the file does not give."""

    @functools.wraps(loader)
    def load(directory: Path) -> T:
        if not parsed_cache.reading():
            return loader(directory)
        try:
            return loader(directory)
        except MatrixDataError:
            with parsed_cache.parsed_afresh():
                return loader(directory)

    return load


def _read_sources(data: Mapping[str, Any], name: str) -> dict[str, Source]:
    table = data.get("sources")
    if not isinstance(table, dict) or not table:
        raise MatrixDataError(f"{name}: missing [sources] table")
    sources: dict[str, Source] = {}
    for key, citation in table.items():
        if not isinstance(citation, str) or not citation.strip():
            raise MatrixDataError(f"{name}: [sources] {key!r} must be a non-empty citation")
        sources[key] = Source(key, citation)
    return sources


def _rows(
    data: Mapping[str, Any], name: str, key: str, sources: Mapping[str, Source]
) -> Iterator[_Row]:
    tables = data.get(key)
    if not isinstance(tables, list) or not tables:
        raise MatrixDataError(f"{name}: no [[{key}]] rows")
    for index, table in enumerate(tables, start=1):
        label = ""
        if isinstance(table, dict):
            hint = table.get("name") or table.get("version") or table.get("versions")
            if isinstance(hint, list) and hint:
                hint = hint[-1]
            label = f" ({hint})" if isinstance(hint, (str, int)) else ""
        yield _Row(table, f"{name}: [[{key}]] #{index}{label}", sources)


def _check_top_level(data: Mapping[str, Any], name: str, allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed - {"schema", "sources"})
    if unknown:
        raise MatrixDataError(f"{name}: unknown top-level key(s) {', '.join(unknown)}")


# Requirements this packaging found valid on an earlier run (kept in the parsed cache):
# importing packaging.requirements costs a sixth of explain's start-up, which never reads them.
_VALID_REQUIREMENTS: set[str] = set()


def _requirement(row: _Row, key: str, text: str) -> str:
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
    data = _read_toml(directory, name)
    _check_top_level(data, name, {"release"})
    sources = _read_sources(data, name)
    pins = _requirements_content(data)
    recalled = parsed_cache.load(pins) == {"valid": True}
    if recalled:
        _VALID_REQUIREMENTS.update(_requirement_texts(data))
    releases = []
    for row in _rows(data, name, "release", sources):
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
    data = _read_toml(directory, name)
    _check_top_level(data, name, {"toolkit", "family"})
    sources = _read_sources(data, name)
    toolkits = []
    for row in _rows(data, name, "toolkit", sources):
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
    for row in _rows(data, name, "family", sources):
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
    data = _read_toml(directory, name)
    _check_top_level(data, name, {"targets"})
    sources = _read_sources(data, name)
    rows = []
    for row in _rows(data, name, "targets", sources):
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


def _library(row: _Row) -> LibraryFile:
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


def _libraries(row: _Row, key: str, sources: Mapping[str, Source]) -> tuple[LibraryFile, ...]:
    return tuple(
        _library(_Row(table, f"{row.where} {key} #{index}", sources))
        for index, table in enumerate(row.table_list(key), start=1)
    )


@checked_against_toml
def load_cudnn(
    directory: Path,
) -> tuple[tuple[CudnnRelease, ...], tuple[CudnnMajor, ...], dict[str, Source]]:
    name = "cudnn.toml"
    data = _read_toml(directory, name)
    _check_top_level(data, name, {"release", "major"})
    sources = _read_sources(data, name)
    releases = []
    for row in _rows(data, name, "release", sources):
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
    for row in _rows(data, name, "major", sources):
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
    data = _read_toml(directory, name)
    _check_top_level(data, name, {"set"})
    sources = _read_sources(data, name)
    sets = []
    for row in _rows(data, name, "set", sources):
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
    data = _read_toml(directory, name)
    _check_top_level(data, name, {"gpu"})
    sources = _read_sources(data, name)
    gpus = []
    for row in _rows(data, name, "gpu", sources):
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
    data = _read_toml(directory, name)
    _check_top_level(data, name, {"architecture"})
    sources = _read_sources(data, name)
    limits = []
    for row in _rows(data, name, "architecture", sources):
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


def _pythons(row: _Row) -> tuple[PythonVersion, ...]:
    pythons = []
    for text in row.string_list("python"):
        try:
            pythons.append(PythonVersion.parse(text))
        except InputError as exc:
            raise MatrixDataError(f"{row.where}: field 'python': {exc}") from exc
    return tuple(pythons)


def _platform_list(row: _Row, key: str) -> frozenset[str]:
    platforms = row.string_list(key, required=False)
    bad = [p for p in platforms if p not in PLATFORMS]
    if bad:
        raise MatrixDataError(
            f"{row.where}: field {key!r}: unknown {', '.join(bad)} (known: {', '.join(PLATFORMS)})"
        )
    return frozenset(platforms)


def _arch_list(row: _Row) -> tuple[ComputeCapability, ...] | None:
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


@checked_against_toml
def load_pytorch(directory: Path) -> tuple[tuple[TorchBuild, ...], dict[str, Source]]:
    name = "pytorch.toml"
    data = _read_toml(directory, name)
    _check_top_level(data, name, {"build"})
    sources = _read_sources(data, name)
    builds = []
    for row in _rows(data, name, "build", sources):
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
    data = _read_toml(directory, name)
    _check_top_level(data, name, {"plugin"})
    sources = _read_sources(data, name)
    plugins = []
    for row in _rows(data, name, "plugin", sources):
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
