"""Library probing on real artefacts: gcc-built shared objects with the real sonames and symbols,
mingw-built DLLs, real directory trees with pip wheel RECORDs, and the real dynamic loader's rules.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.probe.facts import FrameworkFacts, LibraryFacts, WheelFacts
from envcheck.probe.libraries import (
    WantedLibrary,
    decode_cudnn_version,
    parse_cudart_version_header,
    parse_cudnn_version_header,
    probe_libraries,
    requester_paths,
    tensorflow_requester,
    wanted_libraries,
    wheel_owners,
)
from envcheck.probe.search import Candidate, LinuxSearch, SearchLocation, nvidia_wheel_dirs
from tests.native_fakes import (
    FAKES,
    build_shared_object,
    fake_cudnn,
    fake_tf_framework,
    fake_windows_dll,
    have_gcc,
    mingw,
)

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc builds the fake libraries")
X86_64 = ("x86_64", 64)


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def tf(version: str, location: str | None = None, **build: object) -> FrameworkFacts:
    return FrameworkFacts("tensorflow", "tensorflow", version, location, dict(build))


def linux_search(
    *ld_library_path: Path, runpath: tuple[Any, ...] = (), extra: tuple[Any, ...] = ()
) -> LinuxSearch:
    return LinuxSearch(
        ld_library_path=tuple(str(p) for p in ld_library_path),
        runpath=runpath,
        rpath=(),
        ld_cache=(),
        default_dirs=(),
        extra=extra,
    )


def only(facts: Sequence[LibraryFacts], file: str) -> list[LibraryFacts]:
    return [f for f in facts if f.file == file]


def cudnn8(role: str = "cudnn") -> WantedLibrary:
    return WantedLibrary(role, "libcudnn.so.8", "TensorFlow 2.15.1 (CUDA 12.2, cuDNN 8)", "cudnn")


def test_wanted_libraries_follow_the_installed_build(matrix: Matrix) -> None:
    wanted = wanted_libraries(
        matrix, [tf("2.15.1", cuda_version="12.2", cudnn_version="8", is_cuda_build=True)], False
    )
    files = [w.file for w in wanted]
    # libraries.toml CUDA 12.x set and cudnn.toml cuDNN 8, plus the driver itself.
    assert files[0] == "libcuda.so.1"
    for name in ("libcudart.so.12", "libcublasLt.so.12", "libcufft.so.11", "libcudnn.so.8",
                 "libcudnn_cnn_infer.so.8", "libcudnn_adv_train.so.8"):  # fmt: skip
        assert name in files
    assert "libcudnn.so.9" not in files
    assert "libcudart.so.11.0" not in files


def test_wanted_libraries_from_the_matrix_when_build_info_is_missing(matrix: Matrix) -> None:
    # TF 2.10 with no build info read: the matrix says CUDA 11.2 and cuDNN 8.1 (tensorflow.toml).
    windows = [w.file for w in wanted_libraries(matrix, [tf("2.10.1")], True)]
    assert {"nvcuda.dll", "cudart64_110.dll", "cudnn64_8.dll", "cudnn_cnn_infer64_8.dll"} <= set(
        windows
    )


def test_without_a_framework_every_major_is_looked_for(matrix: Matrix) -> None:
    files = {w.file for w in wanted_libraries(matrix, [], False)}
    assert {"libcudnn.so.7", "libcudnn.so.8", "libcudnn.so.9", "libcudart.so.10.0",
            "libcudart.so.11.0", "libcudart.so.12"} <= files  # fmt: skip


def test_first_copy_on_ld_library_path_is_selected(tmp_path: Path) -> None:
    old = fake_cudnn(tmp_path / "old", 8005, real_name="libcudnn.so.8.0.5").parent
    new = fake_cudnn(tmp_path / "new", 8907, real_name="libcudnn.so.8.9.7").parent
    facts = probe_libraries([cudnn8()], linux_search(old, new), X86_64, {})
    copies = only(facts, "libcudnn.so.8")
    assert [(c.path, c.selected, c.version) for c in copies] == [
        (str(old / "libcudnn.so.8"), True, "8.0.5"),
        (str(new / "libcudnn.so.8"), False, "8.9.7"),
    ]
    assert all(c.found_via == "LD_LIBRARY_PATH" for c in copies)
    assert all(c.arch == "x86_64 64-bit" and c.problems == () for c in copies)


def test_version_from_the_library_itself_in_a_child(tmp_path: Path) -> None:
    # A bare soname (as pip wheels ship them) carries only the major: ask cudnnGetVersion().
    directory = fake_cudnn(tmp_path / "wheel", 90300, soname="libcudnn.so.9").parent
    wanted = WantedLibrary("cudnn", "libcudnn.so.9", "test", "cudnn")
    (copy,) = probe_libraries([wanted], linux_search(directory), X86_64, {})
    assert copy.version == "9.3.0"


def test_version_from_the_header_beside_the_library(tmp_path: Path) -> None:
    lib = fake_cudnn(tmp_path / "cudnn" / "lib", 8907, soname="libcudnn.so.8").parent
    include = tmp_path / "cudnn" / "include"
    include.mkdir()
    (include / "cudnn_version.h").write_text(
        "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 0\n"
    )
    (copy,) = probe_libraries([cudnn8()], linux_search(lib), X86_64, {}, call_versions=False)
    assert copy.version == "8.6.0"


def test_a_library_that_crashes_when_loaded_is_a_fact(tmp_path: Path) -> None:
    directory = tmp_path / "crash"
    build_shared_object("fake_crashing_lib.c", directory, "libcudnn.so.8")
    (copy,) = probe_libraries([cudnn8()], linux_search(directory), X86_64, {}, timeout=20)
    assert copy.selected
    assert any("crashed (SIGSEGV)" in p for p in copy.problems), copy.problems


def test_missing_dependency_is_named(tmp_path: Path) -> None:
    jit = tmp_path / "jit"
    build_shared_object("fake_nvjitlink.c", jit, "libnvJitLink.so.12")
    sparse = tmp_path / "sparse"
    sparse.mkdir()
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-Wl,-soname,libcusparse.so.12", "-o", str(sparse / "libcusparse.so.12"),
         str(FAKES / "fake_needs_nvjitlink.c"), f"-L{jit}", "-l:libnvJitLink.so.12"],
        check=True, capture_output=True,
    )  # fmt: skip
    wanted = WantedLibrary("cusparse", "libcusparse.so.12", "test", None)
    (ok,) = probe_libraries([wanted], linux_search(sparse, jit), X86_64, {})
    assert ok.problems == ()
    (broken,) = probe_libraries([wanted], linux_search(sparse), X86_64, {})
    assert broken.problems == ("needs libnvJitLink.so.12, which the loader cannot find",)


def test_not_found_is_recorded_with_how_many_places_were_searched(tmp_path: Path) -> None:
    (entry,) = probe_libraries([cudnn8()], linux_search(tmp_path / "a", tmp_path / "b"), X86_64, {})
    assert (entry.path, entry.selected, entry.found_via) == ("", False, "not found")
    assert entry.problems == (
        "not found in the 2 places the loader searches (TensorFlow 2.15.1 (CUDA 12.2, cuDNN 8))",
    )


def _fake_wheel(site: Path, name: str, version: str, files: dict[str, Path]) -> WheelFacts:
    dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    )
    lines = [f"{relative},sha256=x,1" for relative in files]
    (dist_info / "RECORD").write_text("\n".join(lines) + "\n")
    return WheelFacts(name, version, str(site))


def test_pip_wheel_found_through_tensorflows_runpath(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    cudnn_dir = site / "nvidia" / "cudnn" / "lib"
    fake_cudnn(cudnn_dir, 90300, soname="libcudnn.so.9")
    wheel = _fake_wheel(
        site, "nvidia-cudnn-cu12", "9.3.0.75", {"nvidia/cudnn/lib/libcudnn.so.9": cudnn_dir}
    )
    requester = fake_tf_framework(
        site, "$ORIGIN/../nvidia/cudnn/lib:$ORIGIN/../nvidia/cuda_runtime/lib"
    )
    frameworks = [tf("2.18.1", str(site))]
    assert tensorflow_requester(frameworks) == requester
    runpath, rpath, problems = requester_paths(requester)
    assert problems == ()
    assert runpath == (
        (str(requester), (str(cudnn_dir), str(site / "nvidia" / "cuda_runtime" / "lib"))),
    )
    assert rpath == ()
    search = linux_search(runpath=runpath, extra=nvidia_wheel_dirs([str(site)], windows=False))
    wanted = WantedLibrary("cudnn", "libcudnn.so.9", "TensorFlow 2.18.1", "cudnn")
    (copy,) = probe_libraries([wanted], search, X86_64, wheel_owners([wheel]))
    assert copy.selected
    assert copy.found_via == f"RUNPATH of {requester}"
    assert copy.owner == "nvidia-cudnn-cu12 9.3.0.75 (pip)"
    assert copy.version == "9.3.0.75"  # the owning wheel's, exact


def test_tf_2_16_runpath_misses_the_cudnn_wheel(tmp_path: Path) -> None:
    # docs/facts.md 5.3: the 2.16 libtensorflow_framework.so.2 RUNPATH lists only cuda_runtime, so
    # pip's cuDNN is on disk but the loader never reaches it (tensorflow/tensorflow#63362).
    site = tmp_path / "site-packages"
    cudnn_dir = site / "nvidia" / "cudnn" / "lib"
    fake_cudnn(cudnn_dir, 8907, soname="libcudnn.so.8")
    (site / "nvidia" / "cuda_runtime" / "lib").mkdir(parents=True)
    requester = fake_tf_framework(site, "$ORIGIN/../nvidia/cuda_runtime/lib")
    runpath, _, _ = requester_paths(requester)
    search = linux_search(runpath=runpath, extra=nvidia_wheel_dirs([str(site)], windows=False))
    facts = probe_libraries([cudnn8()], search, X86_64, {})
    assert [(f.path, f.selected, f.found_via) for f in facts] == [
        ("", False, "not found"),
        (str(cudnn_dir / "libcudnn.so.8"), False, "pip wheel nvidia/cudnn"),
    ]


class _GivenCopies:
    """A LoaderSearch that returns given copies: the seam where a Windows loader's answer is
    replaced, because Windows path resolution cannot run here. The files themselves are real
    mingw-built DLLs."""

    def __init__(self, copies: dict[str, list[Candidate]]) -> None:
        self.copies = copies

    def locations(self) -> tuple[SearchLocation, ...]:
        return (SearchLocation("C:\\Windows\\System32", "System32", True),)

    def candidates(self, file_name: str) -> tuple[Candidate, ...]:
        return tuple(self.copies.get(file_name, ()))


@pytest.mark.skipif(mingw(32) is None, reason="needs i686-w64-mingw32-gcc (CI installs it)")
def test_32_bit_dll_in_64_bit_python_is_error_193(tmp_path: Path) -> None:
    dll = fake_windows_dll(tmp_path / "bin", "cudnn_cnn_infer64_8.dll", bits=32)
    search = _GivenCopies({dll.name: [Candidate(str(dll), "PATH", True)]})
    wanted = WantedLibrary("cudnn_cnn_infer", dll.name, "TensorFlow 2.10.1", None)
    (copy,) = probe_libraries([wanted], search, X86_64, {})
    assert copy.arch == "i386 32-bit"
    assert copy.problems == ("wrong architecture: i386 32-bit, but this Python is x86_64 64-bit",)


@pytest.mark.skipif(mingw(64) is None, reason="needs x86_64-w64-mingw32-gcc (CI installs it)")
def test_64_bit_dll_reads_clean(tmp_path: Path) -> None:
    dll = fake_windows_dll(tmp_path / "bin", "cudnn64_8.dll", bits=64)
    search = _GivenCopies({dll.name: [Candidate(str(dll), "PATH", True)]})
    wanted = WantedLibrary("cudnn", dll.name, "TensorFlow 2.10.1", None)
    (copy,) = probe_libraries([wanted], search, X86_64, {})
    assert (copy.arch, copy.problems) == ("x86_64 64-bit", ())


def test_version_parsers() -> None:
    assert decode_cudnn_version(8907) == "8.9.7"
    assert decode_cudnn_version(7605) == "7.6.5"
    assert decode_cudnn_version(90300) == "9.3.0"
    assert decode_cudnn_version(91700) == "9.17.0"
    header = "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 3\n#define CUDNN_PATCHLEVEL 0\n"
    assert parse_cudnn_version_header(header) == "9.3.0"
    assert parse_cudnn_version_header("#define CUDNN_MAJOR 9\n") is None
    assert parse_cudart_version_header("#define CUDART_VERSION 12020\n") == "12.2"


def test_dangling_symlink_on_the_search_path_is_reported(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "libcudnn.so.8").symlink_to("libcudnn.so.8.9.7")  # the target was deleted
    good = fake_cudnn(tmp_path / "good", 8907, real_name="libcudnn.so.8.9.7").parent
    facts = probe_libraries([cudnn8()], linux_search(broken, good), X86_64, {})
    assert [(f.path, f.selected, f.found_via) for f in facts] == [
        (str(broken / "libcudnn.so.8"), False, "dangling symlink"),
        (str(good / "libcudnn.so.8"), True, "LD_LIBRARY_PATH"),
    ]
    assert facts[0].problems == ("dangling symlink to libcudnn.so.8.9.7: the loader skips it",)


def test_another_cuda_major_is_reported_when_the_wanted_one_is_missing(tmp_path: Path) -> None:
    # CUDA 11 is installed, TensorFlow 2.15 asks for libcudart.so.12 (libraries.toml).
    lib = tmp_path / "cuda-11.8" / "lib64"
    build_shared_object("fake_cudart.c", lib, "libcudart.so.11.0", "libcudart.so.11.8.89",
                        ("-DFAKE_CUDART_VERSION=11080",))  # fmt: skip
    wanted = WantedLibrary("cudart", "libcudart.so.12", "TensorFlow 2.15.1", "cudart")
    facts = probe_libraries([wanted], linux_search(lib), X86_64, {})
    assert [(f.found_via, f.path, f.version) for f in facts] == [
        ("another version", str(lib / "libcudart.so.11.0"), "11.8.89"),
        ("another version", str(lib / "libcudart.so.11.8.89"), "11.8.89"),
        ("not found", "", None),
    ]
    assert facts[0].problems == (
        "libcudart.so.11.0 is another version: the loader is asked for libcudart.so.12",
    )
