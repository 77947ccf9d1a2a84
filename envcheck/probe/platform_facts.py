"""Platform facts: OS, architecture, Python and its bitness, WSL, container, device nodes.

Parsers are pure and take text; the reader takes explicit paths and an environment that default
to the host, so tests build fake /proc and /dev trees. Nothing here loads a library.
"""

from __future__ import annotations

import os
import platform
import struct
import sys
from collections.abc import Mapping
from pathlib import Path

from envcheck.machine import host_arch, wsl_kind
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


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def read_platform(
    environ: Mapping[str, str] | None = None,
    root: Path = Path("/"),
) -> PlatformFacts:
    """Facts about this host; `root` lets tests point /proc, /dev and /.dockerenv elsewhere."""
    env = os.environ if environ is None else environ
    system = platform.system()
    proc_version = _read(root / "proc" / "version")
    wsl = wsl_kind(proc_version, env) if system == "Linux" else None
    if system == "Windows":
        os_name = "windows"
    elif system == "Darwin":
        os_name = "macos"
    else:
        os_name = "wsl" if wsl else "linux"
    device_dir = root / "dev"
    try:
        nodes = tuple(sorted(str(p) for p in device_dir.iterdir() if p.name.startswith("nvidia")))
    except OSError:
        nodes = ()
    container = None
    if system == "Linux":
        container = container_kind(
            _read(root / "proc" / "1" / "cgroup"),
            env,
            (root / ".dockerenv").exists(),
            (root / "run" / ".containerenv").exists(),
        )
    return PlatformFacts(
        os=os_name,
        arch=host_arch(),
        python=platform.python_version(),
        python_bits=struct.calcsize("P") * 8,
        python_executable=sys.executable,
        wsl=wsl,
        container=container,
        device_nodes=nodes,
        cuda_visible_devices=env.get("CUDA_VISIBLE_DEVICES"),
        nvidia_visible_devices=env.get("NVIDIA_VISIBLE_DEVICES"),
    )
