"""Index pages have bounds: a size after decompression and a wall-clock deadline (issue 24, 3).

`get_small` read `response.content`: a 6 MB gzip page that inflates to 6 GB reached 3.9 GB of
memory, an endless chunked page ran until killed, a plain 300 MB page took 1.2 GB, and a page
that drips a byte at a time (each read well inside the read timeout) held a fetch for as long
as the server liked. Pages are streamed now, inflated a bounded step at a time and counted
after it, and all attempts at one page share a deadline (`--deadline`, else 10 minutes).

Each misbehaving page is served by the loopback index (tests/index_server.py), generated as it
is sent, and `envcheck fetch` runs as a real process under an address-space limit; the test
reads the child's peak memory (ru_maxrss) from wait4.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from envcheck.index.config import resolve_index
from envcheck.index.errors import IndexResponseError
from envcheck.index.http import HttpClient, RetryPolicy, Timeouts
from envcheck.index.simple_api import fetch_project
from tests.index_server import FaultyIndex, ServedFile, faulty_index, isolated_pip_environment
from tests.test_fetch import TF, WIN_CP310, fetch_win_cp310

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="measures the child's memory with Linux's wait4 and rlimits"
)

EXIT_OK, EXIT_FAILED = 0, 1
MAX_PAGE_BYTES = 64 * 1024 * 1024  # docs/failure-behaviour.md: a page is read up to 64 MiB
GIB = 1 << 30
ADDRESS_LIMIT = 2 * GIB  # the child dies of MemoryError past this instead of taking the machine
PEAK_LIMIT = 256 * (1 << 20)  # what a bounded read may reach: envcheck, plus one capped page
PEAK_FILE_VARIABLE = "ENVCHECK_TEST_PEAK_FILE"
# Runs envcheck's __main__ after lowering its own address-space limit (no preexec_fn: the
# test's index server runs threads, and forking with threads and then running Python is unsafe).
# The child writes its own peak (VmHWM: the high-water mark of its memory since exec) on the
# way out: the ru_maxrss that wait4 reports starts at the parent's size at fork on Linux, so in
# a full test run (a pytest of 256 MiB and more) it measured pytest, not envcheck.
LIMITED = f"""
import os, resource, runpy, sys
resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_LIMIT}, {ADDRESS_LIMIT}))
sys.argv = ['envcheck', *sys.argv[1:]]
try:
    runpy.run_module('envcheck', run_name='__main__', alter_sys=True)
finally:
    with open('/proc/self/status') as status, open(os.environ['{PEAK_FILE_VARIABLE}'], 'w') as out:
        out.write(next(line.split()[1] for line in status if line.startswith('VmHWM:')))
"""


@dataclass(frozen=True)
class Measured:
    exit_code: int
    stderr: str
    seconds: float
    peak_bytes: int


def _fetch_measured(dest: Path, index_url: str, *extra: str, timeout: float = 120) -> Measured:
    command = [
        sys.executable, "-c", LIMITED, "fetch", "--dest", str(dest), "--tensorflow", TF,
        "--platform", "win_amd64", "--python-version", "3.10", "--index-url", index_url, *extra,
    ]  # fmt: skip
    err = dest.parent / "stderr.txt"
    peak = dest.parent / "peak-kib.txt"
    environment = {**isolated_pip_environment(), PEAK_FILE_VARIABLE: str(peak)}
    with err.open("wb") as stream:
        began = time.monotonic()
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=stream, env=environment
        )
        timer = threading.Timer(timeout, process.kill)  # the old code never ended by itself
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
    # (Killed before its `finally`: ru_maxrss, which is never below the child's own peak.)
    peak_kib = int(peak.read_text()) if peak.exists() else usage.ru_maxrss
    return Measured(process.returncode, err.read_text(), time.monotonic() - began, peak_kib * 1024)


@pytest.fixture
def index() -> Iterator[FaultyIndex]:
    with faulty_index() as served:
        served.add(ServedFile(WIN_CP310, b"w" * 1000))
        yield served


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr[-3000:]
    assert "Traceback" not in stderr and "internal error" not in stderr
    return lines[0]


def _credentialed(index: FaultyIndex) -> str:
    return index.url.replace("http://", "http://someone:pa55word@")


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param({"page_gzip_bomb": 6 * GIB}, id="gzip-bomb-6GB"),
        pytest.param({"page_endless": True}, id="endless-chunked"),
        pytest.param({"page_size": 300_000_000}, id="plain-300MB"),
    ],
)
def test_a_page_past_the_cap_is_one_line_in_bounded_memory(
    index: FaultyIndex, tmp_path: Path, fault: dict[str, object]
) -> None:
    for key, value in fault.items():
        setattr(index, key, value)
    result = _fetch_measured(tmp_path / "w", _credentialed(index))
    assert result.exit_code == EXIT_FAILED, result.stderr[-3000:]
    line = _one_line(result.stderr)
    assert f"larger than the {MAX_PAGE_BYTES} bytes envcheck reads of one index page" in line
    assert index.url.replace("http://", ":****@") in line  # the index, named, redacted
    assert "pa55word" not in result.stderr
    assert ("gzip encoding is undone" in line) == ("page_gzip_bomb" in fault)
    assert result.peak_bytes < PEAK_LIMIT, f"{result.peak_bytes / 2**20:.0f} MiB"
    assert result.seconds < 60
    assert not (tmp_path / "w" / "wheelhouse.json").exists()


def test_a_redirect_with_an_endless_body_is_followed_without_reading_it(
    index: FaultyIndex, tmp_path: Path
) -> None:
    """requests reads a redirect's whole body before following it; envcheck follows redirects
    itself and never reads theirs."""
    index.redirect_bomb = True
    result = _fetch_measured(tmp_path / "w", index.url)
    assert result.exit_code == EXIT_OK, result.stderr[-3000:]
    assert (tmp_path / "w" / WIN_CP310).read_bytes() == b"w" * 1000
    assert result.peak_bytes < PEAK_LIMIT, f"{result.peak_bytes / 2**20:.0f} MiB"


def test_redirects_followed_by_envcheck_keep_the_credentials_on_the_index(
    index: FaultyIndex, tmp_path: Path
) -> None:
    with faulty_index() as elsewhere:
        elsewhere.add(ServedFile(WIN_CP310, b"w" * 1000))
        index.pages_elsewhere = elsewhere.root  # another port: another origin
        result = fetch_win_cp310(tmp_path, _credentialed(index))
    assert result.exit_code == EXIT_OK, result.stderr
    assert [r.status for r in index.requests if r.path.startswith("/simple/")] == [302]
    assert all("Authorization" in r.headers for r in index.requests)
    assert elsewhere.requests and not any("Authorization" in r.headers for r in elsewhere.requests)


def test_a_dripping_page_meets_the_deadline(index: FaultyIndex, tmp_path: Path) -> None:
    index.page_drip = (1, 0.1)  # every read is quick; the page would take minutes
    result = _fetch_measured(tmp_path / "w", index.url, "--deadline", "3", timeout=60)
    assert result.exit_code == EXIT_FAILED, result.stderr[-3000:]
    line = _one_line(result.stderr)
    assert "did not arrive within its 3 s deadline" in line and index.url in line
    assert "--deadline" in line
    assert result.seconds < 20


@pytest.mark.parametrize("drip", [None, (1, 0.0)], ids=["whole", "a-byte-at-a-time"])
@pytest.mark.parametrize("encoding", ["gzip", "deflate", "deflate-raw"])
def test_an_encoded_page_still_works(
    index: FaultyIndex, tmp_path: Path, encoding: str, drip: tuple[int, float] | None
) -> None:
    index.page_encoding, index.page_drip = encoding, drip
    result = fetch_win_cp310(tmp_path, index.url)
    assert result.exit_code == EXIT_OK, result.stderr
    page = next(r for r in index.requests if r.path.startswith("/simple/"))
    assert page.headers["Accept-Encoding"] == "gzip, deflate"


@pytest.mark.parametrize("encoding", ["br", "zstd", "gzip, gzip", "compress"])
def test_an_encoding_that_cannot_be_bounded_is_refused(
    index: FaultyIndex, tmp_path: Path, encoding: str
) -> None:
    index.page_encoding = encoding
    result = fetch_win_cp310(tmp_path, index.url)
    assert result.exit_code == EXIT_FAILED
    line = _one_line(result.stderr)
    assert f"Content-Encoding {encoding!r}, which envcheck does not read" in line


def test_a_page_that_does_not_inflate_is_one_error(index: FaultyIndex) -> None:
    index.page_encoding = "gzip-broken"  # says gzip, sends plain JSON
    client = HttpClient(
        resolve_index(index.url, environ={}, files=[]),
        Timeouts(connect=2, read=5),
        RetryPolicy(attempts=1, sleep=lambda _: None),
    )
    with client, pytest.raises(IndexResponseError, match="gzip encoding does not inflate"):
        fetch_project(client, "tensorflow")
