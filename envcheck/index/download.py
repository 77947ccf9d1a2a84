"""Download listed files into a directory: verified, resumable, retried, concurrent, bounded.

Each file streams into a hidden name in the destination, `.NAME.DIGEST16.part` (the first 16
hex digits of the digest the index lists), while it is hashed, and is renamed to its own name
only when its digest equals the index's. A connection that breaks off resumes with an HTTP Range
request (If-Range guards against a file that changed meanwhile) and starts over when the server
ignores Range. The `.part` outlives a failed or interrupted run (a timeout, the deadline, Ctrl-C,
SIGTERM, SIGKILL) and the next run resumes it: its name ties it to the digest it must end with,
its length must not pass the listed size, and the finished file is checked whole. What is proven
wrong (a digest mismatch, a body longer than the file) is deleted at once. Bytes are counted as
they come off the wire (never inflated by a Content-Encoding), and every file has a size cap and
an overall deadline (`limits.DownloadLimits`). A file already present with the right digest is
kept as is. This module prints nothing: progress goes to a `Progress` the caller passes.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

import requests

from envcheck.errors import InputError
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
    ShortBodyError,
    describe_failure,
    is_permanent,
    is_retryable_status,
    refused_access_message,
    retry_after_seconds,
    wire_chunks,
)
from envcheck.index.limits import DownloadLimits
from envcheck.index.simple_api import IndexFile, check_file_name
from envcheck.record import record

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


# A wheelhouse file gets the mode any new file would get, also when its `.part` came from a
# run under another umask.
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


@record
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


class BodyTooLongError(FetchError):
    """The server sent more than the file can hold; what it sent was deleted."""


class DeadlineError(FetchError):
    """A file did not finish within its overall deadline; its `.part` is kept to resume."""


@record
class FailedDownload:
    """One file that could not be fetched, and why."""

    file: IndexFile
    error: FetchError


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


# Opens a file in the wheelhouse as itself: a symlink planted at its name (by another user of a
# shared directory, or a careless script) fails with ELOOP instead of sending envcheck's bytes
# to whatever it points at. O_NONBLOCK: a FIFO there must not hang the open.
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def link_error(path: Path, what: str = "is a symbolic link") -> InputError:
    """A link (or other non-file) where the wheelhouse needs a regular file, named."""
    return InputError(
        f"--dest {str(path.parent)!r}: {path.name!r} {what}, where envcheck keeps a regular "
        "file of its own (writing through it could change a file outside the wheelhouse); "
        "remove it and run again"
    )


def refuse_link(path: Path) -> None:
    """InputError when `path` is there and is not a regular file itself (a symlink to one
    counts as a link); nothing when it is a regular file or missing."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return  # missing, or unreadable: the open that follows says why
    if stat.S_ISLNK(mode):
        raise link_error(path)
    if not stat.S_ISREG(mode):
        raise link_error(path, "is not a regular file")


def part_name(filename: str, expected_digest: str) -> str:
    """The hidden name a download of `filename` with `expected_digest` grows under."""
    return f".{filename}.{expected_digest.lower()[:16]}{PART_SUFFIX}"


def is_temporary(name: str) -> bool:
    """Whether `name` in a wheelhouse is a download in progress (or left by one)."""
    return name.startswith(".") and name.endswith(PART_SUFFIX)


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
    began: float = field(default_factory=time.monotonic)
    deadline_s: float = 0.0  # seconds from `began` the whole file may take
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

    def prime(self) -> None:
        """Take the bytes a previous run left in the file as already written."""
        self.out.seek(0)
        for block in iter(lambda: self.out.read(CHUNK_BYTES), b""):
            self.sha256.update(block)
            if self.check is not None:
                self.check.update(block)
            self.written += len(block)

    def remaining(self) -> float:
        return self.deadline_s - (time.monotonic() - self.began)

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
    if status in (401, 403):
        raise IndexResponseError(f"{file.filename}: {refused_access_message(status, file.url)}")
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


def _deadline_error(file: IndexFile, transfer: _Transfer) -> DeadlineError:
    total = f" of {file.size}" if file.size is not None else ""
    return DeadlineError(
        f"{file.filename}: did not finish within its {transfer.deadline_s:g} s deadline "
        f"({transfer.written}{total} bytes arrived from {file.url}); the partial download is "
        "kept and the next run resumes it (--deadline or ENVCHECK_FETCH_DEADLINE sets the limit)"
    )


def _cap(
    file: IndexFile, response: requests.Response, transfer: _Transfer, limits: DownloadLimits
) -> tuple[int, str, bool]:
    """The most bytes the file may have once this response's body is in, who says so, and
    whether that is the file's size (not just a ceiling)."""
    if file.size is not None:
        return file.size, "the index lists", True
    length = response.headers.get("Content-Length", "")
    if length.isdigit():  # a 206 continues at transfer.written, a 200 has restarted at 0
        return transfer.written + int(length), "the server announced", True
    whose = "envcheck accepts for a file whose size neither the index nor the server states"
    return limits.max_unknown_bytes, whose, False


def _one_request(
    http: HttpClient,
    file: IndexFile,
    transfer: _Transfer,
    cancel: threading.Event,
    limits: DownloadLimits,
) -> None:
    """One GET (a Range request when bytes are already there); raises TRANSIENT to retry."""
    headers = {"Accept-Encoding": "identity"}
    if transfer.written:
        headers["Range"] = f"bytes={transfer.written}-"
        if transfer.validator:
            headers["If-Range"] = transfer.validator
    transfer.requests += 1
    read_timeout = min(http.timeouts.read, max(transfer.remaining(), 0.001))
    with http.get(file.url, headers, stream=True, read_timeout=read_timeout) as response:
        _accept_response(response, file, transfer)
        cap, whose, known = _cap(file, response, transfer, limits)
        if not transfer.started:
            total = cap if known else None
            if limits.deadline is None:  # the size is known now: scale the deadline to it
                transfer.deadline_s = limits.deadline_for(total)
            transfer.progress.start(transfer.name, total)
            transfer.progress.advance(transfer.name, transfer.written)
            transfer.started = True
        # The bytes on the wire, as pip keeps them: a wheel is never Content-Encoded on purpose,
        # and inflating one would let a small announced body grow without bound.
        for chunk in wire_chunks(response, CHUNK_BYTES):
            if cancel.is_set():
                raise DownloadCancelledError(f"{file.filename}: stopped")
            if transfer.written + len(chunk) > cap:
                raise BodyTooLongError(
                    f"{file.filename}: the server sent more than the {cap} bytes {whose} "
                    f"({file.url}); the partial file was deleted"
                )
            transfer.write(chunk)
            if transfer.remaining() <= 0:
                raise _deadline_error(file, transfer)
    if file.size is not None and transfer.written < file.size:
        raise ShortBodyError(f"{transfer.written} of {file.size} bytes")


def _transfer_with_retries(
    http: HttpClient,
    file: IndexFile,
    transfer: _Transfer,
    cancel: threading.Event,
    limits: DownloadLimits,
) -> None:
    attempt = 0
    while True:
        attempt += 1
        try:
            _one_request(http, file, transfer, cancel, limits)
            return
        except (*TRANSIENT, ShortBodyError) as exc:
            if transfer.remaining() <= 0:
                raise _deadline_error(file, transfer) from None
            if isinstance(exc, ShortBodyError):
                reason = f"the body ended early ({exc})"
            else:
                reason = describe_failure(exc, http.timeouts, file.url)
            if attempt >= http.retry.attempts or is_permanent(exc):
                raise IndexUnavailableError(
                    f"{file.filename}: {reason} at {file.url} (tried {attempt} time(s)); check "
                    "the network or the index, or try again later"
                ) from None
            after = exc.retry_after if isinstance(exc, RetryableStatusError) else None
            if http.retry.delay(attempt, after) >= transfer.remaining():
                raise _deadline_error(file, transfer) from None
            http.retry.wait(attempt, after)


def download_file(
    http: HttpClient,
    file: IndexFile,
    dest: Path,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    limits: DownloadLimits | None = None,
) -> Downloaded:
    """Fetch `file` into `dest` unless a verified copy is there; raise FetchError on failure."""
    progress = progress or NoProgress()
    cancel = cancel or threading.Event()
    limits = limits or DownloadLimits()
    if cancel.is_set():
        raise DownloadCancelledError(f"{file.filename}: not started")
    target = safe_target(dest, file.filename)
    algorithm, expected = verify_algorithm(file)
    refuse_link(target)  # a wheel that is a link to a file elsewhere is no wheel of this house
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
    part = dest / part_name(file.filename, expected)
    handle = _open_part(part, target)  # before the try: a refused link is never removed
    keep = False
    try:
        with handle as out:
            transfer = _Transfer(out, algorithm, progress, file.filename)
            transfer.deadline_s = limits.deadline_for(file.size)
            if file.size is not None and os.fstat(out.fileno()).st_size > file.size:
                out.truncate(0)  # longer than the file can be: not a prefix of it
            transfer.prime()
            keep = True  # from here on, what was written is worth resuming ...
            try:
                _transfer_with_retries(http, file, transfer, cancel, limits)
                if transfer.digest() != expected.lower() and transfer.resumed:
                    # A resumed file may join two versions of it: fetch it whole once more.
                    transfer.restart()
                    _transfer_with_retries(http, file, transfer, cancel, limits)
            except (BodyTooLongError, UnsafeFileNameError):
                keep = False  # ... unless it is proven wrong
                raise
            actual = transfer.digest()
            if actual != expected.lower():
                keep = False
                raise HashMismatchError(
                    f"{file.filename}: {algorithm} {actual} does not match the index's "
                    f"{expected.lower()} ({file.url}); the file was discarded"
                )
            out.flush()
            _chmod(out, part)
            os.fsync(out.fileno())
        part.replace(target)  # a rename replaces a link at `target`, never what it points at
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
        if not keep or _empty(part):
            part.unlink(missing_ok=True)


def _open_part(part: Path, target: Path) -> IO[bytes]:
    """The `.part` of `target`, opened for reading and appending, created when missing; never
    through a link (InputError naming it): a `.part` planted as a symlink made a fetch write
    the wheel into the file it pointed at. One with other hard links is refused alike."""
    refuse_link(part)
    try:
        handle = os.open(part, os.O_RDWR | os.O_CREAT | NO_FOLLOW, 0o666)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # a link planted since the check above
            raise link_error(part) from None
        raise FetchError(f"cannot write {str(target)!r}: {exc.strerror or exc}") from exc
    info = os.fstat(handle)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        os.close(handle)
        what = "has other hard links" if stat.S_ISREG(info.st_mode) else "is not a regular file"
        raise link_error(part, what)
    return os.fdopen(handle, "r+b")


def _chmod(out: IO[bytes], part: Path) -> None:
    """The wheel's mode, set on the file opened (not on whatever the name is by now)."""
    if hasattr(os, "fchmod"):
        os.fchmod(out.fileno(), FILE_MODE)
    else:  # pragma: no cover - Windows: no fchmod, and no symlink an unprivileged user plants
        part.chmod(FILE_MODE)


def _empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return True


def download_all(
    http: HttpClient,
    files: Sequence[IndexFile],
    dest: Path,
    progress: Progress | None = None,
    workers: int = DEFAULT_WORKERS,
    limits: DownloadLimits | None = None,
) -> tuple[list[Downloaded], list[FailedDownload]]:
    """Download `files` with at most `workers` at a time; (done in input order, failures).

    One failure does not stop the others (what was verified is kept); an interruption
    (Ctrl-C) or a bug stops them all, each leaving its `.part` for the next run to resume.
    """
    cancel = threading.Event()
    results: dict[int, Downloaded] = {}
    failures: list[FailedDownload] = []
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="fetch") as pool:
        futures: list[Future[Downloaded]] = [
            pool.submit(download_file, http, file, dest, progress, cancel, limits) for file in files
        ]
        try:
            for index, future in enumerate(futures):
                try:
                    results[index] = future.result()
                except DownloadCancelledError:
                    continue
                except FetchError as exc:
                    failures.append(FailedDownload(files[index], exc))
        except BaseException:
            cancel.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return [results[i] for i in sorted(results)], failures
