"""What `envcheck fetch` chooses for a target and what a failed or dry run leaves (issue 23:
points 1, 2 and the fetch half of 10), run through the command line against a real index on
127.0.0.1 (tests/index_server.py). No request is mocked.

The host's driver is set to none through ENVCHECK_DRIVER_VERSION (an empty value: nothing
found), the machine the issue was reproduced on; every other ENVCHECK_*/PIP_* setting of this
machine is left out.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from envcheck.acquire.install_plan import TargetInterpreter, make_plan
from envcheck.acquire.wheelhouse_fetch import plan_target
from envcheck.index.wheels import WheelTarget
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.recommend.machine import describe_machine
from envcheck.versions import PythonVersion
from tests.in_process import Result, run_envcheck
from tests.index_server import FaultyIndex, ServedFile, faulty_index

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DOCS = Path(__file__).resolve().parents[1] / "docs"
NEWEST, OLDER = "2.21.0", "2.20.0"
# TensorFlow 2.21.0 as published: manylinux_2_27 wheels only, for four Pythons, and macOS and
# Windows ones: more tags than the error message listed before, the fitting one among the cut.
NEWEST_TAGS = [
    f"cp3{minor}-cp3{minor}-{platform}"
    for minor in (10, 11, 12, 13)
    for platform in ("macosx_12_0_arm64", "manylinux_2_27_x86_64", "win_amd64")
]
OLDER_LINUX = f"tensorflow-{OLDER}-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
TF_GPU = "2.15.1"
GPU_LINUX = f"tensorflow-{TF_GPU}-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"


def run_cli(*args: str, driver: str = "") -> Result:
    """`envcheck ARGS` in-process: no ENVCHECK_*/PIP_* settings of this machine, and the host's
    driver as ENVCHECK_DRIVER_VERSION says (empty: none found)."""
    return run_envcheck(args, ENVCHECK_DRIVER_VERSION=driver)


def _blob(size: int, seed: str) -> bytes:
    digest = hashlib.sha256(seed.encode()).digest()
    return (digest * (size // len(digest) + 1))[:size]


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


@pytest.fixture
def index(matrix: Matrix) -> Iterator[FaultyIndex]:
    """2.21.0 as published (no manylinux_2_17 wheel), 2.20.0 with one; 2.15.1 for Linux with
    one wheel per pin of its and-cuda extra, from the matrix's row."""
    with faulty_index() as served:
        for tag in NEWEST_TAGS:
            served.add(ServedFile(f"tensorflow-{NEWEST}-{tag}.whl", _blob(2000, tag)))
        served.add(ServedFile(OLDER_LINUX, _blob(3000, "older")))
        served.add(ServedFile(GPU_LINUX, _blob(4000, "gpu")))
        for pin in matrix.releases_matching(TF_GPU)[0].and_cuda:
            requirement = Requirement(pin)
            version = next(iter(requirement.specifier)).version
            name = requirement.name.replace("-", "_")
            wheel = f"{name}-{version}-py3-none-manylinux1_x86_64.whl"
            served.add(ServedFile(wheel, _blob(500, wheel)))
        yield served


def _fetch(index: FaultyIndex, dest: Path, *args: str, driver: str = "") -> Result:
    return run_cli(
        "fetch", "--dest", str(dest), "--python-version", "3.11", "--index-url", index.url, *args,
        driver=driver,
    )  # fmt: skip


def _files(dest: Path) -> list[str]:
    return sorted(p.name for p in dest.iterdir() if p.name.endswith(".whl"))


# --- point 1: the version that fits the platform; an honest error; nothing left behind -------


@pytest.mark.parametrize("platform", ["manylinux_2_17_x86_64", "manylinux2014_x86_64"])
def test_the_default_version_is_the_newest_that_fits_the_platform(
    index: FaultyIndex, tmp_path: Path, platform: str
) -> None:
    # Before: 2.21.0 was chosen by the matrix alone, and the run failed with exit 1.
    result = _fetch(index, tmp_path / "wh", "--platform", platform, "--json")
    assert result.exit_code == EXIT_OK, result.stderr
    data = json.loads(result.stdout)
    assert [t["tensorflow"] for t in data["targets"]] == [OLDER]
    assert _files(tmp_path / "wh") == [OLDER_LINUX]
    note = data["targets"][0]["notes"][0]
    assert f"the index has no wheel of {NEWEST}" in note, note
    assert "glibc 2.27" in note


def test_no_fitting_wheel_names_the_near_miss_and_leaves_no_directory(
    index: FaultyIndex, tmp_path: Path
) -> None:
    dest = tmp_path / "new" / "wh"
    result = _fetch(index, dest, "--platform", "manylinux_2_17_x86_64", "--tensorflow", NEWEST)
    assert result.exit_code == EXIT_FAILED, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    # Every one of the twelve wheels is named, the target's Python and machine first.
    listed = re.search(r"has wheels for (.*?)(?: \(its|; choose)", result.stderr)
    assert listed is not None, result.stderr
    assert listed[1].split(", ") == sorted(
        NEWEST_TAGS, key=lambda t: (not t.startswith("cp311-"), "manylinux" not in t, t)
    )
    assert "needs glibc 2.27 or newer" in result.stderr
    assert "pass --platform manylinux_2_27_x86_64" in result.stderr
    assert not (tmp_path / "new").exists()  # neither --dest nor the parent it created


def test_the_glibc_advice_holds(index: FaultyIndex, tmp_path: Path) -> None:
    # What the failed run advises is a run that works: a manylinux_2_27 target takes 2.21.0.
    result = _fetch(index, tmp_path / "wh", "--platform", "manylinux_2_27_x86_64")
    assert result.exit_code == EXIT_OK, result.stderr
    assert _files(tmp_path / "wh") == [f"tensorflow-{NEWEST}-cp311-cp311-manylinux_2_27_x86_64.whl"]


def test_dry_run_shows_the_plan_and_downloads_nothing(index: FaultyIndex, tmp_path: Path) -> None:
    dest = tmp_path / "wh"
    args = ("--platform", "manylinux_2_17_x86_64", "--dry-run")
    text = _fetch(index, dest, *args)
    assert text.exit_code == EXIT_OK, text.stderr
    assert f"would fetch  {OLDER_LINUX}  3.0 kB" in text.stdout
    assert "Dry run: 1 file(s), 3.0 kB; nothing was downloaded" in text.stdout
    data: dict[str, Any] = json.loads(_fetch(index, dest, *args, "--json").stdout)
    assert data["dry_run"] is True
    assert [(f["file"], f["size"]) for f in data["planned"]] == [(OLDER_LINUX, 3000)]
    assert data["total_size"] == 3000
    assert data["files"] == []
    assert not dest.exists()
    assert all("/files/" not in r.path for r in index.requests)


# --- point 2: one recipe decides, and --cpu/--gpu choose the other ---------------------------


def _best_command(*args: str, driver: str = "") -> str:
    result = run_cli("recommend", "--python-version", "3.11", "--tensorflow", TF_GPU, "--json",
                     *args, driver=driver)  # fmt: skip
    assert result.exit_code in (EXIT_OK, EXIT_FAILED), result.stderr
    command: str = json.loads(result.stdout)["candidates"][0]["commands"][0]
    return command


def test_a_machine_without_a_gpu_gets_the_cpu_package_as_recommend_says(
    index: FaultyIndex, tmp_path: Path
) -> None:
    # Before: fetch downloaded tensorflow and twelve nvidia-* wheels for this machine while
    # recommend printed the CPU package.
    command = _best_command()
    assert "and-cuda" not in command
    result = _fetch(index, tmp_path / "wh", "--tensorflow", TF_GPU,
                    "--platform", "manylinux_2_17_x86_64", "--json")  # fmt: skip
    assert result.exit_code == EXIT_OK, result.stderr
    assert json.loads(result.stdout)["targets"][0]["requirements"] == [f"tensorflow=={TF_GPU}"]
    assert f'"tensorflow=={TF_GPU}"' in command
    assert _files(tmp_path / "wh") == [GPU_LINUX]


def test_gpu_takes_the_cuda_wheels_and_a_driver_decides_as_for_recommend(
    index: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    pins = len(matrix.releases_matching(TF_GPU)[0].and_cuda)
    forced = _fetch(index, tmp_path / "forced", "--tensorflow", TF_GPU,
                    "--platform", "manylinux_2_17_x86_64", "--gpu")  # fmt: skip
    assert forced.exit_code == EXIT_OK, forced.stderr
    assert len(_files(tmp_path / "forced")) == 1 + pins
    driver = "570.133.07"
    assert "and-cuda" in _best_command(driver=driver)
    detected = _fetch(index, tmp_path / "driver", "--tensorflow", TF_GPU,
                      "--platform", "manylinux_2_17_x86_64", driver=driver)  # fmt: skip
    assert detected.exit_code == EXIT_OK, detected.stderr
    assert _files(tmp_path / "driver") == _files(tmp_path / "forced")
    cpu = _fetch(index, tmp_path / "cpu", "--tensorflow", TF_GPU,
                 "--platform", "manylinux_2_17_x86_64", "--cpu", driver=driver)  # fmt: skip
    assert cpu.exit_code == EXIT_OK, cpu.stderr
    assert _files(tmp_path / "cpu") == [GPU_LINUX]


@pytest.mark.parametrize("build", [None, "cpu", "gpu"])
@pytest.mark.parametrize("driver", ["none", "570.133.07"])
def test_install_plans_the_wheels_fetch_fetches(
    matrix: Matrix, driver: str, build: str | None
) -> None:
    # One recipe for both: the same machine and choice give install's requirements and fetch's
    # wheels from the same recipe, whichever build the driver or --cpu/--gpu decides.
    target = TargetInterpreter(
        path="python", executable="python", python="3.11.9", machine="x86_64", prefix="/venv",
        base_prefix="/usr", conda=False, distributions={},
    )  # fmt: skip
    machine = describe_machine("linux", "x86_64", "3.11", driver, None)
    plan = make_plan(matrix, machine, TF_GPU, target, build)
    wheel_target = WheelTarget.create("manylinux_2_17_x86_64", PythonVersion(3, 11))
    fetched = plan_target(matrix, TF_GPU, wheel_target, driver, build)
    assert plan.recipe is not None
    assert [str(r) for r in fetched.requirements] == list(plan.recipe.wheels)
    gpu = build == "gpu" or (build is None and driver != "none")
    assert plan.recipe.gpu is gpu
    assert plan.requirements[0] == (
        f"tensorflow[and-cuda]=={TF_GPU}" if gpu else f"tensorflow=={TF_GPU}"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="the target must run another OS than the host")
def test_another_os_with_both_builds_asks_which(tmp_path: Path) -> None:
    # TensorFlow 2.10 was the last with a GPU build on native Windows: from this Linux host,
    # nothing says which one the Windows machine needs, and fetch does not guess 2 GB.
    result = run_cli(
        "fetch", "--dest", str(tmp_path / "wh"), "--tensorflow", "2.10", "--platform", "win_amd64",
        "--python-version", "3.10", "--index-url", "http://127.0.0.1:9/simple/",
    )  # fmt: skip
    assert result.exit_code == EXIT_USAGE, result.stderr
    assert "give the target's --driver VER (or --driver none), or say --cpu or --gpu" in (
        result.stderr
    )
    assert not (tmp_path / "wh").exists()


@pytest.mark.parametrize("command", ["fetch", "install"])
def test_cpu_and_gpu_together_are_a_usage_error(command: str, tmp_path: Path) -> None:
    extra = ("--dest", str(tmp_path / "wh")) if command == "fetch" else ("--dry-run",)
    result = run_cli(command, "--cpu", "--gpu", *extra)
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == "envcheck: error: give --cpu or --gpu, not both\n"


# --- point 10, fetch's half: a failed verification says what to do, with a documented code --


def test_an_extra_file_fails_verify_with_a_hint_and_the_documented_code(
    index: FaultyIndex, tmp_path: Path
) -> None:
    dest = tmp_path / "wh"
    assert _fetch(index, dest, "--platform", "win_amd64").exit_code == EXIT_OK
    assert run_cli("fetch", "--verify", str(dest)).exit_code == EXIT_OK
    (dest / "stray.whl").write_bytes(b"x")
    result = run_cli("fetch", "--verify", str(dest))
    assert "EXTRA       stray.whl (not in the manifest)" in result.stdout
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("envcheck: error: ")
    assert "stray.whl is not in its manifest" in result.stderr
    assert "move it out of the wheelhouse" in result.stderr
    assert result.exit_code == EXIT_FAILED
    for table in (DOCS / "acquire.md", DOCS / "exit-codes.md"):
        rows = dict(re.findall(r"^\| (\d+) \| (.*) \|$", table.read_text(), flags=re.MULTILINE))
        assert "an extra file" in rows[str(result.exit_code)], table
