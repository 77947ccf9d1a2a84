"""This host's OS and CPU architecture, and the names envcheck gives them.

One place for both the recommendation's machine (machine.py) and the probe's platform facts
(probe/platform_facts.py): Linux, Windows, WSL (a Linux kernel by Microsoft) and macOS, x86_64
and aarch64, whatever the platform module or a user calls them.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from pathlib import Path

from envcheck.errors import InputError

OS_NAMES = ("linux", "windows", "wsl", "macos")
ARCHES = ("x86_64", "aarch64")


def os_name(system: str, wsl: str | None) -> str:
    """envcheck's OS name for platform.system() (and the WSL kind on Linux)."""
    if system == "Windows":
        return "windows"
    if system == "Darwin":
        return "macos"
    return "wsl" if wsl else "linux"


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
    if system != "Linux":
        return os_name(system, None)
    try:
        text = proc_version.read_text(errors="replace")
    except OSError:
        text = ""
    return os_name(system, wsl_kind(text, env))


def wsl_kind(proc_version: str, environ: Mapping[str, str]) -> str | None:
    """'wsl2', 'wsl1' or None, from /proc/version ('...microsoft-standard-WSL2...')."""
    text = proc_version.lower()
    if "microsoft" not in text and "WSL_DISTRO_NAME" not in environ:
        return None
    # WSL2 kernels are "...-microsoft-standard-WSL2"; WSL1 reports "...-Microsoft" (capital M).
    if "wsl2" in text or "microsoft-standard" in text:
        return "wsl2"
    if "WSL_INTEROP" in environ and "microsoft" not in text:
        return "wsl2"
    return "wsl1"


def host_arch() -> str:
    try:
        return normalize_arch(platform.machine())
    except InputError:
        return platform.machine().lower()
