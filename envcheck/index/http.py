"""HTTP for the index client: a requests session per thread, timeouts, retries with backoff.

Retries cover what is worth retrying (connection failures, timeouts, a response cut short, HTTP
408/429/5xx) a bounded number of times, waiting per an injectable backoff; everything else fails
at once with the status. Credentials go only to the index's own scheme, host and port, so a
file hosted elsewhere never sees them; URLs handled here never contain them.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests
import urllib3

from envcheck import __version__
from envcheck.index.config import IndexLocation
from envcheck.index.errors import IndexResponseError, IndexUnavailableError

RETRY_STATUSES = frozenset({408, 429})  # and every 5xx
MAX_RETRY_AFTER_S = 30.0  # a server's Retry-After is honoured up to this


def exponential_backoff(retry: int) -> float:
    """Seconds before retry number `retry` (1, 2, ...): 0.5, 1, 2, 4, then 8 at most."""
    return float(min(0.5 * 2 ** (retry - 1), 8.0))


def no_backoff(retry: int) -> float:  # noqa: ARG001 - same signature as exponential_backoff
    return 0.0


@dataclass(frozen=True)
class Timeouts:
    """Seconds to wait for a connection, and for each read (headers, then every chunk)."""

    connect: float = 10.0
    read: float = 60.0

    def describe(self) -> str:
        return f"connect {self.connect:g} s, read {self.read:g} s"


@dataclass(frozen=True)
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
    ) -> None:
        self.index = index
        self.timeouts = timeouts or Timeouts()
        self.retry = retry or RetryPolicy()
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
            session = requests.Session()
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
        errors propagate. `read_timeout` shortens the read timeout (a download's deadline)."""
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
        except requests.exceptions.TooManyRedirects as exc:
            raise IndexResponseError(
                f"{url}: the index redirects in a loop (more than "
                f"{self.session().max_redirects} redirects); check the index URL"
            ) from exc

    def get_small(self, url: str, headers: Mapping[str, str] | None = None) -> requests.Response:
        """GET a page (read whole), retrying transient failures; the last status is returned."""
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self.get(url, headers)
                if is_retryable_status(response.status_code):
                    raise RetryableStatusError(
                        response.status_code, retry_after_seconds(response.headers)
                    )
                return response
            except TRANSIENT as exc:
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
                self.retry.wait(attempt, after)
