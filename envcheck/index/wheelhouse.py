"""The wheelhouse manifest (`wheelhouse.json`) and the check of a wheelhouse against it.

One entry per file and target: file, sha256, size, source URL, platform, python (a pure-Python
wheel fetched for two platforms has two entries with the same digest). The manifest is written
atomically (temporary name, read back, rename); `verify_wheelhouse` re-hashes every listed file
and reports mismatched, missing and extra files. Nothing here talks to an index.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envcheck import __version__
from envcheck.atomic_file import write_atomically
from envcheck.errors import InputError
from envcheck.index.download import file_digests
from envcheck.index.errors import FetchError, UnsafeFileNameError
from envcheck.index.simple_api import check_file_name

MANIFEST_NAME = "wheelhouse.json"
SCHEMA = "envcheck.wheelhouse/1"
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class ManifestEntry:
    file: str
    sha256: str
    size: int
    url: str | None  # where it was downloaded from (never with credentials)
    platform: str  # the target platform tag it was fetched for
    python: str  # the target Python, X.Y

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "sha256": self.sha256,
            "size": self.size,
            "url": self.url,
            "platform": self.platform,
            "python": self.python,
        }

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.file, self.platform, self.python)


def _entry(raw: object, where: str) -> ManifestEntry:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a 'files' entry is not an object")
    values = {k: raw.get(k) for k in ("file", "sha256", "size", "url", "platform", "python")}
    file, sha256, size = values["file"], values["sha256"], values["size"]
    url, platform, python = values["url"], values["platform"], values["python"]
    valid = (
        isinstance(file, str)
        and isinstance(sha256, str)
        and _SHA256.fullmatch(sha256) is not None
        and isinstance(size, int)
        and not isinstance(size, bool)
        and size >= 0
        and (url is None or isinstance(url, str))
        and isinstance(platform, str)
        and isinstance(python, str)
    )
    if not valid:
        raise InputError(f"{where}: the entry {raw!r} lacks one of file, sha256, size, url, ...")
    assert isinstance(file, str)
    assert isinstance(sha256, str)
    assert isinstance(size, int)
    assert isinstance(platform, str)
    assert isinstance(python, str)
    try:
        check_file_name(file, "the manifest")
    except UnsafeFileNameError as exc:
        raise InputError(f"{where}: {exc}") from exc
    return ManifestEntry(
        file, sha256, size, url if isinstance(url, str) else None, platform, python
    )


def read_manifest(directory: Path) -> tuple[ManifestEntry, ...]:
    """The entries of `directory/wheelhouse.json`; InputError when it is not one of ours."""
    path = directory / MANIFEST_NAME
    where = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(
            f"{where} does not exist; is {str(directory)!r} a wheelhouse written by envcheck fetch?"
        ) from exc
    except OSError as exc:
        raise InputError(f"{where} cannot be read: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise InputError(f"{where} is not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise InputError(f"{where} is not a wheelhouse manifest (schema {SCHEMA!r} expected)")
    files = data.get("files")
    if not isinstance(files, list):
        raise InputError(f"{where} has no 'files' list")
    return tuple(_entry(raw, where) for raw in files)


def merge_entries(
    old: Iterable[ManifestEntry], new: Iterable[ManifestEntry], directory: Path
) -> tuple[ManifestEntry, ...]:
    """Old entries whose file is still there, updated by the new ones; sorted."""
    fresh = list(new)
    by_file = {e.file: e for e in fresh}
    merged: dict[tuple[str, str, str], ManifestEntry] = {}
    for previous in old:
        if not (directory / previous.file).is_file():
            continue
        latest = by_file.get(previous.file)
        if latest is not None:  # the file was fetched again: its digest is the new one
            previous = ManifestEntry(  # noqa: PLW2901 - the updated row replaces the old one
                previous.file,
                latest.sha256,
                latest.size,
                latest.url,
                previous.platform,
                previous.python,
            )
        merged[previous.key] = previous
    for entry in fresh:
        merged[entry.key] = entry
    return tuple(merged[key] for key in sorted(merged))


def manifest_json(entries: Iterable[ManifestEntry]) -> str:
    data = {
        "schema": SCHEMA,
        "generator": f"envcheck {__version__}",
        "files": [e.to_json() for e in entries],
    }
    return json.dumps(data, indent=2) + "\n"


def write_manifest(directory: Path, entries: Iterable[ManifestEntry]) -> Path:
    """Write `directory/wheelhouse.json` atomically (envcheck.atomic_file); FetchError when the
    wheelhouse cannot take it."""
    path = directory / MANIFEST_NAME
    write_atomically(path, manifest_json(entries), option="--dest", error=FetchError)
    return path


@dataclass(frozen=True)
class Mismatch:
    file: str
    expected_sha256: str
    actual_sha256: str
    expected_size: int
    actual_size: int


@dataclass(frozen=True)
class Verification:
    """The wheelhouse compared with its manifest; `ok` only when nothing differs."""

    directory: Path
    checked: tuple[str, ...]  # files listed in the manifest, each once
    mismatched: tuple[Mismatch, ...]
    missing: tuple[str, ...]
    extra: tuple[str, ...]  # files in the directory that the manifest does not list
    conflicting: tuple[str, ...]  # files the manifest lists twice with different digests

    @property
    def ok(self) -> bool:
        return not (self.mismatched or self.missing or self.extra or self.conflicting)


def verify_wheelhouse(directory: Path) -> Verification:
    """Re-hash every file `wheelhouse.json` lists; InputError when there is no manifest."""
    if not directory.is_dir():
        raise InputError(f"--verify {str(directory)!r} is not a directory")
    entries = read_manifest(directory)
    expected: dict[str, ManifestEntry] = {}
    conflicting: set[str] = set()
    for entry in entries:
        first = expected.setdefault(entry.file, entry)
        if (first.sha256, first.size) != (entry.sha256, entry.size):
            conflicting.add(entry.file)
    mismatched, missing = [], []
    for name, entry in sorted(expected.items()):
        path = directory / name
        if not path.is_file():
            missing.append(name)
            continue
        actual = file_digests(path, ["sha256"])["sha256"]
        size = path.stat().st_size
        if actual != entry.sha256 or size != entry.size:
            mismatched.append(Mismatch(name, entry.sha256, actual, entry.size, size))
    extra = sorted(
        p.name + ("/" if p.is_dir() else "")
        for p in directory.iterdir()
        if p.name != MANIFEST_NAME and p.name not in expected
    )
    return Verification(
        directory,
        tuple(sorted(expected)),
        tuple(mismatched),
        tuple(missing),
        tuple(extra),
        tuple(sorted(conflicting)),
    )
