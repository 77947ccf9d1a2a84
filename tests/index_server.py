"""Real package indexes on 127.0.0.1 for the fetch tests, and the tiny wheels they serve.

* `build_wheel` writes a real wheel (dist-info, WHEEL, METADATA, RECORD with correct hashes)
  with the standard library's zipfile: pip installs and downloads it like any other.
* `PypiServer` runs pypiserver (HTML simple API, PEP 503) as a child process, fallback to any
  outside index disabled.
* `FaultyIndex` is a small threaded http.server serving the PEP 691 JSON API (or HTML when the
  client does not ask for JSON, or when JSON is switched off), with faults per file: the
  connection cut mid-file, 5xx before success, 404, slow answers, Range support on or off, a
  wrong digest, and any file name (such as '../../evil.whl'); and the misbehaving servers of
  issue 16: a body longer than announced, an endless one, a gzip bomb, a trickle, 401/403, a
  redirect loop; and the misbehaving project pages of issue 24: a page gzip- or deflate-encoded
  (or sent with an encoding it does not have), a gzip bomb, an endless chunked page, a huge
  plain one and a drip, each generated as it is sent so that the test itself stays small. It
  listens on 127.0.0.1, or on ::1 for the IPv6 tests. Every request is recorded.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import os
import socket
import subprocess
import sys
import threading
import time
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import requests
from packaging.utils import canonicalize_name, parse_wheel_filename

JSON_TYPE = "application/vnd.pypi.simple.v1+json"


# --- wheels ------------------------------------------------------------------------------------


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def build_wheel(
    directory: Path,
    name: str,
    version: str,
    tag: str = "py3-none-any",
    requires: Sequence[str] = (),
    payload: int = 1024,
    requires_python: str | None = None,
) -> Path:
    """A minimal valid wheel `name-version-tag.whl` in `directory`, `payload` bytes of data."""
    dist = canonicalize_name(name).replace("-", "_")
    dist_info = f"{dist}-{version}.dist-info"
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    metadata += [f"Requires-Dist: {r}" for r in requires]
    if requires_python:
        metadata.append(f"Requires-Python: {requires_python}")
    pythons, abis, platforms = (part.split(".") for part in tag.split("-"))
    tags = [f"{py}-{abi}-{plat}" for py in pythons for abi in abis for plat in platforms]
    wheel = ["Wheel-Version: 1.0", "Generator: envcheck-tests", "Root-Is-Purelib: true"]
    wheel += [f"Tag: {t}" for t in tags]
    # Deterministic, incompressible-looking data so that sizes are what the tests ask for.
    seed = f"{name}-{version}-{tag}".encode()
    blob = b"".join(
        hashlib.sha256(seed + i.to_bytes(4, "big")).digest() for i in range(payload // 32 + 1)
    )
    members = {
        f"{dist}/__init__.py": f"__version__ = {version!r}\n".encode(),
        f"{dist}/payload.bin": blob[:payload],
        f"{dist_info}/METADATA": ("\n".join(metadata) + "\n").encode(),
        f"{dist_info}/WHEEL": ("\n".join(wheel) + "\n").encode(),
    }
    record = [f"{path},{_record_hash(data)},{len(data)}" for path, data in members.items()]
    record.append(f"{dist_info}/RECORD,,")
    members[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = directory / f"{dist}-{version}-{tag}.whl"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    return path


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- pypiserver --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PypiServer:
    url: str  # the simple API root, ending in /simple/
    process: subprocess.Popen[bytes]


@contextmanager
def pypiserver(packages: Path) -> Iterator[PypiServer]:
    """pypiserver on a free 127.0.0.1 port serving `packages`; never falls back elsewhere."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "pypiserver",
        "run",
        "-p",
        str(port),
        "-i",
        "127.0.0.1",
        "--disable-fallback",
        "-a",
        ".",
        "-P",
        ".",
        str(packages),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    root = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if requests.get(f"{root}/health", timeout=1).ok:
                    break
            except requests.RequestException:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"pypiserver did not start (exit {process.poll()})")
            time.sleep(0.1)
        yield PypiServer(f"{root}/simple/", process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- the PEP 691 server with faults ------------------------------------------------------------


@dataclass
class ServedFile:
    """One file of the faulty index, and how the server misbehaves when it is requested."""

    filename: str
    data: bytes
    project: str = ""  # default: from the file name
    listed_sha256: str | None = None  # the digest the page shows (default: the true one)
    listed_size: object = None  # the PEP 700 size the page shows (default: the true one)
    cut_after: int | None = None  # close the connection after this many body bytes ...
    cut_times: int = 1  # ... on this many requests
    fail_first: int = 0  # answer HTTP 500 to this many requests first
    status: int | None = None  # always answer this status (404)
    delay: float = 0.0  # seconds before the response headers
    requires_python: str | None = None
    size_listed: bool = True  # PEP 700 "size" on the JSON page
    extra_bytes: int = 0  # send this much more than the Content-Length announces
    no_length: bool = False  # no Content-Length: the body ends when the connection closes
    endless: bool = False  # no Content-Length, and after the data bytes keep coming forever
    gzip_bomb: int = 0  # answer with a gzip stream (Content-Encoding) that inflates this far
    trickle: tuple[int, float] | None = None  # (bytes, seconds): send a few bytes at a time
    url: str | None = None  # the URL the JSON page lists, as given (default: ../../files/NAME)
    requests: int = 0

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def project_name(self) -> str:
        if self.project:
            return canonicalize_name(self.project)
        return str(parse_wheel_filename(self.filename)[0])


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    status: int = 0


@dataclass
class FaultyIndex:
    root: str  # http://127.0.0.1:PORT
    files: list[ServedFile] = field(default_factory=list)
    range_supported: bool = True
    json_enabled: bool = True
    page_status: int | None = None  # answer every page request with this status (401, 403)
    redirect_loop: bool = False  # every request is redirected to another that redirects back
    # Project pages (issue 24): each fault replaces the page's body as it is sent.
    page_encoding: str | None = None  # gzip, deflate, deflate-raw; gzip-broken, others: header
    page_gzip_bomb: int = 0  # a chunked gzip stream that inflates to this many bytes
    page_endless: bool = False  # a chunked body that never ends
    page_size: int = 0  # a plain body of this many bytes, with its Content-Length
    page_drip: tuple[int, float] | None = None  # (bytes, seconds): the page a little at a time
    redirect_bomb: bool = False  # a page is first a 302 (to ?moved=1) with an endless body
    pages_elsewhere: str | None = None  # a root: every page request is a 302 to the same path there
    # Other roots that serve the same simple API: PyTorch-style variant indexes (/whl/cu126/).
    aliases: tuple[str, ...] = ()
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"{self.root}/simple/"

    def add(self, served: ServedFile) -> ServedFile:
        self.files.append(served)
        return served

    def file_requests(self, filename: str) -> list[Recorded]:
        return [r for r in self.requests if unquote(r.path).endswith("/files/" + filename)]

    def page(self, project: str, as_json: bool) -> tuple[bytes, str] | None:
        listed = [f for f in self.files if f.project_name == canonicalize_name(project)]
        if not listed:
            return None
        if as_json:
            entries = []
            for f in listed:
                entry: dict[str, object] = {
                    "filename": f.filename,
                    # relative to the page, as PEP 691 allows
                    "url": f.url or "../../files/" + quote(f.filename, safe=""),
                    "hashes": {"sha256": f.listed_sha256 or f.sha256},
                }
                if f.size_listed:
                    entry["size"] = len(f.data) if f.listed_size is None else f.listed_size
                if f.requires_python:
                    entry["requires-python"] = f.requires_python
                entries.append(entry)
            body = {"meta": {"api-version": "1.1"}, "name": project, "files": entries}
            return json.dumps(body).encode(), JSON_TYPE
        anchors = "".join(
            f'<a href="/files/{quote(f.filename, safe="")}#sha256={f.listed_sha256 or f.sha256}"'
            + (
                f' data-requires-python="{html.escape(f.requires_python)}"'
                if f.requires_python
                else ""
            )
            + f">{html.escape(f.filename)}</a><br>\n"
            for f in listed
        )
        body_html = f"<!DOCTYPE html><html><body><h1>{project}</h1>\n{anchors}</body></html>\n"
        return body_html.encode(), "text/html; charset=utf-8"


def _handler(index: FaultyIndex) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def _send(
            self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            record = Recorded(self.path, dict(self.headers.items()))
            with index.lock:
                index.requests.append(record)
            path = urlsplit(self.path).path
            for alias in index.aliases:
                if path.startswith(alias):
                    path = "/simple/" + path[len(alias) :]
            parts = [p for p in path.split("/") if p]
            if len(parts) > 2 and parts[-2] == "files":  # a page's ../../files/ under an alias
                parts = parts[-2:]
            if index.redirect_loop:
                record.status = 302
                other = path[len("/loop") :] if path.startswith("/loop/") else "/loop" + path
                self._send(302, b"", "text/plain", {"Location": other})
                return
            if len(parts) == 2 and parts[0] == "simple" and index.pages_elsewhere:
                record.status = 302
                self._send(302, b"", "text/plain", {"Location": index.pages_elsewhere + path})
                return
            moved = "moved=1" in urlsplit(self.path).query
            if len(parts) == 2 and parts[0] == "simple" and index.redirect_bomb and not moved:
                record.status = 302
                location = {"Location": path + "?moved=1"}
                self._chunked("text/html", location, _endless(b""), status=302)
                return
            if len(parts) == 2 and parts[0] == "simple" and index.page_status is not None:
                record.status = index.page_status
                self._send(index.page_status, b"refused", "text/plain")
                return
            if len(parts) == 2 and parts[0] == "simple":
                wants_json = JSON_TYPE in self.headers.get("Accept", "") and index.json_enabled
                page = index.page(parts[1], wants_json)
                if page is None:
                    record.status = 404
                    self._send(404, b"not found", "text/plain")
                else:
                    record.status = 200
                    self._page(page[0], page[1])
                return
            if len(parts) == 2 and parts[0] == "files":
                self._file(unquote(parts[1]), record)
                return
            record.status = 404
            self._send(404, b"not found", "text/plain")

        def _page(self, body: bytes, content_type: str) -> None:
            """A project page, as the page faults of the index say."""
            if index.page_gzip_bomb or index.page_endless:
                extra = {"Content-Encoding": "gzip"} if index.page_gzip_bomb else {}
                chunks = (
                    _gzip_of_spaces(index.page_gzip_bomb)
                    if index.page_gzip_bomb
                    else _endless(body)
                )
                self._chunked(content_type, extra, chunks)
                return
            if index.page_size:
                self._stream(content_type, index.page_size, _spaces(body, index.page_size))
                return
            extra = {}
            if index.page_encoding:
                body = _encoded(body, index.page_encoding)
                name = index.page_encoding.removesuffix("-raw").removesuffix("-broken")
                extra["Content-Encoding"] = name
            if index.page_drip:
                step, pause = index.page_drip
                self._stream(content_type, len(body), _drip(body, step, pause), extra)
                return
            self._send(200, body, content_type, extra)

        def _chunked(
            self,
            content_type: str,
            extra: dict[str, str],
            chunks: Iterator[bytes],
            status: int = 200,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Transfer-Encoding", "chunked")
            for key, value in extra.items():
                self.send_header(key, value)
            self.end_headers()
            try:
                for chunk in chunks:
                    if chunk:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass  # the client stopped reading, as it should
            self.close_connection = True

        def _stream(
            self,
            content_type: str,
            length: int,
            chunks: Iterator[bytes],
            extra: dict[str, str] | None = None,
        ) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(length))
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            try:
                for chunk in chunks:
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except OSError:
                pass  # the client stopped reading, as it should
            self.close_connection = True

        def _file(self, filename: str, record: Recorded) -> None:
            served = next((f for f in index.files if f.filename == filename), None)
            if served is None:
                record.status = 404
                self._send(404, b"no such file", "text/plain")
                return
            with index.lock:
                served.requests += 1
                number = served.requests
            if served.delay:
                time.sleep(served.delay)
            if served.status is not None:
                record.status = served.status
                self._send(served.status, b"status", "text/plain")
                return
            if number <= served.fail_first:
                record.status = 500
                self._send(500, b"internal error", "text/plain")
                return
            data, status, extra = served.data, 200, {"ETag": f'"{served.sha256[:16]}"'}
            wanted = self.headers.get("Range", "")
            if index.range_supported:
                extra["Accept-Ranges"] = "bytes"
                if wanted.startswith("bytes="):
                    start = int(wanted[len("bytes=") :].split("-")[0])
                    if start >= len(data):
                        record.status = 416
                        self._send(
                            416, b"", "text/plain", {"Content-Range": f"bytes */{len(data)}"}
                        )
                        return
                    status = 206
                    extra["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
                    data = data[start:]
            record.status = status
            self._body(served, number, status, data, extra)

        def _body(
            self, served: ServedFile, number: int, status: int, data: bytes, extra: dict[str, str]
        ) -> None:
            if served.gzip_bomb:
                data = gzip.compress(b"\0" * served.gzip_bomb)
                extra["Content-Encoding"] = "gzip"
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream")
            if served.no_length or served.endless:
                self.send_header("Connection", "close")
                self.close_connection = True
            else:
                self.send_header("Content-Length", str(len(data)))
            for key, value in extra.items():
                self.send_header(key, value)
            self.end_headers()
            if served.endless or served.extra_bytes or served.trickle:
                self._misbehave(served, data)
                return
            if served.cut_after is not None and number <= served.cut_times:
                self.wfile.write(data[: served.cut_after])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(data)

        def _misbehave(self, served: ServedFile, data: bytes) -> None:
            """The body of a file served too long, endlessly or a trickle at a time; stops
            when the client hangs up."""
            step, pause = served.trickle or (len(data) or 1, 0.0)
            try:
                for start in range(0, len(data), step):
                    self.wfile.write(data[start : start + step])
                    self.wfile.flush()
                    time.sleep(pause)
                self.wfile.write(b"\1" * served.extra_bytes)
                while served.endless:
                    self.wfile.write(b"\2" * 65536)
            except OSError:
                pass  # the client gave up, as it should
            self.close_connection = True

    return Handler


_MB = 1 << 20


def _gzip_of_spaces(total: int) -> Iterator[bytes]:
    """A gzip stream of `total` spaces, compressed a megabyte at a time as it is sent: a few
    kB on the wire per MB inflated (about 1000 to 1), and nothing big in the test's memory."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b" " * _MB
    sent = 0
    while sent < total:
        size = min(_MB, total - sent)
        yield compressor.compress(block[:size])
        sent += size
    yield compressor.flush()


def _endless(head: bytes) -> Iterator[bytes]:
    """The page's first half, then spaces for ever."""
    yield head[: len(head) // 2]
    block = b" " * 65536
    while True:
        yield block


def _spaces(head: bytes, total: int) -> Iterator[bytes]:
    """The page's first half, then spaces up to `total` bytes."""
    start = head[: min(len(head) // 2, total)]
    yield start
    left = total - len(start)
    block = b" " * _MB
    while left > 0:
        yield block[: min(_MB, left)]
        left -= _MB


def _drip(body: bytes, step: int, pause: float) -> Iterator[bytes]:
    for start in range(0, len(body), step):
        yield body[start : start + step]
        time.sleep(pause)


def _encoded(body: bytes, encoding: str) -> bytes:
    """The page in `encoding`: gzip, deflate (zlib-wrapped), deflate-raw (no zlib header, as
    some servers send it); any other name (gzip-broken: a gzip header on a plain body) leaves
    the body as it is, for the header alone."""
    if encoding == "gzip":
        return gzip.compress(body)
    if encoding == "deflate":
        return zlib.compress(body)
    if encoding == "deflate-raw":
        compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        return compressor.compress(body) + compressor.flush()
    return body


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler still trickling to a client that left must not block

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # clients that time out leave broken pipes behind: expected here


class _QuietServer6(_QuietServer):
    address_family = socket.AF_INET6


@contextmanager
def faulty_index(host: str = "127.0.0.1") -> Iterator[FaultyIndex]:
    """A FaultyIndex listening on a free port of `host` (127.0.0.1, or ::1) for the block."""
    server_class = _QuietServer6 if ":" in host else _QuietServer
    server = server_class((host, 0), BaseHTTPRequestHandler)
    shown = f"[{host}]" if ":" in host else host
    index = FaultyIndex(f"http://{shown}:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(index)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield index
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def isolated_pip_environment() -> dict[str, str]:
    """os.environ without PIP_* and ENVCHECK_* settings, pip's config files switched off."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "ENVCHECK_"))}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env
