"""Rules about the installed frameworks: none installed, a CPU-only build, this Python, native
Windows after 2.10. Frameworks whose CUDA wheels clash are coresidency_rules' concern."""

from __future__ import annotations

from envcheck.diagnose.context import Context
from envcheck.findings import Finding, Severity
from envcheck.matrix.rules import python_supported


def tensorflow_installed(context: Context) -> list[Finding]:
    """framework-missing (info; the report carries the recommendation)."""
    if context.tensorflow is not None:
        return []
    return [
        Finding(
            "framework-missing",
            Severity.INFO,
            "TensorFlow is not installed in this environment.",
            (context.facts.platform.python_executable,),
            "See the recommendation below for the release that fits this machine.",
        )
    ]


def cpu_only_build(context: Context) -> list[Finding]:
    """framework-cpu-only: the installed TensorFlow cannot use CUDA at all."""
    tf = context.tensorflow
    if tf is None:
        return []
    # A GPU here, a driver here, or a Docker build for GPU machines (any --target-*): the GPU is
    # wanted, and a CPU-only build is the problem. Otherwise it is only worth knowing.
    gpu_wanted = (
        bool(context.capabilities)
        or context.target is not None
        or context.facts.driver.version is not None
    )
    severity = Severity.ERROR if gpu_wanted else Severity.INFO
    version = context.tensorflow_version
    if context.os == "macos":
        return [
            Finding(
                "framework-cpu-only",
                Severity.INFO,
                "TensorFlow has no CUDA support on macOS.",
                (f"{tf.distribution} {tf.version}",),
                "On Apple silicon, python -m pip install tensorflow-metal uses the Apple GPU.",
            )
        ]
    if context.is_cuda_build is False:
        if not gpu_wanted:
            fix = (
                "Nothing to change to use the CPU. For an NVIDIA GPU, install its driver first; "
                "envcheck recommend then names the GPU build."
            )
        elif context.os in ("linux", "wsl"):
            fix = (
                f"python -m pip uninstall -y {tf.distribution} && python -m pip install "
                f'"tensorflow[and-cuda]=={version}"'
            )
        else:
            fix = "See the recommendation below."
        return [
            Finding(
                "framework-cpu-only",
                severity,
                f"The installed {tf.distribution} {tf.version} is a CPU-only build: it never "
                "uses the GPU.",
                (f"is_cuda_build = {tf.build.get('is_cuda_build')!r}", tf.build_found_via or ""),
                fix,
            )
        ]
    return []


def python_version(context: Context) -> list[Finding]:
    release, python = context.release, context.python
    if release is None or python is None:
        return []
    outcome = python_supported(release, python)
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
