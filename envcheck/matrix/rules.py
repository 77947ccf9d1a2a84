"""The compatibility rules, as small pure functions over versions and matrix rows.

Each rule answers with an Outcome: ok, incompatible or unknown (never "ok" for "could not tell"),
a sentence a person understands, and notes for caveats that do not block (PTX JIT time, a driver
older than the toolkit's own). The rules come from NVIDIA's CUDA compatibility documents and
TensorFlow's loader; the numbers they compare come from the matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from packaging.version import Version

from envcheck.matrix.model import Matrix
from envcheck.matrix.records import TensorflowRelease
from envcheck.record import record
from envcheck.versions import ComputeCapability, DriverVersion, PythonVersion, major_minor


class Status(str, Enum):
    OK = "ok"
    INCOMPATIBLE = "incompatible"
    UNKNOWN = "unknown"


@record
class Outcome:
    """What one rule says about one combination."""

    rule: str
    status: Status
    message: str
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is Status.OK


def cudnn_runtime_compatible(build: Version, runtime: Version) -> Outcome:
    """TensorFlow accepts a cuDNN of the build's major with a minor >= the build's.

    Source: IsSourceCompatibleWithCudnnLibrary in TensorFlow's cuda_dnn.cc; patch levels never
    matter ("Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0").
    """
    build_major, build_minor = major_minor(build)
    run_major, run_minor = major_minor(runtime)
    if run_major != build_major:
        return Outcome(
            "cudnn",
            Status.INCOMPATIBLE,
            f"cuDNN {runtime} is major {run_major}, the build needs cuDNN {build_major}.x "
            f"(>= {build_major}.{build_minor})",
        )
    if run_minor < build_minor:
        return Outcome(
            "cudnn",
            Status.INCOMPATIBLE,
            f"cuDNN {runtime} is older than the {build_major}.{build_minor} the build was compiled "
            f"with; install cuDNN {build_major}.{build_minor} or a newer {build_major}.x",
        )
    return Outcome("cudnn", Status.OK, f"cuDNN {runtime} satisfies a build with {build}")


def cuda_runtime_compatible(build: Version, runtime: Version) -> Outcome:
    """A CUDA runtime library must have the build's major: the soname carries it."""
    build_major = major_minor(build)[0]
    run_major = major_minor(runtime)[0]
    if run_major != build_major:
        return Outcome(
            "cuda-runtime",
            Status.INCOMPATIBLE,
            f"CUDA {runtime} is major {run_major}; the build loads CUDA {build_major}.x libraries",
        )
    return Outcome("cuda-runtime", Status.OK, f"CUDA {runtime} matches a build with CUDA {build}")


def driver_supports_cuda(
    matrix: Matrix, cuda: Version, driver: DriverVersion | None, os_name: str, needs_ptx_jit: bool
) -> Outcome:
    """Whether a driver release runs a program built with `cuda` on `os_name`.

    CUDA 11+ builds run on any driver at or above their major's minor-version floor, but PTX JIT
    (needed when a GPU has no native kernels in the build) needs a driver at least as new as
    the toolkit that wrote the PTX (NVIDIA, CUDA minor-version compatibility).
    """
    requirement = matrix.driver_requirement(cuda, os_name)
    if requirement is None:
        return Outcome("driver", Status.UNKNOWN, f"the matrix has no driver data for CUDA {cuda}")
    if driver is None:
        return Outcome(
            "driver",
            Status.UNKNOWN,
            f"the driver version is unknown; CUDA {cuda} needs >= {requirement.minimum}",
        )
    if driver < requirement.minimum:
        return Outcome(
            "driver",
            Status.INCOMPATIBLE,
            f"driver {driver} is older than {requirement.minimum}, {requirement.reason} that "
            f"CUDA {cuda} needs; update the NVIDIA driver",
        )
    toolkit_driver = requirement.toolkit_driver
    if toolkit_driver is not None and driver < toolkit_driver:
        if needs_ptx_jit:
            return Outcome(
                "driver",
                Status.INCOMPATIBLE,
                f"this GPU needs PTX JIT (for some or all of TensorFlow's kernels), and JIT of "
                f"CUDA {cuda} PTX needs driver >= {toolkit_driver}; driver {driver} is older "
                "(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)",
            )
        return Outcome(
            "driver",
            Status.OK,
            f"driver {driver} runs CUDA {cuda} through minor-version compatibility",
            (
                f"driver {driver} is older than CUDA {cuda}'s own {toolkit_driver}: PTX JIT and "
                "some newer CUDA features will not work until the driver is updated",
            ),
        )
    return Outcome("driver", Status.OK, f"driver {driver} supports CUDA {cuda}")


def _native_for(
    capability: ComputeCapability, targets: Sequence[ComputeCapability]
) -> list[ComputeCapability]:
    """The SASS targets that run natively on `capability`: same major, minor at most its own."""
    return [t for t in targets if t.major == capability.major and t.minor <= capability.minor]


def gpu_runs_build(
    capability: ComputeCapability | None,
    sass: Sequence[ComputeCapability],
    ptx: Sequence[ComputeCapability],
    mlir_sass: Sequence[ComputeCapability] | None = None,
    who: str = "TensorFlow",
) -> Outcome:
    """Whether a GPU of `capability` can run a build (of the framework `who`) with these SASS and
    PTX targets.

    SASS sm_XY runs on the same major with minor >= Y; PTX compute_XY is JIT-compiled by the
    driver for any capability >= X.Y (NVIDIA's rules, as quoted in TensorFlow's .bazelrc).
    `mlir_sass`, when given, is the SASS of TensorFlow's MLIR-generated kernels, which can lack
    what the regular kernels have; a GPU native only for the regular ones gets a note.
    """
    if capability is None:
        return Outcome("gpu", Status.UNKNOWN, "the GPU's compute capability is unknown")
    native = _native_for(capability, sass)
    jit = [target for target in ptx if target <= capability]
    if native:
        best = max(native)
        notes: tuple[str, ...] = ()
        if mlir_sass is not None and not _native_for(capability, mlir_sass) and jit:
            notes = (
                f"TensorFlow's MLIR-generated kernels have no native code for CC {capability}: "
                "they are JIT-compiled from PTX on first use (a one-time delay, and the driver "
                "must be at least as new as the build's CUDA)",
            )
        return Outcome(
            "gpu",
            Status.OK,
            f"native kernels (sm_{best.major}{best.minor}) for CC {capability}",
            notes,
        )
    if jit:
        best = max(jit)
        return Outcome(
            "gpu",
            Status.OK,
            f"no native kernels for CC {capability}; "
            f"runs by JIT from compute_{best.major}{best.minor} PTX",
            (
                f"CC {capability} has no native kernels in this build: the first run JIT-compiles "
                "them from PTX, which can take many minutes (cached afterwards)",
            ),
        )
    lowest = min([*sass, *ptx]) if (sass or ptx) else None
    floor = f" (the build starts at CC {lowest})" if lowest is not None else ""
    return Outcome(
        "gpu",
        Status.INCOMPATIBLE,
        f"the build has no kernels for CC {capability}{floor}; {who} ignores this GPU",
    )


def ptx_jit_needed(
    capability: ComputeCapability | None,
    sass: Sequence[ComputeCapability],
    ptx: Sequence[ComputeCapability],
    mlir_sass: Sequence[ComputeCapability] | None = None,
) -> bool:
    """Whether a GPU of `capability` runs any of the build's kernels by PTX JIT.

    Either no kernel has native code for it, or only the regular ones do and TensorFlow's
    MLIR-generated kernels (TF >= 2.18 compiles some targets as PTX only for them) must be
    JIT-compiled. Either way the driver must be at least as new as the build's CUDA: an older one
    refuses the PTX (CUDA_ERROR_UNSUPPORTED_PTX_VERSION) and those kernels fail to load.
    """
    if capability is None or not any(target <= capability for target in ptx):
        return False
    if not _native_for(capability, sass):
        return True
    return mlir_sass is not None and not _native_for(capability, mlir_sass)


def driver_knows_gpu(
    matrix: Matrix, capability: ComputeCapability, driver: DriverVersion, os_name: str
) -> Outcome:
    """A driver older than the first CUDA toolkit that can target a GPU predates that GPU.

    Derived from the matrix: the first toolkit in cuda_architectures.toml that lists the
    capability, and that toolkit's own driver in cuda_drivers.toml (CC 12.0 -> CUDA 12.8 ->
    570.26 on Linux).
    """
    first = matrix.first_driver_for(capability, os_name)
    if first is None:
        return Outcome("gpu-driver", Status.UNKNOWN, f"no driver data for CC {capability}")
    toolkit, minimum = first
    if driver < minimum:
        return Outcome(
            "gpu-driver",
            Status.INCOMPATIBLE,
            f"driver {driver} predates GPUs of CC {capability} (supported from {toolkit.label}'s "
            f"driver {minimum}); update the NVIDIA driver",
        )
    return Outcome("gpu-driver", Status.OK, f"driver {driver} supports CC {capability}")


def driver_branch_supports_gpu(
    matrix: Matrix, capability: ComputeCapability, driver: DriverVersion
) -> Outcome:
    """A driver branch newer than the last one NVIDIA ships for a GPU's architecture does not run
    that GPU at all (R470 is Kepler's last: a K80 under R535 is no GPU to CUDA)."""
    if matrix.driver_available(capability, driver):
        return Outcome("gpu-driver", Status.OK, f"driver {driver} supports CC {capability}")
    architecture = matrix.architecture_of(capability) or f"CC {capability}"
    last = matrix.last_driver_branch(capability)
    return Outcome(
        "gpu-driver",
        Status.INCOMPATIBLE,
        f"driver {driver} does not support {architecture} GPUs (R{last} is their last driver "
        f"branch); this GPU needs an R{last} driver and a TensorFlow whose CUDA that driver runs",
    )


def python_supported(
    release: TensorflowRelease, python: PythonVersion, version: Version | None = None
) -> Outcome:
    """Whether `version` of the series (its newest patch for None) has wheels for `python`."""
    pythons = release.pythons_of(version)
    shown = release.latest if version is None else version
    if python in pythons:
        return Outcome("python", Status.OK, f"Python {python} is supported")
    span = f"{pythons[0]}-{pythons[-1]}" if pythons else "none"
    direction = "too new" if pythons and python > pythons[-1] else "not supported"
    return Outcome(
        "python",
        Status.INCOMPATIBLE,
        f"Python {python} is {direction} for TensorFlow {shown} (it has wheels for Python {span})",
    )


def platform_has_wheel(release: TensorflowRelease, platform: str) -> Outcome:
    if platform in release.platforms:
        return Outcome("platform", Status.OK, f"TensorFlow {release.latest} has {platform} wheels")
    return Outcome(
        "platform",
        Status.INCOMPATIBLE,
        f"TensorFlow {release.latest} publishes no wheel for {platform}",
    )


def gpu_build_available(release: TensorflowRelease, os_name: str, arch: str) -> Outcome:
    """Whether the official wheel can use CUDA on this OS and architecture at all."""
    if os_name == "macos":
        return Outcome(
            "os",
            Status.INCOMPATIBLE,
            "TensorFlow has no CUDA support on macOS (Apple GPUs: the tensorflow-metal plugin)",
        )
    if arch != "x86_64":
        return Outcome(
            "os",
            Status.INCOMPATIBLE,
            f"the official {arch} Linux wheels are CPU-only builds",
        )
    if os_name == "windows":
        if release.windows_gpu:
            return Outcome("os", Status.OK, "native Windows GPU build")
        return Outcome(
            "os",
            Status.INCOMPATIBLE,
            f"native Windows GPU support ended with TensorFlow 2.10; use WSL2 for {release.series}",
        )
    if release.linux_gpu:
        return Outcome("os", Status.OK, "Linux GPU build")
    return Outcome("os", Status.INCOMPATIBLE, "no Linux GPU build")


# Forward compatibility: NVIDIA's cuda-compat package lets a newer CUDA run on an older driver
# branch, but only on data-center GPUs (and selected NGC-ready RTX cards, which the GPU table
# does not mark): NVIDIA, CUDA Compatibility, "Forward Compatibility"
# (https://docs.nvidia.com/deploy/cuda-compatibility/, the source nvidia-cuda-compatibility of
# matrix/error_codes.toml; CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE 804 elsewhere).
FORWARD_COMPATIBLE_SEGMENTS = frozenset({"datacenter"})


def forward_compatibility(gpu: str, segment: str | None) -> Outcome:
    """Whether the CUDA forward-compatibility package can run a newer CUDA than the driver's on
    `gpu` (its row's segment in matrix/gpus.toml: geforce, workstation, datacenter, jetson)."""
    if segment is None:
        return Outcome("forward-compatibility", Status.UNKNOWN, f"{gpu} is not in the GPU table")
    if segment in FORWARD_COMPATIBLE_SEGMENTS:
        return Outcome(
            "forward-compatibility",
            Status.OK,
            f"{gpu} is a data-center GPU: NVIDIA's CUDA forward-compatibility package "
            "(cuda-compat) in the image can run a newer CUDA on this driver",
        )
    return Outcome(
        "forward-compatibility",
        Status.INCOMPATIBLE,
        f"{gpu} is a {segment} GPU: CUDA forward compatibility is for data-center GPUs only, "
        "so only a newer driver helps",
    )
