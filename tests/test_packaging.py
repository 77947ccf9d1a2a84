"""The matrix data ships inside the wheel and loads from an installed package, not the checkout.

Builds a real wheel with the project's own build backend, unpacks it outside the repository and
runs envcheck from there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA_FILES = sorted(p.name for p in (ROOT / "matrix").glob("*.toml"))


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
    )
    wheels = list(out.glob("envcheck-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_contains_every_matrix_file(built_wheel: Path) -> None:
    names = set(zipfile.ZipFile(built_wheel).namelist())
    assert DATA_FILES, "the checkout has no matrix/*.toml files"
    for name in DATA_FILES:
        assert f"envcheck/_matrix_data/{name}" in names


def test_unpacked_wheel_loads_its_own_matrix(built_wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(built_wheel).extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("ENVCHECK_MATRIX", None)
    result = subprocess.run(
        [sys.executable, "-m", "envcheck", "matrix", "validate"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The directory it validated is the one inside the unpacked wheel, not the checkout.
    assert str(site / "envcheck" / "_matrix_data") in result.stdout
    assert str(ROOT / "matrix") not in result.stdout
