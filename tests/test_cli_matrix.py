"""`envcheck matrix` (the rows command), `--version` and `--help`, run as subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

import envcheck
from envcheck.cli import main as cli
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.versions import major_minor

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE = 0, 1, 2


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "envcheck", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _json(cwd: Path, *args: str) -> dict[str, Any]:
    result = _run(cwd, "matrix", "--json", *args)
    assert result.returncode == EXIT_OK, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _series_range(first: str, last: str) -> set[str]:
    """'2.5'..'2.11' as the set of minor series between them."""
    low, high = Version(first).release, Version(last).release
    assert low[0] == high[0]
    return {f"{low[0]}.{minor}" for minor in range(low[1], high[1] + 1)}


def test_tensorflow_filter_shows_exactly_that_row(tmp_path: Path, matrix: Matrix) -> None:
    release = matrix.release_for(Version("2.15"))
    assert release is not None
    result = _run(tmp_path, "matrix", "--tensorflow", "2.15")
    assert result.returncode == EXIT_OK, result.stderr
    header, *rows = result.stdout.splitlines()
    assert header.split()[:5] == ["TF", "latest", "Python", "CUDA", "cuDNN"]
    assert len(rows) == 1, result.stdout
    cells = rows[0].split()
    assert cells[:5] == [
        release.series,
        str(release.latest),
        f"{release.python[0]}-{release.python[-1]}",
        str(release.cuda),
        str(release.cudnn),
    ]
    # The last column is the target list of the row, comma-separated.
    assert cells[-1] == ",".join(str(t) for t in release.cuda_targets)


def test_tensorflow_filter_json_has_only_that_row(tmp_path: Path, matrix: Matrix) -> None:
    release = matrix.release_for(Version("2.15"))
    assert release is not None
    [row] = _json(tmp_path, "--tensorflow", "2.15")["releases"]
    assert row["tensorflow"] == "2.15"
    assert row["versions"] == [str(v) for v in release.versions]
    # docs/facts.md 1.1: TF 2.15 is CUDA 12.2 / cuDNN 8.9; 2.3: Linux floor 525.60.13.
    assert (row["cuda"], row["cudnn"]) == ("12.2", "8.9")
    assert row["driver_min"]["linux"] == "525.60.13"


@pytest.mark.parametrize(
    ("cuda", "first", "last"),
    [
        # docs/facts.md 1.1: CUDA 11.2 for tensorflow-2.5.0 ... 2.11.0; CUDA 12.x (12.2, 12.3,
        # 12.5) for 2.15.0 ... 2.21.0.
        ("11.2", "2.5", "2.11"),
        ("12", "2.15", "2.21"),
    ],
)
def test_cuda_filter(tmp_path: Path, matrix: Matrix, cuda: str, first: str, last: str) -> None:
    releases = _json(tmp_path, "--cuda", cuda)["releases"]
    got = [r["tensorflow"] for r in releases]
    assert set(got) == _series_range(first, last)
    assert len(got) == len(set(got))
    # Newest first, as Matrix.releases_newest_first orders them.
    assert got == sorted(got, key=Version, reverse=True)
    wanted = Version(cuda).release
    for row in releases:
        built = Version(row["cuda"]).release
        assert built[: len(wanted)] == wanted, row
    # The same answer from the rows themselves.
    from_data = {
        r.series
        for r in matrix.releases
        if r.cuda is not None and r.cuda.release[: len(wanted)] == wanted
    }
    assert set(got) == from_data


def test_json_shape(tmp_path: Path, matrix: Matrix) -> None:
    data = _json(tmp_path)
    assert data["schema"] == "envcheck.matrix/1"
    releases = data["releases"]
    assert len(releases) == len(matrix.releases)
    required = {
        "tensorflow",
        "versions",
        "python",
        "cuda",
        "cudnn",
        "sass",
        "ptx",
        "driver_min",
        "sources",
    }
    for row in releases:
        missing = required - set(row)
        assert not missing, f"{row.get('tensorflow')}: missing {sorted(missing)}"
        assert set(row["driver_min"]) == {"linux", "windows"}
        assert row["sources"], f"{row['tensorflow']}: no sources"
        assert all(s.startswith("sm_") for s in row["sass"])
        assert all(p.startswith("compute_") for p in row["ptx"])
    series = [Version(r["tensorflow"]) for r in releases]
    assert series == sorted(series, reverse=True)


@pytest.mark.parametrize(
    "args",
    [
        # docs/facts.md 1.1: no 2.16.0 row (only 2.16.1).
        ("--tensorflow", "2.16.0"),
        # No release in the matrix is built with CUDA 9 (the rows start at 1.13 / CUDA 10.0).
        ("--cuda", "9"),
        # 2.10 was built with CUDA 11.2, so the two filters together match nothing.
        ("--tensorflow", "2.10", "--cuda", "12"),
    ],
)
def test_filter_matching_nothing_exits_1(
    tmp_path: Path, matrix: Matrix, args: tuple[str, ...]
) -> None:
    if args[0] == "--cuda":
        assert all(r.cuda is None or major_minor(r.cuda)[0] != 9 for r in matrix.releases)
    result = _run(tmp_path, "matrix", *args)
    assert result.returncode == EXIT_NEGATIVE, result.stdout
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "envcheck: error: no TensorFlow release matches the given filters"
    ]


@pytest.mark.parametrize(("option", "value"), [("--tensorflow", "banana"), ("--cuda", "twelve")])
def test_unparsable_filter_exits_2_with_one_line(tmp_path: Path, option: str, value: str) -> None:
    result = _run(tmp_path, "matrix", option, value)
    assert result.returncode == EXIT_USAGE
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("envcheck: error: ")
    assert repr(value) in lines[0]
    assert result.stdout == ""


def test_version(tmp_path: Path) -> None:
    result = _run(tmp_path, "--version")
    assert result.returncode == EXIT_OK
    assert result.stdout.strip() == f"envcheck {envcheck.__version__}"
    # The module's version and the installed distribution's must agree.
    assert envcheck.__version__ == metadata.version("envcheck")


def test_help(tmp_path: Path) -> None:
    result = _run(tmp_path, "--help")
    assert result.returncode == EXIT_OK, result.stderr
    assert "Usage:" in result.stdout
    for command in ("matrix", "recommend"):
        assert command in result.stdout
    matrix_help = _run(tmp_path, "matrix", "--help")
    assert matrix_help.returncode == EXIT_OK
    for option in ("--tensorflow", "--cuda", "--json", "--matrix", "validate"):
        assert option in matrix_help.stdout


def test_an_unexpected_error_is_one_line_and_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bug in a command (here: its handler raising) must not print a traceback.
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("envcheck.cli.commands.recommend.run", broken)
    monkeypatch.delenv("ENVCHECK_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exited:
        cli.main(["recommend"])
    assert exited.value.code == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "internal error: RuntimeError: boom" in err
    assert "Traceback" not in err
