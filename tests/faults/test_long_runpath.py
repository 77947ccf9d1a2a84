"""A RUNPATH of any realistic length is read as ld.so reads it (issue 24, item 17).

The ELF reader stopped at 64 KiB per dynamic string and the probe dropped the file's problem:
a libtensorflow_framework.so.2 whose RUNPATH lists 15,000 directories before the real
nvidia/*/lib ones made the doctor report its libraries missing, with no word of the probe,
while `ld.so --list` resolves them through that RUNPATH. The files here are built by gcc with
such a RUNPATH and the real loader is asked what it resolves; where a bound of the reader is
still hit (far above any linker's output), the probe says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.probe import binary_files
from envcheck.probe.background import start_probe
from envcheck.probe.collect import collect_facts
from envcheck.probe.libraries import WantedLibrary, probe_libraries, requester_paths
from envcheck.probe.search import LinuxSearch
from tests.faults.processes import ENVCHECK, environment
from tests.native_fakes import build_shared_object, fake_cudnn, have_gcc
from tests.test_probe_cli import BUILD_INFO_2_18, _dist

pytestmark = pytest.mark.skipif(
    not have_gcc() or sys.platform != "linux", reason="gcc builds ELF files for glibc's loader"
)

ENTRIES = 15_000  # directories before the real ones: about 330 KB of RUNPATH
REAL = ("$ORIGIN/../nvidia/cudnn/lib", "$ORIGIN/../nvidia/cuda_runtime/lib")
# One argument may be at most 128 KiB (Linux's MAX_ARG_STRLEN): the RUNPATH is given as several
# -rpath options, which the linker joins with ':' into one DT_RUNPATH.
_PER_OPTION = 2000


def _runpath_flags(entries: list[str]) -> tuple[str, ...]:
    options = [
        "-Wl,-rpath," + ":".join(entries[start : start + _PER_OPTION])
        for start in range(0, len(entries), _PER_OPTION)
    ]
    return ("-Wl,--enable-new-dtags", *options)


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A venv with TensorFlow 2.18.1 (metadata and build info), pip's cuDNN 9 in
    nvidia/cudnn/lib, and a libtensorflow_framework.so.2 that needs libcudnn.so.9 and finds it
    only through the last entries of a 15,000-entry RUNPATH."""
    root = tmp_path_factory.mktemp("runpath")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    site = Path(purelib)
    platform_dir = site / "tensorflow" / "python" / "platform"
    platform_dir.mkdir(parents=True)
    (platform_dir / "build_info.py").write_text(BUILD_INFO_2_18)
    _dist(site, "tensorflow", "2.18.1")
    cudnn_dir = site / "nvidia" / "cudnn" / "lib"
    fake_cudnn(cudnn_dir, 90300, soname="libcudnn.so.9")
    _dist(site, "nvidia-cudnn-cu12", "9.3.0.75", records=("nvidia/cudnn/lib/libcudnn.so.9",))
    (site / "nvidia" / "cuda_runtime" / "lib").mkdir(parents=True)
    entries = [f"/nonexistent/runpath/{i:05d}" for i in range(ENTRIES)] + list(REAL)
    needs_cudnn = ("-Wl,--no-as-needed", f"-L{cudnn_dir}", "-l:libcudnn.so.9")
    framework = build_shared_object(
        "fake_tf_framework.c",
        site / "tensorflow",
        "libtensorflow_framework.so.2",
        flags=(*_runpath_flags(entries), *needs_cudnn),
    )
    return {"python": python, "site": site, "cudnn": cudnn_dir, "framework": framework}


def _loader_resolves(framework: Path, name: str) -> str:
    """Where glibc's loader finds `name` for `framework` (ldd runs ld.so --list)."""
    ldd = shutil.which("ldd")
    if ldd is None:
        pytest.skip("no ldd")
    listing = subprocess.run(
        [ldd, str(framework)], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    for line in listing.splitlines():
        left, _, right = line.strip().partition(" => ")
        if left == name:
            return os.path.normpath(right.split(" (")[0])
    raise AssertionError(f"ldd does not list {name}:\n{listing}")


def test_the_loader_and_envcheck_resolve_through_a_runpath_of_15000_entries(
    machine: dict[str, Any],
) -> None:
    framework = machine["framework"]
    loader = _loader_resolves(framework, "libcudnn.so.9")
    assert loader == str(machine["cudnn"] / "libcudnn.so.9")

    runpath, rpath, problems = requester_paths(framework)
    assert problems == ()
    ((requester, directories),) = runpath
    assert len(directories) == ENTRIES + len(REAL)
    assert directories[-2] == str(machine["cudnn"])
    search = LinuxSearch(
        ld_library_path=(), runpath=runpath, rpath=rpath, ld_cache=(), default_dirs=(), extra=()
    )
    wanted = WantedLibrary("cudnn", "libcudnn.so.9", "TensorFlow 2.18.1", "cudnn")
    (copy,) = probe_libraries([wanted], search, ("x86_64", 64), {})
    assert (copy.path, copy.selected, copy.found_via) == (
        loader,
        True,
        f"RUNPATH of {requester}",
    )


def test_the_probe_finds_the_library_the_loader_finds(machine: dict[str, Any]) -> None:
    completed = subprocess.run(
        [*ENVCHECK, "probe", "--json", "--python", str(machine["python"])],
        capture_output=True, text=True, env=environment(), timeout=300, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    facts = json.loads(completed.stdout)
    cudnn = [lib for lib in facts["libraries"] if lib["file"] == "libcudnn.so.9"]
    selected = [lib for lib in cudnn if lib["selected"]]
    assert [lib["path"] for lib in selected] == [str(machine["cudnn"] / "libcudnn.so.9")], cudnn
    assert not [e for e in facts["errors"] if "RUNPATH" in e], facts["errors"]


def test_a_runpath_past_the_readers_bound_is_a_probe_problem(
    machine: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the bound is hit (here lowered below this RUNPATH's length; no linker writes one
    of 1 MiB), the facts say why the RUNPATH is missing instead of dropping it in silence."""
    monkeypatch.setattr(binary_files, "_MAX_STRING_BYTES", 64 * 1024)
    runpath, _, problems = requester_paths(machine["framework"])
    assert runpath == ()
    (problem,) = problems
    assert str(machine["framework"]) in problem and "DT_RUNPATH" in problem

    started = start_probe(python=str(machine["python"]), timeout=30.0, environ=environment())
    facts = collect_facts(load_matrix(bundled_matrix_dir()), started)
    assert problem in facts.errors
