"""Consistency checks across the rows and files of a matrix (`envcheck matrix validate`).

The loader already refused malformed rows; these checks find rows that are well-formed but
contradict each other: a TensorFlow build whose CUDA has no driver row, driver floors that fall as
CUDA rises, SASS targets its toolkit cannot compile, two GPUs with one name. Each check returns
problems as data; nothing is raised and nothing is printed here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from envcheck.matrix.advisories import load_known_bugs
from envcheck.matrix.gpu_names import name_key
from envcheck.matrix.model import Matrix
from envcheck.matrix.records import TensorflowRelease, TorchBuild
from envcheck.matrix.rows import MatrixDataError
from envcheck.matrix.rules import cudnn_runtime_compatible
from envcheck.matrix.signatures import load_signatures
from envcheck.record import record
from envcheck.versions import major_minor

ARCHITECTURES = frozenset(
    {
        "Kepler",
        "Maxwell",
        "Pascal",
        "Volta",
        "Turing",
        "Ampere",
        "Ada Lovelace",
        "Hopper",
        "Blackwell",
    }
)
SEGMENTS = frozenset({"geforce", "workstation", "datacenter", "jetson"})


@record
class Problem:
    """One inconsistency, with the file a person should open to fix it."""

    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


def check_files(directory: Path) -> list[Problem]:
    """Each data file of `directory` read on its own, so that every file that is missing or
    does not load is reported in one run, not the first one only; a problem two readers share
    is reported once."""
    # Imported here: these readers are the checks' input, each with its own file(s). The
    # signature files are read once for their signatures and their [[framework]] rows.
    from envcheck.matrix import load  # noqa: PLC0415
    from envcheck.matrix.error_codes import load_error_codes  # noqa: PLC0415
    from envcheck.matrix.signatures import load_signature_files  # noqa: PLC0415
    from envcheck.matrix.wheel_libraries import load_wheel_libraries  # noqa: PLC0415
    from envcheck.matrix.wheel_platforms import load_wheel_platforms  # noqa: PLC0415

    readers: tuple[Callable[[Path], object], ...] = (
        load.load_tensorflow,
        load.load_cuda_drivers,
        load.load_architectures,
        load.load_cudnn,
        load.load_libraries,
        load.load_gpus,
        load.load_driver_branches,
        load_signature_files,
        load_known_bugs,
        load_error_codes,
        load.load_pytorch,
        load.load_jax,
        load_wheel_platforms,
        load_wheel_libraries,
    )
    problems: list[Problem] = []
    for reader in readers:
        try:
            reader(directory)
        except MatrixDataError as exc:
            problem = Problem("load", str(exc))
            if problem not in problems:
                problems.append(problem)
    return problems


def check_matrix(matrix: Matrix) -> list[Problem]:
    return [
        *_check_releases(matrix),
        *_check_toolkits(matrix),
        *_check_families(matrix),
        *_check_architectures(matrix),
        *_check_cudnn(matrix),
        *_check_libraries(matrix),
        *_check_gpus(matrix),
        *_check_torch(matrix),
        *_check_jax(matrix),
        *_check_wheel_platforms(matrix),
    ]


def check_advisories(directory: Path) -> list[Problem]:
    """known_bugs.toml against log_signatures.toml: every symptom a bug lists must be a
    signature id. Read from the directory (a broken file is a problem here, not an exception),
    so a matrix whose other files do not load still has these two checked."""
    try:
        signature_ids = {s.id for s in load_signatures(directory)}
        bugs = load_known_bugs(directory)
    except MatrixDataError as exc:
        return [Problem("load", str(exc))]
    return [
        Problem("known_bugs.toml", f"{bug.id}: symptom {symptom!r} is no signature id")
        for bug in bugs
        for symptom in sorted(set(bug.symptoms) - signature_ids)
    ]


def _duplicates(items: list[str]) -> list[str]:
    return sorted(item for item, count in Counter(items).items() if count > 1)


def _wheel_pin_major(release_pins: tuple[str, ...], prefix: str) -> list[Version]:
    """Lower bounds of the and-cuda pins whose name starts with `prefix`."""
    found = []
    for text in release_pins:
        requirement = Requirement(text)
        if requirement.name.startswith(prefix):
            for spec in requirement.specifier:
                if spec.operator in ("==", ">="):
                    found.append(Version(spec.version))
    return found


def _check_releases(matrix: Matrix) -> Iterator[Problem]:
    file = "tensorflow.toml"
    all_versions = [str(v) for r in matrix.releases for v in r.versions]
    for version in _duplicates(all_versions):
        yield Problem(file, f"TensorFlow {version} appears in more than one [[release]]")
    for series in _duplicates([r.series for r in matrix.releases]):
        yield Problem(file, f"series {series} has more than one [[release]]")
    for release in matrix.releases:
        name = f"TensorFlow {release.series}"
        if any(major_minor(v) != major_minor(release.latest) for v in release.versions):
            yield Problem(file, f"{name}: versions of different series in one row")
        if list(release.python) != sorted(set(release.python)):
            yield Problem(file, f"{name}: python must be ascending without duplicates")
        if (release.cuda is None) != (release.cudnn is None):
            yield Problem(file, f"{name}: cuda and cudnn must both be given or both omitted")
        if (release.linux_gpu or release.windows_gpu) and release.cuda is None:
            yield Problem(file, f"{name}: a GPU build needs cuda and cudnn")
        if release.and_cuda and not release.linux_gpu:
            yield Problem(file, f"{name}: and_cuda given for a release without a Linux GPU build")
        if release.cuda is None or release.cudnn is None:
            continue
        yield from _check_release_cuda(matrix, name, release.cuda, release.cudnn)
        yield from _check_release_build(matrix, name, release)


def _check_release_build(
    matrix: Matrix, name: str, release: TensorflowRelease
) -> Iterator[Problem]:
    """A GPU release's targets and and-cuda pins against its CUDA and cuDNN versions."""
    file = "tensorflow.toml"
    if release.cuda is None or release.cudnn is None:
        return
    if not release.cuda_targets:
        yield Problem(file, f"{name}: a GPU build needs cuda_targets")
    targetable = set(matrix.targetable_capabilities(release.cuda))
    for target in release.cuda_targets:
        if targetable and target.capability not in targetable:
            yield Problem(
                file,
                f"{name}: target {target} cannot be built by CUDA {release.cuda} "
                "(cuda_architectures.toml)",
            )
    cuda_major = major_minor(release.cuda)[0]
    for pin in _wheel_pin_major(release.and_cuda, "nvidia-cuda-runtime-"):
        if pin.release[0] != cuda_major:
            yield Problem(
                file, f"{name}: and_cuda pins CUDA runtime {pin}, built with {release.cuda}"
            )
    for pin in _wheel_pin_major(release.and_cuda, "nvidia-cudnn-"):
        if not cudnn_runtime_compatible(release.cudnn, pin).ok:
            yield Problem(
                file,
                f"{name}: and_cuda pins cuDNN {pin}, which TensorFlow's rule rejects for a "
                f"build with {release.cudnn}",
            )


def _check_release_cuda(
    matrix: Matrix, name: str, cuda: Version, cudnn: Version
) -> Iterator[Problem]:
    file = "tensorflow.toml"
    if matrix.toolkit(cuda) is None:
        yield Problem(file, f"{name}: CUDA {cuda} has no [[toolkit]] row in cuda_drivers.toml")
    for os_name in ("linux", "windows"):
        if matrix.driver_requirement(cuda, os_name) is None:
            yield Problem(file, f"{name}: no {os_name} driver requirement for CUDA {cuda}")
    if matrix.cuda_libraries(cuda) is None:
        yield Problem(file, f"{name}: CUDA {cuda} has no [[set]] in libraries.toml")
    if matrix.cudnn_major(cudnn.release[0]) is None:
        yield Problem(
            file, f"{name}: cuDNN major {cudnn.release[0]} has no [[major]] in cudnn.toml"
        )
    covering = matrix.cudnn_releases_for(cudnn)
    if not covering:
        yield Problem(file, f"{name}: cuDNN {cudnn} has no [[release]] row in cudnn.toml")
    elif not any(major_minor(c)[0] == major_minor(cuda)[0] for r in covering for c in r.cuda):
        yield Problem(
            file,
            f"{name}: cudnn.toml lists no CUDA {major_minor(cuda)[0]}.x support for cuDNN {cudnn}",
        )


def _check_toolkits(matrix: Matrix) -> Iterator[Problem]:
    file = "cuda_drivers.toml"
    for version in _duplicates([str(t.version) for t in matrix.toolkits]):
        yield Problem(file, f"CUDA {version} has more than one [[toolkit]] row")
    ordered = sorted(matrix.toolkits, key=lambda t: t.version)
    for attribute in ("linux_driver", "windows_driver"):
        previous = None
        for toolkit in ordered:
            driver = getattr(toolkit, attribute)
            if driver is None:
                continue
            if previous is not None and driver < previous[1]:
                yield Problem(
                    file,
                    f"{attribute} falls from {previous[1]} (CUDA {previous[0]}) to {driver} "
                    f"(CUDA {toolkit.version}); minimums must not decrease as CUDA rises",
                )
            previous = (toolkit.version, driver)


def _check_families(matrix: Matrix) -> Iterator[Problem]:
    file = "cuda_drivers.toml"
    for major in _duplicates([str(f.major) for f in matrix.families]):
        yield Problem(file, f"CUDA {major}.x has more than one [[family]] row")
    ordered = sorted(matrix.families, key=lambda f: f.major)
    for lower, higher in zip(ordered, ordered[1:]):
        if higher.linux_driver < lower.linux_driver:
            yield Problem(
                file, f"the CUDA {higher.major}.x floor is below the {lower.major}.x floor"
            )
    for family in matrix.families:
        members = [t for t in matrix.toolkits if t.version.release[0] == family.major]
        # The first releases of a major may ship an older driver than the floor (CUDA 11.0 GA
        # came with 450.51), but a floor above even the newest release's driver is a typo.
        newest = max(members, key=lambda t: t.version, default=None)
        newest_driver = newest.linux_driver if newest is not None else None
        if newest is not None and newest_driver is not None and family.linux_driver > newest_driver:
            yield Problem(
                file,
                f"the CUDA {family.major}.x floor {family.linux_driver} is above the driver of "
                f"its newest toolkit {newest.version} ({newest_driver})",
            )


def _check_architectures(matrix: Matrix) -> Iterator[Problem]:
    file = "cuda_architectures.toml"
    for since in _duplicates([str(a.since) for a in matrix.architectures]):
        yield Problem(file, f"more than one [[targets]] row since CUDA {since}")
    targetable = {c for row in matrix.architectures for c in row.capabilities}
    for gpu in matrix.gpus:
        if gpu.compute_capability not in targetable and gpu.compute_capability.major >= 3:
            yield Problem(
                "gpus.toml",
                f"{gpu.name}: compute capability {gpu.compute_capability} is not a target of any "
                "CUDA toolkit in cuda_architectures.toml",
            )


def _check_cudnn(matrix: Matrix) -> Iterator[Problem]:
    file = "cudnn.toml"
    ordered = sorted(matrix.cudnn_releases, key=lambda r: r.first)
    for release in ordered:
        if release.last < release.first:
            yield Problem(file, f"cuDNN {release.first}-{release.last}: last is before first")
        for cuda in release.cuda:
            if matrix.toolkit(cuda) is None:
                yield Problem(
                    file,
                    f"cuDNN {release.first}-{release.last}: CUDA {cuda} is not a toolkit in "
                    "cuda_drivers.toml",
                )
    for lower, higher in zip(ordered, ordered[1:]):
        if higher.first <= lower.last:
            yield Problem(
                file,
                f"cuDNN ranges {lower.first}-{lower.last} and {higher.first}-{higher.last} overlap",
            )
    for major in _duplicates([str(m.major) for m in matrix.cudnn_majors]):
        yield Problem(file, f"cuDNN {major} has more than one [[major]] row")
    for row in matrix.cudnn_majors:
        if not row.libraries or row.libraries[0].role != "cudnn":
            yield Problem(file, f"cuDNN {row.major}: the first library must be the 'cudnn' shim")
        for lib in row.libraries:
            for name in (lib.linux, lib.windows):
                if name is not None and str(row.major) not in name:
                    yield Problem(file, f"cuDNN {row.major}: {name} does not carry the major")


def _check_libraries(matrix: Matrix) -> Iterator[Problem]:
    file = "libraries.toml"
    keys = [str(major_minor(v)) for s in matrix.library_sets for v in s.cuda]
    for key in _duplicates(keys):
        yield Problem(file, f"CUDA {key} is in more than one [[set]]")
    for library_set in matrix.library_sets:
        label = ", ".join(str(v) for v in library_set.cuda)
        for role in _duplicates([lib.role for lib in library_set.libraries]):
            yield Problem(file, f"set for CUDA {label}: role {role} appears twice")
        if not any(lib.role == "cudart" for lib in library_set.libraries):
            yield Problem(file, f"set for CUDA {label}: no cudart")
        for lib in library_set.libraries:
            if (lib.wheel is None) != (lib.wheel_dir is None):
                yield Problem(file, f"{lib.role} (CUDA {label}): wheel and wheel_dir go together")


def _check_gpus(matrix: Matrix) -> Iterator[Problem]:
    file = "gpus.toml"
    owners: dict[str, list[int]] = {}
    for row, gpu in enumerate(matrix.gpus):
        for spelling in dict.fromkeys(name_key(s) for s in (gpu.name, *gpu.aliases)):
            owners.setdefault(spelling, []).append(row)
    for key, rows in sorted(owners.items()):
        if len(rows) > 1:
            names = ", ".join(f"#{row + 1} {matrix.gpus[row].name}" for row in rows)
            yield Problem(
                file, f"[[gpu]] rows {names} read the same once brand words are dropped ({key!r})"
            )
    for limit in matrix.driver_branches:
        if limit.architecture not in ARCHITECTURES:
            yield Problem("driver_branches.toml", f"unknown architecture {limit.architecture!r}")
    for gpu in matrix.gpus:
        if gpu.architecture not in ARCHITECTURES:
            yield Problem(file, f"{gpu.name}: unknown architecture {gpu.architecture!r}")
        if gpu.segment not in SEGMENTS:
            yield Problem(file, f"{gpu.name}: unknown segment {gpu.segment!r}")


def _check_torch(matrix: Matrix) -> Iterator[Problem]:
    """pytorch.toml: one row per series and variant, CUDA known to cuda_drivers.toml, kernels a
    toolkit of that CUDA can build, one default wheel per platform and series."""
    file = "pytorch.toml"
    try:
        builds = matrix.torch_builds
    except MatrixDataError as exc:
        yield Problem(file, str(exc))
        return
    for key in _duplicates([f"{b.series} {b.variant}" for b in builds]):
        yield Problem(file, f"torch {key} has more than one [[build]]")
    defaults = [f"{b.series} on {p}" for b in builds for p in b.pypi_default]
    for key in _duplicates(defaults):
        yield Problem(file, f"torch {key}: more than one build is the index's default")
    for build in builds:
        name = f"torch {build.series} {build.variant}"
        if any(major_minor(v) != major_minor(build.latest) for v in build.versions):
            yield Problem(file, f"{name}: versions of different series in one row")
        if not build.platforms or not build.pypi_default <= build.platforms:
            yield Problem(file, f"{name}: pypi_default must be among platforms")
        if list(build.python) != sorted(set(build.python)):
            yield Problem(file, f"{name}: python must be ascending without duplicates")
        if build.variant == "cpu":
            if build.cuda is not None or build.arch_list is not None or build.wheels:
                yield Problem(file, f"{name}: a cpu build has no cuda, arch_list or wheels")
            continue
        expected = f"cu{build.cuda.release[0]}{build.cuda.release[1]}" if build.cuda else None
        if build.variant != expected:
            yield Problem(file, f"{name}: variant does not spell its cuda {build.cuda}")
            continue
        yield from _check_torch_cuda(matrix, name, build)


def _check_torch_cuda(matrix: Matrix, name: str, build: TorchBuild) -> Iterator[Problem]:
    """A CUDA build's driver floor, kernels and pins against its CUDA and cuDNN."""
    file = "pytorch.toml"
    if build.cuda is None:
        return
    if matrix.driver_requirement(build.cuda, "linux") is None:
        yield Problem(file, f"{name}: no Linux driver requirement for CUDA {build.cuda}")
    targetable = set(matrix.targetable_capabilities(build.cuda))
    for capability in build.arch_list or ():
        if targetable and capability not in targetable:
            yield Problem(
                file,
                f"{name}: sm_{capability.major}{capability.minor} cannot be "
                f"built by CUDA {build.cuda} (cuda_architectures.toml)",
            )
    for pin in _wheel_pin_major(build.wheels, "nvidia-cuda-runtime-"):
        if pin.release[0] != build.cuda.release[0]:
            yield Problem(file, f"{name}: pins CUDA runtime {pin}, variant is {build.cuda}")
    for pin in _wheel_pin_major(build.wheels, "nvidia-cudnn-"):
        if build.cudnn is not None and pin != build.cudnn:
            yield Problem(file, f"{name}: pins cuDNN {pin}, row says {build.cudnn}")


def _check_jax(matrix: Matrix) -> Iterator[Problem]:
    """jax.toml: one row per jax release and extra, whose plugin and cuDNN wheel carry the
    extra's CUDA major, and a CUDA major cuda_drivers.toml has a floor for."""
    file = "jax.toml"
    try:
        plugins = matrix.jax_plugins
    except MatrixDataError as exc:
        yield Problem(file, str(exc))
        return
    for key in _duplicates([f"{p.jax} {p.extra}" for p in plugins]):
        yield Problem(file, f"jax {key} has more than one [[plugin]]")
    for plugin in plugins:
        name = f"jax {plugin.jax} [{plugin.extra}]"
        suffix = f"cuda{plugin.cuda_major}"
        if plugin.extra != suffix or plugin.plugin != f"jax-{suffix}-plugin":
            yield Problem(file, f"{name}: extra and plugin must name CUDA {plugin.cuda_major}")
        if Requirement(plugin.cudnn).name != f"nvidia-cudnn-cu{plugin.cuda_major}":
            yield Problem(
                file, f"{name}: cudnn {plugin.cudnn!r} is not the cu{plugin.cuda_major} wheel"
            )
        if plugin.cudnn not in plugin.with_cuda:
            yield Problem(file, f"{name}: cudnn {plugin.cudnn!r} is not in with_cuda")
        if matrix.family(plugin.cuda_major) is None:
            yield Problem(file, f"{name}: CUDA {plugin.cuda_major}.x has no [[family]] row")


def _check_wheel_platforms(matrix: Matrix) -> Iterator[Problem]:
    """wheel_platforms.toml: a TensorFlow span says what tensorflow.toml's `platforms` say (the
    first release of the first series with the platform, the last of the last)."""
    file = "wheel_platforms.toml"
    try:
        spans = matrix.wheel_platforms
    except MatrixDataError as exc:
        yield Problem(file, str(exc))
        return
    ordered = sorted(matrix.releases, key=lambda r: r.latest)
    for span in spans:
        if span.package != "tensorflow":
            continue
        holding = [r for r in ordered if span.key in r.platforms]
        if not holding:
            yield Problem(file, f"tensorflow on {span.key}: no tensorflow.toml release has it")
            continue
        if span.first is not None and span.first != holding[0].versions[0]:
            yield Problem(
                file,
                f"tensorflow on {span.key}: first {span.first}, but tensorflow.toml's first "
                f"release with it is {holding[0].versions[0]}",
            )
        if span.last is not None and span.last != holding[-1].latest:
            yield Problem(
                file,
                f"tensorflow on {span.key}: last {span.last}, but tensorflow.toml's last "
                f"release with it is {holding[-1].latest}",
            )
