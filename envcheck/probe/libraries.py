"""Which shared libraries a framework needs, every copy on this machine, and the one that loads.

The names come from the matrix (libraries.toml, cudnn.toml) for the installed TensorFlow build,
or for every CUDA and cuDNN major the matrix knows when no framework is installed. For each name
the loader search (search.py) lists the copies in loader order; each copy is read, never loaded
(binary_files.py): architecture, dependencies that do not resolve, version from its file name,
from a header next to it, or, for the selected copy only, from its own version function called in
a child process. Ownership (pip wheel, conda package) comes from their file records.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envcheck.matrix.model import Matrix
from envcheck.matrix.records import LibraryFile
from envcheck.probe.binary_files import (
    BinaryInfo,
    compatible_with,
    expand_origin,
    read_binary,
    version_from_file_name,
)
from envcheck.probe.facts import (
    ANOTHER_VERSION,
    DANGLING_SYMLINK,
    FrameworkFacts,
    LibraryFacts,
    WheelFacts,
)
from envcheck.probe.isolation import run_child
from envcheck.probe.search import ListingCache, LoaderSearch, SearchLocation
from envcheck.versions import major_minor

# Names of what a library imports that are worth resolving: the CUDA stack and its helpers.
# System libraries (libc, KERNEL32, the VC++ runtime) are the OS's business.
_STACK_DEPENDENCY = re.compile(r"^(lib)?(cu|nv|zlib|cudnn)", re.IGNORECASE)
DRIVER_LIBRARY = LibraryFile("cuda-driver", "libcuda.so.1", "nvcuda.dll", None, None, True)


@dataclass(frozen=True)
class WantedLibrary:
    role: str
    file: str  # the name the loader is asked for on this platform
    needed_for: str  # e.g. "TensorFlow 2.15.1 (CUDA 12.2, cuDNN 8)"
    version_call: str | None  # "cudnn", "cudart" or "cublas": which version function it has


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


def wanted_libraries(
    matrix: Matrix, frameworks: Sequence[FrameworkFacts], windows: bool
) -> tuple[WantedLibrary, ...]:
    """The libraries to look for: the installed TensorFlow's, else every one the matrix knows."""
    tf = _tensorflow(frameworks)
    versions = _build_versions(matrix, tf) if tf is not None else None
    groups: list[tuple[str, tuple[LibraryFile, ...]]] = []
    if tf is not None and versions is not None:
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
    wanted: dict[str, WantedLibrary] = {}
    for label, libraries in groups:
        for library in libraries:
            name = library.windows if windows else library.linux
            if name and name not in wanted:
                wanted[name] = WantedLibrary(
                    library.role, name, label, _VERSION_CALLS.get(library.role)
                )
    return tuple(wanted.values())


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
        if path.is_file():
            return path
    return None


def requester_paths(
    requester: Path | None,
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], tuple[tuple[str, tuple[str, ...]], ...]]:
    """(runpath pairs, rpath pairs) of the requester, with $ORIGIN expanded."""
    if requester is None:
        return (), ()
    info = read_binary(requester, exports=False)
    origin = str(requester.parent)
    runpath = ((str(requester), expand_origin(info.runpath, origin)),) if info.runpath else ()
    rpath = ((str(requester), expand_origin(info.rpath, origin)),) if info.rpath else ()
    return runpath, rpath


# --- ownership ---------------------------------------------------------------------------------


def wheel_owners(wheels: Sequence[WheelFacts]) -> dict[str, str]:
    """Real path of each library file -> the pip distribution whose RECORD lists it."""
    owners: dict[str, str] = {}
    for wheel in wheels:
        if not wheel.location:
            continue
        stem = re.sub(r"[-_.]+", "_", wheel.name).lower()
        for dist_info in Path(wheel.location).glob("*.dist-info"):
            if not dist_info.name.lower().startswith(f"{stem}-"):
                continue
            try:
                lines = (dist_info / "RECORD").read_text(errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                relative = line.split(",", 1)[0]
                if re.search(r"\.(so(\.\d+)*|dll)$", relative, re.IGNORECASE):
                    path = os.path.realpath(Path(wheel.location) / relative)
                    owners[path] = f"{wheel.name} {wheel.version} (pip)"
    return owners


def conda_owners(prefix: str | None) -> dict[str, str]:
    """Real path of each library file -> the conda package whose conda-meta record lists it."""
    owners: dict[str, str] = {}
    if not prefix:
        return owners
    for record in Path(prefix, "conda-meta").glob("*.json"):
        try:
            data = json.loads(record.read_text(errors="replace"))
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
    directory = Path(library_path).resolve().parent
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


def _dependency_problems(info: BinaryInfo, search: LoaderSearch) -> list[str]:
    problems = []
    for dependency in info.needed:
        if not _STACK_DEPENDENCY.match(dependency):
            continue
        if not any(c.selected for c in search.candidates(dependency)):
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
    for library in wanted:
        facts.extend(_broken_links(library, searched, listing))
        candidates = search.candidates(library.file)
        if not any(c.selected for c in candidates):
            facts.extend(_other_versions(library, searched, listing))
            places = sum(1 for location in search.locations() if location.searched)
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
    return tuple(facts)


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
                        version_from_file_name(Path(os.path.realpath(path)).name), None, False,
                        ANOTHER_VERSION, None,
                        (f"{name} is another version: the loader is asked for {library.file}",),
                    )
                )  # fmt: skip
    return found


def _broken_links(
    library: WantedLibrary, directories: Sequence[str], listing: ListingCache | None
) -> list[LibraryFacts]:
    """Symlinks with the library's name that lead nowhere: the loader skips them silently."""
    broken = []
    for directory in dict.fromkeys(directories):
        if listing is not None and library.file not in listing.names(directory):
            continue
        path = Path(directory) / library.file
        try:
            if not path.is_symlink() or path.exists():
                continue
            target = str(path.readlink())
        except OSError:  # a symlink loop, or an unreadable directory
            target = "?"
        broken.append(
            LibraryFacts(
                library.role, library.file, str(path), None, None, False, DANGLING_SYMLINK,
                None, (f"dangling symlink to {target}: the loader skips it",),
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
    problems.extend(_dependency_problems(info, search))
    real = os.path.realpath(path)
    version = version_from_file_name(Path(real).name)
    if version is not None and version.count(".") < 2 and library.role != "cuda-driver":
        version = version_from_headers(path, library.role) or version
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
        owner=owners.get(real),
        problems=tuple(problems),
    )


def unsearched_places(search: LoaderSearch) -> tuple[SearchLocation, ...]:
    return tuple(location for location in search.locations() if not location.searched)
