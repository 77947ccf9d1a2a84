"""The machine a recommendation is for: described by flags, or read cheaply from this host.

This holds the description (OS, architecture, Python, driver, GPUs) that `recommend` works on,
built from flags, with every omitted value read from this host: the platform module, and the
probe's driver cascade (ENVCHECK_DRIVER_VERSION, NVML, libcuda, nvidia-smi, /proc), which loads
driver libraries only in child processes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import field, replace

from envcheck.errors import InputError
from envcheck.platforms import host_arch, host_os, normalize_arch, normalize_os
from envcheck.probe.driver import OVERRIDE, probe_driver
from envcheck.record import record
from envcheck.versions import ComputeCapability, DriverVersion, PythonVersion

DRIVER_TIMEOUT_S = 10.0


@record
class GpuDescription:
    """One GPU as far as the recommendation needs it."""

    name: str | None
    compute_capability: ComputeCapability | None


@record
class MachineDescription:
    os: str  # one of OS_NAMES
    arch: str  # one of ARCHES
    python: PythonVersion
    driver: DriverVersion | None  # the NVIDIA driver release, e.g. 535.104.05; None = none found
    gpus: tuple[GpuDescription, ...]
    # How each value was learned ("--driver", "nvidia-smi", ...), and where the host was searched.
    found_via: dict[str, str] = field(default_factory=dict)
    searched: tuple[str, ...] = ()  # the detection steps that failed, when none succeeded
    # The doctor saw that this machine has no NVIDIA GPU at all (not merely no driver): the
    # recommendation then says so, in the doctor's words.
    no_nvidia_gpu: bool = False

    def without_driver_reason(self) -> str:
        """Why no GPU build is usable, in the words the doctor's verdict uses."""
        if self.no_nvidia_gpu:
            return "this machine has no NVIDIA GPU"
        where = f" (looked at: {', '.join(self.searched)})" if self.searched else ""
        return f"no NVIDIA driver found{where}"

    @property
    def platform(self) -> str:
        """The matrix's wheel-platform name for this machine (WSL installs Linux wheels)."""
        os_part = {"wsl": "linux", "linux": "linux", "windows": "windows", "macos": "macos"}[
            self.os
        ]
        arch = "arm64" if (self.os == "macos" and self.arch == "aarch64") else self.arch
        return f"{os_part}-{arch}"


def host_driver(
    environ: dict[str, str] | None = None, timeout: float = DRIVER_TIMEOUT_S
) -> tuple[DriverVersion | None, tuple[GpuDescription, ...], str, tuple[str, ...]]:
    """(driver, gpus, found_via, places that failed), from the probe's driver cascade."""
    facts, gpus = probe_driver(environ, timeout=timeout)
    driver = None
    if facts.version is not None:
        what = OVERRIDE if facts.found_via == OVERRIDE else "the driver version"
        driver = DriverVersion.parse(facts.version, what)
    described = tuple(
        GpuDescription(
            gpu.name,
            ComputeCapability.parse(gpu.compute_capability) if gpu.compute_capability else None,
        )
        for gpu in gpus
    )
    failed = tuple(step.step for step in facts.steps if not step.ok)
    return driver, described, facts.found_via or "", failed


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
        chosen_driver, host_gpus, via, searched = host_driver()
        found_via["driver"] = via or "not found"
    if gpus is not None:
        found_via["gpu"] = "--gpu/--compute-capability"
        chosen_gpus = gpus
    else:
        chosen_gpus = host_gpus
        found_via["gpu"] = via if host_gpus else "not found"
    return MachineDescription(
        os=chosen_os,
        arch=chosen_arch,
        python=chosen_python,
        driver=chosen_driver,
        gpus=chosen_gpus,
        found_via=found_via,
        searched=searched,
    )


def with_capabilities(
    machine: MachineDescription, lookup: Callable[[str], ComputeCapability | None]
) -> MachineDescription:
    """Fill in the compute capability of GPUs known only by name (drivers before 510 cannot
    report it) from the GPU table; names the table does not know stay unknown."""
    gpus = tuple(
        GpuDescription(g.name, lookup(g.name)) if g.compute_capability is None and g.name else g
        for g in machine.gpus
    )
    return replace(machine, gpus=gpus)


def recommend_command(
    machine: MachineDescription, *options: str, framework: str | None = None
) -> str:
    """The `envcheck recommend` command that describes `machine` by flags alone, so that it
    answers the same wherever it is run (the doctor's recommendation may be for another
    interpreter, or a Docker build's target), with `options` (--all) added."""
    parts = ["envcheck recommend"]
    if framework is not None and framework != "tensorflow":
        parts.append(f"--framework {framework}")
    parts += [f"--os {machine.os}", f"--arch {machine.arch}", f"--python-version {machine.python}"]
    parts.append(f"--driver {machine.driver}" if machine.driver is not None else "--driver none")
    gpu = machine.gpus[0] if machine.gpus else None
    if gpu is not None and gpu.compute_capability is not None:
        parts.append(f"--compute-capability {gpu.compute_capability}")
    elif gpu is not None and gpu.name:
        parts.append(f"--gpu '{gpu.name}'")
    return " ".join([*parts, *options])
