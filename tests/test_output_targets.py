"""`-o`, `--constraints-out` and the manifest never destroy what they write onto (issue 16, 1).

Device nodes are made here with mknod (root on CI and here), never the machine's own /dev: a
character device with /dev/null's numbers (1, 3) and a FIFO, each in a temporary directory.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from envcheck.atomic_file import check_writable, write_atomically
from envcheck.errors import InputError

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.mark.skipif(not ROOT or not hasattr(os, "mknod"), reason="mknod needs root")
def test_a_device_is_written_in_place_not_replaced(tmp_path: Path) -> None:
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    assert check_writable(str(null)) == null
    write_atomically(null, "report\n")
    assert stat.S_ISCHR(null.stat().st_mode)  # still the device: nothing renamed over it
    assert list(tmp_path.iterdir()) == [null]  # no temporary file left beside it


@pytest.mark.skipif(not ROOT or not hasattr(os, "mknod"), reason="mknod needs root")
def test_a_full_device_is_one_clear_error(tmp_path: Path) -> None:
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # /dev/full: every write ENOSPC
    with pytest.raises(InputError, match="No space left on device"):
        write_atomically(full, "report\n")
    assert stat.S_ISCHR(full.stat().st_mode)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_gets_the_bytes_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_atomically(fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "doctor.txt"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "latest.txt"
    link.symlink_to(target)
    assert check_writable(str(link)) == link
    write_atomically(link, "new\n")
    assert link.is_symlink() and link.resolve() == target
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["doctor.txt"]


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "latest.txt"
    link.symlink_to(tmp_path / "made.txt")
    write_atomically(link, "first\n")
    assert link.is_symlink() and (tmp_path / "made.txt").read_text() == "first\n"
