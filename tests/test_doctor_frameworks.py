"""The doctor on environments with PyTorch, JAX and TensorFlow, alone and together (issue 20).

Facts are described as the probe reports them (tests/facts_builder.py: torch's from the shape of
the real torch 2.14.1 wheel's torch/version.py); the rules are pure functions of them.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from envcheck.diagnose.context import Target
from envcheck.diagnose.doctor import Report, diagnose
from envcheck.findings import Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.versions import ComputeCapability, DriverVersion
from tests.facts_builder import (
    LINUX,
    driver,
    gpu,
    healthy_libraries,
    jax,
    machine,
    tensorflow,
    torch,
)
from tests.test_doctor_cli import clean_env, doctor, report_of


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def text_of(report: Report) -> str:
    parts = [report.verdict()]
    for finding in report.findings:
        parts += [finding.message, finding.fix, *finding.evidence]
    parts += [f"{c.name} {c.found} {c.required}" for c in report.components]
    return "\n".join(parts)


def test_pytorch_only_environment_never_hears_about_tensorflow(matrix: Matrix) -> None:
    facts = machine(frameworks=(torch(),), driver=driver("580.65.06", "13.0"), libraries=())
    report = diagnose(facts, matrix)
    assert "TensorFlow" not in text_of(report)
    assert "tensorflow" not in text_of(report).lower()
    assert [c.name for c in report.components] == ["NVIDIA driver", "GPU", "PyTorch"]
    assert report.components[2].found == "torch 2.14.1 (CUDA 13.0)"
    assert report.frameworks == ("torch",)
    assert "framework-missing" not in {f.code for f in report.findings}
    assert report.recommendation is None  # it ranks TensorFlow releases
    assert [r.framework for r in report.framework_recommendations] == ["torch"]


def test_driver_floor_of_a_cuda13_torch(matrix: Matrix) -> None:
    # CUDA 13.x needs a driver >= 580 (minor-version compatibility floor, cuda_drivers.toml).
    facts = machine(frameworks=(torch(),), driver=driver("570.133.07", "12.8"), libraries=())
    report = diagnose(facts, matrix)
    finding = next(f for f in report.findings if f.code == "driver-too-old")
    assert finding.severity is Severity.ERROR
    assert finding.data == {"framework": "torch"}
    assert "this PyTorch" in finding.message and "580.65.06" in finding.message
    assert "--framework torch" in finding.fix
    assert report.verdict().startswith("PyTorch will not use the GPU here")
    assert report.components[0].required == ">= 580.65.06"


def test_the_newer_floor_of_two_frameworks_is_the_driver_requirement(matrix: Matrix) -> None:
    facts = machine(frameworks=(tensorflow(), torch()), driver=driver("575.51.03", "12.9"))
    report = diagnose(facts, matrix)
    assert report.components[0].required == ">= 580.65.06 (PyTorch, CUDA 13.0)"
    too_old = [f for f in report.findings if f.code == "driver-too-old"]
    assert [f.data.get("framework") for f in too_old] == ["torch"]  # TF's CUDA 12 is fine
    names = [c.name for c in report.components]
    assert names[:4] == ["NVIDIA driver", "GPU", "TensorFlow", "PyTorch"]
    assert "CUDA runtime (TensorFlow)" in names and "cuDNN (TensorFlow)" in names


def test_cpu_only_torch_where_a_gpu_is_wanted(matrix: Matrix) -> None:
    facts = machine(frameworks=(torch(cuda=None),), libraries=())
    report = diagnose(facts, matrix)
    finding = next(f for f in report.findings if f.code == "framework-cpu-only")
    assert finding.severity is Severity.ERROR
    assert finding.data == {"framework": "torch"}
    assert "torch 2.14.1" in finding.message
    assert "pip uninstall -y torch" in finding.fix and "tensorflow" not in finding.fix.lower()
    assert report.components[2].status == "error"


def test_cpu_only_torch_on_a_machine_without_gpu_is_a_note(matrix: Matrix) -> None:
    no_gpu = replace(LINUX, nvidia_gpu="absent", device_nodes=())
    facts = machine(
        platform=no_gpu, frameworks=(torch(cuda=None),), libraries=(), gpus=(),
        driver=driver(None, None, "missing"),
    )  # fmt: skip
    report = diagnose(facts, matrix)
    assert report.status == "ok"
    assert report.verdict() == (
        "No problem found; this machine has no NVIDIA GPU, so PyTorch will run on the CPU."
    )
    assert "TensorFlow" not in text_of(report)


def test_jax_without_a_cuda_plugin_is_cpu_only(matrix: Matrix) -> None:
    facts = machine(frameworks=jax(plugin_cuda=None), libraries=())
    report = diagnose(facts, matrix)
    finding = next(f for f in report.findings if f.code == "framework-cpu-only")
    assert finding.data == {"framework": "jax"}
    assert "jax[cuda12]" in finding.fix
    assert report.components[2].name == "JAX"
    assert report.components[2].found == "jax 0.7.2, jaxlib 0.7.2 (CPU only)"


def test_jax_cuda12_plugin_against_an_old_driver(matrix: Matrix) -> None:
    # CUDA 12.x needs >= 525.60.13 on Linux; a plugin names only the major.
    facts = machine(frameworks=jax(), driver=driver("520.61.05", "11.8"), libraries=())
    report = diagnose(facts, matrix)
    finding = next(f for f in report.findings if f.code == "driver-too-old")
    assert finding.data == {"framework": "jax"}
    assert "525.60.13" in finding.message
    assert "--framework jax" in finding.fix and "jax[cuda12]" not in finding.fix  # already on it
    assert (
        report.components[2].found == "jax 0.7.2, jaxlib 0.7.2, jax-cuda12-plugin 0.7.2 (CUDA 12)"
    )


def test_healthy_jax_and_torch_together(matrix: Matrix) -> None:
    facts = machine(frameworks=(torch(), *jax()), driver=driver("580.65.06", "13.0"), libraries=())
    report = diagnose(facts, matrix)
    assert report.status == "ok", report.findings
    assert report.frameworks == ("torch", "jax")
    assert "TensorFlow" not in text_of(report)


def test_no_framework_at_all(matrix: Matrix) -> None:
    report = diagnose(machine(frameworks=(), libraries=()), matrix)
    finding = next(f for f in report.findings if f.code == "framework-missing")
    assert finding.severity is Severity.INFO
    assert finding.message == (
        "No deep-learning framework (TensorFlow, PyTorch, JAX) is installed in this environment."
    )
    assert any(c.found == "not installed" for c in report.components)


def test_no_framework_and_no_driver_reads_as_a_sentence(matrix: Matrix) -> None:
    # The generic subject inside a sentence is "a framework", not "A framework".
    facts = machine(frameworks=(), libraries=(), gpus=(), driver=driver(state="missing"))
    report = diagnose(facts, matrix)
    sentences = [report.verdict(), *(f.message for f in report.findings)]
    assert any("so a framework " in text for text in sentences), sentences
    assert not any(", so A framework" in text for text in sentences)


def test_framework_choice_judges_one(matrix: Matrix) -> None:
    facts = machine(frameworks=(tensorflow(), torch()), driver=driver("570.133.07", "12.8"))
    only_tf = diagnose(facts, matrix, framework="tensorflow")
    assert "driver-too-old" not in {f.code for f in only_tf.findings}
    assert "PyTorch" not in [c.name for c in only_tf.components]
    only_torch = diagnose(facts, matrix, framework="torch")
    assert {f.data.get("framework") for f in only_torch.findings if f.data} == {"torch"}
    assert "TensorFlow" not in text_of(only_torch)


def test_framework_choice_that_is_not_installed(matrix: Matrix) -> None:
    report = diagnose(machine(), matrix, framework="jax")  # TensorFlow only is installed
    finding = next(f for f in report.findings if f.code == "framework-missing")
    assert finding.message == "JAX is not installed in this environment."
    assert finding.data == {"framework": "jax"}
    assert "--framework jax" in finding.fix


def test_torch_on_macos_points_at_mps(matrix: Matrix) -> None:
    mac = replace(LINUX, os="macos", arch="arm64", device_nodes=())
    facts = machine(platform=mac, frameworks=(torch(cuda=None),), libraries=(), gpus=(),
                    driver=driver(None, None, "missing"))  # fmt: skip
    report = diagnose(facts, matrix)
    finding = next(f for f in report.findings if f.code == "framework-cpu-only")
    assert finding.severity is Severity.INFO
    assert "PyTorch has no CUDA support on macOS" in finding.message
    assert "MPS" in finding.fix


def test_docker_build_target_judges_torch(matrix: Matrix) -> None:
    target = Target(DriverVersion.parse("570.133.07"), (ComputeCapability.parse("8.0"),), ("A100",))
    facts = machine(
        frameworks=(torch(),), libraries=(), gpus=(), driver=driver(None, None, "missing")
    )
    report = diagnose(facts, matrix, target)
    assert {f.code for f in report.findings if f.severity is Severity.ERROR} == {"driver-too-old"}
    assert "RTX 4090" not in text_of(report)  # the found GPUs are replaced by the target


def test_cli_framework_option(tmp_path: Path) -> None:
    facts = machine(frameworks=(tensorflow(), torch()), driver=driver("570.133.07", "12.8"))
    facts_file = tmp_path / "facts.json"
    facts_file.write_text(json.dumps(facts.to_json()))
    env = clean_env(tmp_path)
    chosen = doctor(env, "--facts", str(facts_file), "--json", "--framework", "pytorch")
    report = report_of(chosen)
    assert chosen.returncode == 1
    assert [f["data"] for f in report["findings"] if f["code"] == "driver-too-old"] == [
        {"framework": "torch"}
    ]
    assert "TensorFlow" not in [c["name"] for c in report["components"]]
    assert report["recommendation"] is None
    assert list(report["framework_recommendations"]) == ["torch"]
    assert "envcheck recommend --framework torch" in chosen_text(env, facts_file)
    wrong = doctor(env, "--facts", str(facts_file), "--framework", "caffe")
    assert wrong.returncode == 2
    assert wrong.stderr.strip().splitlines() == [
        "envcheck: error: --framework 'caffe' is not one of tensorflow, torch, jax"
    ]


def test_torch_kernels_from_the_matrix_row_of_its_variant(matrix: Matrix) -> None:
    # torch 2.14.1+cu130 ships sm_75..sm_120 (pytorch.toml, read from the real wheel's
    # torch.cuda.get_arch_list()): a Pascal GPU has no kernels in it.
    facts = machine(
        frameworks=(torch(),), driver=driver("580.65.06", "13.0"), libraries=(),
        gpus=(gpu("NVIDIA GeForce GTX 1080", "6.1"),),
    )  # fmt: skip
    report = diagnose(facts, matrix)
    finding = next(f for f in report.findings if f.code == "compute-capability-unsupported")
    assert finding.severity is Severity.ERROR
    assert finding.data == {"framework": "torch"}
    assert "cannot run this PyTorch" in finding.message and "PyTorch ignores" in finding.message
    assert "sm_120" in finding.evidence[0]
    assert "envcheck recommend --framework torch" in finding.fix
    # The recommendation for this machine names a build that still ships Pascal kernels.
    (torch_choice,) = report.framework_recommendations
    assert torch_choice.candidates[0].build == "cu126"


def test_cpu_torch_has_no_kernels_to_judge(matrix: Matrix) -> None:
    facts = machine(frameworks=(torch(cuda=None),), libraries=(),
                    gpus=(gpu("NVIDIA GeForce GTX 1080", "6.1"),))  # fmt: skip
    report = diagnose(facts, matrix)
    assert "compute-capability-unsupported" not in {f.code for f in report.findings}


def test_no_gpu_note_points_at_the_frameworks_recommendation(matrix: Matrix) -> None:
    no_gpu = replace(LINUX, nvidia_gpu="absent", device_nodes=())
    facts = machine(platform=no_gpu, frameworks=(torch(), *jax()), libraries=(), gpus=(),
                    driver=driver(None, None, "missing"))  # fmt: skip
    report = diagnose(facts, matrix)
    note = next(f for f in report.findings if f.code == "no-gpu")
    assert note.message.startswith("PyTorch and JAX can only use the CPU")
    assert (
        "`envcheck recommend --framework torch --gpu NAME --driver VER` or `envcheck recommend "
        "--framework jax --gpu NAME --driver VER`" in note.fix
    )


def chosen_text(env: dict[str, str], facts_file: Path) -> str:
    completed = doctor(env, "--facts", str(facts_file), "--framework", "torch")
    assert completed.returncode == 1, completed.stderr
    return completed.stdout


def test_tensorflows_library_findings_name_tensorflow_beside_jax(matrix: Matrix) -> None:
    # The CUDA libraries probed are those TensorFlow's build asks for: a missing one is
    # TensorFlow's problem, not JAX's, in the verdict and in the data.
    facts = machine(frameworks=(tensorflow(), *jax()),
                    libraries=healthy_libraries(skip=("cusolver",)))  # fmt: skip
    report = diagnose(facts, matrix)
    missing = next(f for f in report.findings if f.code == "cuda-library-missing")
    assert missing.data == {"framework": "tensorflow"}
    assert report.verdict().startswith("TensorFlow will not use the GPU here")
    jax_row = next(c for c in report.components if c.name == "JAX")
    assert jax_row.status == "ok"


# --- how run_doctor schedules the smoke children (their work stubbed: only the schedule) ------


def _run_with_stub_smoke(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, matrix: Matrix, facts: Any, stub: Any
) -> None:
    from envcheck.diagnose import run  # noqa: PLC0415

    facts_file = tmp_path / "facts.json"
    facts_file.write_text(json.dumps(facts.to_json()))
    monkeypatch.setattr(run, "_smoke", stub)
    monkeypatch.setattr(run, "_import_orders", lambda *_args: ([], {}))
    run.run_doctor(matrix, facts_file=str(facts_file), smoke=True)


def test_without_a_gpu_the_smoke_children_run_together_each_answering_an_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, matrix: Matrix
) -> None:
    both = threading.Barrier(2, timeout=30)  # broken unless the two run at once
    asked: dict[str, tuple[str, ...]] = {}

    def stub(*args: Any) -> tuple[list[Any], dict[str, Any], None, None]:
        asked[args[5]] = args[6]
        both.wait()
        return [], {}, None, None

    facts = machine(frameworks=(torch(), *jax()), driver=driver(None, None, "missing"), gpus=())
    _run_with_stub_smoke(tmp_path, monkeypatch, matrix, facts, stub)
    assert asked == {"torch": ("jax",), "jax": ("torch",)}


def test_with_a_gpu_the_smoke_children_run_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, matrix: Matrix
) -> None:
    """Each may take the whole device; in the exclusive-process compute mode a second one
    would fail to start on it."""
    lock = threading.Lock()
    running: list[int] = [0]
    most: list[int] = [0]

    def stub(*_args: Any) -> tuple[list[Any], dict[str, Any], None, None]:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.2)  # long enough for a second child started alongside to be seen
        with lock:
            running[0] -= 1
        return [], {}, None, None

    facts = machine(frameworks=(torch(), *jax()), driver=driver(), gpus=(gpu(),))
    _run_with_stub_smoke(tmp_path, monkeypatch, matrix, facts, stub)
    assert most[0] == 1
