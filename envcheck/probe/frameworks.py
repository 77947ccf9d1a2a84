"""Installed frameworks (TensorFlow, PyTorch, JAX, Keras) and pip nvidia-* wheels of a Python.

Runs children/frameworks.py in the probed interpreter. The child reads distribution metadata and
the frameworks' build files as text and never imports a framework, so a broken TensorFlow cannot
take the probe down. Only on request is `import tensorflow` tried, in a second child with its own
timeout; when that fails the facts read without importing stay and the framework says what
happened. This module turns the child's JSON into FrameworkFacts, WheelFacts and SharedFileFacts
(files under nvidia/ that two distributions install) and normalizes the build-info formats of the
TensorFlow releases; it judges nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import field, replace
from typing import Any

from packaging.version import InvalidVersion, Version

from envcheck.probe.copy_owners import Claim, add_claims
from envcheck.probe.facts import FileOwner, FrameworkFacts, SharedFileFacts, WheelFacts
from envcheck.probe.isolation import (
    ChildGroup,
    ChildResult,
    LaunchedChild,
    finish_child,
    run_child,
)
from envcheck.probe.scan_launch import CHILD, launch_scan, scan_argument
from envcheck.record import record

VIA_BUILD_INFO = "build_info.py (read without importing)"
VIA_GET_BUILD_INFO = "tf.sysconfig.get_build_info()"
VIA_VERSION_PY = "version.py"
VIA_DISTRIBUTION_VERSION = "distribution version"  # jaxlib 0.1-0.4: 0.4.7+cuda12.cudnn88
VIA_DISTRIBUTION_NAME = "distribution name"  # jax-cuda12-plugin: built for CUDA 12

# Windows TF wheels record the DLL suffix: cudart64_112.dll -> '64_112' (CUDA 11.2),
# cudnn64_8.dll -> '64_8' (docs/facts.md 1.2, "build_info quirks").
_DLL_SUFFIX = re.compile(r"^64_(\d+)$")
_JAXLIB_LOCAL = re.compile(r"\+cuda(\d+)(?:\.cudnn(\d+))?")
_JAX_PLUGIN = re.compile(r"^jax-cuda(\d+)-(?:plugin|pjrt)$")
_BOOLEAN_KEYS = ("is_cuda_build", "is_rocm_build", "is_tensorrt_build")


# --- pure normalization ---------------------------------------------------------------------


def cuda_from_digits(digits: str) -> str:
    """'112' -> '11.2', '101' -> '10.1', '90' -> '9.0', '12' -> '12' (DLL and wheel suffixes)."""
    if len(digits) >= 3:
        return f"{digits[:-1]}.{digits[-1]}"
    if len(digits) == 2 and digits[0] in "6789":  # cudart64_80.dll .. cudart64_92.dll (CUDA < 10)
        return f"{digits[0]}.{digits[1]}"
    return digits


def cudnn_from_digits(digits: str) -> str:
    """'8' -> '8', '86' -> '8.6', '805' -> '8.0.5' (cuDNN majors are one digit so far)."""
    return ".".join([digits[0], *digits[1:]]) if digits else digits


def _first_text(raw: Mapping[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = raw.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return None


def normalize_build_info(raw: Mapping[str, Any]) -> dict[str, Any]:
    """TensorFlow build info in every historic format -> the normalized keys, plus "raw".

    1.13: only `is_cuda_build`; 1.14-2.2: module-level `cuda_version_number` /
    `cudnn_version_number`; 2.3+: a `build_info` dict (the child merges it into `raw`), Linux
    'major.minor' (2.18+ 'major.minor.patch'), Windows DLL suffixes ('64_112', '64_8').
    """
    build: dict[str, Any] = {}
    cuda = _first_text(raw, "cuda_version", "cuda_version_number")
    if cuda is not None:
        suffix = _DLL_SUFFIX.match(cuda)
        build["cuda_version"] = cuda_from_digits(suffix.group(1)) if suffix else cuda
    cudnn = _first_text(raw, "cudnn_version", "cudnn_version_number")
    if cudnn is not None:
        suffix = _DLL_SUFFIX.match(cudnn)
        build["cudnn_version"] = suffix.group(1) if suffix else cudnn
    capabilities = raw.get("cuda_compute_capabilities")
    if isinstance(capabilities, str):
        capabilities = [part.strip() for part in capabilities.split(",") if part.strip()]
    if isinstance(capabilities, (list, tuple)):
        build["cuda_compute_capabilities"] = [str(item) for item in capabilities]
    for key in _BOOLEAN_KEYS:
        if isinstance(raw.get(key), bool):
            build[key] = raw[key]
    if "is_cuda_build" not in build and "cuda_version" in build:
        build["is_cuda_build"] = True  # a build that records a CUDA version was built with it
    build["raw"] = dict(raw)
    return build


def torch_build(raw: Mapping[str, Any]) -> dict[str, Any]:
    """torch/version.py: `cuda` is the CUDA it was built with, None for CPU and ROCm builds."""
    build: dict[str, Any] = {}
    cuda, hip = raw.get("cuda"), raw.get("hip")
    if isinstance(cuda, str) and cuda:
        build["cuda_version"] = cuda
    if isinstance(hip, str) and hip:
        build["hip_version"] = hip
    if "cuda" in raw:
        build["is_cuda_build"] = "cuda_version" in build
    if "hip" in raw:
        build["is_rocm_build"] = "hip_version" in build
    build["raw"] = dict(raw)
    return build


def jax_build(
    name: str, version: str, raw: Mapping[str, Any] | None
) -> tuple[dict[str, Any], str | None]:
    """jaxlib's CUDA/cuDNN from its local version tag; a jax-cudaNN plugin's from its name."""
    local = _JAXLIB_LOCAL.search(version) if name == "jaxlib" else None
    plugin = _JAX_PLUGIN.match(name)
    build: dict[str, Any] = {}
    via: str | None = None
    if local is not None:
        build["cuda_version"] = cuda_from_digits(local.group(1))
        if local.group(2):
            build["cudnn_version"] = cudnn_from_digits(local.group(2))
        build["is_cuda_build"] = True
        via = VIA_DISTRIBUTION_VERSION
    elif plugin is not None:
        build["cuda_version"] = plugin.group(1)
        build["is_cuda_build"] = True
        via = VIA_DISTRIBUTION_NAME
    if raw is not None:
        build["raw"] = dict(raw)
        via = via or VIA_VERSION_PY
    return build, via


# --- the child's JSON -> facts --------------------------------------------------------------


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _texts(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _mapping(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _records(data: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _same_version(left: str, right: str) -> bool:
    try:
        return Version(left) == Version(right)
    except InvalidVersion:
        return left == right


def _shared_problems(entries: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Problems that come from several installs of one framework: shadowing and overwriting."""
    problems: list[list[str]] = [[] for _ in entries]
    first: dict[str, int] = {}
    for index, entry in sorted(enumerate(entries), key=lambda pair: pair[1]["path_index"]):
        name = entry["name"]
        winner_index = first.setdefault(name, index)
        if winner_index == index:
            continue
        winner = entries[winner_index]
        label = f"{winner['distribution']} {winner['version']}"
        if winner["location"] != entry["location"]:
            problems[index].append(
                f"shadowed: {label} in {winner['location']} comes earlier on the search path"
            )
        elif name == "tensorflow" and not _same_version(winner["version"], entry["version"]):
            sentence = (
                f"{entry['distribution']} {entry['version']} and {label} are both installed in "
                f"{entry['location']} and share one tensorflow/ package directory"
            )
            problems[index].append(sentence)
            problems[winner_index].append(sentence)
    return problems


def _framework(entry: dict[str, Any], extra_problems: list[str]) -> FrameworkFacts:
    name, version = entry["name"], entry["version"]
    raw = _mapping(entry.get("build"))
    problems = [*_texts(entry.get("problems")), *extra_problems]
    build: dict[str, Any] = {}
    via: str | None = None
    if name == "tensorflow" and raw is not None:
        build, via = normalize_build_info(raw), VIA_BUILD_INFO
    elif name == "torch" and raw is not None:
        build, via = torch_build(raw), VIA_VERSION_PY
    elif name.startswith("jax"):
        build, via = jax_build(name, version, raw)
    build_file = _text(entry.get("build_file"))
    if build and build_file:
        build["file"] = build_file
    if entry.get("record") == "mismatch":
        problems.append(
            f"{build_file} is not the file {entry['distribution']} {version} installed (the hash "
            "in its RECORD differs): another distribution has overwritten it"
        )
    return FrameworkFacts(
        name=name,
        distribution=entry["distribution"],
        version=version,
        location=_text(entry.get("location")),
        build=build,
        build_found_via=via,
        requires=tuple(_texts(entry.get("requires"))),
        problems=tuple(problems),
    )


def _valid_entry(entry: Mapping[str, Any]) -> bool:
    keys = ("name", "distribution", "version", "location")
    return all(isinstance(entry.get(key), str) for key in keys) and isinstance(
        entry.get("path_index"), int
    )


def frameworks_from_child(data: Mapping[str, Any]) -> tuple[FrameworkFacts, ...]:
    """FrameworkFacts from the child's "frameworks" list (pure; malformed entries are dropped)."""
    entries = [entry for entry in _records(data, "frameworks") if _valid_entry(entry)]
    shared = _shared_problems(entries)
    return tuple(_framework(entry, extra) for entry, extra in zip(entries, shared))


def wheels_from_child(data: Mapping[str, Any]) -> tuple[WheelFacts, ...]:
    wheels = []
    for entry in _records(data, "wheels"):
        name, version = _text(entry.get("distribution")), _text(entry.get("version"))
        if name is not None and version is not None:
            location, requires = _text(entry.get("location")), tuple(_texts(entry.get("requires")))
            wheels.append(WheelFacts(name, version, location, requires))
    return tuple(wheels)


def _int_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool))


def _owner(entry: Mapping[str, Any]) -> FileOwner | None:
    name, version, size = entry.get("distribution"), entry.get("version"), entry.get("size")
    matches = entry.get("matches")
    if not (isinstance(name, str) and isinstance(version, str) and _int_or_none(size)):
        return None
    if not (matches is None or isinstance(matches, bool)):
        return None
    return FileOwner(name, version, size, matches)


def shared_files_from_child(data: Mapping[str, Any]) -> tuple[SharedFileFacts, ...]:
    """SharedFileFacts from the child's "shared_files" list (pure; malformed entries dropped)."""
    found = []
    for entry in _records(data, "shared_files"):
        location, path, compared = (_text(entry.get(k)) for k in ("location", "path", "compared"))
        owners = [_owner(owner) for owner in _records(entry, "owners")]
        size = entry.get("size")
        if location is None or path is None or compared is None or not _int_or_none(size):
            continue
        if owners and all(owner is not None for owner in owners):
            found.append(
                SharedFileFacts(location, path, size, compared, tuple(o for o in owners if o))
            )
    return tuple(found)


def claims_from_child(data: Mapping[str, Any]) -> dict[str, dict[str, list[Claim]]]:
    """Site -> copy_owners.site_claims(site), from the child's "nvidia_claims" (site -> dist-info
    -> its RECORD rows under nvidia/). A site with one malformed entry is left out whole: the
    doctor then reads its RECORDs itself, and meets the same trouble there."""
    found: dict[str, dict[str, list[Claim]]] = {}
    for site, records in (_mapping(data.get("nvidia_claims")) or {}).items():
        claims: dict[str, list[Claim]] = {}
        try:
            for dist_info, rows in records.items():
                if not (isinstance(rows, list) and all(isinstance(r, str) for r in rows)):
                    raise ValueError(dist_info)
                add_claims(claims, dist_info, rows)
        except (AttributeError, ValueError):  # not a mapping; not rows; a size int() refused
            continue
        found[site] = claims
    return found


# --- import tensorflow (optional) -----------------------------------------------------------


def _inside(path: str, directory: str) -> bool:
    full = os.path.normcase(os.path.realpath(path))
    root = os.path.normcase(os.path.realpath(directory))
    return full.startswith(root + os.sep)


def _import_failure(result: ChildResult) -> str:
    sentence = f"import tensorflow in a child process {result.describe()}"
    if result.status in ("crashed", "timeout"):
        last = result.stderr_tail.strip().splitlines()[-1:]
        sentence += f" (last stderr line: {last[0].strip()})" if last else ""
    return sentence + "; the build info shown was read from build_info.py without importing"


def with_import_result(
    frameworks: Sequence[FrameworkFacts], result: ChildResult
) -> tuple[FrameworkFacts, ...]:
    """Apply the import child's answer to the TensorFlow frameworks (pure)."""
    imported = _mapping(result.data.get("tensorflow_import")) if result.data else None
    if not result.ok:
        return _add_problem_to_tensorflow(frameworks, _import_failure(result))
    if imported is None:
        problem = "the import child gave no tensorflow_import answer; build info not confirmed"
        return _add_problem_to_tensorflow(frameworks, problem)
    if not imported.get("ok"):
        problem = f"import tensorflow failed in a child process: {imported.get('error')}"
        return _add_problem_to_tensorflow(frameworks, problem)
    file, version = _text(imported.get("file")), _text(imported.get("version"))
    targets = [f for f in frameworks if _is_tf(f) and _loaded_from(file, f)]
    if not targets:
        problem = f"import tensorflow loaded {file} (version {version}), not from this distribution"
        return _add_problem_to_tensorflow(frameworks, problem)
    build = _mapping(imported.get("build_info"))
    via = _text(imported.get("via")) or VIA_GET_BUILD_INFO
    return tuple(_confirmed(f, version, build, via) if f in targets else f for f in frameworks)


def _is_tf(facts: FrameworkFacts) -> bool:
    return facts.name == "tensorflow"


def _loaded_from(file: str | None, facts: FrameworkFacts) -> bool:
    return file is not None and facts.location is not None and _inside(file, facts.location)


def _add_problem_to_tensorflow(
    frameworks: Sequence[FrameworkFacts], problem: str
) -> tuple[FrameworkFacts, ...]:
    return tuple(
        replace(f, problems=(*f.problems, problem)) if _is_tf(f) else f for f in frameworks
    )


def _confirmed(
    facts: FrameworkFacts, version: str | None, build: dict[str, Any] | None, via: str
) -> FrameworkFacts:
    problems = list(facts.problems)
    if version and not _same_version(version, facts.version):
        problems.append(
            f"import tensorflow reports version {version}, the distribution says {facts.version}"
        )
    if build is None:
        problems.append("import tensorflow gave no build info")
        return replace(facts, problems=tuple(problems))
    new_build = normalize_build_info(build)
    if "file" in facts.build:
        new_build["file"] = facts.build["file"]
    return replace(facts, build=new_build, build_found_via=via, problems=tuple(problems))


# --- the probe ------------------------------------------------------------------------------


def _child_failure(result: ChildResult, python: str | None) -> str:
    if result.status == "not-run":
        return f"framework probe could not start {python or 'this Python'}: {result.stderr_tail}"
    return f"framework probe {result.describe()}"


@record
class EnvironmentScan:
    """What the frameworks child found in one environment."""

    frameworks: tuple[FrameworkFacts, ...]
    wheels: tuple[WheelFacts, ...]
    shared_files: tuple[SharedFileFacts, ...]
    errors: tuple[str, ...]
    # The interpreter's sys.path as the child had it (PYTHONPATH first, then the site
    # directories), existing directories only: where torch's preload and JAX's `import
    # nvidia.<x>` look (framework_loading.py).
    paths: tuple[str, ...] = ()
    # Site -> copy_owners.site_claims(site), read by the child with the rest (claims_from_child).
    claims: dict[str, dict[str, list[Claim]]] = field(default_factory=dict)
    # children/interpreter.py's answer about the same interpreter, as the child gave it (None
    # when it gave none): interpreter.interpreter_from_answer reads it.
    interpreter: dict[str, Any] | None = None


def probe_frameworks(
    python: str | None = None,
    paths: Sequence[str] | None = None,
    import_tensorflow: bool = False,
    timeout: float = 30.0,
    group: ChildGroup | None = None,
    pythonpath: Sequence[str] = (),
) -> tuple[tuple[FrameworkFacts, ...], tuple[WheelFacts, ...], tuple[str, ...]]:
    """(frameworks, nvidia-*/tensorrt wheels, errors) of `python`: probe_environment less the
    shared files."""
    scan = probe_environment(python, paths, import_tensorflow, timeout, group, pythonpath)
    return scan.frameworks, scan.wheels, scan.errors


def probe_environment(
    python: str | None = None,
    paths: Sequence[str] | None = None,
    import_tensorflow: bool = False,
    timeout: float = 30.0,
    group: ChildGroup | None = None,
    pythonpath: Sequence[str] = (),
    launched: LaunchedChild | None = None,
) -> EnvironmentScan:
    """The frameworks, nvidia-*/tensorrt/cuda-toolkit wheels, shared nvidia/ files and errors of
    `python` (default: this one).

    `paths` replaces the interpreter's sys.path as the places to look (site directories);
    `pythonpath` (user_python_path) goes before it, as PYTHONPATH does for the user's python;
    `import_tensorflow` additionally imports TensorFlow in a second child (5-8 s on CPU).
    `launched` is the scan's child already started with these inputs (scan_launch.py).
    """
    argument = scan_argument(paths, pythonpath)
    if launched is None:
        launched = launch_scan(python, pythonpath, group or ChildGroup(), paths)
    result = finish_child(launched, timeout)
    if not result.ok or result.data is None:
        return EnvironmentScan((), (), (), (_child_failure(result, python),))
    data = result.data
    frameworks = frameworks_from_child(data)
    wheels = wheels_from_child(data)
    errors = _texts(data.get("errors"))
    if import_tensorflow and any(_is_tf(f) for f in frameworks):
        imported = run_child(
            CHILD,
            {**argument, "import_tensorflow": True},
            python=python,
            timeout=timeout,
            group=group,
        )
        frameworks = with_import_result(frameworks, imported)
    paths = tuple(_texts(data.get("paths")))
    shared = shared_files_from_child(data)
    return EnvironmentScan(
        frameworks,
        wheels,
        shared,
        tuple(errors),
        paths,
        claims_from_child(data),
        _mapping(data.get("interpreter")),
    )
