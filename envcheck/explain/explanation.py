"""`envcheck explain`: a log in, findings out, with the same codes as the doctor.

Streams the log once: each cleaned line goes to the signature matcher and to the fact collector;
only the hits, the facts and a bounded list of the most telling unrecognised lines are kept, so a
100 MB log needs no more memory than a small one.
"""

from __future__ import annotations

import heapq
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Generic, TypeVar

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envcheck.errors import InputError
from envcheck.explain.cycles import Cycles
from envcheck.explain.digits import masked
from envcheck.explain.log_facts import FACT_GATES, LineFacts, LogFactCollector, LogFacts
from envcheck.explain.log_findings import MAX_EVIDENCE, findings_from_log, without_replaced
from envcheck.explain.matcher import (
    Followers,
    Found,
    LogHit,
    Screen,
    clean_line,
    prime_literals,
)
from envcheck.explain.pip_offers import platform_alternatives, read_offer
from envcheck.explain.scanner import ChunkScanner
from envcheck.explain.triggers import (
    Trigger,
    TriggerScan,
    combined,
    folded_scan,
    signature_triggers,
)
from envcheck.findings import Finding, Severity, ordered
from envcheck.matrix.advisories import KnownBug, bugs_with_symptoms
from envcheck.matrix.fix_keys import FIX_PLACES
from envcheck.matrix.model import Matrix
from envcheck.matrix.recipes import install_recipe
from envcheck.matrix.records import TensorflowRelease
from envcheck.matrix.signatures import LOG_PLATFORM, LOG_PYTHON, LOG_TOOLKIT, Signature
from envcheck.record import record
from envcheck.versions import ComputeCapability, PythonVersion

RELEVANT_LINES = 8
HITS_KEPT_PER_SIGNATURE = 50
# An unrecognised line is worth showing when it holds one of these (each is a scan trigger, so
# the big-log scan finds exactly them); it scores one per telling word it contains.
ALARM_TRIGGERS = (
    "Error", "ERROR", "error:", "Exception", "Traceback", "Fail", "FAIL", "failed", "Could not",
    "could not", "Cannot", "cannot", "Aborted", "Segmentation fault",
)  # fmt: skip
_TELLING_WORDS = (
    "error", "fail", "could not", "cannot", "exception", "traceback", "aborted", "segmentation",
    "cuda", "cudnn", "nvidia", "gpu",
)  # fmt: skip
# A line that opens a record of its own (a timestamped logging line, absl's "E1207 10:02:03"
# header, a traceback's frame or head) is not the tail of a message the line before began, so
# the two are not read joined: on a log of distinct timestamped lines, judging every pending
# line joined with the next (twice: as is, and at a space) was a fifth of explain's time.
_NEW_RECORD = re.compile(
    r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:\d\d"
    r"|\s{0,8}File \"|Traceback \(most recent"
)
_LIBRARY_CODES = {"cuda-library-missing", "cuda-version-mismatch", "cudnn-missing"}
# Findings whose fix is installing the framework's CUDA build (or the CUDA/cuDNN it was built
# for): a fix that does not name the log's framework gets its route added.
_ROUTED_CODES = _LIBRARY_CODES | {
    "cudnn-version-mismatch", "cudnn-sublibrary-missing", "framework-cpu-only",
    "compute-capability-unsupported",
}  # fmt: skip


class EmptyLogError(InputError):
    """The log has no line with text (an empty file, /dev/null): nothing to explain (exit 2)."""


@record
class Explanation:
    findings: tuple[Finding, ...]
    facts: LogFacts
    relevant: tuple[tuple[int, str], ...]  # (line number, text) worth a look when nothing matched
    lines_read: int

    @property
    def recognised(self) -> bool:
        return bool(self.findings)

    @property
    def only_benign(self) -> bool:
        return bool(self.findings) and all(f.code == "benign-warning" for f in self.findings)

    def summary(self) -> str:
        if not self.findings:
            return "No known problem recognised in this log."
        if self.only_benign:
            return "The log shows no real problem: only messages known to be harmless."
        errors = [f for f in self.findings if f.severity is Severity.ERROR]
        first = (errors or list(self.findings))[0]
        return first.message


def _major_minor(version: Version) -> str:
    return f"{version.release[0]}.{version.release[1] if len(version.release) > 1 else 0}"


def _series(releases: Sequence[TensorflowRelease]) -> str:
    ordered_series = sorted(releases, key=lambda r: r.latest)
    first, last = ordered_series[0].series, ordered_series[-1].series
    return f"TensorFlow {first}" if first == last else f"TensorFlow {first}-{last}"


def _cudnn_install(facts: LogFacts, matrix: Matrix) -> str:
    """How to get the cuDNN a TF build was compiled with, from the TF rows built with it: their
    and-cuda extra (Linux, 2.14+) or their cuda_setup commands, as the doctor words it."""
    compiled = facts.versions.get("cudnn-runtime-compiled-mismatch.compiled")
    if compiled is None:
        return ""
    wanted = _major_minor(Version(compiled))
    built = [r for r in matrix.releases if r.cudnn is not None and _major_minor(r.cudnn) == wanted]
    if facts.tensorflow:
        stated = matrix.release_for(Version(facts.tensorflow))
        built = [stated] if stated in built else built
    if not built:
        return ""
    parts = []
    version = facts.tensorflow or "<your version>"
    recipes = {release: install_recipe(release, version, "linux", gpu=True) for release in built}
    extra = [r for r in built if recipes[r].extra]
    if extra:
        command = install_recipe(extra[-1], version, "linux", gpu=True).pip_command()
        parts.append(
            f"on Linux, {_series(extra)}: {command} (its nvidia-* wheels bring that cuDNN)"
        )
    by_setup: dict[tuple[str, ...], list[TensorflowRelease]] = {}
    for release in built:
        if recipes[release].outside_pip:
            by_setup.setdefault(recipes[release].outside_pip, []).append(release)
    for setup, releases in by_setup.items():
        cuda = releases[-1].cuda
        parts.append(f"{_series(releases)} (CUDA {cuda}): " + "; ".join(setup))
    return f" Set-up of the releases built with cuDNN {wanted}: " + "; or ".join(parts) + "."


def _driver_floor(facts: LogFacts, matrix: Matrix) -> str:
    """The own driver of the CUDA the log's TensorFlow was built with, when the log tells one."""
    cudas = {
        r.cuda
        for v in _implied_tensorflow(facts, matrix)
        if (r := matrix.release_for(v)) is not None and r.cuda is not None
    }
    if len(cudas) != 1:
        return ""
    cuda = cudas.pop()
    toolkit = matrix.toolkit(cuda)
    if toolkit is None or toolkit.linux_driver is None:
        return ""
    windows = f", Windows {toolkit.windows_driver}" if toolkit.windows_driver else ""
    return (
        f" The log's TensorFlow is built with CUDA {cuda}, whose own driver is "
        f"{toolkit.linux_driver} (Linux{windows}); PTX from it needs at least that."
    )


def _python_support(facts: LogFacts, matrix: Matrix) -> str:
    """Which TensorFlow releases have wheels for the Python the log shows (matrix python)."""
    if facts.python_bits == "32":
        return " The log shows a 32-bit Python; TensorFlow has 64-bit wheels only."
    if facts.python is None:
        return ""
    wanted = PythonVersion.parse(facts.python)
    fitting = [r for r in matrix.releases if wanted in r.python]
    if fitting:
        verb = "has" if len(fitting) == 1 else "have"
        return f" The log shows Python {wanted}: {_series(fitting)} {verb} wheels for it."
    newest = max(matrix.releases, key=lambda r: r.latest)
    supported = ", ".join(str(p) for p in newest.python)
    return (
        f" The log shows Python {wanted}, for which no TensorFlow release has wheels: use "
        f"Python {supported} (TensorFlow {newest.series})."
    )


def _with_matrix(finding: Finding, facts: LogFacts, matrix: Matrix) -> Finding:
    """Add what the matrix says. For a TensorFlow log: the set-up of the cuDNN its TensorFlow
    was built with, the driver of its CUDA, the releases with wheels for its Python, the CUDA
    version the libraries it asked for belong to. For another framework's log (or one that
    does not show its framework) only what holds for every framework: the CUDA the asked-for
    library names belong to, and the framework's own CUDA install route where the fix does
    not name it yet (matrix.log_frameworks)."""
    framework = facts.framework
    if framework == "tensorflow":
        return _for_tensorflow(finding, facts, matrix)
    route = matrix.log_frameworks.get(framework) if framework else None
    macos = "macos" in facts.platforms
    fix = finding.fix
    libraries = _libraries_of(finding, facts)
    if finding.code in _LIBRARY_CODES and libraries:
        names = ", ".join(sorted(libraries))
        majors = sorted({w.split(".")[0] for v in libraries.values() for w in v.split("/")})
        who = route.framework if route else "the framework"
        fix += (
            f" {names} {'belongs' if len(libraries) == 1 else 'belong'} to CUDA "
            f"{' or '.join(majors)}: install that CUDA's libraries, or a build of {who} made "
            "for the CUDA you have."
        )
    named = route is not None and any(n.lower() in fix.lower() for n in (route.id, route.framework))
    # (macOS has no CUDA: a fix there says so rather than point at a CUDA build.)
    if route is not None and finding.code in _ROUTED_CODES and not named and not macos:
        fix += f" {route.framework}'s CUDA build: {route.cuda_build}."
    return finding if fix == finding.fix else replace(finding, fix=fix.strip())


def _for_tensorflow(finding: Finding, facts: LogFacts, matrix: Matrix) -> Finding:
    if finding.code == "cudnn-version-mismatch":
        return replace(finding, fix=finding.fix + _cudnn_install(facts, matrix))
    if finding.code == "driver-too-old":
        return replace(finding, fix=finding.fix + _driver_floor(facts, matrix))
    if finding.code == "python-unsupported":
        return replace(finding, fix=finding.fix + _python_support(facts, matrix))
    libraries = _libraries_of(finding, facts)
    if finding.code not in _LIBRARY_CODES or not libraries:
        return finding
    names = ", ".join(sorted(libraries))
    stated = matrix.release_for(Version(facts.tensorflow)) if facts.tensorflow else None
    if stated is not None and stated.cuda is not None:
        # The log names its release: that release's CUDA, not the range of every release
        # that asks for these library names.
        cudnn = f" and cuDNN {stated.cudnn}" if stated.cudnn else ""
        extra = (
            f" The log's TensorFlow {facts.tensorflow} is built with CUDA {stated.cuda}{cudnn} "
            f"and asks for {names}: install that CUDA, or a TensorFlow built for the CUDA you "
            "have (`envcheck recommend` names one)."
        )
        return replace(finding, fix=(finding.fix + extra).strip())
    wanted = sorted(set(libraries.values()))
    cuda_lines = {part for w in wanted for part in w.split("/")}
    series = sorted(
        {
            r.series
            for r in matrix.releases
            if r.cuda is not None and _major_minor(r.cuda) in cuda_lines
        },
        key=lambda text: tuple(int(p) for p in text.split(".")),
    )
    built_for = f" (TensorFlow {series[0]}-{series[-1]})" if series else ""
    extra = (
        f" The log's TensorFlow asks for CUDA {' or '.join(wanted)} libraries ({names})"
        f"{built_for}: install that CUDA, or a TensorFlow built for the CUDA you have "
        "(`envcheck recommend` names one)."
    )
    return replace(finding, fix=(finding.fix + extra).strip())


def _libraries_of(finding: Finding, facts: LogFacts) -> dict[str, str]:
    """The CUDA libraries the log asked for that `finding` is about: those its message or
    evidence names. A finding that names none (TensorFlow's "Cannot dlopen some GPU libraries"
    summary) is about all of them, except a cuDNN one: the log's CUDA libraries are not what
    it failed to load, and their CUDA version is no fix for it."""
    text = " ".join((finding.message, *finding.evidence))
    named = {name: cuda for name, cuda in facts.libraries.items() if name in text}
    if named or finding.code == "cudnn-missing":
        return named
    return dict(facts.libraries)


def _implied_tensorflow(facts: LogFacts, matrix: Matrix) -> list[Version]:
    """The TF versions the log's TensorFlow can be: the one it printed, else those built for the
    CUDA its library names imply, narrowed to the releases its source paths allow (a
    tensorflow/stream_executor/ path is TF <= 2.10); empty when the log tells nothing."""
    if facts.tensorflow:
        return [Version(facts.tensorflow)]
    lines = {part for cuda in facts.libraries.values() for part in cuda.split("/")}
    by_library = [
        v for r in matrix.releases if r.cuda and _major_minor(r.cuda) in lines for v in r.versions
    ]
    if facts.tensorflow_range is None:
        return by_library
    allowed = SpecifierSet(facts.tensorflow_range)
    every = by_library or [v for r in matrix.releases for v in r.versions]
    # Paths that contradict the libraries (two logs pasted together) narrow nothing.
    return [v for v in every if v in allowed] or by_library


def _known_bugs(
    hits: Sequence[LogHit],
    facts: LogFacts,
    bugs: Sequence[KnownBug],
    matrix: Matrix,
    unkept: Mapping[str, int],
) -> list[Finding]:
    """known-bug for each bug whose symptoms the log shows, unless the log rules it out: a TF
    outside its range, or a platform it does not happen on."""
    versions = _implied_tensorflow(facts, matrix)
    platforms = facts.platforms & {"windows", "wsl", "linux", "macos"}
    findings = []
    for bug in bugs_with_symptoms(bugs, (h.signature.id for h in hits)):
        if bug.framework and bug.framework != facts.framework:
            continue  # one framework's bug, in a log of another (or of one not shown)
        if (
            bug.tensorflow is not None
            and versions
            and not any(v in bug.tensorflow for v in versions)
        ):
            continue
        if bug.os and platforms and not platforms & bug.os:
            continue
        every = sorted({h.line for h in hits if h.signature.id in bug.symptoms})
        total = len(every) + sum(n for s, n in unkept.items() if s in bug.symptoms)
        findings.append(
            Finding(
                "known-bug",
                Severity.WARNING,
                f"These lines match a known bug: {bug.title}.",
                (bug.url,),
                bug.workaround_in(facts.framework),
                tuple(every[:20]),
                total,
            )
        )
    return findings


def _tensorflow_may_be(wanted: str, facts: LogFacts, matrix: Matrix) -> bool:
    """Whether the log's TensorFlow can be one of the releases `wanted` (a PEP 440 specifier):
    any of those it can be (_implied_tensorflow) is; a log that tells nothing can be any."""
    implied = _implied_tensorflow(facts, matrix)
    releases = SpecifierSet(wanted)
    return not implied or any(releases.contains(v, prereleases=True) for v in implied)


def _in_place(hit: LogHit, facts: LogFacts, matrix: Matrix) -> LogHit | None:
    """A hit with the code its line means where the log ran (Signature.code_on) and with the
    Python it shows (Signature.if_python_fits), or None for a row that counts only where
    the log shows a place it does not (Signature.only_on): only known once the whole log is
    read, so applied at the end."""
    signature = hit.signature
    if signature.only_on and signature.only_on not in facts.platforms:
        return None
    code = signature.code_in(
        facts.platforms,
        hit.code,
        lambda wanted: _tensorflow_may_be(wanted, facts, matrix),
    )
    if (
        code is None
        and signature.if_python_fits
        and facts.python
        and python_tag_fits(hit.groups.get("python", ""), facts.python)
    ):
        code, message = signature.if_python_fits
        return replace(
            hit,
            code=code,
            signature=replace(signature, message=message),
            groups={**hit.groups, LOG_PYTHON: facts.python},
        )
    read = _by_toolkit(hit, facts, matrix)
    if read is not None:
        return read
    return hit if code is None else replace(hit, code=code)


def _beside(read: list[LogHit], facts: LogFacts, matrix: Matrix) -> list[LogHit]:
    """The other readings the log leaves open (platforms without wheels, Signature.if_unknown)
    of the hits that stand (a replaced hit's readings go with it), save those of a cause the
    log names outright: a finding is grouped by code, and "Or ..." must not speak for it."""
    standing = without_replaced(read)
    named = {hit.code for hit in standing}
    return [
        replace(other, open_reading=True)
        for hit in standing
        for other in (
            *platform_alternatives(hit, matrix, facts.platforms, facts.python),
            *_open_readings(hit, facts),
        )
        if other.code not in named
    ]


def _open_readings(hit: LogHit, facts: LogFacts) -> list[LogHit]:
    """The hit's other readings (Signature.if_unknown) that the log leaves open: it does not
    show all the facts that would tell them from the row's own, nor a place they cannot hold in.
    Each is a warning beside the row's reading, a root cause of its own."""
    return [
        hit.read_as(
            reading.code,
            reading.message,
            reading.fix,
            severity=Severity.WARNING,
            code_when=(),
            code_on=(),
            replaces=frozenset(),
            if_unknown=(),
        )
        for reading in hit.signature.if_unknown
        if not all(facts.shows(fact) for fact in reading.facts)
        and not reading.not_on & facts.platforms
    ]


def _by_toolkit(hit: LogHit, facts: LogFacts, matrix: Matrix) -> LogHit | None:
    """A hit read by its row's Signature.by_toolkit where the log shows nvcc's release: the
    architecture asked for against what that release can target (None: not decided so)."""
    if not hit.signature.by_toolkit or facts.toolkit is None:
        return None
    group, older, newer = hit.signature.by_toolkit
    try:
        asked = ComputeCapability.parse(hit.groups.get(group, ""))
    except InputError:
        return None
    targets = matrix.targetable_capabilities(Version(facts.toolkit))
    if not targets:
        return None
    oldest, newest = min(targets), max(targets)
    if oldest <= asked <= newest:
        return None
    code, message = older if asked < oldest else newer
    return replace(
        hit,
        code=code,
        signature=replace(hit.signature, message=message),
        groups={
            **hit.groups,
            LOG_TOOLKIT: facts.toolkit,
            "targets": f"{oldest} to {newest}",
        },
    )


def _read_from(hit: LogHit, facts: LogFacts) -> tuple[int, str] | None:
    """The line of the fact a hit's reading hung on (the log's Python, nvcc's release, the
    platform), where it did."""
    for group, key in ((LOG_PYTHON, "python"), (LOG_TOOLKIT, "toolkit")):
        if group in hit.groups:
            return facts.sources.get(key)
    platform = hit.groups.get(LOG_PLATFORM)
    return facts.sources.get(f"platform:{platform}") if platform else None


def _with_source(finding: Finding, source: tuple[int, str] | None) -> Finding:
    """`finding` with the line that gave a fact it hung on among its evidence."""
    if source is None or source[0] in finding.lines:
        return finding
    number, text = source
    return replace(
        finding,
        evidence=tuple(dict.fromkeys((*finding.evidence, text)))[:MAX_EVIDENCE],
        lines=tuple(sorted({*finding.lines, number})),
        lines_total=(finding.lines_total or len(finding.lines)) + 1,
    )


# A wheel's Python tag (PEP 425): an implementation and the version's digits, "cp310" or "py3".
_PYTHON_TAG = re.compile(r"(?:cp|py|pp|ip|jy)(?P<major>\d)(?P<minor>\d{0,2})")


def python_tag_fits(tag: str, python: str) -> bool:
    """Whether the Python tag of a wheel (cp27, cp310, py3, py2.py3) fits Python `python` (X.Y);
    the tag's implementation aside (the log tells no more than the version)."""
    major, _, minor = python.partition(".")
    for part in tag.split("."):
        found = _PYTHON_TAG.fullmatch(part)
        if found and found["major"] == major and found["minor"] in ("", minor):
            return True
    return False


def _read_as(hit: LogHit, facts: LogFacts, matrix: Matrix) -> LogHit:
    """A hit read as its framework: the one whose own message it is, else the log's; its fix
    then takes that framework's variant and names it (matrix.log_frameworks)."""
    framework = hit.signature.framework or facts.framework
    routes = matrix.log_frameworks
    values = routes.get(framework or "other", routes["other"]).values()
    return replace(
        hit,
        framework=framework,
        places=frozenset(facts.platforms & set(FIX_PLACES)),
        framework_values=tuple(values.items()),
    )


@record
class _Verdict:
    """How a line reads, whatever log it is in (the state of the log aside)."""

    facts: LineFacts
    hits: tuple[Found, ...]
    alarm: int | None  # the line's score among the telling lines; None: no alarm word
    # The places of the digits the reading hung on: those that decided only a value kept from
    # its first line (LogFactCollector.judge), by the value, and all the others.
    value_pins: tuple[tuple[str, tuple[int, ...]], ...] = ()
    other_pins: tuple[int, ...] = ()


V = TypeVar("V")


@record
class _Shape(Generic[V]):
    """The verdicts of the lines of one mask (digits.masked), by their pinned digits: the places
    of the digits the reading hangs on are the same for every line of a mask."""

    pins: tuple[int, ...]
    verdicts: dict[object, V]

    def key(self, text: str) -> object:
        """The pinned digits of `text` (a line of this mask)."""
        return tuple(text[place] for place in self.pins) if self.pins else None


# Bounds on what is remembered: a log of distinct lines fills them and they are emptied, so
# memory stays bounded; a log that repeats itself finds its lines again.
MASKS_KEPT = 4096
VERDICTS_KEPT_PER_MASK = 256


class _Memo(Generic[V]):
    """Verdicts remembered by a line's mask and pinned digits (MASKS_KEPT masks at most)."""

    def __init__(self) -> None:
        self._shapes: dict[object, _Shape[V]] = {}

    def get(self, mask: object, text: str) -> tuple[V, tuple[int, ...]] | None:
        shape = self._shapes.get(mask)
        if shape is None:
            return None
        verdict = shape.verdicts.get(shape.key(text))
        return None if verdict is None else (verdict, shape.pins)

    def put(self, mask: object, text: str, verdict: V, pins: list[int]) -> tuple[int, ...]:
        places = tuple(sorted(set(pins)))
        shape = self._shapes.get(mask)
        if shape is None or shape.pins != places:
            # (The places are the same for every line of a mask, digits.py; were they not,
            # the verdicts kept under the old ones would be dropped, never misread.)
            if len(self._shapes) >= MASKS_KEPT:
                self._shapes.clear()
            shape = self._shapes[mask] = _Shape(places, {})
        if len(shape.verdicts) >= VERDICTS_KEPT_PER_MASK:
            shape.verdicts.clear()
        shape.verdicts[shape.key(text)] = verdict
        return shape.pins


def _joins(first: str, text: str) -> tuple[str, str]:
    """The two readings of a message split over two lines, by variant: a hard wrap joined as
    is, and a break at a space, where the continuation's indent goes (uv and pip indent the
    rest of a message they wrap: "... has no wheels with a matching Python" / "      ABI tag")."""
    return first + text, f"{first} {text.lstrip()}"


_NO_JOIN: tuple[int, tuple[Found, ...]] = (0, ())
TEXTS = ("texts", "")  # the step counted for every line with text


class _Reading:
    """What one pass over a log keeps: hits, facts and the most telling unrecognised lines.

    A line is judged once per mask and pinned digits (_Memo): a log that repeats its lines with
    other timestamps reads each line like the first of its kind. `changes` counts every change
    of what is kept other than counts, and `steps` logs each count's growth, so that
    envcheck.explain.cycles can tell when a run of lines changed nothing but counts and add
    those counts again for the runs like it; `pins_here` and `pins_before` say which digits of
    the last line (and of the one before, read with it) its reading hung on."""

    def __init__(self, signatures: Sequence[Signature], matrix: Matrix) -> None:
        self.steps: list[tuple[str, str]] = []
        self.collector = LogFactCollector(matrix, self.steps)
        self.screen = Screen.of(signatures)
        self.followers = Followers(self.screen)
        self.hits: list[LogHit] = []
        self._per_signature: dict[str, int] = {}
        self._relevant: list[tuple[int, int, str]] = []  # a min-heap of (score, -line, text)
        self.texts = 0
        # An unexplained line the next may finish: (number, text, mask).
        self._pending: tuple[int, str, bytes] | None = None
        self._changes = 0
        self._lines: _Memo[_Verdict] = _Memo()
        self._joins: _Memo[tuple[int, tuple[Found, ...]]] = _Memo()
        self.pins_here: list[int] | tuple[int, ...] = ()
        self.pins_before: list[int] = []
        self.text = ""  # the last line read, cleaned

    @property
    def changes(self) -> int:
        return self._changes + self.followers.moves

    def line(self, number: int, raw: str) -> None:
        text = clean_line(raw)
        pending, self._pending = self._pending, None
        self.pins_here, self.pins_before, self.text = (), [], text
        if not text:
            return
        self.texts += 1
        self.steps.append(TEXTS)
        mask = masked(text)
        remembered = self._lines.get(mask, text)
        verdict = self._judge(text, mask) if remembered is None else remembered[0]
        if self.collector.apply(verdict.facts, number, text):
            self._changes += 1
        self.pins_here = verdict.other_pins
        if verdict.value_pins:
            # A value already known from an earlier line no longer hangs on these digits.
            settled = self.collector.settled
            self.pins_here = [
                *verdict.other_pins,
                *(
                    p
                    for attribute, own in verdict.value_pins
                    if not settled(attribute)
                    for p in own
                ),
            ]
        line_hits = self.screen.hits(verdict.hits, text, number) if verdict.hits else []
        if self.followers.waiting:
            line_hits.extend(self.followers.match(text, number))
        if (
            pending is not None
            and pending[0] == number - 1
            and not line_hits
            and not _NEW_RECORD.match(text)
        ):
            # (A line that explains itself is not read as the end of the one before.)
            self._join(pending, text, mask)
        if line_hits:
            self._keep(line_hits, number)
            return
        # A line with a trigger and no message may be the first half of one a terminal or a
        # copy wrapped: the next line is read with it.
        self._pending = (number, text, mask)
        if verdict.alarm is None:
            return
        entry = (verdict.alarm, -number, text[:500])
        if len(self._relevant) < RELEVANT_LINES:
            heapq.heappush(self._relevant, entry)
            self._changes += 1
        elif entry > self._relevant[0]:
            heapq.heapreplace(self._relevant, entry)
            self._changes += 1

    def _judge(self, text: str, mask: bytes) -> _Verdict:
        facts, pins, value_pins = self.collector.judge(text, mask)
        found, screen_pins = self.screen.judge(text, mask)
        alarm = None
        # (map over the bound method runs in C, as log_facts._gate does.)
        if any(map(text.__contains__, ALARM_TRIGGERS)):
            alarm = sum(map(text.lower().__contains__, _TELLING_WORDS))
        other = tuple(sorted({*pins, *screen_pins}))
        verdict = _Verdict(facts, found, alarm, value_pins, other)
        self._lines.put(mask, text, verdict, [*other, *(p for _, own in value_pins for p in own)])
        return verdict

    @property
    def wants_next(self) -> int:
        """The number of the line to read next whatever its triggers (0: none)."""
        return self._pending[0] + 1 if self._pending is not None else 0

    @property
    def pending(self) -> tuple[int, str, bytes] | None:
        return self._pending

    def set_pending(self, number: int, text: str) -> None:
        """Make line `number` the unexplained line the next may finish (cycles: the last line
        of the runs passed over)."""
        self._pending = (number, text, masked(text))

    def count(self, step: tuple[str, str], times: int) -> None:
        """Add a count's growth `times` over (cycles: the runs passed over)."""
        kind, name = step
        if kind == "texts":
            self.texts += times
        elif kind == "framework":
            frameworks = self.collector.facts.frameworks
            frameworks[name] = frameworks.get(name, 0) + times
        else:
            self._per_signature[name] = self._per_signature.get(name, 0) + times

    def _keep(self, line_hits: list[LogHit], number: int) -> None:
        self.followers.opened_by(line_hits, number)
        for hit in line_hits:
            # A log repeating one message a million times keeps its first few as evidence.
            seen = self._per_signature.get(hit.signature.id, 0)
            self._per_signature[hit.signature.id] = seen + 1
            self.steps.append(("signature", hit.signature.id))
            if seen < HITS_KEPT_PER_SIGNATURE:
                self.hits.append(hit)
                self._changes += 1
        if self.collector.hits(line_hits):
            self._changes += 1

    def _join(self, pending: tuple[int, str, bytes], text: str, mask: bytes) -> None:
        """Messages split over two lines: a hard wrap (joined as is) or a break at a space."""
        number, first, first_mask = pending
        both = first + text
        key = (first_mask, mask)
        remembered = self._joins.get(key, both)
        if remembered is None:
            judged, pins = self._judge_join(first, text)
            places = self._joins.put(key, both, judged, pins)
        else:
            judged, places = remembered
        split = len(first)
        self.pins_before = [place for place in places if place < split]
        self.pins_here = sorted({*self.pins_here, *(p - split for p in places if p >= split)})
        variant, found = judged
        if found:
            self._keep(self.screen.hits(found, _joins(first, text)[variant], number), number)

    def _judge_join(self, first: str, text: str) -> tuple[tuple[int, tuple[Found, ...]], list[int]]:
        """Which of the two joins matches (0: as is, 1: at a space) and how, and the places in
        first + text of the digits that decided it."""
        pins: list[int] = []
        split = len(first)
        # (In the join at a space, a place after the space is `shift` further on in first +
        # text: the space is added, the continuation's indent dropped.)
        shift = len(text) - len(text.lstrip()) - 1
        for variant, joined in enumerate(_joins(first, text)):
            found, places = self.screen.judge(joined)
            pins += places if variant == 0 else [p if p < split else p + shift for p in places]
            if found:
                return (variant, found), pins
        return _NO_JOIN, pins

    def explanation(
        self, count: int, any_text: bool, matrix: Matrix, known_bugs: Sequence[KnownBug]
    ) -> Explanation:
        if not self.texts and not any_text:
            raise EmptyLogError(
                f"the log is empty{f' ({count} blank lines)' if count else ''}: paste the "
                "output of the failing command, e.g. python train.py 2>&1 | envcheck explain -"
            )
        facts = self.collector.facts
        placed = [
            hit for hit in (_in_place(hit, facts, matrix) for hit in self.hits) if hit is not None
        ]
        offers = [read_offer(hit, matrix, facts.platforms, facts.python) for hit in placed]
        read = [hit for hit in offers if hit is not None]
        hits = [_read_as(hit, facts, matrix) for hit in (*read, *_beside(read, facts, matrix))]
        unkept = {
            signature: seen - HITS_KEPT_PER_SIGNATURE
            for signature, seen in self._per_signature.items()
            if seen > HITS_KEPT_PER_SIGNATURE
        }
        findings = [
            _with_matrix(f, facts, matrix)
            for f in findings_from_log(hits, harmless_by_signature=True, unkept=unkept)
        ]
        # A reading that hung on the log's Python, nvcc release or platform shows the line
        # that gave it.
        read_from: dict[str, tuple[int, str]] = {}
        for hit in hits:
            source = _read_from(hit, facts)
            if source is not None:
                read_from.setdefault(hit.code, source)
        findings = [_with_source(f, read_from.get(f.code)) for f in findings]
        findings.extend(_known_bugs(hits, facts, known_bugs, matrix, unkept))
        best = sorted(((-neg, text) for _, neg, text in self._relevant))
        return Explanation(tuple(ordered(findings)), facts, tuple(best), count)


def explain_lines(
    lines: Iterable[str],
    signatures: Sequence[Signature],
    matrix: Matrix,
    known_bugs: Sequence[KnownBug] = (),
) -> Explanation:
    """Explain a log given as lines (each may end with its line break): the same reading as
    explain_log, which the CLI uses on files."""
    return explain_log(_as_chunks(lines), signatures, matrix, known_bugs)


def _as_chunks(lines: Iterable[str], size: int = 1 << 20) -> Iterator[bytes]:
    batch: list[str] = []
    held = 0
    for line in lines:
        text = line if line.endswith("\n") else line + "\n"
        batch.append(text)
        held += len(text)
        if held >= size:
            yield "".join(batch).encode("utf-8", errors="replace")
            batch, held = [], 0
    if batch:
        yield "".join(batch).encode("utf-8", errors="replace")


def scan_triggers(signatures: Sequence[Signature]) -> TriggerScan | None:
    """The combined trigger scan of these signatures, log facts and alarm words; None when a
    signature requires no literal text (then every line must be read)."""
    cached = _SCANS.get(tuple(id(s) for s in signatures))
    if cached is not None:
        return cached
    prime_literals(s.pattern for s in signatures if not s.follows)
    triggers = [Trigger(word) for word in ALARM_TRIGGERS]
    triggers.extend(Trigger(word) for word in FACT_GATES)
    for signature in signatures:
        if signature.follows:
            continue  # tried only in its leader's window, which the scanner reads whole
        own = signature_triggers(signature)
        if own is None:
            return None
        triggers.extend(own)
    scan = combined(triggers)
    _SCANS[tuple(id(s) for s in signatures)] = scan
    return scan


_SCANS: dict[tuple[int, ...], TriggerScan] = {}
_EVERY_LINE = sys.maxsize


def explain_log(
    chunks: Iterable[bytes],
    signatures: Sequence[Signature],
    matrix: Matrix,
    known_bugs: Sequence[KnownBug] = (),
    passing: bool = True,
) -> Explanation:
    """Explain a log given as UTF-8 byte chunks (envcheck.explain.reader.read_chunks). Only the
    lines that hold a trigger are read closely (envcheck.explain.scanner), and every line
    after a hit whose `follows` rows wait for it; runs that repeat the run before are passed
    over, their counts added (envcheck.explain.cycles; `passing=False` reads them all, for
    the tests that hold the two readings equal)."""
    scan = scan_triggers(signatures)
    reading = _Reading(signatures, matrix)
    # (Runs of repeated lines are passed over, cycles.py; not where every line is read.)
    cycles = Cycles(reading, scan.digit_texts) if scan is not None and passing else None
    scanner = ChunkScanner(scan or folded_scan([Trigger("\x00never\x00")]), chunks, cycles)
    if scan is None:
        scanner.read_through(_EVERY_LINE)
    for number, text in scanner:
        reading.line(number, text)
        if cycles is not None:
            cycles.read(scanner)
        waiting = reading.followers.waiting
        if scan is not None:
            scanner.read_through(max(reading.wants_next, 0, *waiting.values()))
    return reading.explanation(scanner.lines, scanner.saw_text, matrix, known_bugs)
