"""The machine a recommendation is for: described by flags, or read cheaply from this host.

This holds the description (OS, architecture, Python, driver, GPUs) and the light host reading
that `recommend` needs when a flag is omitted: the platform module, an ENVCHECK_DRIVER_VERSION
override, /proc/driver/nvidia/version and `nvidia-smi --query-gpu` under a timeout. It never loads
a driver library into this process; the full probe (NVML, libcuda, libraries) is `envcheck.probe`.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from envcheck.errors import InputError
from envcheck.versions import ComputeCapability, DriverVersion, PythonVersion

OS_NAMES = ("linux", "windows", "wsl", "macos")
ARCHES = ("x86_64", "aarch64")
NVIDIA_SMI_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class GpuDescription:
    """One GPU as far as the recommendation needs it."""

    name: str | None
    compute_capability: ComputeCapability | None


@dataclass(frozen=True)
class MachineDescription:
    os: str  # one of OS_NAMES
    arch: str  # one of ARCHES
    python: PythonVersion
    driver: DriverVersion | None  # the NVIDIA driver release, e.g. 535.104.05; None = none found
    gpus: tuple[GpuDescription, ...]
    # How each value was learned ("--driver", "nvidia-smi", ...), and where the host was searched.
    found_via: dict[str, str] = field(default_factory=dict)
    searched: tuple[str, ...] = ()

    @property
    def platform(self) -> str:
        """The matrix's wheel-platform name for this machine (WSL installs Linux wheels)."""
        os_part = {"wsl": "linux", "linux": "linux", "windows": "windows", "macos": "macos"}[
            self.os
        ]
        arch = "arm64" if (self.os == "macos" and self.arch == "aarch64") else self.arch
        return f"{os_part}-{arch}"


def normalize_os(text: str) -> str:
    value = text.strip().lower()
    aliases = {
        "darwin": "macos",
        "mac": "macos",
        "osx": "macos",
        "win": "windows",
        "win32": "windows",
    }
    value = aliases.get(value, value)
    if value not in OS_NAMES:
        raise InputError(f"--os {text!r} is not one of {', '.join(OS_NAMES)}")
    return value


def normalize_arch(text: str) -> str:
    value = text.strip().lower()
    aliases = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}
    value = aliases.get(value, value)
    if value not in ARCHES:
        raise InputError(f"--arch {text!r} is not one of {', '.join(ARCHES)}")
    return value


def host_os(
    proc_version: Path = Path("/proc/version"), environ: dict[str, str] | None = None
) -> str:
    env = os.environ if environ is None else environ
    system = platform.system()
    if system == "Windows":
        return "windows"
    if system == "Darwin":
        return "macos"
    if "WSL_DISTRO_NAME" in env:
        return "wsl"
    try:
        if "microsoft" in proc_version.read_text(errors="replace").lower():
            return "wsl"
    except OSError:
        pass
    return "linux"


def host_arch() -> str:
    try:
        return normalize_arch(platform.machine())
    except InputError:
        return platform.machine().lower()


def parse_proc_driver_version(text: str) -> DriverVersion | None:
    """The driver release in /proc/driver/nvidia/version ('... Kernel Module  535.104.05 ...')."""
    match = re.search(r"Kernel Module(?: for [\w-]+)?\s+(\d+(?:\.\d+)+)", text)
    return DriverVersion(match.group(1)) if match else None


def parse_nvidia_smi_csv(text: str) -> tuple[DriverVersion | None, tuple[GpuDescription, ...]]:
    """Rows of `--query-gpu=driver_version,name,compute_cap --format=csv,noheader`, one per GPU."""
    driver = None
    gpus = []
    for line in text.splitlines():
        fields = [part.strip() for part in line.split(",")]
        if len(fields) < 2 or not fields[0]:
            continue
        try:
            driver = driver or DriverVersion.parse(fields[0])
        except InputError:
            continue
        capability = None
        if len(fields) >= 3:
            try:
                capability = ComputeCapability.parse(fields[2])
            except InputError:
                capability = None  # "[N/A]" on drivers before 510
        gpus.append(GpuDescription(fields[1] or None, capability))
    return driver, tuple(gpus)


def _run_nvidia_smi(executable: str) -> str | None:
    try:
        completed = subprocess.run(
            [executable, "--query-gpu=driver_version,name,compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=NVIDIA_SMI_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return completed.stdout if completed.returncode == 0 else None


def read_host_driver(
    environ: dict[str, str] | None = None,
    proc_file: Path = Path("/proc/driver/nvidia/version"),
    smi: str | None = None,
) -> tuple[DriverVersion | None, tuple[GpuDescription, ...], str, tuple[str, ...]]:
    """(driver, gpus, found_via, searched): the first place that answers wins."""
    env = os.environ if environ is None else environ
    searched: list[str] = []
    override = env.get("ENVCHECK_DRIVER_VERSION")
    if override:
        return (
            DriverVersion.parse(override, "ENVCHECK_DRIVER_VERSION"),
            (),
            "ENVCHECK_DRIVER_VERSION",
            (),
        )
    executable = smi if smi is not None else shutil.which("nvidia-smi")
    searched.append("nvidia-smi" if executable is None else executable)
    if executable is not None:
        output = _run_nvidia_smi(executable)
        if output:
            driver, gpus = parse_nvidia_smi_csv(output)
            if driver is not None:
                return driver, gpus, "nvidia-smi", tuple(searched)
    searched.append(str(proc_file))
    try:
        driver = parse_proc_driver_version(proc_file.read_text(errors="replace"))
    except OSError:
        driver = None
    if driver is not None:
        return driver, (), str(proc_file), tuple(searched)
    return None, (), "", tuple(searched)


def describe_machine(
    os_name: str | None,
    arch: str | None,
    python: str | None,
    driver: str | None,
    gpus: tuple[GpuDescription, ...] | None,
) -> MachineDescription:
    """A description from flags, with every omitted value read from this host."""
    found_via: dict[str, str] = {}
    chosen_os = normalize_os(os_name) if os_name else host_os()
    found_via["os"] = "--os" if os_name else "this host"
    chosen_arch = normalize_arch(arch) if arch else host_arch()
    found_via["arch"] = "--arch" if arch else "this host"
    if python:
        chosen_python = PythonVersion.parse(python)
        found_via["python"] = "--python"
    else:
        chosen_python = PythonVersion(sys.version_info.major, sys.version_info.minor)
        found_via["python"] = "this interpreter"
    searched: tuple[str, ...] = ()
    host_gpus: tuple[GpuDescription, ...] = ()
    if driver is not None:
        chosen_driver = (
            None if driver.strip().lower() == "none" else DriverVersion.parse(driver, "--driver")
        )
        found_via["driver"] = "--driver"
    elif chosen_os == "macos":
        chosen_driver = None
        found_via["driver"] = "macOS has no CUDA driver"
    elif os_name is not None and chosen_os != host_os():
        raise InputError(
            f"--os {chosen_os} describes another machine: give its --driver too (or --driver none)"
        )
    else:
        chosen_driver, host_gpus, via, searched = read_host_driver()
        found_via["driver"] = via or "not found"
    if gpus is not None:
        found_via["gpu"] = "--gpu/--compute-capability"
        chosen_gpus = gpus
    else:
        chosen_gpus = host_gpus
        found_via["gpu"] = "nvidia-smi" if host_gpus else "not found"
    return MachineDescription(
        os=chosen_os,
        arch=chosen_arch,
        python=chosen_python,
        driver=chosen_driver,
        gpus=chosen_gpus,
        found_via=found_via,
        searched=searched,
    )
