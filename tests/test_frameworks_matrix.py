"""pytorch.toml and jax.toml row by row, and `recommend --framework torch|jax`.

Expected values come from the wheels the rows cite (their METADATA, and for torch 2.14.1 the
installed wheel's torch.cuda.get_arch_list()) or from other matrix files (driver floors).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from envcheck.matrix.checks import check_matrix
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.matrix.records import JaxPlugin, TorchBuild
from envcheck.recommend.frameworks import recommend_jax, recommend_torch
from envcheck.recommend.machine import GpuDescription, MachineDescription
from envcheck.report.recommendation import framework_to_json, framework_to_text
from envcheck.versions import ComputeCapability, DriverVersion, PythonVersion


@functools.cache
def _bundled() -> Matrix:
    return load_matrix(bundled_matrix_dir())


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return _bundled()


BUILDS = _bundled().torch_builds
PLUGINS = _bundled().jax_plugins


def _torch_id(build: TorchBuild) -> str:
    return f"torch-{build.series}-{build.variant}"


def _jax_id(plugin: JaxPlugin) -> str:
    return f"jax-{plugin.jax}-{plugin.extra}"


@pytest.mark.parametrize("build", BUILDS, ids=_torch_id)
def test_torch_row_cites_existing_sources(matrix: Matrix, build: TorchBuild) -> None:
    known = matrix.sources["pytorch.toml"]
    assert build.sources and all(s in known for s in build.sources)


@pytest.mark.parametrize("build", [b for b in BUILDS if b.cuda], ids=_torch_id)
def test_torch_cuda_row_has_a_driver_floor(matrix: Matrix, build: TorchBuild) -> None:
    assert build.cuda is not None
    assert matrix.driver_requirement(build.cuda, "linux") is not None


@pytest.mark.parametrize("build", [b for b in BUILDS if b.wheels], ids=_torch_id)
def test_torch_pins_carry_the_variants_cuda_major(build: TorchBuild) -> None:
    assert build.cuda is not None
    major = build.cuda.release[0]
    cudnn = [Requirement(w) for w in build.wheels if w.startswith("nvidia-cudnn-")]
    assert len(cudnn) == 1 and cudnn[0].name == f"nvidia-cudnn-cu{major}"
    assert build.cudnn is not None and cudnn[0].specifier.contains(str(build.cudnn))


@pytest.mark.parametrize("plugin", PLUGINS, ids=_jax_id)
def test_jax_row_names_its_cuda_major(matrix: Matrix, plugin: JaxPlugin) -> None:
    assert plugin.extra == f"cuda{plugin.cuda_major}"
    assert Requirement(plugin.cudnn).name == f"nvidia-cudnn-cu{plugin.cuda_major}"
    assert matrix.family(plugin.cuda_major) is not None
    assert all(s in matrix.sources["jax.toml"] for s in plugin.sources)


def test_bundled_framework_rows_validate(matrix: Matrix) -> None:
    problems = [p for p in check_matrix(matrix) if p.file in ("pytorch.toml", "jax.toml")]
    assert problems == []


def test_torch_2_14_1_default_wheel_matches_the_installed_wheel(matrix: Matrix) -> None:
    # The wheel's METADATA (Requires-Dist) and torch.cuda.get_arch_list() of torch 2.14.1.
    build = next(
        b
        for b in matrix.torch_builds
        if Version("2.14.1") in b.versions and b.pypi_default and b.cuda is not None
    )
    assert build.variant == "cu130"
    assert "nvidia-cudnn-cu13==9.24.0.43" in build.wheels
    assert any(w.startswith("cuda-toolkit[") and w.endswith("==13.0.3") for w in build.wheels)
    assert [f"sm_{c.major}{c.minor}" for c in build.arch_list or ()] == [
        "sm_75",
        "sm_80",
        "sm_86",
        "sm_90",
        "sm_100",
        "sm_120",
    ]


def _problems_with(tmp_path: Path, old: str, new: str) -> list[str]:
    """matrix validate's problems for a copy of the bundled matrix with one edit to pytorch.toml."""
    for item in bundled_matrix_dir().glob("*.toml"):
        (tmp_path / item.name).write_bytes(item.read_bytes())
    text = (tmp_path / "pytorch.toml").read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "pytorch.toml").write_text(text.replace(old, new, 1), encoding="utf-8")
    return [str(p) for p in check_matrix(load_matrix(tmp_path))]


def test_validate_reports_a_variant_that_does_not_spell_its_cuda(tmp_path: Path) -> None:
    problems = _problems_with(
        tmp_path, 'variant = "cu132"\ncuda = "13.2"', 'variant = "cu132"\ncuda = "13.0"'
    )
    assert any("variant does not spell its cuda 13.0" in p for p in problems), problems


def test_validate_checks_a_cuda_builds_pins_and_kernels(tmp_path: Path) -> None:
    # The checks of a CUDA build ran only where its CUDA had no driver floor, i.e. never.
    problems = _problems_with(tmp_path, 'cudnn = "9.24.0.43"', 'cudnn = "9.23.0.1"')
    assert any("pins cuDNN 9.24.0.43, row says 9.23.0.1" in p for p in problems), problems


def machine(
    driver: str | None, capability: str | None, os_name: str = "linux", python: str = "3.12"
) -> MachineDescription:
    gpus = (GpuDescription("GPU", ComputeCapability.parse(capability)),) if capability else ()
    return MachineDescription(
        os=os_name,
        arch="x86_64",
        python=PythonVersion.parse(python),
        driver=DriverVersion(driver) if driver else None,
        gpus=gpus,
    )


def test_driver_535_gets_no_cuda_13_torch(matrix: Matrix) -> None:
    result = recommend_torch(matrix, machine("535.104.05", "8.6"))
    assert result.has_gpu_candidate
    assert all(c.cuda and c.cuda.startswith("12.") for c in result.candidates if c.kind == "gpu")
    cu13 = [r for r in result.rejected if r.build.startswith("cu13")]
    assert cu13 and all(any("580.65.06" in reason for reason in r.reasons) for r in cu13)
    best = result.candidates[0]
    assert (str(best.version), best.build) == ("2.14.1", "cu126")
    assert best.commands == (
        'python -m pip install "torch==2.14.1" --index-url <PyTorch\'s cu126 index>',
    )


def test_rtx_5090_gets_a_build_with_sm_120(matrix: Matrix) -> None:
    result = recommend_torch(matrix, machine("580.65.06", "12.0"))
    best = result.candidates[0]
    assert (str(best.version), best.build, best.status) == ("2.14.1", "cu130", "compatible")
    assert best.commands == ('python -m pip install "torch==2.14.1"',)
    rejected_cu126 = next(r for r in result.rejected if r.build == "cu126")
    assert "no native kernels for CC 12.0" in rejected_cu126.reasons[0]


def test_no_driver_and_no_gpu_gets_the_cpu_wheel(matrix: Matrix) -> None:
    result = recommend_torch(matrix, machine(None, None), index_base="https://mirror.example/whl/")
    assert not result.has_gpu_candidate
    best = result.candidates[0]
    assert (best.build, best.kind, best.status) == ("cpu", "cpu", "cpu-only")
    assert best.commands == (
        'python -m pip install "torch==2.14.1" --index-url https://mirror.example/whl/cpu',
    )
    assert all("no NVIDIA driver found" in r.reasons for r in result.rejected)


def test_kepler_has_no_torch_gpu_build(matrix: Matrix) -> None:
    result = recommend_torch(matrix, machine("470.82.01", "3.7"))
    assert not any(c.kind == "gpu" for c in result.candidates)


def test_windows_default_is_the_cpu_wheel_from_the_index(matrix: Matrix) -> None:
    result = recommend_torch(matrix, machine(None, None, os_name="windows"))
    assert result.candidates[0].commands == ('python -m pip install "torch==2.14.1"',)


def test_jax_extra_follows_the_driver(matrix: Matrix) -> None:
    old = recommend_jax(matrix, machine("535.104.05", "8.6"))
    assert {c.build for c in old.candidates} == {"cuda12"}
    new = recommend_jax(matrix, machine("580.65.06", "12.0"))
    assert new.candidates[0].build == "cuda13"
    assert new.candidates[0].commands[0].startswith('python -m pip install "jax[cuda13]==')


def test_jax_on_macos_is_cpu_only(matrix: Matrix) -> None:
    result = recommend_jax(matrix, machine(None, None, os_name="macos"))
    assert result.candidates and all(c.kind == "cpu" for c in result.candidates)
    assert result.candidates[0].commands[0].startswith('python -m pip install "jax==')


def test_text_and_json_agree(matrix: Matrix) -> None:
    result = recommend_torch(matrix, machine("580.65.06", "12.0"))
    data = framework_to_json(result)
    assert data["framework"] == "torch"
    assert data["candidates"][0]["build"] == "cu130"
    assert "1. PyTorch 2.14.1 cu130  (CUDA 13.0; compatible)" in framework_to_text(result)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "recommend", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_framework_torch_json() -> None:
    done = _cli(
        "--framework",
        "torch",
        "--os",
        "linux",
        "--driver",
        "580.65.06",
        "--gpu",
        "RTX 5090",
        "--python-version",
        "3.12",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["candidates"][0]["commands"] == ['python -m pip install "torch==2.14.1"']


def test_cli_unknown_framework_is_a_usage_error() -> None:
    done = _cli("--framework", "mxnet", "--os", "linux", "--driver", "none")
    assert done.returncode == 2
    assert "mxnet" in done.stderr
