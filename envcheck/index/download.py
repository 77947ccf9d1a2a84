"""Download listed files into a directory: verified, resumable, retried, concurrent, bounded.

Each file streams into a temporary name in the destination (`.NAME.XXXX.part`) while it is
hashed, and is renamed to its own name only when its digest equals the index's; otherwise the
temporary file is deleted and nothing is left behind. A connection that breaks off resumes with
an HTTP Range request (If-Range guards against a file that changed meanwhile) and starts over
when the server ignores Range. A file already present with the right digest is kept as is.
This module prints nothing: progress goes to a `Progress` the caller passes.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

import requests

from envcheck.index.errors import (
    FetchError,
    HashMismatchError,
    IndexResponseError,
    IndexUnavailableError,
    NotFoundError,
    UnsafeFileNameError,
)
from envcheck.index.http import (
    TRANSIENT,
    HttpClient,
    RetryableStatusError,
    describe_failure,
    is_retryable_status,
    retry_after_seconds,
)
from envcheck.index.simple_api import IndexFile, check_file_name

# The digest checked against the index: SHA-256 where listed (PEP 503/691 recommend it), else a
# stronger one. md5 and sha1 are never trusted.
VERIFY_ALGORITHMS = ("sha256", "sha512", "sha384")
CHUNK_BYTES = 256 * 1024
DEFAULT_WORKERS = 4
PART_SUFFIX = ".part"


def _umask() -> int:
    # Read once, at import (before any download thread runs): os.umask can only be read by
    # setting it, which must not race with threads creating files.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# mkstemp creates 0600 files; a wheelhouse file gets the mode any new file would get.
FILE_MODE = 0o666 & ~_umask()


class Progress(Protocol):
    """Receives byte counts; `advance` may be negative when a download starts over."""

    def start(self, name: str, total: int | None) -> None: ...

    def advance(self, name: str, nbytes: int) -> None: ...

    def finish(self, name: str) -> None: ...


class _Hasher(Protocol):
    def update(self, data: bytes, /) -> None: ...

    def hexdigest(self) -> str: ...


class NoProgress:
    def start(self, name: str, total: int | None) -> None:
        pass

    def advance(self, name: str, nbytes: int) -> None:
        pass

    def finish(self, name: str) -> None:
        pass


@dataclass(frozen=True)
class Downloaded:
    filename: str
    path: Path
    sha256: str
    size: int
    url: str
    status: str  # "downloaded", or "present" when the right file was there already
    requests: int  # HTTP requests it took (1 unless retried or resumed)
    resumed: bool  # whether a Range request continued a broken transfer


class DownloadCancelledError(FetchError):
    """Another download failed badly or the user interrupted; this one stopped early."""


class _ShortBodyError(Exception):
    """The body ended before the size the index or the server announced."""


def verify_algorithm(file: IndexFile) -> tuple[str, str]:
    """(algorithm, expected hex digest) to check `file` against; IndexResponseError if none."""
    for algorithm in VERIFY_ALGORITHMS:
        digest = file.digest(algorithm)
        if digest:
            return algorithm, digest
    raise IndexResponseError(
        f"the index lists no SHA-256 (or SHA-384/512) digest for {file.filename} ({file.url}); "
        "envcheck fetch keeps only verified files: use an index that publishes digests"
    )


def file_digests(path: Path, algorithms: Sequence[str]) -> dict[str, str]:
    hashers = {a: hashlib.new(a) for a in algorithms}
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(CHUNK_BYTES), b""):
            for hasher in hashers.values():
                hasher.update(block)
    return {a: h.hexdigest() for a, h in hashers.items()}


def safe_target(dest: Path, filename: str, project: str = "") -> Path:
    """`dest/filename`, refusing any name that would land anywhere else."""
    name = check_file_name(filename, project or filename)
    target = dest / name
    if target.resolve().parent != dest.resolve():
        raise UnsafeFileNameError(f"the file name {filename!r} would leave {str(dest)!r}; refused")
    return target


def _content_range_start(value: str | None) -> int | None:
    match = re.match(r"\s*bytes\s+(\d+)-", value or "")
    return int(match.group(1)) if match else None


@dataclass
class _Transfer:
    """The state of one file's download across attempts."""

    out: IO[bytes]
    algorithm: str
    progress: Progress
    name: str
    written: int = 0
    requests: int = 0
    resumed: bool = False
    validator: str | None = None  # a strong ETag or Last-Modified, for If-Range
    started: bool = False  # whether progress.start was called (at the first answer)
    sha256: _Hasher = field(default_factory=hashlib.sha256)
    check: _Hasher | None = None

    def __post_init__(self) -> None:
        self.check = None if self.algorithm == "sha256" else hashlib.new(self.algorithm)

    def write(self, chunk: bytes) -> None:
        self.out.write(chunk)
        self.sha256.update(chunk)
        if self.check is not None:
            self.check.update(chunk)
        self.written += len(chunk)
        self.progress.advance(self.name, len(chunk))

    def restart(self) -> None:
        self.out.seek(0)
        self.out.truncate()
        self.progress.advance(self.name, -self.written)
        self.written = 0
        self.resumed = False
        self.sha256 = hashlib.sha256()
        self.check = None if self.algorithm == "sha256" else hashlib.new(self.algorithm)

    def digest(self) -> str:
        return (self.check or self.sha256).hexdigest()


def _accept_response(response: requests.Response, file: IndexFile, transfer: _Transfer) -> None:
    """Whether the body continues the partial file, replaces it, or the request is retried."""
    status = response.status_code
    if is_retryable_status(status):
        raise RetryableStatusError(status, retry_after_seconds(response.headers))
    if status == 404:
        raise NotFoundError(
            f"{file.filename}: HTTP 404 for {file.url}; the index lists the file but does not "
            "serve it"
        )
    if status == 206 and transfer.written:
        if _content_range_start(response.headers.get("Content-Range")) != transfer.written:
            transfer.restart()  # not the range asked for: start over
            raise RetryableStatusError(status, None)
        transfer.resumed = True
    elif status == 200:
        if transfer.written:  # the server ignored Range (or the file changed): start over
            transfer.restart()
        etag = response.headers.get("ETag", "")
        strong = etag and not etag.startswith("W/")
        transfer.validator = etag if strong else response.headers.get("Last-Modified")
    elif status == 416:  # nothing past our offset: the partial file is suspect
        transfer.restart()
        raise RetryableStatusError(status, None)
    else:
        raise IndexResponseError(f"{file.filename}: HTTP {status} for {file.url}")


def _body_chunks(response: requests.Response) -> Iterator[bytes]:
    """The body as it arrives, so that every byte received counts when the connection breaks
    (urllib3 2's read(amt) drops a partial chunk then; read1 returns what is there)."""
    read1 = getattr(response.raw, "read1", None)
    if read1 is None:  # urllib3 1.26: read(amt) already returns what arrived
        yield from response.iter_content(CHUNK_BYTES)
        return
    announced = response.headers.get("Content-Length", "")
    received = 0
    while True:
        chunk = read1(CHUNK_BYTES, decode_content=True)
        if not chunk:
            break
        received += len(chunk)
        yield chunk
    if announced.isdigit() and received < int(announced):
        raise _ShortBodyError(f"{received} of the {announced} bytes announced")


def _one_request(
    http: HttpClient, file: IndexFile, transfer: _Transfer, cancel: threading.Event
) -> None:
    """One GET (a Range request when bytes are already there); raises TRANSIENT to retry."""
    headers = {"Accept-Encoding": "identity"}
    if transfer.written:
        headers["Range"] = f"bytes={transfer.written}-"
        if transfer.validator:
            headers["If-Range"] = transfer.validator
    transfer.requests += 1
    with http.get(file.url, headers, stream=True) as response:
        _accept_response(response, file, transfer)
        if not transfer.started:
            length = response.headers.get("Content-Length", "")
            total = file.size
            if total is None and length.isdigit():
                total = transfer.written + int(length)
            transfer.progress.start(transfer.name, total)
            transfer.started = True
        for chunk in _body_chunks(response):
            if cancel.is_set():
                raise DownloadCancelledError(f"{file.filename}: stopped")
            transfer.write(chunk)
            if file.size is not None and transfer.written > file.size:
                raise HashMismatchError(
                    f"{file.filename}: the server sent more than the {file.size} bytes the "
                    f"index lists ({file.url}); the file was discarded"
                )
    if file.size is not None and transfer.written < file.size:
        raise _ShortBodyError(f"{transfer.written} of {file.size} bytes")


def _transfer_with_retries(
    http: HttpClient, file: IndexFile, transfer: _Transfer, cancel: threading.Event
) -> None:
    attempt = 0
    while True:
        attempt += 1
        try:
            _one_request(http, file, transfer, cancel)
            return
        except (*TRANSIENT, _ShortBodyError) as exc:
            if isinstance(exc, _ShortBodyError):
                reason = f"the body ended early ({exc})"
            else:
                reason = describe_failure(exc, http.timeouts)
            if attempt >= http.retry.attempts:
                raise IndexUnavailableError(
                    f"{file.filename}: {reason} at {file.url} (tried {attempt} time(s)); check "
                    "the network or the index, or try again later"
                ) from None
            http.retry.wait(
                attempt, exc.retry_after if isinstance(exc, RetryableStatusError) else None
            )


def download_file(
    http: HttpClient,
    file: IndexFile,
    dest: Path,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> Downloaded:
    """Fetch `file` into `dest` unless a verified copy is there; raise FetchError on failure."""
    progress = progress or NoProgress()
    cancel = cancel or threading.Event()
    if cancel.is_set():
        raise DownloadCancelledError(f"{file.filename}: not started")
    target = safe_target(dest, file.filename)
    algorithm, expected = verify_algorithm(file)
    if target.is_file():
        digests = file_digests(target, sorted({"sha256", algorithm}))
        if digests[algorithm] == expected.lower():
            return Downloaded(
                file.filename,
                target,
                digests["sha256"],
                target.stat().st_size,
                file.url,
                "present",
                0,
                False,
            )
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=PART_SUFFIX, dir=dest
        )
    except OSError as exc:
        raise FetchError(f"cannot write into {str(dest)!r}: {exc.strerror or exc}") from exc
    part = Path(temporary)
    try:
        with os.fdopen(handle, "w+b") as out:
            transfer = _Transfer(out, algorithm, progress, file.filename)
            _transfer_with_retries(http, file, transfer, cancel)
            if transfer.digest() != expected.lower() and transfer.resumed:
                # A resumed file may join two versions of it: fetch it whole once more.
                transfer.restart()
                _transfer_with_retries(http, file, transfer, cancel)
            actual = transfer.digest()
            if actual != expected.lower():
                raise HashMismatchError(
                    f"{file.filename}: {algorithm} {actual} does not match the index's "
                    f"{expected.lower()} ({file.url}); the file was discarded"
                )
            out.flush()
            os.fsync(out.fileno())
        part.chmod(FILE_MODE)
        part.replace(target)
        progress.finish(file.filename)
        return Downloaded(
            file.filename,
            target,
            transfer.sha256.hexdigest(),
            transfer.written,
            file.url,
            "downloaded",
            transfer.requests,
            transfer.resumed,
        )
    except OSError as exc:
        raise FetchError(f"cannot write {str(target)!r}: {exc.strerror or exc}") from exc
    finally:
        part.unlink(missing_ok=True)


def download_all(
    http: HttpClient,
    files: Sequence[IndexFile],
    dest: Path,
    progress: Progress | None = None,
    workers: int = DEFAULT_WORKERS,
) -> tuple[list[Downloaded], list[FetchError]]:
    """Download `files` with at most `workers` at a time; (done in input order, failures).

    One failure does not stop the others (what was verified is kept); an interruption
    (Ctrl-C) or a bug stops them all and leaves no temporary file.
    """
    cancel = threading.Event()
    results: dict[int, Downloaded] = {}
    failures: list[FetchError] = []
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="fetch") as pool:
        futures: list[Future[Downloaded]] = [
            pool.submit(download_file, http, file, dest, progress, cancel) for file in files
        ]
        try:
            for index, future in enumerate(futures):
                try:
                    results[index] = future.result()
                except DownloadCancelledError:
                    continue
                except FetchError as exc:
                    failures.append(exc)
        except BaseException:
            cancel.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return [results[i] for i in sorted(results)], failures
