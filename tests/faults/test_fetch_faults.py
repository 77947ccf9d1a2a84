"""The fault suite of `envcheck fetch` (issue 16: nothing destroyed, nothing hung, nothing
unbounded).

Each test drives a real index on the loopback interface (tests/index_server.py) into one way of
misbehaving, or the wheelhouse into one bad state, and checks that fetch ends with one clear line
and its documented exit code, keeps nothing half-written, and loses nothing it had: two fetches
into one wheelhouse, a body longer than announced or endless, a trickle, a signal mid-download, a
digest that failed, a name that does not resolve, 401/403, a redirect loop, a bad port or IPv6
literal, an unwritable --dest. Nothing is mocked and nothing leaves this machine: the host that
does not resolve is under the reserved `.invalid` TLD.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from envcheck.acquire.wheelhouse_fetch import fetch_wheelhouse
from envcheck.index.config import IndexLocation, resolve_index
from envcheck.index.errors import DownloadsFailedError
from envcheck.index.http import RetryPolicy, Timeouts
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from tests.in_process import Result
from tests.index_server import (
    FaultyIndex,
    ServedFile,
    faulty_index,
    isolated_pip_environment,
    sha256_of,
)
from tests.test_fetch import TF, WIN_CP310, fetch_win_cp310, run_cli

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
WIN_CP311 = f"tensorflow-{TF}-cp311-cp311-win_amd64.whl"
MAC_CP311 = f"tensorflow-{TF}-cp311-cp311-macosx_12_0_arm64.whl"
SIZE = 300_000


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


@pytest.fixture
def faulty() -> Iterator[FaultyIndex]:
    with faulty_index() as index:
        yield index


def _blob(size: int, seed: str = "x") -> bytes:
    block = (seed.encode() * 64)[:64]
    return (block * (size // 64 + 1))[:size]


def _serve(index: FaultyIndex, name: str = WIN_CP310, **faults: Any) -> ServedFile:
    return index.add(ServedFile(name, _blob(SIZE, name), **faults))


def _index(url: str) -> IndexLocation:
    return resolve_index(url, environ={}, files=[])


def _fetch(
    matrix: Matrix,
    dest: Path,
    index: FaultyIndex,
    platforms: tuple[str, ...] = ("win_amd64",),
    python: str = "3.10",
    **options: Any,
) -> Any:
    options.setdefault("retry", RetryPolicy(attempts=2, sleep=lambda _: None))
    options.setdefault("timeouts", Timeouts(connect=2, read=5))
    return fetch_wheelhouse(
        matrix,
        dest,
        _index(index.url),
        spec=TF,
        platforms=list(platforms),
        python=python,
        **options,
    )


def _two_targets(dest: Path, index_url: str, *extra: str) -> Result:
    return run_cli(
        "--dest", str(dest), "--tensorflow", TF, "--platform", "win_amd64",
        "--platform", "macosx_12_0_arm64", "--python-version", "3.11", "--index-url", index_url,
        *extra,
    )  # fmt: skip


def _one_line(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "internal error" not in result.stderr
    return lines[0]


def _names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def _parts(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.part"))


def _manifest(directory: Path) -> dict[str, dict[str, Any]]:
    data = json.loads((directory / "wheelhouse.json").read_text())
    return {entry["file"]: entry for entry in data["files"]}


class _Peak:
    """A Progress that remembers the most bytes one download had written at any time."""

    def __init__(self) -> None:
        self.bytes: dict[str, int] = {}
        self.peak = 0

    def start(self, name: str, total: int | None) -> None:  # noqa: ARG002 - Progress protocol
        self.bytes.setdefault(name, 0)

    def advance(self, name: str, nbytes: int) -> None:
        self.bytes[name] = self.bytes.get(name, 0) + nbytes
        self.peak = max(self.peak, self.bytes[name])

    def finish(self, name: str) -> None:
        pass


# --- two fetches into one wheelhouse -----------------------------------------------------------


def test_two_fetches_into_one_dest_keep_both_manifest_entries(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    _serve(faulty, WIN_CP311, delay=0.5)  # the first fetch is still downloading ...
    _serve(faulty, MAC_CP311)
    first_error: list[BaseException] = []

    def first() -> None:
        try:
            _fetch(matrix, tmp_path, faulty, ("win_amd64",), "3.11")
        except BaseException as exc:  # handed to the test thread
            first_error.append(exc)

    thread = threading.Thread(target=first)
    thread.start()
    deadline = time.monotonic() + 10
    while not faulty.file_requests(WIN_CP311) and time.monotonic() < deadline:
        time.sleep(0.01)
    second = run_cli(  # ... when the second one starts
        "--dest", str(tmp_path), "--tensorflow", TF, "--platform", "macosx_12_0_arm64",
        "--python-version", "3.11", "--index-url", faulty.url,
    )  # fmt: skip
    thread.join(timeout=20)
    assert not first_error
    assert second.exit_code == EXIT_OK, second.stderr
    assert set(_manifest(tmp_path)) == {WIN_CP311, MAC_CP311}
    assert run_cli("--verify", str(tmp_path)).exit_code == EXIT_OK
    assert _names(tmp_path) == sorted([MAC_CP311, WIN_CP311, "wheelhouse.json"])


# --- bodies too long, endless, trickling -------------------------------------------------------


def test_an_endless_body_of_unknown_size_is_cut_off_and_deleted(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    faulty.json_enabled = False  # PEP 503 pages list no size ...
    _serve(faulty, endless=True)  # ... and the server announces none
    from envcheck.index.limits import DownloadLimits  # noqa: PLC0415 - new in issue 16

    limits = DownloadLimits(max_unknown_bytes=1_000_000)
    with pytest.raises(DownloadsFailedError, match=r"more than the 1000000 bytes") as failed:
        _fetch(matrix, tmp_path, faulty, limits=limits)
    assert "deleted" in str(failed.value)
    assert _parts(tmp_path) == []


def test_a_body_longer_than_its_content_length_is_never_written_past_it(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    # Content-Length announces a small gzip stream that inflates to 32 MB: what counts is the
    # bytes on the wire, as pip counts them, so at most the announced length is ever written.
    served = _serve(faulty, size_listed=False, gzip_bomb=32_000_000)
    peak = _Peak()
    with pytest.raises(DownloadsFailedError, match=r"does not match"):
        _fetch(matrix, tmp_path, faulty, progress=peak)
    assert served.requests >= 1
    assert 0 < peak.peak < 1_000_000
    assert _parts(tmp_path) == []


def test_bytes_past_the_content_length_are_never_written(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    # A guard (http.client already stops at Content-Length): the excess never reaches the file.
    faulty.json_enabled = False  # no size on the page: Content-Length is all there is
    served = _serve(faulty, extra_bytes=5_000_000)
    _fetch(matrix, tmp_path, faulty)
    assert (tmp_path / WIN_CP310).read_bytes() == served.data


def test_a_trickling_server_meets_the_per_file_deadline(
    faulty: FaultyIndex, tmp_path: Path
) -> None:
    _serve(faulty, trickle=(1000, 0.05))  # 300 kB at 20 kB/s would take 15 s
    started = time.monotonic()
    result = fetch_win_cp310(tmp_path, faulty.url, "--deadline", "0.5", "--timeout", "5")
    assert result.exit_code == EXIT_FAILED
    line = _one_line(result)
    assert "did not finish within its 0.5 s deadline" in line
    assert time.monotonic() - started < 4
    assert len(_parts(tmp_path)) == 1  # kept: the next run resumes it


def test_the_deadline_also_comes_from_the_environment(
    faulty: FaultyIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serve(faulty, trickle=(1000, 0.05))
    monkeypatch.setattr(
        "tests.in_process.isolated_pip_environment",
        lambda: {**isolated_pip_environment(), "ENVCHECK_FETCH_DEADLINE": "0.5"},
    )
    started = time.monotonic()
    result = fetch_win_cp310(tmp_path, faulty.url, "--timeout", "5")
    assert result.exit_code == EXIT_FAILED
    assert "0.5 s deadline" in _one_line(result)
    assert time.monotonic() - started < 4


def test_the_default_deadline_scales_with_the_size_from_a_floor() -> None:
    from envcheck.index.limits import DownloadLimits  # noqa: PLC0415 - new in issue 16

    limits = DownloadLimits()
    assert limits.deadline_for(None) == limits.floor_s
    assert limits.deadline_for(1000) == limits.floor_s
    assert limits.deadline_for(4_000_000_000) > 10 * limits.floor_s  # a multi-GB wheel
    assert DownloadLimits(deadline=7).deadline_for(4_000_000_000) == 7


# --- .part files: resumable across runs, stale ones cleaned, signals ---------------------------


def test_a_failed_run_leaves_a_part_that_the_next_run_resumes(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    served = _serve(faulty, cut_after=50_000, cut_times=2)
    with pytest.raises(DownloadsFailedError, match="broke off"):
        _fetch(matrix, tmp_path, faulty)
    assert len(_parts(tmp_path)) == 1
    _fetch(matrix, tmp_path, faulty)
    third = faulty.file_requests(WIN_CP310)[2]
    assert int(third.headers["Range"].removeprefix("bytes=").rstrip("-")) == 100_000
    assert (tmp_path / WIN_CP310).read_bytes() == served.data
    assert _names(tmp_path) == sorted([WIN_CP310, "wheelhouse.json"])


def test_a_part_of_another_version_is_not_resumed(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    served = _serve(faulty, cut_after=50_000, cut_times=2)
    with pytest.raises(DownloadsFailedError):
        _fetch(matrix, tmp_path, faulty)
    served.data = _blob(SIZE, "a new upload of the same name")  # the index's digest changes
    _fetch(matrix, tmp_path, faulty)
    assert "Range" not in faulty.file_requests(WIN_CP310)[-1].headers
    assert sha256_of(tmp_path / WIN_CP310) == served.sha256
    assert _parts(tmp_path) == []


def test_stale_part_files_are_cleaned_on_the_next_run(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    _serve(faulty)
    stale = [
        tmp_path / f".{WIN_CP310}.k3j2h1x0.part",  # an older envcheck's random name
        tmp_path / f".gone-1.0-py3-none-any.whl.{'ab' * 8}.part",  # a file no longer planned
    ]
    for path in stale:
        path.write_bytes(b"junk")
    (tmp_path / ".envcheck-pip-x1y2z3").mkdir()  # pip's directory of a killed --with-deps run
    _fetch(matrix, tmp_path, faulty)
    assert _names(tmp_path) == sorted([WIN_CP310, "wheelhouse.json"])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_signal_mid_download_leaves_a_resumable_part_and_verify_says_incomplete(
    faulty: FaultyIndex, tmp_path: Path, signum: int
) -> None:
    served = _serve(faulty, trickle=(10_000, 0.05))
    command = [
        sys.executable, "-m", "envcheck", "fetch", "--dest", str(tmp_path), "--tensorflow", TF,
        "--platform", "win_amd64", "--python-version", "3.10", "--index-url", faulty.url,
    ]  # fmt: skip
    process = subprocess.Popen(
        command, env=isolated_pip_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 20
    while not any(p.stat().st_size >= 20_000 for p in _parts(tmp_path)):
        assert process.poll() is None and time.monotonic() < deadline, "no download started"
        time.sleep(0.01)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=20)
    # Handled signals exit 128 + the signal (docs/exit-codes.md); SIGKILL cannot be handled.
    handled = {signal.SIGINT: 130, signal.SIGTERM: 143}
    assert process.returncode == handled.get(signal.Signals(signum), -signum), stderr
    assert len(_parts(tmp_path)) == 1

    verify = run_cli("--verify", str(tmp_path))
    assert verify.exit_code == EXIT_FAILED
    assert f"INCOMPLETE  {WIN_CP310}" in verify.stdout
    assert "MISMATCH" not in verify.stdout and "EXTRA" not in verify.stdout

    served.trickle = None
    again = fetch_win_cp310(tmp_path, faulty.url)
    assert again.exit_code == EXIT_OK, again.stderr
    resumed = faulty.file_requests(WIN_CP310)[-1]
    assert int(resumed.headers["Range"].removeprefix("bytes=").rstrip("-")) >= 20_000
    assert (tmp_path / WIN_CP310).read_bytes() == served.data
    assert run_cli("--verify", str(tmp_path)).exit_code == EXIT_OK
    assert _names(tmp_path) == sorted([WIN_CP310, "wheelhouse.json"])


# --- the manifest records the plan ------------------------------------------------------------


def test_verify_fails_when_a_planned_wheel_failed_its_digest(
    faulty: FaultyIndex, tmp_path: Path
) -> None:
    _serve(faulty, WIN_CP311, listed_sha256="0" * 64)
    _serve(faulty, MAC_CP311)
    result = _two_targets(tmp_path, faulty.url)
    assert result.exit_code == EXIT_FAILED
    assert "does not match the index's" in _one_line(result)
    entries = _manifest(tmp_path)
    assert {name: entry["status"] for name, entry in entries.items()} == {
        WIN_CP311: "failed",
        MAC_CP311: "downloaded",
    }
    assert entries[WIN_CP311]["sha256"] == "0" * 64  # what was planned
    verify = run_cli("--verify", str(tmp_path))
    assert verify.exit_code == EXIT_FAILED
    assert f"FAILED      {WIN_CP311}" in verify.stdout


# --- network and index failures named as such ------------------------------------------------


@pytest.mark.parametrize("with_deps", [False, True], ids=["direct", "with-deps"])
def test_a_name_that_does_not_resolve_is_reported_as_such(tmp_path: Path, with_deps: bool) -> None:
    extra = ("--with-deps",) if with_deps else ()
    result = fetch_win_cp310(tmp_path / "w", "http://no-such-index.invalid/simple/", *extra)
    assert result.exit_code == EXIT_FAILED
    line = _one_line(result)
    assert "cannot resolve host 'no-such-index.invalid'" in line
    assert "No matching distribution" not in line


@pytest.mark.parametrize("status", [401, 403])
@pytest.mark.parametrize("with_deps", [False, True], ids=["direct", "with-deps"])
def test_a_refused_index_is_reported_as_such(
    faulty: FaultyIndex, tmp_path: Path, status: int, with_deps: bool
) -> None:
    _serve(faulty)
    faulty.page_status = status
    extra = ("--with-deps",) if with_deps else ()
    result = fetch_win_cp310(tmp_path, faulty.url, *extra)
    assert result.exit_code == EXIT_FAILED
    line = _one_line(result)
    assert f"the index refused access (HTTP {status})" in line
    assert "check the credentials in pip's configuration" in line
    assert "No matching distribution" not in line


def test_a_refused_file_is_reported_as_such(faulty: FaultyIndex, tmp_path: Path) -> None:
    _serve(faulty, status=403)
    result = fetch_win_cp310(tmp_path, faulty.url)
    assert result.exit_code == EXIT_FAILED
    assert "the index refused access (HTTP 403)" in _one_line(result)


def test_a_redirect_loop_is_one_line_and_exit_1(faulty: FaultyIndex, tmp_path: Path) -> None:
    _serve(faulty)
    faulty.redirect_loop = True
    result = fetch_win_cp310(tmp_path, faulty.url)
    assert result.exit_code == EXIT_FAILED
    assert "redirects in a loop" in _one_line(result)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://127.0.0.1:99999/simple", "port 99999 is not a port"),
        ("http://[::1:8080/simple", "is not a valid URL"),
        ("http://[zz]:80/simple", "is not a valid URL"),
    ],
)
def test_a_malformed_index_url_is_a_usage_error(tmp_path: Path, url: str, message: str) -> None:
    result = fetch_win_cp310(tmp_path / "w", url)
    assert result.exit_code == EXIT_USAGE
    assert message in _one_line(result)


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_an_ipv6_literal_index_url_works(tmp_path: Path) -> None:
    with faulty_index("::1") as index:
        served = _serve(index)
        assert index.url.startswith("http://[::1]:")
        result = fetch_win_cp310(tmp_path, index.url.rstrip("/"))
    assert result.exit_code == EXIT_OK, result.stderr
    assert (tmp_path / WIN_CP310).read_bytes() == served.data


# --- the wheelhouse directory -----------------------------------------------------------------


def _unwritable_directory(tmp_path: Path) -> Path:
    if sys.platform == "win32":
        pytest.skip("no directory is reliably unwritable on Windows")
    if os.geteuid() != 0:
        directory = tmp_path / "read-only"
        directory.mkdir()
        directory.chmod(0o555)
        return directory
    if sys.platform.startswith("linux"):
        return Path("/sys")  # sysfs refuses new files even to root
    pytest.skip("root writes everywhere")


def test_an_unwritable_dest_is_said_once(faulty: FaultyIndex, tmp_path: Path) -> None:
    _serve(faulty, WIN_CP311)
    _serve(faulty, MAC_CP311)
    dest = _unwritable_directory(tmp_path)
    result = _two_targets(dest, faulty.url)
    assert result.exit_code == EXIT_USAGE
    line = _one_line(result)
    assert line.count(str(dest)) == 1 and "cannot be written" in line
    assert not [name for name in _names(dest) if name.startswith(".envcheck")]
