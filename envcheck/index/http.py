"""HTTP for the index client: a requests session per thread, timeouts, retries with backoff.

Retries cover what is worth retrying (connection failures, timeouts, a response cut short, HTTP
408/429/5xx) a bounded number of times, waiting per an injectable backoff; everything else fails
at once with the status. Credentials go only to the index's own scheme, host and port, so a
file hosted elsewhere never sees them; URLs handled here never contain them. An index page is
read as a stream under `limits.PageLimits`: its bytes are counted after its gzip or deflate
encoding is undone here, a bounded step at a time (an encoding that cannot be bounded so is
refused), and its attempts share one wall-clock deadline, so a page that inflates without end,
never ends, or drips a byte at a time stops with one line naming the index.
"""

from __future__ import annotations

import re
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import field
from urllib.parse import urljoin, urlsplit

import requests
import urllib3

from envcheck import __version__
from envcheck.index.config import IndexLocation
from envcheck.index.errors import IndexResponseError, IndexUnavailableError
from envcheck.index.limits import PageLimits
from envcheck.record import record

RETRY_STATUSES = frozenset({408, 429})  # and every 5xx
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_RETRY_AFTER_S = 30.0  # a server's Retry-After is honoured up to this
PAGE_CHUNK_BYTES = 64 * 1024  # read, and inflated, at most this much at a time
# What a page may be encoded with: zlib inflates each a bounded step at a time. Brotli and zstd
# (which urllib3 would decode, unbounded in older releases, when their modules are installed) are
# not asked for, and two stacked encodings (a gzip of a gzip: a million to one) are refused.
_GZIP_WBITS = 16 + zlib.MAX_WBITS  # zlib's window bits for a gzip stream
PAGE_ENCODINGS = {"identity": None, "gzip": _GZIP_WBITS, "x-gzip": _GZIP_WBITS}
PAGE_ENCODINGS["deflate"] = zlib.MAX_WBITS
ACCEPT_ENCODING = "gzip, deflate"


def exponential_backoff(retry: int) -> float:
    """Seconds before retry number `retry` (1, 2, ...): 0.5, 1, 2, 4, then 8 at most."""
    return float(min(0.5 * 2 ** (retry - 1), 8.0))


def no_backoff(retry: int) -> float:  # noqa: ARG001 - same signature as exponential_backoff
    return 0.0


@record
class Timeouts:
    """Seconds to wait for a connection, and for each read (headers, then every chunk)."""

    connect: float = 10.0
    read: float = 60.0

    def describe(self) -> str:
        return f"connect {self.connect:g} s, read {self.read:g} s"


@record
class RetryPolicy:
    """How often to try one request (`attempts` in all) and how long to wait in between."""

    attempts: int = 4
    backoff: Callable[[int], float] = exponential_backoff
    sleep: Callable[[float], None] = field(default=time.sleep)

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds `wait` will sleep before retry number `retry`."""
        delay = self.backoff(retry)
        if retry_after is not None:
            delay = max(delay, min(retry_after, MAX_RETRY_AFTER_S))
        return delay

    def wait(self, retry: int, retry_after: float | None = None) -> None:
        delay = self.delay(retry, retry_after)
        if delay > 0:
            self.sleep(delay)


class RetryableStatusError(Exception):
    """An HTTP status worth another try (408, 429, 5xx); internal to the retry loops."""

    def __init__(self, status: int, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after


def is_retryable_status(status: int) -> bool:
    return status >= 500 or status in RETRY_STATUSES


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    value = headers.get("Retry-After", "").strip()
    return float(value) if value.isdigit() else None


class ShortBodyError(Exception):
    """The body ended before the size the index or the server announced (worth a retry)."""


# Failures that a second try may cure; malformed URLs and the like are not among them.
TRANSIENT = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
    urllib3.exceptions.HTTPError,  # raised by the raw body reads of downloads
    RetryableStatusError,
)


def _causes(exc: BaseException) -> list[BaseException]:
    """`exc` and what it wraps: requests and urllib3 nest the socket's error two or three deep
    (ConnectionError(MaxRetryError(reason=NameResolutionError(...gaierror))))."""
    found: list[BaseException] = []
    pending = [exc]
    while pending and len(found) < 16:
        current = pending.pop()
        if any(current is seen for seen in found):
            continue
        found.append(current)
        linked = [current.__cause__, current.__context__, getattr(current, "reason", None)]
        linked += list(current.args)
        pending += [e for e in linked if isinstance(e, BaseException)]
    return found


def name_resolution_failure(exc: BaseException) -> socket.gaierror | None:
    """The resolver's error when `exc` is a host name that did not resolve."""
    for cause in _causes(exc):
        if isinstance(cause, socket.gaierror):
            return cause
        if type(cause).__name__ == "NameResolutionError":  # urllib3 2 keeps the gaierror as text
            return socket.gaierror(socket.EAI_NONAME, str(cause))
    return None


def is_permanent(exc: BaseException) -> bool:
    """A failure no retry cures: a host name the resolver says does not exist."""
    failure = name_resolution_failure(exc)
    return failure is not None and failure.errno == socket.EAI_NONAME


def cannot_resolve_message(url: str) -> str:
    host = urlsplit(url).hostname or url
    return f"cannot resolve host {host!r} (for {url}): check the index URL and this machine's DNS"


def refused_access_message(status: int, where: str) -> str:
    return (
        f"the index refused access (HTTP {status}) to {where}: check the credentials in pip's "
        "configuration (or in the index URL, or ~/.netrc)"
    )


def describe_failure(exc: BaseException, timeouts: Timeouts, url: str = "") -> str:
    """A short reason for a failed attempt, without the library's long wrapper text."""
    if isinstance(exc, RetryableStatusError):
        return str(exc)
    if name_resolution_failure(exc) is not None:
        return f"cannot resolve host {urlsplit(url).hostname or url!r}"
    if isinstance(exc, requests.Timeout) or "timed out" in str(exc).lower():
        return f"timed out ({timeouts.describe()})"
    if isinstance(exc, requests.exceptions.ChunkedEncodingError) or "IncompleteRead" in str(exc):
        return "the connection broke off mid-response"
    errno = re.search(r"\[Errno -?\d+\] [^'\")]+", str(exc))
    if errno:
        return f"connection failed: {errno.group(0).strip()}"
    return f"connection failed: {type(exc).__name__}"


def wire_chunks(response: requests.Response, chunk_bytes: int) -> Iterator[bytes]:
    """The body as it arrives, never decoded, so that every byte received counts when the
    connection breaks (urllib3 2's read(amt) drops a partial chunk then; read1 returns what is
    there) and a slow sender is seen between its bytes, not after `chunk_bytes` of them.
    ShortBodyError when it ends before its Content-Length."""
    read1 = getattr(response.raw, "read1", None)
    if read1 is None:  # urllib3 1.26: read(amt) already returns what arrived
        yield from response.raw.stream(chunk_bytes, decode_content=False)
        return
    announced = response.headers.get("Content-Length", "")
    received = 0
    while True:
        chunk = read1(chunk_bytes, decode_content=False)
        if not chunk:
            break
        received += len(chunk)
        yield chunk
    if announced.isdigit() and received < int(announced):
        raise ShortBodyError(f"{received} of the {announced} bytes announced")


class _Inflater:
    """A page's gzip or deflate encoding undone at most `step` bytes at a time, so that a
    small body that inflates to gigabytes is seen to pass the cap after one step, not after
    it filled memory. zlib.error when the body is not what its encoding says."""

    def __init__(self, encoding: str) -> None:
        self._wbits = PAGE_ENCODINGS[encoding]
        self._obj = None if self._wbits is None else zlib.decompressobj(self._wbits)
        # "deflate" is often sent without its zlib header (browsers and urllib3 accept that):
        # the bytes before the first output are kept, to read them again as raw deflate.
        self._head: bytearray | None = bytearray() if encoding == "deflate" else None

    def feed(self, data: bytes, step: int) -> Iterator[bytes]:
        if self._obj is None:
            yield data
            return
        if self._head is not None:
            self._head += data
        pending = data
        while pending:
            try:
                out = self._obj.decompress(pending, step)
            except zlib.error:
                if self._head is None:
                    raise
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
                pending, self._head = bytes(self._head), None
                continue
            if out or (self._head is not None and len(self._head) > PAGE_CHUNK_BYTES):
                self._head = None  # the header was right (or long past): no second reading
            if out:
                yield out
            if self._obj.eof:
                pending = self._obj.unused_data
                if pending and self._wbits == _GZIP_WBITS:  # the next gzip member
                    self._obj = zlib.decompressobj(_GZIP_WBITS)
                else:
                    pending = b""  # bytes after a deflate stream: ignored, as urllib3 does
            else:
                pending = self._obj.unconsumed_tail

    def finish(self) -> bytes:
        """What the decompressor still holds once the body ended (a few hundred bytes)."""
        return b"" if self._obj is None or self._obj.eof else self._obj.flush()


@record
class Page:
    """An index page read whole, within its bounds (`content` empty unless the status is 200)."""

    status_code: int
    url: str  # as finally fetched, after redirects
    headers: Mapping[str, str]
    content: bytes


class _Session(requests.Session):
    """A requests session that leaves every redirect to `HttpClient.get`. requests reads a
    redirect's whole body (to reuse the connection) before following it, and even when told
    not to follow it (to offer `Response.next`): no bound of envcheck's applies there."""

    def get_redirect_target(self, resp: requests.Response) -> str | None:  # noqa: ARG002
        return None


def _location(response: requests.Response) -> str | None:
    """A redirect's Location, as requests reads it (the header's bytes taken as UTF-8)."""
    location = response.headers.get("Location")
    if response.status_code not in REDIRECT_STATUSES or not location:
        return None
    try:
        return location.encode("latin1").decode("utf8")
    except UnicodeError:
        return location


def _origin(url: str) -> tuple[str, str | None, int | None] | None:
    """(scheme, host, port) of `url`; None when its port or host does not parse."""
    try:
        parts = urlsplit(url)
        return (parts.scheme, parts.hostname, parts.port)
    except ValueError:
        return None


class HttpClient:
    """GET requests against one index: per-thread sessions, index auth, timeouts, retries."""

    def __init__(
        self,
        index: IndexLocation,
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        page_limits: PageLimits | None = None,
    ) -> None:
        self.index = index
        self.timeouts = timeouts or Timeouts()
        self.retry = retry or RetryPolicy()
        self.page_limits = page_limits or PageLimits()
        self._auth_origin = _origin(index.url)
        self._local = threading.local()
        self._sessions: list[requests.Session] = []
        self._lock = threading.Lock()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            for session in self._sessions:
                session.close()
            self._sessions.clear()

    def session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = _Session()
            session.headers["User-Agent"] = f"envcheck/{__version__}"
            if self.index.cert:
                session.verify = self.index.cert
            self._local.session = session
            with self._lock:
                self._sessions.append(session)
        return session

    def _auth_for(self, url: str) -> tuple[str, str] | None:
        origin = _origin(url)
        return self.index.auth if origin is not None and origin == self._auth_origin else None

    def get(
        self,
        url: str,
        headers: Mapping[str, str] | None = None,
        stream: bool = False,
        read_timeout: float | None = None,
    ) -> requests.Response:
        """One attempt; malformed URLs and redirect loops become IndexResponseError, transient
        errors propagate. `read_timeout` shortens the read timeout (a download's deadline).

        Redirects are followed here, not by requests, which reads a redirect's whole body before
        it follows it: a 302 whose body is endless or a gzip bomb would fill memory before the
        page's own bounds apply. A redirect's body is never read; each hop gets the index's
        credentials only when it is on the index's own origin."""
        current = url
        limit = self.session().max_redirects
        for _ in range(limit + 1):
            response = self._get_once(current, headers, stream, read_timeout)
            location = _location(response)
            if location is None:
                return response
            response.close()  # unread: the connection goes, not the memory
            try:
                current = urljoin(current, location)
            except ValueError:
                raise IndexResponseError(
                    f"{url}: the index redirects to an unusable URL {location[:200]!r}"
                ) from None
        raise IndexResponseError(
            f"{url}: the index redirects in a loop (more than {limit} redirects); check the "
            "index URL"
        )

    def _get_once(
        self,
        url: str,
        headers: Mapping[str, str] | None,
        stream: bool,
        read_timeout: float | None,
    ) -> requests.Response:
        read = self.timeouts.read if read_timeout is None else read_timeout
        try:
            return self.session().get(
                url,
                headers=dict(headers or {}),
                stream=stream,
                timeout=(min(self.timeouts.connect, read), read),
                auth=self._auth_for(url),
            )
        except (requests.exceptions.InvalidURL, requests.exceptions.InvalidSchema) as exc:
            raise IndexResponseError(f"the index gave an unusable URL {url!r}: {exc}") from exc
        except (requests.exceptions.MissingSchema, ValueError) as exc:
            raise IndexResponseError(f"the index gave an unusable URL {url!r}") from exc

    def get_small(self, url: str, headers: Mapping[str, str] | None = None) -> Page:
        """GET a page (read whole, within `page_limits`), retrying transient failures; the last
        status is returned. IndexResponseError past the size cap, IndexUnavailableError past
        the deadline: both one line naming the page and the index."""
        limits = self.page_limits
        began = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._read_page(url, headers or {}, limits, began)
            except (*TRANSIENT, ShortBodyError) as exc:
                if name_resolution_failure(exc) is not None and (
                    is_permanent(exc) or attempt >= self.retry.attempts
                ):
                    raise IndexUnavailableError(cannot_resolve_message(url)) from None
                if attempt >= self.retry.attempts:
                    raise IndexUnavailableError(
                        f"{url}: {describe_failure(exc, self.timeouts, url)} "
                        f"(tried {attempt} time(s)); check the index URL and the network, or "
                        "try again later"
                    ) from None
                after = exc.retry_after if isinstance(exc, RetryableStatusError) else None
                left = limits.deadline - (time.monotonic() - began)
                if self.retry.delay(attempt, after) >= left:
                    raise self._late(url, limits, None) from None
                self.retry.wait(attempt, after)

    def _read_page(
        self, url: str, headers: Mapping[str, str], limits: PageLimits, began: float
    ) -> Page:
        """One attempt at a page: its body streamed, inflated and counted as it comes."""
        left = limits.deadline - (time.monotonic() - began)
        if left <= 0:
            raise self._late(url, limits, None)
        asked = {**headers, "Accept-Encoding": ACCEPT_ENCODING}
        with self.get(url, asked, stream=True, read_timeout=min(self.timeouts.read, left)) as got:
            if is_retryable_status(got.status_code):
                raise RetryableStatusError(got.status_code, retry_after_seconds(got.headers))
            if got.status_code != 200:  # the caller needs only the status
                return Page(got.status_code, got.url or url, got.headers, b"")
            encoding = got.headers.get("Content-Encoding", "").strip().lower() or "identity"
            if encoding not in PAGE_ENCODINGS:
                raise IndexResponseError(
                    f"{url} (index {self.index.display}): the page came with Content-Encoding "
                    f"{encoding[:40]!r}, which envcheck does not read (it asks for "
                    f"{ACCEPT_ENCODING} or none); check the index or a proxy in between"
                )
            body = bytearray()
            inflater = _Inflater(encoding)
            wire = 0
            try:
                for chunk in wire_chunks(got, PAGE_CHUNK_BYTES):
                    wire += len(chunk)
                    for piece in inflater.feed(chunk, PAGE_CHUNK_BYTES):
                        body += piece
                        if len(body) > limits.max_bytes:
                            raise self._too_large(url, limits, encoding)
                    if wire > limits.max_bytes:  # padding that inflates to nothing
                        raise self._too_large(url, limits, encoding)
                    if time.monotonic() - began > limits.deadline:
                        raise self._late(url, limits, len(body))
                body += inflater.finish()
            except zlib.error as exc:
                raise IndexResponseError(
                    f"{url} (index {self.index.display}): the page's {encoding} encoding does "
                    f"not inflate ({exc}); check the index or a proxy in between"
                ) from None
            if len(body) > limits.max_bytes:
                raise self._too_large(url, limits, encoding)
            return Page(got.status_code, got.url or url, got.headers, bytes(body))

    def _too_large(self, url: str, limits: PageLimits, encoding: str) -> IndexResponseError:
        inflated = "" if encoding == "identity" else f" once its {encoding} encoding is undone"
        return IndexResponseError(
            f"{url} (index {self.index.display}): the page is larger than the "
            f"{limits.max_bytes} bytes envcheck reads of one index page{inflated}; reading "
            "stopped there: check the index URL, or the index"
        )

    def _late(self, url: str, limits: PageLimits, received: int | None) -> IndexUnavailableError:
        arrived = f" ({received} bytes arrived)" if received is not None else ""
        return IndexUnavailableError(
            f"{url} (index {self.index.display}): the page did not arrive within its "
            f"{limits.deadline:g} s deadline{arrived}; check the index or the network, or give "
            "more time with --deadline (ENVCHECK_FETCH_DEADLINE)"
        )
