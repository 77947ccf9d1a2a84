"""Which wheel fits a target machine: its wheel tags, and the best listed file for a requirement.

Pure functions. A target is a platform tag and a CPython X.Y; its tags come from `packaging.tags`
(cpython_tags, then compatible_tags, best first, as pip orders them) over the platform expanded
the way an installer on such a machine accepts wheels: `manylinux_2_X` takes the older glibc
tags and the legacy manylinux2014/2010/1 aliases (PEP 600), `musllinux_1_X` the older musl
ones, `macosx_X_Y` the older macOS releases. A file is chosen as pip would: the newest version
that has a fitting wheel, then the best-ranked tag, then the highest build number.
"""

from __future__ import annotations

import re

from packaging.requirements import Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from envcheck.distribution_names import canonical_name
from envcheck.errors import InputError, quoted
from envcheck.index.errors import NoMatchingWheelError
from envcheck.index.simple_api import IndexFile, ProjectPage
from envcheck.record import record
from envcheck.versions import PythonVersion, refuse_long_numbers

# PEP 600: the legacy manylinux names are these glibc versions.
LEGACY_MANYLINUX = {(2, 17): "manylinux2014", (2, 12): "manylinux2010", (2, 5): "manylinux1"}
_LEGACY_GLIBC = {name: glibc for glibc, name in LEGACY_MANYLINUX.items()}
# packaging's _manylinux.py: glibc 2.5 is the oldest for x86, 2.17 for the other architectures.
_OLDEST_GLIBC_MINOR = {"x86_64": 5, "i686": 5}
_DEFAULT_OLDEST_GLIBC_MINOR = 17
# The platform tags a target machine can have (PEP 425/600/656, packaging.tags): anything else
# is a typo that would otherwise match no wheel and read as "TensorFlow has none for it".
_LINUX_ARCH = r"(?:x86_64|i686|aarch64|armv7l|ppc64le|ppc64|s390x|riscv64|loongarch64)"
_MACOS_ARCH = r"(?:x86_64|arm64|universal2|universal|intel|fat3|fat32|fat64|fat|i386|ppc64|ppc)"
_PLATFORM_TAG = re.compile(
    rf"manylinux_\d+_\d+_{_LINUX_ARCH}|manylinux(?:2014|2010|1)_{_LINUX_ARCH}"
    rf"|musllinux_\d+_\d+_{_LINUX_ARCH}|linux_{_LINUX_ARCH}"
    rf"|win32|win_amd64|win_arm64|macosx_\d+_\d+_{_MACOS_ARCH}"
)
_SHOWN_TAGS = 12  # of one version's wheels, the target's Python and machine first
_SHOWN_IGNORED = 2
# The newest release a tag may name, far above any there is (glibc 2.41, musl 1.2.5, macOS 26 in
# 2025): a target accepts every older release's wheels, so expand_platform lists one tag per
# release below it, and manylinux_2_999999999 was a list that ran out of memory.
_NEWEST_GLIBC_MINOR = 99
_NEWEST_MUSL_MINOR = 99
# macOS 10.x counted its releases in minors, 11 and later in majors: both are bounded.
_NEWEST_MACOS = (99, 99)


def normalize_platform_tag(text: str) -> str:
    """'macosx-12.0-arm64' -> 'macosx_12_0_arm64' (as sysconfig platforms become tags);
    InputError for anything that is not the platform tag of a machine."""
    refuse_long_numbers(text, "--platform")
    tag = text.strip().lower().replace("-", "_").replace(".", "_")
    if not _PLATFORM_TAG.fullmatch(tag):
        raise InputError(
            f"--platform {quoted(text)} is not a wheel platform tag: use manylinux_X_Y_ARCH (e.g. "
            "manylinux_2_17_x86_64), manylinux2014_ARCH, musllinux_X_Y_ARCH, linux_ARCH, "
            "win_amd64, win_arm64, win32 or macosx_X_Y_ARCH (e.g. macosx_12_0_arm64)"
        )
    unreal = _unreal_release(tag)
    if unreal:
        raise InputError(f"--platform {quoted(text)} {unreal}")
    return tag


def _unreal_release(tag: str) -> str:
    """Why `tag` names a release newer than any (the bounds above); "" when it does not."""
    for pattern, name, newest in (
        (r"manylinux_(2)_(\d+)_\w+", "glibc", (2, _NEWEST_GLIBC_MINOR)),
        (r"musllinux_(1)_(\d+)_\w+", "musl", (1, _NEWEST_MUSL_MINOR)),
        (r"macosx_(\d+)_(\d+)_\w+", "macOS", _NEWEST_MACOS),
    ):
        found = re.fullmatch(pattern, tag)
        if found and (int(found[1]) > newest[0] or int(found[2]) > newest[1]):
            return (
                f"names {name} {found[1]}.{found[2]}, which does not exist (tags go up to "
                f"{newest[0]}.{newest[1]})"
            )
    return ""


def expand_platform(tag: str) -> tuple[str, ...]:
    """Every platform tag a machine described by `tag` accepts, most specific first;
    InputError for a tag that names a release far newer than any (its list would be endless)."""
    refuse_long_numbers(tag, "platform tag")
    unreal = _unreal_release(tag)
    if unreal:
        raise InputError(f"platform tag {quoted(tag)} {unreal}")
    manylinux = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", tag)
    legacy = re.fullmatch(r"(manylinux2014|manylinux2010|manylinux1)_(\w+)", tag)
    if manylinux or legacy:
        if manylinux:
            major, minor, arch = int(manylinux[1]), int(manylinux[2]), manylinux[3]
        else:
            assert legacy is not None
            (major, minor), arch = _LEGACY_GLIBC[legacy[1]], legacy[2]
        if major != 2:
            return (tag,)
        tags: list[str] = []
        oldest = _OLDEST_GLIBC_MINOR.get(arch, _DEFAULT_OLDEST_GLIBC_MINOR)
        for glibc_minor in range(minor, oldest - 1, -1):
            tags.append(f"manylinux_2_{glibc_minor}_{arch}")
            if (2, glibc_minor) in LEGACY_MANYLINUX:
                tags.append(f"{LEGACY_MANYLINUX[(2, glibc_minor)]}_{arch}")
        return tuple(tags) or (tag,)
    musllinux = re.fullmatch(r"musllinux_1_(\d+)_(\w+)", tag)
    if musllinux:
        minor, arch = int(musllinux[1]), musllinux[2]
        return tuple(f"musllinux_1_{m}_{arch}" for m in range(minor, -1, -1))
    macos = re.fullmatch(r"macosx_(\d+)_(\d+)_(\w+)", tag)
    if macos:
        expanded = tuple(mac_platforms((int(macos[1]), int(macos[2])), macos[3]))
        return expanded or (tag,)
    return (tag,)


def platform_os_arch(tag: str) -> tuple[str, str]:
    """('linux' | 'windows' | 'macos' | 'other', architecture) of a platform tag."""
    arch = tag
    for known in ("x86_64", "aarch64", "arm64", "universal2", "i686", "ppc64le", "s390x"):
        if tag.endswith("_" + known):
            arch = known
            break
    if tag.startswith(("manylinux", "musllinux", "linux_")):
        return "linux", arch
    if tag.startswith("win"):
        return "windows", {"win_amd64": "x86_64", "win_arm64": "aarch64"}.get(tag, tag)
    if tag.startswith("macosx_"):
        return "macos", "aarch64" if arch == "arm64" else arch
    return "other", arch


@record
class WheelTarget:
    """The machine the wheels are for: one platform tag and one CPython feature version."""

    platform: str  # as given (normalized), e.g. win_amd64
    python: PythonVersion
    tags: tuple[Tag, ...]  # best first

    @classmethod
    def create(cls, platform: str, python: PythonVersion) -> WheelTarget:
        version = (python.major, python.minor)
        interpreter = f"cp{python.major}{python.minor}"
        platforms = expand_platform(platform)
        tags = [*cpython_tags(version, [interpreter], platforms)]
        tags += compatible_tags(version, interpreter, platforms)
        return cls(platform, python, tuple(dict.fromkeys(tags)))

    def describe(self) -> str:
        return f"Python {self.python} on {self.platform}"


@record
class Choice:
    file: IndexFile
    version: Version
    tag: Tag  # the target tag the file matched


def _pinned_exactly(specifier: SpecifierSet, version: Version) -> bool:
    """PEP 592: a yanked file counts only for a requirement pinned to exactly its version."""
    return any(
        spec.operator in ("==", "===") and "*" not in spec.version and spec.contains(version)
        for spec in specifier
    )


def _requires_python_ok(file: IndexFile, python: PythonVersion) -> bool:
    if not file.requires_python:
        return True
    try:
        allowed = SpecifierSet(file.requires_python)
    except InvalidSpecifier:
        return True  # pip ignores a Requires-Python it cannot parse
    return allowed.contains(Version(f"{python}.0"), prereleases=True)


def select_file(page: ProjectPage, requirement: Requirement, target: WheelTarget) -> Choice:
    """The wheel pip would pick for `requirement` on `target`; else NoMatchingWheelError."""
    ranks = {tag: rank for rank, tag in enumerate(target.tags)}
    wanted = canonical_name(requirement.name)
    best: tuple[tuple[Version, int, tuple[int | str, ...]], Choice] | None = None
    in_spec: dict[Version, set[str]] = {}
    other_versions: set[Version] = set()
    for file in page.files:
        try:
            name, version, build, file_tags = parse_wheel_filename(file.filename)
        except (InvalidWheelFilename, InvalidVersion):
            continue  # sdists and stray files; only wheels are fetched
        if name != wanted:
            continue
        yanked_out = file.yanked and not _pinned_exactly(requirement.specifier, version)
        if not requirement.specifier.contains(version) or yanked_out:
            other_versions.add(version)
            continue
        in_spec.setdefault(version, set()).update(str(t) for t in file_tags)
        matched = [(ranks[t], t) for t in file_tags if t in ranks]
        if not matched or not _requires_python_ok(file, target.python):
            continue
        rank, tag = min(matched)
        key = (version, -rank, build)
        if best is None or key > best[0]:
            best = (key, Choice(file, version, tag))
    if best is not None:
        return best[1]
    raise NoMatchingWheelError(
        _no_match_message(requirement, target, in_spec, other_versions, page)
    )


def _closeness(tag: str, target: WheelTarget) -> tuple[bool, bool, str]:
    """Sort key of a wheel's tag for a message: the target's Python first, then its OS and
    architecture, so the near misses are the ones shown when the list is cut."""
    interpreter = f"cp{target.python.major}{target.python.minor}"
    _, _, platform = tag.rpartition("-")
    same_python = tag.startswith((f"{interpreter}-", "py3-"))
    same_machine = platform_os_arch(platform) == platform_os_arch(target.platform)
    return (not same_python, not same_machine, tag)


def _glibc(platform: str) -> tuple[int, str] | None:
    """(glibc minor, architecture) a manylinux platform tag needs; None for other tags."""
    found = re.fullmatch(r"manylinux_2_(\d+)_(\w+)", platform)
    if found:
        return int(found[1]), found[2]
    legacy = re.fullmatch(r"(manylinux2014|manylinux2010|manylinux1)_(\w+)", platform)
    return (_LEGACY_GLIBC[legacy[1]][1], legacy[2]) if legacy else None


def _glibc_note(tags: list[str], target: WheelTarget) -> str:
    """Why a manylinux wheel of the target's Python and architecture does not fit: it needs a
    newer glibc than the target's tag says (PEP 600: a manylinux_2_X machine runs wheels for
    glibc 2.X and older only), and the --platform that takes it if the target has that glibc."""
    wanted = _glibc(target.platform)
    if wanted is None:
        return ""
    interpreter = f"cp{target.python.major}{target.python.minor}"
    needs = sorted(
        {
            glibc
            for tag in tags
            if tag.startswith((f"{interpreter}-", "py3-"))
            for platform in tag.rpartition("-")[2].split(".")
            if (glibc := _glibc(platform)) is not None
            and glibc[1] == wanted[1]
            and glibc[0] > wanted[0]
        }
    )
    if not needs:
        return ""
    minor = needs[0][0]
    return (
        f" (its manylinux_2_{minor}_{wanted[1]} wheel needs glibc 2.{minor} or newer, and "
        f"{target.platform} says the target has glibc 2.{wanted[0]}: if it has 2.{minor} or "
        f"newer, pass --platform manylinux_2_{minor}_{wanted[1]})"
    )


def _no_match_message(
    requirement: Requirement,
    target: WheelTarget,
    in_spec: dict[Version, set[str]],
    other_versions: set[Version],
    page: ProjectPage,
) -> str:
    head = f"no wheel of {requirement} fits {target.describe()}"
    reason = _no_match_reason(head, requirement, target, in_spec, other_versions, page)
    return reason + _ignored_note(page)


def _ignored_note(page: ProjectPage) -> str:
    """The files the index listed with values envcheck cannot use (simple_api), which may be
    why nothing fits: said, so that a broken listing is not read as a missing wheel."""
    if not page.ignored:
        return ""
    shown = "; ".join(f"{name}: {why}" for name, why in page.ignored[:_SHOWN_IGNORED])
    more = len(page.ignored) - _SHOWN_IGNORED
    more_text = f"; and {more} more" if more > 0 else ""
    return (
        f"; the index's entries of {len(page.ignored)} file(s) cannot be used: {shown}{more_text}"
    )


def _no_match_reason(
    head: str,
    requirement: Requirement,
    target: WheelTarget,
    in_spec: dict[Version, set[str]],
    other_versions: set[Version],
    page: ProjectPage,
) -> str:
    if in_spec:
        newest = max(in_spec)
        tags = sorted(in_spec[newest], key=lambda tag: _closeness(tag, target))
        shown = ", ".join(tags[:_SHOWN_TAGS])
        more = f" and {len(tags) - _SHOWN_TAGS} more" if len(tags) > _SHOWN_TAGS else ""
        return (
            f"{head}: {page.name} {newest} has wheels for {shown}{more}"
            f"{_glibc_note(tags, target)}; choose another --platform/--python or version"
        )
    if other_versions:
        versions = ", ".join(str(v) for v in sorted(other_versions)[-5:])
        return f"{head}: the index has no version in {requirement.specifier} (newest: {versions})"
    return f"{head}: the index lists no wheels for {page.name} at {page.url}"
