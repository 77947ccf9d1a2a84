"""What pip's list of offered versions says about where it ran (issue 22: a fact the log shows).

pip's "Could not find a version that satisfies the requirement P==V (from versions: A, ..., Z)"
names exactly the releases of P with a wheel for the interpreter and platform that ran it. A
pin older than A (or newer than Z) is a release this interpreter or this platform is outside
of: where A is the first release of P with wheels for some platform (or Z the last,
matrix/wheel_platforms.toml), the platform is why; otherwise the Python version is, and for
TensorFlow the matrix names the Python whose first wheels A is. A pin inside the list's range
is another question (no such release, or a gap) and the row's hit is dropped, leaving pip's
own "No matching distribution" line to say what it can; so is a local build (+cu118) pinned
outside every platform's span, which the local-version rows read. An empty list is read by the
platform the log shows: where the package has no wheel there for any release the requirement
reaches, the platform is why (_read_empty).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from packaging.version import InvalidVersion, Version

from envcheck.distribution_names import canonical_name
from envcheck.explain.matcher import LogHit
from envcheck.findings import Severity
from envcheck.matrix.model import Matrix
from envcheck.matrix.signatures import LOG_PLATFORM
from envcheck.matrix.wheel_platforms import WheelSpan, release_of
from envcheck.versions import PythonVersion

# One entry of pip's list: a version, with a local label (+cu118) that the list may carry.
_ENTRY = re.compile(r"[^\s,]+")
# A list cut short in the paste ("..., 2.1.0, etc") still has its first and last versions.
_MAX_ENTRIES = 2000


def _versions(offered: str) -> list[Version]:
    found = []
    for entry in _ENTRY.findall(offered)[:_MAX_ENTRIES]:
        try:
            version = Version(entry)
        except InvalidVersion:
            continue
        found.append(Version(version.public))
    return found


def _python_firsts(matrix: Matrix) -> dict[str, list[str]]:
    """TensorFlow: each series -> the Pythons whose first wheels are of that series (none for
    the table's oldest series, where the table starts rather than those Pythons)."""
    firsts: dict[str, list[str]] = {}
    seen: set[str] = set()
    for index, release in enumerate(sorted(matrix.releases, key=lambda r: r.latest)):
        for python in release.pythons_of(release.versions[0]):
            if str(python) not in seen:
                seen.add(str(python))
                if index:
                    firsts.setdefault(release.series, []).append(str(python))
    return firsts


def _python_hint(package: str, first: Version, pin: Version, matrix: Matrix) -> str:
    """For TensorFlow, the Python the list points to and the Pythons the pin was built for."""
    if package != "tensorflow" or pin >= first:
        return ""
    parts = []
    offered = matrix.release_for(first)
    pythons = _python_firsts(matrix).get(offered.series, []) if offered is not None else []
    if offered is not None and pythons:
        names = " and ".join(pythons)
        parts.append(f"TensorFlow's first wheels for Python {names} are {offered.series}")
    pinned = matrix.release_for(pin)
    if pinned is not None:
        built = pinned.pythons_of(pin if pin in pinned.versions else None)
        if built:
            parts.append(f"{pin} was built for Python {', '.join(str(p) for p in built)}")
    return f" ({'; '.join(parts)})" if parts else ""


def _span_for(
    spans: tuple[WheelSpan, ...], package: str, first: Version, last: Version, pin: Version
) -> WheelSpan | None:
    """The span of `package` the list starts or ends with and the pin lies outside of."""
    for span in spans:
        if span.package != package or span.holds(pin):
            continue
        if pin < first and span.first is not None and span.first == release_of(first):
            return span
        if pin > last and span.last is not None and span.last == release_of(last):
            return span
    return None


# The release a requirement's specifier reaches up to: "==0.1.47", "~=0.1.47", "<=2.10" give
# it; a lower bound alone (">=0.1") or none reaches every release.
_UPPER = re.compile(r"(?:===?|~=|<=?)\s*(?P<version>\d[\w.!+]*)")


def _reached(spec: str) -> Version | None:
    found = _UPPER.search(spec)
    if found is None:
        return None
    try:
        return Version(Version(found["version"]).public)
    except InvalidVersion:
        return None


def _lacks(span: WheelSpan, upper: Version | None, python: PythonVersion | None) -> bool:
    """Whether no release a requirement reaching up to `upper` (None: any) has a wheel in the
    span for `python` (None: not known): none exists there, all it may take lie before the span
    begins, or the span's wheels are all for newer Pythons (jaxlib's Windows wheels, from
    0.4.13, are for Python 3.9 and later). (A requirement that reaches the span's releases
    finds wheels there, so its empty list is the Python's. A span that ends leaves the older
    releases, which any requirement may take.)"""
    if span.never:
        return True
    if span.pythons_from is not None and python is not None and python < span.pythons_from:
        return True
    return span.first is not None and upper is not None and release_of(upper) < span.first


def _lacking(
    hit: LogHit, matrix: Matrix, os_name: str, python: PythonVersion | None
) -> WheelSpan | None:
    """The first span of the hit's package on `os_name` when every span there lacks what the
    requirement reaches (_lacks); None where some span has it, or none is recorded."""
    package = canonical_name(hit.groups.get("package", ""))
    upper = _reached(hit.groups.get("spec", ""))
    spans = [s for s in matrix.wheel_platforms if s.package == package and s.os == os_name]
    return spans[0] if spans and all(_lacks(span, upper, python) for span in spans) else None


def _as_reading(
    hit: LogHit,
    reading: tuple[str, str, str],
    place: tuple[str, str, str, str],
    shown: str,
    **changes: Any,
) -> LogHit:
    """The hit read as `reading` of `place` (_place: platform, where its wheels lie, advice,
    advice by platform; `shown`: the platform the log showed, "" none)."""
    code, message, fix = reading
    platform, edge, advice, by_platform = place
    groups = {
        "platform": platform,
        "span": edge,
        "advice": advice,
        "advice_by_platform": by_platform,
    }
    return hit.read_as(
        code, message, fix, {**groups, **({LOG_PLATFORM: shown} if shown else {})}, **changes
    )


def _read_empty(
    hit: LogHit, matrix: Matrix, platforms: Collection[str], python: PythonVersion | None
) -> LogHit:
    """A hit of pip's empty list of offered versions, read by the platform the log shows: where
    the package has no wheel there for any release the requirement reaches, or none for the
    log's Python (wheel_platforms), the row's if_platform_lacks; else the hit as it is (most
    often the Python version)."""
    if not hit.signature.if_platform_lacks:
        return hit
    for os_name in sorted(set(platforms)):
        span = _lacking(hit, matrix, os_name, python)
        if span is not None:
            return _as_reading(hit, hit.signature.if_platform_lacks, _place([span]), os_name)
    return hit


def platform_alternatives(
    hit: LogHit, matrix: Matrix, platforms: Collection[str], python: str | None
) -> list[LogHit]:
    """For pip's empty list in a log that shows neither its platform nor its Python: the row's
    if_platform_unshown reading for each OS where the package has no wheel for what the
    requirement reaches (jaxlib==0.1.37 on Windows, onnxruntime-gpu on macOS), as a warning
    beside the row's own reading. The log cannot tell which holds; the person can."""
    reading = hit.signature.if_platform_unshown
    if not reading or platforms or python or "offered" in hit.groups:
        return []
    lacking = [
        span
        for span in (
            _lacking(hit, matrix, os_name, None)
            for os_name in sorted({span.os for span in matrix.wheel_platforms})
        )
        if span is not None
    ]
    if not lacking:
        return []
    # One warning naming every platform: warnings of one code are one finding, so a second
    # would not be seen (triton on Windows and on macOS).
    return [_as_reading(hit, reading, _place(lacking), "", severity=Severity.WARNING)]


def _place(spans: list[WheelSpan]) -> tuple[str, str, str, str]:
    """The platform, where its wheels lie (WheelSpan.edge), the advice of one span, and the
    advice by platform; of several spans as one, each edge named by its platform where they
    differ."""
    by_platform = " ".join(f"On {span.platform}, use {span.advice}." for span in spans)
    if len(spans) == 1:
        return spans[0].platform, spans[0].edge, spans[0].advice, by_platform
    edges = {span.edge for span in spans}
    return (
        " or ".join(span.platform for span in spans),
        edges.pop()
        if len(edges) == 1
        else " and ".join(f"{span.edge} on {span.platform}" for span in spans),
        spans[0].advice,
        by_platform,
    )


def read_offer(
    hit: LogHit, matrix: Matrix, platforms: Collection[str] = (), python: str | None = None
) -> LogHit | None:
    """A hit of a row with an `offered` group, read against where the list starts and ends:
    the row's (Python) reading or its if_platform_span, with the OFFER_FIELDS filled in; None
    where the pin lies inside the list's range. A hit of an empty list is read against the
    `platforms` and `python` the log shows (_read_empty). Other hits are returned as they are."""
    groups = hit.groups
    offered = groups.get("offered")
    if offered is None:
        # (The log's Python is read by log_facts as X.Y, so it parses.)
        return _read_empty(hit, matrix, platforms, PythonVersion.parse(python) if python else None)
    try:
        pin = Version(Version(groups.get("version", "")).public)
    except InvalidVersion:
        return hit
    versions = _versions(offered)
    if not versions:
        return hit
    first, last = min(versions), max(versions)
    if first <= pin <= last:
        return None
    package = canonical_name(groups.get("package", ""))
    span = _span_for(matrix.wheel_platforms, package, first, last, pin)
    if span is None and "+" in groups.get("version", ""):
        # A local build (+cu118) the list lacks: the index it lives on is the question
        # (the local-version rows), unless the list shows a platform without it at all.
        return None
    values = {
        "offered_span": f"only as {first}" if first == last else f"from {first} to {last}",
        "pin_side": "older than all of them" if pin < first else "newer than all of them",
    }
    signature = hit.signature
    if span is None or not signature.if_platform_span:
        hint = _python_hint(package, first, pin, matrix)
        return replace(hit, groups={**groups, **values, "python_hint": hint})
    code, message, fix, replaces = signature.if_platform_span
    edge = f"begin (from {span.first} on)" if span.first is not None else f"end (up to {span.last})"
    return hit.read_as(
        code,
        message,
        fix,
        {
            **values,
            "python_hint": "",  # the platform, not the Python, is the reading
            "platform": span.platform,
            "span": edge,
            "advice": span.advice,
        },
        replaces=signature.replaces | replaces,
    )
