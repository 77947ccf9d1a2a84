"""tensorflow.toml's requirements (and_cuda, install_pins) are checked with packaging on every
load; once this packaging has passed a file's requirements, the next load recalls that from the
parsed cache instead of importing packaging.requirements (a sixth of explain's start-up), and
a requirement it has not passed is still checked."""

from __future__ import annotations

from pathlib import Path

import packaging.requirements
import pytest

from envcheck.matrix import load
from envcheck.matrix.load import bundled_matrix_dir, load_tensorflow
from envcheck.matrix.rows import MatrixDataError

NAME = "tensorflow.toml"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(load, "_VALID_REQUIREMENTS", set(), raising=False)


def _copy(tmp_path: Path, old: str = "", new: str = "") -> Path:
    folder = tmp_path / "matrix"
    folder.mkdir(exist_ok=True)
    text = (bundled_matrix_dir() / NAME).read_text(encoding="utf-8")
    (folder / NAME).write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def _not_imported(*_: object) -> None:
    raise AssertionError("checked with packaging again")


def test_requirements_passed_once_are_recalled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _copy(tmp_path)
    first = load_tensorflow(folder)
    assert any(release.install_pins for release in first[0])
    monkeypatch.setattr(load, "_VALID_REQUIREMENTS", set(), raising=False)
    monkeypatch.setattr(packaging.requirements, "Requirement", _not_imported)
    assert load_tensorflow(folder) == first


@pytest.mark.parametrize("loads", [1, 2])
def test_an_invalid_requirement_is_refused_every_time(tmp_path: Path, loads: int) -> None:
    load_tensorflow(_copy(tmp_path))  # the bundled file's requirements, recalled from now on
    folder = _copy(tmp_path, 'install_pins = ["numpy<2"]', 'install_pins = ["numpy<<2"]')
    for _ in range(loads):
        with pytest.raises(MatrixDataError, match="is not a requirement"):
            load_tensorflow(folder)
