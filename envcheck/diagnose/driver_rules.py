"""Rules about the NVIDIA driver and the GPUs: missing, stub, mismatch, no device, too old, and
GPU architectures the installed build has no kernels for."""

from __future__ import annotations

from envcheck.diagnose.context import Context
from envcheck.findings import Finding, Severity
from envcheck.matrix.rules import (
    Status,
    driver_branch_supports_gpu,
    driver_knows_gpu,
    driver_supports_cuda,
    gpu_runs_build,
    ptx_jit_needed,
)

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
                "No NVIDIA driver was found, so TensorFlow can only use the CPU.",
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
    """driver-too-old: the driver against the installed build's CUDA, and against the GPUs."""
    cuda = context.build_cuda
    if context.is_cuda_build is False or cuda is None:
        return []
    driver = context.driver
    findings = []
    capabilities = [c for _, c in context.capabilities if c is not None]
    needs_jit = any(
        ptx_jit_needed(c, _sass(context), _ptx(context), _mlir_sass(context)) for c in capabilities
    )
    if driver is not None:
        outcome = driver_supports_cuda(context.matrix, cuda, driver, context.os, needs_jit)
        if outcome.status is Status.INCOMPATIBLE:
            findings.append(
                Finding(
                    "driver-too-old",
                    Severity.ERROR,
                    f"The NVIDIA driver is too old for this TensorFlow: {outcome.message}.",
                    (f"driver {driver}", f"TensorFlow built with CUDA {cuda}"),
                    _driver_fix(context),
                )
            )
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
                fix = (
                    _driver_fix(context)
                    if branch.ok
                    else f"Install an R{last} driver for this GPU, then the TensorFlow that "
                    f"envcheck recommend --driver <R{last} release> names, or use a newer GPU."
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
    elif context.facts.driver.cuda is not None:
        driver_cuda = context.facts.driver.cuda
        if int(driver_cuda.split(".")[0]) < cuda.release[0]:
            findings.append(
                Finding(
                    "driver-too-old",
                    Severity.ERROR,
                    f"The driver supports CUDA {driver_cuda}, but this TensorFlow needs CUDA "
                    f"{cuda.release[0]}.x.",
                    (f"driver CUDA version {driver_cuda}", f"TensorFlow built with CUDA {cuda}"),
                    _driver_fix(context),
                )
            )
    return findings


def _driver_fix(context: Context) -> str:
    cuda = context.build_cuda
    requirement = context.matrix.driver_requirement(cuda, context.os) if cuda else None
    floor = f" {requirement.minimum} or newer" if requirement else " a newer one"
    return (
        f"Update the NVIDIA driver to{floor}, or install an older TensorFlow (envcheck recommend)."
    )


def _sass(context: Context) -> list:  # type: ignore[type-arg]
    return [t.capability for t in context.build_targets]


def _ptx(context: Context) -> list:  # type: ignore[type-arg]
    return [t.capability for t in context.build_targets if t.kind == "ptx"]


def _mlir_sass(context: Context) -> list:  # type: ignore[type-arg]
    # compute_XY gives the regular kernels SASS and PTX but the MLIR kernels PTX only; only the
    # explicit sm_XY targets are native for both (see the build targets in tensorflow.toml).
    return [t.capability for t in context.build_targets if t.kind == "sass"]


def gpu_architecture(context: Context) -> list[Finding]:
    """compute-capability-unsupported: a GPU the build has no kernels (or only PTX) for."""
    targets = context.build_targets
    if context.is_cuda_build is False or not targets:
        return []
    sass = [t.capability for t in targets]
    ptx = [t.capability for t in targets if t.kind == "ptx"]
    mlir = _mlir_sass(context)
    findings = []
    listed = ", ".join(str(t) for t in targets)
    for name, capability in context.capabilities:
        if capability is None:
            continue
        outcome = gpu_runs_build(capability, sass, ptx, mlir)
        if outcome.status is Status.INCOMPATIBLE:
            findings.append(
                Finding(
                    "compute-capability-unsupported",
                    Severity.ERROR,
                    f"{name} (compute capability {capability}) cannot run this TensorFlow: "
                    f"{outcome.message}.",
                    (f"build targets: {listed}",),
                    "Install a TensorFlow release whose build covers this GPU (envcheck "
                    "recommend shows which), or build TensorFlow from source for it.",
                )
            )
        elif outcome.message.startswith("no native"):
            findings.append(
                Finding(
                    "compute-capability-unsupported",
                    Severity.WARNING,
                    f"{name} (compute capability {capability}) has no native kernels in this "
                    "build; TensorFlow JIT-compiles them from PTX on first use, which can take "
                    "many minutes.",
                    (f"build targets: {listed}",),
                    "Expect a slow first run (the driver caches the result), or use a release "
                    "with native kernels for this GPU.",
                )
            )
    return findings
