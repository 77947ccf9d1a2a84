"""`envcheck install` and `envcheck fetch` with --framework torch|jax: one recipe for the three
commands (recommend prints what install runs and fetch downloads), PyTorch's variant index from
--torch-index-url only, and the one-line refusal without it.

The indexes are real HTTP servers on 127.0.0.1 (tests/index_server.py): a PEP 691 server that
also answers under /whl/cu126/ like a PyTorch variant index, serving stand-in wheels built here.
pip runs for real in a throwaway venv; the driver is described with ENVCHECK_DRIVER_VERSION.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from envcheck.acquire.install_plan import TargetInterpreter, make_framework_plan
from envcheck.acquire.wheelhouse_fetch import plan_framework_target
from envcheck.errors import InputError
from envcheck.index.wheels import WheelTarget
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.recommend.frameworks import recommend_jax, recommend_torch
from envcheck.recommend.machine import MachineDescription
from envcheck.report.install import plan_text
from envcheck.versions import DriverVersion, PythonVersion
from tests.in_process import Result, run_envcheck
from tests.index_server import (
    FaultyIndex,
    ServedFile,
    build_wheel,
    faulty_index,
    isolated_pip_environment,
)

NEW_DRIVER = "580.65.06"  # CUDA 13: PyTorch's default Linux wheel (cu130), jax[cuda13]
OLD_DRIVER = "535.104.05"  # CUDA 12.2: no CUDA 13, so PyTorch's cu126 variant, jax[cuda12]
BASE = "/whl"  # where the stand-in PyTorch index lives on the test server
CLI = "from envcheck.cli.main import main\nmain()\n"
SECRET = "t0rch-s3cret"


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def machine(driver: str | None, python: str = "3.12", os_name: str = "linux") -> MachineDescription:
    return MachineDescription(
        os=os_name,
        arch="x86_64",
        python=PythonVersion.parse(python),
        driver=DriverVersion.parse(driver, "driver") if driver else None,
        gpus=(),
        found_via={"driver": "ENVCHECK_DRIVER_VERSION"},
    )


def target(
    python: str = "3.12.3", distributions: dict[str, str] | None = None
) -> TargetInterpreter:
    return TargetInterpreter(
        path="/envs/p/bin/python",
        executable="/envs/p/bin/python",
        python=python,
        machine="x86_64",
        prefix="/envs/p",
        base_prefix="/usr",
        conda=False,
        distributions={} if distributions is None else distributions,
    )


# --- one recipe: the plan is recommend's best build -------------------------------------------


def test_torch_plan_is_recommends_default_wheel_and_its_pins(matrix: Matrix) -> None:
    plan = make_framework_plan(matrix, machine(NEW_DRIVER), "torch", None, target())
    best = recommend_torch(matrix, machine(NEW_DRIVER)).candidates[0]
    assert (best.build, str(best.version)) == ("cu130", "2.14.1")
    assert plan.requirements == ("torch==2.14.1",)
    assert plan.recipe is not None and plan.recipe.pip_command() == best.commands[0]
    assert plan.index_url is None and plan.refusal is None
    by_name = {p.name: p for p in plan.packages}
    assert by_name["torch"].via == "requested"
    assert by_name["nvidia-cudnn-cu13"].specifier == "==9.24.0.43"  # the cu130 row's pin
    assert by_name["nvidia-cudnn-cu13"].via == "torch==2.14.1"
    text = plan_text(plan)
    assert "PyTorch 2.14.1 cu130: GPU build" in text
    assert 'Command: python -m pip install "torch==2.14.1"\n' in text


def test_torch_variant_without_the_index_base_is_refused(matrix: Matrix) -> None:
    plan = make_framework_plan(matrix, machine(OLD_DRIVER), "torch", None, target())
    assert plan.candidate.build == "cu126"  # type: ignore[union-attr]
    assert plan.index_url is None
    assert plan.refusal is not None and "--torch-index-url" in plan.refusal
    assert "<PyTorch's cu126 index>" in plan_text(plan)


def test_torch_variant_with_the_index_base_uses_base_slash_variant(matrix: Matrix) -> None:
    base = "http://127.0.0.1:1/whl/"
    plan = make_framework_plan(matrix, machine(OLD_DRIVER), "torch", "2.13", target(), base)
    best = recommend_torch(matrix, machine(OLD_DRIVER), "2.13", base).candidates[0]
    assert plan.refusal is None
    assert plan.index_url == "http://127.0.0.1:1/whl/cu126"
    assert plan.requirements == ("torch==2.13.0",)
    assert plan.recipe is not None and plan.recipe.pip_command() == best.commands[0]
    assert best.commands[0].endswith("--index-url http://127.0.0.1:1/whl/cu126")


@pytest.mark.parametrize(
    ("driver", "requirement", "plugin"),
    [
        (NEW_DRIVER, "jax[cuda13]==0.12.0.1", "jax-cuda13-plugin"),
        (OLD_DRIVER, "jax[cuda12]==0.12.0.1", "jax-cuda12-plugin"),
        (None, "jax==0.12.0.1", None),
    ],
)
def test_jax_extra_follows_the_driver(
    matrix: Matrix, driver: str | None, requirement: str, plugin: str | None
) -> None:
    plan = make_framework_plan(matrix, machine(driver), "jax", None, target())
    assert plan.requirements == (requirement,)
    assert plan.recipe is not None
    assert (
        plan.recipe.pip_command()
        == recommend_jax(matrix, machine(driver)).candidates[0].commands[0]
    )
    names = [p.name for p in plan.packages]
    assert names[0] == "jax"
    if plugin is None:
        assert names == ["jax"] and "will run on the CPU only" in plan.notes[0]
    else:
        assert {"jaxlib", plugin} <= set(names)
        assert all(p.via == requirement for p in plan.packages[1:])


# --- install, through the command line --------------------------------------------------------


def clean_env(**extra: str) -> dict[str, str]:
    env = isolated_pip_environment()
    env.update(PIP_NO_CACHE_DIR="1", **extra)
    return env


def envcheck(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-c", CLI, *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=240,
        check=False,
    )
    assert SECRET not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    venv = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=clean_env())
    return str(venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))


def _wheel(index: FaultyIndex, filename: str, requires: tuple[str, ...] = ()) -> None:
    """A stand-in wheel built in memory: pip reads its METADATA like a real one's."""
    name, version, tag = filename.removesuffix(".whl").split("-", 2)
    with tempfile.TemporaryDirectory() as directory:
        path = build_wheel(Path(directory), name, version, tag, requires)
        index.add(ServedFile(path.name, path.read_bytes()))


@pytest.fixture
def torch_index() -> Iterator[FaultyIndex]:
    """A server whose /whl/cu126/ is a PyTorch-style variant index holding torch 2.14.1."""
    with faulty_index() as index:
        index.aliases = (f"{BASE}/cu126/",)
        _wheel(index, "torch-2.14.1-py3-none-any.whl")
        yield index


def test_install_dry_run_of_a_variant_says_what_the_real_run_refuses(venv_python: str) -> None:
    env = clean_env(ENVCHECK_DRIVER_VERSION=OLD_DRIVER)
    args = ("install", "--framework", "torch", "--python", venv_python)
    dry = envcheck(*args, "--dry-run", env=env)
    assert "PyTorch 2.14.1 cu126" in dry.stdout
    assert dry.stderr.startswith(
        "envcheck: error: dry run: nothing was installed, and the real run would refuse: "
    )
    assert "--torch-index-url" in dry.stderr
    real = envcheck(*args, "--yes", env=env)
    assert real.returncode == dry.returncode == 2, real.stdout + real.stderr
    assert real.stderr.startswith("envcheck: error: PyTorch 2.14.1 cu126 is on PyTorch's own")
    assert real.stderr.count("\n") == 1


def test_install_dry_run_checks_the_variant_on_its_index(
    venv_python: str, torch_index: FaultyIndex
) -> None:
    host = torch_index.root.replace("http://", f"http://envcheck:{SECRET}@")
    env = clean_env(ENVCHECK_DRIVER_VERSION=OLD_DRIVER, ENVCHECK_TORCH_INDEX_URL=f"{host}{BASE}")
    result = envcheck(
        "install", "--framework", "pytorch", "--python", venv_python, "--dry-run", env=env
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Requirements: torch==2.14.1" in result.stdout
    assert "--index-url http://envcheck:****@127.0.0.1:" in result.stdout
    assert "+ torch 2.14.1" in result.stdout  # pip's own check, from the variant index
    assert any(r.path.startswith(f"{BASE}/cu126/torch/") for r in torch_index.requests)
    assert "Dry run: nothing was installed." in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--framework", "mxnet"), "--framework 'mxnet' is not one of tensorflow, torch, jax"),
        (("--framework", "torch", "--tensorflow", "2.15"), "--tensorflow applies to"),
        (("--framework-version", "2.14"), "--framework-version applies to --framework torch"),
        (("--framework", "jax", "--framework-version", "0.x!"), "is neither a version"),
        (
            ("--framework", "torch", "--torch-index-url", "ftp://h/whl"),
            "'ftp://h/whl' (from --torch-index-url) is not an http(s):// or file://",
        ),
    ],
)
def test_install_bad_framework_input_is_one_line_exit_2(
    args: tuple[str, ...], message: str
) -> None:
    result = envcheck("install", "--dry-run", *args, env=clean_env())
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("envcheck: error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr


def test_install_variant_and_another_index_url_is_refused(venv_python: str) -> None:
    env = clean_env(
        ENVCHECK_DRIVER_VERSION=OLD_DRIVER, ENVCHECK_TORCH_INDEX_URL="http://127.0.0.1:1/whl"
    )
    result = envcheck(
        "install", "--framework", "torch", "--python", venv_python, "--dry-run",
        "--index-url", "http://127.0.0.1:2/simple/", env=env,
    )  # fmt: skip
    assert result.returncode == 2
    assert "--index-url names another" in result.stderr and result.stderr.count("\n") == 1


# --- fetch ------------------------------------------------------------------------------------


def fetch(*args: str, **env: str) -> Result:
    """`envcheck fetch ARGS` in-process, with no ENVCHECK_*/PIP_* settings of this machine."""
    return run_envcheck(["fetch", *args], **env)


def _linux(python: str = "3.12") -> WheelTarget:
    return WheelTarget.create("manylinux_2_28_x86_64", PythonVersion.parse(python))


def test_fetch_plan_is_the_same_recipe(matrix: Matrix) -> None:
    plan = plan_framework_target(matrix, "torch", None, _linux(), NEW_DRIVER)
    best = recommend_torch(matrix, machine(NEW_DRIVER)).candidates[0]
    assert (plan.build, plan.index_url) == ("cu130", None)
    assert [str(r) for r in plan.requirements] == list(best.recipe.wheels)
    jax = plan_framework_target(matrix, "jax", None, _linux(), OLD_DRIVER)
    assert jax.build == "cuda12"
    assert {"jax", "jaxlib", "jax-cuda12-plugin"} <= {r.name for r in jax.requirements}


def test_fetch_of_a_variant_without_the_index_base_is_refused(matrix: Matrix) -> None:
    with pytest.raises(InputError, match="--torch-index-url"):
        plan_framework_target(matrix, "torch", None, _linux(), OLD_DRIVER)
    windows = WheelTarget.create("win_amd64", PythonVersion(3, 12))
    with pytest.raises(InputError, match="give the target's --driver"):
        plan_framework_target(matrix, "torch", None, windows, None)


def _fetch_torch_variant(dest: Path, *extra: str) -> Result:
    return fetch(
        "--framework", "torch", "--dest", str(dest), "--platform", "manylinux_2_28_x86_64",
        "--python-version", "3.12", "--driver", OLD_DRIVER, "--json", *extra,
    )  # fmt: skip


def test_fetch_a_torch_variant_from_its_index(torch_index: FaultyIndex, tmp_path: Path) -> None:
    host = torch_index.root.replace("http://", f"http://envcheck:{SECRET}@")
    result = _fetch_torch_variant(tmp_path / "wh", "--torch-index-url", f"{host}{BASE}/")
    assert result.exit_code == 0, result.stderr
    assert SECRET not in result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["index"]["found_via"] == "--torch-index-url"
    assert report["index"]["url"].endswith(f"{BASE}/cu126/")
    [planned] = report["targets"]
    assert (planned["framework"], planned["version"], planned["build"]) == (
        "torch",
        "2.14.1",
        "cu126",
    )
    assert "tensorflow" not in planned
    assert [f["file"] for f in report["files"]] == ["torch-2.14.1-py3-none-any.whl"]
    manifest = json.loads((tmp_path / "wh" / "wheelhouse.json").read_text())
    assert "torch-2.14.1-py3-none-any.whl" in json.dumps(manifest)
    auth = [r.headers.get("Authorization", "") for r in torch_index.requests]
    assert all(a.startswith("Basic ") for a in auth)  # credentials used, never printed


def test_fetch_a_torch_variant_without_the_index_base_is_one_line(tmp_path: Path) -> None:
    with faulty_index() as index:
        result = _fetch_torch_variant(tmp_path / "wh", "--index-url", index.url)
    assert result.exit_code == 2
    assert result.stderr.startswith("envcheck: error: PyTorch 2.14.1 cu126 for ")
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "wh").exists()  # refused before any work


def test_fetch_jax_cuda12_gets_the_plugin_and_its_cuda_wheels(
    matrix: Matrix, tmp_path: Path
) -> None:
    plugin = next(p for p in matrix.jax_plugins if str(p.jax) == "0.12.0.1" and p.extra == "cuda12")
    with faulty_index() as index:
        _wheel(index, "jax-0.12.0.1-py3-none-any.whl")
        _wheel(index, "jaxlib-0.12.0.1-cp312-cp312-manylinux_2_27_x86_64.whl")
        _wheel(index, "jax_cuda12_plugin-0.12.0.1-cp312-cp312-manylinux_2_27_x86_64.whl")
        for text in plugin.with_cuda:
            requirement = Requirement(text)
            floor = next((s.version for s in requirement.specifier if s.operator == ">="), "1.0")
            name = requirement.name.replace("-", "_")
            _wheel(index, f"{name}-{floor}-py3-none-manylinux_2_27_x86_64.whl")
        result = fetch(
            "--framework", "jax", "--dest", str(tmp_path / "wh"), "--platform",
            "manylinux_2_28_x86_64", "--python-version", "3.12", "--driver", OLD_DRIVER,
            "--index-url", index.url,
        )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("JAX 0.12.0.1 cuda12 for Python 3.12 on manylinux_2_28")
    fetched = sorted(p.name for p in (tmp_path / "wh").glob("*.whl"))
    assert len(fetched) == 3 + len(plugin.with_cuda)
    assert "jax_cuda12_plugin-0.12.0.1-cp312-cp312-manylinux_2_27_x86_64.whl" in fetched
    assert any(name.startswith("nvidia_cudnn_cu12-") for name in fetched)


def test_fetch_framework_usage_errors_exit_2(tmp_path: Path) -> None:
    for args, message in (
        (("--framework", "torch", "--tensorflow", "2.15"), "--tensorflow applies to"),
        (("--framework-version", "2.14"), "--framework-version applies to"),
        (("--framework", "caffe"), "--framework 'caffe' is not one of"),
    ):
        result = fetch("--dest", str(tmp_path / "wh"), "--index-url", "http://127.0.0.1:1/", *args)
        assert result.exit_code == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and message in result.stderr
