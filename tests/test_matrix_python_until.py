"""tensorflow.toml's `python_until`: a Python only a series' earlier patches have wheels for, up
to the patch given. The loader refuses one that is no earlier patch of the series, one the
newest patch already has, and a value that is not a version."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from envcheck.matrix.load import bundled_matrix_dir, load_tensorflow
from envcheck.matrix.rows import MatrixDataError
from envcheck.versions import PythonVersion

NAME = "tensorflow.toml"
LINE = 'python_until = { "3.6" = "2.6.2" }'


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))


def _copy(tmp_path: Path, new: str) -> Path:
    folder = tmp_path / "matrix"
    folder.mkdir(exist_ok=True)
    text = (bundled_matrix_dir() / NAME).read_text(encoding="utf-8")
    assert text.count(LINE) == 1
    (folder / NAME).write_text(text.replace(LINE, new, 1), encoding="utf-8")
    return folder


def test_the_bundled_series_26_reads_python_36_up_to_262() -> None:
    releases, _ = load_tensorflow(bundled_matrix_dir())
    release = next(r for r in releases if r.series == "2.6")
    assert release.python_until == ((PythonVersion(3, 6), Version("2.6.2")),)
    assert PythonVersion(3, 6) in release.pythons_of(Version("2.6.1"))
    assert PythonVersion(3, 6) not in release.pythons_of(Version("2.6.3"))
    assert release.pythons_of(None) == release.python


@pytest.mark.parametrize(
    "bad",
    [
        'python_until = { "3.6" = "2.6.5" }',  # the newest patch
        'python_until = { "3.6" = "2.7.0" }',  # not of this series
        'python_until = { "3.8" = "2.6.2" }',  # the newest patch has 3.8 already
        'python_until = { "3.6" = "two" }',
        'python_until = { "3.6" = 262 }',
        'python_until = { "three" = "2.6.2" }',
    ],
)
def test_a_wrong_python_until_is_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(MatrixDataError, match="python_until"):
        load_tensorflow(_copy(tmp_path, bad))
