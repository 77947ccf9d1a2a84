"""`envcheck matrix validate` on real matrix directories, each with one defect.

Every test copies the bundled matrix into tmp_path, edits one data file as text the way a person
would, and runs the CLI as a subprocess. Expected messages are built from the loaded data (row
numbers, neighbouring driver versions), not copied from the output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from envcheck.matrix.load import FILES, bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.versions import DriverVersion

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE = 0, 1, 2


@pytest.fixture(scope="module")
def bundled() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def _env(**extra: str) -> dict[str, str]:
    """The test process's environment without any ENVCHECK_* setting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(extra)
    return env


def _run(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envcheck", *args],
        cwd=cwd,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _validate_json(cwd: Path, directory: Path) -> tuple[int, dict[str, Any]]:
    result = _run(cwd, "matrix", "validate", "--matrix", str(directory), "--json")
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout)


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "matrix"
    shutil.copytree(
        bundled_matrix_dir(),
        target,
        ignore=shutil.ignore_patterns("__pycache__", "__init__.py"),
    )
    return target


def _edit(path: Path, old: str, new: str, after: str = "") -> None:
    """Replace the first `old` that follows the unique text `after` (the whole file if empty)."""
    text = path.read_text(encoding="utf-8")
    if after:
        assert text.count(after) == 1, f"{after!r} is not unique in {path.name}"
    start = text.index(after) + len(after) if after else 0
    position = text.find(old, start)
    assert position >= 0, f"{old!r} not found in {path.name}"
    if not after:
        assert text.count(old) == 1, f"{old!r} is not unique in {path.name}"
    path.write_text(text[:position] + new + text[position + len(old) :], encoding="utf-8")


def _row_number(items: tuple[Any, ...], predicate: Any) -> int:
    """1-based position of the row the loader will name ([[toolkit]] #N)."""
    return next(i for i, item in enumerate(items, start=1) if predicate(item))


def _messages(report: dict[str, Any]) -> list[str]:
    return [f"{p['file']}: {p['message']}" for p in report["problems"]]


# --- the unmodified copy -----------------------------------------------------------------------


def test_unmodified_copy_is_valid(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    assert sorted(p.name for p in directory.iterdir()) == sorted(FILES)
    result = _run(tmp_path, "matrix", "validate", "--matrix", str(directory))
    assert result.returncode == EXIT_OK, result.stdout + result.stderr
    assert result.stdout.strip().splitlines() == [f"{directory}: matrix is valid"]
    assert result.stderr == ""


def test_json_report_shape(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_OK
    assert {"schema", "valid", "problems"} <= set(report)
    assert report["schema"] == "envcheck.matrix-validate/1"
    assert report["valid"] is True
    assert report["problems"] == []


# --- one defect per test ---------------------------------------------------------------------


def test_toolkit_driver_that_decreases(tmp_path: Path, bundled: Matrix) -> None:
    directory = _copy(tmp_path)
    ordered = sorted(bundled.toolkits, key=lambda t: t.version)
    index = next(i for i, t in enumerate(ordered) if t.version == Version("12.2.2"))
    previous, edited = ordered[index - 1], ordered[index]
    # A made-up 535.60.01: below the previous toolkit's Linux driver (12.2.1) but above the one
    # before it (12.2.0), so exactly one step falls.
    lowered = "535.60.01"
    below, above = ordered[index - 2].linux_driver, previous.linux_driver
    assert below is not None and above is not None
    assert below < DriverVersion(lowered) < above
    _edit(
        directory / "cuda_drivers.toml",
        f'linux_driver = "{edited.linux_driver}"',
        f'linux_driver = "{lowered}"',
        after='version = "12.2.2"',
    )
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    assert report["valid"] is False
    assert _messages(report) == [
        f"cuda_drivers.toml: linux_driver falls from {previous.linux_driver} "
        f"(CUDA {previous.version}) to {lowered} (CUDA {edited.version}); "
        "minimums must not decrease as CUDA rises"
    ]


def test_release_citing_an_unknown_source(tmp_path: Path, bundled: Matrix) -> None:
    directory = _copy(tmp_path)
    _edit(
        directory / "tensorflow.toml",
        "source = [",
        'source = [\n  "no-such-source",',
        after='versions = ["2.15.0", "2.15.1"]',
    )
    number = _row_number(bundled.releases, lambda r: r.series == "2.15")
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    assert _messages(report) == [
        f"load: tensorflow.toml: [[release]] #{number} (2.15.1): field 'source': "
        "unknown source id(s) no-such-source"
    ]


def test_unknown_field(tmp_path: Path, bundled: Matrix) -> None:
    directory = _copy(tmp_path)
    _edit(
        directory / "cuda_drivers.toml",
        'version = "12.2.2"',
        'version = "12.2.2"\ncolour = "green"',
    )
    number = _row_number(bundled.toolkits, lambda t: t.version == Version("12.2.2"))
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    assert _messages(report) == [
        f"load: cuda_drivers.toml: [[toolkit]] #{number} (12.2.2): unknown field(s) colour"
    ]


def test_missing_required_field(tmp_path: Path, bundled: Matrix) -> None:
    directory = _copy(tmp_path)
    number = _row_number(bundled.toolkits, lambda t: t.version == Version("12.2.2"))
    label = bundled.toolkits[number - 1].label
    _edit(directory / "cuda_drivers.toml", f'label = "{label}"\n', "", after='version = "12.2.2"')
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    assert _messages(report) == [
        f"load: cuda_drivers.toml: [[toolkit]] #{number} (12.2.2): missing field 'label'"
    ]


def test_release_naming_a_cuda_without_toolkit_row(tmp_path: Path) -> None:
    # CUDA 12.7 does not exist (docs/facts.md 2.1: 12.6 -> 12.8), so no [[toolkit]] row has it.
    directory = _copy(tmp_path)
    _edit(
        directory / "tensorflow.toml",
        'cuda = "12.2"',
        'cuda = "12.7"',
        after='versions = ["2.15.0", "2.15.1"]',
    )
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    messages = _messages(report)
    assert (
        "tensorflow.toml: TensorFlow 2.15: CUDA 12.7 has no [[toolkit]] row in cuda_drivers.toml"
    ) in messages
    # Nothing else in the matrix changed, so every problem is about this row.
    assert all(m.startswith("tensorflow.toml: TensorFlow 2.15: ") for m in messages), messages


def test_gpu_alias_duplicating_another_rows_name(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    _edit(
        directory / "gpus.toml",
        'name = "GeForce RTX 4090"\n',
        'name = "GeForce RTX 4090"\naliases = ["GeForce RTX 3060"]\n',
    )
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    messages = _messages(report)
    assert len(messages) == 1, messages
    assert messages[0].startswith("gpus.toml: [[gpu]] rows #")
    assert "GeForce RTX 3060" in messages[0]
    assert "GeForce RTX 4090" in messages[0]
    assert messages[0].endswith("read the same once brand words are dropped ('rtx 3060')")


def test_gpu_row_duplicating_another_rows_name(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    _edit(directory / "gpus.toml", 'name = "GeForce RTX 4090"\n', 'name = "GeForce RTX 3060"\n')
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    assert any(m.startswith("gpus.toml: ") and "GeForce RTX 3060" in m for m in _messages(report))


def test_invalid_toml(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    _edit(directory / "cudnn.toml", "[sources]", "[sources")
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    [message] = _messages(report)
    assert message.startswith(f"load: {directory / 'cudnn.toml'}: cannot be read as TOML: ")


def test_wrong_schema(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    _edit(directory / "gpus.toml", "schema = 1\n", "schema = 2\n")
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    assert _messages(report) == [f"load: {directory / 'gpus.toml'}: schema must be 1, found 2"]


def test_missing_file(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    (directory / "libraries.toml").unlink()
    result = _run(tmp_path, "matrix", "validate", "--matrix", str(directory))
    assert result.returncode == EXIT_NEGATIVE
    assert f"load: {directory / 'libraries.toml'}: file is missing" in result.stdout.splitlines()
    assert result.stdout.splitlines()[-1] == f"{directory}: 1 problem(s)"


def test_every_missing_or_broken_file_in_one_run(tmp_path: Path) -> None:
    # Issue 23: a run reported the first file that did not load, the next run the next one.
    directory = _copy(tmp_path)
    gone = ("libraries.toml", "pytorch.toml", "log_signatures_frameworks.toml")
    for name in gone:
        (directory / name).unlink()
    _edit(directory / "gpus.toml", "schema = 1\n", "schema = 2\n")
    code, report = _validate_json(tmp_path, directory)
    assert code == EXIT_NEGATIVE
    expected = [f"load: {directory / name}: file is missing" for name in gone]
    expected.append(f"load: {directory / 'gpus.toml'}: schema must be 1, found 2")
    assert sorted(_messages(report)) == sorted(expected)


# --- unusable input, and the ENVCHECK_MATRIX variable -------------------------------------------


def _assert_one_line_error(result: subprocess.CompletedProcess[str], code: int) -> str:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("envcheck: error: ")
    return lines[0]


@pytest.mark.parametrize("kind", ["nonexistent", "a-file"])
def test_missing_directory_is_unusable_input(tmp_path: Path, kind: str) -> None:
    target = tmp_path / kind
    if kind == "a-file":
        target.write_text("not a directory\n", encoding="utf-8")
    result = _run(tmp_path, "matrix", "validate", "--matrix", str(target))
    line = _assert_one_line_error(result, EXIT_USAGE)
    assert str(target) in line
    assert result.stdout == ""


def test_root_nonexistent_is_unusable_input(tmp_path: Path) -> None:
    if Path("/nonexistent").exists():
        pytest.skip("/nonexistent exists on this machine")
    result = _run(tmp_path, "matrix", "validate", "--matrix", "/nonexistent")
    assert "/nonexistent" in _assert_one_line_error(result, EXIT_USAGE)


def test_env_var_works_like_the_option(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    _edit(directory / "gpus.toml", "schema = 1\n", "schema = 2\n")
    by_option = _run(tmp_path, "matrix", "validate", "--json", "--matrix", str(directory))
    by_env = _run(tmp_path, "matrix", "validate", "--json", ENVCHECK_MATRIX=str(directory))
    assert by_option.returncode == by_env.returncode == EXIT_NEGATIVE
    assert json.loads(by_env.stdout) == json.loads(by_option.stdout)
    assert json.loads(by_env.stdout)["directory"] == str(directory)


def test_env_var_nonexistent_is_unusable_input(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    result = _run(tmp_path, "matrix", "validate", ENVCHECK_MATRIX=str(missing))
    assert str(missing) in _assert_one_line_error(result, EXIT_USAGE)


def test_option_overrides_env_var(tmp_path: Path) -> None:
    good = _copy(tmp_path)
    result = _run(
        tmp_path,
        "matrix",
        "validate",
        "--matrix",
        str(good),
        ENVCHECK_MATRIX=str(tmp_path / "nonexistent"),
    )
    assert result.returncode == EXIT_OK, result.stderr
    assert result.stdout.strip() == f"{good}: matrix is valid"


def test_matrix_option_before_validate_is_not_ignored(tmp_path: Path) -> None:
    result = _run(tmp_path, "matrix", "--matrix", str(tmp_path / "nonexistent"), "validate")
    assert result.returncode == EXIT_USAGE, result.stdout


# --- a data error surfaced by another command ----------------------------------------------------


def test_matrix_rows_command_on_broken_dir(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    _edit(directory / "gpus.toml", "schema = 1\n", "schema = 2\n")
    for result in (
        _run(tmp_path, "matrix", "--matrix", str(directory)),
        _run(tmp_path, "matrix", ENVCHECK_MATRIX=str(directory)),
    ):
        line = _assert_one_line_error(result, EXIT_USAGE)
        assert line == f"envcheck: error: {directory / 'gpus.toml'}: schema must be 1, found 2"
        assert result.stdout == ""
