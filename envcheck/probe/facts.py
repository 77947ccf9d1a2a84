"""The facts the probe collects, as frozen records, and their JSON form (envcheck.facts/1).

Facts say what was found and how (`found_via`), and keep every failed attempt as evidence. They
hold no verdicts: whether a fact is a problem for a framework is the diagnosis's job.
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, field, fields
from typing import Any, Literal, get_args

from envcheck.platforms import OS_NAMES
from envcheck.record import record

SCHEMA = "envcheck.facts/1"
DriverState = Literal["ok", "missing", "stub", "mismatch", "no-device", "error", "unknown"]
DRIVER_STATES: tuple[DriverState, ...] = get_args(DriverState)
# LibraryFacts.found_via for files the loader never takes for the name it is asked for: the same
# library with another version (libcudart.so.11.0 asked, libcudart.so.12 there), a link to
# nothing, and a link whose chain never ends (a -> b -> a).
ANOTHER_VERSION = "another version"
DANGLING_SYMLINK = "dangling symlink"
SYMLINK_LOOP = "symlink loop"
BROKEN_LINKS = (DANGLING_SYMLINK, SYMLINK_LOOP)


@record
class PlatformFacts:
    os: str  # linux | windows | wsl | macos
    arch: str  # x86_64 | aarch64 | ...
    python: str  # full version of the probed interpreter, e.g. 3.11.7
    python_bits: int  # 64 or 32; a 32-bit Python cannot load 64-bit CUDA DLLs
    python_executable: str
    wsl: str | None  # "wsl1", "wsl2" or None
    container: str | None  # docker | podman | kubernetes | container | None
    device_nodes: tuple[str, ...]  # /dev/nvidia0, /dev/nvidiactl, ... (Linux)
    cuda_visible_devices: str | None
    nvidia_visible_devices: str | None
    # Whether an NVIDIA GPU is in the machine, told without its driver: "present", "absent", or
    # None where the OS was not asked (or a facts file predates the field).
    nvidia_gpu: str | None = None
    nvidia_gpu_evidence: tuple[str, ...] = ()  # e.g. "PCI 0000:01:00.0 10de:2504 class 0x030000"
    # The NVIDIA Container Toolkit's programs and CDI specs found (platform_facts.py), by name;
    # None where not asked (not Linux, or a facts file that predates the field).
    container_toolkit: tuple[str, ...] | None = None


@record
class ProbeStep:
    """One attempt of a detection cascade: where it looked and what came back."""

    step: str  # e.g. "nvml", "libcuda", "nvidia-smi", "/proc/driver/nvidia/version"
    ok: bool
    detail: str


@record
class GpuFacts:
    index: int
    name: str | None
    compute_capability: str | None  # "8.6"
    memory_mib: int | None
    uuid: str | None
    found_via: str


@record
class DriverFacts:
    version: str | None  # the driver release, e.g. 535.104.05
    cuda: str | None  # the CUDA version this driver supports, e.g. 12.2
    found_via: str | None
    state: DriverState
    kernel_module: str | None  # version of the loaded kernel module (/proc), when readable
    user_library: str | None  # version of the user-space library (libnvidia-ml / libcuda)
    errors: tuple[str, ...]  # each failed step, "step: what happened"
    steps: tuple[ProbeStep, ...]


@record
class LibraryFacts:
    """One candidate file for one library name, and what reading it (never loading it) showed."""

    name: str  # role, e.g. "cudnn", "cudnn_cnn_infer", "cudart"
    file: str  # the name the loader is asked for, e.g. libcudnn.so.8
    path: str  # where this candidate lies
    version: str | None
    arch: str | None  # e.g. "x86_64 64-bit", "i386 32-bit"
    selected: bool  # the platform's loader would pick this copy
    found_via: str  # LD_LIBRARY_PATH, RUNPATH of ..., ld.so.cache, default dir, PATH, ...
    owner: str | None  # the distribution or conda package that installed it
    problems: tuple[str, ...]
    # For a file of another version (found_via ANOTHER_VERSION): every name the loader is asked
    # for that this one file stands beside (libcudart.so.13 for .11.0 and .12), one entry per
    # file. Empty otherwise, and in facts files written before the field.
    asked_as: tuple[str, ...] = ()


@record
class FrameworkFacts:
    name: str  # tensorflow, torch, jax, ...
    distribution: str  # the installed distribution, e.g. tensorflow-cpu
    version: str
    location: str | None
    build: dict[str, Any] = field(default_factory=dict)  # build info: cuda_version, ...
    build_found_via: str | None = None
    requires: tuple[str, ...] = ()  # nvidia-* / CUDA requirements it declares
    problems: tuple[str, ...] = ()


@record
class WheelFacts:
    """An installed pip `nvidia-*` (or `tensorrt`, or `cuda-toolkit`) distribution."""

    name: str
    version: str
    location: str | None
    # Its Requires-Dist lines that name CUDA wheels, markers kept: cuda-toolkit's extras are how
    # torch 2.10+ pins its nvidia-* wheels (torch requires cuda-toolkit[cublas,...]==13.0.3).
    requires: tuple[str, ...] = ()


@record
class FileOwner:
    """A distribution whose RECORD lists a file, and whether the file on disk is its copy."""

    distribution: str
    version: str
    size: int | None  # the size its RECORD row gives; None when the row gives none
    # True: the file has the recorded size (and, where another owner's copy has that size too,
    # the recorded hash); False: it has not (overwritten, changed or removed); None: not told.
    matches: bool | None


@record
class SharedFileFacts:
    """A file under nvidia/ that two or more distributions' RECORDs list (both installed it, the
    later one's bytes are there), or that one lists and whose bytes are no longer the recorded
    ones. An intact file of one owner is not listed, and not hashed (gigabytes)."""

    location: str  # the site directory the RECORD paths are relative to
    path: str  # relative to location, "/"-separated: nvidia/cudnn/lib/libcudnn.so.9
    size: int | None  # on disk now; None when missing or not a regular file
    compared: str  # "size", "hash", "missing", "not a regular file" or "unknown: why"
    owners: tuple[FileOwner, ...]


@record
class FrameworkLibraryFacts:
    """One CUDA library PyTorch or JAX loads, and the file the real loader gives it, as the
    static loader model (probe/framework_loading.py) tells from the installed files."""

    library: str  # the soname: libcudnn.so.9
    path: str | None  # the file that loads; None when none would
    # How: "preloaded by torch/__init__.py from sys.path entry /site (glob nvidia/cudnn/lib/...)",
    # "DT_NEEDED of libtorch_cuda.so: RPATH of /site/torch/lib/libtorch_cuda.so", ...
    how: str
    # The framework's own objects whose DT_NEEDED (or dlopen) names it; empty for a library it
    # preloads but never links (torch 2.14.1 preloads nvidia/cublas/lib/libcublas.so.12 when a
    # CUDA 12 wheel put it there, and links libcublas.so.13).
    wanted_by: tuple[str, ...]
    owner: str | None  # the distribution whose RECORD bytes the file has now, "name version"
    cuda: str | None  # the CUDA major this copy is built for, where known
    # Every installed distribution whose RECORD installs a file of this name under nvidia/.
    providers: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


@record
class FrameworkLoadingFacts:
    """What one framework (torch, jax) loads, modelled without importing it."""

    framework: str  # torch | jax
    version: str
    cuda: str | None  # the CUDA major the framework was built for
    # What the model read ("torch/__init__.py: 17 preloads ..."), or "unknown: why" where the
    # installed files do not say, or "not modelled: why" (Windows, macOS).
    model: str
    libraries: tuple[FrameworkLibraryFacts, ...] = ()


@record
class Facts:
    platform: PlatformFacts
    driver: DriverFacts
    gpus: tuple[GpuFacts, ...]
    libraries: tuple[LibraryFacts, ...]
    frameworks: tuple[FrameworkFacts, ...]
    wheels: tuple[WheelFacts, ...]
    errors: tuple[str, ...]  # parts of the probe that could not run, and why
    seconds: float
    shared_files: tuple[SharedFileFacts, ...] = ()  # empty in facts files written before them
    # PyTorch's and JAX's libraries by the static loader model; empty in older facts files.
    framework_libraries: tuple[FrameworkLoadingFacts, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {"schema": SCHEMA, **data}


class FactsFileError(ValueError):
    """A facts file is not envcheck.facts/1 JSON."""


# PlatformFacts.os: the names read_platform gives (probe/platform_facts.py). The rules and the
# recommendation know exactly these four; any other name in a facts file was written by hand.

# Field types of each record in the JSON form: a facts file is user input and is checked
# before any rule reads it ("s?" = a string or null, "i?" = an integer or null, "[s]" = strings).
_TYPES: dict[str, dict[str, str]] = {
    "platform": {"os": "s", "arch": "s", "python": "s", "python_bits": "i",
                 "python_executable": "s", "wsl": "s?", "container": "s?", "device_nodes": "[s]",
                 "cuda_visible_devices": "s?", "nvidia_visible_devices": "s?",
                 "nvidia_gpu": "s?", "nvidia_gpu_evidence": "[s]",
                 "container_toolkit": "[s]?"},
    "driver": {"version": "s?", "cuda": "s?", "found_via": "s?", "state": "s",
               "kernel_module": "s?", "user_library": "s?", "errors": "[s]", "steps": "[d]"},
    "step": {"step": "s", "ok": "b", "detail": "s"},
    "gpus": {"index": "i", "name": "s?", "compute_capability": "s?", "memory_mib": "i?",
             "uuid": "s?", "found_via": "s"},
    "libraries": {"name": "s", "file": "s", "path": "s", "version": "s?", "arch": "s?",
                  "selected": "b", "found_via": "s", "owner": "s?", "problems": "[s]",
                  "asked_as": "[s]"},
    "frameworks": {"name": "s", "distribution": "s", "version": "s", "location": "s?",
                   "build": "d", "build_found_via": "s?", "requires": "[s]", "problems": "[s]"},
    "wheels": {"name": "s", "version": "s", "location": "s?", "requires": "[s]"},
    "shared_files": {"location": "s", "path": "s", "size": "i?", "compared": "s",
                     "owners": "[d]"},
    "owner": {"distribution": "s", "version": "s", "size": "i?", "matches": "b?"},
    "framework_libraries": {"framework": "s", "version": "s", "cuda": "s?", "model": "s",
                            "libraries": "[d]"},
    "framework_library": {"library": "s", "path": "s?", "how": "s", "wanted_by": "[s]",
                          "owner": "s?", "cuda": "s?", "providers": "[s]", "problems": "[s]"},
}  # fmt: skip
_RECORDS: dict[str, type[Any]] = {
    "platform": PlatformFacts,
    "driver": DriverFacts,
    "step": ProbeStep,
    "gpus": GpuFacts,
    "libraries": LibraryFacts,
    "frameworks": FrameworkFacts,
    "wheels": WheelFacts,
    "shared_files": SharedFileFacts,
    "owner": FileOwner,
    "framework_libraries": FrameworkLoadingFacts,
    "framework_library": FrameworkLibraryFacts,
}
_SHOWN_CHARS = 60  # a wrong value is quoted in the one-line error, cut to this length
_TYPE_NAMES = {
    "s": "a string",
    "i": "an integer",
    "b": "true or false",
    "d": "an object",
    "[s]": "a list of strings",
    "[d]": "a list of objects",
}


def _type_ok(value: Any, kind: str) -> bool:
    if kind.endswith("?") and value is None:
        return True
    base = kind.rstrip("?")
    if base.startswith("["):
        inner = base[1:-1]
        return isinstance(value, list) and all(_type_ok(v, inner) for v in value)
    checks = {
        "s": lambda v: isinstance(v, str),
        "i": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "b": lambda v: isinstance(v, bool),
        "d": lambda v: isinstance(v, dict),
    }
    return checks[base](value)


def _type_name(kind: str) -> str:
    name = _TYPE_NAMES[kind.rstrip("?")]
    return f"{name} or null" if kind.endswith("?") else name


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def _fields(record: Any, kind: str, where: str) -> dict[str, Any]:
    """The checked keyword arguments of one record, lists as tuples, unknown keys left out."""
    if record is None:
        raise FactsFileError(f"not a complete {SCHEMA} document: {where} is missing")
    if not isinstance(record, dict):
        raise FactsFileError(f"{where} must be an object")
    values: dict[str, Any] = {}
    for spec in fields(_RECORDS[kind]):
        expected = _TYPES[kind][spec.name]
        if spec.name not in record:
            if expected.startswith("[") and not expected.endswith("?"):
                values[spec.name] = ()  # an empty list may be left out
            elif spec.default is MISSING and spec.default_factory is MISSING:
                raise FactsFileError(
                    f"not a complete {SCHEMA} document: {where}.{spec.name} is missing"
                )
            continue
        value = record[spec.name]
        if not _type_ok(value, expected):
            raise FactsFileError(
                f"{where}.{spec.name} must be {_type_name(expected)}, not {_shown(value)}"
            )
        listed = expected.startswith("[") and value is not None
        values[spec.name] = tuple(value) if listed else value
    return values


def _items(data: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    items = data.get(kind, [])
    if not isinstance(items, list):
        raise FactsFileError(f"{kind} must be a list")
    return [_fields(item, kind, f"{kind}[{index}]") for index, item in enumerate(items)]


def facts_from_json(data: Any) -> Facts:
    """Rebuild Facts from `envcheck probe --json` output (e.g. a user's bug report).

    A facts file is user input, so every field is checked before any rule reads it, and a
    FactsFileError names the field by its path (`gpus[0].name`). Unknown fields are ignored: an
    envcheck that adds a field to envcheck.facts/1 keeps the schema name, so a file written by a
    newer envcheck must still be read here (a new meaning gets a new schema name). A misspelt
    field is still caught, as the field it should have been is then missing: every field is
    required except lists (an empty list may be left out) and fields with a default.
    `platform.os` must be one of OS_NAMES, as the rules know no other.
    """
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise FactsFileError(f"expected schema {SCHEMA}, found {found!r}")
    platform = _fields(data.get("platform"), "platform", "platform")
    if platform["os"] not in OS_NAMES:
        raise FactsFileError(f"platform.os {platform['os']!r} is not one of {', '.join(OS_NAMES)}")
    driver = _fields(data.get("driver"), "driver", "driver")
    if driver["state"] not in DRIVER_STATES:
        raise FactsFileError(
            f"driver.state {driver['state']!r} is not one of {', '.join(DRIVER_STATES)}"
        )
    driver["steps"] = tuple(
        ProbeStep(**_fields(step, "step", f"driver.steps[{index}]"))
        for index, step in enumerate(driver["steps"])
    )
    errors = data.get("errors", [])
    if not _type_ok(errors, "[s]"):
        raise FactsFileError("errors must be a list of strings")
    seconds = data.get("seconds", 0.0)
    if not _type_ok(seconds, "i") and not isinstance(seconds, float):
        raise FactsFileError(f"seconds must be a number, not {_shown(seconds)}")
    return Facts(
        platform=PlatformFacts(**platform),
        driver=DriverFacts(**driver),
        gpus=tuple(GpuFacts(**gpu) for gpu in _items(data, "gpus")),
        libraries=tuple(LibraryFacts(**lib) for lib in _items(data, "libraries")),
        frameworks=tuple(FrameworkFacts(**f) for f in _items(data, "frameworks")),
        wheels=tuple(WheelFacts(**w) for w in _items(data, "wheels")),
        errors=tuple(errors),
        seconds=float(seconds),
        shared_files=tuple(_shared_file(f, i) for i, f in enumerate(_items(data, "shared_files"))),
        framework_libraries=tuple(
            _framework_loading(f, i) for i, f in enumerate(_items(data, "framework_libraries"))
        ),
    )


def _framework_loading(values: dict[str, Any], index: int) -> FrameworkLoadingFacts:
    libraries = tuple(
        FrameworkLibraryFacts(
            **_fields(library, "framework_library",
                      f"framework_libraries[{index}].libraries[{number}]")
        )
        for number, library in enumerate(values["libraries"])
    )  # fmt: skip
    return FrameworkLoadingFacts(**{**values, "libraries": libraries})


def _shared_file(values: dict[str, Any], index: int) -> SharedFileFacts:
    owners = tuple(
        FileOwner(**_fields(owner, "owner", f"shared_files[{index}].owners[{number}]"))
        for number, owner in enumerate(values["owners"])
    )
    return SharedFileFacts(**{**values, "owners": owners})
