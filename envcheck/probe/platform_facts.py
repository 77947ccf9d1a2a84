"""Platform facts: OS, architecture, Python and its bitness, WSL, container, device nodes.

Parsers are pure and take text; the reader takes explicit paths and an environment that default
to the host, so tests build fake /proc and /dev trees. Nothing here loads a library.
"""

from __future__ import annotations

import os
import platform
import struct
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from envcheck.platforms import host_arch, os_name, wsl_kind
from envcheck.probe import file_system
from envcheck.probe.facts import PlatformFacts


def container_kind(
    cgroup: str, environ: Mapping[str, str], dockerenv: bool, containerenv: bool
) -> str | None:
    """docker | podman | kubernetes | container | None, from the usual markers."""
    if "KUBERNETES_SERVICE_HOST" in environ or "kubepods" in cgroup:
        return "kubernetes"
    if containerenv or environ.get("container") == "podman":
        return "podman"
    if dockerenv or "docker" in cgroup:
        return "docker"
    if environ.get("container"):
        return "container"
    return None


_NVIDIA_VENDOR = "0x10de"
_DISPLAY_CLASS = "0x03"  # PCI base class 03: VGA (0300), 3D (0302, data-centre GPUs), other (0380)
_WSL_GPU_DEVICE = "dev/dxg"  # WSL2's GPU paravirtualisation device


# The display adapters Windows lists, with their PCI ids (PCI\VEN_10DE&DEV_2504&...).
_WINDOWS_ADAPTERS = (
    "powershell",
    "-NoProfile",
    "-NonInteractive",
    "-Command",
    "Get-CimInstance Win32_VideoController | ForEach-Object { $_.Name + '|' + $_.PNPDeviceID }",
)
_WINDOWS_TIMEOUT_S = 15.0


def parse_video_controllers(text: str) -> tuple[str | None, tuple[str, ...]]:
    """("present" | "absent" | None, evidence) from `name|PNPDeviceID` lines; None when the
    output names no adapter at all (the query failed in some way)."""
    adapters = [line.strip() for line in text.splitlines() if "|" in line]
    if not adapters:
        return None, ()
    nvidia = [a for a in adapters if "VEN_10DE" in a.upper()]
    if nvidia:
        return "present", tuple(f"display adapter {a}" for a in nvidia)
    names = ", ".join(a.split("|", 1)[0] for a in adapters)
    return "absent", (f"no NVIDIA display adapter among: {names}",)


def _windows_adapters() -> str:
    try:
        done = subprocess.run(
            _WINDOWS_ADAPTERS,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=_WINDOWS_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout if done.returncode == 0 else ""


def _not_asked() -> str:
    return ""


def nvidia_gpu_presence(
    root: Path,
    os_name: str,
    wsl: str | None,
    windows_adapters: Callable[[], str] = _windows_adapters,
) -> tuple[str | None, tuple[str, ...]]:
    """("present" | "absent" | None, evidence): is there an NVIDIA GPU, whatever its driver.

    Linux: the PCI devices in sysfs with NVIDIA's vendor id and a display class (the card's
    audio function is not a GPU). Containers see the host's sysfs, so a GPU the container was
    not given still shows here. WSL2: GPUs reach Linux only through /dev/dxg; without it none
    can. Windows: the display adapters it lists (Win32_VideoController, PCI vendor 10DE),
    asked in a child with a timeout. None where the OS cannot be asked (macOS, no readable
    sysfs, a failed query).
    """
    if os_name == "windows":
        return parse_video_controllers(windows_adapters())
    if wsl is not None:
        if file_system.exists(root / _WSL_GPU_DEVICE):
            return None, ("/dev/dxg present: a GPU is shared from Windows (vendor not visible)",)
        return "absent", ("no /dev/dxg: no GPU is shared with this WSL distribution",)
    if os_name != "linux":
        return None, ()
    devices = root / "sys" / "bus" / "pci" / "devices"
    entries = file_system.children(devices)
    if not entries:
        return None, ()  # a sandbox that hides the PCI bus tells nothing
    found = []
    for device in entries:
        vendor = _read(device / "vendor").strip().lower()
        device_class = _read(device / "class").strip().lower()
        if vendor == _NVIDIA_VENDOR and device_class.startswith(_DISPLAY_CLASS):
            product = _read(device / "device").strip().lower().removeprefix("0x")
            found.append(f"PCI {device.name} 10de:{product or '?'} class {device_class}")
    if found:
        return "present", tuple(found)
    return "absent", (f"no NVIDIA display device among the {len(entries)} PCI devices in sysfs",)


def _read(path: Path) -> str:
    return file_system.read_text(path) or ""


# The NVIDIA Container Toolkit's programs: any one of them on a host means a container engine
# can be set up to hand containers the GPU (the runtime, its OCI hook, the CLI the hook runs,
# nvidia-ctk that writes CDI specs). Looked for on PATH and where packages install them.
TOOLKIT_PROGRAMS = (
    "nvidia-container-runtime",
    "nvidia-container-runtime-hook",
    "nvidia-container-cli",
    "nvidia-ctk",
)
_PROGRAM_DIRS = ("usr/bin", "usr/local/bin", "usr/sbin", "bin")
_CDI_DIRS = ("etc/cdi", "var/run/cdi")  # Container Device Interface specs (nvidia-ctk cdi generate)


def container_toolkit(root: Path, environ: Mapping[str, str]) -> tuple[str, ...]:
    """The toolkit's programs found, by name, and its CDI specs ("cdi:nvidia.yaml"); () for
    none. Names only, so that nodes set up alike report alike (the report's key facts)."""
    places = [Path(d) for d in environ.get("PATH", "").split(os.pathsep) if d.startswith("/")]
    places = [root / str(d).lstrip("/") for d in places] + [root / d for d in _PROGRAM_DIRS]
    found = [
        name for name in TOOLKIT_PROGRAMS if any(file_system.is_file(d / name) for d in places)
    ]
    for directory in _CDI_DIRS:
        found += [
            f"cdi:{spec.name}"
            for spec in file_system.children(root / directory)
            if "nvidia" in spec.name.lower() and spec.suffix in (".yaml", ".yml", ".json")
        ]
    return tuple(dict.fromkeys(found))


def read_platform(
    environ: Mapping[str, str] | None = None,
    root: Path = Path("/"),
) -> PlatformFacts:
    """Facts about this host; `root` lets tests point /proc, /dev and /.dockerenv elsewhere."""
    env = os.environ if environ is None else environ
    system = platform.system()
    proc_version = _read(root / "proc" / "version")
    wsl = wsl_kind(proc_version, env) if system == "Linux" else None
    name = os_name(system, wsl)
    device_dir = root / "dev"
    nodes = tuple(str(p) for p in file_system.children(device_dir) if p.name.startswith("nvidia"))
    container = None
    if system == "Linux":
        container = container_kind(
            _read(root / "proc" / "1" / "cgroup"),
            env,
            file_system.exists(root / ".dockerenv"),
            file_system.exists(root / "run" / ".containerenv"),
        )
    # Windows is asked only when it matters (no driver found: collect.py), as the query costs a
    # PowerShell start.
    nvidia_gpu, nvidia_gpu_evidence = nvidia_gpu_presence(root, name, wsl, _not_asked)
    return PlatformFacts(
        os=name,
        arch=host_arch(),
        python=platform.python_version(),
        python_bits=struct.calcsize("P") * 8,
        python_executable=sys.executable,
        wsl=wsl,
        container=container,
        device_nodes=nodes,
        cuda_visible_devices=env.get("CUDA_VISIBLE_DEVICES"),
        nvidia_visible_devices=env.get("NVIDIA_VISIBLE_DEVICES"),
        nvidia_gpu=nvidia_gpu,
        nvidia_gpu_evidence=nvidia_gpu_evidence,
        # Asked where containers get the GPU through it: Linux hosts (and WSL2's Linux).
        container_toolkit=container_toolkit(root, env) if system == "Linux" else None,
    )
