"""Documents nested past the parsers' recursion (issue 24, problem 9).

json and tomllib recurse, so an index page 200k deep, a manifest 100k deep, a cache entry or a
matrix file of 5,000 nested tables ended envcheck with exit 3 (RecursionError). Each is now one
line and the documented exit code; a cache entry is passed over for the TOML.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.matrix.load import bundled_matrix_dir
from tests.faults.hostile_files import (
    EXPLAIN,
    RECOMMEND,
    entry_names,
    one_line_error,
    run,
)
from tests.index_server import JSON_TYPE, faulty_index
from tests.test_fetch import fetch_win_cp310

EXIT_NEGATIVE, EXIT_USAGE = 1, 2


def _deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


def _deep_page(_project: str, _as_json: bool) -> tuple[bytes, str]:
    """Every project's page: PEP 691 JSON with a value nested 200k deep."""
    body = '{"meta": {"api-version": "1.1"}, "files": [], "x": ' + _deep_json(200_000) + "}"
    return body.encode(), JSON_TYPE


def test_an_index_page_200k_deep_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with faulty_index() as index:
        monkeypatch.setattr(index, "page", _deep_page)
        result = fetch_win_cp310(tmp_path / "wheels", index.url)
    assert result.exit_code == EXIT_NEGATIVE, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "nested too deeply" in lines[0], result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_a_manifest_100k_deep_is_one_line(tmp_path: Path) -> None:
    manifest = tmp_path / "wheelhouse.json"
    text = json.dumps({"schema": "envcheck.wheelhouse/2", "files": []})
    manifest.write_text(text.replace("[]", _deep_json(100_000)))
    line = one_line_error(run(["fetch", "--verify", str(tmp_path)]), EXIT_USAGE)
    assert "wheelhouse.json" in line and "nested more than 32 levels deep" in line, line


def test_a_deep_cache_entry_is_passed_over(tmp_path: Path) -> None:
    names = entry_names(RECOMMEND, EXPLAIN, folder=tmp_path / "scratch")
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    for name in names:
        (folder / name).write_text('{"schema": 1, "x": ' + _deep_json(200_000) + "}")
    for command in (RECOMMEND, EXPLAIN):
        expected = run(command, ENVCHECK_CACHE_DIR="off")
        result = run(command, ENVCHECK_CACHE_DIR=str(folder))
        assert result.returncode == expected.returncode, result.stderr
        assert result.stderr == "" and result.stdout == expected.stdout


@pytest.mark.parametrize(
    "toml",
    [
        "schema = 1\n[" + ".".join(["a"] * 5000) + "]\nx = 1\n",  # tables: tomllib copes
        "schema = 1\nx = " + "{a = " * 5000 + "1" + " }" * 5000 + "\n",  # inline: it recurses
        "schema = 1\nx = " + _deep_json(5000) + "\n",
    ],
    ids=["tables", "inline-tables", "arrays"],
)
def test_a_matrix_file_5k_deep_is_one_line(tmp_path: Path, toml: str) -> None:
    matrix = tmp_path / "matrix"
    matrix.mkdir()
    for source in bundled_matrix_dir().glob("*.toml"):
        (matrix / source.name).write_bytes(source.read_bytes())
    (matrix / "tensorflow.toml").write_text(toml)
    cache = str(tmp_path / "cache")  # the cache on, as by default: its writer recursed too
    line = one_line_error(
        run([*RECOMMEND, "--matrix", str(matrix)], ENVCHECK_CACHE_DIR=cache), EXIT_USAGE
    )
    assert "tensorflow.toml: nested more than 32 levels deep" in line, line
    validated = run(["matrix", "validate", "--matrix", str(matrix)], ENVCHECK_CACHE_DIR=cache)
    assert validated.returncode == EXIT_NEGATIVE, validated.stderr
    assert "tensorflow.toml: nested more than 32 levels deep" in validated.stdout
