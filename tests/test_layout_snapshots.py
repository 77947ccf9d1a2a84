"""Real install layouts, rebuilt, against the real glibc loader.

tests/layouts/*.json are snapshots of real installs (scripts/snapshot_layout.py): every shared
object of the nvidia-* wheels and TensorFlow's libtensorflow_framework.so.2, with its SONAME,
DT_NEEDED and DT_RUNPATH as the real files have them, the DSO loader functions the real
framework defines and each wheel's RECORD. Each snapshot is rebuilt here as gcc-built shared
objects with those dynamic sections, in the same directory tree. The oracle is the real loader:
a child process loads the rebuilt framework and calls dlopen() from inside it, as TensorFlow's
DSO loader does, then reports the path in the link map (or dlerror()). envcheck's choice of copy
(the probe's `selected`) must be that path, in every scenario; where the loader fails, envcheck
must select nothing or name the problem with the copy it selects.

The rebuilt objects are models: their dynamic sections are the real ones, their code is empty.
What only the real code decides (cuDNN 9 opening its sub-libraries beside itself) is checked on
the real wheels in tests/test_real_installs.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.findings import Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.probe.binary_files import python_machine
from envcheck.probe.copy_owners import library_key
from envcheck.probe.facts import FrameworkFacts, FrameworkLoadingFacts, LibraryFacts, WheelFacts
from envcheck.probe.framework_loading import framework_loading
from envcheck.probe.libraries import (
    loader_skips,
    probe_libraries,
    requester_paths,
    tensorflow_loader_names,
    wanted_libraries,
    wheel_owners,
)
from envcheck.probe.search import LinuxSearch, host_search, nvidia_wheel_dirs
from tests.facts_builder import machine
from tests.framework_sources import JAX_LOAD
from tests.native_fakes import FAKES, have_gcc

pytestmark = pytest.mark.skipif(
    not (have_gcc() and sys.platform.startswith("linux")),
    reason="rebuilds ELF files with gcc and asks the glibc loader",
)

LAYOUTS = Path(__file__).parent / "layouts"
TF_2_21 = "tf-2.21.0-and-cuda.json"
TF_2_15 = "tf-2.15.1-and-cuda-cudnn-8.9.7.json"
# Before and-cuda (TF <= 2.13): the -cu11 wheels, reached only through LD_LIBRARY_PATH, as
# TensorFlow's pip guide of that era set it up.
TF_2_13 = "tf-2.13.1-cudnn-cu11-8.6.json"
FRAMEWORK = "tensorflow/libtensorflow_framework.so.2"
# The system's own libraries: linked from the system, not rebuilt.
SYSTEM = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
          "libstdc++.so.6", "libgcc_s.so.1", "libz.so.1", "libutil.so.1",
          "ld-linux-x86-64.so.2"}  # fmt: skip

ORACLE = r"""
import ctypes, json, sys
framework = ctypes.CDLL(sys.argv[1])
out = ctypes.create_string_buffer(4096)
ok = framework.tf_dlopen(sys.argv[2].encode(), out, 4096)
print(json.dumps({"ok": bool(ok), "text": out.value.decode(errors="replace")}))
"""


@dataclass(frozen=True)
class Rebuilt:
    snapshot: dict[str, Any]
    site: Path

    @property
    def framework(self) -> Path:
        return self.site / FRAMEWORK


def _objects(snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
    objects = snapshot["objects"]
    assert isinstance(objects, list)
    return objects


def _gcc(out: Path, source: Path, soname: str | None, needed: list[str], stubs: Path,
         runpath: list[str], rpath: list[str], extra: tuple[Path, ...] = ()) -> None:  # fmt: skip
    command = ["gcc", "-shared", "-fPIC", "-O0", "-o", str(out), str(source), *map(str, extra)]
    if soname:
        command.append(f"-Wl,-soname,{soname}")
    if needed:
        command += ["-Wl,--no-as-needed", f"-L{stubs}", *(f"-l:{name}" for name in needed)]
    if runpath:
        command += ["-Wl,--enable-new-dtags", f"-Wl,-rpath,{':'.join(runpath)}"]
    elif rpath:
        command += ["-Wl,--disable-new-dtags", f"-Wl,-rpath,{':'.join(rpath)}"]
    subprocess.run(command, check=True, capture_output=True)


def rebuild(snapshot: dict[str, Any], root: Path) -> Rebuilt:
    """The snapshot's tree under root/site-packages, with its wheels' dist-info records."""
    site, stubs = root / "site-packages", root / "stubs"
    stubs.mkdir(parents=True)
    empty = root / "empty.c"
    empty.write_text("int envcheck_layout_model(void) { return 0; }\n")
    objects = _objects(snapshot)
    # Link-time stand-ins for every dependency, so each DT_NEEDED is recorded as written; at run
    # time only the rebuilt tree is there (libcuda.so.1, the driver, is not: no GPU machine).
    for name in sorted({n for o in objects for n in o["needed"] if n not in SYSTEM}):
        _gcc(stubs / name, empty, name, [], stubs, [], [])
    for entry in objects:
        out = site / str(entry["path"])
        out.parent.mkdir(parents=True, exist_ok=True)
        needed = [n for n in entry["needed"] if n not in SYSTEM]
        runpath, rpath = list(entry["runpath"]), list(entry["rpath"])
        if entry["path"] == FRAMEWORK:
            functions = [f"Get{n}DsoHandle" for n in entry["loader_functions"]]
            loader = root / "dso_loader.c"
            loader.write_text("".join(
                f"void *_ZN3tsl8internal9DsoLoader{len(f)}{f}Ev(void) {{ return 0; }}\n"
                for f in functions
            ))  # fmt: skip
            _gcc(out, FAKES / "fake_tf_framework.c", str(entry["soname"]), needed, stubs,
                 runpath, rpath, (loader,))  # fmt: skip
        else:
            _gcc(out, empty, entry["soname"], needed, stubs, runpath, rpath)
    for wheel in snapshot["wheels"]:
        stem = f"{wheel['name'].replace('-', '_')}-{wheel['version']}"
        dist_info = site / f"{stem}.dist-info"
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(f"Name: {wheel['name']}\nVersion: {wheel['version']}\n")
        (dist_info / "RECORD").write_text("".join(f"{f},,\n" for f in wheel["files"]))
    return Rebuilt(snapshot, site)


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def _load(name: str) -> dict[str, Any]:
    data = json.loads((LAYOUTS / name).read_text())
    assert isinstance(data, dict) and data["schema"] == "envcheck.layout/1"
    return data


@pytest.fixture(scope="module")
def layouts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Rebuilt]:
    return {
        name: rebuild(_load(name), tmp_path_factory.mktemp(name.removesuffix(".json")))
        for name in (TF_2_21, TF_2_15, TF_2_13)
    }


def probe(rebuilt: Rebuilt, matrix: Matrix, ld_library_path: list[Path]) -> list[LibraryFacts]:
    """envcheck's answer for the rebuilt install: every copy of every library TF wants."""
    build = rebuilt.snapshot["tensorflow_build"]
    assert isinstance(build, dict)
    version = next(w["version"] for w in rebuilt.snapshot["wheels"] if w["name"] == "tensorflow")
    requires = tuple(rebuilt.snapshot["tensorflow_requires"])
    frameworks = [
        FrameworkFacts(
            "tensorflow", "tensorflow", version, str(rebuilt.site), build, requires=requires
        )
    ]
    wheels = [
        WheelFacts(w["name"], w["version"], str(rebuilt.site)) for w in rebuilt.snapshot["wheels"]
    ]
    runpath, rpath, _ = requester_paths(rebuilt.framework)
    env = {"LD_LIBRARY_PATH": ":".join(map(str, ld_library_path))} if ld_library_path else {}
    search = host_search(
        runpath=runpath,
        rpath=rpath,
        extra=nvidia_wheel_dirs([str(rebuilt.site)], windows=False),
        env=env,
        platform="linux",
    )
    assert isinstance(search, LinuxSearch)
    search = replace(search, usable=loader_skips(*python_machine()))
    names = tensorflow_loader_names(rebuilt.framework, matrix)  # the doctor's lookup
    wanted = wanted_libraries(matrix, frameworks, False, names)
    return list(
        probe_libraries(wanted, search, python_machine(), wheel_owners(wheels), call_versions=False)
    )


def real_loader(rebuilt: Rebuilt, name: str, ld_library_path: list[Path]) -> tuple[bool, str]:
    """(opened, path or dlerror) for dlopen(name) made from inside the rebuilt framework."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    if ld_library_path:
        env["LD_LIBRARY_PATH"] = ":".join(map(str, ld_library_path))
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", ORACLE, str(rebuilt.framework), name],
        capture_output=True, text=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    answer = json.loads(done.stdout)
    return answer["ok"], answer["text"]


def loaded_by_tensorflow(facts: list[LibraryFacts]) -> Iterator[str]:
    """The names TensorFlow's own loader asks for (not cuDNN's sub-libraries, not the driver)."""
    for name in dict.fromkeys(f.file for f in facts):
        if not name.startswith("libcudnn_") and name != "libcuda.so.1":
            yield name


def assert_agrees(rebuilt: Rebuilt, matrix: Matrix, ld_library_path: list[Path]) -> None:
    facts = probe(rebuilt, matrix, ld_library_path)
    checked = list(loaded_by_tensorflow(facts))
    assert len(checked) >= 7, checked
    for name in checked:
        opened, text = real_loader(rebuilt, name, ld_library_path)
        selected = [f for f in facts if f.file == name and f.selected]
        if opened:
            assert len(selected) == 1, (name, text, facts)
            assert os.path.realpath(selected[0].path) == os.path.realpath(text), (name, text)
            assert not [p for p in selected[0].problems if p.startswith("needs ")], selected[0]
        else:
            problems = [p for f in selected for p in f.problems]
            assert not selected or problems, (name, text, selected)


@pytest.mark.parametrize("layout", [TF_2_21, TF_2_15, TF_2_13])
def test_as_installed_the_probe_picks_what_the_loader_opens(
    layouts: dict[str, Rebuilt], matrix: Matrix, layout: str
) -> None:
    assert_agrees(layouts[layout], matrix, [])


def test_tf_2_21_cusolver_is_out_of_reach_and_the_path_fix_reaches_it(
    layouts: dict[str, Rebuilt], matrix: Matrix
) -> None:
    rebuilt = layouts[TF_2_21]
    opened, text = real_loader(rebuilt, "libcusolver.so.11", [])
    assert not opened and "libcusolver.so.11" in text
    facts = probe(rebuilt, matrix, [])
    assert [f.found_via for f in facts if f.file == "libcusolver.so.11"] == [
        "not found",
        "pip wheel nvidia/cusolver",
    ]
    # The framework's RUNPATH names its 26 directories about 700 times; each counts once.
    runpath = next(o["runpath"] for o in _objects(rebuilt.snapshot) if o["path"] == FRAMEWORK)
    (missing,) = [f for f in facts if f.file == "libcusolver.so.11" and not f.path]
    places = int(missing.problems[0].split()[4])  # "not found in the N places ..."
    assert len(runpath) > 600 and len(set(runpath)) <= places < len(set(runpath)) + 40
    fix = [rebuilt.site / "nvidia" / "cusolver" / "lib"]
    opened, text = real_loader(rebuilt, "libcusolver.so.11", fix)
    assert opened, text
    (selected,) = [
        f for f in probe(rebuilt, matrix, fix) if f.file == "libcusolver.so.11" and f.selected
    ]
    # cuSOLVER's own RUNPATH ($ORIGIN/../../nvjitlink/lib ...) finds its dependencies.
    assert selected.problems == ()
    assert_agrees(rebuilt, matrix, fix)


def test_the_releases_loader_decides_what_is_wanted(
    layouts: dict[str, Rebuilt], matrix: Matrix
) -> None:
    # Neither 2.15.1 nor 2.21.0 has DsoLoader::GetCurandDsoHandle: cuRAND is never looked for.
    for layout in (TF_2_21, TF_2_15):
        files = {f.file for f in probe(layouts[layout], matrix, [])}
        assert "libcurand.so.10" not in files
        assert {"libcudart.so.12", "libcublas.so.12", "libcusolver.so.11"} <= files


def test_older_cuda_wheels_first_on_ld_library_path(
    layouts: dict[str, Rebuilt], matrix: Matrix
) -> None:
    older = layouts[TF_2_15].site / "nvidia"
    first = [older / "cublas" / "lib", older / "cuda_runtime" / "lib", older / "cudnn" / "lib"]
    assert_agrees(layouts[TF_2_21], matrix, first)
    facts = probe(layouts[TF_2_21], matrix, first)
    (cublas,) = [f for f in facts if f.file == "libcublas.so.12" and f.selected]
    assert (
        cublas.found_via == "LD_LIBRARY_PATH"
        and cublas.owner == "nvidia-cublas-cu12 12.2.5.6 (pip)"
    )


def test_a_copy_of_the_wrong_class_is_passed_over(
    layouts: dict[str, Rebuilt], matrix: Matrix, tmp_path: Path
) -> None:
    wrong = tmp_path / "i386"
    wrong.mkdir()
    tiny = tmp_path / "tiny.c"
    tiny.write_text("int tiny(void) { return 32; }\n")
    command = ["gcc", "-m32", "-shared", "-fPIC", "-nostdlib", "-Wl,-soname,libcudart.so.12",
               "-o", str(wrong / "libcudart.so.12"), str(tiny)]  # fmt: skip
    if subprocess.run(command, capture_output=True, check=False).returncode != 0:
        pytest.skip("gcc cannot build a 32-bit shared object here")
    assert_agrees(layouts[TF_2_21], matrix, [wrong])
    copies = [f for f in probe(layouts[TF_2_21], matrix, [wrong]) if f.file == "libcudart.so.12"]
    assert [(f.path, f.selected) for f in copies][:2] == [
        (str(wrong / "libcudart.so.12"), False),
        (str(layouts[TF_2_21].site / "nvidia/cuda_runtime/lib/libcudart.so.12"), True),
    ]


def test_a_truncated_copy_first(
    layouts: dict[str, Rebuilt], matrix: Matrix, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    real = layouts[TF_2_21].site / "nvidia/cublas/lib/libcublas.so.12"
    (broken / "libcublas.so.12").write_bytes(real.read_bytes()[:40])
    opened, text = real_loader(layouts[TF_2_21], "libcublas.so.12", [broken])
    assert not opened and "too short" in text  # glibc stops at it: it does not search on
    assert_agrees(layouts[TF_2_21], matrix, [broken])
    (selected,) = [
        f
        for f in probe(layouts[TF_2_21], matrix, [broken])
        if f.file == "libcublas.so.12" and f.selected
    ]
    assert selected.path == str(broken / "libcublas.so.12") and selected.problems


def test_the_doctor_names_the_older_copies_that_load_and_the_ones_they_hide(
    layouts: dict[str, Rebuilt], matrix: Matrix
) -> None:
    older = layouts[TF_2_15].site / "nvidia"
    first = [older / "cublas" / "lib", older / "cuda_runtime" / "lib"]
    facts = machine(
        libraries=tuple(probe(layouts[TF_2_21], matrix, first)),
        frameworks=(
            FrameworkFacts(
                "tensorflow",
                "tensorflow",
                "2.21.0",
                str(layouts[TF_2_21].site),
                layouts[TF_2_21].snapshot["tensorflow_build"],
                requires=tuple(layouts[TF_2_21].snapshot["tensorflow_requires"]),
            ),
        ),
    )
    findings = [f for f in diagnose(facts, matrix).findings if f.code == "library-shadowed"]
    shadowed = {f.message.split()[1]: f for f in findings}
    assert set(shadowed) == {"libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12"}
    cublas = shadowed["libcublas.so.12"]
    assert cublas.severity is Severity.ERROR
    assert "12.2.5.6" in cublas.message and "nvidia-cublas-cu12>=12.5.3.2" in cublas.message
    assert cublas.fix.startswith(f"Remove {older / 'cublas' / 'lib'} from LD_LIBRARY_PATH")
    # As installed, nothing is below the floors.
    healthy = machine(
        libraries=tuple(probe(layouts[TF_2_21], matrix, [])), frameworks=facts.frameworks
    )
    assert not [f for f in diagnose(healthy, matrix).findings if f.code == "library-shadowed"]


def test_the_pre_and_cuda_layout_through_ld_library_path(
    layouts: dict[str, Rebuilt], matrix: Matrix
) -> None:
    rebuilt = layouts[TF_2_13]
    # The framework's RUNPATH is only $ORIGIN/: as installed, no CUDA library is in reach.
    facts = probe(rebuilt, matrix, [])
    assert not [f for f in facts if f.selected and f.file != "libcuda.so.1"]
    nvidia = rebuilt.site / "nvidia"
    guide = sorted(p for p in nvidia.glob("*/lib") if p.is_dir())
    assert_agrees(rebuilt, matrix, guide)
    selected = {f.file: f for f in probe(rebuilt, matrix, guide) if f.selected}
    assert {"libcudart.so.11.0", "libcublas.so.11", "libcudnn.so.8"} <= set(selected)
    assert selected["libcudnn.so.8"].owner == "nvidia-cudnn-cu11 8.6.0.163 (pip)"
    # 2.13 still has DsoLoader::GetCurandDsoHandle, and the guide's wheels do not ship cuRAND.
    assert "libcurand.so.10" in {f.file for f in facts}


# --- PyTorch and JAX: the static loader model against a child that loads the rebuilt tree -----
#
# tests/layouts/*-loading.json (scripts/snapshot_layout.py --loading) are snapshots of the real
# torch 2.14.1, TensorFlow 2.21.0 + torch 2.14.1 and JAX 0.10.2 (CUDA 12 plugin) venvs: every
# shared object under nvidia/, torch/ and jax_plugins/ with its real dynamic section, which
# nvidia/ packages are regular ones, torch's preload table and the plugin's _load() calls. They
# are rebuilt as for TensorFlow above. The oracle is a child that loads the rebuilt tree the way
# the framework's Python code does and reads /proc/self/maps: the loader (glibc), the glob order
# (Python's glob on this file system) and the import system (for `import nvidia.<module>`) are
# the real ones; the preload code in the children is a model of the frameworks' own, written
# from torch 2.14.1's torch/__init__.py (`_load_global_deps`, `_preload_cuda_deps`,
# `_get_cuda_dep_paths`) and jax-cuda12-plugin 0.10.2's jax_plugins/xla_cuda12/__init__.py
# (`_load_nvidia_libraries`, `_load`), as installed in those venvs. envcheck reads the same
# preload table from a torch/__init__.py (and _load() calls from a plugin __init__.py) written
# into the rebuilt tree in the shape of those files.

TORCH_LOADING = "torch-2.14.1-loading.json"
TF_TORCH_LOADING = "tf-2.21.0-and-cuda-torch-2.14.1-loading.json"
JAX_LOADING = "jax-0.10.2-cuda12-loading.json"

TORCH_INIT = """
import ctypes, glob, os

def _get_cuda_dep_paths(path, lib_folder, lib_name):
    from torch.version import cuda as cuda_version
    found = glob.glob(os.path.join(path, "nvidia", lib_folder, "lib", lib_name))
    if cuda_version is not None:
        major = cuda_version.split(".")[0]
        found += glob.glob(os.path.join(path, "nvidia", f"cu{major}", "lib", lib_name))
    return found + glob.glob(os.path.join(path, lib_folder, "lib", lib_name))

def _preload_cuda_deps(err=None, required=True):
    cuda_libs = TABLE

def _load_global_deps():
    try:
        ctypes.CDLL("libtorch_global_deps.so", mode=ctypes.RTLD_GLOBAL)
        try:
            with open("/proc/self/maps") as f:
                _maps = f.read()
            if "libcudart.so" not in _maps:
                return
            _preload_cuda_deps(required=False)
        except Exception:
            pass
    except OSError as err:
        _preload_cuda_deps(err)
        ctypes.CDLL("libtorch_global_deps.so", mode=ctypes.RTLD_GLOBAL)
"""
# The child: torch 2.14.1's preload algorithm (a model of it), then `import torch._C`'s dlopen.
TORCH_CHILD = r"""
import ctypes, glob, json, os, sys
site, major, table = json.loads(sys.argv[1])
deps = os.path.join(site, "torch", "lib", "libtorch_global_deps.so")
def paths(entry, folder, pattern):
    found = glob.glob(os.path.join(entry, "nvidia", folder, "lib", pattern))
    found += glob.glob(os.path.join(entry, "nvidia", "cu" + major, "lib", pattern))
    return found + glob.glob(os.path.join(entry, folder, "lib", pattern))
def preload(required):
    for folder, pattern in table:
        chosen = next((c[0] for c in (paths(e, folder, pattern) for e in [site]) if c), None)
        if chosen is None and required:
            raise ValueError(pattern)
        if chosen is not None:
            ctypes.CDLL(chosen)
try:
    ctypes.CDLL(deps, mode=ctypes.RTLD_GLOBAL)
    try:
        if "libcudart.so" in open("/proc/self/maps").read():
            preload(False)
    except Exception:
        pass
except OSError:
    preload(True)
    ctypes.CDLL(deps, mode=ctypes.RTLD_GLOBAL)
torch = os.path.join(site, "torch")
ctypes.CDLL(os.path.join(torch, [n for n in os.listdir(torch) if n.startswith("_C.")][0]))
print(json.dumps(sorted({l.split()[5] for l in open("/proc/self/maps") if len(l.split()) > 5})))
"""
JAX_INIT = (
    JAX_LOAD
    + """
def _load_nvidia_libraries():
CALLS
"""
)
# The child: the plugin's _load_nvidia_libraries (a model of it), with the real import system.
JAX_CHILD = r"""
import ctypes, importlib, json, pathlib, sys
site, calls = json.loads(sys.argv[1])
sys.path[:] = [site]
for module, names in calls:
    try:
        m = importlib.import_module("nvidia." + module)
    except ImportError:
        m = None
    for name in names:
        if m is not None:
            try:
                ctypes.cdll.LoadLibrary(str(pathlib.Path(m.__path__[0]) / "lib" / name))
            except OSError:
                pass
print(json.dumps(sorted({l.split()[5] for l in open("/proc/self/maps") if len(l.split()) > 5})))
"""


def _load_loading(name: str) -> dict[str, Any]:
    data = json.loads((LAYOUTS / name).read_text())
    assert isinstance(data, dict) and data["schema"] == "envcheck.loading/1"
    return data


def rebuild_loading(snapshot: dict[str, Any], root: Path) -> Path:
    """The snapshot's tree under root/site-packages: the objects, the regular nvidia/ packages,
    the wheels' records, and torch's or the JAX plugin's Python files in their shape."""
    site, stubs = root / "site-packages", root / "stubs"
    stubs.mkdir(parents=True)
    empty = root / "empty.c"
    empty.write_text("int envcheck_layout_model(void) { return 0; }\n")
    objects = _objects(snapshot)
    for name in sorted({n for o in objects for n in o["needed"] if n not in SYSTEM}):
        _gcc(stubs / name, empty, name, [], stubs, [], [])
    for entry in objects:
        out = site / str(entry["path"])
        out.parent.mkdir(parents=True, exist_ok=True)
        needed = [n for n in entry["needed"] if n not in SYSTEM]
        _gcc(out, empty, entry["soname"], needed, stubs, list(entry["runpath"]),
             list(entry["rpath"]))  # fmt: skip
    for package in snapshot["packages"]:
        (site / package).mkdir(parents=True, exist_ok=True)
        (site / package / "__init__.py").write_text("")
    for wheel in snapshot["wheels"]:
        dist_info = site / f"{wheel['name'].replace('-', '_')}-{wheel['version']}.dist-info"
        dist_info.mkdir()
        (dist_info / "RECORD").write_text("".join(f"{f},,\n" for f in wheel["files"]))
    torch = snapshot["torch"]
    if torch:
        table = [tuple(pair) for pair in torch["preload"]]
        (site / "torch" / "__init__.py").write_text(TORCH_INIT.replace("TABLE", repr(table)))
        (site / "torch" / "version.py").write_text(f"cuda = {torch['cuda']!r}\n")
    for directory, calls in snapshot["jax_plugins"].items():
        body = "".join(f"    _load({module!r}, {names!r})\n" for module, names in calls)
        (site / directory / "__init__.py").write_text(JAX_INIT.replace("CALLS\n", body))
    return site


@pytest.fixture(scope="module")
def loading_layouts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {
        name: rebuild_loading(_load_loading(name), tmp_path_factory.mktemp(name[:-5]))
        for name in (TORCH_LOADING, TF_TORCH_LOADING, JAX_LOADING)
    }


def static_model(site: Path, snapshot: dict[str, Any]) -> FrameworkLoadingFacts:
    if snapshot["torch"]:
        build = {"cuda_version": snapshot["torch"]["cuda"], "is_cuda_build": True}
        frameworks = [FrameworkFacts("torch", "torch", "2.14.1", str(site), build)]
    else:
        frameworks = [
            FrameworkFacts("jax", "jax", "0.10.2", str(site)),
            FrameworkFacts("jax-cuda12-plugin", "jax-cuda12-plugin", "0.10.2", str(site)),
        ]
    search = host_search(env={}, platform="linux")
    assert isinstance(search, LinuxSearch)
    search = replace(search, usable=loader_skips(*python_machine()))
    (model,) = framework_loading(frameworks, [str(site)], search, sys.executable)
    return model


def child_maps(site: Path, snapshot: dict[str, Any]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    if snapshot["torch"]:
        source = TORCH_CHILD
        argument = [
            str(site),
            snapshot["torch"]["cuda"].split(".")[0],
            snapshot["torch"]["preload"],
        ]
    else:
        source = JAX_CHILD
        argument = [str(site), next(iter(snapshot["jax_plugins"].values()))]
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", source, json.dumps(argument)],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    maps: list[str] = json.loads(done.stdout)
    return maps


@pytest.mark.parametrize("layout", [TORCH_LOADING, TF_TORCH_LOADING, JAX_LOADING])
def test_the_static_model_names_what_the_rebuilt_framework_maps(
    loading_layouts: dict[str, Path], layout: str
) -> None:
    snapshot, site = _load_loading(layout), loading_layouts[layout]
    model = static_model(site, snapshot)
    assert not model.model.startswith(("unknown", "not modelled")), model.model
    maps = {os.path.realpath(p) for p in child_maps(site, snapshot)}
    predicted = {os.path.realpath(lib.path) for lib in model.libraries if lib.path}
    assert len(predicted) >= 12, model
    assert predicted - maps == set(), (predicted - maps, model)
    unnamed = {p for p in maps if library_key(p) and p not in predicted}
    assert unnamed == set(), unnamed


def test_torch_beside_tensorflow_gets_the_cuda_12_wheels_files(
    loading_layouts: dict[str, Path],
) -> None:
    site = loading_layouts[TF_TORCH_LOADING]
    model = static_model(site, _load_loading(TF_TORCH_LOADING))
    got = {lib.library: lib for lib in model.libraries}
    # What libtorch_cuda.so links: the preloads took the CUDA 12 wheels' directories first.
    for library, directory in (
        ("libcudnn.so.9", "cudnn"),
        ("libcurand.so.10", "curand"),
        ("libcusparse.so.12", "cusparse"),
        ("libcublas.so.13", "cu13"),
    ):
        assert got[library].path == str(site / "nvidia" / directory / "lib" / library), library
        assert "libtorch_cuda.so" in got[library].wanted_by
    assert got["libcurand.so.10"].owner == "nvidia-curand-cu12 10.3.10.19"
    assert got["libcurand.so.10"].cuda == "12"
    # Preloaded, never linked: cuBLAS 12 is mapped beside the cuBLAS 13 torch links.
    assert got["libcublas.so.12"].wanted_by == ()
    alone = {
        lib.library: lib.path
        for lib in static_model(
            loading_layouts[TORCH_LOADING], _load_loading(TORCH_LOADING)
        ).libraries
    }
    assert alone["libcurand.so.10"] == str(
        loading_layouts[TORCH_LOADING] / "nvidia/cu13/lib/libcurand.so.10"
    )
