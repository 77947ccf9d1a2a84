"""The NVIDIA driver and GPUs: an ordered cascade, first success wins, every failure kept.

Order: ENVCHECK_DRIVER_VERSION, NVML (nvidia-ml-py), libcuda through ctypes, `nvidia-smi
--query-gpu`, /proc/driver/nvidia/version. NVML and libcuda run in child processes with a
timeout (a broken driver hangs or crashes them); nvidia-smi runs under a timeout too. The driver
release (535.104.05) and the driver's CUDA version (12.2) are kept as distinct values. Parsers
of tool output are pure functions at the top of this module.
"""

from __future__ import annotations

import importlib.machinery
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from envcheck.probe import file_system
from envcheck.probe.binary_files import expand_origin, read_binary
from envcheck.probe.facts import DriverFacts, DriverState, GpuFacts, ProbeStep
from envcheck.probe.isolation import ChildGroup, ChildResult, run_child
from envcheck.probe.search import LinuxSearch, host_search
from envcheck.record import record

OVERRIDE = "ENVCHECK_DRIVER_VERSION"
NVML_LIBRARY = "libnvidia-ml.so.1"  # what nvidia-ml-py dlopen()s on Linux
LIBCUDA_LIBRARIES = ("libcuda.so.1", "libcuda.so")  # the libcuda child's defaults on Linux
Locate = Callable[[str], bool]
PROC_VERSION = Path("/proc/driver/nvidia/version")
NVML_LIB_RM_VERSION_MISMATCH = 18  # nvml.h NVML_ERROR_LIB_RM_VERSION_MISMATCH
WSL_LIB_DIR = "/usr/lib/wsl/lib"

# --- pure parsers ---------------------------------------------------------------------------


def parse_proc_driver_version(text: str) -> str | None:
    """The kernel module's version in /proc/driver/nvidia/version.

    'NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ...' and the open
    module's 'NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build ...'.
    """
    match = re.search(r"Kernel Module(?: for [\w-]+)?\s+(\d+(?:\.\d+)+)", text)
    return match.group(1) if match else None


@record
class SmiRow:
    driver: str
    name: str | None
    compute_capability: str | None  # None where the driver prints [N/A] (before 510)
    memory_mib: int | None
    uuid: str | None


SMI_QUERY = ("driver_version", "name", "compute_cap", "memory.total", "uuid")
# Drivers before 510 reject the compute_cap field ('Field "compute_cap" is not a valid field to
# query.') and exit 2; the probe then asks again without it.
SMI_QUERY_BEFORE_510 = ("driver_version", "name", "memory.total", "uuid")


def parse_nvidia_smi_csv(text: str, fields: tuple[str, ...] = SMI_QUERY) -> tuple[SmiRow, ...]:
    """Rows of `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits`, one per GPU."""
    rows = []
    for line in text.splitlines():
        values = dict(zip(fields, (part.strip() for part in line.split(","))))
        driver = values.get("driver_version", "")
        if not re.fullmatch(r"\d+(\.\d+)+", driver):
            continue
        capability = values.get("compute_cap", "")
        memory = values.get("memory.total", "")
        uuid = values.get("uuid", "")
        rows.append(
            SmiRow(
                driver,
                values.get("name") or None,
                capability if re.fullmatch(r"\d+\.\d+", capability) else None,
                int(memory) if memory.isdigit() else None,
                uuid if uuid.startswith("GPU-") else None,
            )
        )
    return tuple(rows)


def cuda_version_text(encoded: int) -> str:
    """12020 -> '12.2' (cuDriverGetVersion / nvmlSystemGetCudaDriverVersion encoding)."""
    return f"{encoded // 1000}.{(encoded % 1000) // 10}"


def version_from_library_path(path: str | None) -> str | None:
    """The driver release in a resolved library name: libcuda.so.535.104.05 -> 535.104.05."""
    if not path:
        return None
    match = re.search(r"lib(?:cuda|nvidia-ml)\.so\.(\d+\.\d+(?:\.\d+)?)$", os.path.realpath(path))
    return match.group(1) if match else None


# --- the cascade ----------------------------------------------------------------------------


@dataclass
class _Cascade:
    """What the cascade has learned so far; each step adds to it."""

    env: dict[str, str]
    timeout: float
    group: ChildGroup = field(default_factory=ChildGroup)  # what cancels the cascade's children
    steps: list[ProbeStep] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    state: DriverState = "missing"
    cuda: str | None = None  # the driver's CUDA version, from libcuda even when cuInit fails
    library_version: str | None = None  # driver release read from a user-space library name
    gpus: tuple[GpuFacts, ...] = ()

    def fail(self, step: str, detail: str) -> None:
        self.steps.append(ProbeStep(step, False, detail))
        self.errors.append(f"{step}: {detail}")

    def succeed(self, step: str, detail: str) -> None:
        self.steps.append(ProbeStep(step, True, detail))

    def facts(
        self,
        version: str | None,
        found_via: str | None,
        state: DriverState,
        kernel: str | None = None,
    ) -> DriverFacts:
        return DriverFacts(
            version=version,
            cuda=self.cuda,
            found_via=found_via,
            state=state,
            kernel_module=kernel,
            user_library=self.library_version,
            errors=tuple(self.errors),
            steps=tuple(self.steps),
        )


def _gpus(raw: list[Any], found_via: str) -> tuple[GpuFacts, ...]:
    gpus = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            continue
        memory = item.get("memory_mib")
        gpus.append(
            GpuFacts(
                index=int(item.get("index", index)),
                name=item.get("name"),
                compute_capability=item.get("compute_capability"),
                memory_mib=int(memory) if isinstance(memory, int) else None,
                uuid=item.get("uuid"),
                found_via=found_via,
            )
        )
    return tuple(gpus)


def _child_failure(result: ChildResult) -> str:
    return f"the child process {result.describe()}"


def pynvml_dir(places: Sequence[str] | None = None) -> str | None:
    """The site directory nvidia-ml-py's `pynvml` is in, found without importing it.

    The NVML child starts without the site module (fast, see run_child) and imports pynvml from
    here; nvidia-ml-py needs only the standard library. Only the directories an isolated (-I)
    start puts on sys.path are searched, never the working directory, and a `pynvml` package
    (the older pynvml distribution) is found as well as the nvidia-ml-py module. `places`
    replaces those directories (tests).
    """
    if places is None:
        places = [
            sysconfig.get_path("purelib"),
            sysconfig.get_path("platlib"),
            *getattr(site, "getsitepackages", list)(),
        ]
    try:
        spec = importlib.machinery.PathFinder.find_spec("pynvml", list(dict.fromkeys(places)))
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    module = Path(spec.origin)
    # pynvml.py -> its directory; pynvml/__init__.py -> the directory that holds the package.
    return str(module.parent.parent if spec.submodule_search_locations else module.parent)


def _step_nvml(cascade: _Cascade, locate: Locate | None) -> DriverFacts | None:
    if locate is not None and not locate(NVML_LIBRARY):
        cascade.fail("nvml", _not_found(NVML_LIBRARY))
        return None
    argument = {"pynvml_dir": pynvml_dir()}
    result = run_child(
        "nvml", argument, env=cascade.env, timeout=cascade.timeout, site=False, group=cascade.group
    )
    data = result.data
    if not result.ok or data is None:
        cascade.fail("nvml", _child_failure(result))
        return None
    cascade.library_version = version_from_library_path(data.get("library_path"))
    if "error" in data:
        cascade.fail("nvml", str(data["error"]))
        if data.get("error_code") == NVML_LIB_RM_VERSION_MISMATCH:
            cascade.state = "mismatch"
        return None
    encoded = data.get("cuda_driver_version")
    cascade.cuda = cuda_version_text(encoded) if isinstance(encoded, int) else None
    cascade.gpus = _gpus(data.get("gpus", []), "nvml")
    version = data.get("driver_version")
    cascade.succeed("nvml", f"driver {version}, {len(cascade.gpus)} GPU(s)")
    return cascade.facts(version, "nvml", "ok" if cascade.gpus else "no-device")


def _step_libcuda(
    cascade: _Cascade, names: tuple[str, ...], locate: Locate | None
) -> DriverFacts | None:
    if locate is not None and not any(locate(name) for name in names or LIBCUDA_LIBRARIES):
        cascade.fail("libcuda", _not_found(" or ".join(names or LIBCUDA_LIBRARIES)))
        return None
    result = run_child(
        "libcuda",
        {"names": list(names)},
        env=cascade.env,
        timeout=cascade.timeout,
        site=False,
        group=cascade.group,
    )
    data = result.data
    if not result.ok or data is None:
        cascade.fail("libcuda", _child_failure(result))
        return None
    if "error" in data:
        cascade.fail("libcuda", f"{data['error']} ({'; '.join(data.get('tried', []))})")
        return None
    path = str(data.get("library_path") or "")
    encoded = data.get("cuda_driver_version")
    cascade.cuda = cuda_version_text(encoded) if isinstance(encoded, int) else None
    version = version_from_library_path(path)
    cascade.library_version = cascade.library_version or version
    cuinit = str(data.get("cuinit"))
    if "/stubs/" in path or cuinit == "CUDA_ERROR_STUB_LIBRARY":
        cascade.state = "stub"
        cascade.fail("libcuda", f"{path} is the CUDA toolkit's stub libcuda, not a driver")
        return None
    if cuinit != "CUDA_SUCCESS":
        # The driver library is there but cuInit failed: keep looking for the release number.
        if cascade.state == "missing":
            cascade.state = "no-device" if cuinit == "CUDA_ERROR_NO_DEVICE" else "error"
        cascade.fail("libcuda", f"{path}: cuInit returned {cuinit} (driver CUDA {cascade.cuda})")
        return None
    cascade.gpus = _gpus(data.get("gpus", []), "libcuda")
    cascade.succeed("libcuda", f"{path}: CUDA {cascade.cuda}, {len(cascade.gpus)} GPU(s)")
    return cascade.facts(version, "libcuda", "ok" if cascade.gpus else "no-device")


def _step_nvidia_smi(cascade: _Cascade, smi: str | None) -> DriverFacts | None:
    executable = (
        smi if smi is not None else shutil.which("nvidia-smi", path=cascade.env.get("PATH"))
    )
    if executable is None:
        cascade.fail("nvidia-smi", "not found on PATH")
        return None
    rows, detail = _run_smi(executable, cascade.timeout, cascade.group)
    if not rows:
        cascade.fail("nvidia-smi", detail)
        return None
    cascade.succeed("nvidia-smi", f"driver {rows[0].driver}, {len(rows)} GPU(s)")
    cascade.gpus = tuple(
        GpuFacts(i, r.name, r.compute_capability, r.memory_mib, r.uuid, "nvidia-smi")
        for i, r in enumerate(rows)
    )
    state = cascade.state if cascade.state in ("mismatch", "no-device", "error") else "ok"
    return cascade.facts(rows[0].driver, "nvidia-smi", state)


def _step_proc(cascade: _Cascade, proc_file: Path) -> DriverFacts:
    kernel = None
    try:
        kernel = parse_proc_driver_version(proc_file.read_text(errors="replace"))
    except OSError as exc:
        cascade.fail(str(proc_file), exc.strerror or str(exc))
    else:
        if kernel is None:
            cascade.fail(str(proc_file), "no version in the file")
        else:
            cascade.succeed(str(proc_file), f"kernel module {kernel}")
    version = kernel or cascade.library_version
    state = cascade.state
    if state == "missing" and (version or cascade.cuda):
        state = "error"
    found_via = str(proc_file) if kernel else ("libcuda" if cascade.cuda else None)
    return cascade.facts(version, found_via, state, kernel)


def _not_found(name: str) -> str:
    return (
        f"{name} was not found where the loader looks (RPATH, LD_LIBRARY_PATH, ld.so.cache, "
        "the default directories); step skipped"
    )


# Subdirectories ld.so also searches inside each directory: glibc-hwcaps (glibc 2.33+) and the
# legacy hardware-capability names (before glibc 2.37). The emulation does not follow them.
_HWCAP_SUBDIRS = ("glibc-hwcaps", "tls", "x86_64", "haswell", "avx512_1", "aarch64", "i686")


def loader_locate(env: Mapping[str, str], executable: str | None = None) -> Locate | None:
    """Whether the dynamic loader could find a library name, for this host and `env`.

    The probe's loader emulation (envcheck.probe.search, checked against the real ld.so) answers
    in a few milliseconds what a child process answers in 25-70 ms, and on a machine without a
    driver that is every doctor run. The children's dlopen() comes from `executable` (default:
    this interpreter), whose DT_RPATH counts (conda's python has one). None (the children
    decide) wherever the emulation would guess: not Linux, no ld.so.cache to read (musl,
    NixOS, no ldconfig), LD_PRELOAD set (a preloaded library satisfies a dlopen() by its soname
    from anywhere), or an LD_LIBRARY_PATH directory with hardware-capability subdirectories.
    """
    if sys.platform != "linux" or env.get("LD_PRELOAD"):
        return None
    search = host_search(env=env, rpath=_executable_rpath(executable or sys.executable))
    if not isinstance(search, LinuxSearch) or not search.ld_cache:
        return None
    if any(
        file_system.is_dir(Path(directory, sub))
        for directory in search.ld_library_path
        if directory
        for sub in _HWCAP_SUBDIRS
    ):
        return None

    def locate(name: str) -> bool:
        return bool(search.candidates(name))

    return locate


def _executable_rpath(executable: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The executable's DT_RPATH with $ORIGIN expanded, as ld.so searches it for a dlopen() by a
    library without a RUNPATH of its own (the ctypes module). Empty when it has a RUNPATH."""
    real = os.path.realpath(executable)
    info = read_binary(real, exports=False)
    if not info.rpath or info.runpath:
        return ()
    return ((real, expand_origin(info.rpath, str(Path(real).parent))),)


def probe_driver(
    environ: Mapping[str, str] | None = None,
    timeout: float = 10.0,
    proc_file: Path = PROC_VERSION,
    smi: str | None = None,
    libcuda_names: tuple[str, ...] = (),
    locate: Locate | Literal["host"] | None = "host",
    group: ChildGroup | None = None,
) -> tuple[DriverFacts, tuple[GpuFacts, ...]]:
    """Run the cascade; `environ` is the environment the children get (LD_LIBRARY_PATH...).

    `locate` says whether the loader could find a library at all; the NVML and libcuda children
    are skipped for a library it cannot find. "host": this host's loader rules (loader_locate);
    None: always run the children. `group` lets the caller cancel the children (and nvidia-smi).
    """
    environment = dict(os.environ if environ is None else environ)
    cascade = _Cascade(environment, timeout, group or ChildGroup())
    override = cascade.env.get(OVERRIDE)
    if override:
        cascade.succeed(OVERRIDE, override)
        return cascade.facts(override, OVERRIDE, "ok"), ()
    if locate == "host":
        locate = loader_locate(cascade.env)
    facts = (
        _step_nvml(cascade, locate)
        or _step_libcuda(cascade, libcuda_names, locate)
        or _step_nvidia_smi(cascade, smi)
        or _step_proc(cascade, proc_file)
    )
    return facts, cascade.gpus


def _run_smi(executable: str, timeout: float, group: ChildGroup) -> tuple[tuple[SmiRow, ...], str]:
    rows, detail = _query_smi(executable, SMI_QUERY, timeout, group)
    if not rows and "not a valid field" in detail:
        rows, detail = _query_smi(executable, SMI_QUERY_BEFORE_510, timeout, group)
    return rows, detail


def _query_smi(
    executable: str, fields: tuple[str, ...], timeout: float, group: ChildGroup
) -> tuple[tuple[SmiRow, ...], str]:
    query = [executable, f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"]
    try:
        completed = group.run(query, timeout=timeout, check="driver")
    except subprocess.TimeoutExpired:
        return (), f"timed out after {timeout:.1f} s"
    except OSError as exc:
        return (), str(exc)
    if completed.returncode != 0:
        message = (completed.stdout + completed.stderr).strip().splitlines()
        first = message[0] if message else ""
        return (), f"exit code {completed.returncode}: {first}".rstrip(": ")
    rows = parse_nvidia_smi_csv(completed.stdout, fields)
    return rows, "" if rows else "no GPU rows in its output"
