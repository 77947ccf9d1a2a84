"""Which wheels a target machine needs, and getting them verified into a wheelhouse.

The requirements are recommend's for the target's machine (its OS, Python and driver: given,
or this host's for a target of this host's OS), each as its recipe's wheels
(envcheck/matrix/recipes.py), so fetch, install and recommend give one answer: the CPU package
where no driver runs the GPU build, the GPU recipe (on Linux the and-cuda pins, one wheel each)
where one does, and `--cpu`/`--gpu` (`build`) for the other. For TensorFlow the candidates are
tried newest first inside `--tensorflow SPEC`, and the first whose wheel the index has for the
target's tags is taken (`choose_plans`): the matrix says which Python and OS a release
supports, only the index says which glibc its wheels need. For PyTorch and JAX (`framework`) it
is recommend's best build; a PyTorch variant is read from PyTorch's index for it, never guessed.
Each `--platform` is one target machine.
Without --with-deps each requirement is resolved here, from the index's simple API and the
target's wheel tags, and downloaded by `index.download`; with --with-deps `pip download`
resolves the full closure for each target and envcheck checks each saved file against the
index's digest (the top-level requirements' pages are read first, so that a name that does not
resolve or an index that refuses access is said as such, not as pip's "No matching
distribution").

A fetch holds the wheelhouse's lock (`index.lock`) from start to end, so two fetches into one
--dest take turns and the second merges its entries into the first's manifest. Under the lock
it removes what killed runs left that it will not resume, writes the files it is about to
download into the manifest as `planned`, downloads, and writes each as `downloaded` or
`failed`. A dry run reads the index and stops before the wheelhouse; a run that fails before
its first file removes the directories it created. This module prints nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.tags import platform_tags
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import Version

from envcheck.acquire.install_errors import NoPlanError
from envcheck.acquire.install_plan import best_of_build
from envcheck.acquire.manifest import (
    MANIFEST_NAME,
    EntryStatus,
    ManifestEntry,
    clean_stale,
    merge_entries,
    read_manifest,
    write_manifest,
)
from envcheck.acquire.wheelhouse_lock import WheelhouseLock
from envcheck.distribution_names import canonical_name
from envcheck.errors import InputError
from envcheck.index.config import IndexLocation, resolve_index
from envcheck.index.download import (
    DEFAULT_WORKERS,
    FailedDownload,
    Progress,
    download_all,
    file_digests,
    part_name,
    refuse_link,
    safe_target,
    verify_algorithm,
)
from envcheck.index.errors import (
    DownloadsFailedError,
    FetchError,
    HashMismatchError,
    IndexResponseError,
    NoMatchingWheelError,
    NotFoundError,
)
from envcheck.index.http import HttpClient, RetryPolicy, Timeouts
from envcheck.index.limits import DownloadLimits, PageLimits
from envcheck.index.simple_api import IndexFile, ProjectPage, fetch_project
from envcheck.index.wheels import (
    WheelTarget,
    expand_platform,
    normalize_platform_tag,
    platform_os_arch,
    select_file,
)
from envcheck.matrix.model import Matrix
from envcheck.matrix.recipes import install_recipe, wants_gpu
from envcheck.matrix.rules import (
    gpu_build_available,
)
from envcheck.platforms import host_os
from envcheck.recommend.frameworks import recommend_jax, recommend_torch
from envcheck.recommend.machine import MachineDescription, describe_machine
from envcheck.recommend.rank import Candidate, recommend
from envcheck.record import record
from envcheck.urls import redact, secret_masker
from envcheck.versions import PythonVersion

_PIP_ERROR_LINES = 8


@record
class TargetPlan:
    """What one target machine gets: the framework release chosen for it and every requirement."""

    target: WheelTarget
    version: Version  # of the framework
    requirements: tuple[Requirement, ...]  # markers already evaluated for the target
    notes: tuple[str, ...]
    framework: str = "tensorflow"  # or "torch", "jax"
    build: str | None = None  # the torch variant (cu130, cpu) or jax extra (cuda13; cpu)
    # The index the requirements come from instead of the user's: a PyTorch variant's.
    index_url: str | None = None


@record
class FetchedFile:
    file: str
    sha256: str
    size: int
    url: str | None
    platform: str
    python: str
    status: str  # downloaded | present


@record
class PlannedFile:
    """A file a dry run would fetch, as the index lists it."""

    file: str
    size: int | None  # None when the index does not list sizes (PEP 700)
    url: str
    platform: str
    python: str


@record
class FetchReport:
    dest: Path
    index: IndexLocation
    with_deps: bool
    plans: tuple[TargetPlan, ...]
    files: tuple[FetchedFile, ...]
    manifest: Path
    # A dry run's plan (files is empty then, and nothing was written).
    planned: tuple[PlannedFile, ...] | None = None


# --- targets and requirements ----------------------------------------------------------------


def host_platform_tag(tags: Sequence[str] | None = None) -> str:
    """This machine's platform tag as an index names it (manylinux_2_36_x86_64, win_amd64).

    packaging (26) lists the local-build tag `linux_x86_64` first on Linux; indexes publish
    manylinux/musllinux wheels, whose newest tag, expanded, covers every older one.
    """
    candidates = list(platform_tags()) if tags is None else list(tags)
    published = [t for t in candidates if not t.startswith("linux_")]
    return (published or candidates)[0]


def make_targets(platforms: Sequence[str], python: str | None) -> tuple[WheelTarget, ...]:
    """One target per --platform (this machine's when none), all for one Python X.Y."""
    version = (
        PythonVersion.parse(python)
        if python is not None
        else PythonVersion(sys.version_info.major, sys.version_info.minor)
    )
    tags = [normalize_platform_tag(p) for p in platforms] or [host_platform_tag()]
    return tuple(WheelTarget.create(tag, version) for tag in dict.fromkeys(tags))


def matrix_platform(target: WheelTarget) -> str:
    """The matrix's name for the target's platform: linux-x86_64, windows-x86_64, macos-arm64."""
    os_name, arch = platform_os_arch(target.platform)
    if os_name == "macos" and arch == "aarch64":
        arch = "arm64"
    return f"{os_name}-{arch}"


def marker_environment(target: WheelTarget) -> dict[str, str]:
    """PEP 508 marker values of the target (CPython), so requirements are judged for it."""
    os_name, arch = platform_os_arch(target.platform)
    full = f"{target.python}.0"
    systems = {
        "linux": ("linux", "Linux", "posix"),
        "windows": ("win32", "Windows", "nt"),
        "macos": ("darwin", "Darwin", "posix"),
    }
    sys_platform, system, os_family = systems.get(os_name, (os_name, os_name, "posix"))
    machine = {
        ("windows", "x86_64"): "AMD64",
        ("windows", "aarch64"): "ARM64",
        ("macos", "aarch64"): "arm64",
    }.get((os_name, arch), arch)
    return {
        "implementation_name": "cpython",
        "implementation_version": full,
        "platform_python_implementation": "CPython",
        "python_version": str(target.python),
        "python_full_version": full,
        "sys_platform": sys_platform,
        "platform_system": system,
        "os_name": os_family,
        "platform_machine": machine,
        "platform_release": "",
        "platform_version": "",
        "extra": "",
    }


def _for_target(texts: Sequence[str], target: WheelTarget) -> list[Requirement]:
    environment = marker_environment(target)
    kept = []
    for text in texts:
        try:
            requirement = Requirement(text)
        except InvalidRequirement as exc:
            raise InputError(f"the matrix requirement {text!r} does not parse: {exc}") from exc
        if requirement.marker is None or requirement.marker.evaluate(environment):
            requirement.marker = None
            kept.append(requirement)
    return kept


def _no_tensorflow(spec: str | None, target: WheelTarget, reasons: Sequence[str]) -> str:
    shown = "; ".join(dict.fromkeys(reasons[:3])) or "the matrix has no such version"
    return (
        f"no TensorFlow release matching {spec or 'any version'!r} fits "
        f"{target.describe()} ({matrix_platform(target)}): {shown}"
    )


def tensorflow_choices(
    matrix: Matrix,
    spec: str | None,
    target: WheelTarget,
    driver: str | None = None,
    build: str | None = None,
) -> tuple[TargetPlan, ...]:
    """The TensorFlow plans for one target, best first: recommend's candidates for the target's
    machine (its driver decides CPU or GPU, as for recommend and install; `build` "cpu" or
    "gpu" overrides it), each as its recipe's wheels. Which one is fetched is decided by the
    index: the first whose wheel fits the target's platform tag (`choose_plans`)."""
    if not matrix.releases_matching(spec):
        raise NoMatchingWheelError(f"no TensorFlow release in the matrix matches {spec!r}")
    os_name, arch = platform_os_arch(target.platform)
    machine, driver_known = _tensorflow_machine(target, driver, build)
    recommendation = recommend(matrix, machine, spec, with_advice=False)
    plans: list[TargetPlan] = []
    reasons = [r for rejected in recommendation.rejected for r in rejected.reasons]
    for candidate in recommendation.candidates:
        release, version = candidate.release, candidate.tensorflow
        available = gpu_build_available(release, os_name, arch)
        gpu = wants_gpu(candidate.kind == "gpu", build) and available.ok
        if build == "gpu" and not available.ok:
            reasons.append(f"--gpu: TensorFlow {version}: {available.message}")
            continue
        if not driver_known and build is None and available.ok:
            raise InputError(
                f"TensorFlow {version} for {target.platform} has a CPU and a GPU build: give the "
                "target's --driver VER (or --driver none), or say --cpu or --gpu"
            )
        recipe = install_recipe(release, version, os_name, gpu=gpu)
        notes = []
        if recipe.outside_pip:
            notes.append(
                f"TensorFlow {version} takes CUDA {release.cuda} and cuDNN {release.cudnn} from "
                f"outside pip on {target.platform}: " + "; ".join(recipe.outside_pip)
            )
        elif not gpu and release.has_gpu_build:
            why = available.message if not available.ok else _cpu_reason(candidate, build)
            notes.append(f"{why}: the wheel for {target.platform} runs on the CPU only")
        requirements = tuple(_for_target(recipe.wheels, target))
        plans.append(TargetPlan(target, version, requirements, tuple(notes)))
    if not plans:
        raise NoMatchingWheelError(_no_tensorflow(spec, target, reasons))
    return tuple(plans)


def _cpu_reason(candidate: Candidate, build: str | None) -> str:
    if build == "cpu":
        return "--cpu"
    reasons = [n.removeprefix("no GPU: ") for n in candidate.notes if n.startswith("no GPU: ")]
    return f"no GPU build for this machine ({'; '.join(reasons[:2]) or 'no usable GPU'})"


def _tensorflow_machine(
    target: WheelTarget, driver: str | None, build: str | None
) -> tuple[MachineDescription, bool]:
    """The target as recommend describes it, and whether its driver is known: given, this
    host's (a target of this host's OS), or none at all (macOS). A target of another OS without
    --driver is described without one; only its CPU/GPU choice needs it (or --cpu/--gpu)."""
    os_name, arch = platform_os_arch(target.platform)
    if driver is None and os_name not in ("macos", "other") and not _same_os(os_name):
        machine = describe_machine(os_name, arch, str(target.python), "none", None)
        return machine, build is not None
    return _machine_of(target, "tensorflow", driver), True


def plan_target(
    matrix: Matrix,
    spec: str | None,
    target: WheelTarget,
    driver: str | None = None,
    build: str | None = None,
) -> TargetPlan:
    """The best TensorFlow plan of one target by the matrix alone (`tensorflow_choices`);
    NoMatchingWheelError when no release in SPEC fits it."""
    return tensorflow_choices(matrix, spec, target, driver, build)[0]


def _same_os(os_name: str) -> bool:
    here = host_os()
    return os_name == here or (os_name == "linux" and here == "wsl")


def _machine_of(target: WheelTarget, framework: str, driver: str | None) -> MachineDescription:
    """The target as recommend describes a machine: its OS, architecture and Python, and the
    driver given (or this host's, when the target runs this host's OS)."""
    os_name, arch = platform_os_arch(target.platform)
    same_os = _same_os(os_name)
    if driver is None and os_name != "macos" and not same_os:
        raise InputError(
            f"--framework {framework} for {target.platform}: give the target's --driver VER "
            "(or --driver none); the driver decides which CUDA build it gets"
        )
    return describe_machine(None if same_os else os_name, arch, str(target.python), driver, None)


def plan_framework_target(
    matrix: Matrix,
    framework: str,
    spec: str | None,
    target: WheelTarget,
    driver: str | None = None,
    torch_index_base: str | None = None,
    build: str | None = None,
) -> TargetPlan:
    """PyTorch's or JAX's requirements for one target: recommend's best build for the target's
    machine (its best CPU or GPU one for `build`) and its recipe's wheels (the framework and
    the NVIDIA wheels it pins or names)."""
    if driver is None and build == "cpu":
        driver = "none"  # the CPU build is the same whatever the driver
    machine = _machine_of(target, framework, driver)
    if framework == "torch":
        recommendation = recommend_torch(matrix, machine, spec, torch_index_base)
    else:
        recommendation = recommend_jax(matrix, machine, spec)
    name = recommendation.display_name
    if not recommendation.candidates:
        reasons = recommendation.rejected[0].reasons if recommendation.rejected else ()
        shown = "; ".join(reasons) or "the matrix has no such version"
        raise NoMatchingWheelError(
            f"no {name} build matching {spec or 'any version'!r} fits {target.describe()} "
            f"({machine.platform}): {shown}"
        )
    try:
        best = best_of_build(recommendation, build)
    except NoPlanError as exc:
        raise NoMatchingWheelError(str(exc)) from None
    recipe = best.recipe
    if recipe.index_missing:
        raise InputError(
            f"{name} {best.version} {best.build} for {target.describe()} is on PyTorch's own "
            "index, not the default one: pass --torch-index-url URL (or ENVCHECK_TORCH_INDEX_URL), "
            f"the base URL of PyTorch's wheel index, and envcheck fetches from URL/{best.build}"
        )
    notes = tuple(n for n in best.notes if "pass --gpu NAME" not in n)
    if best.kind == "cpu":
        notes = (f"{name} {best.version} runs on the CPU only on {target.describe()}", *notes)
    return TargetPlan(
        target,
        best.version,
        tuple(_for_target(recipe.wheels, target)),
        notes,
        framework=framework,
        build=best.build,
        index_url=recipe.index_url,
    )


def plan_targets(
    matrix: Matrix,
    framework: str,
    spec: str | None,
    targets: Sequence[WheelTarget],
    driver: str | None = None,
    torch_index_base: str | None = None,
    build: str | None = None,
) -> tuple[tuple[TargetPlan, ...], ...]:
    """Each target's plans, best first (one for PyTorch and JAX: recommend's best build)."""
    if framework == "tensorflow":
        return tuple(tensorflow_choices(matrix, spec, t, driver, build) for t in targets)
    return tuple(
        (plan_framework_target(matrix, framework, spec, t, driver, torch_index_base, build),)
        for t in targets
    )


def index_for(plans: Sequence[TargetPlan], index: IndexLocation) -> IndexLocation:
    """The index of this fetch: the user's, or the PyTorch variant index every plan needs (one
    fetch reads one index, so targets needing different ones are fetched in separate runs)."""
    urls = {p.index_url for p in plans}
    if urls == {None}:
        return index
    if len(urls) > 1:
        raise InputError(
            "these targets need different indexes ("
            + ", ".join(sorted(redact(u) if u else "the default index" for u in urls))
            + "): fetch them in separate runs"
        )
    url = str(urls.pop())
    if index.found_via == "--index-url":
        raise InputError(
            f"the PyTorch build comes from {redact(url)} with its requirements, and --index-url "
            "names another: drop --index-url (or point --torch-index-url at your mirror)"
        )
    return resolve_index(url, option="--torch-index-url")


# --- fetching ---------------------------------------------------------------------------------


def prepare_dest(dest: Path) -> list[Path]:
    """Create `dest` if needed (InputError when it cannot be); the directories this created,
    outermost first, so that a run that fails can remove what it made."""
    if dest.exists() and not dest.is_dir():
        raise InputError(f"--dest {str(dest)!r} exists and is not a directory")
    missing = [d for d in (dest, *dest.parents) if not d.exists()]
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--dest {str(dest)!r} cannot be created: {exc.strerror or exc}") from exc
    return missing[::-1]


def remove_if_empty(created: Sequence[Path]) -> None:
    """Remove the directories a failed run created, innermost first, while they are empty: a
    run that fails before writing a file leaves the file system as it found it."""
    for directory in reversed(created):
        try:
            directory.rmdir()
        except OSError:
            return  # not empty (a manifest of the failed files, another's file) or gone


def _old_entries(dest: Path) -> tuple[ManifestEntry, ...]:
    """The entries of the manifest already there (InputError if it is not ours, or a link:
    a dangling one would have the manifest created wherever it points)."""
    refuse_link(dest / MANIFEST_NAME)
    return read_manifest(dest) if (dest / MANIFEST_NAME).exists() else ()


def _fetch_pages(http: HttpClient, names: Sequence[str], workers: int) -> dict[str, ProjectPage]:
    unique = list(dict.fromkeys(canonical_name(n) for n in names))
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="index") as pool:
        pages = list(pool.map(lambda name: fetch_project(http, name), unique))
    return dict(zip(unique, pages))


@record
class _Planned:
    """A file chosen for a target before it is downloaded."""

    plan: TargetPlan
    file: IndexFile

    def entry(self, status: EntryStatus) -> ManifestEntry:
        target = self.plan.target
        return ManifestEntry(
            self.file.filename,
            self.file.digest("sha256"),
            self.file.size,
            self.file.url,
            target.platform,
            str(target.python),
            status,
        )


def _record(dest: Path, old: Sequence[ManifestEntry], new: Sequence[ManifestEntry]) -> None:
    if new or (dest / MANIFEST_NAME).exists():  # a fetch that got nothing leaves no manifest
        write_manifest(dest, merge_entries(old, new, dest))


def fetch_wheelhouse(
    matrix: Matrix,
    dest: Path,
    index: IndexLocation,
    spec: str | None = None,
    platforms: Sequence[str] = (),
    python: str | None = None,
    with_deps: bool = False,
    timeouts: Timeouts | None = None,
    retry: RetryPolicy | None = None,
    progress: Progress | None = None,
    workers: int = DEFAULT_WORKERS,
    environ: Mapping[str, str] | None = None,
    pip_command: Sequence[str] = (sys.executable, "-m", "pip"),
    limits: DownloadLimits | None = None,
    on_wait: Callable[[Path], None] | None = None,
    framework: str = "tensorflow",
    driver: str | None = None,
    torch_index_base: str | None = None,
    build: str | None = None,
    dry_run: bool = False,
) -> FetchReport:
    """Fetch what each target needs into `dest`, recording the plan and the outcome in
    `dest/wheelhouse.json`. `on_wait` hears once that another fetch holds `dest`. `framework`
    torch or jax: recommend's best build for each target (`driver`: the targets'); `build`
    "cpu" or "gpu" overrides the build the targets' driver decides. `dry_run`: the files it
    would fetch, read from the index, and nothing written. A run that fails before its first
    file leaves no directory it created."""
    targets = make_targets(platforms, python)
    choices = plan_targets(matrix, framework, spec, targets, driver, torch_index_base, build)
    index = index_for([c[0] for c in choices], index)
    if not dry_run and dest.is_dir():
        _old_entries(dest)  # a manifest that is not ours is said before the index is asked
    pages = PageLimits.following(limits)  # --deadline bounds each index page too
    with HttpClient(index, timeouts, retry, pages) as http:
        plans = choose_plans(http, choices, workers, lenient=with_deps)
        if with_deps:
            planned = _plan_with_pip(http, plans, workers)
        else:
            planned = _plan_direct(http, plans, workers)
        if dry_run:
            return FetchReport(
                dest, index, with_deps, plans, (), dest / MANIFEST_NAME, _planned_files(planned)
            )
        created = prepare_dest(dest)
        try:
            with WheelhouseLock(dest, on_wait):
                files, errors = _fetch_locked(
                    http, dest, plans, planned, with_deps, progress, workers, environ,
                    pip_command, limits,
                )  # fmt: skip
        except BaseException:
            remove_if_empty(created)
            raise
    if errors:
        raise DownloadsFailedError([str(e) for e in errors])
    return FetchReport(dest, index, with_deps, plans, tuple(files), dest / MANIFEST_NAME)


def _fetch_locked(
    http: HttpClient,
    dest: Path,
    plans: Sequence[TargetPlan],
    planned: Sequence[_Planned],
    with_deps: bool,
    progress: Progress | None,
    workers: int,
    environ: Mapping[str, str] | None,
    pip_command: Sequence[str],
    limits: DownloadLimits | None,
) -> tuple[list[FetchedFile], list[Exception]]:
    """The downloads, under the wheelhouse's lock: the plan recorded first, the outcome after."""
    old = _old_entries(dest)  # read under the lock: another fetch may just have written it
    errors: list[Exception]
    if with_deps:
        clean_stale(dest, ())
        _record(dest, old, [p.entry("planned") for p in planned])
        files, failures = _fetch_with_pip(http, plans, dest, workers, environ, pip_command)
        failed = [p for p in planned if p.plan in failures]
        errors = list(failures.values())
        saved = {(f.file, f.platform, f.python) for f in files}
        # pip chose another file than the index's best for a target it fetched whole:
        # that plan was a guess, and the closure pip saved is what the target gets.
        unplanned = {
            e.key
            for p in planned
            if p.plan not in failures and (e := p.entry("planned")).key not in saved
        }
    else:
        parts = [part_name(f.filename, verify_algorithm(f)[1]) for f in _unique(planned)]
        clean_stale(dest, parts)
        # Said before any download, not when one file's turn comes (download_file opens
        # each without following links all the same).
        for name in [*parts, *(f.filename for f in _unique(planned))]:
            refuse_link(dest / name)
        _record(dest, old, [p.entry("planned") for p in planned])
        files, failed_files = _fetch_direct(http, planned, dest, progress, workers, limits)
        names = {f.file.filename for f in failed_files}
        failed = [p for p in planned if p.file.filename in names]
        errors = [f.error for f in failed_files]
        unplanned = set()
    done = [ManifestEntry(f.file, f.sha256, f.size, f.url, f.platform, f.python) for f in files]
    recorded = [e for e in _old_entries(dest) if e.key not in unplanned]
    _record(dest, recorded, [*done, *(p.entry("failed") for p in failed)])
    return files, errors


def _planned_files(planned: Sequence[_Planned]) -> tuple[PlannedFile, ...]:
    return tuple(
        PlannedFile(
            p.file.filename,
            p.file.size,
            p.file.url,
            p.plan.target.platform,
            str(p.plan.target.python),
        )
        for p in planned
    )


def choose_plans(
    http: HttpClient,
    choices: Sequence[Sequence[TargetPlan]],
    workers: int,
    lenient: bool = False,
) -> tuple[TargetPlan, ...]:
    """Each target's first plan whose framework wheel the index has for the target (the
    newest TensorFlow that fits a manylinux_2_17 target, not the newest release); the first
    plan's error when none has one. `lenient` (--with-deps): a project the index lacks is
    left to pip, with the first plan."""
    names = [c[0].requirements[0].name for c in choices if len(c) > 1 and c[0].requirements]
    pages = (
        _fetch_pages_lenient(http, names, workers)
        if lenient
        else _fetch_pages(http, names, workers)
    )
    chosen: list[TargetPlan] = []
    for plans in choices:
        page = pages.get(canonical_name(plans[0].requirements[0].name)) if len(plans) > 1 else None
        if page is None:
            chosen.append(plans[0])
            continue
        misses: list[str] = []
        for plan in plans:
            try:
                select_file(page, plan.requirements[0], plan.target)
            except NoMatchingWheelError as exc:
                misses.append(str(exc))
                continue
            if misses:
                skipped = ", ".join(str(p.version) for p in plans[: len(misses)])
                note = (
                    f"TensorFlow {plan.version}, the newest that fits {plan.target.describe()}: "
                    f"the index has no wheel of {skipped} for it ({misses[0]})"
                )
                plan = replace(plan, notes=(note, *plan.notes))  # noqa: PLW2901 - noted
            chosen.append(plan)
            break
        else:
            older = (
                f"; nor of the {len(plans) - 1} older release(s) it could be"
                if len(plans) > 1
                else ""
            )
            raise NoMatchingWheelError(misses[0] + older)
    return tuple(chosen)


def _unique(planned: Sequence[_Planned]) -> list[IndexFile]:
    return list({p.file.filename: p.file for p in planned}.values())


def _plan_direct(http: HttpClient, plans: Sequence[TargetPlan], workers: int) -> list[_Planned]:
    pages = _fetch_pages(http, [r.name for p in plans for r in p.requirements], workers)
    chosen: list[_Planned] = []
    problems: list[str] = []
    for plan in plans:
        for requirement in plan.requirements:
            page = pages[canonical_name(requirement.name)]
            try:
                chosen.append(_Planned(plan, select_file(page, requirement, plan.target).file))
            except NoMatchingWheelError as exc:
                problems.append(str(exc))
    if problems:
        raise NoMatchingWheelError("; ".join(problems))
    for planned in chosen:
        verify_algorithm(planned.file)  # an index without digests fails before any download
    return chosen


def _fetch_direct(
    http: HttpClient,
    planned: Sequence[_Planned],
    dest: Path,
    progress: Progress | None,
    workers: int,
    limits: DownloadLimits | None,
) -> tuple[list[FetchedFile], list[FailedDownload]]:
    done, failures = download_all(http, _unique(planned), dest, progress, workers, limits)
    by_name = {d.filename: d for d in done}
    files = [
        FetchedFile(
            d.filename,
            d.sha256,
            d.size,
            d.url,
            p.plan.target.platform,
            str(p.plan.target.python),
            d.status,
        )
        for p in planned
        if (d := by_name.get(p.file.filename)) is not None
    ]
    return files, failures


def _plan_with_pip(http: HttpClient, plans: Sequence[TargetPlan], workers: int) -> list[_Planned]:
    """The top-level files pip is expected to save, read from the index before pip runs: a name
    that does not resolve or an index that refuses access fails here with its own message. A
    requirement the index does not have (pip may find it through the user's extra indexes) is
    left to pip."""
    pages = _fetch_pages_lenient(http, [r.name for p in plans for r in p.requirements], workers)
    chosen: list[_Planned] = []
    for plan in plans:
        for requirement in plan.requirements:
            page = pages.get(canonical_name(requirement.name))
            if page is None:
                continue
            try:
                chosen.append(_Planned(plan, select_file(page, requirement, plan.target).file))
            except NoMatchingWheelError:
                continue
    return chosen


def pip_download_command(
    plan: TargetPlan, index: IndexLocation, directory: Path, timeouts: Timeouts, pip: Sequence[str]
) -> list[str]:
    """`pip download` of the full closure for one target (credentials never on the argv)."""
    command = [*pip, "download", "--only-binary=:all:", "--disable-pip-version-check"]
    command += ["--no-input", "--progress-bar", "off", "--timeout", f"{timeouts.read:g}"]
    for platform in expand_platform(plan.target.platform):
        command += ["--platform", platform]
    command += ["--python-version", str(plan.target.python), "--implementation", "cp"]
    if index.auth is None:
        command += ["--index-url", index.url]
    command += ["-d", str(directory), *(str(r) for r in plan.requirements)]
    return command


def _run_pip(
    plan: TargetPlan,
    http: HttpClient,
    directory: Path,
    environ: Mapping[str, str] | None,
    pip: Sequence[str],
) -> None:
    env = dict(os.environ if environ is None else environ)
    if http.index.auth is not None:  # the child reads it from its environment, not its argv
        env["PIP_INDEX_URL"] = http.index.with_credentials
    command = pip_download_command(plan, http.index, directory, http.timeouts, pip)
    try:
        result = subprocess.run(
            command, env=env, capture_output=True, text=True, errors="replace", check=False
        )
    except OSError as exc:
        raise FetchError(f"cannot run {pip[0]!r} -m pip: {exc.strerror or exc}") from exc
    if result.returncode != 0:
        lines = [line for line in (result.stderr or result.stdout).splitlines() if line.strip()]
        tail = " | ".join(lines[-_PIP_ERROR_LINES:]) or "no output"
        mask = secret_masker(http.index.secrets)
        raise FetchError(
            mask(
                f"pip download failed for {plan.target.describe()} (exit {result.returncode}): "
                f"{tail}"
            )
        )


def _check_against_index(
    path: Path, page: ProjectPage | None, index: IndexLocation
) -> tuple[str, int, str | None]:
    """(sha256, size, url) of a file pip saved, checked against the index's digest."""
    listed = next((f for f in page.files if f.filename == path.name), None) if page else None
    unusable = page.why_ignored(path.name) if page else None
    if unusable is not None:  # listed, but with a digest or size that cannot be checked
        raise IndexResponseError(
            f"{path.name}: pip saved a file that {index.display} lists with an unusable entry "
            f"({unusable}), so it cannot be verified; the file was discarded"
        )
    algorithms = ["sha256"]
    if listed is not None:
        algorithm, expected = verify_algorithm(listed)
        algorithms = sorted({"sha256", algorithm})
        digests = file_digests(path, algorithms)
        if digests[algorithm] != expected.lower():
            raise HashMismatchError(
                f"{path.name}: pip saved a file whose {algorithm} {digests[algorithm]} does not "
                f"match the digest {expected.lower()} on {index.display}; the file was discarded"
            )
        return digests["sha256"], path.stat().st_size, listed.url
    return file_digests(path, algorithms)["sha256"], path.stat().st_size, None


def _fetch_with_pip(
    http: HttpClient,
    plans: Sequence[TargetPlan],
    dest: Path,
    workers: int,
    environ: Mapping[str, str] | None,
    pip: Sequence[str],
) -> tuple[list[FetchedFile], dict[TargetPlan, FetchError]]:
    files: list[FetchedFile] = []
    failures: dict[TargetPlan, FetchError] = {}
    for plan in plans:
        try:
            files += _pip_one_target(http, plan, dest, workers, environ, pip)
        except FetchError as exc:
            failures[plan] = exc
    return files, failures


def _pip_one_target(
    http: HttpClient,
    plan: TargetPlan,
    dest: Path,
    workers: int,
    environ: Mapping[str, str] | None,
    pip: Sequence[str],
) -> list[FetchedFile]:
    """pip download into a temporary directory in `dest`; every file checked, then moved."""
    try:
        directory = Path(tempfile.mkdtemp(prefix=".envcheck-pip-", dir=dest))
    except OSError as exc:
        raise FetchError(f"cannot write into {str(dest)!r}: {exc.strerror or exc}") from exc
    try:
        _run_pip(plan, http, directory, environ, pip)
        saved = sorted(p for p in directory.iterdir() if p.is_file())
        for path in saved:
            safe_target(dest, path.name)
        pages = _fetch_pages_lenient(http, [_project_of(p.name) for p in saved], workers)
        checked = [
            (path, _check_against_index(path, pages.get(_project_of(path.name)), http.index))
            for path in saved
        ]
        files = []
        for path, (sha256, size, url) in checked:
            path.replace(dest / path.name)
            target = plan.target
            files.append(
                FetchedFile(
                    path.name, sha256, size, url, target.platform, str(target.python), "downloaded"
                )
            )
        return files
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _project_of(filename: str) -> str:
    try:
        return str(parse_wheel_filename(filename)[0])
    except InvalidWheelFilename:
        return canonical_name(filename.split("-", 1)[0])


def _fetch_pages_lenient(
    http: HttpClient, names: Sequence[str], workers: int
) -> dict[str, ProjectPage]:
    """Pages of the projects pip saved; a project the index lacks (pip found it through the
    user's extra-index-url or find-links) simply has none."""

    def one(name: str) -> ProjectPage | None:
        try:
            return fetch_project(http, name)
        except NotFoundError:
            return None

    unique = list(dict.fromkeys(canonical_name(n) for n in names))
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="index") as pool:
        pages = list(pool.map(one, unique))
    return {name: page for name, page in zip(unique, pages) if page is not None}
