"""Repeated lines read once (issue 22, item 3): explain remembers a line's verdict by its mask
(envcheck.explain.digits) and passes over runs that repeat the run before
(envcheck.explain.cycles). Neither may change what explain says.

The reference is the plain reading: every line judged afresh (no verdict remembered) and every
line read (nothing passed over). Logs built to repeat, with digits changed here and there
(a timestamp, a library's version, a pinned value), lines dropped or added, carriage returns
and colour codes, are explained both ways and with both scan engines, and must read the same;
the same logs also show that the shortcuts were taken (else these tests would prove nothing).
Speed is measured in bench/explain_logs.py, never here.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from envcheck.explain import cycles as cycles_module
from envcheck.explain import explanation as explain_module
from envcheck.explain.digits import MASK, DigitReader, digit_blind, masked, relaxed
from envcheck.explain.explanation import Explanation, _Reading, explain_log
from envcheck.explain.log_facts import PATTERNS as FACT_PATTERNS
from envcheck.explain.matcher import CLEANING_PATTERNS, clean_line
from envcheck.explain.triggers import Trigger, folded_scan, re2_scan
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.report.explanation import render
from envcheck.report.formats import Format
from tests.test_explain_scanner import _bundled_triggers
from tests.test_signatures import _all_samples

TESTS = Path(__file__).resolve().parent
MATRIX = load_matrix(bundled_matrix_dir())
PUBLIC = sorted((TESTS / "logs").rglob("*.log")) + sorted((TESTS / "corpus").rglob("*.log"))
DSO = (
    "{stamp}: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully "
    "opened dynamic library {library}"
)
CREATED = (
    "{stamp}: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1406] Created TensorFlow device "
    "(/job:localhost/replica:0/task:0/device:GPU:0 with 9613 MB memory) -> physical GPU (device: "
    "0, name: GeForce RTX 2080 Ti, pci bus id: 0000:01:00.0, compute capability: 7.5)"
)


def _stamp(n: int) -> str:
    return f"2021-01-20 10:{n // 60_000 % 60:02d}:{n // 1000 % 60:02d}.{n % 1_000_000:06d}"


def _outputs(explanation: Explanation) -> tuple[str, str]:
    return render(explanation, Format.TEXT), render(explanation, Format.JSON)


class _Counting(cycles_module.Cycles):
    """Cycles that count the lines they pass over."""

    passed = 0

    def _pass(self, scanner, before, now, cycles, begin):  # type: ignore[no-untyped-def]
        _Counting.passed += (now.lines - before.lines) * cycles
        return super()._pass(scanner, before, now, cycles, begin)


def _forgetting(self: object, mask: object, text: str) -> None:  # noqa: ARG001
    return None


@contextmanager
def _plain_reading(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Within it, explain judges every line afresh (its memo forgets at once)."""
    with monkeypatch.context() as patched:
        patched.setattr(explain_module._Memo, "get", _forgetting)
        yield


def _explain(data: bytes, passing: bool = True, chunk: int = 1 << 20) -> Explanation:
    chunks = [data[i : i + chunk] for i in range(0, len(data), chunk)] or [b""]
    return explain_log(chunks, MATRIX.signatures, MATRIX, MATRIX.known_bugs, passing=passing)


def _both_ways(data: bytes, monkeypatch: pytest.MonkeyPatch, chunk: int = 1 << 20) -> None:
    fast = _outputs(_explain(data, chunk=chunk))
    with _plain_reading(monkeypatch):
        plain = _outputs(_explain(data, passing=False, chunk=chunk))
    assert fast == plain


def _engines() -> list[str]:
    return ["re2", "stdlib"] if re2_scan([Trigger("x y z")]) is not None else ["stdlib"]


@pytest.fixture(params=_engines())
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each scan engine in turn (RE2 where google-re2 is installed)."""
    monkeypatch.setattr(explain_module, "_SCANS", {})
    if request.param == "stdlib":
        monkeypatch.setattr(explain_module, "combined", folded_scan)
    monkeypatch.setattr(explain_module, "Cycles", _Counting)
    _Counting.passed = 0
    return str(request.param)


def _digit_changed(line: bytes, rng: random.Random) -> bytes:
    digits = [i for i, byte in enumerate(line) if 0x30 <= byte <= 0x39]
    if not digits:
        return line
    at = rng.choice(digits)
    return line[:at] + bytes([0x30 + (line[at] - 0x2F) % 10]) + line[at + 1 :]


def _repeated(data: bytes, times: int, rng: random.Random, changes: float) -> bytes:
    """`data` pasted `times` over, each line's digits changed with probability `changes`, and
    as many lines dropped and as many doubled."""
    lines = data.rstrip(b"\n").split(b"\n")
    out = []
    for _ in range(times):
        for line in lines:
            roll = rng.random()
            if roll < changes:
                continue
            out.append(_digit_changed(line, rng) if roll < 2 * changes else line)
            if roll > 1 - changes:
                out.append(line)
    return b"\n".join(out) + b"\n"


def test_repeated_public_logs_read_as_every_line_read_afresh(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(22)
    for path in rng.sample(PUBLIC, 24):
        data = path.read_bytes()
        for changes in (0.0, 0.002, 0.02):
            chunk = rng.choice((4096, 1 << 20))
            _both_ways(_repeated(data, 120, rng, changes), monkeypatch, chunk)
    assert _Counting.passed > 8000, engine  # the runs were passed over


def test_forgetting_the_visits_of_a_region_reads_as_every_line_read_afresh(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A region of more distinct lines than the visits kept (cycles.VISITS_KEPT) forgets them,
    with the pins and steps they index, and finds its cycles again."""
    rng = random.Random(26)
    two = [
        f"{DSO}\n{CREATED}".format(stamp=_stamp(n), library="libcudart.so.11.0") for n in range(500)
    ]
    for kept in (2, 3, 8):
        # (2: the visits fill up just as the cycle comes round again.)
        monkeypatch.setattr(cycles_module, "VISITS_KEPT", kept)
        _both_ways(("\n".join(two) + "\n").encode(), monkeypatch)
        for path in rng.sample(PUBLIC, 4):
            _both_ways(_repeated(path.read_bytes(), 80, rng, 0.002), monkeypatch)
    assert _Counting.passed > 500, engine


def test_a_restarted_run_with_its_numbers_changing_reads_as_every_line_read_afresh(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TensorFlow INFO lines in turn, with timestamps, and now and then another library version
    (a pinned digit: the library's CUDA is a fact), an unknown library, a line with a carriage
    return, one with colour codes, and a GPU of another name."""
    rng = random.Random(23)
    lines = []
    for n in range(6000):
        library = "libcudart.so.11.0"
        roll = rng.random()
        if roll < 0.002:
            library = "libcudart.so.10.1"
        elif roll < 0.004:
            library = f"libcudart.so.{n}"
        lines.append(DSO.format(stamp=_stamp(n), library=library))
        created = CREATED.format(stamp=_stamp(n))
        if roll > 0.998:
            created = created.replace("2080", "3090")
        elif roll > 0.996:
            created = "\x1b[33m" + created + "\x1b[0m"
        elif roll > 0.994:
            created = "progress 10%\rprogress 20%\r" + created
        lines.append(created)
    data = ("\n".join(lines) + "\n").encode()
    _both_ways(data, monkeypatch)
    assert _Counting.passed > 6000, engine
    explanation = _explain(data)
    assert {"libcudart.so.11.0", "libcudart.so.10.1"} <= set(explanation.facts.libraries)
    assert set(explanation.facts.gpus) == {"GeForce RTX 2080 Ti", "GeForce RTX 3090 Ti"}


def test_a_varying_digit_turned_into_another_byte_is_read(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A place whose digit varies from cycle to cycle must hold a digit in every cycle passed
    over: a line break there (a line split in two) or a letter is read, not passed over."""
    lines = []
    for n in range(3000):
        stamp = _stamp(n)
        if n % 397 == 200:
            stamp = stamp[:-1] + ("\n" if n % 2 else "x")
        lines.append(DSO.format(stamp=stamp, library="libcudart.so.11.0"))
        lines.append(CREATED.format(stamp=_stamp(n)))
    data = ("\n".join(lines) + "\n").encode()
    _both_ways(data, monkeypatch)
    assert _Counting.passed > 3000, engine
    assert _explain(data).lines_read == data.count(b"\n")


def test_a_repeated_line_is_judged_once(monkeypatch: pytest.MonkeyPatch) -> None:
    judged = []
    judge = _Reading._judge

    def counting(self: _Reading, text: str, mask: bytes) -> object:
        judged.append(text)
        return judge(self, text, mask)

    monkeypatch.setattr(_Reading, "_judge", counting)
    lines = [DSO.format(stamp=_stamp(n), library="libcudart.so.11.0") for n in range(3000)]
    explanation = _explain(("\n".join(lines) + "\n").encode(), passing=False)
    assert len(judged) == 1  # 3,000 lines of one mask and one library: one judgement
    assert explanation.facts.frameworks == {"tensorflow": 3000}
    judged.clear()
    # Another version is another library: its digits are pinned, so it is judged on its own.
    lines.append(DSO.format(stamp=_stamp(5), library="libcudart.so.10.1"))
    explanation = _explain(("\n".join(lines) + "\n").encode(), passing=False)
    assert len(judged) == 2 and set(explanation.facts.libraries) == {
        "libcudart.so.11.0",
        "libcudart.so.10.1",
    }


def test_what_is_remembered_stays_bounded_on_distinct_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(explain_module, "MASKS_KEPT", 64)
    reading = _Reading(MATRIX.signatures, MATRIX)
    words = ("".join(chr(97 + (n >> shift) % 26) for shift in (0, 5, 10)) for n in range(1000))
    for number, word in enumerate(words, start=1):
        reading.line(number, f"error: the library lib{word}x.so failed to load")
    assert 0 < len(reading._lines._shapes) <= 64


# --- digits ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "blind"),
    [
        (r"Loaded cuDNN version (?P<cudnn>\d+)", True),
        (r"libcudart\.so\.[\d.]+|[^']+\.dll", True),
        (r"(?<![\w.+-])[\w.+-]+\.(?:so(?:\.\d+)+|dll)", True),
        (r"\[(?:WinError|Error) 193\]", False),
        (r"tensorflow[ =_-]v?(?P<version>[12]\.\d{1,2})", False),
        (r"(\d)\1", False),
        (r"[^1]x", False),
    ],
)
def test_a_pattern_is_digit_blind_when_it_treats_every_digit_alike(
    source: str, blind: bool
) -> None:
    assert digit_blind(re.compile(source)) is blind


def _bundled_patterns() -> list[re.Pattern[str]]:
    patterns = [*FACT_PATTERNS, *CLEANING_PATTERNS]
    for signature in MATRIX.signatures:
        patterns.append(signature.pattern)
        patterns.extend(regex for _, regex, _ in signature.code_when)
    return patterns


def _sample_lines() -> list[str]:
    lines = [line for _, line in _all_samples()]
    for path in PUBLIC[::2]:
        lines.extend(path.read_text(encoding="utf-8", errors="replace").splitlines())
    return [clean_line(line) for line in lines if line.strip()]


def _variants(line: str, rng: random.Random, count: int) -> Iterator[str]:
    """`line` with its digits changed at random (same mask)."""
    places = [i for i, c in enumerate(line) if "0" <= c <= "9"]
    for _ in range(count if places else 0):
        chars = list(line)
        for place in rng.sample(places, rng.randint(1, len(places))):
            chars[place] = rng.choice("0123456789")
        yield "".join(chars)


def test_a_relaxed_pattern_matches_wherever_a_line_of_the_mask_could_match() -> None:
    rng = random.Random(24)
    lines = _sample_lines()
    relaxed_count = 0
    for pattern in _bundled_patterns():
        if digit_blind(pattern):
            continue
        wider = relaxed(pattern)
        if wider is None:
            continue  # (every digit of a line it is tried on is pinned)
        relaxed_count += 1
        for line in lines:
            if wider.search(line) is None:
                for variant in _variants(line, rng, 5):
                    assert pattern.search(variant) is None, (pattern.pattern, variant)
    assert relaxed_count > 30


def test_a_verdict_holds_for_every_line_of_its_mask_and_pinned_digits() -> None:
    """The memo's soundness, line by line: judge a line, change the digits it did not pin, and
    the new line judges the same (same facts, same signatures at the same places, same pins)."""
    rng = random.Random(25)
    reading = _Reading(MATRIX.signatures, MATRIX)
    checked = 0
    for line in _sample_lines():
        first = reading._judge(line, masked(line))
        shape = reading._lines._shapes[masked(line)]
        pinned = set(shape.pins)
        for changed in _variants(line, rng, 3):
            # Put the pinned digits back: only the others vary.
            variant = "".join(line[i] if i in pinned else c for i, c in enumerate(changed))
            again = _Reading(MATRIX.signatures, MATRIX)._judge(variant, masked(variant))
            assert again.facts == first.facts, (line, variant)
            assert again.hits == first.hits, (line, variant)
            assert again.alarm == first.alarm
            checked += 1
    assert checked > 1000


def test_a_digit_reader_pins_every_digit_only_where_the_relaxed_pattern_matches() -> None:
    reader = DigitReader(re.compile(r"\[WinError 193\]"))
    assert not reader.blind
    assert reader.pins("error 12 here") == []
    assert reader.pins("OSError: [WinError 126] x 5") == [19, 20, 21, 26]


# --- the standard library's engine ----------------------------------------------------------


def test_the_folded_engine_searches_a_buffer_without_folded_triggers_once() -> None:
    """Where only plain texts are written ("TensorFlow" is one: every character of it starts
    some piece), each call searched the folded pieces again to the end of the buffer:
    quadratic in its lines."""
    folded = folded_scan(_bundled_triggers())
    assert any(text.startswith(b"TensorFlow") for text in folded.plain)
    data = b"".join(b"x TensorFlow %d\n" % n for n in range(2000))
    searches = []
    search = folded._search

    def counting(prepared: bytes, data: bytes, start: int, stop: int) -> tuple[int, int, int]:
        searches.append(start)
        return search(prepared, data, start, stop)

    object.__setattr__(folded, "_search", counting)
    prepared = folded.prepare(data, 0, len(data))
    position, found = 0, 0
    while (at := folded.next(prepared, data, position, len(data))) != -1:
        found += 1
        position = data.find(b"\n", at) + 1
    assert found == 2000
    assert len(searches) == 1  # no folded piece to the end of the buffer, and it is remembered


def _stretches(cycle: bytes, count: int, rng: random.Random) -> bytes:
    """`count` copies of `cycle`, digits changed at random, now and then another byte."""
    out = bytearray(cycle * count)
    digits = [i for i, byte in enumerate(out) if 0x30 <= byte <= 0x39]
    for at in rng.sample(digits, min(len(digits), rng.randrange(1, 40))):
        out[at] = rng.choice(b"0123456789")
    if rng.random() < 0.5:
        out[rng.randrange(len(out))] = rng.choice(b"x09 \n")
    return bytes(out)


def test_a_run_told_which_digits_varied_before_reads_as_one_that_finds_them() -> None:
    """A run of cycles may start with the digit places an earlier run of the same cycle found
    varying (cycles.Cycles remembers them): how many stretches read like the cycle must not
    change, whichever of the cycle's digit places it is told, pinned ones among them."""
    rng = random.Random(22)
    cycle = (
        b"2021-01-20 10:00:07.000123: I tensorflow/core/x.cc:53] step 12 of 1875\n"
        b"Epoch 3/200 - loss: 0.2961 - libcudart.so.11.0\n"
    )
    mask = cycle.translate(MASK)
    digit_places = [i for i, byte in enumerate(mask) if byte == 0x30]
    outcomes = set()
    for _ in range(400):
        pinned = {at: cycle[at] for at in rng.sample(digit_places, 3)}
        next_cycle = _stretches(cycle, 1, rng)
        if next_cycle.translate(MASK) != mask or any(
            next_cycle[at] != digit for at, digit in pinned.items()
        ):
            continue  # (a run starts only where the next cycle reads like the first)
        count = rng.randrange(1, 12)
        buffer = b"head\n" + _stretches(cycle, count, rng)
        told = rng.sample(digit_places, rng.randrange(len(digit_places)))
        finding = cycles_module._Run(cycle, mask, pinned, next_cycle)
        knowing = cycles_module._Run(cycle, mask, pinned, next_cycle, told)
        good = finding.matching(buffer, 5, count)
        assert knowing.matching(buffer, 5, count) == good
        outcomes.add(good == count)
    assert outcomes == {True, False}  # (both runs that hold and runs that break were tried)
