"""The fix for a library a framework could not load, from the wheel the framework pins
(envcheck/diagnose/wheel_fixes.py, matrix/wheel_libraries.toml).

The facts are those of a real torch 2.14.1 install (tests/layouts/torch-2.14.1-records.json,
rebuilt as dist-info directories: its real Requires-Dist lines, cuda-toolkit's extras
included); the failed import is the error PyTorch 2.14.1 raised there with its cuDNN wheel
uninstalled, as the smoke test's harness caught it. The table is held to the shared objects the
real wheels' RECORDs list (tests/layouts/nvidia-wheel-libraries.json).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from packaging.utils import canonicalize_name

from envcheck.diagnose.context import Context
from envcheck.diagnose.doctor import diagnose
from envcheck.diagnose.smoke_rules import smoke_findings
from envcheck.diagnose.wheel_fixes import with_wheel_fixes
from envcheck.findings import Finding, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.matrix.rows import MatrixDataError
from envcheck.matrix.wheel_libraries import load_wheel_libraries, shipping
from envcheck.probe.facts import Facts
from envcheck.probe.smoke import ChildEnding, result_from_output
from tests.test_coresidency import snapshot_facts

LAYOUTS = Path(__file__).parent / "layouts"
TORCH_STEPS = ("import", "list_gpus", "conv2d", "matmul")


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


@pytest.fixture
def torch_facts(tmp_path: Path) -> Facts:
    return snapshot_facts("torch-2.14.1-records.json", tmp_path)


def import_failed(detail: str) -> list[Finding]:
    """The smoke test's findings for PyTorch whose import raised `detail` (stderr empty)."""
    events: list[dict[str, Any]] = [
        {"step": "import", "status": "started"},
        {"step": "import", "status": "failed", "seconds": 0.4, "device": None, "detail": detail},
        *({"step": name, "status": "skipped", "seconds": None, "device": None,
           "detail": "the import failed"} for name in TORCH_STEPS[1:]),
    ]  # fmt: skip
    stdout = "\n".join(json.dumps(event) for event in events) + "\n"
    ending = ChildEnding(1, False, 0.9, "", windows=False)
    result = result_from_output(TORCH_STEPS, stdout, ending, 120, framework="torch")
    return smoke_findings(result, load_matrix(bundled_matrix_dir()).signatures, ())


CUDNN_GONE = "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory"


def only(findings: list[Finding], code: str) -> Finding:
    found = [f for f in findings if f.code == code]
    assert len(found) == 1, [(f.code, f.message) for f in findings]
    return found[0]


def test_the_table_names_every_library_the_real_wheels_install(matrix: Matrix) -> None:
    snapshot = json.loads((LAYOUTS / "nvidia-wheel-libraries.json").read_text())
    checked = 0
    for distribution in snapshot["distributions"]:
        name = str(canonicalize_name(distribution["name"]))
        for file_name in distribution["libraries"]:
            if not file_name.startswith("lib"):
                continue  # NVSHMEM's bootstrap plugins, which only NVSHMEM loads
            family = shipping(matrix.wheel_libraries, file_name)
            assert family is not None, (name, file_name)
            assert family.names(name), (name, file_name, family.distribution)
            checked += 1
    assert checked > 60  # 28 distributions of CUDA 12 and 13


def test_a_family_is_its_name_with_or_without_a_cuda_suffix(matrix: Matrix) -> None:
    cudnn = shipping(matrix.wheel_libraries, "libcudnn_ops_infer.so.8")
    assert cudnn is not None and cudnn.distribution == "nvidia-cudnn"
    assert [cudnn.names(n) for n in ("nvidia-cudnn-cu13", "nvidia-cudnn", "nvidia-cudnn-frontend")]
    assert cudnn.names("nvidia-cudnn-cu11") and not cudnn.names("nvidia-cudnn-frontend")
    sparse = shipping(matrix.wheel_libraries, "libcusparseLt.so.0")
    assert sparse is not None and sparse.distribution == "nvidia-cusparselt"
    assert shipping(matrix.wheel_libraries, "libGL.so.1") is None


def test_a_row_naming_a_cuda_suffix_or_a_taken_library_is_refused(tmp_path: Path) -> None:
    head = 'schema = 1\n[sources]\nx = "y"\n'
    row = '[[wheel]]\ndistribution = "{}"\nlibraries = [{}]\nsource = ["x"]\n'
    for body, said in (
        (row.format("nvidia-cudnn-cu12", '"libcudnn"'), "-cu<N> suffix"),
        (row.format("nvidia-cudnn", '"libcudnn"') * 2, "already"),
        (row.format("nvidia-cudnn", '"cudnn64_9.dll"'), "not a library's name"),
    ):
        (tmp_path / "wheel_libraries.toml").write_text(head + body)
        with pytest.raises(MatrixDataError, match=said):
            load_wheel_libraries(tmp_path)


def test_torch_without_its_cudnn_files_is_told_to_reinstall_the_pinned_wheel(
    matrix: Matrix, torch_facts: Facts
) -> None:
    # pip still lists nvidia-cudnn-cu13 (its files were removed): `pip install` would do nothing.
    found = only(import_failed(CUDNN_GONE), "cudnn-missing")
    assert found.data["framework"] == "torch"
    fixed = only(with_wheel_fixes([found], Context(torch_facts, matrix, None)), "cudnn-missing")
    assert fixed.fix.endswith(
        'python -m pip install --force-reinstall --no-deps "nvidia-cudnn-cu13==9.24.0.43"'
    )
    assert "PyTorch 2.14.1 loads libcudnn.so.9 from nvidia-cudnn-cu13" in fixed.fix
    assert fixed.evidence[-2:] == (
        "torch 2.14.1 requires nvidia-cudnn-cu13==9.24.0.43",
        "installed: nvidia-cudnn-cu13 9.24.0.43, yet libcudnn.so.9 did not load",
    )
    assert (fixed.code, fixed.severity, fixed.message) == (
        found.code,
        found.severity,
        found.message,
    )


def test_torch_without_its_cudnn_wheel_is_told_to_install_the_pin(
    matrix: Matrix, torch_facts: Facts
) -> None:
    facts = replace(
        torch_facts, wheels=tuple(w for w in torch_facts.wheels if w.name != "nvidia-cudnn-cu13")
    )
    report = diagnose(facts, matrix, extra_findings=import_failed(CUDNN_GONE))
    fixed = only(list(report.findings), "cudnn-missing")
    assert fixed.severity is Severity.ERROR
    assert fixed.fix.endswith('python -m pip install "nvidia-cudnn-cu13==9.24.0.43"')
    assert fixed.evidence[-1] == "nvidia-cudnn-cu13 is not installed"


def test_a_pin_through_cuda_toolkits_extras_is_followed(matrix: Matrix, torch_facts: Facts) -> None:
    # torch 2.14 pins cuBLAS through cuda-toolkit[cublas]==13.0.3 (nvidia-cublas==13.1.1.3.*).
    detail = (
        "ImportError: libcublas.so.13: cannot open shared object file: No such file or directory"
    )
    found = [f for f in import_failed(detail) if f.code == "cuda-library-missing"]
    assert found, [f.code for f in import_failed(detail)]
    fixed = with_wheel_fixes(found, Context(torch_facts, matrix, None))[0]
    assert fixed.fix.endswith('--force-reinstall --no-deps "nvidia-cublas==13.1.1.3"')
    assert "cuda-toolkit[cublas," in fixed.evidence[-2]
    assert fixed.evidence[-2].endswith("which requires nvidia-cublas==13.1.1.3.*")


def test_a_library_no_pinned_wheel_ships_keeps_its_fix(matrix: Matrix, torch_facts: Facts) -> None:
    context = Context(torch_facts, matrix, None)
    other = Finding(
        "cuda-library-missing", Severity.ERROR, "Python could not load libfoo.so.1.",
        ("ImportError: libfoo.so.1: cannot open shared object file",), "the row's fix",
        data={"framework": "torch"},
    )  # fmt: skip
    # TensorFlow is not installed here, and a finding of no framework has no pins to read.
    theirs = replace(
        other, message="Could not load libcudnn.so.9.", data={"framework": "tensorflow"}
    )
    unnamed = replace(theirs, data={})
    assert with_wheel_fixes([other, theirs, unnamed], context) == [other, theirs, unnamed]


def test_jax_without_its_cudnn_wheel_is_told_to_install_its_plugins_pin(
    matrix: Matrix, tmp_path: Path
) -> None:
    # JAX 0.10.2's plugin says "Unable to load cuDNN" and names no file; its pin is the CUDA
    # plugin's (jax-cuda12-plugin[with-cuda]), not jax's. Real records of a TensorFlow 2.21.0 +
    # jax[cuda12] install, the cuDNN wheel uninstalled.
    facts = snapshot_facts("tf-2.21.0-and-cuda-jax-0.10.2-cuda12-records.json", tmp_path)
    facts = replace(facts, wheels=tuple(w for w in facts.wheels if w.name != "nvidia-cudnn-cu12"))
    events: list[dict[str, Any]] = [
        {"step": name, "status": "ok", "seconds": 0.1, "device": "cpu:0", "detail": ""}
        for name in TORCH_STEPS
    ]
    stdout = "\n".join(json.dumps(event) for event in events) + "\n"
    stderr = "RuntimeError: Unable to load cuDNN. Is it installed?\n"
    ending = ChildEnding(0, False, 2.0, stderr, windows=False)
    result = result_from_output(TORCH_STEPS, stdout, ending, 120, framework="jax")
    found = only(smoke_findings(result, matrix.signatures, ()), "cudnn-missing")
    fixed = with_wheel_fixes([found], Context(facts, matrix, None))[0]
    assert fixed.fix == (
        "JAX 0.10.2 loads cuDNN from nvidia-cudnn-cu12, pinned in its metadata: "
        'python -m pip install "nvidia-cudnn-cu12<10.0,>=9.8"'
    )
    assert fixed.evidence[-2].startswith("jax-cuda12-plugin 0.10.2 requires nvidia-cudnn-cu12")


def test_a_matrix_folder_without_the_table_keeps_the_findings_fixes(
    torch_facts: Facts, tmp_path: Path
) -> None:
    # An older --matrix folder (copied before wheel_libraries.toml existed) still diagnoses.
    older = tmp_path / "matrix"
    shutil.copytree(bundled_matrix_dir(), older)
    (older / "wheel_libraries.toml").unlink()
    found = import_failed(CUDNN_GONE)
    assert with_wheel_fixes(found, Context(torch_facts, load_matrix(older), None)) == found
