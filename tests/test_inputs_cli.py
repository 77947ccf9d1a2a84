"""Values that name nothing in the matrix or are no value of their kind: `matrix --json` with no
match, `recommend --tensorflow` outside the matrix or spelt with a post-release, a bare driver
branch, a made-up wheel platform tag."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envcheck.errors import InputError
from envcheck.index.wheels import normalize_platform_tag
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix, tensorflow_specifier
from envcheck.versions import DriverVersion

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE = 0, 1, 2
MACHINE = ("--os", "linux", "--arch", "x86_64", "--python-version", "3.11", "--driver", "550.54.14",
           "--gpu", "RTX 3060")  # fmt: skip


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def envcheck(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "envcheck", *args],
        cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip


def one_error_line(completed: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in completed.stderr
    lines = completed.stderr.splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith("envcheck: error: ")
    return lines[0]


# --- matrix --json with no match --------------------------------------------------------------


@pytest.mark.parametrize(
    "args", [("--cuda", "13"), ("--tensorflow", "2.99"), ("--tensorflow", "2.10", "--cuda", "12")]
)
def test_matrix_json_with_no_match_prints_an_empty_document(args: tuple[str, ...]) -> None:
    # Before: nothing on stdout.
    completed = envcheck("matrix", "--json", *args)
    assert completed.returncode == EXIT_NEGATIVE
    assert json.loads(completed.stdout) == {"schema": "envcheck.matrix/1", "releases": []}
    assert "no TensorFlow release matches" in one_error_line(completed)


# --- recommend --tensorflow -------------------------------------------------------------------


def _known_range(matrix: Matrix) -> str:
    newest_first = matrix.releases_newest_first()
    return f"{newest_first[-1].series}-{newest_first[0].series}"


def test_recommend_for_a_release_the_matrix_does_not_know(matrix: Matrix) -> None:
    # Before: "No TensorFlow release installs on this machine." (blaming the machine).
    completed = envcheck("recommend", *MACHINE, "--tensorflow", "2.99")
    assert completed.returncode == EXIT_NEGATIVE
    assert completed.stdout == ""
    line = one_error_line(completed)
    assert "no TensorFlow release in the matrix matches --tensorflow '2.99'" in line
    assert _known_range(matrix) in line
    assert "installs on this machine" not in line


def test_recommend_json_for_a_release_the_matrix_does_not_know(matrix: Matrix) -> None:
    completed = envcheck("recommend", *MACHINE, "--tensorflow", ">=3", "--json")
    assert completed.returncode == EXIT_NEGATIVE
    data: dict[str, Any] = json.loads(completed.stdout)
    assert (data["schema"], data["tensorflow_spec"]) == ("envcheck.recommend/1", ">=3")
    assert data["candidates"] == data["rejected"] == []
    assert _known_range(matrix) in one_error_line(completed)


@pytest.mark.parametrize(
    ("spelling", "base"),
    [
        ("2.15.0.post1", "2.15.0"),
        ("2.15.1+local.build", "2.15.1"),
        ("2.15.0.dev20231101", "2.15.0"),
    ],
)
def test_recommend_accepts_every_pep_440_spelling_of_a_release(spelling: str, base: str) -> None:
    # Before: "is neither a version nor a specifier".
    completed = envcheck("recommend", *MACHINE, "--tensorflow", spelling, "--json")
    assert completed.returncode == EXIT_OK, completed.stderr
    data = json.loads(completed.stdout)
    assert [c["tensorflow"] for c in data["candidates"]] == [base]


def test_a_bare_version_picks_its_base_release(matrix: Matrix) -> None:
    assert tensorflow_specifier("2.15.0.post1") == tensorflow_specifier("2.15.0")
    assert tensorflow_specifier("2.15.post1") == tensorflow_specifier("2.15")
    assert [r.series for r in matrix.releases_matching("2.15.0.post1")] == ["2.15"]
    assert matrix.releases_matching("1!2.15") == ()  # another epoch is another version line
    with pytest.raises(InputError, match="neither a version"):
        tensorflow_specifier("2.15.0-banana")


# --- a bare driver branch ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        (
            "recommend",
            "--driver",
            "570",
            "--gpu",
            "RTX 5090",
            "--os",
            "linux",
            "--python-version",
            "3.12",
        ),
        ("doctor", "--no-smoke", "--target-driver", "570", "--target-gpu", "RTX 5090"),
    ],
    ids=["--driver", "--target-driver"],
)
def test_a_bare_driver_branch_is_refused(args: tuple[str, ...]) -> None:
    # Before: read as 570.0, "older than the GPU" (every R570 release is >= 570.86).
    completed = envcheck(*args)
    assert completed.returncode == EXIT_USAGE
    assert completed.stdout == ""
    line = one_error_line(completed)
    assert f"{args[args.index('570') - 1]} '570' is a driver branch, not a release" in line
    assert "570.133.07" in line


def test_driver_releases_still_parse() -> None:
    assert str(DriverVersion.parse(" 570.133.07 ")) == "570.133.07"
    assert str(DriverVersion.parse("531.79")) == "531.79"  # Windows releases have two parts
    with pytest.raises(InputError, match="driver branch"):
        DriverVersion.parse("570", "--driver")


# --- fetch --platform -------------------------------------------------------------------------


@pytest.mark.parametrize("tag", ["banana", "manylinux_2_17_banana", "win_amd65", "macosx_arm64"])
def test_fetch_with_a_made_up_platform_tag_is_a_usage_error(tmp_path: Path, tag: str) -> None:
    # Before: exit 1, "no TensorFlow release ... on banana (other-banana)". The index URL is a
    # closed local port: nothing is fetched.
    completed = envcheck(
        "fetch", "--dest", str(tmp_path / "w"), "--platform", tag, "--python-version", "3.11",
        "--index-url", "http://127.0.0.1:9/simple/",
    )  # fmt: skip
    assert completed.returncode == EXIT_USAGE
    assert completed.stdout == ""
    line = one_error_line(completed)
    assert f"--platform {tag!r} is not a wheel platform tag" in line
    for form in ("manylinux_X_Y_ARCH", "manylinux2014_ARCH", "linux_ARCH", "win_amd64",
                 "macosx_X_Y_ARCH"):  # fmt: skip
        assert form in line
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize(
    ("given", "tag"),
    [
        ("manylinux_2_17_x86_64", "manylinux_2_17_x86_64"),
        ("manylinux2014_aarch64", "manylinux2014_aarch64"),
        ("musllinux_1_2_x86_64", "musllinux_1_2_x86_64"),
        ("linux_x86_64", "linux_x86_64"),
        ("win_amd64", "win_amd64"),
        ("win32", "win32"),
        ("macosx-14.0-arm64", "macosx_14_0_arm64"),
        ("macosx_10_15_x86_64", "macosx_10_15_x86_64"),
        ("macosx_11_0_universal2", "macosx_11_0_universal2"),
    ],
)
def test_real_platform_tags_are_accepted(given: str, tag: str) -> None:
    assert normalize_platform_tag(given) == tag
