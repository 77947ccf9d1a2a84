"""The parsed-matrix cache as a shared place (issue 24, problem 2).

Entry names are predictable, so another user who can write the cache folder, or a folder above
it, plants a symlink at an entry's name; envcheck (run by root here, as in a Docker build) must
neither write through it nor read what that user put there. And an entry edited after it was
written must not change an answer: `recommend`'s install commands, `explain`'s findings and
`matrix validate`'s verdict are compared with a run that has no cache at all.

The other user is uid 65534 (nobody): as root the tests give it files with os.chown.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from envcheck.matrix.load import bundled_matrix_dir
from tests.faults.hostile_files import (
    EXPLAIN,
    RECOMMEND,
    edit_entries,
    entry_names,
    run,
    walk,
)

OTHER = 65534
PRECIOUS = "the victim's own data\n"

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="gives files to another user"
)


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The entries `recommend` and `explain` keep."""
    return entry_names(RECOMMEND, EXPLAIN, folder=tmp_path_factory.mktemp("scratch") / "c")


@pytest.fixture(scope="module")
def expected() -> dict[str, str]:
    """What recommend and explain print without any cache."""
    answers = {}
    for label, command in (("recommend", RECOMMEND), ("explain", EXPLAIN)):
        result = run(command, ENVCHECK_CACHE_DIR="off")
        assert result.returncode in (0, 1), result.stderr
        answers[label] = result.stdout
    assert "pip install" in answers["recommend"]
    assert "cudnn" in answers["explain"].lower()
    return answers


def _plant_links(folder: Path, names: list[str], victim: Path, owner: int) -> None:
    for name in names:
        link = folder / name
        link.symlink_to(victim)
        os.lchown(link, owner, owner)


def _answers_right(xdg: Path, expected: dict[str, str]) -> None:
    for label, command in (("recommend", RECOMMEND), ("explain", EXPLAIN)):
        result = run(command, XDG_CACHE_HOME=str(xdg))
        assert result.returncode in (0, 1), result.stderr
        assert result.stderr == "", result.stderr
        assert result.stdout == expected[label], label


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text(PRECIOUS)
    return victim


def _untouched(folder: Path, names: list[str], victim: Path) -> None:
    assert victim.read_text() == PRECIOUS
    for name in names:
        assert (folder / name).is_symlink(), f"{name}: the planted link was replaced or used"


def _folder_of_another_user(xdg: Path) -> Path:
    folder = xdg / "envcheck"
    folder.mkdir(parents=True)
    os.chown(folder, OTHER, OTHER)
    folder.chmod(0o777)
    return folder


def _group_writable_folder(xdg: Path) -> Path:
    folder = xdg / "envcheck"
    folder.mkdir(parents=True)
    folder.chmod(0o770)  # root's, but anyone in the group can plant a name
    return folder


def _world_writable_folder(xdg: Path) -> Path:
    folder = xdg / "envcheck"
    folder.mkdir(parents=True)
    folder.chmod(0o1777)  # sticky, like /tmp: still not a private cache folder
    return folder


def _above_owned_by_another_user(xdg: Path) -> Path:
    xdg.mkdir()
    os.chown(xdg, OTHER, OTHER)  # the owner of the folder above can swap the cache folder
    folder = xdg / "envcheck"
    folder.mkdir(mode=0o700)
    return folder


def _above_group_writable(xdg: Path) -> Path:
    xdg.mkdir()
    xdg.chmod(0o775)  # a group-writable home: the group can rename ~/.cache
    folder = xdg / "envcheck"
    folder.mkdir(mode=0o700)
    return folder


def _through_another_users_link(xdg: Path) -> Path:
    real = xdg.parent / "real-cache"
    real.mkdir(mode=0o700)
    xdg.symlink_to(real)
    os.lchown(xdg, OTHER, OTHER)  # it could point anywhere, at any time
    folder = real / "envcheck"
    folder.mkdir(mode=0o700)
    return folder


@pytest.mark.parametrize(
    "make_folder",
    [
        _folder_of_another_user,
        _group_writable_folder,
        _world_writable_folder,
        _above_owned_by_another_user,
        _above_group_writable,
        _through_another_users_link,
    ],
)
def test_a_cache_folder_others_can_change_is_not_used(
    make_folder: Callable[[Path], Path],
    names: list[str],
    expected: dict[str, str],
    tmp_path: Path,
) -> None:
    victim = _victim(tmp_path)
    xdg = tmp_path / "xdg"
    folder = make_folder(xdg)
    _plant_links(folder, names, victim, OTHER)
    _answers_right(xdg, expected)
    _untouched(folder, names, victim)
    assert not [p for p in folder.iterdir() if not p.is_symlink()], "an entry was written there"


def test_a_link_at_an_entry_name_is_replaced_not_written_through(
    names: list[str], expected: dict[str, str], tmp_path: Path
) -> None:
    """Even in the user's own folder: the link is replaced by the entry, its target untouched."""
    victim = _victim(tmp_path)
    xdg = tmp_path / "xdg"
    folder = xdg / "envcheck"
    folder.mkdir(parents=True, mode=0o700)
    _plant_links(folder, names, victim, 0)
    _answers_right(xdg, expected)
    assert victim.read_text() == PRECIOUS
    for name in names:
        entry = folder / name
        assert not entry.is_symlink() and entry.is_file(), name


def test_a_cache_folder_is_created_private_and_then_used(
    expected: dict[str, str], tmp_path: Path
) -> None:
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)  # a shared /tmp: others may add names, not move or replace ours
    xdg = shared / "alice" / "cache"
    _answers_right(xdg, expected)
    for made in (shared / "alice", xdg, xdg / "envcheck"):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700, made
    assert list((xdg / "envcheck").glob("*.json")), "the cache was not used"
    _answers_right(xdg, expected)  # read back


def _add_a_pin(data: Any) -> bool:
    """Every TensorFlow release's install command gains a requirement of the editor's."""
    rows = [d for d in walk(data) if isinstance(d, dict) and "gpu_package" in d]
    for row in rows:
        row["install_pins"] = [*row.get("install_pins", []), "totally-not-malware>=1"]
    return bool(rows)


def _blind_literals(data: Any) -> bool:
    """The literals entry maps each pattern to the words a line must hold to be looked at."""
    changed = False
    for key, value in data.items() if isinstance(data, dict) else ():
        if "\t" in key and isinstance(value, list) and value:
            data[key] = ["no line holds this"]
            changed = True
    return changed


def test_an_edited_entry_changes_no_answer(expected: dict[str, str], tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    for command in (RECOMMEND, EXPLAIN):
        run(command, ENVCHECK_CACHE_DIR=str(folder))
    assert edit_entries(folder, _add_a_pin) == 1
    assert edit_entries(folder, _blind_literals) == 1
    recommended = run(RECOMMEND, ENVCHECK_CACHE_DIR=str(folder))
    assert "totally-not-malware" not in recommended.stdout
    assert recommended.stdout == expected["recommend"]
    explained = run(EXPLAIN, ENVCHECK_CACHE_DIR=str(folder))
    assert explained.stdout == expected["explain"]


def test_matrix_validate_checks_the_files_not_an_entry(tmp_path: Path) -> None:
    matrix = tmp_path / "matrix"
    matrix.mkdir()
    for source in bundled_matrix_dir().glob("*.toml"):
        (matrix / source.name).write_bytes(source.read_bytes())
    tensorflow = matrix / "tensorflow.toml"
    text = tensorflow.read_text(encoding="utf-8")
    tensorflow.write_text(text.replace("[[release]]\n", "[[release]]\nbogus = 1\n", 1))
    folder = tmp_path / "cache"
    command = ["matrix", "validate", "--matrix", str(matrix)]
    first = run(command, ENVCHECK_CACHE_DIR=str(folder))
    assert first.returncode == 1 and "bogus" in first.stdout, first.stdout

    def drop_bogus(data: Any) -> bool:
        rows = [d for d in walk(data) if isinstance(d, dict) and "bogus" in d]
        for row in rows:
            del row["bogus"]
        return bool(rows)

    assert edit_entries(folder, drop_bogus) == 1  # the entry now says the file is fine
    again = run(command, ENVCHECK_CACHE_DIR=str(folder))
    assert again.returncode == 1 and "bogus" in again.stdout, again.stdout
