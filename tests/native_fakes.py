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
    source: str,
    directory: Path,
    soname: str,
    real_name: str | None = None,
    flags: tuple[str, ...] = (),
    extra_sources: tuple[Path, ...] = (),
) -> Path:
    """Compile tests/fakes/<source> (and `extra_sources`) into directory/<real_name> with a
    SONAME symlink."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / (real_name or soname)
    command = ["gcc", "-shared", "-fPIC", "-O1", f"-Wl,-soname,{soname}", *flags]
    sources = [str(FAKES / source), *map(str, extra_sources)]
    subprocess.run([*command, "-o", str(target), *sources], check=True, capture_output=True)
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


def fake_cudnn(
    directory: Path, version: int, soname: str = "libcudnn.so.8", real_name: str | None = None
) -> Path:
    """A cuDNN shim whose cudnnGetVersion() returns `version` (8907 = 8.9.7, 90300 = 9.3.0)."""
    return build_shared_object(
        "fake_cudnn.c", directory, soname, real_name, (f"-DFAKE_CUDNN_VERSION={version}",)
    )


def fake_tf_framework(site: Path, runpath: str, loader_functions: tuple[str, ...] = ()) -> Path:
    """site/tensorflow/libtensorflow_framework.so.2 with the given DT_RUNPATH, and with
    TensorFlow's DSO loader functions for `loader_functions` ("Cublas" defines
    tsl::internal::DsoLoader::GetCublasDsoHandle(), under its real mangled name)."""
    extra: tuple[Path, ...] = ()
    if loader_functions:
        functions = [f"Get{name}DsoHandle" for name in loader_functions]
        source = site / "dso_loader_functions.c"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(
            "".join(
                f"void *_ZN3tsl8internal9DsoLoader{len(f)}{f}Ev(void) {{ return 0; }}\n"
                for f in functions
            )
        )
        extra = (source,)
    return build_shared_object(
        "fake_tf_framework.c",
        site / "tensorflow",
        "libtensorflow_framework.so.2",
        flags=("-Wl,--enable-new-dtags", f"-Wl,-rpath,{runpath}"),
        extra_sources=extra,
    )


def mingw(bits: int) -> str | None:
    return shutil.which("x86_64-w64-mingw32-gcc" if bits == 64 else "i686-w64-mingw32-gcc")


def fake_windows_dll(directory: Path, name: str, bits: int) -> Path:
    """A real PE DLL, 32- or 64-bit, cross-compiled with mingw-w64."""
    compiler = mingw(bits)
    if compiler is None:
        raise RuntimeError(f"no mingw-w64 compiler for {bits}-bit")
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / name
    subprocess.run(
        [compiler, "-shared", "-O1", "-o", str(target), str(FAKES / "fake_windows_dll.c")],
        check=True,
        capture_output=True,
    )
    return target
