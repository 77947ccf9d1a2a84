"""The public log corpus (tests/corpus): its cases, and how a case is judged.

Shared by tests/test_corpus.py (the accuracy target) and bench/corpus.py (the report per class).
A case is correct when every code it expects is among the findings and, for a log whose cause
is not the environment, no finding is an error (tests/corpus/README.md).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envcheck.diagnose.log_diagnosis import reason_over_log
from envcheck.explain.explanation import Explanation, explain_log
from envcheck.explain.reader import read_chunks
from envcheck.findings import Severity, current_code
from envcheck.matrix.model import Matrix

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

CORPUS = Path(__file__).resolve().parent / "corpus"
# Logs collected after the signatures were written: how the knowledge carries over to logs it
# was not written from (reported by bench/corpus.py, not held to the 95% target). The first set
# was measured once (23/34) and then read for the classes it showed missing; the second was
# collected after that, measured (29/39) and, during issue 22, read in the same way; the third
# (issue 22) is sealed: scored at the start and at the end of that issue, never read in between;
# the fourth (collected during issue 22) was scored at its start and at its end (20/31 -> 22/31
# environment problems), then read; the fifth (collected 2026-12-06) was scored at its start,
# totals only (11/19 environment problems), then read; the third and the sixth were scored at the
# end of issue 22's sealed period (26/33 and 12/24 environment problems) and then read; the
# seventh (collected in the next session, before anything was changed) was scored at that
# session's start and end (20/29 -> 21/29 environment problems) and read in the session after.
# The eighth (collected at the start of that session) was scored at its start and end (20/24
# -> 21/24 environment problems) and then read.
# The ninth (collected in the same session after the eighth's end score) was scored at its
# start and at that session's end (10/17 both times) and then read.
# The tenth (collected blind at the start of the 2026-12-07 session, 30 logs, 21 environment
# problems) was scored at its start (a8c2406: 15/21) and at that session's end (950db83: 15/21)
# and then read.
# The eleventh (collected blind at the end of that session, 16 logs, 12 environment problems)
# was scored at its start (3619839: 8/12) and at the end of the next session (7c9a579: 8/12),
# and then read.
# The twelfth (collected blind at the start of the next session, 42 logs, 29 environment
# problems) was scored at its start (dcc874e: 17/29, two false errors) and at that session's
# end (7c9a579: 20/29, two false errors), and then read.
# The thirteenth (collected blind late in that session, 29 logs, 21 environment problems) was
# scored at its start (7c9a579: 17/21, no false error) and at the end of the next session
# (a113bca: 17/21, no false error), and then read.
# The fourteenth (collected blind at the start of that next session, 43 logs, 31 environment
# problems) was scored at its start (1f6bc09: 25/31, no false error) and at that session's end
# (a113bca: 25/31, no false error), and then read.
# The fifteenth (collected blind at the end of that session, 15 logs, 13 environment problems)
# was scored on the commit it was collected against (99e301e: 8/13, no false error) and at the
# end of the next work period (2873029: 8/13, no false error), and then read.
# The sixteenth (collected blind at the start of that next period, 41 logs, 31 environment
# problems) was scored at its start (2c325a8: 27/41 overall, 20/31, no false error) and at that
# period's end (2873029: 26/41 overall, 19/31, no false error), and then read.
# The seventeenth (collected blind at the end of that period, 25 logs, 18 environment problems)
# was scored on the commit it was collected against (e02d3f8: 17/25 overall, 14/18, two false
# errors) and at the end of the next work period (5db0261: the same), and then read.
# The eighteenth (collected blind at the start of that next period by two collectors, 44 logs,
# 33 environment problems) was scored at its start (d50e0f2, the commit before the period's
# first change: 31/44 overall, 23/33, no false error) and at that period's end (5db0261: the
# same), and then read.
# The nineteenth (collected blind at the end of that period, 21 logs, 15 environment problems)
# was scored on the commit it was collected against (10c5941: 11/21 overall, 8/15, no false
# error) and at the end of the next work period (a693515: 12/21 overall, 9/15, no false error),
# and then read.
# The twentieth (collected blind at the start of that next period by two collectors, 44 logs,
# 32 environment problems) was scored at its start (50c0b66, before the period's first change:
# 20/44 overall, 14/32, no false error) and at that period's end (a693515: 21/44 overall, 15/32,
# no false error), and then read.
# The twenty-first (collected blind at the end of that period, 20 logs, 15 environment problems)
# was scored on the commit it was collected against (346b9bd: 13/20 overall, 9/15, no false
# error) and at the end of the next work period (e21578f: the same), and then read.
# The twenty-second (collected blind at the start of that next period by two collectors split
# by the thread's owner, 44 logs, 32 environment problems) was scored at its start (bbf7cb9:
# 28/44 overall, 21/32, no false error) and at that period's end (e21578f: the same), and then
# read.
# The twenty-third (collected blind at the start of the next period by two collectors, 46 logs,
# 32 environment problems) was scored at its start (9f77c24: 21/46 overall, 15/32, one false
# error) and at that period's end (64ab9b6: the same), and then read.
# The twenty-fourth (collected blind at the start of the next period by two collectors split by
# the thread's owner, 45 logs, 33 environment problems) was scored at its start (c853c90, before
# the period's first change: 30/45 overall, 25/33, no false error) and at that period's end
# (bcda011: the same), and then read.
HOLDOUTS = tuple(
    Path(__file__).resolve().parent / name
    for name in (
        "corpus-holdout",
        "corpus-holdout-2",
        "corpus-holdout-3",
        "corpus-holdout-4",
        "corpus-holdout-5",
        "corpus-holdout-6",
        "corpus-holdout-7",
        "corpus-holdout-8",
        "corpus-holdout-9",
        "corpus-holdout-10",
        "corpus-holdout-11",
        "corpus-holdout-12",
        "corpus-holdout-13",
        "corpus-holdout-14",
        "corpus-holdout-15",
        "corpus-holdout-16",
        "corpus-holdout-17",
        "corpus-holdout-18",
        "corpus-holdout-19",
        "corpus-holdout-20",
        "corpus-holdout-21",
        "corpus-holdout-22",
        "corpus-holdout-23",
        "corpus-holdout-24",
    )
)
SEALED: tuple[Path, ...] = ()
FIELDS = {"log", "url", "where", "framework", "class", "environment", "established", "expect"}


@dataclass(frozen=True)
class Case:
    topic: str  # the folder
    log: Path
    url: str
    where: str
    framework: str
    failure_class: str
    environment: bool
    established: str
    expect: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.topic}/{self.log.stem}"


@dataclass(frozen=True)
class Verdict:
    case: Case
    codes: tuple[str, ...]  # every finding code, in the explanation's order
    errors: tuple[str, ...]  # the codes of error-level findings
    missing: tuple[str, ...]  # expected codes the explanation lacks

    @property
    def false_error(self) -> bool:
        return not self.case.environment and bool(self.errors)

    @property
    def correct(self) -> bool:
        return not self.missing and not self.false_error


def read_table(table: Path) -> list[dict[str, Any]]:
    """The [[case]] entries of one cases.toml."""
    entries: list[dict[str, Any]] = tomllib.loads(table.read_text(encoding="utf-8"))["case"]
    return entries


def tables(root: Path = CORPUS) -> list[Path]:
    """The cases.toml files under `root` (the corpus's topic folders, or the held-out folder)."""
    return sorted(root.glob("*/cases.toml")) + sorted(root.glob("cases.toml"))


# The corpus's training sets (tests/corpus/train-*/): collected blind like the held-out sets,
# then read. Scored apart from the curated topics, as the read held-out sets are: labels of the
# same kind of sample, with its judgement calls and logs that cannot tell their cause.
TRAINING_PREFIX = "train-"


def is_training(case: Case) -> bool:
    return case.topic.startswith(TRAINING_PREFIX)


def cases(root: Path = CORPUS) -> Iterator[Case]:
    for table in tables(root):
        for entry in read_table(table):
            yield Case(
                topic=table.parent.name,
                log=table.parent / entry["log"],
                url=entry["url"],
                where=entry["where"],
                framework=entry["framework"],
                failure_class=entry["class"],
                environment=entry["environment"],
                established=entry["established"],
                # Labels written before issue 20 name TensorFlow's old codes; read as today's.
                expect=tuple(current_code(code) for code in entry["expect"]),
            )


def explain_case(case: Case, matrix: Matrix) -> Explanation:
    """What `envcheck explain` says of a case: the signatures' reading and the doctor's rules
    over the facts the log shows."""
    read = explain_log(read_chunks(str(case.log)), matrix.signatures, matrix, matrix.known_bugs)
    return reason_over_log(read, matrix)


def judge(case: Case, matrix: Matrix) -> Verdict:
    findings = explain_case(case, matrix).findings
    codes = tuple(f.code for f in findings)
    errors = tuple(f.code for f in findings if f.severity is Severity.ERROR)
    return Verdict(case, codes, errors, tuple(c for c in case.expect if c not in codes))
