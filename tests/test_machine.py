"""Reading the host (envcheck.recommend.machine, envcheck.probe.driver): /proc text, nvidia-smi output, a
real fake nvidia-smi run by the driver cascade, the environment override, the compute capability
looked up by GPU name, WSL detection and the description built from flags."""

from __future__ import annotations

import ctypes.util
import os
import platform
import stat
import time
from pathlib import Path

import pytest

from envcheck.errors import InputError
from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.platforms import host_os, normalize_arch, normalize_os
from envcheck.probe.driver import (
    SMI_QUERY_BEFORE_510,
    SmiRow,
    parse_nvidia_smi_csv,
    parse_proc_driver_version,
    probe_driver,
)
from envcheck.probe.facts import GpuFacts, ProbeStep
from envcheck.recommend.machine import (
    GpuDescription,
    MachineDescription,
    describe_machine,
    host_driver,
    with_capabilities,
)
from envcheck.versions import ComputeCapability, DriverVersion, PythonVersion

# /proc/driver/nvidia/version as the proprietary and the open kernel module write it.
PROC_PROPRIETARY = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"
)
PROC_OPEN = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build  "
    "(dvs-builder@U16-I3-B03-4-3)  Fri Aug 16 21:42:42 UTC 2024\n"
    "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n"
)
PROC_OPEN_ARM = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  550.54.14  Release Build  "
    "(dvs-builder@U16-I2-C04-39-2)  Thu Feb 22 01:25:25 UTC 2024\n"
    "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n"
)
PROC_TWO_PART = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  440.33  Wed Nov 13 00:00:22 UTC 2019\n"
    "GCC version:  gcc version 7.4.0 (Ubuntu 7.4.0-1ubuntu1~18.04.1)\n"
)
PROC_470 = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.82.01  Fri Oct 22 23:01:42 UTC 2021\n"
)

# `nvidia-smi --query-gpu=driver_version,name,compute_cap,memory.total,uuid
#  --format=csv,noheader,nounits` (the probe's query, SMI_QUERY).
SMI_QUERY_ARGS = [
    "--query-gpu=driver_version,name,compute_cap,memory.total,uuid",
    "--format=csv,noheader,nounits",
]
SMI_QUERY_BEFORE_510_ARGS = [
    "--query-gpu=driver_version,name,memory.total,uuid",
    "--format=csv,noheader,nounits",
]
SMI_TWO_GPUS = (
    "535.104.05, NVIDIA GeForce RTX 3090, 8.6, 24576, GPU-5f1e2c3a-0b1d-4e2f-9a8b-7c6d5e4f3a2b\n"
    "535.104.05, NVIDIA A100-SXM4-80GB, 8.0, 81920, GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9\n"
)
SMI_TWO_GPUS_ROWS = (
    SmiRow(
        "535.104.05",
        "NVIDIA GeForce RTX 3090",
        "8.6",
        24576,
        "GPU-5f1e2c3a-0b1d-4e2f-9a8b-7c6d5e4f3a2b",
    ),
    SmiRow(
        "535.104.05",
        "NVIDIA A100-SXM4-80GB",
        "8.0",
        81920,
        "GPU-0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9",
    ),
)
SMI_NA = "470.82.01, NVIDIA GeForce GTX 1080 Ti, [N/A], [N/A], [N/A]\n"
# A driver before 510 answering SMI_QUERY_BEFORE_510 (no compute_cap column).
SMI_BEFORE_510 = (
    "470.82.01, NVIDIA GeForce GTX 1080 Ti, 11178, GPU-7d9e8f6a-1b2c-3d4e-5f60-718293a4b5c6\n"
)
NO_COMPUTE_CAP = 'Field "compute_cap" is not a valid field to query.'

WSL_PROC_VERSION = (
    "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0, "
    "GNU ld (GNU Binutils) 2.37) #1 SMP Fri Mar 29 23:14:13 UTC 2024\n"
)
LINUX_PROC_VERSION = (
    "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) "
    "12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1\n"
)

# With environ={} the NVML and libcuda children find no driver library on a host without one,
# fail fast and are recorded; the cascade then reaches nvidia-smi and /proc.
LIBRARY_STEPS_FAIL = [("nvml", False), ("libcuda", False)]
TIMEOUT_S = 20.0


def write_script(directory: Path, body: str, name: str = "nvidia-smi") -> Path:
    """An executable /bin/sh script standing in for nvidia-smi."""
    script = directory / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return script


def smi_printing(directory: Path, output: str, exit_code: int = 0) -> Path:
    """A fake nvidia-smi that records its arguments, prints `output` and exits `exit_code`."""
    (directory / "smi-output.txt").write_text(output)
    return write_script(
        directory,
        f'printf "%s\\n" "$@" > "{directory / "smi-args.txt"}"\n'
        f'cat "{directory / "smi-output.txt"}"\n'
        f"exit {exit_code}\n",
    )


def smi_before_510(directory: Path) -> Path:
    """A fake nvidia-smi of a driver before 510: it rejects the compute_cap field (message on
    stdout, then an empty line, exit code 2) and answers the query without it. Each call's
    arguments are appended to smi-calls.txt, one line per call."""
    return write_script(
        directory,
        f'echo "$*" >> "{directory / "smi-calls.txt"}"\n'
        'case "$*" in\n'
        f"  *compute_cap*) echo '{NO_COMPUTE_CAP}'; echo; exit 2 ;;\n"
        "esac\n"
        f"echo '{SMI_BEFORE_510.strip()}'\n",
    )


def smi_args(directory: Path) -> list[str]:
    return (directory / "smi-args.txt").read_text().split()


def step_results(steps: tuple[ProbeStep, ...]) -> list[tuple[str, bool]]:
    return [(s.step, s.ok) for s in steps]


def _host_has_driver_library() -> bool:
    """A real libcuda / libnvidia-ml in the loader's cache would answer before nvidia-smi."""
    return any(ctypes.util.find_library(name) for name in ("cuda", "nvidia-ml"))


needs_posix_sh = pytest.mark.skipif(
    os.name != "posix" or not Path("/bin/sh").exists(), reason="the fake nvidia-smi is a sh script"
)
needs_no_driver_library = pytest.mark.skipif(
    _host_has_driver_library(),
    reason="a real NVIDIA driver library on this host answers before nvidia-smi and /proc",
)


# --- parse_proc_driver_version ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PROC_PROPRIETARY, "535.104.05"),
        (PROC_OPEN, "560.35.03"),
        (PROC_OPEN_ARM, "550.54.14"),
        (PROC_TWO_PART, "440.33"),
        (PROC_470, "470.82.01"),
    ],
)
def test_parse_proc_driver_version(text: str, expected: str) -> None:
    # A str exactly as NVIDIA prints it, leading zeros kept.
    assert parse_proc_driver_version(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",  # a version, but not the driver's
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module\n",
    ],
)
def test_parse_proc_driver_version_without_driver(text: str) -> None:
    assert parse_proc_driver_version(text) is None


# --- parse_nvidia_smi_csv -----------------------------------------------------------------------


def test_parse_nvidia_smi_csv_multi_gpu() -> None:
    assert parse_nvidia_smi_csv(SMI_TWO_GPUS) == SMI_TWO_GPUS_ROWS


def test_parse_nvidia_smi_csv_na_values() -> None:
    assert parse_nvidia_smi_csv(SMI_NA) == (
        SmiRow("470.82.01", "NVIDIA GeForce GTX 1080 Ti", None, None, None),
    )


def test_parse_nvidia_smi_csv_without_compute_cap_column() -> None:
    assert parse_nvidia_smi_csv(SMI_BEFORE_510, SMI_QUERY_BEFORE_510) == (
        SmiRow(
            "470.82.01",
            "NVIDIA GeForce GTX 1080 Ti",
            None,
            11178,
            "GPU-7d9e8f6a-1b2c-3d4e-5f60-718293a4b5c6",
        ),
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
        NO_COMPUTE_CAP + "\n\n",
    ],
)
def test_parse_nvidia_smi_csv_without_gpus(text: str) -> None:
    assert parse_nvidia_smi_csv(text) == ()
    assert parse_nvidia_smi_csv(text, SMI_QUERY_BEFORE_510) == ()


def test_parse_nvidia_smi_csv_skips_garbage_lines() -> None:
    text = "No devices were found, retry later\n" + SMI_TWO_GPUS + "\n"
    assert parse_nvidia_smi_csv(text) == SMI_TWO_GPUS_ROWS


# --- probe_driver with a real (fake) nvidia-smi -------------------------------------------------


@needs_posix_sh
@needs_no_driver_library
def test_probe_driver_runs_nvidia_smi(tmp_path: Path) -> None:
    smi = smi_printing(tmp_path, SMI_TWO_GPUS)
    proc = tmp_path / "version"
    proc.write_text(PROC_OPEN)  # nvidia-smi answers first, so this one is not used
    driver, gpus = probe_driver({}, timeout=TIMEOUT_S, proc_file=proc, smi=str(smi))
    assert (driver.version, driver.found_via, driver.state) == ("535.104.05", "nvidia-smi", "ok")
    assert driver.kernel_module is None
    assert gpus == tuple(
        GpuFacts(i, r.name, r.compute_capability, r.memory_mib, r.uuid, "nvidia-smi")
        for i, r in enumerate(SMI_TWO_GPUS_ROWS)
    )
    assert step_results(driver.steps) == [*LIBRARY_STEPS_FAIL, ("nvidia-smi", True)]
    assert smi_args(tmp_path) == SMI_QUERY_ARGS


@needs_posix_sh
@needs_no_driver_library
def test_probe_driver_times_out_and_falls_back_to_proc(tmp_path: Path) -> None:
    smi = write_script(tmp_path, "exec sleep 30\n")  # exec: the timeout kills the sleeper itself
    proc = tmp_path / "version"
    proc.write_text(PROC_PROPRIETARY)
    started = time.monotonic()
    # The same timeout bounds the NVML and libcuda children, which find no library and fail fast.
    driver, gpus = probe_driver({}, timeout=1.0, proc_file=proc, smi=str(smi))
    assert time.monotonic() - started < 10
    assert (driver.version, driver.found_via, driver.kernel_module) == (
        "535.104.05",
        str(proc),
        "535.104.05",
    )
    assert gpus == ()
    assert step_results(driver.steps) == [
        *LIBRARY_STEPS_FAIL,
        ("nvidia-smi", False),
        (str(proc), True),
    ]
    assert "nvidia-smi: timed out after 1.0 s" in driver.errors


@needs_posix_sh
@needs_no_driver_library
def test_probe_driver_ignores_failing_nvidia_smi(tmp_path: Path) -> None:
    smi = smi_printing(tmp_path, SMI_TWO_GPUS, exit_code=1)  # valid-looking output, exit 1
    proc = tmp_path / "version"
    proc.write_text(PROC_OPEN)
    driver, gpus = probe_driver({}, timeout=TIMEOUT_S, proc_file=proc, smi=str(smi))
    assert (driver.version, driver.found_via) == ("560.35.03", str(proc))
    assert gpus == ()
    assert smi_args(tmp_path) == SMI_QUERY_ARGS  # it ran, once: exit 1 is no reason to retry
    failed = [s for s in driver.steps if s.step == "nvidia-smi"]
    assert len(failed) == 1
    assert not failed[0].ok
    assert failed[0].detail.startswith("exit code 1")


@needs_posix_sh
@needs_no_driver_library
def test_probe_driver_finds_nothing(tmp_path: Path) -> None:
    smi = smi_printing(tmp_path, "", exit_code=9)
    missing = tmp_path / "no-such-file"
    driver, gpus = probe_driver({}, timeout=TIMEOUT_S, proc_file=missing, smi=str(smi))
    assert (driver.version, driver.found_via, driver.state, driver.kernel_module) == (
        None,
        None,
        "missing",
        None,
    )
    assert gpus == ()
    assert step_results(driver.steps) == [
        *LIBRARY_STEPS_FAIL,
        ("nvidia-smi", False),
        (str(missing), False),
    ]
    assert len(driver.errors) == 4  # every failed step is kept as evidence


@needs_no_driver_library
def test_probe_driver_missing_executable(tmp_path: Path) -> None:
    proc = tmp_path / "version"
    proc.write_text(PROC_TWO_PART)
    driver, gpus = probe_driver(
        {}, timeout=TIMEOUT_S, proc_file=proc, smi=str(tmp_path / "not-there")
    )
    assert (driver.version, driver.found_via) == ("440.33", str(proc))
    assert gpus == ()
    assert step_results(driver.steps) == [
        *LIBRARY_STEPS_FAIL,
        ("nvidia-smi", False),
        (str(proc), True),
    ]


@needs_posix_sh
@needs_no_driver_library
def test_probe_driver_finds_nvidia_smi_on_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi_printing(bin_dir, SMI_NA)
    driver, gpus = probe_driver(
        {"PATH": str(bin_dir)}, timeout=TIMEOUT_S, proc_file=tmp_path / "none"
    )
    assert (driver.version, driver.found_via) == ("470.82.01", "nvidia-smi")
    assert [(g.name, g.compute_capability) for g in gpus] == [("NVIDIA GeForce GTX 1080 Ti", None)]
    assert step_results(driver.steps) == [*LIBRARY_STEPS_FAIL, ("nvidia-smi", True)]
    assert smi_args(bin_dir) == SMI_QUERY_ARGS


@needs_posix_sh
def test_environment_override_wins(tmp_path: Path) -> None:
    smi = smi_printing(tmp_path, SMI_TWO_GPUS)
    proc = tmp_path / "version"
    proc.write_text(PROC_OPEN)
    driver, gpus = probe_driver(
        {"ENVCHECK_DRIVER_VERSION": "550.54.14", "PATH": str(tmp_path)},
        timeout=TIMEOUT_S,
        proc_file=proc,
        smi=str(smi),
    )
    assert (driver.version, driver.found_via, driver.state) == (
        "550.54.14",
        "ENVCHECK_DRIVER_VERSION",
        "ok",
    )
    assert gpus == ()
    assert driver.steps == (ProbeStep("ENVCHECK_DRIVER_VERSION", True, "550.54.14"),)
    assert not (tmp_path / "smi-args.txt").exists()  # nvidia-smi was never run
    # The same through machine.host_driver, with the fake nvidia-smi on PATH.
    assert host_driver(environ={"ENVCHECK_DRIVER_VERSION": "550.54.14", "PATH": str(tmp_path)}) == (
        DriverVersion("550.54.14"),
        (),
        "ENVCHECK_DRIVER_VERSION",
        (),
    )
    assert not (tmp_path / "smi-args.txt").exists()


def test_bad_environment_override_is_an_input_error() -> None:
    with pytest.raises(InputError, match="ENVCHECK_DRIVER_VERSION"):
        host_driver(environ={"ENVCHECK_DRIVER_VERSION": "latest"})


@pytest.mark.skipif(host_os() == "macos", reason="macOS has no CUDA driver to read")
def test_bad_environment_override_through_describe_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ENVCHECK_DRIVER_VERSION", "latest")
    with pytest.raises(InputError, match="ENVCHECK_DRIVER_VERSION"):
        describe_machine(None, None, None, None, None)


@needs_posix_sh
@needs_no_driver_library
def test_gpu_names_survive_a_driver_without_compute_cap(tmp_path: Path) -> None:
    # Drivers before 510 have no compute_cap query field: nvidia-smi prints 'Field "compute_cap"
    # is not a valid field to query.' and exits 2 (NVIDIA/TensorRT-LLM#735 for 470.82.01,
    # huggingface/candle#733, CoHDI/composable-resource-operator#37); the probe asks again.
    smi = smi_before_510(tmp_path)
    proc = tmp_path / "version"
    proc.write_text(PROC_470)
    driver, gpus = probe_driver({}, timeout=TIMEOUT_S, proc_file=proc, smi=str(smi))
    assert (driver.version, driver.found_via) == ("470.82.01", "nvidia-smi")
    assert [(g.name, g.compute_capability, g.memory_mib) for g in gpus] == [
        ("NVIDIA GeForce GTX 1080 Ti", None, 11178)
    ]
    calls = (tmp_path / "smi-calls.txt").read_text().splitlines()
    assert [call.split() for call in calls] == [SMI_QUERY_ARGS, SMI_QUERY_BEFORE_510_ARGS]


# --- host_driver: the cascade's answer as the recommendation needs it ---------------------------


@needs_posix_sh
@needs_no_driver_library
def test_host_driver_through_nvidia_smi_on_path(tmp_path: Path) -> None:
    smi_printing(tmp_path, SMI_TWO_GPUS)
    # /proc/driver/nvidia/version is never reached: nvidia-smi answers first.
    assert host_driver(environ={"PATH": str(tmp_path)}, timeout=TIMEOUT_S) == (
        DriverVersion("535.104.05"),
        (
            GpuDescription("NVIDIA GeForce RTX 3090", ComputeCapability(8, 6)),
            GpuDescription("NVIDIA A100-SXM4-80GB", ComputeCapability(8, 0)),
        ),
        "nvidia-smi",
        ("nvml", "libcuda"),
    )
    assert smi_args(tmp_path) == SMI_QUERY_ARGS


@needs_posix_sh
@needs_no_driver_library
def test_host_driver_before_510_keeps_the_gpu_name(tmp_path: Path) -> None:
    smi_before_510(tmp_path)
    driver, gpus, via, failed = host_driver(environ={"PATH": str(tmp_path)}, timeout=TIMEOUT_S)
    assert (driver, via, failed) == (DriverVersion("470.82.01"), "nvidia-smi", ("nvml", "libcuda"))
    assert gpus == (GpuDescription("NVIDIA GeForce GTX 1080 Ti", None),)
    assert len((tmp_path / "smi-calls.txt").read_text().splitlines()) == 2


# --- with_capabilities --------------------------------------------------------------------------


def _machine_with(*gpus: GpuDescription) -> MachineDescription:
    return MachineDescription(
        os="linux",
        arch="x86_64",
        python=PythonVersion(3, 9),
        driver=DriverVersion("470.82.01"),
        gpus=gpus,
        found_via={"driver": "nvidia-smi", "gpu": "nvidia-smi"},
        searched=("nvml", "libcuda"),
    )


def test_with_capabilities_fills_only_missing_capabilities() -> None:
    table = {
        "NVIDIA GeForce GTX 1080 Ti": ComputeCapability(6, 1),
        "NVIDIA GeForce RTX 3090": ComputeCapability(7, 0),  # wrong on purpose: must not be used
    }
    asked: list[str] = []

    def lookup(name: str) -> ComputeCapability | None:
        asked.append(name)
        return table.get(name)

    machine = _machine_with(
        GpuDescription("NVIDIA GeForce GTX 1080 Ti", None),  # a name, no CC: looked up
        GpuDescription("NVIDIA GeForce RTX 3090", ComputeCapability(8, 6)),  # keeps its CC
        GpuDescription("Mystery Accelerator 9000", None),  # unknown name: stays unknown
        GpuDescription(None, None),  # nothing to look up
    )
    filled = with_capabilities(machine, lookup)
    assert filled.gpus == (
        GpuDescription("NVIDIA GeForce GTX 1080 Ti", ComputeCapability(6, 1)),
        GpuDescription("NVIDIA GeForce RTX 3090", ComputeCapability(8, 6)),
        GpuDescription("Mystery Accelerator 9000", None),
        GpuDescription(None, None),
    )
    assert asked == ["NVIDIA GeForce GTX 1080 Ti", "Mystery Accelerator 9000"]
    # Everything else about the machine is unchanged.
    assert filled == _machine_with(*filled.gpus)
    assert machine.gpus[0].compute_capability is None  # the original is not modified


def test_with_capabilities_from_the_gpu_table() -> None:
    """nvidia-smi's names (with 'NVIDIA ') resolve in the bundled gpus.toml."""
    index = GpuIndex.build(load_matrix(bundled_matrix_dir()).gpus)

    def lookup(name: str) -> ComputeCapability | None:
        try:
            return index.find(name).compute_capability
        except InputError:
            return None

    machine = _machine_with(
        GpuDescription("NVIDIA GeForce GTX 1080 Ti", None),
        GpuDescription("Mystery Accelerator 9000", None),
    )
    assert with_capabilities(machine, lookup).gpus == (
        GpuDescription("NVIDIA GeForce GTX 1080 Ti", ComputeCapability(6, 1)),
        GpuDescription("Mystery Accelerator 9000", None),
    )


# --- host_os ------------------------------------------------------------------------------------


@pytest.fixture
def on_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "system", lambda: "Linux")


@pytest.mark.usefixtures("on_linux")
def test_host_os_wsl_from_proc_version(tmp_path: Path) -> None:
    proc_version = tmp_path / "version"
    proc_version.write_text(WSL_PROC_VERSION)
    assert host_os(proc_version, environ={}) == "wsl"


@pytest.mark.usefixtures("on_linux")
def test_host_os_wsl_from_distro_name(tmp_path: Path) -> None:
    proc_version = tmp_path / "version"
    proc_version.write_text(LINUX_PROC_VERSION)
    assert host_os(proc_version, environ={"WSL_DISTRO_NAME": "Ubuntu-22.04"}) == "wsl"


@pytest.mark.usefixtures("on_linux")
def test_host_os_plain_linux(tmp_path: Path) -> None:
    proc_version = tmp_path / "version"
    proc_version.write_text(LINUX_PROC_VERSION)
    assert host_os(proc_version, environ={}) == "linux"
    assert host_os(tmp_path / "missing", environ={}) == "linux"


@pytest.mark.parametrize(("system", "expected"), [("Windows", "windows"), ("Darwin", "macos")])
def test_host_os_windows_and_macos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, system: str, expected: str
) -> None:
    monkeypatch.setattr(platform, "system", lambda: system)
    proc_version = tmp_path / "version"
    proc_version.write_text(WSL_PROC_VERSION)  # ignored off Linux
    assert host_os(proc_version, environ={"WSL_DISTRO_NAME": "x"}) == expected


# --- describe_machine, normalize_os / normalize_arch -------------------------------------------


@pytest.mark.skipif(host_os() != "linux", reason="needs a plain Linux host")
def test_other_os_without_driver_is_an_input_error() -> None:
    with pytest.raises(InputError, match="--driver"):
        describe_machine("windows", "x86_64", "3.11", None, None)


def test_other_os_with_driver() -> None:
    described = describe_machine("windows", "amd64", "3.11", "531.79", None)
    assert described == MachineDescription(
        os="windows",
        arch="x86_64",
        python=PythonVersion(3, 11),
        driver=DriverVersion("531.79"),
        gpus=(),
        found_via=described.found_via,
    )
    assert described.found_via["driver"] == "--driver"
    assert described.platform == "windows-x86_64"


def test_driver_none_means_no_driver() -> None:
    described = describe_machine("linux", "x86_64", "3.11", "none", None)
    assert described.driver is None
    assert described.found_via["driver"] == "--driver"


def test_macos_needs_no_driver() -> None:
    described = describe_machine("darwin", "arm64", "3.12", None, None)
    assert (described.os, described.arch, described.driver) == ("macos", "aarch64", None)
    assert described.platform == "macos-arm64"


@pytest.mark.skipif(host_os() != "linux", reason="needs a plain Linux host")
def test_this_host_reads_the_environment_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVCHECK_DRIVER_VERSION", "550.54.14")
    described = describe_machine("linux", "x86_64", None, None, None)
    assert str(described.driver) == "550.54.14"
    assert described.found_via["driver"] == "ENVCHECK_DRIVER_VERSION"
    assert described.found_via["python"] == "this interpreter"


def test_describe_machine_rejects_bad_values() -> None:
    with pytest.raises(InputError, match="banana"):
        describe_machine("linux", "x86_64", "3.11", "banana", None)
    with pytest.raises(InputError, match="three"):
        describe_machine("linux", "x86_64", "three", "535.104.05", None)


@pytest.mark.parametrize(
    ("os_name", "arch", "expected"),
    [
        ("wsl", "x86_64", "linux-x86_64"),  # WSL installs Linux wheels
        ("linux", "aarch64", "linux-aarch64"),
        ("macos", "x86_64", "macos-x86_64"),
        ("macos", "aarch64", "macos-arm64"),
    ],
)
def test_platform_names(os_name: str, arch: str, expected: str) -> None:
    described = MachineDescription(os_name, arch, PythonVersion(3, 11), None, ())
    assert described.platform == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("linux", "linux"),
        (" Linux ", "linux"),
        ("darwin", "macos"),
        ("mac", "macos"),
        ("osx", "macos"),
        ("win32", "windows"),
        ("win", "windows"),
        ("WSL", "wsl"),
    ],
)
def test_normalize_os(text: str, expected: str) -> None:
    assert normalize_os(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("amd64", "x86_64"), ("x64", "x86_64"), ("X86_64", "x86_64"), ("arm64", "aarch64")],
)
def test_normalize_arch(text: str, expected: str) -> None:
    assert normalize_arch(text) == expected


@pytest.mark.parametrize("text", ["beos", "", "ubuntu", "android"])
def test_normalize_os_rejects(text: str) -> None:
    with pytest.raises(InputError, match="--os"):
        normalize_os(text)


@pytest.mark.parametrize("text", ["i386", "ppc64le", "armv7l", ""])
def test_normalize_arch_rejects(text: str) -> None:
    with pytest.raises(InputError, match="--arch"):
        normalize_arch(text)
