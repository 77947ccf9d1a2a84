"""Frozen records for the rows of the version matrix (one class per kind of row).

The records hold exactly what the data files say, already parsed into typed values; every
lookup across them is derived in `envcheck.matrix.model`. Nothing here reads files.
"""

from __future__ import annotations

from packaging.version import Version

from envcheck.record import record
from envcheck.versions import (
    ComputeCapability,
    CudaTarget,
    DriverVersion,
    PythonVersion,
    major_minor,
)

# Platform names used by the matrix for wheel availability; `envcheck recommend --os/--arch`
# maps onto these.
PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-x86_64", "macos-arm64")


@record
class Source:
    """Where a fact came from: an id used by rows, and the citation a person can follow."""

    id: str
    citation: str


@record
class TensorflowRelease:
    """One TensorFlow minor series (e.g. 2.15) as built by the TensorFlow team."""

    versions: tuple[Version, ...]  # every final patch release of the series, ascending
    gpu_package: str  # the PyPI project that carries CUDA: "tensorflow-gpu" up to 2.0
    python: tuple[PythonVersion, ...]  # interpreters the newest patch has wheels for
    cuda: Version | None  # CUDA the official GPU build was compiled with
    cudnn: Version | None  # cuDNN major.minor it was compiled with
    linux_gpu: bool
    windows_gpu: bool  # native Windows; WSL2 counts as Linux
    platforms: frozenset[str]  # where `pip install tensorflow==X` finds a wheel
    cuda_targets: tuple[CudaTarget, ...]
    and_cuda: tuple[str, ...]  # requirements of the `and-cuda` extra (2.14+)
    install_pins: tuple[str, ...]  # extra requirements a working install needs
    cuda_setup: tuple[str, ...]  # commands that provide CUDA/cuDNN where no and-cuda extra does
    notes: tuple[str, ...]
    sources: tuple[str, ...]
    # Interpreters only earlier patches have wheels for -> the last patch that has one (2.6.0 to
    # 2.6.2 for Python 3.6): an installed 2.6.0 on 3.6 is fine though 2.6.5 has no such wheel.
    python_until: tuple[tuple[PythonVersion, Version], ...] = ()

    @property
    def latest(self) -> Version:
        return self.versions[-1]

    def pythons_of(self, version: Version | None) -> tuple[PythonVersion, ...]:
        """The interpreters patch `version` has wheels for (the newest patch's for None)."""
        if version is None:
            return self.python
        earlier = (python for python, last in self.python_until if version <= last)
        return tuple(sorted({*self.python, *earlier}))

    @property
    def series(self) -> str:
        major, minor = major_minor(self.latest)
        return f"{major}.{minor}"

    @property
    def has_gpu_build(self) -> bool:
        return self.cuda is not None

    @property
    def sass(self) -> tuple[ComputeCapability, ...]:
        """Native code of the regular CUDA kernels: `sm_XY`, and `compute_XY` too.

        TensorFlow's configure: "compute_xy to include both virtual and binary GPU code, or as
        sm_xy to only include the binary code" (the 2.16.1 wheel's fatbins hold sm_90 SASS for
        its compute_90 entry).
        """
        return tuple(t.capability for t in self.cuda_targets)

    @property
    def mlir_sass(self) -> tuple[ComputeCapability, ...]:
        """Native code of the MLIR-generated kernels: only the `sm_XY` entries.

        The kernel generator stores PTX alone for a compute_ entry (gpu_kernel_to_blob_pass.cc),
        so on a GPU matched only through compute_XY those kernels are JIT-compiled.
        """
        return tuple(t.capability for t in self.cuda_targets if t.kind == "sass")

    @property
    def ptx(self) -> tuple[ComputeCapability, ...]:
        return tuple(t.capability for t in self.cuda_targets if t.kind == "ptx")


@record
class CudaToolkit:
    """One CUDA toolkit release and the driver NVIDIA ships or requires with it."""

    version: Version
    label: str
    linux_driver: DriverVersion | None
    windows_driver: DriverVersion | None
    note: str
    sources: tuple[str, ...]


@record
class CudaFamily:
    """The driver floor of one CUDA major under minor-version compatibility (CUDA 11+)."""

    major: int
    linux_driver: DriverVersion
    windows_driver: DriverVersion | None
    minor_version_compatibility: bool
    note: str
    sources: tuple[str, ...]


@record
class ArchitectureTargets:
    """The compute capabilities nvcc of toolkits >= `since` can compile for."""

    since: Version
    capabilities: tuple[ComputeCapability, ...]
    note: str
    sources: tuple[str, ...]


@record
class CudnnRelease:
    """A range of cuDNN releases and the CUDA toolkits NVIDIA supports them with."""

    first: Version
    last: Version
    cuda: tuple[Version, ...]  # CUDA major.minor versions listed in NVIDIA's support matrix
    note: str
    sources: tuple[str, ...]


@record
class LibraryFile:
    """One shared library by its loader names on Linux and Windows."""

    role: str  # e.g. "cudart", "cudnn_cnn_infer"
    linux: str | None  # soname, e.g. libcudart.so.12
    windows: str | None  # DLL name, e.g. cudart64_110.dll
    wheel: str | None  # pip distribution that ships it, e.g. nvidia-cuda-runtime-cu12
    wheel_dir: str | None  # its directory under site-packages, e.g. nvidia/cuda_runtime/lib
    required: bool  # TensorFlow refuses the GPU when it cannot load this one
    # The name in TensorFlow's DSO loader function for it (`DsoLoader::Get<loader>DsoHandle`):
    # a TensorFlow binary without that function never loads this library. None: loaded by
    # another library (cuDNN's sub-libraries, nvJitLink), not by TensorFlow's loader.
    loader: str | None = None
    # The name TensorFlow asks for when `linux` cannot be loaded (CUPTI: the unversioned
    # libcupti.so, found through the ld.so cache), or None.
    fallback: str | None = None


@record
class CudaLibrarySet:
    """The CUDA libraries a TensorFlow build for these CUDA versions loads by name."""

    cuda: tuple[Version, ...]
    libraries: tuple[LibraryFile, ...]
    note: str
    sources: tuple[str, ...]


@record
class CudnnMajor:
    """How one cuDNN major is packaged: its libraries, version header and encoding."""

    major: int
    version_header: str  # the header holding CUDNN_MAJOR/MINOR/PATCHLEVEL
    version_multiplier: int  # CUDNN_VERSION = major * multiplier + minor * 100 + patch
    # The shim opens its sub-libraries from its own directory first (cuDNN 9); otherwise it
    # asks the loader for them by name, searched from the shim (its RUNPATH).
    sublibraries_beside_shim: bool
    libraries: tuple[LibraryFile, ...]  # the shim first, then the sub-libraries
    windows_dependencies: tuple[str, ...]  # DLLs the sub-libraries need besides CUDA's own
    note: str
    sources: tuple[str, ...]


@record
class Gpu:
    """An NVIDIA GPU model and its compute capability."""

    name: str
    compute_capability: ComputeCapability
    architecture: str
    segment: str
    aliases: tuple[str, ...]
    note: str
    sources: tuple[str, ...]


@record
class DriverBranchLimit:
    """The last driver branch (e.g. 470) that supports a GPU architecture."""

    architecture: str
    last_branch: int
    note: str
    sources: tuple[str, ...]


@record
class TorchBuild:
    """One PyTorch release series built for one CUDA variant (cu126, cu130, ...) or the CPU."""

    versions: tuple[Version, ...]  # the patch releases of the series, ascending
    variant: str  # "cpu" or "cuXYZ", the name of PyTorch's wheel index for it
    cuda: Version | None  # CUDA major.minor of the variant; None for cpu
    cudnn: Version | None  # the cuDNN wheel it pins, where read from the wheel
    pypi_default: frozenset[str]  # platforms where plain `pip install torch==X` gets this build
    platforms: frozenset[str]  # where the build exists at all (the default index or PyTorch's)
    python: tuple[PythonVersion, ...]
    # Native kernels (sm_XY); None when no source gives them (the GPU check stays undecided).
    arch_list: tuple[ComputeCapability, ...] | None
    wheels: tuple[str, ...]  # the NVIDIA wheels the build pins (read from its METADATA)
    note: str
    sources: tuple[str, ...]

    @property
    def latest(self) -> Version:
        return self.versions[-1]

    @property
    def series(self) -> str:
        major, minor = major_minor(self.latest)
        return f"{major}.{minor}"


@record
class JaxPlugin:
    """One jax release with one CUDA plugin: what `pip install "jax[cudaNN]==X"` brings."""

    jax: Version
    extra: str  # "cuda12" / "cuda13"
    plugin: str  # the plugin distribution, e.g. jax-cuda12-plugin
    cuda_major: int
    cudnn: str  # the plugin's requirement on the cuDNN wheel, e.g. nvidia-cudnn-cu12<10.0,>=9.8
    python: tuple[PythonVersion, ...]
    with_cuda: tuple[str, ...]  # the plugin's with-cuda extra
    sources: tuple[str, ...]
