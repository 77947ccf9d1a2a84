"""The one-pass literal screen (envcheck.explain.presence) may skip tests, never change a verdict.

The reference is the reading without it: the word screen and a literal test per signature, every
gate of the log facts tested. Every line of the public logs and of the signatures' samples is
judged both ways and must judge the same (facts, signatures, groups, alarm); the digits pinned
may only grow (a superset is sound for the memo of digits.py, fewer would not be). The same
lines show that the screen skips work (else these tests would prove nothing). Speed is measured
in bench/explain_logs.py, never here.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
import re
from pathlib import Path
from typing import Any

import pytest

from envcheck.explain import log_facts, matcher
from envcheck.explain.digits import masked
from envcheck.explain.explanation import explain_log
from envcheck.explain.log_facts import LogFactCollector
from envcheck.explain.matcher import Screen, clean_line
from envcheck.explain.presence import Deferred, presence
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.report.explanation import render
from envcheck.report.formats import Format
from tests.test_signatures import _all_samples

TESTS = Path(__file__).resolve().parent
MATRIX = load_matrix(bundled_matrix_dir())
PUBLIC = sorted((TESTS / "logs").rglob("*.log")) + sorted((TESTS / "corpus").rglob("*.log"))
HAS_RE2 = importlib.util.find_spec("re2") is not None
needs_re2 = pytest.mark.skipif(not HAS_RE2, reason="the screen needs google-re2 ('envcheck[fast]')")


# What tf.sysconfig.get_build_info() prints (its keys are gates of the log facts).
BUILD_INFO = (
    "OrderedDict([('cpu_compiler', '/usr/bin/gcc-5'), ('cuda_compute_capabilities', "
    "['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), ('cuda_version', '11.2'), "
    "('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False)])"
)


def _lines() -> list[str]:
    """Every public log line and signature sample, and each gate of the log facts written in a
    line of its own (with a version after it), so that every group of gates is exercised."""
    lines = [line for _, line in _all_samples()]
    for path in PUBLIC:
        lines.extend(path.read_text(encoding="utf-8", errors="replace").splitlines())
    lines.append(BUILD_INFO)
    lines.extend(f"{gate} 12.4.1 (530.30.02)" for gate in log_facts.FACT_GATES)
    cleaned = [clean_line(line) for line in lines]
    return [line for line in cleaned if line]


def _gates_after(lines: int) -> Deferred[log_facts._GateScreen]:
    """The log facts' gate screen, built after `lines` judged lines (0: never)."""
    return Deferred(lines, log_facts._GateScreen.of)


@pytest.fixture
def at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The literal screen and the live gates built on the first line judged."""
    monkeypatch.setattr(matcher, "LITERAL_SCREEN_AFTER", 1)
    monkeypatch.setattr(log_facts, "_LIVE_GATES", _gates_after(1))


def _screens() -> tuple[Screen, Screen]:
    """A screen with the literal screen and one without (the reference)."""
    signatures = MATRIX.signatures
    fast = Screen(*_fields(Screen.of(signatures)))
    plain = Screen(*_fields(Screen.of(signatures)))
    plain._literals.append(Deferred(0, lambda: None))  # never built: the word screen decides
    return fast, plain


def _fields(screen: Screen) -> tuple[Any, ...]:
    return (screen.always, screen.by_word, screen.signatures, screen.followers)


def _reference_held(literals: list[tuple[str, bool]], line: str) -> list[int] | None:
    if not line.isascii():
        return None
    mask = masked(line)
    held = []
    for index, (text, ignore_case) in enumerate(literals):
        wanted = masked(text)
        if (wanted.lower() in mask.lower()) if ignore_case else (wanted in mask):
            held.append(index)
    return held


@needs_re2
def test_the_set_finds_exactly_the_literals_a_mask_holds() -> None:
    rng = random.Random(31)
    alphabet = "aAbB01239.+*?()[]\\^$|{} _-x"
    for _ in range(300):
        literals = [
            ("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4))), rng.random() < 0.3)
            for _ in range(rng.randint(1, 8))
        ]
        finder = presence(literals)
        assert finder is not None
        for _ in range(20):
            line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
            held = finder.held(masked(line))
            assert held is not None
            assert sorted(held) == _reference_held(literals, line), (literals, line)


@needs_re2
def test_a_line_beyond_ascii_is_left_to_the_caller() -> None:
    """Python's case-blind "s" also matches the long s (U+017F): only ASCII is answered."""
    finder = presence([("status", True)])
    assert finder is not None
    assert finder.held(masked("CUDNN_STATUS_NOT_INITIALIZED")) == [0]
    assert finder.held(masked("CUDNN_\u017fTATUS")) is None


def test_without_google_re2_there_is_no_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def without_re2(name: str, *args: Any) -> Any:
        if name == "re2":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", without_re2)
    assert presence([("libcudnn", False)]) is None
    monkeypatch.setattr(log_facts, "_LIVE_GATES", _gates_after(1))
    assert log_facts.live_gates(masked("Could not load libcudnn.so.8")) is None
    assert matcher._ByLiteral.of(MATRIX.signatures) is None
    # ... and explain reads as it does with the screen.
    log = (TESTS / "logs").rglob("*.log")
    data = next(log).read_bytes()
    without = render(_explain(data), Format.JSON)
    monkeypatch.undo()
    assert render(_explain(data), Format.JSON) == without


def _explain(data: bytes) -> Any:
    matcher_screens = matcher._SCREENS.copy()
    matcher._SCREENS.clear()  # a fresh Screen builds its literal screen under the patch
    try:
        return explain_log([data], MATRIX.signatures, MATRIX, MATRIX.known_bugs)
    finally:
        matcher._SCREENS.clear()
        matcher._SCREENS.update(matcher_screens)


@needs_re2
@pytest.mark.usefixtures("at_once")
def test_signatures_are_judged_as_the_word_screen_judges_them() -> None:
    fast, plain = _screens()
    by_literal = matcher._ByLiteral.of(MATRIX.signatures)
    assert by_literal is not None
    fewer = 0
    for line in _lines():
        found, pins = fast.judge(line)
        reference, reference_pins = plain.judge(line)
        assert found == reference, line
        assert set(reference_pins) <= set(pins), line
        held = by_literal.candidates(masked(line))
        if held is not None and len(held) < len(plain.candidate_indexes(line)):
            fewer += 1
    assert fewer > 1000  # the screen left candidates untested


@needs_re2
@pytest.mark.usefixtures("at_once")
def test_a_signature_without_literals_is_always_a_candidate() -> None:
    signatures = list(MATRIX.signatures[:3])
    bare = dataclasses.replace(signatures[0], pattern=re.compile(r"(?P<number>\d+)\s+\w+"))
    screen = Screen.of([*signatures, bare])
    by_literal = matcher._ByLiteral.of(screen.signatures)
    assert by_literal is not None
    assert by_literal.candidates(masked("12 words")) == [3]
    found, _ = screen.judge("12 words")
    assert [index for index, _ in found] == [3]
    # ... also beside a line that holds another signature's literals.
    sample = next(line for sid, line in _all_samples() if sid == signatures[0].id)
    found, _ = screen.judge(f"{sample} 12 words")
    assert [index for index, _ in found] == [0, 3]


@needs_re2
def test_every_bundled_signature_is_screened_by_a_required_literal() -> None:
    # A row without a required literal holding a word of four letters is searched on every
    # line the screen passes, whatever it holds: two mined rows keyed on bare hex status codes
    # (0xc0000135) once cost about 13 microseconds a line each on a log of distinct lines,
    # more than the rest of the screen (bench/explain_logs.py measures the speed).
    screen = Screen.of(MATRIX.signatures)
    by_literal = matcher._ByLiteral.of(screen.signatures)
    assert by_literal is not None
    assert [screen.signatures[i].id for i in sorted(by_literal._always)] == []


@needs_re2
@pytest.mark.usefixtures("at_once")
def test_log_facts_are_judged_as_with_every_gate_tested(monkeypatch: pytest.MonkeyPatch) -> None:
    collector = LogFactCollector(MATRIX)
    lines = _lines()
    fast = [collector.judge(line) for line in lines]
    skipped = sum(
        len(log_facts.live_gates(masked(line)) or ()) < 5 for line in lines if line.isascii()
    )
    monkeypatch.setattr(log_facts, "_LIVE_GATES", _gates_after(0))  # every group is tested
    assert [collector.judge(line) for line in lines] == fast
    assert skipped > 1000  # most lines leave most groups of gates untested


@needs_re2
@pytest.mark.parametrize("after", [1, 64, 10**9])
def test_a_log_reads_the_same_whenever_the_screens_are_built(
    after: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built at once, after 64 lines (mid-log: a mask's remembered verdict then pins other
    digits, and is judged again) or never: the same explanation, in both formats."""
    data = b"".join(path.read_bytes().rstrip(b"\n") + b"\n" for path in PUBLIC[::3]) * 3
    outputs = []
    for built_after in (10**9, after):  # the reference: never built
        monkeypatch.setattr(matcher, "LITERAL_SCREEN_AFTER", built_after)
        monkeypatch.setattr(log_facts, "_LIVE_GATES", _gates_after(built_after))
        outputs.append(_outputs(data))
    assert outputs[1] == outputs[0]


def _outputs(data: bytes) -> tuple[str, str]:
    explanation = _explain(data)
    return render(explanation, Format.TEXT), render(explanation, Format.JSON)


def test_a_deferred_screen_is_built_once_on_its_nth_call_and_never_with_zero() -> None:
    built: list[int] = []

    def build() -> int:
        built.append(1)
        return len(built)

    later = Deferred(3, build)
    assert [later.get(), later.get(), later.get(), later.get()] == [None, None, 1, 1]
    assert built == [1]
    never = Deferred(0, build)
    assert [never.get(), never.get()] == [None, None]
    assert built == [1]


def test_the_word_screen_picks_every_signature_for_its_samples_and_glued_variants() -> None:
    # The word screen keys each signature by a whole word of its required literal. A literal's
    # edge can sit inside a line's word: "ExecutionProvider." follows (CUDA|TensorRT), so the
    # line holds "CUDAExecutionProvider." and a key "executionprovider" missed the real line
    # (ONNX Runtime's provider row matched only where the docs URL came with it).
    screen = Screen.of(MATRIX.signatures)
    index = {signature.id: i for i, signature in enumerate(screen.signatures)}
    checked = 0
    for signature_id, line in _all_samples():
        if signature_id not in index or screen.signatures[index[signature_id]].follows:
            continue
        text = clean_line(line)
        if not screen.signatures[index[signature_id]].pattern.search(text):
            continue
        assert index[signature_id] in screen.candidate_indexes(text), (signature_id, line)
        checked += 1
    assert checked > 400
    # Every required literal glued to letters on both sides (as a prefix group or a word run
    # on would leave it) still picks its signature: keys are words bounded inside the literal.
    for i, signature in enumerate(screen.signatures):
        if signature.follows or i in screen.always:
            continue
        for literal in matcher.required_literals(signature.pattern) or ():
            assert i in screen.candidate_indexes(f"x Zq{literal}Qz x"), (signature.id, literal)
