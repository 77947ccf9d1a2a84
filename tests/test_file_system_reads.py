"""probe/file_system's bounded reads: the first `limit` bytes of a regular file, whatever the
size the file reported when it was opened (it may grow while it is read)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from envcheck.probe.file_system import read_bytes_limited, read_text_limited, read_up_to


@pytest.mark.parametrize(("size", "limit"), [(0, 10), (10, 10), (10, 4), (200_000, 100_000)])
def test_a_regular_file_gives_its_first_limit_bytes(tmp_path: Path, size: int, limit: int) -> None:
    data = bytes(i % 251 for i in range(size))
    path = tmp_path / "RECORD"
    path.write_bytes(data)
    assert read_bytes_limited(path, limit) == data[:limit]
    assert read_text_limited(path, limit) == data[:limit].decode("utf-8", errors="replace")


@pytest.mark.parametrize("told", [0, 5, 70_000, 10**9])
def test_the_size_told_only_sizes_the_pieces(told: int) -> None:
    # A file that grew after its size was read, or one that shrank: the bytes up to the limit
    # are read either way.
    data = b"x" * 150_000
    assert read_up_to(io.BytesIO(data), 140_000, told) == data[:140_000]
    assert read_up_to(io.BytesIO(data), 10**6, told) == data


def test_no_regular_file_gives_none(tmp_path: Path) -> None:
    assert read_bytes_limited(tmp_path, 10) is None
    assert read_bytes_limited(tmp_path / "missing", 10) is None
