"""Links in `fetch --dest` are never followed (issue 24, 4).

A `.part` planted as a symlink to a file outside made fetch overwrite that file with the wheel
and leave the "wheel" a link to it; a dangling `wheelhouse.json` or `.envcheck-fetch.lock`
link created its target outside --dest. Each file of the wheelhouse is opened without following
links now, and a link where envcheck keeps a file is one line naming it, exit 2, with the file
outside untouched (or never created).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from envcheck.atomic_file import write_atomically
from envcheck.errors import InputError
from envcheck.index import download
from envcheck.index.download import part_name
from tests.index_server import FaultyIndex, ServedFile, faulty_index
from tests.test_fetch import WIN_CP310, fetch_win_cp310, run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges there")

EXIT_OK, EXIT_USAGE = 0, 2
DATA = b"wheel-bytes " * 25_000
OUTSIDE_TEXT = "a file of the user's, outside the wheelhouse\n"


@pytest.fixture
def index() -> Iterator[FaultyIndex]:
    with faulty_index() as served:
        served.add(ServedFile(WIN_CP310, DATA))
        yield served


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    dest, outside = tmp_path / "wheelhouse", tmp_path / "outside"
    dest.mkdir()
    outside.mkdir()
    return dest, outside


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr
    return lines[0]


def _refused(result_stderr: str, exit_code: int, name: str) -> None:
    assert exit_code == EXIT_USAGE, result_stderr
    line = _one_line(result_stderr)
    assert repr(name) in line and "symbolic link" in line


def test_a_part_planted_as_a_link_never_writes_through_it(
    index: FaultyIndex, dirs: tuple[Path, Path]
) -> None:
    dest, outside = dirs
    victim = outside / "victim.txt"
    victim.write_text(OUTSIDE_TEXT)
    part = dest / part_name(WIN_CP310, hashlib.sha256(DATA).hexdigest())
    part.symlink_to(victim)

    result = fetch_win_cp310(dest, index.url)
    _refused(result.stderr, result.exit_code, part.name)
    assert victim.read_text() == OUTSIDE_TEXT
    assert part.is_symlink()  # named, not silently removed
    assert not (dest / WIN_CP310).exists() and not (dest / WIN_CP310).is_symlink()
    assert index.file_requests(WIN_CP310) == []  # refused before any download

    part.unlink()
    again = fetch_win_cp310(dest, index.url)
    assert again.exit_code == EXIT_OK, again.stderr
    assert not (dest / WIN_CP310).is_symlink()
    assert (dest / WIN_CP310).read_bytes() == DATA


@pytest.mark.parametrize("name", ["wheelhouse.json", ".envcheck-fetch.lock"])
def test_a_dangling_link_never_creates_its_target_outside(
    index: FaultyIndex, dirs: tuple[Path, Path], name: str
) -> None:
    dest, outside = dirs
    target = outside / "created-by-envcheck"
    (dest / name).symlink_to(target)

    result = fetch_win_cp310(dest, index.url)
    _refused(result.stderr, result.exit_code, name)
    assert not target.exists()
    assert (dest / name).is_symlink()


def test_a_manifest_that_links_elsewhere_is_neither_read_nor_replaced(
    index: FaultyIndex, dirs: tuple[Path, Path]
) -> None:
    dest, outside = dirs
    other = outside / "wheelhouse.json"
    other.write_text(json.dumps({"schema": "envcheck.wheelhouse/2", "files": []}))
    before = other.read_bytes()
    (dest / "wheelhouse.json").symlink_to(other)

    for result in (fetch_win_cp310(dest, index.url), run_cli("--verify", str(dest))):
        _refused(result.stderr, result.exit_code, "wheelhouse.json")
    assert other.read_bytes() == before


def test_a_wheel_that_is_a_link_is_named_as_one(
    index: FaultyIndex, dirs: tuple[Path, Path]
) -> None:
    dest, outside = dirs
    assert fetch_win_cp310(dest, index.url).exit_code == EXIT_OK
    real = outside / WIN_CP310
    (dest / WIN_CP310).rename(real)
    (dest / WIN_CP310).symlink_to(real)  # the same bytes, through a link

    verify = run_cli("--verify", str(dest))
    _refused(verify.stderr, verify.exit_code, WIN_CP310)
    result = fetch_win_cp310(dest, index.url)
    _refused(result.stderr, result.exit_code, WIN_CP310)
    assert real.read_bytes() == DATA


def test_a_link_planted_after_the_check_is_still_not_followed(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open itself refuses a link (O_NOFOLLOW): the check before it only says so early."""
    dest, outside = dirs
    victim = outside / "victim.txt"
    victim.write_text(OUTSIDE_TEXT)
    part = dest / ".x.whl.0123456789abcdef.part"
    part.symlink_to(victim)
    monkeypatch.setattr(download, "refuse_link", lambda _: None)  # the race: checked, then
    with pytest.raises(InputError, match="symbolic link"):
        download._open_part(part, dest / "x.whl")
    assert victim.read_text() == OUTSIDE_TEXT


def test_a_part_with_a_second_hard_link_is_refused(dirs: tuple[Path, Path]) -> None:
    dest, outside = dirs
    victim = outside / "victim.txt"
    victim.write_text(OUTSIDE_TEXT)
    part = dest / ".x.whl.0123456789abcdef.part"
    os.link(victim, part)
    with pytest.raises(InputError, match="other hard links"):
        download._open_part(part, dest / "x.whl")
    assert victim.read_text() == OUTSIDE_TEXT


def test_the_atomic_writer_refuses_a_link_where_it_keeps_its_own_file(
    dirs: tuple[Path, Path],
) -> None:
    dest, outside = dirs
    victim = outside / "victim.txt"
    victim.write_text(OUTSIDE_TEXT)
    (dest / "own.json").symlink_to(victim)
    with pytest.raises(InputError, match=r"'own\.json' is a symbolic link"):
        write_atomically(dest / "own.json", "{}", option="--dest", follow_links=False)
    assert victim.read_text() == OUTSIDE_TEXT
    assert sorted(p.name for p in dest.iterdir()) == ["own.json"]  # no temporary left behind
    write_atomically(dest / "new.json", "{}", option="--dest", follow_links=False)
    assert (dest / "new.json").read_text() == "{}"
