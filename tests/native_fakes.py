"""Build the fake NVIDIA driver libraries of tests/fakes/ with gcc (real ELF shared objects).

Each build gets the real SONAME and, like a driver install, a versioned file name with the
SONAME as a symlink to it, so the probe's "which driver release is this file" logic is tested
on the same shape of files a real driver leaves.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

FAKES = Path(__file__).parent / "fakes"


def have_gcc() -> bool:
    return shutil.which("gcc") is not None


def build_shared_object(
    source: str, directory: Path, soname: str, real_name: str | None = None
) -> Path:
    """Compile tests/fakes/<source> into directory/<real_name> with a SONAME symlink."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / (real_name or soname)
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            "-O1",
            f"-Wl,-soname,{soname}",
            "-o",
            str(target),
            str(FAKES / source),
        ],
        check=True,
        capture_output=True,
    )
    if real_name and real_name != soname:
        (directory / soname).symlink_to(real_name)
    return directory / soname


def fake_nvml(directory: Path, release: str = "535.104.05") -> Path:
    return build_shared_object(
        "fake_nvml.c", directory, "libnvidia-ml.so.1", f"libnvidia-ml.so.{release}"
    )


def fake_libcuda(directory: Path, release: str | None = "535.104.05") -> Path:
    real = f"libcuda.so.{release}" if release else None
    return build_shared_object("fake_libcuda.c", directory, "libcuda.so.1", real)
