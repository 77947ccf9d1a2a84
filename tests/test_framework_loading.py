"""The static loader model for PyTorch and JAX: reading their preload code, the import system's
answer for `nvidia.<module>`, the facts' JSON form, and the doctor's findings from it.

What the model says about real installs is held to the real loader elsewhere: rebuilt layouts of
real installs in tests/test_layout_snapshots.py, the installs themselves in
tests/test_real_framework_loading.py. The torch/__init__.py sources below are written here, in
the shapes of the released files (torch 2.14.1's `_preload_cuda_deps` list and
`_get_cuda_dep_paths`; torch 2.1's dict in `_load_global_deps`' OSError handler), not copied.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.probe.facts import (
    FactsFileError,
    FileOwner,
    FrameworkFacts,
    FrameworkLibraryFacts,
    FrameworkLoadingFacts,
    SharedFileFacts,
    WheelFacts,
    facts_from_json,
)
from envcheck.probe.framework_loading import (
    TORCH_FUNCTIONS,
    package_directory,
    parsed_functions,
    read_jax_preloads,
    read_torch_preloads,
)
from tests.facts_builder import machine
from tests.framework_sources import JAX_LOAD

# The shape of torch 2.9-2.14: a list table, three directory templates, preloads after
# libtorch_global_deps.so loads when the maps show the CUDA runtime.
TORCH_LIST_FORM = """
import ctypes, glob, os, sys

def _get_cuda_dep_paths(path, lib_folder, lib_name):
    from torch.version import cuda as cuda_version
    found = glob.glob(os.path.join(path, "nvidia", lib_folder, "lib", lib_name))
    if cuda_version is not None:
        major = cuda_version.split(".")[0]
        found += glob.glob(os.path.join(path, "nvidia", f"cu{major}", "lib", lib_name))
    rest = glob.glob(os.path.join(path, lib_folder, "lib", lib_name))
    return found + rest

def _preload_cuda_lib(lib_folder, lib_name, required=True):
    pass

def _preload_cuda_deps(err=None, required=True):
    cuda_libs = [("cublas", "libcublasLt.so.*[0-9]"), ("cudnn", "libcudnn.so.*[0-9]")]
    for lib_folder, lib_name in cuda_libs:
        _preload_cuda_lib(lib_folder, lib_name, required=required)
    _preload_cuda_lib("nvtx", "libnvToolsExt.so.*[0-9]", required=False)

def _load_global_deps():
    try:
        from importlib.metadata import distribution
    except Exception:
        pass
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
# The shape of torch 2.1-2.4: the table is a dict, preloaded only when the load fails.
TORCH_DICT_FORM = """
import ctypes, glob, os, sys

def _preload_cuda_deps(lib_folder, lib_name):
    lib_path = None
    for path in sys.path:
        nvidia_path = os.path.join(path, "nvidia")
        if not os.path.exists(nvidia_path):
            continue
        candidates = glob.glob(os.path.join(nvidia_path, lib_folder, "lib", lib_name))
        if candidates and not lib_path:
            lib_path = candidates[0]
        if lib_path:
            break
    if not lib_path:
        raise ValueError(lib_name)
    ctypes.CDLL(lib_path)

def _load_global_deps():
    try:
        ctypes.CDLL("libtorch_global_deps.so", mode=ctypes.RTLD_GLOBAL)
    except OSError as err:
        cuda_libs = {"cublas": "libcublas.so.*[0-9]", "cudnn": "libcudnn.so.*[0-9]"}
        for lib_folder, lib_name in cuda_libs.items():
            _preload_cuda_deps(lib_folder, lib_name)
        ctypes.CDLL("libtorch_global_deps.so", mode=ctypes.RTLD_GLOBAL)
"""
JAX_FORM = (
    JAX_LOAD
    + """
def _load_nvidia_libraries():
    _load("cuda_runtime", ["libcudart.so.12"])
    _load("cu13", ["libcudart.so.13"])
    _load("cublas", ["libcublas.so.12", "libcublasLt.so.12"])
"""
)


def test_the_list_form_is_read_with_its_order_templates_and_condition(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text(TORCH_LIST_FORM)
    plan = read_torch_preloads(init)
    assert not isinstance(plan, str), plan
    assert plan.table == (
        ("cublas", "libcublasLt.so.*[0-9]"),
        ("cudnn", "libcudnn.so.*[0-9]"),
        ("nvtx", "libnvToolsExt.so.*[0-9]"),
    )
    assert plan.templates == (
        ("nvidia", "{folder}", "lib"),
        ("nvidia", "cu{major}", "lib"),
        ("{folder}", "lib"),
    )
    assert (plan.after, plan.condition, plan.missing_stops) == (plan.table, "libcudart.so", False)
    assert plan.on_failure == plan.table


def test_only_the_functions_read_are_parsed_unless_their_blocks_do_not_parse(
    tmp_path: Path,
) -> None:
    # The model parses the three functions' blocks, not the ~100 kB file: a signature closed at
    # column 0 stays in its block, and a block cut by a column-0 line inside a string literal
    # falls back to the whole file; either way the plan is the whole file's.
    init = tmp_path / "__init__.py"
    wrapped = TORCH_LIST_FORM.replace(
        "def _get_cuda_dep_paths(path, lib_folder, lib_name):",
        "def _get_cuda_dep_paths(\n    path, lib_folder, lib_name\n):",
    )
    quoted = wrapped.replace(
        "def _preload_cuda_deps(err=None, required=True):\n",
        'def _preload_cuda_deps(err=None, required=True):\n    """Docs.\nat column 0\n    """\n',
    )
    expected = read_torch_preloads(_written(init, TORCH_LIST_FORM))
    assert not isinstance(expected, str), expected
    for source in (wrapped, quoted):
        assert parsed_functions(source, TORCH_FUNCTIONS).keys() >= set(TORCH_FUNCTIONS)
        assert read_torch_preloads(_written(init, source)) == expected
    assert "_preload_cuda_lib" not in parsed_functions(wrapped, TORCH_FUNCTIONS)
    assert "_preload_cuda_lib" in parsed_functions(quoted, TORCH_FUNCTIONS)  # the whole file


def _written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_the_dict_form_preloads_only_when_the_global_deps_fail(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text(TORCH_DICT_FORM)
    plan = read_torch_preloads(init)
    assert not isinstance(plan, str), plan
    assert plan.after == () and plan.condition is None
    assert plan.on_failure == (("cublas", "libcublas.so.*[0-9]"), ("cudnn", "libcudnn.so.*[0-9]"))
    assert plan.templates == (("nvidia", "{folder}", "lib"),)


def test_a_form_it_does_not_know_is_unknown_not_a_guess(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text(TORCH_LIST_FORM.replace("cuda_libs = [", "cuda_libs = _table() or ["))
    assert str(read_torch_preloads(init)).startswith("unknown: ")
    init.write_text("def _load_global_deps():\n    pass\n")
    assert str(read_torch_preloads(init)).startswith("unknown: ")
    assert str(read_torch_preloads(tmp_path / "missing.py")).startswith("unknown: ")
    init.write_text("def broken(:\n")
    assert "does not parse" in str(read_torch_preloads(init))


def test_the_jax_plugins_load_calls_are_read_in_order(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text(JAX_FORM)
    assert read_jax_preloads(init) == (
        ("cuda_runtime", ("libcudart.so.12",)),
        ("cu13", ("libcudart.so.13",)),
        ("cublas", ("libcublas.so.12", "libcublasLt.so.12")),
    )
    init.write_text(JAX_FORM.replace('"lib"', '"lib64"'))
    assert str(read_jax_preloads(init)).startswith("unknown: ")


def test_nvidia_packages_resolve_as_the_import_system_finds_them(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for site in (first, second):
        (site / "nvidia" / "cudnn" / "lib").mkdir(parents=True)
    # Namespace portions in both: the first entry's directory is __path__[0].
    assert package_directory([str(first), str(second)], "nvidia.cudnn") == str(
        first / "nvidia" / "cudnn"
    )
    # A regular package in a later entry wins over namespace portions before it.
    (second / "nvidia" / "__init__.py").write_text("")
    assert package_directory([str(first), str(second)], "nvidia.cudnn") == str(
        second / "nvidia" / "cudnn"
    )
    assert package_directory([str(first)], "nvidia.cu13") is None


LOADING = FrameworkLoadingFacts(
    "torch",
    "2.14.1",
    "13",
    "torch/__init__.py: 17 preloads",
    (
        FrameworkLibraryFacts(
            "libcurand.so.10",
            "/venv/site/nvidia/curand/lib/libcurand.so.10",
            "preloaded by torch/__init__.py from sys.path entry /venv/site",
            ("libtorch_cuda.so",),
            "nvidia-curand-cu12 10.3.10.19",
            "12",
            ("nvidia-curand 10.4.0.35", "nvidia-curand-cu12 10.3.10.19"),
        ),
        FrameworkLibraryFacts(
            "libcublas.so.12",
            "/venv/site/nvidia/cublas/lib/libcublas.so.12",
            "preloaded by torch/__init__.py from sys.path entry /venv/site",
            (),  # preloaded, never linked: no finding
            "nvidia-cublas-cu12 12.9.3.13",
            "12",
        ),
        FrameworkLibraryFacts(
            "libcudnn.so.9",
            None,
            "not found",
            ("libtorch_cuda.so",),
            None,
            None,
            problems=("not found",),
        ),
    ),
)
TORCH = FrameworkFacts(
    "torch",
    "torch",
    "2.14.1",
    "/venv/site",
    {"cuda_version": "13.0", "is_cuda_build": True},
    requires=("nvidia-curand==10.4.0.35",),
)
CURAND = (
    WheelFacts("nvidia-curand", "10.4.0.35", "/venv/site"),
    WheelFacts("nvidia-curand-cu12", "10.3.10.19", "/venv/site"),
)


def test_the_facts_round_trip_and_older_files_still_load() -> None:
    facts = machine(framework_libraries=(LOADING,))
    data = json.loads(json.dumps(facts.to_json()))
    assert facts_from_json(data) == facts
    del data["framework_libraries"]
    assert facts_from_json(data).framework_libraries == ()
    data["framework_libraries"] = [{**facts.to_json()["framework_libraries"][0], "cuda": 13}]
    with pytest.raises(FactsFileError, match=r"framework_libraries\[0\]\.cuda"):
        facts_from_json(json.loads(json.dumps(data)))


def _static(findings: tuple[object, ...]) -> list[object]:
    return [
        f
        for f in findings
        if getattr(f, "code", "") == "framework-conflict"
        and f.data.get("found_by") == "static loader model"  # type: ignore[attr-defined]
    ]


def test_another_cuda_majors_copy_that_the_framework_links_is_a_finding() -> None:
    matrix = load_matrix(bundled_matrix_dir())
    facts = machine(frameworks=(TORCH,), wheels=CURAND, framework_libraries=(LOADING,))
    (finding,) = _static(diagnose(facts, matrix).findings)
    assert finding.data["library"] == "libcurand.so.10"  # type: ignore[attr-defined]
    assert finding.data["copy_cuda"] == {LOADING.libraries[0].path: "12"}  # type: ignore[attr-defined]
    assert finding.data["pinned"] == ["nvidia-curand"]  # type: ignore[attr-defined]
    assert "built for CUDA 13" in finding.message  # type: ignore[attr-defined]
    assert ".venv-torch/bin/python -m pip install" in finding.fix  # type: ignore[attr-defined]
    # The measured maps win: with the children's answer for torch, no static finding.
    assert _static(diagnose(facts, matrix, measured={"torch"}).findings) == []
    # The same major, pinned owner: nothing.
    fine = replace(
        LOADING.libraries[0],
        path="/venv/site/nvidia/cu13/lib/libcurand.so.10",
        owner="nvidia-curand 10.4.0.35",
        cuda="13",
    )
    healthy = replace(facts, framework_libraries=(replace(LOADING, libraries=(fine,)),))
    assert _static(diagnose(healthy, matrix).findings) == []


def test_an_overwritten_file_is_left_to_the_overwrite_finding() -> None:
    matrix = load_matrix(bundled_matrix_dir())
    owners = (
        FileOwner("nvidia-curand-cu12", "10.3.10.19", 10, True),
        FileOwner("nvidia-curand", "10.4.0.35", 20, False),
    )
    shared = SharedFileFacts("/venv/site", "nvidia/curand/lib/libcurand.so.10", 10, "size", owners)
    facts = machine(
        frameworks=(TORCH,), wheels=CURAND, framework_libraries=(LOADING,), shared_files=(shared,)
    )
    assert _static(diagnose(facts, matrix).findings) == []


def test_the_frameworks_a_child_measured_are_those_it_imported_and_mapped() -> None:
    from envcheck.diagnose.run import _measured  # noqa: PLC0415

    orders = {
        "runs": [
            {
                "imports": [
                    {"framework": "torch", "status": "ok"},
                    {"framework": "jax", "status": "crashed-here"},
                ],
                "copies": [{"library": "libcudnn.so.9", "path": "/x", "after": "import:torch"}],
            }
        ]
    }
    assert _measured(orders) == {"torch"}
    assert _measured({}) == set()
