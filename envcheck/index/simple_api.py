"""A project's file list from an index's simple API: PEP 691 JSON, else PEP 503 HTML.

The request asks for JSON first by content negotiation (`Accept`), and the reply's Content-Type
decides the parser, since many private indexes (pypiserver among them) serve only HTML. The
parsers are pure functions of the body; `fetch_project` is the only I/O. Every listed file
name must be a plain name: an index that lists `../../x.whl` is refused, never half-trusted.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from envcheck.bounded_input import loads_json
from envcheck.distribution_names import canonical_name
from envcheck.index.errors import IndexResponseError, NotFoundError, UnsafeFileNameError
from envcheck.index.http import HttpClient, refused_access_message
from envcheck.index.limits import MAX_LISTED_BYTES
from envcheck.record import record
from envcheck.urls import split_credentials

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPE = "application/vnd.pypi.simple.v1+html"
# PEP 691's recommended preference: JSON, then the versioned HTML, then legacy HTML.
ACCEPT = f"{JSON_TYPE}, {HTML_TYPE};q=0.2, text/html;q=0.01"
HTML_TYPES = frozenset({HTML_TYPE, "text/html"})
SUPPORTED_API_MAJOR = "1"
_UNSAFE_CHARACTERS = re.compile(r"[/\\:\x00-\x1f\x7f]")
_HEX = re.compile(r"[0-9a-fA-F]+")
MAX_FILE_NAME = 255


@record
class IndexFile:
    """One file as the index lists it."""

    filename: str
    url: str  # absolute, without credentials
    hashes: tuple[tuple[str, str], ...]  # (hashlib name, lowercase hex digest), sorted
    requires_python: str | None = None
    yanked: bool = False
    size: int | None = None  # PEP 700 (API 1.1); None when the index does not say

    def digest(self, algorithm: str) -> str | None:
        return dict(self.hashes).get(algorithm)


@record
class ProjectPage:
    name: str  # the canonical project name
    url: str  # the page as finally fetched (after redirects)
    api: str  # "json" (PEP 691) or "html" (PEP 503)
    files: tuple[IndexFile, ...]
    # Files listed with a value envcheck cannot use (a digest that is not hex, a negative size,
    # a URL that is not http(s)): (file name, why), left out of `files` as pip leaves out a
    # link it cannot use, and named when nothing else fits.
    ignored: tuple[tuple[str, str], ...] = ()

    def why_ignored(self, filename: str) -> str | None:
        return dict(self.ignored).get(filename)


def project_url(index_url: str, name: str) -> str:
    """PEP 503: the project's page is `<root>/<normalized name>/`."""
    return f"{index_url.rstrip('/')}/{canonical_name(name)}/"


def is_plain_file_name(name: str) -> bool:
    """Whether `name` names a file inside a directory: no separator, no `..`, no hidden name,
    no control character, not too long for a file system."""
    return not (
        not name
        or name.startswith(".")
        or len(name) > MAX_FILE_NAME
        or _UNSAFE_CHARACTERS.search(name) is not None
    )


def check_file_name(name: str, project: str) -> str:
    """`name` if it is a plain file name that stays inside a directory; else UnsafeFileNameError."""
    if not is_plain_file_name(name):
        raise UnsafeFileNameError(
            f"the index lists the file name {name!r} for project {project!r}, which is not a "
            "plain file name (it could write outside the destination); refusing this project "
            "page: check the index"
        )
    return name


class _UnusableError(Exception):
    """A value of one file entry that envcheck cannot use; the file is left out (internal)."""


def _hashes(raw: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The digests of algorithms envcheck knows, each checked to be hex of its length: a value
    that is not one would be written into the manifest as the file's digest and refused by
    every later fetch and --verify. Algorithms it does not know are passed over, as pip does."""
    found = []
    for algorithm, value in raw.items():
        name = algorithm.lower() if isinstance(algorithm, str) else ""
        if name not in hashlib.algorithms_guaranteed or name.startswith("shake_"):
            continue  # shake_* have no fixed length; nothing verifies with them
        length = hashlib.new(name).digest_size * 2
        if not (isinstance(value, str) and _HEX.fullmatch(value) and len(value) == length):
            raise _UnusableError(f"its {name} digest is not {length} hexadecimal digits")
        found.append((name, value.lower()))
    return tuple(sorted(found))


def _size(value: object) -> int | None:
    """PEP 700's size: None when not given; a whole number of bytes up to the cap, else the
    file is unusable (a negative size would be recorded in the manifest and refused there)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise _UnusableError("its size is not a whole number of bytes")
    if not 0 <= value <= MAX_LISTED_BYTES:
        shown = str(value) if len(str(value)) <= 24 else "a huge number"
        raise _UnusableError(f"its size {shown} is not between 0 and {MAX_LISTED_BYTES} bytes")
    return value


def _file_url(url: str) -> str:
    """An absolute http(s) URL with a host and a port that parse: what can be downloaded."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - urlsplit checks the port only when it is asked for
    except ValueError:
        raise _UnusableError("its URL does not parse") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _UnusableError("its URL is not an http(s) URL")
    return url


def _absolute(page_url: str, url: str) -> str:
    resolved, _ = split_credentials(urljoin(page_url, url))
    return resolved


def parse_json_page(body: bytes, page_url: str, project: str) -> ProjectPage:
    """A PEP 691 project page (API version 1.x)."""
    try:
        data = loads_json(body)  # a page 200k deep is TooDeepError, not RecursionError
    except ValueError as exc:
        raise IndexResponseError(f"{page_url}: the JSON page does not parse: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise IndexResponseError(f"{page_url}: the JSON page has no 'files' list")
    meta = data.get("meta")
    version = meta.get("api-version") if isinstance(meta, dict) else None
    if not isinstance(version, str) or version.split(".")[0] != SUPPORTED_API_MAJOR:
        raise IndexResponseError(
            f"{page_url}: simple API version {version!r} is not 1.x, which envcheck reads"
        )
    files = []
    ignored = []
    for entry in data["files"]:
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("filename"), str)
            and isinstance(entry.get("url"), str)
        ):
            raise IndexResponseError(f"{page_url}: a file entry lacks 'filename' or 'url'")
        filename = check_file_name(entry["filename"], project)
        hashes = entry.get("hashes")
        requires = entry.get("requires-python")
        try:
            files.append(
                IndexFile(
                    filename=filename,
                    url=_file_url(_absolute(page_url, entry["url"])),
                    hashes=_hashes(hashes) if isinstance(hashes, dict) else (),
                    requires_python=requires if isinstance(requires, str) and requires else None,
                    yanked=bool(entry.get("yanked", False)),
                    size=_size(entry.get("size")),
                )
            )
        except _UnusableError as exc:
            ignored.append((filename, str(exc)))
    return ProjectPage(canonical_name(project), page_url, "json", tuple(files), tuple(ignored))


class _AnchorParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.base: str | None = None
        self.anchors: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "base" and self.base is None and values.get("href"):
            self.base = values["href"]
        elif tag == "a" and values.get("href"):
            self.anchors.append(values)


def parse_html_page(text: str, page_url: str, project: str) -> ProjectPage:
    """A PEP 503 project page: one anchor per file, the digest in the URL fragment."""
    parser = _AnchorParser()
    parser.feed(text)
    parser.close()
    base = urljoin(page_url, parser.base) if parser.base else page_url
    files = []
    ignored = []
    for anchor in parser.anchors:
        try:
            parts = urlsplit(_absolute(base, anchor["href"] or ""))
        except ValueError:
            continue  # no file name can be read from a link that does not parse
        path_name = parts.path.rsplit("/", 1)[-1]
        if not path_name:
            continue  # a directory link such as "../" in a plain directory listing
        filename = check_file_name(unquote(path_name), project)
        algorithm, _, digest = parts.fragment.partition("=")
        requires = anchor.get("data-requires-python")
        try:
            files.append(
                IndexFile(
                    filename=filename,
                    url=_file_url(urlunsplit(parts._replace(fragment=""))),
                    hashes=_hashes({algorithm: digest}) if digest else (),
                    requires_python=requires or None,
                    yanked="data-yanked" in anchor,
                )
            )
        except _UnusableError as exc:
            ignored.append((filename, str(exc)))
    return ProjectPage(canonical_name(project), page_url, "html", tuple(files), tuple(ignored))


def media_type(content_type: str) -> tuple[str, str | None]:
    """('text/html', 'utf-8') from 'text/html; charset=UTF-8'."""
    kind, _, params = content_type.partition(";")
    charset = re.search(r"charset=\"?([\w.:-]+)", params, re.IGNORECASE)
    return kind.strip().lower(), charset.group(1) if charset else None


def parse_project_page(body: bytes, content_type: str, page_url: str, project: str) -> ProjectPage:
    kind, charset = media_type(content_type)
    if kind == JSON_TYPE:
        return parse_json_page(body, page_url, project)
    if kind in HTML_TYPES:
        try:
            text = body.decode(charset or "utf-8", errors="replace")
        except LookupError:
            text = body.decode("utf-8", errors="replace")
        return parse_html_page(text, page_url, project)
    raise IndexResponseError(
        f"{page_url}: the index answered with Content-Type {content_type!r}, which is neither "
        "the simple API's JSON nor HTML; is the URL the index's simple API root?"
    )


def fetch_project(http: HttpClient, name: str) -> ProjectPage:
    """The project's file list from the index, JSON preferred."""
    url = project_url(http.index.url, name)
    response = http.get_small(url, {"Accept": ACCEPT})
    where = f"{url} (index {http.index.display}, from {http.index.found_via})"
    if response.status_code == 404:
        raise NotFoundError(
            f"the index has no project {name!r}: HTTP 404 for {where}; check the name and "
            "the index URL"
        )
    if response.status_code in (401, 403):
        raise IndexResponseError(refused_access_message(response.status_code, where))
    if response.status_code != 200:
        raise IndexResponseError(f"HTTP {response.status_code} for {where}")
    page_url, _ = split_credentials(response.url or url)
    return parse_project_page(
        response.content, response.headers.get("Content-Type", ""), page_url, name
    )
