"""Known log messages (matrix/log_signatures.toml) as data: what each means and how to see it.

`load_signatures` reads the data file strictly, like `envcheck.matrix.load`: every field is
checked, unknown fields are refused, every regex is compiled once here and every message
template may name only groups of its own pattern, so a bad row is a MatrixDataError naming the
signature, never a crash in the middle of a user's log. A row with `follows` names another row
(its leader). Matching a log against them is `envcheck.explain.matcher`'s job.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from envcheck.findings import CODES, Severity, current_code
from envcheck.matrix.compiled_patterns import compiled, prime
from envcheck.matrix.fix_keys import FIX_KEYS, FIX_PLACES, LOG_FRAMEWORKS, NAMES_TENSORFLOW
from envcheck.matrix.records import Source
from envcheck.matrix.rows import (
    MatrixDataError,
    Row,
    check_top_level,
    checked_against_toml,
    read_sources,
    read_toml,
    table_rows,
)
from envcheck.record import record

FILE = "log_signatures.toml"

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_MISSING = "?"


class TemplateValues(dict[str, str]):
    """Template values where a group that did not take part in the match reads as '?'."""

    def __missing__(self, key: str) -> str:
        return _MISSING


# The facts a log may leave open that an if_unknown reading waits on (LogFacts.shows):
# "driver" (the user-space driver's release or the CUDA it supports), "gpu" (a GPU's name or
# compute capability), "build-cuda" (the CUDA a framework build is for), "python" (the
# interpreter's version).
UNKNOWN_FACTS = frozenset({"driver", "gpu", "build-cuda", "python"})


@record
class IfUnknown:
    """Another reading of a row's hit, given as a warning until the log shows every one of
    `facts` (UNKNOWN_FACTS: what tells the two readings apart), and never where it shows one of
    the places `not_on` (LOG_PLATFORMS): the log cannot tell them apart, the person can."""

    facts: frozenset[str]
    not_on: frozenset[str]
    code: str
    message: str
    fix: str


@record
class Signature:
    """One known message: how to recognise it and what it means."""

    id: str
    pattern: re.Pattern[str]
    code: str
    severity: Severity
    message: str  # str.format template over the pattern's named groups
    fix: str  # the same
    code_when: tuple[tuple[str, re.Pattern[str], str], ...] = ()  # (group, regex, code)
    root_cause: bool = False
    benign: bool = False
    sources: tuple[str, ...] = ()
    note: str = ""
    follows: str = ""  # the id of the leader row; "" for a row tried on every line
    # A follower of a message printed over several lines (PyTorch's capability warning: the GPU
    # on one line, the build's range two lines below): also tried on its leader's line and this
    # one joined by a space, and what it `replaces` it reads on the leader's line too.
    with_leader: bool = False
    # (platform the log shows, code): the cause a line means there, e.g. no device inside a
    # container is a container started without GPU access. Platforms: LOG_PLATFORMS.
    # (platform, code, the codes it replaces: empty = any, the TensorFlow releases it holds
    # for as a PEP 440 specifier: "" = any; a log whose TensorFlow version or source paths
    # fall outside them keeps the row's own code).
    code_on: tuple[tuple[str, str, frozenset[str], str], ...] = ()
    # The framework whose own message this is (LOG_FRAMEWORKS; "" for a message several
    # frameworks or the loader print): a hit is evidence the log is that framework's, and its
    # fix is read for that framework whatever else the log shows.
    framework: str = ""
    # Fix variants (str.format templates like `fix`) by the framework a hit is read as:
    # FIX_KEYS, most specific first (fix_template). `fix` is TensorFlow's and every
    # framework's without a variant of its own.
    fix_for: tuple[tuple[str, str], ...] = ()
    # Codes this row reads differently on the lines it matches: another row's hit of one of
    # them on the same line is this row's reading, not a finding of its own (a forked
    # worker's CUDA_ERROR_NOT_INITIALIZED is no missing driver). Applied by
    # envcheck.explain.log_findings.
    replaces: frozenset[str] = frozenset()
    # A place the log must show for a hit to count (LOG_PLATFORMS; "" everywhere): a line that
    # means this cause only there, such as an initialisation error inside a forked worker.
    only_on: str = ""
    # (code, message) of a hit whose `python` group, a wheel's Python tag (cp27, py2.py3),
    # fits the Python the log shows (empty: none): that tag is then not why the wheel was
    # refused. The message may name the log's Python as {log_python}.
    if_python_fits: tuple[str, str] | tuple[()] = ()
    # (code, message, fix, codes it replaces) of a hit whose pip list of offered versions (the
    # `offered` group) starts or ends where a package's wheels for one platform do
    # (wheel_platforms.toml): the platform, not the Python, is then why the pin has no wheel
    # (explain/pip_offers.py), and another row's reading of the line (a local build's missing
    # index) is this one's.
    if_platform_span: tuple[str, str, str, frozenset[str]] | tuple[()] = ()
    # (code, message, fix) of a hit whose `package` has no wheel for the platform the log shows
    # (wheel_platforms.toml: none there at all, or none for the release the `spec` group pins):
    # pip's empty list of offered versions then means that platform, not the Python
    # (explain/pip_offers.py). The templates may name PLATFORM_FIELDS.
    if_platform_lacks: tuple[str, str, str] | tuple[()] = ()
    # (code, message, fix) of the same hit in a log that shows neither its platform nor its
    # Python, for each OS where the package has no wheel for what the `spec` reaches: a
    # warning beside the row's own reading (explain/pip_offers.py). PLATFORM_FIELDS as above.
    if_platform_unshown: tuple[str, str, str] | tuple[()] = ()
    # (group, (code, message) older, (code, message) newer) of a row whose group names a CUDA
    # architecture nvcc was asked for (compute_60, sm_120): where the log shows the toolkit's
    # release, the architectures it can target (cuda_architectures.toml) decide the reading:
    # `older` for one below all of them (the toolkit dropped it: the build's list is stale),
    # `newer` for one above (the toolkit predates the GPU). The messages may name
    # {log_toolkit} and {targets}. Elsewhere the row's own code and code_when hold.
    by_toolkit: tuple[str, tuple[str, str], tuple[str, str]] | tuple[()] = ()
    # Other causes of the same line where the log leaves open the fact that would tell them
    # apart (IfUnknown): the CUDA runtime says "driver version is insufficient" both under an
    # old driver and with no driver library at all, so where the log shows no driver release
    # the second is a warning beside the row's reading (explain/explanation.py).
    if_unknown: tuple[IfUnknown, ...] = ()

    def fix_template(self, framework: str, places: Collection[str] = ()) -> str:
        """The fix for a hit read as `framework` ("" unknown) in a log that ran in `places`
        (FIX_PLACES it shows): "<framework> on <place>", then "<framework>", then "other" (any
        framework but TensorFlow, and an unknown one), then `fix`."""
        variants = dict(self.fix_for)
        wanted = [framework] if framework else []
        if framework:
            wanted[:0] = [f"{framework} on {place}" for place in FIX_PLACES if place in places]
        if framework != "tensorflow":
            wanted.append("other")
        return next((variants[key] for key in wanted if key in variants), self.fix)

    def code_in(
        self,
        platforms: Collection[str],
        code: str,
        tensorflow_may_be: Callable[[str], bool] = lambda _: True,
    ) -> str | None:
        """The code `code_on` gives a hit (of `code`) in a log from one of these platforms
        (`tensorflow_may_be`: whether the log's TensorFlow can be in a specifier)."""
        return next(
            (
                routed
                for platform, routed, instead_of, tensorflow in self.code_on
                if platform in platforms
                and (not instead_of or code in instead_of)
                and (not tensorflow or tensorflow_may_be(tensorflow))
            ),
            None,
        )

    def code_for(self, groups: Mapping[str, str]) -> str:
        """The code of a hit: the first `code_when` entry whose regex finds its group's value."""
        for group, regex, code in self.code_when:
            value = groups.get(group)
            if value is not None and regex.search(value):
                return code
        return self.code


# --- loading -------------------------------------------------------------------------------


def _compile(row: Row, key: str, text: str) -> re.Pattern[str]:
    try:
        return compiled(text)
    except re.error as exc:
        raise row.error(key, f"invalid regular expression {text!r}: {exc}") from exc


# What a fix variant may name besides the pattern's groups: the framework the hit is read as
# (LogFramework: its name and how to install its CUDA build; "the framework" and a neutral
# route when the log does not show which).
FRAMEWORK_FIELDS = frozenset({"framework", "cuda_build"})


def _template(
    row: Row, key: str, pattern: re.Pattern[str], reserved: frozenset[str] = frozenset()
) -> str:
    """A str.format template that names only groups of `pattern` and the `reserved` fields
    (checked by formatting it)."""
    text = row.string(key)
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as exc:
        raise row.error(key, f"not a valid format template: {exc}") from exc
    for name in fields:
        if name not in pattern.groupindex and name not in reserved:
            raise row.error(
                key,
                f"{{{name}}} is not a named group of the pattern "
                f"(groups: {', '.join(pattern.groupindex) or 'none'}); write {{{{ }}}} for a brace",
            )
    try:
        text.format_map(TemplateValues())
    except (ValueError, KeyError, IndexError, AttributeError) as exc:
        raise row.error(key, f"not a valid format template: {exc}") from exc
    return text


def _code(row: Row, key: str, value: str) -> str:
    code = current_code(value)  # a row written with a code since renamed still reads
    if code not in CODES:
        raise row.error(key, f"unknown finding code {value!r} (see envcheck/findings.py)")
    return code


def _group(entry: Row, pattern: re.Pattern[str]) -> str:
    """The entry's `group`: a named group of the row's pattern (code_when, by_toolkit)."""
    group = entry.string("group")
    if group not in pattern.groupindex:
        raise entry.error("group", f"{group!r} is not a named group of the pattern")
    return group


def _code_when(row: Row, pattern: re.Pattern[str]) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    routes = []
    for index, table in enumerate(row.optional_table_list("code_when"), start=1):
        entry = row.nested(table, f"{row.where} code_when #{index}")
        group = _group(entry, pattern)
        regex = _compile(entry, "match", entry.string("match"))
        routes.append((group, regex, _code(entry, "code", entry.string("code"))))
        entry.done()
    return tuple(routes)


# What a log can reveal about where it ran (envcheck.explain.log_facts); `code_on` keys.
# "forked-worker": the log shows a process forked from a Python program (a DataLoader worker,
# multiprocessing's fork start method), where CUDA used in the parent cannot be used again.
# "macos": no CUDA there at all, so a framework without a GPU is a CPU-only build, not a GPU gone.
# "pip-build": pip building a package in its isolated build environment, where the packages
# of the environment it installs into (an installed torch) cannot be imported.
# "driver-jit": the program hands PTX to the driver's own compiler (numba's "Call to
# cuLinkAddData"), so a PTX too new for it is a driver older than the toolkit that made the PTX.
LOG_PLATFORMS = frozenset(
    {"windows", "wsl", "colab", "container", "forked-worker", "macos", "pip-build", "driver-jit"}
)


def _code_on(row: Row) -> tuple[tuple[str, str, frozenset[str], str], ...]:
    routes = []
    for index, table in enumerate(row.optional_table_list("code_on"), start=1):
        entry = row.nested(table, f"{row.where} code_on #{index}")
        platform = _one_of(entry, "platform", entry.string("platform"), LOG_PLATFORMS)
        routed = _code(entry, "code", entry.string("code"))
        instead_of = entry.string_list("instead_of", required=False)
        for code in instead_of:
            _code(entry, "instead_of", code)
        tensorflow = entry.text("tensorflow")
        if tensorflow:
            try:
                SpecifierSet(tensorflow)
            except InvalidSpecifier as exc:
                raise entry.error("tensorflow", f"not a version specifier: {exc}") from exc
        routes.append((platform, routed, frozenset(instead_of), tensorflow))
        entry.done()
    return tuple(routes)


def _if_python_fits(row: Row, pattern: re.Pattern[str]) -> tuple[str, str] | tuple[()]:
    table = row.optional_table("if_python_fits")
    if not table:
        return ()
    if "python" not in pattern.groupindex:
        raise row.error("if_python_fits", "needs a group named python (a wheel's Python tag)")
    entry = row.nested(table, f"{row.where} if_python_fits")
    code = _code(entry, "code", entry.string("code"))
    message = _template(entry, "message", pattern, frozenset({LOG_PYTHON}))
    entry.done()
    return code, message


# The field an if_python_fits message names the log's Python by.
LOG_PYTHON = "log_python"
# The group a hit read by its by_toolkit row carries the log's nvcc release in.
LOG_TOOLKIT = "log_toolkit"
# The group a hit read by the platform the log shows carries it in (windows, macos).
LOG_PLATFORM = "log_platform"
# ... and the architectures that release can target ("7.5 to 12.1").
TOOLKIT_FIELDS = frozenset({LOG_TOOLKIT, "targets"})

# The fields a row whose pattern has a group named `offered` (the versions pip offered) may
# name, filled in by explain's reading of that list (explain/pip_offers.py): the list's first
# and last ("from 0.4.13 to 0.4.23"), where the pin lies ("older than all of them") and, where
# the matrix tells, the Python the list points to ("" otherwise).
OFFER_FIELDS = frozenset({"offered_span", "pin_side", "python_hint"})
# ... and, in its if_platform_span, the span's platform, its edge and the advice of its row.
SPAN_FIELDS = OFFER_FIELDS | {"platform", "span", "advice"}


def _offer_fields(pattern: re.Pattern[str]) -> frozenset[str]:
    return OFFER_FIELDS if "offered" in pattern.groupindex else frozenset()


def _needs_groups(row: Row, key: str, pattern: re.Pattern[str], names: tuple[str, ...]) -> None:
    missing = set(names) - set(pattern.groupindex)
    if missing:
        named = f"{', '.join(names[:-1])} and {names[-1]}"
        raise row.error(key, f"needs groups named {named} (no {', '.join(sorted(missing))})")


def _reading(entry: Row, pattern: re.Pattern[str], fields: frozenset[str]) -> tuple[str, str, str]:
    """The code, message and fix of a nested reading (if_platform_span, if_platform_lacks,
    if_platform_unshown)."""
    code = _code(entry, "code", entry.string("code"))
    return (
        code,
        _template(entry, "message", pattern, fields),
        _template(entry, "fix", pattern, fields),
    )


def _if_platform_span(
    row: Row, pattern: re.Pattern[str]
) -> tuple[str, str, str, frozenset[str]] | tuple[()]:
    table = row.optional_table("if_platform_span")
    if not table:
        return ()
    _needs_groups(row, "if_platform_span", pattern, ("offered", "package", "version"))
    entry = row.nested(table, f"{row.where} if_platform_span")
    code, message, fix = _reading(entry, pattern, SPAN_FIELDS)
    replaces = frozenset(
        _code(entry, "replaces", c) for c in entry.string_list("replaces", required=False)
    )
    entry.done()
    return code, message, fix, replaces


def if_unknown_readings(
    row: Row, refused: frozenset[str], pattern: re.Pattern[str] | None = None
) -> tuple[IfUnknown, ...]:
    """A row's [[...if_unknown]] readings (the keys facts, not_on, code, message, fix). Their
    codes must differ from `refused` (the row's own code and those it replaces: a reading of
    either would be no other cause, or would be dropped). Without `pattern` (error_codes.toml,
    whose texts are plain) the texts are taken as they are, braces and all."""
    readings = []
    for index, table in enumerate(row.optional_table_list("if_unknown"), start=1):
        entry = row.nested(table, f"{row.where} if_unknown #{index}")
        facts = entry.string_list("facts")
        if not facts:
            raise entry.error("facts", "name at least one fact (else the reading never closes)")
        for fact in facts:
            _one_of(entry, "facts", fact, UNKNOWN_FACTS)
        not_on = entry.string_list("not_on", required=False)
        for platform in not_on:
            _one_of(entry, "not_on", platform, LOG_PLATFORMS)
        if pattern is None:
            code = _code(entry, "code", entry.string("code"))
            message, fix = (literal_template(entry.string(key)) for key in ("message", "fix"))
        else:
            code, message, fix = _reading(entry, pattern, frozenset())
        if code in refused:
            raise entry.error("code", f"{code!r} is the row's own code or one it replaces")
        readings.append(IfUnknown(frozenset(facts), frozenset(not_on), code, message, fix))
        entry.done()
    return tuple(readings)


def literal_template(text: str) -> str:
    """Plain text as a str.format template that gives it back (error_codes.toml's texts too)."""
    return text.replace("{", "{{").replace("}", "}}")


# The fields an if_platform_lacks template may name: the platform, where its wheels lie
# (WheelSpan.edge) and the advice of its row; and "On <platform>, use <advice>." for each
# platform an if_platform_unshown reading names.
PLATFORM_FIELDS = frozenset({"platform", "span", "advice", "advice_by_platform"})


def _if_platform(row: Row, pattern: re.Pattern[str], key: str) -> tuple[str, str, str] | tuple[()]:
    """An if_platform_lacks or if_platform_unshown reading."""
    table = row.optional_table(key)
    if not table:
        return ()
    _needs_groups(row, key, pattern, ("package", "spec"))
    entry = row.nested(table, f"{row.where} {key}")
    reading = _reading(entry, pattern, PLATFORM_FIELDS)
    entry.done()
    return reading


def _by_toolkit(
    row: Row, pattern: re.Pattern[str]
) -> tuple[str, tuple[str, str], tuple[str, str]] | tuple[()]:
    table = row.optional_table("by_toolkit")
    if not table:
        return ()
    entry = row.nested(table, f"{row.where} by_toolkit")
    group = _group(entry, pattern)
    readings = tuple(
        (
            _code(entry, side, entry.string(side)),
            _template(entry, f"{side}_message", pattern, TOOLKIT_FIELDS),
        )
        for side in ("older", "newer")
    )
    entry.done()
    return group, readings[0], readings[1]


def _framework(row: Row) -> str:
    name = row.text("framework")
    return _one_of(row, "framework", name, LOG_FRAMEWORKS) if name else name


def _one_of(row: Row, key: str, value: str, allowed: Collection[str]) -> str:
    """`value` of field `key`, refused unless it is one of `allowed`."""
    if value not in allowed:
        raise row.error(key, f"{value!r} is not one of {', '.join(sorted(allowed))}")
    return value


def _fix_for(row: Row, pattern: re.Pattern[str], framework: str) -> tuple[tuple[str, str], ...]:
    table = row.optional_table("fix_for")
    entry = row.nested(table, f"{row.where} fix_for")
    variants = []
    for key in table:
        if key not in FIX_KEYS:
            raise entry.error(
                key,
                "not a framework, 'other' or '<framework> on macos|windows' "
                f"(frameworks: {', '.join(sorted(LOG_FRAMEWORKS))})",
            )
        text = _template(entry, key, pattern, FRAMEWORK_FIELDS)
        if not key.startswith("tensorflow") and NAMES_TENSORFLOW.search(text):
            raise entry.error(key, "a fix for another framework than TensorFlow names TensorFlow")
        variants.append((key, text))
    entry.done()
    fix = row.string("fix")
    if framework != "tensorflow" and NAMES_TENSORFLOW.search(fix) and "other" not in table:
        raise row.error(
            "fix",
            "names TensorFlow but the row is not TensorFlow's own message (framework = "
            '"tensorflow"): add a fix_for.other that does not, for the logs of other frameworks',
        )
    return tuple(variants)


def _signature(row: Row) -> Signature:
    identifier = row.string("id")
    if not _ID.fullmatch(identifier):
        raise row.error("id", f"{identifier!r} is not kebab-case (a-z, 0-9, single dashes)")
    pattern = _compile(row, "pattern", row.string("pattern"))
    if pattern.search("") is not None:
        raise row.error("pattern", "matches an empty line, so it would match every line")
    severity_text = row.string("severity")
    try:
        severity = Severity(severity_text)
    except ValueError as exc:
        raise row.error("severity", f"{severity_text!r} is not error, warning or info") from exc
    code = _code(row, "code", row.string("code"))
    benign = row.optional_boolean("benign") or False
    root_cause = row.optional_boolean("root_cause") or False
    if benign != (code == "benign-warning"):
        raise row.error("benign", "benign = true goes with code benign-warning, and only with it")
    if benign and root_cause:
        raise row.error("root_cause", "a benign line is not a root cause")
    framework = _framework(row)
    replaced = frozenset(
        _code(row, "replaces", code) for code in row.string_list("replaces", required=False)
    )
    signature = Signature(
        id=identifier,
        pattern=pattern,
        code=code,
        severity=severity,
        message=_template(row, "message", pattern, _offer_fields(pattern)),
        fix=_template(row, "fix", pattern, _offer_fields(pattern)),
        code_when=_code_when(row, pattern),
        root_cause=root_cause,
        benign=benign,
        sources=row.sources(),
        note=row.text("note"),
        follows=row.text("follows"),
        with_leader=row.optional_boolean("with_leader") or False,
        code_on=_code_on(row),
        framework=framework,
        fix_for=_fix_for(row, pattern, framework),
        replaces=replaced,
        only_on=row.text("only_on"),
        if_python_fits=_if_python_fits(row, pattern),
        if_platform_span=_if_platform_span(row, pattern),
        by_toolkit=_by_toolkit(row, pattern),
        if_platform_lacks=_if_platform(row, pattern, "if_platform_lacks"),
        if_platform_unshown=_if_platform(row, pattern, "if_platform_unshown"),
        if_unknown=if_unknown_readings(row, frozenset({code, *replaced}), pattern),
    )
    if code in signature.replaces:
        raise row.error("replaces", f"names the row's own code {code!r}")
    if signature.only_on:
        _one_of(row, "only_on", signature.only_on, LOG_PLATFORMS)
    row.done()
    return signature


# (The situations file comes last: its rows read lines the others also match, in context.)
FILES = (FILE, "log_signatures_frameworks.toml", "log_signatures_situations.toml")
FRAMEWORKS_FILE = FILES[1]


@record
class LogFramework:
    """How a fix names a framework a log shows (`[[framework]]` of FRAMEWORKS_FILE): the
    values of the FRAMEWORK_FIELDS of a fix variant. The row named "other" stands for a log
    that does not show its framework."""

    id: str  # LOG_FRAMEWORKS, or "other"
    framework: str  # "PyTorch"
    cuda_build: str  # how to install its CUDA build, as a clause
    sources: tuple[str, ...] = ()

    def values(self) -> dict[str, str]:
        return {"framework": self.framework, "cuda_build": self.cuda_build}


@record
class SignatureFiles:
    """What the log_signatures*.toml files hold: the signatures in match order, and the
    `[[framework]]` rows by id."""

    signatures: tuple[Signature, ...]
    frameworks: dict[str, LogFramework]


@checked_against_toml
def load_signature_files(directory: Path) -> SignatureFiles:
    """The signatures and the [[framework]] rows of `directory`'s signature files (FILES), read
    once for both: explain asks for both in one run."""
    data = {name: read_toml(directory, name) for name in FILES}
    sources = _shared_sources(data)
    return SignatureFiles(_signatures(data, sources), _log_frameworks(data, sources))


def load_log_frameworks(directory: Path) -> dict[str, LogFramework]:
    """The `[[framework]]` rows of FRAMEWORKS_FILE by id: one per LOG_FRAMEWORKS name and one
    "other", each citing its source."""
    return load_signature_files(directory).frameworks


def load_signatures(directory: Path) -> tuple[Signature, ...]:
    """The signatures of `directory`'s log_signatures*.toml files (FILES), in file order (the
    match order); ids are unique across the files."""
    return load_signature_files(directory).signatures


def _log_frameworks(
    data: Mapping[str, dict[str, Any]], sources: dict[str, Source]
) -> dict[str, LogFramework]:
    # (The signature files' one table of sources, as their [[signature]] rows see it.)
    found: dict[str, LogFramework] = {}
    for row in table_rows(data[FRAMEWORKS_FILE], FRAMEWORKS_FILE, "framework", sources):
        identifier = row.string("id")
        if identifier not in LOG_FRAMEWORKS | {"other"} or identifier in found:
            raise row.error("id", f"{identifier!r} is a duplicate or not a log framework")
        found[identifier] = LogFramework(
            identifier, row.string("framework"), row.string("cuda_build"), row.sources()
        )
        if identifier != "tensorflow" and NAMES_TENSORFLOW.search(found[identifier].cuda_build):
            raise row.error("cuda_build", "names TensorFlow")
        row.done()
    missing = sorted((LOG_FRAMEWORKS | {"other"}) - set(found))
    if missing:
        raise MatrixDataError(f"{FRAMEWORKS_FILE}: no [[framework]] row for {', '.join(missing)}")
    return found


def _signatures(
    data: Mapping[str, dict[str, Any]], sources: dict[str, Source]
) -> tuple[Signature, ...]:
    signatures: list[Signature] = []
    for name in FILES:
        signatures.extend(_load_file(data[name], name, sources))
    seen: set[str] = set()
    for signature in signatures:
        if signature.id in seen:
            raise MatrixDataError(f"{', '.join(FILES)}: duplicate signature id {signature.id!r}")
        seen.add(signature.id)
    by_id = {signature.id: signature for signature in signatures}
    for signature in signatures:
        leader = by_id.get(signature.follows)
        if signature.follows and (leader is None or leader.follows):
            raise MatrixDataError(
                f"{', '.join(FILES)}: [[signature]] {signature.id}: field 'follows': "
                f"{signature.follows!r} is not the id of a row without 'follows' of its own"
            )
        if signature.with_leader and not signature.follows:
            raise MatrixDataError(
                f"{', '.join(FILES)}: [[signature]] {signature.id}: field 'with_leader': "
                "only a row that follows another is tried with its leader's line"
            )
    return tuple(signatures)


def _pattern_texts(tables: list[Any]) -> Iterator[str]:
    """The regular expressions the rows name (checked as they are read, not here)."""
    for table in tables:
        if not isinstance(table, dict):
            continue
        yield from (text for text in [table.get("pattern")] if isinstance(text, str))
        routes = table.get("code_when")
        for route in routes if isinstance(routes, list) else ():
            if isinstance(route, dict) and isinstance(route.get("match"), str):
                yield route["match"]


def _shared_sources(data: dict[str, Any]) -> dict[str, Source]:
    """The [sources] of every signature file, one namespace: a row cites a source wherever it is
    written, and a citation is written once (a source id in two files is an error)."""
    shared: dict[str, Source] = {}
    where: dict[str, str] = {}
    for name, content in data.items():
        for key, source in read_sources(content, name).items():
            if key in shared:
                raise MatrixDataError(
                    f"{name}: [sources] {key!r} is also in {where[key]}: write a source once"
                )
            shared[key], where[key] = source, name
    return shared


def _load_file(data: dict[str, Any], name: str, sources: dict[str, Source]) -> list[Signature]:
    check_top_level(
        data, name, {"signature", "framework"} if name == FRAMEWORKS_FILE else {"signature"}
    )
    tables = data.get("signature")
    if not isinstance(tables, list) or not tables:
        raise MatrixDataError(f"{name}: no [[signature]] rows")
    prime(_pattern_texts(tables))
    signatures: list[Signature] = []
    seen: set[str] = set()
    for index, table in enumerate(tables, start=1):
        hint = table.get("id") if isinstance(table, dict) else None
        label = f" ({hint})" if isinstance(hint, str) else ""
        signature = _signature(Row(table, f"{name}: [[signature]] #{index}{label}", sources))
        if signature.id in seen:
            raise MatrixDataError(f"{name}: [[signature]] #{index}: duplicate id {signature.id!r}")
        seen.add(signature.id)
        signatures.append(signature)
    return signatures
