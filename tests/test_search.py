"""The loader-search emulation on real directory trees (Linux rules and Windows rules, on Linux)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path, PureWindowsPath

import pytest

from envcheck.probe.search import (
    Candidate,
    LinuxSearch,
    ListingCache,
    LoaderSearch,
    SearchLocation,
    WindowsSearch,
    conda_dirs,
    default_linux_dirs,
    host_search,
    nvidia_wheel_dirs,
    parse_ld_so_help,
    parse_ldconfig_p,
    read_ld_cache,
    split_ld_library_path,
    split_windows_path,
)

CUDNN = "libcudnn.so.8"
FRAMEWORK = "/site/tensorflow/libtensorflow_framework.so.2"


def touch(directory: Path, name: str = CUDNN) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_bytes(b"\x7fELF")
    return str(path)


def linux(
    ld_library_path: Iterable[str] = (),
    runpath: tuple[tuple[str, tuple[str, ...]], ...] = (),
    rpath: tuple[tuple[str, tuple[str, ...]], ...] = (),
    ld_cache: tuple[tuple[str, str], ...] = (),
    default_dirs: tuple[str, ...] = (),
    **kwargs: object,
) -> LinuxSearch:
    return LinuxSearch(
        ld_library_path=tuple(ld_library_path),
        runpath=runpath,
        rpath=rpath,
        ld_cache=ld_cache,
        default_dirs=default_dirs,
        **kwargs,  # type: ignore[arg-type]
    )


def selected(candidates: tuple[Candidate, ...]) -> list[Candidate]:
    return [candidate for candidate in candidates if candidate.selected]


# ---------------------------------------------------------------------------------------------
# Linux: ld.so(8) order


def test_first_of_two_ld_library_path_copies_is_selected(tmp_path: Path) -> None:
    first = touch(tmp_path / "a")
    second = touch(tmp_path / "b")
    found = linux([str(tmp_path / "a"), str(tmp_path / "b")]).candidates(CUDNN)
    assert found == (
        Candidate(first, "LD_LIBRARY_PATH", True),
        Candidate(second, "LD_LIBRARY_PATH", False),
    )


def test_ld_library_path_wins_over_runpath(tmp_path: Path) -> None:
    wheel = touch(tmp_path / "nvidia/cudnn/lib")
    user = touch(tmp_path / "user")
    search = linux(
        [str(tmp_path / "user")], runpath=((FRAMEWORK, (str(tmp_path / "nvidia/cudnn/lib"),)),)
    )
    assert search.candidates(CUDNN) == (
        Candidate(user, "LD_LIBRARY_PATH", True),
        Candidate(wheel, f"RUNPATH of {FRAMEWORK}", False),
    )


def test_rpath_wins_over_ld_library_path_when_there_is_no_runpath(tmp_path: Path) -> None:
    old = touch(tmp_path / "rpath")
    user = touch(tmp_path / "user")
    search = linux([str(tmp_path / "user")], rpath=((FRAMEWORK, (str(tmp_path / "rpath"),)),))
    assert search.candidates(CUDNN) == (
        Candidate(old, f"RPATH of {FRAMEWORK}", True),
        Candidate(user, "LD_LIBRARY_PATH", False),
    )


def test_rpath_is_ignored_when_the_requester_has_a_runpath(tmp_path: Path) -> None:
    ignored = touch(tmp_path / "rpath")
    run = touch(tmp_path / "runpath")
    search = linux(
        runpath=((FRAMEWORK, (str(tmp_path / "runpath"),)),),
        rpath=((FRAMEWORK, (str(tmp_path / "rpath"),)),),
    )
    assert search.candidates(CUDNN) == (
        Candidate(run, f"RUNPATH of {FRAMEWORK}", True),
        Candidate(ignored, f"RPATH of {FRAMEWORK} (ignored: {FRAMEWORK} has a RUNPATH)", False),
    )
    assert [loc.searched for loc in search.locations()] == [True, False]


def test_rpath_chain_is_searched_in_order_before_ld_library_path(tmp_path: Path) -> None:
    executable = touch(tmp_path / "exe_rpath")
    search = linux(
        [str(tmp_path / "user")],
        rpath=(
            (FRAMEWORK, (str(tmp_path / "fw_rpath"),)),
            ("/usr/bin/python3", (str(tmp_path / "exe_rpath"),)),
        ),
    )
    user = touch(tmp_path / "user")
    assert search.candidates(CUDNN) == (
        Candidate(executable, "RPATH of /usr/bin/python3", True),
        Candidate(user, "LD_LIBRARY_PATH", False),
    )


def test_ld_cache_comes_after_runpath_and_before_default_dirs(tmp_path: Path) -> None:
    run = touch(tmp_path / "runpath")
    cached = touch(tmp_path / "cuda/lib64")
    default = touch(tmp_path / "usr/lib")
    cache = ((CUDNN, cached),)
    search = linux(
        runpath=((FRAMEWORK, (str(tmp_path / "runpath"),)),),
        ld_cache=cache,
        default_dirs=(str(tmp_path / "usr/lib"),),
    )
    assert search.candidates(CUDNN) == (
        Candidate(run, f"RUNPATH of {FRAMEWORK}", True),
        Candidate(cached, "ld.so.cache", False),
        Candidate(default, "default directory", False),
    )
    no_runpath = linux(ld_cache=cache, default_dirs=(str(tmp_path / "usr/lib"),))
    assert selected(no_runpath.candidates(CUDNN)) == [Candidate(cached, "ld.so.cache", True)]


def test_ld_cache_is_looked_up_by_soname_not_by_directory(tmp_path: Path) -> None:
    """A stale entry falls through; a copy in a cached directory but not in the cache is no hit."""
    cuda = tmp_path / "cuda/lib64"
    touch(cuda, "libcudart.so.12")
    stale = str(tmp_path / "gone" / CUDNN)
    unseen = touch(cuda)  # copied in after the last ldconfig run
    default = touch(tmp_path / "usr/lib")
    search = linux(
        ld_cache=((CUDNN, stale), ("libcudart.so.12", str(cuda / "libcudart.so.12"))),
        default_dirs=(str(tmp_path / "usr/lib"),),
    )
    assert search.candidates(CUDNN) == (
        Candidate(default, "default directory", True),
        Candidate(unseen, "ld.so.cache directory (this copy is not in the cache)", False),
    )
    assert SearchLocation(str(cuda), "ld.so.cache", True) in search.locations()


def test_wheel_dir_no_runpath_names_is_listed_not_selected(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    wheel = touch(site / "nvidia/cudnn/lib")
    touch(site / "nvidia/cublas/lib", "libcublas.so.12")
    system = touch(tmp_path / "usr/lib")
    wheels = nvidia_wheel_dirs([str(site)], windows=False)
    assert [w.found_via for w in wheels] == ["pip wheel nvidia/cublas", "pip wheel nvidia/cudnn"]
    # TF 2.16.1: the framework's RUNPATH names only cuda_runtime (docs/facts.md 5.3).
    search = linux(
        runpath=((FRAMEWORK, (str(site / "nvidia/cuda_runtime/lib"),)),),
        default_dirs=(str(tmp_path / "usr/lib"),),
        extra=wheels,
    )
    assert search.candidates(CUDNN) == (
        Candidate(system, "default directory", True),
        Candidate(wheel, "pip wheel nvidia/cudnn", False),
    )


def test_wheel_dir_a_runpath_names_appears_once_as_searched(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    wheel = touch(site / "nvidia/cudnn/lib")
    search = linux(
        runpath=((FRAMEWORK, (str(site / "nvidia/cudnn/lib"),)),),
        extra=nvidia_wheel_dirs([str(site)], windows=False),
    )
    assert search.locations() == (
        SearchLocation(str(site / "nvidia/cudnn/lib"), f"RUNPATH of {FRAMEWORK}", True),
    )
    assert search.candidates(CUDNN) == (Candidate(wheel, f"RUNPATH of {FRAMEWORK}", True),)


def test_a_listing_answers_as_the_file_system_does(tmp_path: Path) -> None:
    # `listed` only spares the look-ups in directories without the name (thousands of wheel
    # directories); what is found, and how, is the same.
    site = tmp_path / "site-packages"
    wheel = touch(site / "nvidia/cudnn/lib")
    system = touch(tmp_path / "usr/lib")
    for number in range(50):
        touch(site / f"nvidia/other{number}/lib", "libother.so.1")
    listing = ListingCache()
    plain = linux(
        default_dirs=(str(tmp_path / "usr/lib"),),
        extra=nvidia_wheel_dirs([str(site)], windows=False),
    )
    listed = replace(plain, exists=listing.exists, listed=listing.names)
    expected = (
        Candidate(system, "default directory", True),
        Candidate(wheel, "pip wheel nvidia/cudnn", False),
    )
    assert plain.candidates(CUDNN) == listed.candidates(CUDNN) == expected
    assert listed.candidates("libmissing.so.1") == ()


def test_extra_locations_are_never_searched(tmp_path: Path) -> None:
    copy = touch(tmp_path / "env/lib")
    search = linux(extra=(SearchLocation(str(tmp_path / "env/lib"), "conda environment", True),))
    assert search.locations()[0].searched is False
    assert search.candidates(CUDNN) == (Candidate(copy, "conda environment", False),)


def test_cuda13_wheel_layout_and_windows_bin(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    touch(site / "nvidia/cu13/lib", "libcudart.so.13")
    touch(site / "nvidia/cudnn/bin", "cudnn64_9.dll")
    (site / "nvidia/cudnn/include").mkdir()
    assert [
        w.directory for w in nvidia_wheel_dirs([str(site), str(tmp_path / "none")], windows=False)
    ] == [str(site / "nvidia/cu13/lib")]
    assert nvidia_wheel_dirs([str(site)], windows=True) == (
        SearchLocation(str(site / "nvidia/cudnn/bin"), "pip wheel nvidia/cudnn", False),
    )


def test_empty_ld_library_path_entry_is_the_current_directory(tmp_path: Path) -> None:
    here = touch(tmp_path / "work")
    search = linux(["/nonexistent", "", "lib"], cwd=str(tmp_path / "work"))
    assert [loc.directory for loc in search.locations()] == [
        "/nonexistent",
        str(tmp_path / "work"),
        str(tmp_path / "work/lib"),
    ]
    assert search.candidates(CUDNN) == (
        Candidate(here, "LD_LIBRARY_PATH (empty entry: current directory)", True),
    )


def test_ld_library_path_splitting() -> None:
    assert split_ld_library_path("/a::/b") == ("/a", "", "/b")
    assert split_ld_library_path("/a;/b:") == ("/a", "/b", "")
    assert split_ld_library_path(":/a") == ("", "/a")
    assert split_ld_library_path("") == ()
    assert split_ld_library_path(None) == ()
    assert split_windows_path(r"C:\a;;C:\b;") == (r"C:\a", r"C:\b")


def test_dangling_symlink_is_not_a_candidate(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / CUDNN).symlink_to(tmp_path / "missing" / "libcudnn.so.8.9.7")
    real = touch(tmp_path / "real")
    found = linux([str(broken), str(tmp_path / "real")]).candidates(CUDNN)
    assert found == (Candidate(real, "LD_LIBRARY_PATH", True),)


def test_the_same_file_reached_twice_is_listed_once(tmp_path: Path) -> None:
    real = touch(tmp_path / "lib")
    (tmp_path / "alias").symlink_to(tmp_path / "lib", target_is_directory=True)
    search = linux(
        [str(tmp_path / "lib"), str(tmp_path / "alias"), str(tmp_path / "lib")],
        ld_cache=((CUDNN, real),),
        default_dirs=(str(tmp_path / "lib"),),
    )
    assert search.candidates(CUDNN) == (Candidate(real, "LD_LIBRARY_PATH", True),)


def test_a_copy_ld_so_cannot_use_is_skipped(tmp_path: Path) -> None:
    i386 = touch(tmp_path / "lib32")
    amd64 = touch(tmp_path / "lib64")
    search = linux(
        [str(tmp_path / "lib32"), str(tmp_path / "lib64")],
        usable=lambda path: "lib32" not in path,
    )
    assert search.candidates(CUDNN) == (
        Candidate(i386, "LD_LIBRARY_PATH", False),
        Candidate(amd64, "LD_LIBRARY_PATH", True),
    )


def test_no_searched_copy_means_nothing_is_selected(tmp_path: Path) -> None:
    copy = touch(tmp_path / "wheel")
    search = linux(
        extra=(SearchLocation(str(tmp_path / "wheel"), "pip wheel nvidia/cudnn", False),)
    )
    assert search.candidates(CUDNN) == (Candidate(copy, "pip wheel nvidia/cudnn", False),)
    assert linux().candidates(CUDNN) == ()


def test_a_name_with_a_slash_is_not_searched(tmp_path: Path) -> None:
    copy = touch(tmp_path / "x")
    touch(tmp_path / "y")
    search = linux([str(tmp_path / "y")])
    assert search.candidates(copy) == (Candidate(copy, "path given (no search)", True),)
    assert search.candidates(str(tmp_path / "z" / CUDNN)) == ()


def test_thousand_ld_library_path_dirs(tmp_path: Path) -> None:
    directories = [tmp_path / f"d{index:04d}" for index in range(1000)]
    for directory in directories:
        directory.mkdir()
    last = touch(directories[-1])
    search = linux([str(d) for d in directories])
    started = time.perf_counter()
    found = search.candidates(CUDNN)
    locations = search.locations()
    elapsed = time.perf_counter() - started
    print(f"\n1,000 LD_LIBRARY_PATH dirs: candidates + locations in {elapsed * 1000:.1f} ms")
    assert found == (Candidate(last, "LD_LIBRARY_PATH", True),)
    assert len(locations) == 1000


def test_linux_locations_order() -> None:
    search = linux(
        ["/user"],
        runpath=((FRAMEWORK, ("/run",)),),
        ld_cache=(("libz.so.1", "/cache/libz.so.1"), ("libm.so.6", "/cache/libm.so.6")),
        default_dirs=("/usr/lib",),
        extra=(SearchLocation("/wheel", "pip wheel nvidia/cudnn", False),),
    )
    assert [(loc.directory, loc.found_via) for loc in search.locations()] == [
        ("/user", "LD_LIBRARY_PATH"),
        ("/run", f"RUNPATH of {FRAMEWORK}"),
        ("/cache", "ld.so.cache"),
        ("/usr/lib", "default directory"),
        ("/wheel", "pip wheel nvidia/cudnn"),
    ]
    assert isinstance(search, LoaderSearch)


# ---------------------------------------------------------------------------------------------
# ldconfig -p, ld.so --help, default directories

# The first three entries and the footer are verbatim from Debian 12 (glibc 2.36); the others
# are in the formats glibc's ldconfig prints: i386 "(libc6)", x32, "OS ABI", glibc-hwcaps
# subdirectories (glibc >= 2.33) and the legacy numeric hwcap mask (older glibc).
LDCONFIG_P = """\
536 libs found in cache `/etc/ld.so.cache'
\tlibz3.so.4 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz3.so.4
\tlibz3.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libz3.so
\tlibzstd.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libzstd.so.1
\tlibz.so.1 (libc6) => /lib/i386-linux-gnu/libz.so.1
\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8
\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda-12.2/targets/x86_64-linux/lib/libcudart.so.12
\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1
\tlibcuda.so.1 (libc6) => /usr/lib/i386-linux-gnu/libcuda.so.1
\tlibfoo.so.1 (libc6,x32) => /libx32/libfoo.so.1
\tlibm.so.6 (libc6,x86-64, OS ABI: Linux 3.2.0) => /lib/x86_64-linux-gnu/libm.so.6
\tlibcrypto.so.3 (libc6,x86-64, hwcap: "x86-64-v3") => /usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libcrypto.so.3
\tlibcrypto.so.3 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcrypto.so.3
\tlibold.so.1 (libc6,x86-64, hwcap: 0x0000000000080000) => /usr/lib/x86_64-linux-gnu/tls/libold.so.1
Cache generated by: ldconfig (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36
"""


def test_parse_ldconfig_p_keeps_only_64_bit_entries_for_x86_64() -> None:
    pairs = parse_ldconfig_p(LDCONFIG_P, machine="x86_64")
    assert ("libz.so.1", "/lib/i386-linux-gnu/libz.so.1") not in pairs
    assert ("libfoo.so.1", "/libx32/libfoo.so.1") not in pairs
    assert [name for name, _ in pairs] == [
        "libz3.so.4",
        "libz3.so",
        "libzstd.so.1",
        "libcudnn.so.8",
        "libcudart.so.12",
        "libcuda.so.1",
        "libm.so.6",
        "libcrypto.so.3",
        "libcrypto.so.3",
        "libold.so.1",
    ]
    assert pairs[7] == (
        "libcrypto.so.3",
        "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libcrypto.so.3",
    )
    assert dict(pairs)["libcuda.so.1"] == "/usr/lib/x86_64-linux-gnu/libcuda.so.1"


def test_parse_ldconfig_p_without_a_machine_keeps_everything() -> None:
    pairs = parse_ldconfig_p(LDCONFIG_P)
    assert len(pairs) == 13
    assert ("libcuda.so.1", "/usr/lib/i386-linux-gnu/libcuda.so.1") in pairs
    assert parse_ldconfig_p(LDCONFIG_P, machine="riscv64") == pairs
    arm = "\tlibcudnn.so.9 (libc6,AArch64) => /usr/lib/aarch64-linux-gnu/libcudnn.so.9\n"
    assert parse_ldconfig_p(arm + LDCONFIG_P, machine="aarch64") == (
        ("libcudnn.so.9", "/usr/lib/aarch64-linux-gnu/libcudnn.so.9"),
    )
    assert parse_ldconfig_p("") == ()


def test_read_ld_cache_on_this_machine() -> None:
    if not any(
        shutil.which(c) or Path(c).exists()
        for c in ("ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig")
    ):
        pytest.skip("no ldconfig on this machine")
    started = time.perf_counter()
    pairs = read_ld_cache()
    print(
        f"\nread_ld_cache(): {len(pairs)} entries in {(time.perf_counter() - started) * 1000:.1f} ms"
    )
    if not pairs:
        pytest.skip("ldconfig -p gave no entries (no /etc/ld.so.cache?)")
    missing = [path for _, path in pairs if not Path(path).exists()]
    assert missing == []
    assert all(Path(path).is_absolute() for _, path in pairs)


def test_read_ld_cache_with_a_tiny_timeout_never_raises() -> None:
    assert isinstance(read_ld_cache(timeout=1e-9), tuple)


LD_SO_HELP = """\
Shared library search path:
  (libraries located via /etc/ld.so.cache)
  /lib/x86_64-linux-gnu (system search path)
  /usr/lib/x86_64-linux-gnu (system search path)
  /lib (system search path)
  /usr/lib (system search path)

Subdirectories of glibc-hwcaps directories, in priority order:
  x86-64-v4 (supported, searched)
"""


def test_default_dirs() -> None:
    assert parse_ld_so_help(LD_SO_HELP) == (
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib",
        "/usr/lib",
    )
    assert default_linux_dirs("x86_64") == (
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
    )
    assert default_linux_dirs("aarch64")[:2] == (
        "/lib/aarch64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
    )
    assert default_linux_dirs("ppc64le") == ("/lib64", "/usr/lib64", "/lib", "/usr/lib")


# ---------------------------------------------------------------------------------------------
# conda, host_search


def test_conda_dirs() -> None:
    assert conda_dirs({}, windows=False) == ()
    assert conda_dirs({"CONDA_PREFIX": "/opt/conda/envs/tf"}, windows=False) == (
        SearchLocation("/opt/conda/envs/tf/lib", "conda environment", False),
    )
    on_path = {
        "CONDA_PREFIX": "/opt/conda/envs/tf",
        "LD_LIBRARY_PATH": "/x:/opt/conda/envs/tf/lib/",
    }
    assert conda_dirs(on_path, windows=False)[0].searched is True
    windows = {
        "CONDA_PREFIX": r"C:\Miniconda3\envs\tf",
        "Path": r"C:\Miniconda3\envs\tf\library\BIN;C:\x",
    }
    assert conda_dirs(windows, windows=True) == (
        SearchLocation(r"C:\Miniconda3\envs\tf\Library\bin", "conda environment", True),
    )


def test_host_search_linux_reads_the_given_environment(tmp_path: Path) -> None:
    search = host_search(
        env={"LD_LIBRARY_PATH": "/a::/b", "PATH": "/usr/bin"},
        platform="linux",
        machine="x86_64",
        cwd=str(tmp_path),
        ld_cache=(),
        runpath=((FRAMEWORK, ("/site/nvidia/cudnn/lib",)),),
    )
    assert isinstance(search, LinuxSearch)
    assert search.ld_library_path == ("/a", "", "/b")
    assert search.default_dirs == default_linux_dirs("x86_64")
    assert [loc.directory for loc in search.locations()][:4] == [
        "/a",
        str(tmp_path),
        "/b",
        "/site/nvidia/cudnn/lib",
    ]


def test_host_search_on_this_machine() -> None:
    search = host_search()
    assert isinstance(search, LoaderSearch)
    assert all(isinstance(loc, SearchLocation) for loc in search.locations())


def test_host_search_windows_from_an_environment() -> None:
    env = {
        "SystemRoot": r"C:\WINDOWS",
        "Path": r"C:\WINDOWS\system32;C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2\bin",
        "CUDA_PATH": r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2",
        "CUDA_PATH_V11_2": r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2",
        "CUDA_PATH_V10_1": r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v10.1",
    }
    search = host_search(
        env=env, platform="win32", executable=r"C:\Python310\python.exe", cwd=r"C:\Users\me"
    )
    assert isinstance(search, WindowsSearch)
    assert [(loc.directory, loc.found_via, loc.searched) for loc in search.locations()] == [
        (r"C:\Python310", "application directory", True),
        (r"C:\WINDOWS\System32", "System32", True),
        (r"C:\WINDOWS", "Windows directory", True),
        (r"C:\Users\me", "current directory", True),
        (r"C:\WINDOWS\system32", "PATH", True),
        (r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2\bin", "PATH", True),
        (
            r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v10.1\bin",
            "CUDA_PATH_V10_1 (not searched by the loader)",
            False,
        ),
    ]


# ---------------------------------------------------------------------------------------------
# Windows: real trees, Windows path strings mapped onto tmp_path by the `files` callable


def windows_tree(root: Path, layout: dict[str, list[str]]) -> Callable[[str], Iterable[str]]:
    """Create `layout` (Windows directory -> file names) under root; return a `files` lister.

    Directory names are matched case-insensitively, as on NTFS; file names keep their case.
    """

    def real(directory: str) -> Path:
        windows = PureWindowsPath(directory)
        return root.joinpath(
            windows.drive.rstrip(":").lower(), *(p.lower() for p in windows.parts[1:])
        )

    for directory, names in layout.items():
        for name in names:
            touch(real(directory), name)

    def files(directory: str) -> Iterable[str]:
        path = real(directory)
        return sorted(p.name for p in path.iterdir() if p.is_file()) if path.is_dir() else ()

    return files


TOOLKIT = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2"
APP = r"C:\Users\me\venv-base\Python310"


def windows(files: Callable[[str], Iterable[str]], **kwargs: object) -> WindowsSearch:
    fields: dict[str, object] = {
        "application_dir": APP,
        "dll_directories": (),
        "system32": r"C:\Windows\System32",
        "windows_dir": r"C:\Windows",
        "cwd": r"C:\Users\me\project",
        "path": (r"C:\Windows\system32", r"C:\Windows"),
        "cuda_path": None,
        "files": files,
    }
    fields.update(kwargs)
    return WindowsSearch(**fields)  # type: ignore[arg-type]


def test_cudnn_in_cuda_path_bin_but_not_on_path_is_listed_not_selected(tmp_path: Path) -> None:
    files = windows_tree(tmp_path, {TOOLKIT + r"\bin": ["cudnn64_8.dll", "cudart64_110.dll"]})
    search = windows(files, cuda_path=TOOLKIT)
    assert search.candidates("cudnn64_8.dll") == (
        Candidate(TOOLKIT + r"\bin\cudnn64_8.dll", "CUDA_PATH (not searched by the loader)", False),
    )
    on_path = windows(files, cuda_path=TOOLKIT, path=(r"C:\Windows\system32", TOOLKIT + "\\bin\\"))
    assert on_path.candidates("cudnn64_8.dll") == (
        Candidate(TOOLKIT + "\\bin\\cudnn64_8.dll", "PATH", True),
    )
    assert not any("CUDA_PATH" in loc.found_via for loc in on_path.locations())


def test_application_dir_wins_over_path(tmp_path: Path) -> None:
    files = windows_tree(tmp_path, {APP: ["cudnn64_8.dll"], r"D:\cudnn\bin": ["cudnn64_8.dll"]})
    search = windows(files, path=(r"D:\cudnn\bin",))
    assert search.candidates("cudnn64_8.dll") == (
        Candidate(APP + r"\cudnn64_8.dll", "application directory", True),
        Candidate(r"D:\cudnn\bin\cudnn64_8.dll", "PATH", False),
    )


def test_system32_windows_dir_and_cwd_come_before_path(tmp_path: Path) -> None:
    layout = {
        r"C:\Windows\System32": ["nvcuda.dll"],
        r"C:\Windows": ["nvcuda.dll"],
        r"C:\Users\me\project": ["nvcuda.dll"],
        r"D:\old": ["nvcuda.dll"],
    }
    files = windows_tree(tmp_path, layout)
    found = windows(files, path=(r"D:\old", r"C:\Windows\system32")).candidates("nvcuda.dll")
    assert [(c.found_via, c.selected) for c in found] == [
        ("System32", True),
        ("Windows directory", False),
        ("current directory", False),
        ("PATH", False),
    ]


def test_file_names_compare_case_insensitively(tmp_path: Path) -> None:
    files = windows_tree(tmp_path, {r"D:\cudnn\bin": ["CUDNN64_8.DLL"]})
    found = windows(files, path=(r"d:\CUDNN\BIN",)).candidates("cudnn64_8.dll")
    assert found == (Candidate(r"d:\CUDNN\BIN\CUDNN64_8.DLL", "PATH", True),)


def test_secure_mode_ignores_path_and_uses_add_dll_directory(tmp_path: Path) -> None:
    layout = {r"D:\cudnn\bin": ["cudnn64_8.dll"], r"E:\added": ["zlibwapi.dll"]}
    files = windows_tree(tmp_path, layout)
    common = {"path": (r"D:\cudnn\bin",), "dll_directories": (r"E:\added",)}
    secure = windows(files, mode="secure", **common)
    assert secure.candidates("cudnn64_8.dll") == (
        Candidate(r"D:\cudnn\bin\cudnn64_8.dll", "PATH (not searched in secure mode)", False),
    )
    assert secure.candidates("zlibwapi.dll") == (
        Candidate(r"E:\added\zlibwapi.dll", "os.add_dll_directory", True),
    )
    assert [loc.found_via for loc in secure.locations() if loc.searched] == [
        "application directory",
        "os.add_dll_directory",
        "System32",
    ]
    loadlibrary = windows(files, **common)
    assert loadlibrary.candidates("zlibwapi.dll") == (
        Candidate(
            r"E:\added\zlibwapi.dll",
            "os.add_dll_directory (not searched by LoadLibraryExW without flags)",
            False,
        ),
    )
    assert selected(loadlibrary.candidates("cudnn64_8.dll"))[0].found_via == "PATH"


def test_secure_mode_searches_the_importing_module_directory_first(tmp_path: Path) -> None:
    module_dir = r"C:\site-packages\tensorflow\python"
    files = windows_tree(
        tmp_path, {module_dir: ["msvcp140.dll"], r"C:\Windows\System32": ["msvcp140.dll"]}
    )
    found = windows(files, mode="secure", importer_dir=module_dir).candidates("msvcp140.dll")
    assert [(c.found_via, c.selected) for c in found] == [
        ("directory of the importing module", True),
        ("System32", False),
    ]


def test_windows_rejects_an_unknown_mode(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown Windows search mode 'safe'"):
        windows(windows_tree(tmp_path, {}), mode="safe")


def test_windows_path_given_and_default_lister(tmp_path: Path) -> None:
    files = windows_tree(tmp_path, {r"D:\x": ["cudnn64_8.dll"]})
    search = windows(files)
    assert search.candidates(r"D:\x\CUDNN64_8.dll") == (
        Candidate(r"D:\x\cudnn64_8.dll", "path given", True),
    )
    # The default lister reads the real directory; a missing one lists nothing.
    real = WindowsSearch(
        application_dir=str(tmp_path / "nowhere"),
        dll_directories=(),
        system32=str(tmp_path / "d" / "x"),
        windows_dir=str(tmp_path),
        cwd=None,
        path=(),
        cuda_path=None,
    )
    assert [c.selected for c in real.candidates("cudnn64_8.dll")] == [True]
    assert isinstance(real, LoaderSearch)


# ---------------------------------------------------------------------------------------------
# The emulation against the real ld.so: gcc-built objects, a child process, LD_LIBRARY_PATH

REQUESTER_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
const char *which(const char *name) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    struct link_map *map = 0;
    if (!handle) return "";
    dlinfo(handle, RTLD_DI_LINKMAP, &map);
    return map->l_name;
}
"""
DRIVER_C = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    void *requester = dlopen(argv[1], RTLD_NOW);
    const char *(*which)(const char *) = (const char *(*)(const char *))dlsym(requester, "which");
    printf("%s\n", which(argv[2]));
    return 0;
}
"""
PROBE = "libenvcheck_probe.so.8"  # a soname no system has, so ld.so.cache and /usr/lib miss it


def gcc(*arguments: str) -> None:
    subprocess.run(["gcc", *arguments], check=True, capture_output=True)


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None or sys.platform != "linux":
        pytest.skip("needs gcc and glibc's ld.so")
    root = tmp_path_factory.mktemp("native")
    (root / "requester.c").write_text(REQUESTER_C)
    (root / "driver.c").write_text(DRIVER_C)
    (root / "lib.c").write_text("int envcheck_probe_marker = 1;\n")
    gcc("-shared", "-fPIC", f"-Wl,-soname,{PROBE}", "-o", str(root / PROBE), str(root / "lib.c"))
    for tags, name in (("--enable-new-dtags", "runpath"), ("--disable-new-dtags", "rpath")):
        gcc(
            "-shared",
            "-fPIC",
            f"-Wl,{tags},-rpath,{root / 'from_elf'}",
            "-o",
            str(root / f"requester_{name}.so"),
            str(root / "requester.c"),
            "-ldl",
        )
    gcc("-o", str(root / "driver"), str(root / "driver.c"), "-ldl")
    return root


def real_choice(native: Path, requester: str, ld_library_path: str, cwd: Path) -> str | None:
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": ld_library_path}
    completed = subprocess.run(
        [str(native / "driver"), str(native / requester), PROBE],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=True,
    )
    opened = completed.stdout.strip()
    return str((cwd / opened).resolve()) if opened else None


@pytest.mark.parametrize(
    ("requester", "ld_library_path", "copies"),
    [
        ("requester_runpath.so", "{a}:{b}", ["a", "b", "from_elf"]),
        ("requester_runpath.so", "{b};{a}", ["a", "b"]),  # glibc also splits on ';'
        ("requester_runpath.so", "/nonexistent::{b}", ["work", "b"]),  # '::' = current dir
        ("requester_runpath.so", "{a}", ["from_elf"]),
        ("requester_rpath.so", "{a}", ["a", "from_elf"]),  # RPATH before LD_LIBRARY_PATH
        ("requester_runpath.so", "{a}", []),
    ],
)
def test_emulation_matches_the_real_loader(
    native: Path, tmp_path: Path, requester: str, ld_library_path: str, copies: list[str]
) -> None:
    elf_dir = native / "from_elf"
    shutil.rmtree(elf_dir, ignore_errors=True)
    for name in copies:
        target = elf_dir if name == "from_elf" else tmp_path / name
        target.mkdir(exist_ok=True)
        shutil.copy(native / PROBE, target / PROBE)
    (tmp_path / "work").mkdir(exist_ok=True)
    value = ld_library_path.format(a=tmp_path / "a", b=tmp_path / "b")
    pairs = ((str(native / requester), (str(elf_dir),)),)
    search = linux(
        split_ld_library_path(value),
        runpath=pairs if requester == "requester_runpath.so" else (),
        rpath=pairs if requester == "requester_rpath.so" else (),
        cwd=str(tmp_path / "work"),
    )
    emulated = [c.path for c in search.candidates(PROBE) if c.selected]
    real = real_choice(native, requester, value, tmp_path / "work")
    assert emulated == ([real] if real else [])
