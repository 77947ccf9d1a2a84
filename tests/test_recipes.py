"""One recipe for what to install (envcheck/matrix/recipes.py), and every command saying it.

Releases are the bundled matrix's rows; what a recipe holds is checked against the rows' own
fields (and_cuda pins, gpu_package, cuda_setup, install_pins), so a matrix change moves both.
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.matrix.recipes import install_recipe, torch_recipe
from envcheck.matrix.records import TensorflowRelease
from envcheck.recommend.rank import cpu_commands, gpu_commands


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def release(matrix: Matrix, version: str) -> TensorflowRelease:
    found = matrix.release_for(Version(version))
    assert found is not None
    return found


@pytest.mark.parametrize("os_name", ["linux", "wsl"])
def test_and_cuda_on_linux_and_wsl(matrix: Matrix, os_name: str) -> None:
    row = release(matrix, "2.21.0")
    recipe = install_recipe(row, "2.21.0", os_name, gpu=True)
    assert recipe.requirements[0] == "tensorflow[and-cuda]==2.21.0"
    assert recipe.extra == "and-cuda" and recipe.outside_pip == () and recipe.gpu
    assert recipe.wheels[: 1 + len(row.and_cuda)] == ("tensorflow==2.21.0", *row.and_cuda)
    assert recipe.pip_command() == 'python -m pip install "tensorflow[and-cuda]==2.21.0"' + "".join(
        f' "{pin}"' for pin in row.install_pins
    )


def test_native_windows_gpu_build_takes_cuda_from_outside_pip(matrix: Matrix) -> None:
    row = release(matrix, "2.10.1")
    recipe = install_recipe(row, "2.10.1", "windows", gpu=True)
    assert recipe.requirements[0] == f"{row.gpu_package}==2.10.1"
    assert recipe.extra is None and recipe.outside_pip == row.cuda_setup and row.cuda_setup


def test_cpu_recipe_is_the_plain_package(matrix: Matrix) -> None:
    recipe = install_recipe(release(matrix, "2.15.1"), "2.15.1", "linux", gpu=False)
    assert recipe.requirements[0] == "tensorflow==2.15.1"
    assert (recipe.extra, recipe.outside_pip, recipe.gpu) == (None, (), False)


def test_recommend_commands_are_the_recipe(matrix: Matrix) -> None:
    row = release(matrix, "2.13.1")  # before and-cuda: CUDA set up outside pip on Linux
    recipe = install_recipe(row, Version("2.13.1"), "linux", gpu=True)
    assert gpu_commands(row, Version("2.13.1"), "linux") == (
        recipe.pip_command(),
        *recipe.outside_pip,
    )
    cpu = install_recipe(row, Version("2.13.1"), "linux", gpu=False)
    assert cpu_commands(row, Version("2.13.1")) == (cpu.pip_command(),)


def test_a_printed_torch_command_never_shows_the_index_password() -> None:
    # recommend prints pip_command(); install and fetch read index_url, password and all.
    builds = load_matrix(bundled_matrix_dir()).torch_builds
    # A cu126 build that is not the default wheel somewhere: it comes from PyTorch's index.
    build = next(b for b in builds if b.variant == "cu126" and not b.pypi_default)
    recipe = torch_recipe(build, build.latest, "linux-x86_64", "https://me:s3cret@127.0.0.1/whl")
    assert recipe.index_url == "https://me:s3cret@127.0.0.1/whl/cu126"
    assert "s3cret" not in recipe.pip_command()
    assert recipe.pip_command().endswith("--index-url https://me:****@127.0.0.1/whl/cu126")
