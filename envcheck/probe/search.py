"""Which copy of a shared library the platform's loader would pick, and every other copy.

TensorFlow never links its CUDA libraries: its `dso_loader` asks the loader for a bare name
(`dlopen("libcudnn.so.8", RTLD_NOW | RTLD_LOCAL)` on Linux, `LoadLibraryExW(L"cudnn64_8.dll",
NULL, LOAD_WITH_ALTERED_SEARCH_PATH)` on Windows; docs/facts.md 5.1). This module is the one
OS seam for that question: `LinuxSearch` emulates ld.so(8), `WindowsSearch` the Windows DLL
search order. Both are frozen records of their inputs (environment lists, directories, the
ld.so.cache) with the file-system access behind injectable callables, so every rule runs on
any host and the Windows one is tested on Linux.

The emulation answers "in which directories, in which order" and lists copies that shadow
each other. It must never load, open or map a library: it only looks at directory entries.
Reading a file's headers (ELF class, PE machine, soname, version) and spotting broken
symlinks are the binary reader's job; this module just skips names that are not files.

Not emulated (documented so a reader does not mistake them for answers):
* A library already loaded in the process (same soname / module name) is reused by both
  loaders without any search; LD_PRELOAD, DLL redirection, SxS manifests, KnownDLLs and API
  sets are not modelled (no CUDA library is a KnownDLL).
* ld.so's glibc-hwcaps/ and legacy `x86_64`/`tls` subdirectories of each search directory,
  `DF_1_NODEFLIB`, and secure-execution (setuid) mode, which ignores LD_LIBRARY_PATH.
* `$ORIGIN`/`$LIB`/`$PLATFORM` in RUNPATH/RPATH: the caller passes expanded directories.
"""

from __future__ import annotations

import bisect
import functools
import ntpath
import os
import platform as platform_module
import posixpath
import re
import subprocess
import sys
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from envcheck.probe import deadline, file_system
from envcheck.record import record

LD_CACHE = "ld.so.cache"
DEFAULT_DIRECTORY = "default directory"
_NOT_IN_CACHE = "ld.so.cache directory (this copy is not in the cache)"

# `ldconfig -p` tags each entry with the ABI it was built for; the 64-bit tags per machine.
# An x86_64 cache also lists i386 libraries as plain "(libc6)", which a 64-bit process skips.
_LDCONFIG_ABI_TAG = {
    "x86_64": "x86-64",
    "amd64": "x86-64",
    "aarch64": "AArch64",
    "arm64": "AArch64",
    "ppc64le": "64bit",
    "s390x": "64bit",
}
_LDCONFIG_LINE = re.compile(r"^\s+(?P<name>\S+)\s+\((?P<flags>[^)]*)\)\s+=>\s+(?P<path>.+?)\s*$")
_LDCONFIG_COMMANDS = ("ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig")

# Debian/Ubuntu multiarch directories come first; Fedora/RHEL use lib64. Only ld.so itself
# knows the compiled-in list (`ld.so --help`, glibc >= 2.33; see read_ld_so_system_dirs()).
_MULTIARCH = {
    "x86_64": "x86_64-linux-gnu",
    "amd64": "x86_64-linux-gnu",
    "aarch64": "aarch64-linux-gnu",
    "arm64": "aarch64-linux-gnu",
}
_LD_SO = {
    "x86_64": ("/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
    "aarch64": ("/lib/ld-linux-aarch64.so.1", "/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1"),
}
_LD_SO_SYSTEM_DIR = re.compile(r"^\s+(?P<dir>/\S*)\s+\(system search path\)\s*$")

Pairs = tuple[tuple[str, tuple[str, ...]], ...]
"""(object path, directories) in search order, e.g. the RUNPATH of the object that dlopen()s."""


@record
class SearchLocation:
    """A directory envcheck looked in, and whether the loader looks there too."""

    directory: str
    found_via: str  # "LD_LIBRARY_PATH", "RUNPATH of /site/tensorflow/libtensorflow_framework.so.2"
    searched: bool  # False: envcheck reports it but the loader never looks there


@record
class Candidate:
    """One existing copy of a file name; `selected` marks the copy the loader would open."""

    path: str
    found_via: str
    selected: bool


@runtime_checkable
class LoaderSearch(Protocol):
    """The loader's search for one requester, on one platform."""

    def locations(self) -> tuple[SearchLocation, ...]:
        """Every place, searched ones in loader order first, then the ones only envcheck reads."""
        ...

    def candidates(self, file_name: str) -> tuple[Candidate, ...]:
        """Every existing copy of `file_name`, in the order of locations(), one per real file.

        At most one is selected: the first copy the loader would reach; none when no searched
        location has it.
        """
        ...


def split_ld_library_path(value: str | None) -> tuple[str, ...]:
    """LD_LIBRARY_PATH as ld.so reads it: split on ':' *and* ';', empty entries kept.

    An empty entry ("a::b", a leading or trailing ':') means the current directory. A variable
    that is unset or empty is ignored altogether (glibc `_dl_init_paths`).
    """
    if not value:
        return ()
    return tuple(re.split(r"[:;]", value))


def split_windows_path(value: str | None) -> tuple[str, ...]:
    """%PATH% split on ';'; empty entries name nothing and are dropped."""
    return tuple(entry for entry in (value or "").split(";") if entry.strip())


def _posix_key(directory: str) -> str:
    return posixpath.normpath(directory) if directory else "."


def _windows_key(directory: str) -> str:
    return ntpath.normcase(ntpath.normpath(directory.strip().strip('"'))) if directory else "."


def _merge(
    searched: Sequence[SearchLocation],
    unsearched: Sequence[SearchLocation],
    key: Callable[[str], str],
) -> tuple[SearchLocation, ...]:
    """Searched locations as given (the loader may look twice), then each other place once.

    An unsearched place that is also searched (a wheel directory a RUNPATH names, CUDA_PATH\\bin
    on PATH) is the searched one, so it is left out; those not searched are forced to say so.
    """
    seen = {key(location.directory) for location in searched}
    rest: list[SearchLocation] = []
    for location in unsearched:
        directory_key = key(location.directory)
        if directory_key in seen:
            continue
        seen.add(directory_key)
        rest.append(replace(location, searched=False) if location.searched else location)
    return (*searched, *rest)


def _has_separator(file_name: str, separators: str) -> bool:
    return any(separator in file_name for separator in separators)


# The ld.so.cache step of the Linux order: a lookup by soname, not a directory; see candidates().
_CACHE_STEP = SearchLocation("<ld.so.cache>", LD_CACHE, True)


@functools.lru_cache(maxsize=8)
def _cache_directories_of(ld_cache: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The directories of the ld.so.cache's entries, in cache order. Shared by every search
    over one cache: the probe asks ~50 names, each library's own search too, of ~500 entries."""
    directories: dict[str, None] = {}
    for _, path in ld_cache:
        directories.setdefault(posixpath.dirname(path), None)
    return tuple(directories)


@record
class LinuxSearch:
    """ld.so(8) for a `dlopen()` of a bare name by the object named in `runpath`/`rpath`.

    Order: DT_RPATH of the requester, then of the object that loaded it, up to the executable
    (the `rpath` pairs, in that order) — only when the requester has no DT_RUNPATH, since
    glibc then drops every RPATH; LD_LIBRARY_PATH; DT_RUNPATH of the requester (`runpath`;
    ld.so uses only the caller's own, so pass one pair to match it exactly — several are
    searched in the order given); the ld.so.cache (by soname, not by directory: a file in a
    cached directory that ldconfig has not seen is not found); the default directories.

    An empty LD_LIBRARY_PATH entry is the current directory, as are relative entries resolved
    from it: both are joined to `cwd` when it is given. ld.so skips a file it cannot use (wrong
    ELF class or machine) and searches on; `usable` is the binary reader's verdict on that
    (default: every file is usable). A dangling symlink is no file (`exists` is False) and so
    no candidate here; the binary reader reports broken links.
    """

    ld_library_path: tuple[str, ...]
    runpath: Pairs
    rpath: Pairs
    ld_cache: tuple[tuple[str, str], ...]  # (soname, path) from `ldconfig -p`, in cache order
    default_dirs: tuple[str, ...]
    extra: tuple[SearchLocation, ...] = ()  # wheel dirs, conda envs: reported, never searched
    exists: Callable[[str], bool] = os.path.isfile
    cwd: str | None = None
    realpath: Callable[[str], str] = os.path.realpath
    usable: Callable[[str], bool] | None = None
    # The names in a directory when they are known cheaply (ListingCache.names): a directory
    # without the name is passed over without building a path, which with thousands of wheel
    # directories is most of a search.
    listed: Callable[[str], Container[str]] | None = None

    def _ld_library_path_locations(self) -> list[SearchLocation]:
        result = []
        for entry in self.ld_library_path:
            if entry and posixpath.isabs(entry):
                result.append(SearchLocation(entry, "LD_LIBRARY_PATH", True))
                continue
            directory = posixpath.normpath(posixpath.join(self.cwd or ".", entry or "."))
            how = "empty entry: current directory" if not entry else "relative to current directory"
            result.append(SearchLocation(directory, f"LD_LIBRARY_PATH ({how})", True))
        return result

    def _rpath_locations(self) -> tuple[list[SearchLocation], list[SearchLocation]]:
        """(searched, ignored) RPATH directories."""
        if not self.runpath:
            searched = [
                SearchLocation(directory, f"RPATH of {requester}", True)
                for requester, directories in self.rpath
                for directory in directories
            ]
            return searched, []
        with_runpath = {requester for requester, _ in self.runpath}
        ignored: list[SearchLocation] = []
        for requester, directories in self.rpath:
            owner = requester if requester in with_runpath else self.runpath[0][0]
            how = f"RPATH of {requester} (ignored: {owner} has a RUNPATH)"
            ignored += [SearchLocation(d, how, False) for d in directories]
        return [], ignored

    @functools.cached_property
    def _cache_directory_list(self) -> tuple[str, ...]:
        return _cache_directories_of(self.ld_cache)

    def _cache_directories(self) -> list[str]:
        return list(self._cache_directory_list)

    def _plan(self) -> tuple[list[SearchLocation], list[SearchLocation]]:
        """(searched in loader order with the cache as one _CACHE_STEP, unsearched)."""
        return self._planned

    @functools.cached_property
    def _planned(self) -> tuple[list[SearchLocation], list[SearchLocation]]:
        # Once per search, not once per library name: the plan depends on the fields only.
        rpath_searched, rpath_ignored = self._rpath_locations()
        runpath = [
            SearchLocation(directory, f"RUNPATH of {requester}", True)
            for requester, directories in self.runpath
            for directory in directories
        ]
        searched = [
            *rpath_searched,
            *self._ld_library_path_locations(),
            *runpath,
            _CACHE_STEP,
            *(SearchLocation(d, DEFAULT_DIRECTORY, True) for d in self.default_dirs),
        ]
        return searched, [*rpath_ignored, *self.extra]

    def locations(self) -> tuple[SearchLocation, ...]:
        return self._locations

    @functools.cached_property
    def _locations(self) -> tuple[SearchLocation, ...]:
        searched, unsearched = self._plan()
        expanded: list[SearchLocation] = []
        for location in searched:
            if location is _CACHE_STEP:
                expanded += [SearchLocation(d, LD_CACHE, True) for d in self._cache_directories()]
            else:
                expanded.append(location)
        return _merge(expanded, unsearched, _posix_key)

    def candidates(self, file_name: str) -> tuple[Candidate, ...]:
        if _has_separator(file_name, "/"):
            # ld.so does not search for a name with a slash: it opens that path.
            return _single(file_name, self.exists(file_name), "path given (no search)")
        searched, _ = self._plan()
        found = _Collector(self._real)
        looked: set[str] = set()
        for location in searched:
            if location.directory in looked:
                continue  # a RUNPATH naming a directory again finds the same file again
            looked.add(location.directory)
            if location is _CACHE_STEP:
                # A stale cache entry fails to open and ld.so goes on to the default dirs.
                for soname, path in self.ld_cache:
                    if soname == file_name and self.exists(path):
                        found.add(path, LD_CACHE, self._usable(path))
                continue
            present = self._present(location.directory, file_name)
            if present is not None:
                found.add(present, location.found_via, self._usable(present))
        for location in self.locations():
            if location.searched:
                continue
            present = self._present(location.directory, file_name)
            if present is not None:
                found.add(present, location.found_via, False)
        for directory in self._cache_directories():
            present = self._present(directory, file_name)
            if present is not None:
                found.add(present, _NOT_IN_CACHE, False)
        return found.result()

    def _present(self, directory: str, file_name: str) -> str | None:
        """The path of `file_name` in `directory` when a file is there, else None."""
        if self.listed is not None and file_name not in self.listed(directory):
            return None
        path = posixpath.join(directory, file_name)
        return path if self.exists(path) else None

    def _usable(self, path: str) -> bool:
        return self.usable is None or self.usable(path)

    def _real(self, path: str) -> str:
        # The same file is met under every name and directory asked for (~50 names): realpath
        # walks each component with lstat, so it is asked once per path.
        cache = self._realpaths
        if path not in cache:
            cache[path] = self.realpath(path)
        return cache[path]

    @functools.cached_property
    def _realpaths(self) -> dict[str, str]:
        return {}


WindowsMode = Literal["loadlibrary", "secure"]


def _list_directory(directory: str) -> Iterable[str]:
    try:
        with os.scandir(directory) as entries:
            return [entry.name for entry in entries if entry.is_file()]
    except OSError:
        return ()


@record
class WindowsSearch:
    """The Windows DLL search for a bare DLL name, in one of two modes.

    `mode="loadlibrary"` (default) is TF's dso_loader: `LoadLibraryExW(name, NULL,
    LOAD_WITH_ALTERED_SEARCH_PATH)`. With a bare name that flag changes nothing, so the
    standard order applies (SafeDllSearchMode on, the default): application directory (of the
    process image: in a venv that is the base python.exe, not Scripts\\python.exe, which is a
    redirector that starts it), System32, (the 16-bit System directory, skipped), Windows
    directory, current directory, then %PATH%. CUDA_PATH is read by no loader; its bin is
    reported with searched=False unless it is also on PATH.

    `mode="secure"` is LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, which Python >= 3.8 uses to resolve
    the DLLs an extension module imports (with LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR: the module's
    own directory, `importer_dir`, first) and for `ctypes.CDLL(bare name)`: application
    directory, os.add_dll_directory() directories (their relative order is unspecified by
    Windows; kept as given), System32 — no Windows directory, no current directory, no PATH.
    os.add_dll_directory() affects only this mode: TF's own LoadLibraryExW calls never see it
    (assuming nothing in the process called SetDefaultDllDirectories; CPython does not).

    Unlike ld.so, Windows does not skip a DLL of the wrong bitness: the first file of that
    name wins and fails with error 193 (docs/facts.md 6.1/6.2). File names compare
    case-insensitively; `files` lists a directory (default: its plain files via os.scandir).
    """

    application_dir: str
    dll_directories: tuple[str, ...]
    system32: str
    windows_dir: str
    cwd: str | None
    path: tuple[str, ...]
    cuda_path: str | None
    extra: tuple[SearchLocation, ...] = ()
    files: Callable[[str], Iterable[str]] | None = None
    mode: WindowsMode = "loadlibrary"
    importer_dir: str | None = None  # secure mode: the directory of the importing .pyd/.dll

    def __post_init__(self) -> None:
        if self.mode not in ("loadlibrary", "secure"):
            message = f"unknown Windows search mode {self.mode!r}: use 'loadlibrary' or 'secure'"
            raise ValueError(message)

    def _absolute(self, directory: str) -> str:
        if self.cwd and not ntpath.isabs(directory):
            return ntpath.normpath(ntpath.join(self.cwd, directory))
        return directory

    def _cuda_bin(self) -> SearchLocation | None:
        if not self.cuda_path:
            return None
        directory = ntpath.join(self.cuda_path, "bin")
        return SearchLocation(directory, "CUDA_PATH (not searched by the loader)", False)

    def _plan(self) -> tuple[list[SearchLocation], list[SearchLocation]]:
        app = SearchLocation(self.application_dir, "application directory", True)
        system32 = SearchLocation(self.system32, "System32", True)
        path = [SearchLocation(self._absolute(p), "PATH", True) for p in self.path]
        added = [SearchLocation(d, "os.add_dll_directory", True) for d in self.dll_directories]
        cuda_bin = [location for location in (self._cuda_bin(),) if location is not None]
        if self.mode == "loadlibrary":
            searched = [app, system32, SearchLocation(self.windows_dir, "Windows directory", True)]
            if self.cwd is not None:
                searched.append(SearchLocation(self.cwd, "current directory", True))
            searched += path
            ignored = "os.add_dll_directory (not searched by LoadLibraryExW without flags)"
            unsearched = [SearchLocation(d, ignored, False) for d in self.dll_directories]
            return searched, [*unsearched, *cuda_bin, *self.extra]
        importer = (
            [SearchLocation(self.importer_dir, "directory of the importing module", True)]
            if self.importer_dir
            else []
        )
        not_secure = "not searched in secure mode"
        unsearched = [SearchLocation(self.windows_dir, f"Windows directory ({not_secure})", False)]
        if self.cwd is not None:
            unsearched.append(SearchLocation(self.cwd, f"current directory ({not_secure})", False))
        unsearched += [replace(p, found_via=f"PATH ({not_secure})", searched=False) for p in path]
        return [*importer, app, *added, system32], [*unsearched, *cuda_bin, *self.extra]

    def locations(self) -> tuple[SearchLocation, ...]:
        searched, unsearched = self._plan()
        return _merge(searched, unsearched, _windows_key)

    def candidates(self, file_name: str) -> tuple[Candidate, ...]:
        if _has_separator(file_name, "\\/"):
            # A name with a path is loaded from that path, without a search.
            directory, name = ntpath.split(file_name)
            matches = self._matches(directory, name, {})
            return _single(matches[0] if matches else file_name, bool(matches), "path given")
        found = _Collector(_windows_key)
        listings: dict[str, tuple[str, ...]] = {}
        for location in self.locations():
            for path in self._matches(location.directory, file_name, listings):
                found.add(path, location.found_via, location.searched)
        return found.result()

    def _matches(
        self, directory: str, file_name: str, listings: dict[str, tuple[str, ...]]
    ) -> list[str]:
        directory_key = _windows_key(directory)
        if directory_key not in listings:
            list_files = self.files or _list_directory
            listings[directory_key] = tuple(list_files(directory))
        wanted = file_name.lower()
        names = [name for name in listings[directory_key] if name.lower() == wanted]
        # On a case-sensitive directory both spellings can exist; the exact one first.
        names.sort(key=lambda name: (name != file_name, name))
        return [ntpath.join(directory, name) for name in names]


class _Collector:
    """Candidates in the order found, one per real file; the first usable searched one wins."""

    def __init__(self, key: Callable[[str], str]) -> None:
        self._key = key
        self._seen: set[str] = set()
        self._found: list[Candidate] = []
        self._selected = False

    def add(self, path: str, found_via: str, selectable: bool) -> None:
        path_key = self._key(path)
        if path_key in self._seen:
            return
        self._seen.add(path_key)
        selected = selectable and not self._selected
        self._selected = self._selected or selected
        self._found.append(Candidate(path, found_via, selected))

    def result(self) -> tuple[Candidate, ...]:
        return tuple(self._found)


class ListingCache:
    """`exists` for LinuxSearch that lists each directory once, then answers from memory.

    Probing ~50 library names through 1,000 LD_LIBRARY_PATH entries is 50,000 stat() calls
    without it; with it, 1,000 listdir() calls and a stat() only for names that are there.
    """

    def __init__(self) -> None:
        self._names: dict[str, frozenset[str]] = {}
        self._folded: dict[str, tuple[tuple[str, str], ...]] = {}

    def names(self, directory: str) -> frozenset[str]:
        if directory not in self._names:
            try:
                # Names only: a Path per entry costs milliseconds in a system lib directory.
                self._names[directory] = frozenset(os.listdir(directory))  # noqa: PTH208
            except OSError:
                self._names[directory] = frozenset()
        return self._names[directory]

    def exists(self, path: str) -> bool:
        directory, name = os.path.split(path)
        return name in self.names(directory or ".") and file_system.is_file(path)

    def starting_with(self, directory: str, prefix: str) -> list[str]:
        """The names in `directory` that start with `prefix`, ignoring case, sorted.

        The probe asks this for ~50 library names per directory; a system library directory
        holds thousands of names, so a sorted (case-folded) index answers by bisection instead
        of a scan per question.
        """
        if directory not in self._folded:
            names = self.names(directory)
            self._folded[directory] = tuple(sorted((n.casefold(), n) for n in names))
        folded = self._folded[directory]
        key = prefix.casefold()
        found = []
        for lowered, name in folded[bisect.bisect_left(folded, (key, "")) :]:
            if not lowered.startswith(key):
                break
            found.append(name)
        return sorted(found)


def unsearchable_locations(search: LoaderSearch) -> tuple[str, ...]:
    """One sentence for each place the loader searches but the file system refuses to (a name
    too long, a path through a regular file, a symlink loop, no permission): the loader skips
    it, and so would every copy of a library placed there. A missing directory is no news."""
    sentences: dict[str, None] = {}
    for location in search.locations():
        if not location.searched:
            continue
        reason = file_system.unsearchable(location.directory)
        if reason is not None:
            sentences[
                f"{location.found_via} entry not searchable: {reason}: {location.directory}"
            ] = None
    return tuple(sentences)


def _single(path: str, exists: bool, found_via: str) -> tuple[Candidate, ...]:
    return (Candidate(path, found_via, True),) if exists else ()


def parse_ldconfig_p(text: str, machine: str | None = None) -> tuple[tuple[str, str], ...]:
    """(soname, path) pairs from `ldconfig -p` output, in cache order.

    With `machine` (e.g. "x86_64"), only entries built for that machine's 64-bit ABI are kept:
    on x86_64 an entry tagged "(libc6)" is an i386 library. Entries for a hwcap subdirectory
    (`hwcap: "x86-64-v3"`) are kept; envcheck does not know which the CPU supports. An unknown
    machine keeps every entry. Header, footer and unparsable lines are skipped.
    """
    tag = _LDCONFIG_ABI_TAG.get(machine.lower()) if machine else None
    pairs = []
    for line in text.splitlines():
        match = _LDCONFIG_LINE.match(line)
        if match is None:
            continue
        flags = [flag.strip() for flag in match["flags"].split(",")]
        if tag is not None and tag not in flags:
            continue
        pairs.append((match["name"], match["path"]))
    return tuple(pairs)


@functools.lru_cache(maxsize=4)
def read_ld_cache(timeout: float = 5.0, machine: str | None = None) -> tuple[tuple[str, str], ...]:
    """The host's ld.so.cache via `ldconfig -p`, for `machine` (default: this one); () if none.

    Read once per process: the driver cascade and the library search both ask.
    """
    wanted = machine or platform_module.machine()
    environment = {**os.environ, "LC_ALL": "C"}
    for command in _LDCONFIG_COMMANDS:
        try:
            completed = subprocess.run(
                [command, "-p"],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=deadline.bounded(timeout),  # under --deadline: what is left
                env=environment,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if completed.returncode == 0:
            return parse_ldconfig_p(completed.stdout, wanted)
    return ()


def default_linux_dirs(machine: str) -> tuple[str, ...]:
    """ld.so's built-in directories as a union over distributions, multiarch ones first.

    Debian's x86_64 ld.so searches /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib,
    /usr/lib; Fedora's /lib64, /usr/lib64 (its /lib holds i386 files, which ld.so skips by ELF
    class). Prefer read_ld_so_system_dirs() where ld.so can be asked.
    """
    multiarch = _MULTIARCH.get(machine.lower())
    first = (f"/lib/{multiarch}", f"/usr/lib/{multiarch}") if multiarch else ()
    return (*first, "/lib64", "/usr/lib64", "/lib", "/usr/lib")


def parse_ld_so_help(text: str) -> tuple[str, ...]:
    """The "(system search path)" directories from `ld.so --help` (glibc >= 2.33)."""
    directories = []
    for line in text.splitlines():
        match = _LD_SO_SYSTEM_DIR.match(line)
        if match is not None:
            directories.append(match["dir"])
    return tuple(directories)


def read_ld_so_system_dirs(
    machine: str | None = None, timeout: float = 5.0
) -> tuple[str, ...] | None:
    """Ask the dynamic loader for its compiled-in directories; None when it cannot tell.

    Runs `ld.so --help`, which prints text and loads nothing.
    """
    for loader in _LD_SO.get((machine or platform_module.machine()).lower(), ()):
        try:
            completed = subprocess.run(
                [loader, "--help"],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=deadline.bounded(timeout),
                env={**os.environ, "LC_ALL": "C"},
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        directories = parse_ld_so_help(completed.stdout)
        if directories:
            return directories
    return None


def nvidia_wheel_dirs(
    site_packages: Sequence[str], *, windows: bool | None = None
) -> tuple[SearchLocation, ...]:
    """The directories pip's `nvidia-*` wheels put libraries in, as searched=False locations.

    `site-packages/nvidia/<component>/lib` on Linux (CUDA 12 and older: one directory per
    component; CUDA 13: the shared `nvidia/cu13/lib`), `nvidia/<component>/bin` on Windows
    (default: this host). Only directories that exist are returned. The loader reaches them
    only through a RUNPATH (TF >= 2.14 on Linux, docs/facts.md 5.3) or LD_LIBRARY_PATH/PATH;
    a search built with them as `extra` drops those it really searches.
    """
    on_windows = os.name == "nt" if windows is None else windows
    subdirectory = "bin" if on_windows else "lib"
    result = []
    for site in site_packages:
        for component in file_system.children(Path(site, "nvidia")):
            directory = component / subdirectory
            if file_system.is_dir(directory):
                how = f"pip wheel nvidia/{component.name}"
                result.append(SearchLocation(str(directory), how, False))
    return tuple(result)


def conda_dirs(
    env: Mapping[str, str], *, windows: bool | None = None
) -> tuple[SearchLocation, ...]:
    """The active conda environment's library directory, from CONDA_PREFIX.

    `$CONDA_PREFIX/lib` on Linux, `%CONDA_PREFIX%\\Library\\bin` on Windows: searched only when
    it is on LD_LIBRARY_PATH / PATH (conda activation puts Library\\bin on PATH on Windows; on
    Linux nothing puts lib on LD_LIBRARY_PATH unless the user does).
    """
    on_windows = os.name == "nt" if windows is None else windows
    variables = {key.upper(): value for key, value in env.items()} if on_windows else dict(env)
    prefix = variables.get("CONDA_PREFIX")
    if not prefix:
        return ()
    if on_windows:
        directory = ntpath.join(prefix, "Library", "bin")
        on_path = {_windows_key(p) for p in split_windows_path(variables.get("PATH"))}
        searched = _windows_key(directory) in on_path
    else:
        directory = posixpath.join(prefix, "lib")
        entries = split_ld_library_path(variables.get("LD_LIBRARY_PATH"))
        searched = _posix_key(directory) in {_posix_key(e) for e in entries if e}
    return (SearchLocation(directory, "conda environment", searched),)


def host_search(
    *,
    runpath: Pairs = (),
    rpath: Pairs = (),
    extra: tuple[SearchLocation, ...] = (),
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    machine: str | None = None,
    executable: str | None = None,
    cwd: str | None = None,
    ld_cache: tuple[tuple[str, str], ...] | None = None,
    default_dirs: tuple[str, ...] | None = None,
    dll_directories: tuple[str, ...] = (),
    mode: WindowsMode = "loadlibrary",
) -> LinuxSearch | WindowsSearch:
    """The search for this host (or the one described by the arguments), from its environment.

    Reads only the environment and, on Linux when `ld_cache` is None, runs `ldconfig -p`. The
    requester's expanded RUNPATH/RPATH come from the caller (the binary reader). On Windows the
    os.add_dll_directory() list cannot be read back, so the caller passes what it knows, and
    every CUDA_PATH_V<x>_<y> toolkit's bin is reported next to CUDA_PATH's. Other POSIX systems
    (macOS dyld) get the Linux rules, which are only an approximation there.
    """
    environment = os.environ if env is None else env
    current = cwd if cwd is not None else _getcwd()
    if (platform or sys.platform) == "win32":
        variables = {key.upper(): value for key, value in environment.items()}
        windows_dir = variables.get("SYSTEMROOT") or variables.get("WINDIR") or "C:\\Windows"
        # In a venv, sys.executable is the redirector; the process image is the base python.
        image = executable or getattr(sys, "_base_executable", None) or sys.executable
        cuda_path = variables.get("CUDA_PATH")
        versions = sorted(key for key in variables if key.startswith("CUDA_PATH_V"))
        toolkits = tuple(
            SearchLocation(
                ntpath.join(variables[key], "bin"), f"{key} (not searched by the loader)", False
            )
            for key in versions
            if variables[key]
        )
        return WindowsSearch(
            application_dir=ntpath.dirname(image),
            dll_directories=dll_directories,
            system32=ntpath.join(windows_dir, "System32"),
            windows_dir=windows_dir,
            cwd=current,
            path=split_windows_path(variables.get("PATH")),
            cuda_path=cuda_path or None,
            extra=(*toolkits, *extra),
            mode=mode,
        )
    arch = machine or platform_module.machine()
    return LinuxSearch(
        ld_library_path=split_ld_library_path(environment.get("LD_LIBRARY_PATH")),
        runpath=runpath,
        rpath=rpath,
        ld_cache=read_ld_cache(machine=arch) if ld_cache is None else ld_cache,
        default_dirs=default_linux_dirs(arch) if default_dirs is None else default_dirs,
        extra=extra,
        cwd=current,
    )


def _getcwd() -> str | None:
    try:
        return str(Path.cwd())
    except OSError:  # the directory was removed under us
        return None


if TYPE_CHECKING:

    def _both_are_loader_searches(
        linux: LinuxSearch, windows: WindowsSearch
    ) -> tuple[LoaderSearch, LoaderSearch]:
        return linux, windows


__all__ = [
    "Candidate",
    "LinuxSearch",
    "LoaderSearch",
    "SearchLocation",
    "WindowsSearch",
    "conda_dirs",
    "default_linux_dirs",
    "host_search",
    "nvidia_wheel_dirs",
    "parse_ld_so_help",
    "parse_ldconfig_p",
    "read_ld_cache",
    "read_ld_so_system_dirs",
    "split_ld_library_path",
    "split_windows_path",
    "unsearchable_locations",
]
