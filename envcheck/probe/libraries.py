"""Which shared libraries a framework needs, every copy on this machine, and the one that loads.

The names come from the matrix (libraries.toml, cudnn.toml) for the installed TensorFlow build,
or for every CUDA and cuDNN major the matrix knows when no framework is installed. For each name
the loader search (search.py) lists the copies in loader order; each copy is read, never loaded
(binary_files.py): architecture, dependencies that do not resolve, version from its file name,
from a header next to it, or, for the selected copy only, from its own version function called in
a child process. Ownership (pip wheel, conda package) comes from their file records.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envcheck.matrix.model import Matrix
from envcheck.matrix.records import LibraryFile
from envcheck.probe import file_system
from envcheck.probe.binary_files import (
    BinaryInfo,
    compatible_with,
    defined_symbols,
    dynamic_string_matches,
    expand_origin,
    read_binary,
    version_from_file_name,
)
from envcheck.probe.facts import (
    ANOTHER_VERSION,
    DANGLING_SYMLINK,
    SYMLINK_LOOP,
    FrameworkFacts,
    LibraryFacts,
    WheelFacts,
)
from envcheck.probe.isolation import run_child
from envcheck.probe.search import (
    Candidate,
    LinuxSearch,
    ListingCache,
    LoaderSearch,
    Pairs,
    SearchLocation,
)
from envcheck.record import record
from envcheck.versions import major_minor

# Names of what a library imports that are worth resolving: the CUDA stack and its helpers.
# System libraries (libc, KERNEL32, the VC++ runtime) are the OS's business.
_STACK_DEPENDENCY = re.compile(r"^(lib)?(cu|nv|zlib|cudnn)", re.IGNORECASE)
DRIVER_LIBRARY = LibraryFile("cuda-driver", "libcuda.so.1", "nvcuda.dll", None, None, True)
# A dependency on the driver's own library is the driver's business (driver findings), whatever
# the search finds: in a Docker build there is no driver by design.
_DRIVER_DEPENDENCIES = frozenset({"libcuda.so.1", "libcuda.so", "nvcuda.dll"})
# TensorFlow's DSO loader has one function per library it can open:
# tsl::internal::DsoLoader::GetCusolverDsoHandle() (stream_executor::internal before TF 2.13).
_DSO_LOADER_FUNCTION = re.compile(rb"DsoLoader\d+Get(\w+?)DsoHandleEv")
# cuDNN sub-library names as the shim spells them in its strings, and as files.
_CUDNN_SUBLIBRARY_TEXT = re.compile(rb"(libcudnn_[a-z_]+)\.so")
_CUDNN_SUBLIBRARY_FILE = re.compile(r"libcudnn_[a-z_]+\.so\.\d+")
_NVIDIA_WHEEL = re.compile(r"^nvidia-[\w.-]+ (?P<version>\d+(\.\d+)+) \(pip\)$")
_SHIM_SCAN_LIMIT = 16 * 1024 * 1024  # the shims are ~150 KB; never read a huge file whole


@record
class WantedLibrary:
    role: str
    file: str  # the name the loader is asked for on this platform
    needed_for: str  # e.g. "TensorFlow 2.15.1 (CUDA 12.2, cuDNN 8)"
    version_call: str | None  # "cudnn", "cudart" or "cublas": which version function it has
    # cuDNN's shim and its sub-libraries: True when the shim opens them from its own directory
    # first (cuDNN 9), False when it asks the loader by name (cuDNN 8); None for the rest.
    beside_shim: bool | None = None
    fallback: str | None = None  # LibraryFile.fallback: asked for when `file` cannot be loaded


_VERSION_CALLS = {"cudnn": "cudnn", "cudart": "cudart", "cublas": "cublas"}


def _tensorflow(frameworks: Sequence[FrameworkFacts]) -> FrameworkFacts | None:
    return next((f for f in frameworks if f.name == "tensorflow"), None)


def _build_versions(matrix: Matrix, tf: FrameworkFacts) -> tuple[Version, int] | None:
    """(CUDA, cuDNN major) the installed TensorFlow loads, from its build info or the matrix."""
    build = tf.build
    if build.get("is_cuda_build") is False:
        return None
    cuda_text, cudnn_text = build.get("cuda_version"), build.get("cudnn_version")
    try:
        if cuda_text and cudnn_text:
            return Version(str(cuda_text)), int(str(cudnn_text).split(".")[0])
        release = matrix.release_for(Version(tf.version))
    except (InvalidVersion, ValueError):
        return None
    if release is None or release.cuda is None or release.cudnn is None:
        return None
    return release.cuda, release.cudnn.release[0]


def tensorflow_loader_names(
    requester: Path | None, matrix: Matrix | None = None
) -> frozenset[str] | None:
    """The libraries the installed TensorFlow's DSO loader can open, by its function names
    ("Cusolver", "CudaRuntime"); None when the binary names no such function (then the matrix
    alone decides).

    With `matrix`, the loader names it knows (LibraryFile.loader: the only ones wanted_libraries
    asks about) are looked up in the binary's symbol hash table first, in the namespaces and
    classes TensorFlow has had; only a binary without the table, or with none of them, has its
    whole dynamic string table scanned (~10 ms for libtensorflow_framework.so.2's 15 MB)."""
    if requester is None:
        return None
    if matrix is not None:
        symbols = {
            symbol: name for name in known_loader_names(matrix) for symbol in _loader_symbols(name)
        }
        defined = defined_symbols(requester, symbols)
        if defined:
            return frozenset(symbols[symbol] for symbol in defined)
    names = dynamic_string_matches(requester, _DSO_LOADER_FUNCTION)
    return frozenset(names) if names else None


def known_loader_names(matrix: Matrix) -> set[str]:
    """The DSO loader names the matrix gives its libraries (LibraryFile.loader): the only ones
    wanted_libraries asks about."""
    files = [lib for library_set in matrix.library_sets for lib in library_set.libraries]
    files += [lib for row in matrix.cudnn_majors for lib in row.libraries]
    return {lib.loader for lib in files if lib.loader}


def _loader_symbols(name: str) -> list[str]:
    """The mangled names of `DsoLoader::Get<name>DsoHandle()` and of its CachedDsoLoader twin,
    in tsl::internal (TensorFlow 2.13 on) and stream_executor::internal (before)."""
    function = f"Get{name}DsoHandle"
    return [
        f"_ZN{namespace}{loader}{len(function)}{function}Ev"
        for namespace in ("3tsl8internal", "15stream_executor8internal")
        for loader in ("9DsoLoader", "15CachedDsoLoader")
    ]


def wanted_libraries(
    matrix: Matrix,
    frameworks: Sequence[FrameworkFacts],
    windows: bool,
    loader_names: frozenset[str] | None = None,
) -> tuple[WantedLibrary, ...]:
    """The libraries to look for: the installed TensorFlow's, else every one the matrix knows.

    With `loader_names` (tensorflow_loader_names), a library TensorFlow's own loader has no
    function for is left out: that release never asks for it (cuRAND in TF 2.15 and later).
    """
    tf = _tensorflow(frameworks)
    versions = _build_versions(matrix, tf) if tf is not None else None
    groups: list[tuple[str, tuple[LibraryFile, ...]]] = []
    if tf is not None and tf.build.get("is_cuda_build") is False:
        # A CPU-only build (tensorflow-cpu) asks for no CUDA library: listing every CUDA line's
        # names as "not found" would report dozens of misses nobody has.
        pass
    elif tf is not None and versions is not None:
        cuda, cudnn_major = versions
        label = f"TensorFlow {tf.version} (CUDA {cuda}, cuDNN {cudnn_major})"
        library_set = matrix.cuda_libraries(cuda)
        groups.append((label, library_set.libraries if library_set else ()))
        groups.append((label, matrix.cudnn_libraries(cudnn_major, major_minor(cuda)[0])))
    else:
        for library_set in matrix.library_sets:
            cuda_label = "/".join(str(v) for v in library_set.cuda)
            groups.append((f"CUDA {cuda_label}", library_set.libraries))
        for row in matrix.cudnn_majors:
            groups.append((f"cuDNN {row.major}", matrix.cudnn_libraries(row.major, 12)))
    groups.insert(0, ("the NVIDIA driver", (DRIVER_LIBRARY,)))
    # Only TensorFlow's loader retries with the unversioned fallback (libcupti.so): without a
    # TensorFlow build there is no "this build" whose version the fallback could miss.
    fallbacks = tf is not None and versions is not None
    wanted: dict[str, WantedLibrary] = {}
    for label, libraries in groups:
        for library in libraries:
            name = library.windows if windows else library.linux
            if loader_names is not None and library.loader not in (None, *loader_names):
                continue
            if name and name not in wanted:
                wanted[name] = WantedLibrary(
                    library.role,
                    name,
                    label,
                    _VERSION_CALLS.get(library.role),
                    _beside_shim(matrix, library),
                    library.fallback if fallbacks and not windows else None,
                )
    return tuple(wanted.values())


def _beside_shim(matrix: Matrix, library: LibraryFile) -> bool | None:
    if library.role != "cudnn" and not library.role.startswith("cudnn_"):
        return None
    major = _cudnn_major_of(library.linux or library.windows or "")
    row = matrix.cudnn_major(int(major)) if major else None
    return row.sublibraries_beside_shim if row is not None else None


def _cudnn_major_of(file_name: str) -> str | None:
    """libcudnn_ops.so.9 -> "9", cudnn_ops64_9.dll -> "9"."""
    match = re.search(r"\.so\.(\d+)$|64_(\d+)\.dll$", file_name, re.IGNORECASE)
    return (match.group(1) or match.group(2)) if match else None


def tensorflow_requester(frameworks: Sequence[FrameworkFacts]) -> Path | None:
    """The object whose dlopen() calls load CUDA: TensorFlow's libtensorflow_framework.so.2.

    TF's DSO loader lives there, and dlopen() uses the RUNPATH of the calling object only, which
    is why the 2.16 wheels (RUNPATH without nvidia/cudnn/lib) miss pip's cuDNN.
    """
    tf = _tensorflow(frameworks)
    if tf is None or not tf.location:
        return None
    for name in ("libtensorflow_framework.so.2", "libtensorflow_framework.so"):
        path = Path(tf.location) / "tensorflow" / name
        if file_system.is_file(path):
            return path
    return None


def requester_paths(requester: Path | None) -> tuple[Pairs, Pairs, tuple[str, ...]]:
    """(runpath pairs, rpath pairs, problems) of the requester, with $ORIGIN expanded.

    A problem is a sentence for the probe's errors: the file's dynamic section could not be
    read whole (malformed, or past a bound of binary_files), so its RUNPATH may be missing and
    the libraries the loader finds through it would be reported missing without a word why.
    """
    if requester is None:
        return (), (), ()
    info = read_binary(requester, exports=False)
    origin = str(requester.parent)
    runpath = ((str(requester), expand_origin(info.runpath, origin)),) if info.runpath else ()
    rpath = ((str(requester), expand_origin(info.rpath, origin)),) if info.rpath else ()
    problems = tuple(
        f"the library search path (RUNPATH/RPATH) of {requester} could not be read, so "
        f"libraries the loader finds through it may be reported missing: {problem}"
        for problem in info.problems
    )
    return runpath, rpath, problems


# --- ownership ---------------------------------------------------------------------------------


RECORD_LIMIT = 16 * 1024 * 1024  # bytes of one RECORD read (torch's, the largest, ~1.5 MB)
_LIBRARY_FILE = re.compile(r"\.(so(\.\d+)*|dll)$", re.IGNORECASE)


def normalized_name(name: str) -> str:
    """A distribution name as its *.dist-info folder spells it, compared case-blind:
    nvidia-cublas-cu12, nvidia.cublas_cu12 -> nvidia_cublas_cu12 (PEP 503's rule, with "_")."""
    return re.sub(r"[-_.]+", "_", name).lower()


def dist_info_index(site: str) -> dict[str, list[str]]:
    """Normalized distribution name -> the names of its *.dist-info folders in `site`, sorted,
    from one listing of the directory. Each wheel is then a dictionary look-up: matching every
    wheel against every folder made the probe wheels x entries (4,000 nvidia_* folders: over 5
    minutes)."""
    index: dict[str, list[str]] = {}
    for name in file_system.names(site):
        if name.lower().endswith(".dist-info"):
            stem = name[: -len(".dist-info")].partition("-")[0]
            index.setdefault(normalized_name(stem), []).append(name)
    return index


def _own_folders(index: Mapping[str, list[str]], wheel: WheelFacts) -> list[str]:
    """The wheel's *.dist-info folders: those of its version when a broken upgrade left
    several behind, else all of its name's."""
    folders = index.get(normalized_name(wheel.name), [])
    if len(folders) > 1:
        own = [f for f in folders if f[: -len(".dist-info")].partition("-")[2] == wheel.version]
        return own or folders
    return folders


def wheel_owners(wheels: Sequence[WheelFacts]) -> dict[str, str]:
    """Real path of each library file -> the pip distribution whose RECORD lists it.

    Each site-packages is listed once, whatever the number of wheels, and each RECORD read once.
    """
    owners: dict[str, str] = {}
    indexes: dict[str, dict[str, list[str]]] = {}
    read: set[tuple[str, str]] = set()
    real_paths = _RealPaths()
    for wheel in wheels:
        if not wheel.location:
            continue
        if wheel.location not in indexes:
            indexes[wheel.location] = dist_info_index(wheel.location)
        for folder in _own_folders(indexes[wheel.location], wheel):
            if (wheel.location, folder) in read:  # the same wheel reported twice
                continue
            read.add((wheel.location, folder))
            record = os.path.join(wheel.location, folder, "RECORD")  # noqa: PTH118
            text = file_system.read_text_limited(record, RECORD_LIMIT)
            for line in (text or "").splitlines():
                relative = line.split(",", 1)[0]
                if _LIBRARY_FILE.search(relative):
                    path = real_paths.of(os.path.join(wheel.location, relative))  # noqa: PTH118
                    owners[path] = f"{wheel.name} {wheel.version} (pip)"
    return owners


class _RealPaths:
    """os.path.realpath for many files in few directories: each directory resolved once (a
    realpath is an lstat per component), then only a file that is itself a link resolved."""

    def __init__(self) -> None:
        self._directories: dict[str, str] = {}

    def of(self, path: str) -> str:
        directory, name = os.path.split(path)
        if directory not in self._directories:
            self._directories[directory] = os.path.realpath(directory)
        joined = os.path.join(self._directories[directory], name)  # noqa: PTH118
        return os.path.realpath(joined) if file_system.is_symlink(joined) else joined


def conda_owners(prefix: str | None) -> dict[str, str]:
    """Real path of each library file -> the conda package whose conda-meta record lists it."""
    owners: dict[str, str] = {}
    if not prefix:
        return owners
    for meta in file_system.matching(Path(prefix, "conda-meta"), "*.json"):
        try:
            data = json.loads(meta.read_text(errors="replace"))
        except (OSError, ValueError):
            continue
        files = data.get("files", []) if isinstance(data, dict) else []
        label = f"{data.get('name')} {data.get('version')} (conda)"
        for relative in files:
            if isinstance(relative, str) and re.search(r"\.(so(\.\d+)*|dll)$", relative):
                owners[os.path.realpath(Path(prefix, relative))] = label
    return owners


# --- versions ----------------------------------------------------------------------------------


def parse_cudnn_version_header(text: str) -> str | None:
    """CUDNN_MAJOR/MINOR/PATCHLEVEL from cudnn_version.h (or cudnn.h for cuDNN 7)."""
    parts = []
    for name in ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"):
        match = re.search(rf"#define\s+{name}\s+(\d+)", text)
        if match is None:
            return None
        parts.append(match.group(1))
    return ".".join(parts)


def parse_cudart_version_header(text: str) -> str | None:
    """CUDART_VERSION (12020 -> 12.2) from cuda_runtime_api.h."""
    match = re.search(r"#define\s+CUDART_VERSION\s+(\d+)", text)
    if match is None:
        return None
    value = int(match.group(1))
    return f"{value // 1000}.{(value % 1000) // 10}"


_HEADERS = {
    "cudnn": (("cudnn_version.h", "cudnn.h"), parse_cudnn_version_header),
    "cudart": (("cuda_runtime_api.h",), parse_cudart_version_header),
}


def version_from_headers(library_path: str, role: str) -> str | None:
    """The version in the header installed beside a library (../include), if any."""
    entry = _HEADERS.get(role)
    if entry is None:
        return None
    names, parse = entry
    directory = Path(file_system.real_path(library_path)).parent
    for include in (directory.parent / "include", directory / "include"):
        for name in names:
            try:
                version = parse((include / name).read_text(errors="replace"))
            except OSError:
                continue
            if version:
                return version
    return None


def decode_cudnn_version(value: int) -> str:
    """cudnnGetVersion(): 8907 -> 8.9.7 (8.x: major*1000), 90300 -> 9.3.0 (9.x: major*10000)."""
    if value >= 10000:
        return f"{value // 10000}.{(value % 10000) // 100}.{value % 100}"
    return f"{value // 1000}.{(value % 1000) // 100}.{value % 100}"


def version_by_calling(path: str, call: str, timeout: float) -> tuple[str | None, str | None]:
    """(version, problem): ask the library itself, in a child process."""
    result = run_child("library_version", {"path": path, "call": call}, timeout=timeout, site=False)
    if not result.ok or result.data is None:
        return None, f"loading it to read its version {result.describe()}"
    data = result.data
    if "error" in data:
        return None, f"reading its version failed: {data['error']}"
    value = data.get("value")
    if not isinstance(value, int):
        return None, None
    if call == "cudnn":
        return decode_cudnn_version(value), None
    if call == "cudart":
        return f"{value // 1000}.{(value % 1000) // 10}", None
    return str(data.get("text") or value), None


# --- the probe ---------------------------------------------------------------------------------


def _arch(info: BinaryInfo) -> str | None:
    if info.machine is None and info.bits is None:
        return None
    return f"{info.machine or 'unknown'} {info.bits or '?'}-bit"


def loader_skips(machine: str, bits: int) -> Callable[[str], bool]:
    """`LinuxSearch.usable` for a process of this machine and bitness: ld.so passes over a copy
    of another ELF class or machine, and one it cannot open, and takes the next one. A copy it
    can open but not load (truncated, not ELF) ends the search with an error: it is usable in
    this sense, and its problems say why it fails."""

    @functools.cache
    def usable(path: str) -> bool:
        info = read_binary(path, exports=False)
        if info.format == "unknown" and any(p.startswith("cannot be read") for p in info.problems):
            return False
        return info.format != "elf" or compatible_with(info, machine, bits)

    return usable


def search_from(search: LoaderSearch, info: BinaryInfo, path: str) -> LoaderSearch:
    """The search ld.so runs for what the object at `path` loads: its DT_NEEDED entries and its
    own dlopen() calls use its RUNPATH (else its RPATH), with $ORIGIN its own directory, not the
    RUNPATH of whoever loaded it. cuSPARSE finds nvJitLink through `$ORIGIN/../../nvjitlink/lib`.

    Windows resolves a DLL's imports with the process's search order, so the search is kept.
    """
    if not isinstance(search, LinuxSearch):
        return search
    origin = str(Path(path).parent)
    runpath = ((path, expand_origin(info.runpath, origin)),) if info.runpath else ()
    rpath = ((path, expand_origin(info.rpath, origin)),) if info.rpath else ()
    return replace(search, runpath=runpath, rpath=rpath)


def _dependency_problems(info: BinaryInfo, path: str, search: LoaderSearch) -> list[str]:
    problems = []
    own_search: LoaderSearch | None = None
    for dependency in info.needed:
        if not _STACK_DEPENDENCY.match(dependency) or dependency in _DRIVER_DEPENDENCIES:
            continue
        own_search = own_search or search_from(search, info, path)
        if not any(c.selected for c in own_search.candidates(dependency)):
            problems.append(f"needs {dependency}, which the loader cannot find")
    return problems


def probe_libraries(
    wanted: Sequence[WantedLibrary],
    search: LoaderSearch,
    python: tuple[str, int],
    owners: Mapping[str, str],
    call_versions: bool = True,
    timeout: float = 10.0,
    listing: ListingCache | None = None,
) -> tuple[LibraryFacts, ...]:
    """One LibraryFacts per copy of each wanted library, and one 'not found' entry per miss."""
    machine, bits = python
    facts: list[LibraryFacts] = []
    searched = [location.directory for location in search.locations() if location.searched]
    # A RUNPATH may name one directory many times (TF 2.21's names each about 40 times): the
    # loader looks there once, and so does the count.
    places = len({os.path.normpath(directory) for directory in searched})
    shims: dict[str, tuple[str, BinaryInfo]] = {}  # cuDNN major -> the shim that loads
    queue = list(wanted)
    for library in queue:  # grows while it runs: the sub-libraries the cuDNN that loads ships
        facts.extend(_broken_links(library, searched, listing))
        shim = shims.get(_cudnn_major_of(library.file) or "") if library.role != "cudnn" else None
        if library.beside_shim is not None and shim is not None:
            candidates = sublibrary_candidates(search, shim, library.file, library.beside_shim)
        else:
            candidates = search.candidates(library.file)
        selected = next((c for c in candidates if c.selected), None)
        if library.role == "cudnn" and library.beside_shim is not None and selected:
            shim_info = read_binary(selected.path, exports=False)
            shims[_cudnn_major_of(library.file) or ""] = (selected.path, shim_info)
            known = {w.file for w in queue}
            queue += [
                WantedLibrary(role, name, library.needed_for, None, library.beside_shim)
                for role, name in shipped_sublibraries(selected.path, library.file, owners)
                if name not in known
            ]
        if selected is None:
            facts.extend(_new_other_versions(facts, _other_versions(library, searched, listing)))
            problem = f"not found in the {places} places the loader searches ({library.needed_for})"
            facts.append(
                LibraryFacts(
                    library.role, library.file, "", None, None, False, "not found", None, (problem,)
                )
            )  # fmt: skip
        for candidate in candidates:
            facts.append(
                _read_candidate(library, candidate.path, candidate.found_via, candidate.selected,
                                search, machine, bits, owners, call_versions, timeout)
            )  # fmt: skip
        if library.fallback and selected is None:
            facts.extend(_fallback_copies(library, search, machine, bits, owners, timeout))
    return tuple(facts)


def _fallback_copies(
    library: WantedLibrary,
    search: LoaderSearch,
    machine: str,
    bits: int,
    owners: Mapping[str, str],
    timeout: float,
) -> list[LibraryFacts]:
    """The copy TensorFlow gets when it retries with the fallback name (libcupti.so), which may
    be another CUDA's: its soname says which."""
    assert library.fallback is not None
    fallback = replace(library, file=library.fallback, fallback=None)
    facts = []
    for candidate in search.candidates(library.fallback):
        if not candidate.selected:
            continue
        how = f"{candidate.found_via}; TensorFlow's fallback when {library.file} fails"
        copy = _read_candidate(fallback, candidate.path, how, True, search, machine, bits, owners,
                               False, timeout)  # fmt: skip
        # The fallback name is unversioned; the file's own soname says which CUDA it is.
        soname = read_binary(candidate.path, exports=False).soname
        if soname and soname != library.file:
            problem = f"is {soname}, another version than the {library.file} this build needs"
            copy = replace(copy, problems=(*copy.problems, problem))
        facts.append(copy)
    return facts


def sublibrary_candidates(
    search: LoaderSearch, shim: tuple[str, BinaryInfo], file_name: str, beside_shim: bool
) -> tuple[Candidate, ...]:
    """The copies of a cuDNN sub-library, the one the shim at `shim` opens selected.

    The shim dlopen()s it, so the loader searches from the shim (LD_LIBRARY_PATH, then the
    shim's RUNPATH); cuDNN 9 first tries its own directory, so a copy there wins over any
    other on LD_LIBRARY_PATH.
    """
    path, info = shim
    found = search_from(search, info, path).candidates(file_name)
    beside = Path(path).with_name(file_name)
    if not beside_shim or not file_system.is_file(beside):
        return found
    real = file_system.real_path(beside)
    how = f"beside {Path(path).name} (cuDNN opens its sub-libraries there first)"
    first = Candidate(str(beside), how, True)
    rest = [replace(c, selected=False) for c in found if file_system.real_path(c.path) != real]
    return (first, *rest)


def sublibraries_named_by(shim_path: str | os.PathLike[str]) -> tuple[str, ...]:
    """The cuDNN sub-libraries a shim names in its own strings, as stems ("libcudnn_graph"),
    sorted; () when it cannot be read. Read as bytes, never loaded."""
    try:
        with Path(shim_path).open("rb") as stream:
            text = stream.read(_SHIM_SCAN_LIMIT)
    except OSError:
        return ()
    return tuple(sorted({m.group(1).decode() for m in _CUDNN_SUBLIBRARY_TEXT.finditer(text)}))


def shipped_sublibraries(
    shim_path: str, shim_file: str, owners: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """(role, file name) of each cuDNN sub-library the shim names in its own strings or its
    wheel's RECORD lists beside it, so that a file deleted from the wheel is still looked for.

    Linux names only; the matrix's list covers Windows.
    """
    major = _cudnn_major_of(shim_file)
    if major is None or not shim_file.endswith(f".so.{major}"):
        return ()
    names = dict.fromkeys(f"{stem}.so.{major}" for stem in sublibraries_named_by(shim_path))
    directory = Path(file_system.real_path(shim_path)).parent
    for owned in map(Path, owners):
        name = owned.name
        if (
            owned.parent == directory
            and _CUDNN_SUBLIBRARY_FILE.fullmatch(name)
            and name.endswith(f".so.{major}")
        ):
            names[name] = None
    return tuple((name[3:].split(".so.")[0], name) for name in sorted(names))


def other_version_pattern(file_name: str) -> tuple[str, re.Pattern[str]] | None:
    """(literal prefix, pattern) of the names of the same library with any version:
    libcudart.so.12 -> libcudart.so.<digits...>, cudart64_110.dll -> cudart64_<digits>.dll.
    None for a name without a version part."""
    match = re.fullmatch(r"(lib[\w+-]+\.so)\.[\d.]+", file_name)
    if match:
        prefix = f"{match.group(1)}."
        return prefix, re.compile(rf"{re.escape(match.group(1))}\.\d+(\.\d+)*")
    match = re.fullmatch(r"([\w+-]+?64_)\d+(_\d+)?\.dll", file_name, re.IGNORECASE)
    if match:
        prefix = match.group(1)
        return prefix, re.compile(rf"{re.escape(prefix)}\d+(_\d+)?\.dll", re.IGNORECASE)
    return None


def _other_versions(
    library: WantedLibrary, directories: Sequence[str], listing: ListingCache | None
) -> list[LibraryFacts]:
    """Copies of the same library with another version in the searched places: the loader asks
    for `library.file` by name and never takes them (CUDA 11 installed, CUDA 12 wanted)."""
    wanted = other_version_pattern(library.file)
    if wanted is None:
        return []
    prefix, pattern = wanted
    listing = listing or ListingCache()
    found = []
    for directory in dict.fromkeys(directories):
        for name in listing.starting_with(directory, prefix):
            if name != library.file and pattern.fullmatch(name):
                path = Path(directory) / name
                found.append(
                    LibraryFacts(
                        library.role, library.file, str(path),
                        version_from_file_name(Path(file_system.real_path(path)).name), None, False,
                        ANOTHER_VERSION, None, (_another_problem(str(path), [library.file]),),
                        (library.file,),
                    )
                )  # fmt: skip
    return found


def _new_other_versions(
    facts: list[LibraryFacts], others: Sequence[LibraryFacts]
) -> list[LibraryFacts]:
    """The files of `others` not yet in `facts`; one already there (libcudart.so.13 found as
    another version of libcudart.so.11.0, then of libcudart.so.12) gains the name in its
    `asked_as` and problem instead of a second entry: one entry per file."""
    new = []
    for other in others:
        index = next(
            (i for i, f in enumerate(facts)
             if f.found_via == ANOTHER_VERSION and f.path == other.path),
            None,
        )  # fmt: skip
        if index is None:
            new.append(other)
            continue
        first = facts[index]
        asked = (*first.asked_as, *(n for n in other.asked_as if n not in first.asked_as))
        problem = _another_problem(first.path, asked)
        facts[index] = replace(first, asked_as=asked, problems=(problem,))
    return new


def _another_problem(path: str, asked: Sequence[str]) -> str:
    names = asked[0] if len(asked) == 1 else f"{', '.join(asked[:-1])} or {asked[-1]}"
    return f"{Path(path).name} is another version: the loader is asked for {names}"


def _broken_links(
    library: WantedLibrary, directories: Sequence[str], listing: ListingCache | None
) -> list[LibraryFacts]:
    """Symlinks with the library's name that lead nowhere (or round in a loop): the loader
    skips them silently."""
    broken = []
    for directory in dict.fromkeys(directories):
        if listing is not None and library.file not in listing.names(directory):
            continue
        path = Path(directory) / library.file
        if not file_system.is_symlink(path) or file_system.exists(path):
            continue
        target = file_system.link_target(path) or "?"
        if file_system.is_symlink_loop(path):
            how, problem = SYMLINK_LOOP, f"symlink loop ({library.file} -> {target} -> ...)"
        else:
            how, problem = DANGLING_SYMLINK, f"dangling symlink to {target}"
        broken.append(
            LibraryFacts(
                library.role, library.file, str(path), None, None, False, how, None,
                (f"{problem}: the loader skips it",),
            )
        )  # fmt: skip
    return broken


def _read_candidate(
    library: WantedLibrary,
    path: str,
    found_via: str,
    selected: bool,
    search: LoaderSearch,
    machine: str,
    bits: int,
    owners: Mapping[str, str],
    call_versions: bool,
    timeout: float,
) -> LibraryFacts:
    info = read_binary(path, exports=False)
    problems = list(info.problems)
    arch = _arch(info)
    if info.format != "unknown" and not compatible_with(info, machine, bits):
        problems.append(f"wrong architecture: {arch}, but this Python is {machine} {bits}-bit")
    problems.extend(_dependency_problems(info, path, search))
    real = file_system.real_path(path)
    owner = owners.get(real) or site_owner(real)
    version = version_from_file_name(Path(real).name)
    if version is not None and version.count(".") < 2 and library.role != "cuda-driver":
        version = version_from_headers(path, library.role) or version
    wheel = _NVIDIA_WHEEL.match(owner) if owner else None
    if (version is None or version.count(".") < 2) and wheel:
        # An nvidia-* wheel's version is its library's (nvidia-cublas-cu12 12.2.5.6: cuBLAS
        # 12.2.5.6), where the file name gives only the major.
        version = wheel.group("version")
    if (
        selected
        and call_versions
        and library.version_call
        and (version is None or version.count(".") < 2)
        and not problems
    ):
        called, problem = version_by_calling(path, library.version_call, timeout)
        version = called or version
        if problem:
            problems.append(problem)
    return LibraryFacts(
        name=library.role,
        file=library.file,
        path=path,
        version=version,
        arch=arch,
        selected=selected,
        found_via=found_via,
        owner=owner,
        problems=tuple(problems),
    )


@functools.lru_cache(maxsize=64)
def _site_owners(site: str) -> dict[str, str]:
    wheels = []
    for stem, folders in dist_info_index(site).items():
        if stem.startswith("nvidia_"):
            for folder in folders:
                name, _, version = folder[: -len(".dist-info")].partition("-")
                wheels.append(WheelFacts(name.replace("_", "-"), version, site))
    return wheel_owners(wheels)


def site_owner(real_path: str) -> str | None:
    """The pip wheel that owns a copy outside the probed environment (another environment's
    nvidia/<component>/lib put on LD_LIBRARY_PATH), from that site-packages' own records."""
    parts = Path(real_path).parts
    if "nvidia" not in parts:
        return None
    site = Path(*parts[: len(parts) - 1 - parts[::-1].index("nvidia")])
    return _site_owners(str(site)).get(real_path)


def unsearched_places(search: LoaderSearch) -> tuple[SearchLocation, ...]:
    return tuple(location for location in search.locations() if not location.searched)
