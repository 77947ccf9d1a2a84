"""Every pattern `explain` applies to a line takes time linear in the line (issue 24, item 1).

A backtracking regex that runs over the rest of a long line from each place it is tried is
quadratic: one 65 kB line `libcudart.so.aaaa...` took 40 s, a line of 1,150 copies of
PyTorch's "is not compatible with the current PyTorch installation" 43 s. Each signature of the
bundled matrix (with its `code_when` regexes), each log-fact pattern and each line-cleaning
pattern is run here on lines built from its own literals to make it backtrack
(tests/faults/adversarial.py), each as long as the longest line the scanner hands on (MAX_LINE).

Times are CPU seconds of this process, so other work on a loaded machine does not count: a
linear pattern takes milliseconds on a line, a quadratic one seconds to minutes, and a timer
cuts a search off past its budget so a regression fails fast instead of hanging the suite.
"""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from envcheck.explain import explanation as explain_module
from envcheck.explain.explanation import Explanation, explain_log
from envcheck.explain.log_facts import PATTERNS as FACT_PATTERNS
from envcheck.explain.matcher import CLEANING_PATTERNS
from envcheck.explain.scanner import MAX_LINE
from envcheck.explain.triggers import folded_scan
from envcheck.matrix.model import load_matrix
from envcheck.matrix.signatures import Signature
from envcheck.report.explanation import render
from envcheck.report.formats import choose_format
from tests.faults.adversarial import adversarial_lines

ROOT = Path(__file__).resolve().parents[2]
MATRIX = load_matrix(ROOT / "matrix")
SIZE = MAX_LINE
# CPU seconds one search of one such line may take: a linear pattern needs a few milliseconds
# (the slowest about 15), a quadratic one seconds to minutes.
LINE_BUDGET = 0.25


class _LateError(Exception):
    pass


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise _LateError once this process has used `seconds` of CPU time here (the regex engine
    checks for signals as it runs, so a runaway search is stopped, not waited for)."""
    if not hasattr(signal, "setitimer"):  # (Windows: no CPU timer; the time is still checked)
        yield
        return

    def late(signum: int, frame: object) -> None:  # noqa: ARG001
        raise _LateError

    previous = signal.signal(signal.SIGVTALRM, late)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def _slow_line(patterns: Sequence[re.Pattern[str]]) -> str:
    """The first adversarial line one of `patterns` takes over LINE_BUDGET to search, as a
    message ("" when none does)."""
    for pattern in patterns:
        for line in adversarial_lines(pattern, SIZE):
            start = time.process_time()
            try:
                with _deadline(4 * LINE_BUDGET):
                    pattern.search(line)
            except _LateError:
                pass
            took = time.process_time() - start
            if took > LINE_BUDGET:
                return f"{took:.2f} s of CPU for {pattern.pattern!r} on {line[:60]!r}..."
    return ""


@pytest.mark.parametrize("signature", MATRIX.signatures, ids=lambda s: s.id)
def test_every_signature_is_linear_in_the_line(signature: Signature) -> None:
    patterns = [signature.pattern, *(regex for _, regex, _ in signature.code_when)]
    assert _slow_line(patterns) == ""


@pytest.mark.parametrize(
    "pattern",
    [*FACT_PATTERNS, *CLEANING_PATTERNS],
    ids=lambda p: p.pattern[:40],
)
def test_every_log_fact_and_cleaning_pattern_is_linear_in_the_line(
    pattern: re.Pattern[str],
) -> None:
    assert _slow_line([pattern]) == ""


def test_the_generated_lines_expose_a_quadratic_pattern() -> None:
    """The lines are hostile enough: the library-name pattern as it was (no anchor at the
    start of a name) goes over budget on them."""
    assert _slow_line([re.compile(r"[\w.+-]+\.(?:so(?:\.\d+)+|dll)")]) != ""


# The issue's own lines: a 196 kB log of three of them took 2 minutes to explain.
HOSTILE_LOG = (
    "libcudart.so." + "a" * 65_000,
    " is not compatible with the current PyTorch installation " * 1150,
    "/" * 65_000 + "/stubs/libcuda.so",
)


LOG_BUDGET = 10.0  # CPU seconds to explain them (the three lines take a fraction of one)


def _explain(log: bytes) -> tuple[float, Explanation]:
    start = time.process_time()
    with _deadline(LOG_BUDGET):
        explanation = explain_log([log], MATRIX.signatures, MATRIX, MATRIX.known_bugs)
    return time.process_time() - start, explanation


def test_a_log_of_long_hostile_lines_is_explained_in_seconds_by_both_engines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = "".join(line + "\n" for line in HOSTILE_LOG).encode()
    try:
        spent, default = _explain(log)
        # The standard-library scan (the default picks RE2 where it is installed).
        monkeypatch.setattr(explain_module, "_SCANS", {})
        monkeypatch.setattr(explain_module, "combined", folded_scan)
        spent_folded, folded = _explain(log)
    except _LateError:
        pytest.fail(f"explaining {len(log) // 1024} kB of three lines took over {LOG_BUDGET} s")
    assert spent < LOG_BUDGET and spent_folded < LOG_BUDGET
    as_json = choose_format("json", True)
    assert render(default, as_json) == render(folded, as_json)
