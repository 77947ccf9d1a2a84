"""The wheelhouse manifest (`wheelhouse.json`) and the check of a wheelhouse against it.

One entry per file and target: file, sha256, size, source URL, platform, python, and status (a
pure-Python wheel fetched for two platforms has two entries with the same digest). The manifest
records the plan, not only what succeeded: a fetch writes every file it is about to download as
`planned` (with the digest and size the index lists, when it lists them) before the first byte
comes, then marks each `downloaded` or `failed`; so a fetch that failed or was killed leaves a
manifest that `verify_wheelhouse` fails on. It is written atomically (temporary name, read
back, rename). `verify_wheelhouse` re-hashes every downloaded file and reports mismatched,
missing, failed, incomplete and extra files; an unfinished download's `.part` is reported as
such, never as a wheel. Schema 1 manifests (every entry downloaded) are still read. Nothing
here talks to an index.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, get_args

from envcheck import __version__
from envcheck.acquire.wheelhouse_lock import LOCK_NAME
from envcheck.atomic_file import write_atomically
from envcheck.bounded_input import (
    TooDeepError,
    UnsuitableFileError,
    loads_json,
    read_regular_file,
)
from envcheck.errors import InputError
from envcheck.index.download import file_digests, is_temporary, refuse_link
from envcheck.index.errors import FetchError
from envcheck.index.simple_api import is_plain_file_name
from envcheck.record import record

MANIFEST_NAME = "wheelhouse.json"
SCHEMA = "envcheck.wheelhouse/2"
READABLE_SCHEMAS = ("envcheck.wheelhouse/1", SCHEMA)
MANIFEST_MAX_BYTES = 256 * 1024 * 1024  # ~300 bytes an entry: most of a million files
MANIFEST_MAX_DEPTH = 32  # a manifest nests 2 deep (files, an entry)
_SHA256 = re.compile(r"[0-9a-f]{64}")
# What a fetch leaves only while it runs: pip's download directory, the manifest's temporary.
_RUN_LEFTOVERS = re.compile(r"\.envcheck-pip-.*|\." + re.escape(MANIFEST_NAME) + r"\..*\.tmp")

EntryStatus = Literal["planned", "downloaded", "failed"]
ENTRY_STATUSES: tuple[str, ...] = get_args(EntryStatus)


@record
class ManifestEntry:
    file: str
    sha256: str | None  # None only for a planned or failed file the index gave no SHA-256 for
    size: int | None  # None only for a planned or failed file of a size nobody stated
    url: str | None  # where it was downloaded from (never with credentials)
    platform: str  # the target platform tag it was fetched for
    python: str  # the target Python, X.Y
    status: EntryStatus = "downloaded"

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "sha256": self.sha256,
            "size": self.size,
            "url": self.url,
            "platform": self.platform,
            "python": self.python,
            "status": self.status,
        }

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.file, self.platform, self.python)


def _entry(raw: object, where: str) -> ManifestEntry:
    """One entry of `files`; InputError naming what is wrong with it first (the entry itself is
    quoted last, where the command's error line cuts a huge one)."""
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a 'files' entry is not an object")
    values = {k: raw.get(k) for k in ("file", "sha256", "size", "url", "platform", "python")}
    file, sha256, size = values["file"], values["sha256"], values["size"]
    url, platform, python = values["url"], values["platform"], values["python"]
    status = raw.get("status", "downloaded")
    done = status == "downloaded"
    valid = (
        isinstance(file, str)
        and status in ENTRY_STATUSES
        and (
            (isinstance(sha256, str) and _SHA256.fullmatch(sha256) is not None)
            or (sha256 is None and not done)
        )
        and (
            (isinstance(size, int) and not isinstance(size, bool) and size >= 0)
            or (size is None and not done)
        )
        and (url is None or isinstance(url, str))
        and isinstance(platform, str)
        and isinstance(python, str)
    )
    if not valid:
        raise InputError(
            f"{where}: an entry lacks one of file, sha256, size, url, platform, python, status "
            f"(planned, downloaded or failed): {raw!r}"
        )
    assert isinstance(file, str)
    assert isinstance(platform, str)
    assert isinstance(python, str)
    if not is_plain_file_name(file):
        raise InputError(
            f"{where}: an entry's file is not a plain file name in the wheelhouse (it could "
            f"point outside it); remove or correct that entry: {file!r}"
        )
    return ManifestEntry(
        file,
        sha256 if isinstance(sha256, str) else None,
        size if isinstance(size, int) else None,
        url if isinstance(url, str) else None,
        platform,
        python,
        status,
    )


def read_manifest(directory: Path) -> tuple[ManifestEntry, ...]:
    """The entries of `directory/wheelhouse.json`; InputError when it is not one of ours."""
    path = directory / MANIFEST_NAME
    where = str(path)
    try:
        # A FIFO here hung `fetch --verify`, a link to /dev/zero filled memory, and a document
        # 100k deep ended in RecursionError: read bounded, parse bounded (envcheck.bounded_input).
        text = read_regular_file(path, MANIFEST_MAX_BYTES).decode("utf-8")
        data = loads_json(text, MANIFEST_MAX_DEPTH)
    except FileNotFoundError as exc:
        raise InputError(
            f"{where} does not exist; is {str(directory)!r} a wheelhouse written by envcheck fetch?"
        ) from exc
    except UnsuitableFileError as exc:
        raise InputError(f"{where} {exc}") from None
    except OSError as exc:
        raise InputError(f"{where} cannot be read: {exc.strerror or exc}") from exc
    except TooDeepError as exc:
        raise InputError(f"{where} is not a wheelhouse manifest: it is {exc}") from None
    except ValueError as exc:
        raise InputError(f"{where} is not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("schema") not in READABLE_SCHEMAS:
        raise InputError(f"{where} is not a wheelhouse manifest (schema {SCHEMA!r} expected)")
    files = data.get("files")
    if not isinstance(files, list):
        raise InputError(f"{where} has no 'files' list")
    return tuple(_entry(raw, where) for raw in files)


def merge_entries(
    old: Iterable[ManifestEntry], new: Iterable[ManifestEntry], directory: Path
) -> tuple[ManifestEntry, ...]:
    """Old entries, updated by the new ones; sorted. A downloaded file that is gone since is
    dropped (someone removed it on purpose); a planned or failed one stays until it is fetched,
    so that --verify keeps failing on it."""
    fresh = list(new)
    by_file = {e.file: e for e in fresh if e.status == "downloaded"}
    merged: dict[tuple[str, str, str], ManifestEntry] = {}
    for previous in old:
        if previous.status == "downloaded" and not (directory / previous.file).is_file():
            continue
        latest = by_file.get(previous.file)
        if latest is not None:  # the file was fetched again: its digest is the new one
            previous = replace(  # noqa: PLW2901 - the updated row replaces the old one
                previous,
                sha256=latest.sha256,
                size=latest.size,
                url=latest.url,
                status=latest.status,
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
    write_atomically(
        path, manifest_json(entries), option="--dest", error=FetchError, follow_links=False
    )
    return path


@record
class Mismatch:
    file: str
    expected_sha256: str
    actual_sha256: str
    expected_size: int
    actual_size: int


@record
class Verification:
    """The wheelhouse compared with its manifest; `ok` only when nothing differs."""

    directory: Path
    checked: tuple[str, ...]  # files listed in the manifest, each once
    mismatched: tuple[Mismatch, ...]
    missing: tuple[str, ...]
    extra: tuple[str, ...]  # files in the directory that the manifest does not list
    conflicting: tuple[str, ...]  # files the manifest lists twice with different digests
    failed: tuple[str, ...] = ()  # planned files whose download failed
    incomplete: tuple[str, ...] = ()  # planned files not downloaded (yet): a run was cut short
    partial: tuple[str, ...] = ()  # unfinished downloads (.part): the next fetch resumes them

    @property
    def ok(self) -> bool:
        return not (
            self.mismatched
            or self.missing
            or self.extra
            or self.conflicting
            or self.failed
            or self.incomplete
        )


def _landed(path: Path, entry: ManifestEntry) -> bool:
    """Whether a planned or failed file is there after all, with the planned digest (a run
    killed between the rename and the manifest's update)."""
    if entry.sha256 is None or not path.is_file():
        return False
    return file_digests(path, ["sha256"])["sha256"] == entry.sha256


def verify_wheelhouse(directory: Path) -> Verification:
    """Re-hash every file `wheelhouse.json` lists; InputError when there is no manifest."""
    if not directory.is_dir():
        raise InputError(f"--verify {str(directory)!r} is not a directory")
    refuse_link(directory / MANIFEST_NAME)  # the wheelhouse's own files, never through a link
    entries = read_manifest(directory)
    expected: dict[str, ManifestEntry] = {}
    conflicting: set[str] = set()
    for entry in entries:
        first = expected.setdefault(entry.file, entry)
        if first.status != "downloaded" and entry.status == "downloaded":
            expected[entry.file], first = entry, entry
        if "downloaded" == first.status == entry.status and (first.sha256, first.size) != (
            entry.sha256,
            entry.size,
        ):
            conflicting.add(entry.file)
    mismatched: list[Mismatch] = []
    missing: list[str] = []
    failed: list[str] = []
    incomplete: list[str] = []
    for name, entry in sorted(expected.items()):
        path = directory / name
        refuse_link(path)  # a "wheel" that is a link to a file elsewhere is not this wheel
        if entry.status != "downloaded":
            if not _landed(path, entry):
                (failed if entry.status == "failed" else incomplete).append(name)
            continue
        if not path.is_file():
            missing.append(name)
            continue
        actual = file_digests(path, ["sha256"])["sha256"]
        size = path.stat().st_size
        if actual != entry.sha256 or size != entry.size:
            assert entry.sha256 is not None  # a downloaded entry has both
            assert entry.size is not None
            mismatched.append(Mismatch(name, entry.sha256, actual, entry.size, size))
    extra, partial = _unlisted(directory, set(expected))
    return Verification(
        directory,
        tuple(sorted(expected)),
        tuple(mismatched),
        tuple(missing),
        tuple(extra),
        tuple(sorted(conflicting)),
        tuple(failed),
        tuple(incomplete),
        tuple(partial),
    )


def _unlisted(directory: Path, listed: set[str]) -> tuple[list[str], list[str]]:
    """(extra files, unfinished downloads and other leftovers of a run) in `directory`."""
    extra, partial = [], []
    for path in directory.iterdir():
        name = path.name
        if name in (MANIFEST_NAME, LOCK_NAME) or name in listed:
            continue
        if is_temporary(name) or _RUN_LEFTOVERS.fullmatch(name):
            partial.append(name)
        else:
            extra.append(name + ("/" if path.is_dir() else ""))
    return sorted(extra), sorted(partial)


def clean_stale(directory: Path, keep: Iterable[str]) -> None:
    """Remove what earlier runs left behind that this run will not resume: `.part` files other
    than those named in `keep`, pip's download directories, the manifest's temporaries. Only
    the holder of the wheelhouse lock may call it: nothing else is writing there then."""
    kept = set(keep)
    for path in directory.iterdir():
        name = path.name
        if name in kept or not (is_temporary(name) or _RUN_LEFTOVERS.fullmatch(name)):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
