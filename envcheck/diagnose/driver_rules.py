"""Rules about the NVIDIA driver and the GPUs: missing, stub, mismatch, no device, too old, and
GPU architectures the installed build has no kernels for."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from envcheck.diagnose.context import Context
from envcheck.diagnose.framework_builds import FrameworkBuild
from envcheck.findings import Finding, Severity
from envcheck.framework_names import PROGRAM, framework_of, within
from envcheck.matrix.rules import (
    Status,
    driver_branch_supports_gpu,
    driver_knows_gpu,
    driver_supports_cuda,
    gpu_runs_build,
    ptx_jit_needed,
)
from envcheck.versions import ComputeCapability, format_major_minor

WSL_DRIVER_DIR = "/usr/lib/wsl/lib"


def driver_presence(context: Context) -> list[Finding]:
    """driver-missing, driver-library-mismatch, no-gpu from the probe's driver state."""
    if context.target is not None:
        return []  # a Docker build has no driver; the target flags describe the fleet
    driver = context.facts.driver
    platform = context.facts.platform
    evidence = tuple(driver.errors)
    if context.os == "macos":
        return []
    if driver.state == "missing":
        if platform.wsl:
            return [
                Finding(
                    "driver-missing",
                    Severity.ERROR,
                    "No NVIDIA driver is visible inside WSL: WSL2 uses the Windows driver, whose "
                    f"libraries appear in {WSL_DRIVER_DIR}.",
                    evidence,
                    "Install or update the NVIDIA driver on Windows (not inside WSL), make sure "
                    "this is WSL2 (wsl --set-version <distro> 2), then run wsl --shutdown.",
                )
            ]
        if platform.container and platform.nvidia_gpu == "present" and not platform.device_nodes:
            return [
                Finding(
                    "driver-missing",
                    Severity.ERROR,
                    f"The machine has an NVIDIA GPU, but this {platform.container} container "
                    "was not given it: no /dev/nvidia* device nodes and no driver libraries.",
                    (*platform.nvidia_gpu_evidence, *evidence),
                    "Start the container with GPU access: docker run --gpus all ... (install "
                    "the NVIDIA Container Toolkit on the host first), or the runtime's "
                    "equivalent (podman --device nvidia.com/gpu=all, a Kubernetes GPU request).",
                )
            ]
        return [
            Finding(
                "driver-missing",
                Severity.ERROR,
                f"No NVIDIA driver was found, so {within(context.subject)} can only use the CPU.",
                evidence,
                "Install the NVIDIA driver for your GPU (e.g. 'sudo ubuntu-drivers install' on "
                "Ubuntu), reboot, and check with nvidia-smi.",
            )
        ]
    if driver.state == "stub":
        return [
            Finding(
                "driver-missing",
                Severity.ERROR,
                "Only the CUDA toolkit's stub libcuda was found; it is for linking, not a driver.",
                evidence,
                "Install the NVIDIA driver, and remove the toolkit's lib64/stubs directory from "
                "LD_LIBRARY_PATH.",
            )
        ]
    if driver.state == "mismatch":
        return [
            Finding(
                "driver-library-mismatch",
                Severity.ERROR,
                f"The loaded NVIDIA kernel module ({driver.kernel_module or '?'}) and the "
                f"user-space driver library ({driver.user_library or '?'}) are different "
                "releases: NVML reports 'Driver/library version mismatch'.",
                evidence,
                "Reboot (the usual cause is a driver update without a reboot), or unload and "
                "reload the nvidia kernel modules.",
            )
        ]
    if driver.state in ("no-device", "error") or (driver.state == "ok" and not context.facts.gpus):
        return [_no_gpu(context)]
    return []


def _no_gpu(context: Context) -> Finding:
    platform = context.facts.platform
    evidence = list(context.facts.driver.errors)
    fix = "Check that the GPU is visible with nvidia-smi."
    if platform.cuda_visible_devices is not None:
        evidence.append(f"CUDA_VISIBLE_DEVICES={platform.cuda_visible_devices!r}")
        fix = "Unset CUDA_VISIBLE_DEVICES or set it to the GPU's index (e.g. 0)."
    if platform.container and not platform.device_nodes:
        evidence.append(f"in a {platform.container} container with no /dev/nvidia* device nodes")
        fix = (
            "Start the container with GPU access: docker run --gpus all ... (NVIDIA Container "
            "Toolkit), or the runtime's equivalent."
        )
    return Finding(
        "no-gpu",
        Severity.ERROR,
        "An NVIDIA driver is present but no usable GPU is visible.",
        tuple(evidence),
        fix,
    )


def driver_version(context: Context) -> list[Finding]:
    """driver-too-old: the driver against each installed build's CUDA, and against the GPUs."""
    findings = []
    gpu_builds = [b for b in context.builds if b.is_cuda_build is not False and b.cuda is not None]
    for build in gpu_builds:
        findings.extend(_driver_for_build(context, build))
    if context.driver is not None and gpu_builds:  # a CPU build never asks the driver anything
        findings.extend(_driver_for_gpus(context, gpu_builds[0]))
    return findings


def _needs_jit(context: Context, build: FrameworkBuild) -> bool:
    sass, ptx, mlir = _sass(build), _ptx(build), _mlir_sass(build)
    return any(ptx_jit_needed(c, sass, ptx, mlir) for _, c in context.capabilities if c is not None)


def _driver_for_build(context: Context, build: FrameworkBuild) -> list[Finding]:
    cuda = build.cuda
    if cuda is None:
        return []  # (the callers pass builds whose CUDA is known)
    driver = context.driver
    this = f"this {build.label}"
    data = {"framework": build.key}
    if driver is not None:
        needs_jit = bool(build.targets) and _needs_jit(context, build)
        outcome = driver_supports_cuda(context.matrix, cuda, driver, context.os, needs_jit)
        if outcome.status is Status.INCOMPATIBLE:
            return [
                Finding(
                    "driver-too-old",
                    Severity.ERROR,
                    f"The NVIDIA driver is too old for {this}: {outcome.message}.",
                    (f"driver {driver}", f"{build.label} built with CUDA {cuda}"),
                    _driver_fix(context, build),
                    data=data,
                )
            ]
    elif context.facts.driver.cuda is not None:
        driver_cuda = context.facts.driver.cuda
        if _driver_cuda_below(driver_cuda, cuda):
            return [
                Finding(
                    "driver-too-old",
                    Severity.ERROR,
                    f"The driver supports CUDA {driver_cuda}, but {this} needs CUDA "
                    f"{_needed(cuda)}.",
                    (f"driver CUDA version {driver_cuda}", f"{build.label} built with CUDA {cuda}"),
                    _driver_fix(context, build),
                    data=data,
                )
            ]
    return []


def _needed(cuda: Version) -> str:
    """What a build with `cuda` needs of the driver's CUDA: its major from CUDA 11 (12.x),
    before that its own release (10.2)."""
    major = cuda.release[0]
    return f"{major}.x" if major >= 11 else ".".join(str(p) for p in (*cuda.release, 0)[:2])


def _driver_cuda_below(driver_cuda: str, cuda: Version) -> bool:
    """Whether a driver that supports CUDA `driver_cuda` is too old for a build with `cuda`:
    from CUDA 11 a driver of the same major runs every minor (minor-version compatibility);
    before, each release needed its own driver (10.2 on a 10.1 driver fails)."""
    try:
        supported = Version(driver_cuda)
    except InvalidVersion:
        return False
    if cuda.release[0] >= 11:
        return supported.release[0] < cuda.release[0]
    return supported.release[:2] < cuda.release[:2]


def program_driver(context: Context) -> list[Finding]:
    """driver-too-old for an installed program none of the judged frameworks is (a log's
    PaddlePaddle or CuPy, or one it does not name) whose facts say the CUDA it was built with:
    the driver against that CUDA's floor, as for a framework's build."""
    # (Context.programs is empty where a judged framework is: driver_version judges its build.)
    findings = []
    for build in context.programs:
        findings.extend(_driver_for_build(context, build))
    return findings


def _driver_for_gpus(context: Context, first: FrameworkBuild) -> list[Finding]:
    """A driver branch that does not run a GPU at all (too old for it, or past its last)."""
    driver = context.driver
    assert driver is not None
    findings = []
    for name, capability in context.capabilities:
        if capability is None:
            continue
        branch = driver_branch_supports_gpu(context.matrix, capability, driver)
        known = (
            branch
            if not branch.ok
            else driver_knows_gpu(context.matrix, capability, driver, context.os)
        )
        if known.status is Status.INCOMPATIBLE:
            last = context.matrix.last_driver_branch(capability)
            what = first.label
            fix = (
                _driver_fix(context, first)
                if branch.ok
                else f"Install an R{last} driver for this GPU, then the {what} that "
                f"`envcheck recommend --driver VER --gpu NAME` names (VER an R{last} release), "
                "or use a newer GPU."
            )
            findings.append(
                Finding(
                    "driver-too-old" if branch.ok else "driver-too-new",
                    Severity.ERROR,
                    f"The driver does not run the GPU {name}: {known.message}.",
                    (f"driver {driver}", f"{name}: compute capability {capability}"),
                    fix,
                )
            )
    return findings


def _driver_fix(context: Context, build: FrameworkBuild | None) -> str:
    cuda = build.cuda if build is not None else None
    requirement = context.matrix.driver_requirement(cuda, context.os) if cuda else None
    floor = f" {requirement.minimum} or newer" if requirement else " a newer one"
    if build is None or build.key == "tensorflow":
        older = "an older TensorFlow (`envcheck recommend` names one)"
    elif build.key == "torch":
        older = (
            "a PyTorch build for an older CUDA (`envcheck recommend --framework torch` names one)"
        )
    elif build.key != "jax":
        older = f"a build of the {build.label} for an older CUDA"
    elif cuda is not None and cuda.release[0] >= 13:
        older = 'JAX\'s CUDA 12 plugin (python -m pip install "jax[cuda12]")'
    else:
        older = (
            "a JAX release built for an older CUDA (`envcheck recommend --framework jax` names one)"
        )
    return f"Update the NVIDIA driver to{floor}, or install {older}."


def _which_builds(build: FrameworkBuild) -> str:
    """Where the user finds the builds that cover a GPU."""
    if build.key == "tensorflow":
        return "envcheck recommend shows which"
    if framework_of(build.key) is None:
        return "its install instructions list them"  # a program envcheck recommend does not know
    return f"envcheck recommend --framework {build.key} shows which"


def _sass(build: FrameworkBuild) -> list[ComputeCapability]:
    return [t.capability for t in build.targets]


def _ptx(build: FrameworkBuild) -> list[ComputeCapability]:
    return [t.capability for t in build.targets if t.kind == "ptx"]


def _mlir_sass(build: FrameworkBuild) -> list[ComputeCapability]:
    # compute_XY gives the regular kernels SASS and PTX but the MLIR kernels PTX only; only the
    # explicit sm_XY targets are native for both (see the build targets in tensorflow.toml).
    # (TensorFlow's distinction; other frameworks' targets are sm_XY or compute_XY alike.)
    return [t.capability for t in build.targets if t.kind == "sass"]


def gpu_architecture(context: Context) -> list[Finding]:
    """compute-capability-unsupported: a GPU a build (or, where no judged framework is, a
    program: Context.programs) has no kernels (or only PTX) for."""
    findings = []
    for build in (*context.builds, *context.programs):
        if build.is_cuda_build is not False and build.targets:
            findings.extend(_architecture_for_build(context, build))
    return findings


def _newer_gpu_needs(context: Context, build: FrameworkBuild, capability: ComputeCapability) -> str:
    """For a GPU newer than every target of the build: the first CUDA whose nvcc compiles for
    it, which any build that covers it must be made with (CC 12.0 -> CUDA 12.8: an RTX 50xx
    needs a cu128 build, whatever CUDA the failing build has), as a clause; "" otherwise."""
    if not build.targets or capability <= max(t.capability for t in build.targets):
        return ""
    first = context.matrix.first_driver_for(capability, context.os)
    if first is None:
        return ""
    cuda = format_major_minor(first[0].version)
    tag = (
        f", for PyTorch a cu{cuda.replace('.', '')} build or later" if build.key == "torch" else ""
    )
    return f"one compiled with CUDA {cuda} or newer, the first CUDA for CC {capability}{tag}"


def _architecture_for_build(context: Context, build: FrameworkBuild) -> list[Finding]:
    targets = build.targets
    sass = _sass(build)
    ptx = _ptx(build)
    mlir = _mlir_sass(build)
    findings = []
    listed = ", ".join(str(t) for t in targets)
    what = f"build targets: {listed}"
    if build.bounded_by is not None:
        capabilities = [t.capability for t in targets]
        what = (
            f"built with CUDA {build.bounded_by}, whose nvcc compiles for CC {min(capabilities)} "
            f"to {max(capabilities)} only"
        )
    this = f"this {build.label}"
    for name, capability in context.capabilities:
        if capability is None:
            continue
        # (A program the log does not name is "the program" where it is a sentence's subject.)
        who = "the program" if build.key == PROGRAM else build.label
        outcome = gpu_runs_build(capability, sass, ptx, mlir, who)
        needs = _newer_gpu_needs(context, build, capability)
        if outcome.status is Status.INCOMPATIBLE:
            findings.append(
                Finding(
                    "compute-capability-unsupported",
                    Severity.ERROR,
                    f"{name} (compute capability {capability}) cannot run {this}: "
                    f"{outcome.message}.",
                    (what,),
                    f"Install a {build.label} release whose build covers this GPU "
                    f"({f'{needs}; ' if needs else ''}{_which_builds(build)}), or build it "
                    "from source for "
                    "this GPU.",
                    data={"framework": build.key},
                )
            )
        elif outcome.message.startswith("no native"):
            findings.append(
                Finding(
                    "compute-capability-unsupported",
                    Severity.WARNING,
                    f"{name} (compute capability {capability}) has no native kernels in this "
                    f"build; {build.label} JIT-compiles them from PTX on first use, which can take "
                    "many minutes.",
                    (what,),
                    "Expect a slow first run (the driver caches the result), or use a release "
                    f"with native kernels for this GPU{f' ({needs})' if needs else ''}.",
                    data={"framework": build.key},
                )
            )
    return findings
