"""Build probe Facts for doctor tests: a described machine, field by field.

The doctor's rules are pure functions of Facts, so these tests describe machines as the probe
would report them (the probe itself is tested on real artefacts in test_probe_cli and
test_libraries_probe).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from envcheck.probe.facts import (
    DriverFacts,
    DriverState,
    Facts,
    FrameworkFacts,
    GpuFacts,
    LibraryFacts,
    PlatformFacts,
    ProbeStep,
    WheelFacts,
)

LINUX = PlatformFacts(
    os="linux", arch="x86_64", python="3.11.7", python_bits=64,
    python_executable="/home/ada/venv/bin/python", wsl=None, container=None,
    device_nodes=("/dev/nvidia0", "/dev/nvidiactl"), cuda_visible_devices=None,
    nvidia_visible_devices=None,
)  # fmt: skip


def driver(version: str | None = "550.54.14", cuda: str | None = "12.4", state: DriverState = "ok",
           **fields: Any) -> DriverFacts:  # fmt: skip
    steps = (ProbeStep("nvml", state == "ok", "fake"),)
    base = DriverFacts(version, cuda, "nvml" if version else None, state, None, None, (), steps)
    return replace(base, **fields)


def gpu(name: str = "NVIDIA GeForce RTX 4090", cc: str | None = "8.9", index: int = 0) -> GpuFacts:
    return GpuFacts(index, name, cc, 24564, f"GPU-{index}", "nvml")


def tensorflow(
    version: str = "2.18.1", distribution: str = "tensorflow", **build: Any
) -> FrameworkFacts:
    defaults: dict[str, Any] = {
        "cuda_version": "12.5.1",
        "cudnn_version": "9",
        "is_cuda_build": True,
    }
    return FrameworkFacts("tensorflow", distribution, version, "/home/ada/venv/lib/python3.11/site-packages",
                          {**defaults, **build}, "build_info.py (read without importing)")  # fmt: skip


SITE = "/home/ada/venv/lib/python3.11/site-packages"


def torch(version: str = "2.14.1", cuda: str | None = "13.0") -> FrameworkFacts:
    """torch as the probe reads it from torch/version.py (shape of the real 2.14.1 wheel's)."""
    local = f"cu{cuda.replace('.', '')}" if cuda else "cpu"
    raw = {"__version__": f"{version}+{local}", "cuda": cuda, "hip": None}
    build: dict[str, Any] = {"is_cuda_build": cuda is not None, "is_rocm_build": False, "raw": raw}
    if cuda:
        build["cuda_version"] = cuda
    requires = ('nvidia-cudnn-cu13==9.24.0.43; platform_system == "Linux"',) if cuda else ()
    return FrameworkFacts("torch", "torch", version, SITE, build, "version.py", requires)


def jax(version: str = "0.7.2", plugin_cuda: str | None = "12") -> tuple[FrameworkFacts, ...]:
    """jax, jaxlib and (unless None) the jax-cudaNN-plugin, as the probe reads them."""
    parts = [
        FrameworkFacts("jax", "jax", version, SITE),
        FrameworkFacts("jaxlib", "jaxlib", version, SITE, {"raw": {}}, "version.py"),
    ]
    if plugin_cuda:
        name = f"jax-cuda{plugin_cuda}-plugin"
        build = {"cuda_version": plugin_cuda, "is_cuda_build": True}
        parts.append(FrameworkFacts(name, name, version, SITE, build, "distribution name"))
    return tuple(parts)


def lib(name: str, file: str, path: str = "", version: str | None = None, selected: bool = True,
        found_via: str = "RUNPATH of libtensorflow_framework.so.2", problems: tuple[str, ...] = (),
        arch: str | None = "x86_64 64-bit") -> LibraryFacts:  # fmt: skip
    if not path:
        return LibraryFacts(name, file, "", None, None, False, "not found", None,
                            ("not found in the 3 places the loader searches (test)",))  # fmt: skip
    return LibraryFacts(name, file, path, version, arch, selected, found_via, None, problems)


# The CUDA 12 / cuDNN 9 set a healthy TF 2.18 install loads (libraries.toml, cudnn.toml).
CUDA12 = {
    "cudart": "libcudart.so.12", "cublas": "libcublas.so.12", "cublasLt": "libcublasLt.so.12",
    "cufft": "libcufft.so.11", "curand": "libcurand.so.10", "cusolver": "libcusolver.so.11",
    "cusparse": "libcusparse.so.12",
}  # fmt: skip
CUDNN9 = {
    "cudnn": "libcudnn.so.9", "cudnn_graph": "libcudnn_graph.so.9", "cudnn_ops": "libcudnn_ops.so.9",
    "cudnn_cnn": "libcudnn_cnn.so.9", "cudnn_adv": "libcudnn_adv.so.9",
}  # fmt: skip


def healthy_libraries(
    cudnn_version: str = "9.3.0", skip: tuple[str, ...] = ()
) -> tuple[LibraryFacts, ...]:
    site = "/home/ada/venv/lib/python3.11/site-packages/nvidia"
    result = [lib("cuda-driver", "libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "550.54.14",
                  found_via="ld.so.cache")]  # fmt: skip
    for role, file in {**CUDA12, **CUDNN9}.items():
        if role in skip:
            result.append(lib(role, file))
            continue
        version = cudnn_version if role == "cudnn" else None
        result.append(lib(role, file, f"{site}/{role}/lib/{file}", version))
    return tuple(result)


def machine(**fields: Any) -> Facts:
    base = Facts(
        platform=LINUX,
        driver=driver(),
        gpus=(gpu(),),
        libraries=healthy_libraries(),
        frameworks=(tensorflow(),),
        wheels=(
            WheelFacts(
                "nvidia-cudnn-cu12", "9.3.0.75", "/home/ada/venv/lib/python3.11/site-packages"
            ),
        ),
        errors=(),
        seconds=0.2,
    )
    return replace(base, **fields)
