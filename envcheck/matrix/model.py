"""The loaded matrix and every lookup derived from its rows.

`Matrix` holds the tuples of records exactly as loaded; the methods compute what other code asks
(the driver floor for a CUDA build, the libraries a build loads, the releases a specifier picks)
from those rows, so there is never a second hand-kept table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from envcheck.errors import InputError
from envcheck.matrix import load
from envcheck.matrix.advisories import KnownBug, load_known_bugs
from envcheck.matrix.records import (
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
from envcheck.record import record
from envcheck.versions import ComputeCapability, DriverVersion, major_minor, refuse_long_numbers

if TYPE_CHECKING:  # explain's tables: loaded by the properties that read them (not the doctor)
    from envcheck.matrix.error_codes import ErrorCodes
    from envcheck.matrix.signatures import LogFramework, Signature, SignatureFiles
    from envcheck.matrix.wheel_libraries import WheelLibraries
    from envcheck.matrix.wheel_platforms import WheelSpan


@record
class DriverRequirement:
    """The oldest driver that runs a CUDA build on one OS, and why that number."""

    minimum: DriverVersion
    reason: str  # e.g. "CUDA 12.x minor-version compatibility floor"
    toolkit_driver: DriverVersion | None  # the toolkit's own driver; PTX JIT needs at least this


@record
class Matrix:
    """Every row of the version matrix, plus the directory it was read from."""

    directory: Path
    releases: tuple[TensorflowRelease, ...]
    toolkits: tuple[CudaToolkit, ...]
    families: tuple[CudaFamily, ...]
    architectures: tuple[ArchitectureTargets, ...]
    cudnn_releases: tuple[CudnnRelease, ...]
    cudnn_majors: tuple[CudnnMajor, ...]
    library_sets: tuple[CudaLibrarySet, ...]
    driver_branches: tuple[DriverBranchLimit, ...]
    loaded_sources: dict[str, dict[str, Source]]  # file name -> source id -> source
    # The GPU table is read when first asked for: it is the largest file (half of the matrix's
    # load time), and a machine without a GPU (a Docker build, CI) never needs it.
    gpu_table: Callable[[], tuple[tuple[Gpu, ...], dict[str, Source]]] = field(
        repr=False, compare=False
    )

    @functools.cached_property
    def _gpu_rows(self) -> tuple[tuple[Gpu, ...], dict[str, Source]]:
        return self.gpu_table()

    @property
    def gpus(self) -> tuple[Gpu, ...]:
        return self._gpu_rows[0]

    @functools.cached_property
    def known_bugs(self) -> tuple[KnownBug, ...]:
        """known_bugs.toml, read when first asked for (the doctor, recommend, explain)."""
        return load_known_bugs(self.directory)

    @functools.cached_property
    def wheel_platforms(self) -> tuple[WheelSpan, ...]:
        """wheel_platforms.toml (where a package's wheels for a platform begin or end), read
        when first asked for: only explain's reading of pip's offered versions needs it."""
        from envcheck.matrix.wheel_platforms import load_wheel_platforms  # noqa: PLC0415

        return load_wheel_platforms(self.directory)

    @functools.cached_property
    def wheel_libraries(self) -> tuple[WheelLibraries, ...]:
        """wheel_libraries.toml (the nvidia-* distribution that ships each CUDA library), read
        when first asked for: only the doctor's fixes for a library a framework could not load
        need it."""
        from envcheck.matrix.wheel_libraries import load_wheel_libraries  # noqa: PLC0415

        return load_wheel_libraries(self.directory)

    @functools.cached_property
    def error_codes(self) -> ErrorCodes:
        """error_codes.toml (NVIDIA's result codes), read when first asked for."""
        from envcheck.matrix.error_codes import load_error_codes  # noqa: PLC0415

        return load_error_codes(self.directory)

    @functools.cached_property
    def signatures(self) -> tuple[Signature, ...]:
        """The known log messages (explain, the smoke test), read when first asked for: the
        log_signatures*.toml files, then one per mapped NVIDIA result code (error_codes.toml)."""
        from envcheck.matrix.error_codes import error_signatures  # noqa: PLC0415

        return self._signature_files.signatures + error_signatures(self.error_codes)

    @functools.cached_property
    def log_frameworks(self) -> dict[str, LogFramework]:
        """How explain's fixes name each framework a log can show ([[framework]] rows)."""
        return self._signature_files.frameworks

    @functools.cached_property
    def _signature_files(self) -> SignatureFiles:
        """The signature files, read once for the signatures and the [[framework]] rows."""
        from envcheck.matrix.signatures import load_signature_files  # noqa: PLC0415

        return load_signature_files(self.directory)

    # pytorch.toml and jax.toml are read when first asked for: only `recommend --framework`
    # and `matrix validate` need them, and a --matrix directory from before they existed
    # still serves every TensorFlow command.
    @functools.cached_property
    def _torch_rows(self) -> tuple[tuple[TorchBuild, ...], dict[str, Source]]:
        return load.load_pytorch(self.directory)

    @functools.cached_property
    def _jax_rows(self) -> tuple[tuple[JaxPlugin, ...], dict[str, Source]]:
        return load.load_jax(self.directory)

    @property
    def torch_builds(self) -> tuple[TorchBuild, ...]:
        return self._torch_rows[0]

    @property
    def jax_plugins(self) -> tuple[JaxPlugin, ...]:
        return self._jax_rows[0]

    @property
    def sources(self) -> dict[str, dict[str, Source]]:
        """Every file's sources (reads the GPU table, pytorch.toml and jax.toml)."""
        return {
            **self.loaded_sources,
            "gpus.toml": self._gpu_rows[1],
            "pytorch.toml": self._torch_rows[1],
            "jax.toml": self._jax_rows[1],
        }

    # --- TensorFlow -------------------------------------------------------------------------

    def releases_newest_first(self) -> tuple[TensorflowRelease, ...]:
        return tuple(sorted(self.releases, key=lambda r: r.latest, reverse=True))

    def releases_matching(self, spec: str | None) -> tuple[TensorflowRelease, ...]:
        """Releases with at least one patch version inside `spec`, newest first."""
        if spec is None:
            return self.releases_newest_first()
        specifier = tensorflow_specifier(spec)
        return tuple(
            r for r in self.releases_newest_first() if any(v in specifier for v in r.versions)
        )

    def release_for(self, version: Version) -> TensorflowRelease | None:
        """The series row a TensorFlow version belongs to (2.15.0 and 2.15.1 -> the 2.15 row)."""
        wanted = major_minor(version)
        for release in self.releases:
            if major_minor(release.latest) == wanted:
                return release
        return None

    # --- CUDA and drivers -------------------------------------------------------------------

    def toolkit(self, cuda: Version) -> CudaToolkit | None:
        """The toolkit row for `cuda`: exact for X.Y.Z, the first (GA) release for X.Y."""
        if len(cuda.release) >= 3:
            return next((t for t in self.toolkits if t.version == cuda), None)
        wanted = major_minor(cuda)
        same_minor = [t for t in self.toolkits if major_minor(t.version) == wanted]
        return min(same_minor, key=lambda t: t.version) if same_minor else None

    def family(self, major: int) -> CudaFamily | None:
        return next((f for f in self.families if f.major == major), None)

    def driver_requirement(self, cuda: Version, os_name: str) -> DriverRequirement | None:
        """The driver a program built with `cuda` needs on `os_name` (linux, windows, wsl).

        CUDA 11 and later run on any driver at or above their major's minor-version floor;
        earlier toolkits need their own driver. WSL uses the Windows driver, so its numbers.
        """
        windows = os_name in ("windows", "wsl")
        toolkit = self.toolkit(cuda)
        toolkit_driver = None
        if toolkit is not None:
            toolkit_driver = toolkit.windows_driver if windows else toolkit.linux_driver
        family = self.family(major_minor(cuda)[0])
        if family is not None and family.minor_version_compatibility:
            floor = family.windows_driver if windows else family.linux_driver
            if floor is not None:
                return DriverRequirement(
                    floor,
                    f"the CUDA {family.major}.x minor-version-compatibility floor",
                    toolkit_driver,
                )
        if toolkit is not None and toolkit_driver is not None:
            return DriverRequirement(toolkit_driver, f"the {toolkit.label} driver", toolkit_driver)
        return None

    def first_driver_for(
        self, capability: ComputeCapability, os_name: str
    ) -> tuple[CudaToolkit, DriverVersion] | None:
        """The first toolkit that can target `capability`, and its driver on `os_name`."""
        windows = os_name in ("windows", "wsl")
        since = [row.since for row in self.architectures if capability in row.capabilities]
        if not since:
            return None
        for toolkit in sorted(self.toolkits, key=lambda t: t.version):
            if toolkit.version < min(since):
                continue
            driver = toolkit.windows_driver if windows else toolkit.linux_driver
            if driver is not None:
                return toolkit, driver
        return None

    def targetable_capabilities(self, cuda: Version) -> tuple[ComputeCapability, ...]:
        """What nvcc of this toolkit can compile for (empty when the toolkit predates the data)."""
        rows = [row for row in self.architectures if row.since <= cuda]
        if not rows:
            return ()
        return max(rows, key=lambda row: row.since).capabilities

    # --- libraries --------------------------------------------------------------------------

    def cuda_libraries(self, cuda: Version) -> CudaLibrarySet | None:
        wanted = major_minor(cuda)
        for library_set in self.library_sets:
            if any(major_minor(v) == wanted for v in library_set.cuda):
                return library_set
        return None

    def cudnn_major(self, major: int) -> CudnnMajor | None:
        return next((m for m in self.cudnn_majors if m.major == major), None)

    def cudnn_libraries(self, cudnn_major: int, cuda_major: int) -> tuple[LibraryFile, ...]:
        """cuDNN's libraries with the wheel name filled in for this CUDA major (-cu11/-cu12)."""
        row = self.cudnn_major(cudnn_major)
        if row is None:
            return ()
        return tuple(
            replace(lib, wheel=lib.wheel.format(cuda_major=cuda_major) if lib.wheel else None)
            for lib in row.libraries
        )

    def cudnn_releases_for(self, cudnn: Version) -> tuple[CudnnRelease, ...]:
        """Release rows whose range covers any patch of `cudnn` (X.Y covers X.Y.*)."""
        wanted = major_minor(cudnn)
        return tuple(
            r for r in self.cudnn_releases if major_minor(r.first) <= wanted <= major_minor(r.last)
        )

    # --- GPUs ---------------------------------------------------------------------------------

    def architecture_of(self, capability: ComputeCapability) -> str | None:
        """The architecture of a compute capability, when the GPU table makes it unambiguous."""
        names = {g.architecture for g in self.gpus if g.compute_capability == capability}
        return next(iter(names)) if len(names) == 1 else None

    def last_driver_branch(self, capability: ComputeCapability) -> int | None:
        """The last driver branch NVIDIA ships for this GPU's architecture (None: still current)."""
        architecture = self.architecture_of(capability)
        limit = next((b for b in self.driver_branches if b.architecture == architecture), None)
        return limit.last_branch if limit is not None else None

    def driver_available(self, capability: ComputeCapability, driver: DriverVersion) -> bool:
        """False when `driver` is above the last branch NVIDIA ships for this GPU's architecture."""
        last = self.last_driver_branch(capability)
        return last is None or driver.key.release[0] <= last


def tensorflow_specifier(spec: str) -> SpecifierSet:
    """Read a --tensorflow value: '2.15' means any 2.15.x, '2.15.1' exactly, else PEP 440.

    A version with pre, post, dev or local parts ('2.15.0.post1', '2.16.0rc0') picks its base
    release (2.15.0): the matrix records each release's build, which those spellings share.
    """
    refuse_long_numbers(spec, "TensorFlow version")
    text = spec.strip()
    try:
        bare: Version | None = Version(text)
    except InvalidVersion:
        bare = None  # a specifier such as '>=2.12,<2.16', or nothing usable
    if bare is not None:
        epoch = f"{bare.epoch}!" if bare.epoch else ""
        release = epoch + ".".join(str(part) for part in bare.release)
        text = f"=={release}.*" if len(bare.release) <= 2 else f"=={release}"
    try:
        return SpecifierSet(text)
    except InvalidSpecifier as exc:
        raise InputError(
            f"TensorFlow version {spec!r} is neither a version (2.15, 2.15.1) "
            "nor a specifier ('>=2.12,<2.16')"
        ) from exc


def _already_read(
    rows: tuple[tuple[Gpu, ...], dict[str, Source]],
) -> tuple[tuple[Gpu, ...], dict[str, Source]]:
    return rows


def load_matrix(directory: Path, gpus_when_needed: bool = False) -> Matrix:
    """Read all data files of `directory`; raise MatrixDataError on the first bad row.

    `gpus_when_needed` defers the GPU table to its first use. Only for the bundled matrix,
    which the tests check row by row before it ships: a directory given with --matrix is read
    whole, so a broken file in it is reported whatever the command needs.
    """
    releases, tf_sources = load.load_tensorflow(directory)
    toolkits, families, driver_sources = load.load_cuda_drivers(directory)
    architectures, arch_sources = load.load_architectures(directory)
    cudnn_releases, cudnn_majors, cudnn_sources = load.load_cudnn(directory)
    library_sets, library_sources = load.load_libraries(directory)
    driver_branches, branch_sources = load.load_driver_branches(directory)
    gpu_table = functools.partial(load.load_gpus, directory)
    if not gpus_when_needed:
        gpu_table = functools.partial(_already_read, gpu_table())
    return Matrix(
        directory=directory,
        releases=releases,
        toolkits=toolkits,
        families=families,
        architectures=architectures,
        cudnn_releases=cudnn_releases,
        cudnn_majors=cudnn_majors,
        library_sets=library_sets,
        driver_branches=driver_branches,
        gpu_table=gpu_table,
        loaded_sources={
            "tensorflow.toml": tf_sources,
            "cuda_drivers.toml": driver_sources,
            "cuda_architectures.toml": arch_sources,
            "cudnn.toml": cudnn_sources,
            "libraries.toml": library_sources,
            "driver_branches.toml": branch_sources,
        },
    )
