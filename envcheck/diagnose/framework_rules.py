"""Rules about the installed frameworks: none installed, a CPU-only build (each framework), this
Python and native Windows after 2.10 (TensorFlow). Frameworks whose CUDA wheels clash are
coresidency_rules' concern."""

from __future__ import annotations

from envcheck.diagnose.context import Context
from envcheck.diagnose.framework_builds import FrameworkBuild
from envcheck.findings import Finding, Severity
from envcheck.framework_names import label
from envcheck.matrix.rules import python_supported


def framework_installed(context: Context) -> list[Finding]:
    """framework-missing (info; the report carries the recommendation): no framework judged
    here is installed, or the one --framework names is not."""
    if context.builds:
        return []
    chosen = context.framework
    what = label(chosen) if chosen else "No deep-learning framework (TensorFlow, PyTorch, JAX)"
    return [
        Finding(
            "framework-missing",
            Severity.INFO,
            f"{what} is not installed in this environment."
            if chosen
            else f"{what} is installed in this environment.",
            (context.facts.platform.python_executable,),
            "See the recommendation below for the release that fits this machine."
            if chosen in (None, "tensorflow")
            else f"envcheck recommend --framework {chosen} names the build that fits this machine.",
            data={"framework": chosen} if chosen else {},
        )
    ]


def cpu_only_build(context: Context) -> list[Finding]:
    """framework-cpu-only: an installed framework cannot use CUDA at all."""
    # A GPU here, a driver here, or a Docker build for GPU machines (any --target-*): the GPU is
    # wanted, and a CPU-only build is the problem. Otherwise it is only worth knowing.
    gpu_wanted = (
        bool(context.capabilities)
        or context.target is not None
        or context.facts.driver.version is not None
    )
    findings = []
    for build in context.builds:
        if context.os == "macos":
            findings.append(_no_cuda_on_macos(build))
        elif build.is_cuda_build is False:
            findings.append(_cpu_only(context, build, gpu_wanted))
    return findings


# macOS has no CUDA at all: what each framework uses for Apple's GPU instead.
_MACOS_GPU = {
    "tensorflow": "On Apple silicon, python -m pip install tensorflow-metal uses the Apple GPU.",
    "torch": "On Apple silicon, PyTorch uses the Apple GPU through MPS (device 'mps') with the "
    "wheel already installed; otherwise it runs on the CPU.",
    "jax": "JAX runs on the CPU here; the experimental jax-metal plugin targets the Apple GPU.",
}


def _no_cuda_on_macos(build: FrameworkBuild) -> Finding:
    return Finding(
        "framework-cpu-only",
        Severity.INFO,
        f"{build.label} has no CUDA support on macOS.",
        (build.installed,),
        _MACOS_GPU[build.key],
        data={"framework": build.key},
    )


def _cpu_only(context: Context, build: FrameworkBuild, gpu_wanted: bool) -> Finding:
    main = build.main
    if not gpu_wanted:
        fix = (
            "Nothing to change to use the CPU. For an NVIDIA GPU, install its driver first; "
            "`envcheck recommend --gpu NAME --driver VER` names the GPU build for it."
        )
    elif build.key == "tensorflow":
        fix = (
            f"python -m pip uninstall -y {main.distribution} && python -m pip install "
            f'"tensorflow[and-cuda]=={context.tensorflow_version}"'
            if context.os in ("linux", "wsl")
            else "See the recommendation below."
        )
        # The same release's GPU install may need a known bug's workaround to use the GPU.
        gaps = [
            b.workaround
            for b in context.known_bugs
            if context.os in ("linux", "wsl")
            and b.breaks_gpu_install
            and b.affects(context.tensorflow_version, context.os, cuda_build=True)
        ]
        if gaps:
            fix += f"; then: {' '.join(gaps)}"
    elif build.key == "torch":
        release = build.version.public if build.version else main.version
        fix = (
            f"python -m pip uninstall -y torch && python -m pip install torch=={release} from "
            "the PyTorch wheel index of the CUDA variant for this driver (`envcheck recommend "
            "--framework torch` names it)."
        )
    else:
        fix = (
            'python -m pip install "jax[cuda12]" (or "jax[cuda13]" with a driver >= 580) '
            "adds the CUDA plugin that matches the installed jax."
        )
    evidence = (
        f"is_cuda_build = {main.build.get('is_cuda_build')!r}"
        if build.key != "jax"
        else f"no CUDA plugin beside {build.installed}",
        main.build_found_via or "",
    )
    return Finding(
        "framework-cpu-only",
        Severity.ERROR if gpu_wanted else Severity.INFO,
        f"The installed {build.installed} is a CPU-only build: it never uses the GPU.",
        evidence,
        fix,
        data={"framework": build.key},
    )


def python_version(context: Context) -> list[Finding]:
    release, python = context.release, context.python
    if release is None or python is None:
        return []
    outcome = python_supported(release, python, context.tensorflow_version)
    if outcome.ok:
        return []
    return [
        Finding(
            "python-unsupported",
            Severity.ERROR,
            f"{outcome.message}.",
            (context.facts.platform.python_executable,),
            f"Use Python {release.python[-1]} for TensorFlow {release.series}, or the "
            "TensorFlow release the recommendation names for this Python.",
        )
    ]


def windows_native(context: Context) -> list[Finding]:
    release = context.release
    if context.os != "windows" or release is None or release.windows_gpu:
        return []
    return [
        Finding(
            "windows-native-gpu-unsupported",
            Severity.ERROR if context.capabilities else Severity.WARNING,
            f"TensorFlow {context.tensorflow_version} has no GPU support on native Windows "
            "(it ended with 2.10).",
            (f"TensorFlow {context.tensorflow_version} on {context.facts.platform.os}",),
            'Use WSL2 and python -m pip install "tensorflow[and-cuda]" there, or on native '
            'Windows Python 3.10 with python -m pip install "tensorflow==2.10.1" "numpy<2" plus '
            "CUDA 11.2 and cuDNN 8.1.",
        )
    ]
