"""Known upstream bugs (matrix/known_bugs.toml): loaded strictly, matched by version or symptom.

The doctor matches the installed versions (TensorFlow, cuDNN, OS, GPU); explain matches the
symptom signatures a log shows. Both report the `known-bug` code with the link and workaround.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from envcheck.matrix import rows as matrix_rows
from envcheck.matrix.fix_keys import FIX_KEYS, LOG_FRAMEWORKS, NAMES_TENSORFLOW
from envcheck.matrix.rows import MatrixDataError, checked_against_toml
from envcheck.platforms import OS_NAMES
from envcheck.record import record
from envcheck.versions import ComputeCapability

FILE = "known_bugs.toml"


@record
class KnownBug:
    id: str
    title: str
    url: str
    tensorflow: SpecifierSet | None
    cudnn: SpecifierSet | None
    os: frozenset[str]
    min_compute_capability: ComputeCapability | None
    symptoms: tuple[str, ...]
    workaround: str
    severity: Literal["warning", "info"]
    sources: tuple[str, ...]
    cuda_build_only: bool = False  # a packaging bug of the GPU build: CPU builds never hit it
    # The release's own GPU install leaves the GPU unused until the workaround is applied
    # (TF 2.21.0's RUNPATH misses cuSOLVER): recommend ranks it after releases that just work.
    breaks_gpu_install: bool = False
    # The framework whose bug it is (a `tensorflow` range makes it TensorFlow's); "" for a bug
    # of a library every framework loads (cuDNN's zlibwapi.dll). explain names a framework's
    # bug only in a log of that framework.
    framework: str = ""
    # Workaround variants by the framework a log shows, as a signature's fix_for (FIX_KEYS).
    workaround_for: tuple[tuple[str, str], ...] = ()

    def workaround_in(self, framework: str) -> str:
        """The workaround for a log of `framework` ("" unknown): its own variant, else "other"
        for any framework but TensorFlow, else `workaround`."""
        variants = dict(self.workaround_for)
        wanted = [framework] if framework else []
        if framework != "tensorflow":
            wanted.append("other")
        return next((variants[key] for key in wanted if key in variants), self.workaround)

    def affects(
        self,
        tensorflow: Version | None,
        os_name: str | None,
        cudnn: Version | None = None,
        capabilities: Iterable[ComputeCapability] = (),
        cuda_build: bool | None = None,
    ) -> bool:
        """True when every condition the bug states holds for these versions (all known).

        `cuda_build` False (a CPU-only TensorFlow) rules out bugs of the GPU build; None (not
        known, as in a pasted log) does not.
        """
        if self.cuda_build_only and cuda_build is False:
            return False
        if self.tensorflow is not None and (
            tensorflow is None or tensorflow not in self.tensorflow
        ):
            return False
        if self.cudnn is not None and (cudnn is None or cudnn not in self.cudnn):
            return False
        if self.os and os_name not in self.os:
            return False
        if self.min_compute_capability is not None:
            return any(c >= self.min_compute_capability for c in capabilities)
        return True


def _specifier(row: matrix_rows.Row, key: str) -> SpecifierSet | None:
    text = row.optional_string(key)
    if text is None:
        return None
    try:
        return SpecifierSet(text)
    except InvalidSpecifier as exc:
        raise MatrixDataError(f"{row.where}: field {key!r}: {text!r} is not a specifier") from exc


def _workaround_for(row: matrix_rows.Row, framework: str) -> tuple[tuple[str, str], ...]:
    """The workaround variants; a workaround naming TensorFlow in a bug that is not
    TensorFlow's needs an "other" variant that does not (as a signature's fix)."""
    table = row.optional_table("workaround_for")
    entry = row.nested(table, f"{row.where} workaround_for")
    variants = []
    for key in table:
        if key not in FIX_KEYS:
            raise entry.error(key, "not a framework, 'other' or '<framework> on macos|windows'")
        text = entry.string(key)
        if not key.startswith("tensorflow") and NAMES_TENSORFLOW.search(text):
            raise entry.error(key, "a workaround for another framework names TensorFlow")
        variants.append((key, text))
    entry.done()
    if (
        framework != "tensorflow"
        and NAMES_TENSORFLOW.search(row.string("workaround"))
        and "other" not in table
    ):
        raise row.error("workaround", "names TensorFlow: add a workaround_for.other that does not")
    return tuple(variants)


@checked_against_toml
def load_known_bugs(directory: Path) -> tuple[KnownBug, ...]:
    data = matrix_rows.read_toml(directory, FILE)
    matrix_rows.check_top_level(data, FILE, {"bug"})
    sources = matrix_rows.read_sources(data, FILE)
    bugs = []
    for row in matrix_rows.table_rows(data, FILE, "bug", sources):
        os_names = row.string_list("os", required=False)
        unknown = sorted(set(os_names) - set(OS_NAMES))
        if unknown:
            raise MatrixDataError(f"{row.where}: field 'os': unknown {', '.join(unknown)}")
        capability = row.optional_string("min_compute_capability")
        written = row.optional_string("severity") or "warning"
        if written not in ("warning", "info"):
            raise MatrixDataError(
                f"{row.where}: field 'severity': {written!r} is not warning or info"
            )
        severity: Literal["warning", "info"] = "info" if written == "info" else "warning"
        tensorflow = _specifier(row, "tensorflow")
        framework = row.text("framework") or ("tensorflow" if tensorflow is not None else "")
        if framework and framework not in LOG_FRAMEWORKS:
            raise row.error("framework", f"{framework!r} is not a log framework")
        bugs.append(
            KnownBug(
                id=row.string("id"),
                title=row.string("title"),
                url=row.string("url"),
                tensorflow=tensorflow,
                cudnn=_specifier(row, "cudnn"),
                os=frozenset(os_names),
                min_compute_capability=ComputeCapability.parse(capability) if capability else None,
                symptoms=row.string_list("symptoms", required=False),
                workaround=row.string("workaround"),
                severity=severity,
                sources=row.sources(),
                cuda_build_only=row.optional_boolean("cuda_build_only") or False,
                breaks_gpu_install=row.optional_boolean("breaks_gpu_install") or False,
                framework=framework,
                workaround_for=_workaround_for(row, framework),
            )
        )
        row.done()
    ids = [b.id for b in bugs]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise MatrixDataError(f"{FILE}: duplicate bug id(s) {', '.join(duplicates)}")
    return tuple(bugs)


def bugs_with_symptoms(bugs: Sequence[KnownBug], signature_ids: Iterable[str]) -> list[KnownBug]:
    seen = set(signature_ids)
    return [bug for bug in bugs if seen.intersection(bug.symptoms)]
