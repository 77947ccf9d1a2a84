"""`envcheck explain`: a log in, findings out, with the same codes as the doctor.

Streams the log once: each cleaned line goes to the signature matcher and to the fact collector;
only the hits, the facts and a bounded list of the most telling unrecognised lines are kept, so a
100 MB log needs no more memory than a small one.
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envcheck.errors import InputError
from envcheck.explain.log_facts import FACT_GATES, LogFactCollector, LogFacts
from envcheck.explain.log_findings import findings_from_log
from envcheck.explain.matcher import Followers, LogHit, Screen, clean_line, prime_literals
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
from envcheck.matrix.model import Matrix
from envcheck.matrix.recipes import install_recipe
from envcheck.matrix.records import TensorflowRelease
from envcheck.matrix.signatures import Signature
from envcheck.versions import PythonVersion

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
_LIBRARY_CODES = {"cuda-library-missing", "cuda-version-mismatch", "cudnn-missing"}
# Findings whose fix is installing the framework's CUDA build (or the CUDA/cuDNN it was built
# for): a fix that does not name the log's framework gets its route added.
_ROUTED_CODES = _LIBRARY_CODES | {
    "cudnn-version-mismatch", "cudnn-sublibrary-missing", "framework-cpu-only",
    "compute-capability-unsupported",
}  # fmt: skip


class EmptyLogError(InputError):
    """The log has no line with text (an empty file, /dev/null): nothing to explain (exit 2)."""


@dataclass(frozen=True)
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
    names = ", ".join(sorted(libraries))
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


def _in_place(hit: LogHit, platforms: Collection[str]) -> LogHit:
    """A hit with the code its line means where the log ran (Signature.code_on): only known
    once the whole log is read, so applied at the end."""
    code = hit.signature.code_in(platforms, hit.code)
    return hit if code is None else replace(hit, code=code)


def _read_as(hit: LogHit, facts: LogFacts, matrix: Matrix) -> LogHit:
    """A hit read as its framework: the one whose own message it is, else the log's; its fix
    then takes that framework's variant and names it (matrix.log_frameworks)."""
    framework = hit.signature.framework or facts.framework
    routes = matrix.log_frameworks
    values = routes.get(framework or "other", routes["other"]).values()
    return replace(
        hit,
        framework=framework,
        macos="macos" in facts.platforms,
        framework_values=tuple(values.items()),
    )


class _Reading:
    """What one pass over a log keeps: hits, facts and the most telling unrecognised lines."""

    def __init__(self, signatures: Sequence[Signature], matrix: Matrix) -> None:
        self.collector = LogFactCollector(matrix)
        self.screen = Screen.of(signatures)
        self.followers = Followers(self.screen)
        self.hits: list[LogHit] = []
        self._per_signature: dict[str, int] = {}
        self._relevant: list[tuple[int, int, str]] = []  # a min-heap of (score, -line, text)
        self.texts = 0
        self._pending: tuple[int, str] | None = None  # an unexplained line the next may finish

    def line(self, number: int, raw: str) -> None:
        text = clean_line(raw)
        pending, self._pending = self._pending, None
        if not text:
            return
        self.texts += 1
        self.collector.line(text)
        line_hits = list(self.screen.match(text, number))
        if self.followers.waiting:
            line_hits.extend(self.followers.match(text, number))
        if pending is not None and pending[0] == number - 1 and not line_hits:
            # (A line that explains itself is not read as the end of the one before.)
            self._join(pending, text, set())
        if line_hits:
            self._keep(line_hits, number)
            return
        # A line with a trigger and no message may be the first half of one a terminal or a
        # copy wrapped: the next line is read with it.
        self._pending = (number, text)
        if not any(word in text for word in ALARM_TRIGGERS):
            return
        lowered = text.lower()
        score = sum(word in lowered for word in _TELLING_WORDS)
        entry = (score, -number, text[:500])
        if len(self._relevant) < RELEVANT_LINES:
            heapq.heappush(self._relevant, entry)
        elif entry > self._relevant[0]:
            heapq.heapreplace(self._relevant, entry)

    @property
    def wants_next(self) -> int:
        """The number of the line to read next whatever its triggers (0: none)."""
        return self._pending[0] + 1 if self._pending is not None else 0

    def _keep(self, line_hits: list[LogHit], number: int) -> None:
        self.followers.opened_by(line_hits, number)
        for hit in line_hits:
            # A log repeating one message a million times keeps its first few as evidence.
            seen = self._per_signature.get(hit.signature.id, 0)
            self._per_signature[hit.signature.id] = seen + 1
            if seen < HITS_KEPT_PER_SIGNATURE:
                self.hits.append(hit)
        self.collector.hits(line_hits)

    def _join(self, pending: tuple[int, str], text: str, found_here: set[str]) -> None:
        """Messages split over two lines: a hard wrap (joined as is) or a break at a space."""
        number, first = pending
        for joined in (first + text, f"{first} {text}"):
            hits = [
                h for h in self.screen.match(joined, number) if h.signature.id not in found_here
            ]
            if hits:
                self._keep(hits, number)
                return

    def explanation(
        self, count: int, any_text: bool, matrix: Matrix, known_bugs: Sequence[KnownBug]
    ) -> Explanation:
        if not self.texts and not any_text:
            raise EmptyLogError(
                f"the log is empty{f' ({count} blank lines)' if count else ''}: paste the "
                "output of the failing command, e.g. python train.py 2>&1 | envcheck explain -"
            )
        facts = self.collector.facts
        hits = [_read_as(_in_place(hit, facts.platforms), facts, matrix) for hit in self.hits]
        unkept = {
            signature: seen - HITS_KEPT_PER_SIGNATURE
            for signature, seen in self._per_signature.items()
            if seen > HITS_KEPT_PER_SIGNATURE
        }
        findings = [
            _with_matrix(f, facts, matrix)
            for f in findings_from_log(hits, harmless_by_signature=True, unkept=unkept)
        ]
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
) -> Explanation:
    """Explain a log given as UTF-8 byte chunks (envcheck.explain.reader.read_chunks). Only the
    lines that hold a trigger are read closely (envcheck.explain.scanner), and every line
    after a hit whose `follows` rows wait for it."""
    scan = scan_triggers(signatures)
    reading = _Reading(signatures, matrix)
    scanner = ChunkScanner(scan or folded_scan([Trigger("\x00never\x00")]), chunks)
    if scan is None:
        scanner.read_through(_EVERY_LINE)
    for number, text in scanner:
        reading.line(number, text)
        waiting = reading.followers.waiting
        if scan is not None:
            scanner.read_through(max(reading.wants_next, 0, *waiting.values()))
    return reading.explanation(scanner.lines, scanner.saw_text, matrix, known_bugs)
