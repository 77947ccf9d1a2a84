"""Rules about the CUDA and cuDNN libraries the installed TensorFlow loads: missing, another
major, an older cuDNN, a missing sub-library, the wrong architecture, a missing dependency, and
copies that shadow the right one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath, PureWindowsPath

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envcheck.diagnose.context import Context
from envcheck.diagnose.pins import parse_requirement
from envcheck.distribution_names import canonical_name
from envcheck.findings import Finding, Severity
from envcheck.matrix.recipes import install_recipe
from envcheck.matrix.records import LibraryFile
from envcheck.matrix.rules import cudnn_runtime_compatible
from envcheck.probe.facts import ANOTHER_VERSION, BROKEN_LINKS, LibraryFacts
from envcheck.versions import major_minor


def _wanted_roles(context: Context) -> set[str]:
    return {lib.name for lib in context.facts.libraries if lib.name != "cuda-driver"}


def _gpu_build(context: Context) -> bool:
    return (
        context.tensorflow is not None and context.is_cuda_build is True and context.os != "macos"
    )


def install_fix(context: Context) -> str:
    """How to install the CUDA and cuDNN of the TensorFlow release in the facts, on their OS
    (also the fix explain gives a log that shows its release)."""
    release, version = context.release, context.tensorflow_version
    if release is None or version is None:
        return (
            "Install the CUDA and cuDNN versions this TensorFlow was built with (`envcheck matrix` "
            "lists them)."
        )
    recipe = install_recipe(release, version, context.os, gpu=True)
    if recipe.extra:
        return recipe.pip_command()
    setup = "; ".join(recipe.outside_pip)
    return (
        f"Install CUDA {release.cuda} and cuDNN {release.cudnn} and put them on the loader's "
        f"path{': ' + setup if setup else ''}."
    )


def _cudnn_complete_fix(context: Context) -> str:
    """The command that puts cuDNN's sub-libraries back: the installed cuDNN wheel again (its
    files restored, nothing else changed), else the release's own install."""
    wheel = next(
        (w for w in context.facts.wheels if re.fullmatch(r"nvidia-cudnn-cu\d+", w.name)), None
    )
    if wheel is not None:
        return (
            "Reinstall the cuDNN wheel, which ships every sub-library beside the shim: "
            f'python -m pip install --force-reinstall --no-deps "{wheel.name}=={wheel.version}"'
        )
    return (
        "Install the complete cuDNN package (all sub-libraries) next to the shim: "
        f"{install_fix(context)}"
    )


def missing_libraries(context: Context) -> list[Finding]:
    """cuda-library-missing, cuda-version-mismatch, cudnn-missing, cudnn-sublibrary-missing."""
    if not _gpu_build(context):
        return []
    findings = []
    missing_cuda: list[str] = []
    other_majors: list[str] = []
    # Where a missing library sits in a pip wheel the loader does not search (TensorFlow's
    # RUNPATH lacks that directory): reinstalling changes nothing, the path does.
    unreached_wheel_dirs: dict[str, None] = {}
    unreached_all = True
    # What TensorFlow's dlopen check does not need before it registers a GPU (libraries.toml).
    optional = {lib.role for lib in _library_files(context, with_wheel=False) if not lib.required}
    for role in sorted(_wanted_roles(context)):
        copies = context.libraries(role)
        if any(c.selected for c in copies):
            continue
        wanted = copies[0].file if copies else role
        others = [c for c in copies if c.found_via == ANOTHER_VERSION]
        unsearched = [
            c for c in copies if c.path and c.found_via not in (ANOTHER_VERSION, *BROKEN_LINKS)
        ]
        where = [f"{c.path} ({c.found_via})" for c in unsearched]
        if role == "cudnn":
            findings.append(
                Finding(
                    "cudnn-version-mismatch" if others else "cudnn-missing",
                    Severity.ERROR,
                    f"No loadable {wanted}: TensorFlow {context.tensorflow_version} needs cuDNN "
                    f"{context.build_cudnn}.",
                    (*(c.problems[0] for c in others if c.problems), *where),
                    install_fix(context),
                )
            )
        elif role.startswith("cudnn_"):
            if context.selected("cudnn") is not None:
                findings.append(
                    Finding(
                        "cudnn-sublibrary-missing",
                        Severity.ERROR,
                        f"cuDNN's {wanted} is missing: the first convolution or RNN will fail "
                        f"('Could not load library {wanted}').",
                        tuple(where),
                        _cudnn_complete_fix(context),
                    )
                )
        elif role in optional:
            continue  # optional for most programs; the smoke test shows when they matter
        elif others:
            other_majors.extend(c.problems[0] for c in others if c.problems)
        else:
            missing_cuda.append(wanted)
            missing_cuda.extend(f"  seen at {w}" for w in where)
            wheel_copies = [c for c in unsearched if c.found_via.startswith("pip wheel")]
            unreached_all = unreached_all and bool(wheel_copies)
            for copy in wheel_copies[:1]:
                unreached_wheel_dirs[str(PurePosixPath(copy.path).parent)] = None
    if other_majors:
        findings.append(
            Finding(
                "cuda-version-mismatch",
                Severity.ERROR,
                f"The CUDA libraries found are of another version than the CUDA "
                f"{context.build_cuda} this TensorFlow loads.",
                tuple(other_majors),
                install_fix(context),
            )
        )
    if missing_cuda:
        unreached = context.os in ("linux", "wsl") and unreached_all and unreached_wheel_dirs
        findings.append(
            Finding(
                "cuda-library-missing",
                Severity.ERROR,
                f"CUDA libraries TensorFlow {context.tensorflow_version} loads are not found, so "
                "it will skip the GPU ('Cannot dlopen some GPU libraries').",
                tuple(missing_cuda),
                _library_path_fix(tuple(unreached_wheel_dirs), context)
                if unreached
                else install_fix(context),
            )
        )
    return findings


def _library_path_fix(directories: Sequence[str], context: Context) -> str:
    """The fix for installed wheels the loader never searches: put their directories on
    LD_LIBRARY_PATH, in the environment's activate script so that it lasts."""
    joined = ":".join(directories)
    return (
        f"The pip wheels are installed, but TensorFlow {context.tensorflow_version}'s RUNPATH "
        "does not name their directories. Add them to the loader's path: "
        f'export LD_LIBRARY_PATH="{joined}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}" '
        "(append that line to the virtual environment's bin/activate, or to a conda "
        "environment's etc/conda/activate.d/, so that every shell gets it)."
    )


def runtime_of_another_cuda(context: Context) -> list[Finding]:
    """cuda-version-mismatch where no TensorFlow GPU build judges the libraries (missing_libraries
    does): a CUDA library the program asks for is there only as another CUDA version, so the
    program (or an extension of it) was built for another CUDA than the one installed."""
    if _gpu_build(context):
        return []
    # Only a load that failed says a program asked for the name: the probe records a copy of
    # another version for every CUDA release's soname it looks for (libcudart.so.10.0 to .12
    # beside a libcudart.so.13), which nothing here may ask for, and the frameworks' own asks
    # are judged by the loading rules. A log's failed load stands at no path of a file.
    others = [
        copy
        for copy in context.facts.libraries
        if copy.found_via == ANOTHER_VERSION
        and context.selected(copy.name) is None
        and not _is_file_path(copy.path)
    ]
    if not others:
        return []
    first = others[0]
    return [
        Finding(
            "cuda-version-mismatch",
            Severity.ERROR,
            f"{first.file} cannot be loaded: the CUDA here is {first.version}, so the program "
            "(or the extension that asks for it) was built for another CUDA than the one "
            "installed.",
            tuple(f"{copy.file} {copy.problems[0]}" for copy in others if copy.problems),
            f"Install the build of the program (or extension) made for CUDA {first.version}, "
            f"or the CUDA runtime {first.file} belongs to beside it.",
        )
    ]


def cudnn_version(context: Context) -> list[Finding]:
    """cudnn-version-mismatch: the selected cuDNN is another major or an older minor."""
    build = context.build_cudnn
    selected = context.selected("cudnn")
    if not _gpu_build(context) or build is None or selected is None or not selected.version:
        return []
    try:
        runtime = Version(selected.version)
    except InvalidVersion:
        return []
    if len(runtime.release) < 2 and major_minor(runtime)[0] == major_minor(build)[0]:
        return []  # only the major is known (a bare soname): the name already matched it
    outcome = cudnn_runtime_compatible(build, runtime)
    if outcome.ok:
        return []
    return [
        Finding(
            "cudnn-version-mismatch",
            Severity.ERROR,
            f"The cuDNN that loads is {runtime}, but TensorFlow {context.tensorflow_version} was "
            f"built with {build}: 'Loaded runtime CuDNN library: {runtime} but source was "
            f"compiled with: {build}'.",
            (f"{selected.path} ({selected.found_via})",),
            install_fix(context),
        )
    ]


def _problem_findings(context: Context, copies: Sequence[LibraryFacts]) -> list[Finding]:
    findings = []
    for lib in copies:
        for problem in lib.problems:
            if problem.startswith("wrong architecture"):
                findings.append(
                    Finding(
                        "library-wrong-architecture",
                        Severity.ERROR,
                        f"{lib.file} is built for another architecture; loading it fails "
                        "(Windows: error 193).",
                        (f"{lib.path}: {problem}",),
                        f"Replace {lib.path} with the 64-bit ({context.facts.platform.arch}) "
                        "build of the same version.",
                    )
                )
            elif problem.startswith("is ") and "another version" in problem:
                unreached = [
                    c
                    for c in context.libraries(lib.name)
                    if c.file != lib.file and c.path and c.found_via.startswith("pip wheel")
                ]
                fix = (
                    _library_path_fix([str(PurePosixPath(unreached[0].path).parent)], context)
                    if unreached and context.os in ("linux", "wsl")
                    else install_fix(context)
                )
                findings.append(
                    Finding(
                        "cuda-version-mismatch",
                        Severity.WARNING,
                        f"TensorFlow falls back to {lib.path}, which {problem}; the "
                        f"{lib.name} features that need it (the profiler, for CUPTI) will fail.",
                        (f"{lib.path} ({lib.found_via})", *(c.path for c in unreached)),
                        fix,
                    )
                )
            elif problem.startswith("needs "):
                dependency = problem.split()[1].rstrip(",")
                fix = (
                    "Download zlib's 64-bit zlibwapi.dll (NVIDIA's cuDNN 8 install guide) and "
                    "put it in a directory on PATH."
                    if dependency.lower() == "zlibwapi.dll"
                    else f"Install the library that provides {dependency} on the loader's path."
                )
                findings.append(
                    Finding(
                        "library-dependency-missing",
                        Severity.ERROR,
                        f"{lib.file} {problem}: loading it fails (Windows: error 126).",
                        (lib.path,),
                        fix,
                    )
                )
    return findings


def library_files(context: Context) -> list[Finding]:
    """library-wrong-architecture and library-dependency-missing on the copies that load."""
    if not _gpu_build(context):
        return []
    selected = [lib for lib in context.facts.libraries if lib.selected]
    return _problem_findings(context, selected)


def shadowed_copies(context: Context) -> list[Finding]:
    """library-shadowed: the copy that loads is broken or too old while another one is fine."""
    if not _gpu_build(context):
        return []
    findings = []
    build = context.build_cudnn
    for role in sorted(_wanted_roles(context)):
        copies = [c for c in context.libraries(role) if c.path and c.found_via != ANOTHER_VERSION]
        selected = next((c for c in copies if c.selected), None)
        # Shadowing is between copies of one name; a fallback name (libcupti.so) is not.
        others = [
            c
            for c in copies
            if not c.selected
            and c.found_via not in BROKEN_LINKS
            and (selected is None or c.file == selected.file)
        ]
        if selected is None or not others:
            continue
        bad = bool(selected.problems) or _too_old(role, selected, build)
        good = [c for c in others if not c.problems and not _too_old(role, c, build)]
        if bad and good:
            findings.append(
                Finding(
                    "library-shadowed",
                    Severity.ERROR,
                    f"The {selected.file} that loads ({selected.path}) is not usable, while a "
                    f"good copy at {good[0].path} is shadowed by it.",
                    tuple(f"{c.path} ({c.found_via}, {c.version or 'version ?'})" for c in copies),
                    _first_fix(context, good[0].path, selected.path),
                )
            )
    return findings


def _first_fix(context: Context, good: str, bad: str) -> str:
    """Put the good copy's directory first, as a command: the loader searches LD_LIBRARY_PATH
    (PATH on Windows) before a RUNPATH or the system's directories."""
    if context.os == "windows":
        folder = good.rsplit("\\", 1)[0]
        return f'Remove the copy at {bad}, or put the good one first: set "PATH={folder};%PATH%"'
    folder = good.rsplit("/", 1)[0]
    return (
        f"Remove the copy at {bad}, or put the good one first: "
        f'export LD_LIBRARY_PATH="{folder}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"'
    )


def _too_old(role: str, copy: LibraryFacts, build: Version | None) -> bool:
    if role != "cudnn" or build is None or not copy.version:
        return False
    try:
        runtime = Version(copy.version)
    except InvalidVersion:
        return False
    return len(runtime.release) >= 2 and not cudnn_runtime_compatible(build, runtime).ok


def below_tensorflow_floor(context: Context) -> list[Finding]:
    """library-shadowed / cuda-version-mismatch: the copy that loads is older than what the
    installed TensorFlow itself requires of that library's wheel (its and-cuda Requires-Dist),
    e.g. TF 2.15's cuBLAS 12.2 first on LD_LIBRARY_PATH under TF 2.21 (cuBLAS >= 12.5.3.2)."""
    tf = context.tensorflow
    if not _gpu_build(context) or tf is None:
        return []
    floors = _wheel_specifiers(tf.requires)
    findings = []
    for library in _library_files(context):
        spec = floors.get(library.wheel or "")
        copies = [
            c
            for c in context.libraries(library.role)
            if c.path and c.found_via not in (ANOTHER_VERSION, *BROKEN_LINKS)
        ]
        selected = next((c for c in copies if c.selected), None)
        if spec is None or selected is None or _meets(selected, spec) is not False:
            continue
        good = [c for c in copies if not c.selected and _meets(c, spec) and not c.problems]
        severity = Severity.ERROR if library.required else Severity.WARNING
        evidence = tuple(
            f"{c.path} ({c.found_via}, {c.version}{', loads' if c.selected else ''})"
            for c in copies
        )
        wanted = f"TensorFlow {context.tensorflow_version} requires {library.wheel}{spec}"
        where = PurePosixPath(selected.path).parent
        if good:
            findings.append(
                Finding(
                    "library-shadowed",
                    severity,
                    f"The {selected.file} that loads is {selected.version} ({selected.path}), "
                    f"older than {wanted}; the copy at {good[0].path} would do, but it is "
                    "shadowed.",
                    evidence,
                    f"Remove {where} from LD_LIBRARY_PATH, or put "
                    f"{PurePosixPath(good[0].path).parent} before it."
                    if selected.found_via.startswith("LD_LIBRARY_PATH")
                    else f"Remove the copy at {selected.path}.",
                )
            )
        else:
            findings.append(
                Finding(
                    "cuda-version-mismatch",
                    severity,
                    f"The {selected.file} that loads is {selected.version}, older than {wanted}.",
                    evidence,
                    f'python -m pip install "{library.wheel}{spec}"',
                )
            )
    return findings


def _library_files(context: Context, with_wheel: bool = True) -> list[LibraryFile]:
    """The CUDA libraries of the installed build (cuDNN has its own rules); by default only
    those a pip wheel ships."""
    cuda = context.build_cuda
    library_set = context.matrix.cuda_libraries(cuda) if cuda is not None else None
    libraries = library_set.libraries if library_set else ()
    return [lib for lib in libraries if lib.wheel or not with_wheel]


def _wheel_specifiers(requires: Sequence[str]) -> dict[str, SpecifierSet]:
    specifiers: dict[str, SpecifierSet] = {}
    for text in requires:
        requirement = parse_requirement(text)
        if requirement is None:
            continue
        # Only the floor counts: TF 2.15 pins ==12.2.5.6, yet a newer cuBLAS 12 serves it
        # (CUDA minor-version compatibility); no copy of the same soname is past the ceiling.
        floor = ",".join(
            f">={s.version}" if s.operator in ("==", "===", "~=") else str(s)
            for s in requirement.specifier
            if s.operator in ("==", "===", "~=", ">=", ">")
        )
        if floor:
            specifiers[canonical_name(requirement.name)] = SpecifierSet(floor)
    return specifiers


def _meets(copy: LibraryFacts, spec: SpecifierSet) -> bool | None:
    """Whether the copy's version meets `spec`; None when only a major (or nothing) is known."""
    if not copy.version or copy.version.count(".") < 2:
        return None
    try:
        return spec.contains(Version(copy.version), prereleases=True)
    except InvalidVersion:
        return None


def _is_file_path(path: str) -> bool:
    """Whether `path` names a file (POSIX or Windows), not a log's description of a place."""
    return PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()
