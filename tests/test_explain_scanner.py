"""The big-log scan (envcheck.explain.scanner and .triggers): it yields exactly the lines that
hold a trigger text (each with the line before it), numbered as `grep -n` does, whatever the
chunking; both engines (RE2 and the
standard library's) pick the same lines; no line a signature matches is ever skipped; an endless
line costs bounded memory.

The reference is a plain Python reading of the same bytes (split at LF, parts at lone CR, test
each for the trigger texts), checked on every public log of tests/logs and tests/corpus and on
random text.
"""

from __future__ import annotations

import importlib.util
import random
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from envcheck.explain.explanation import scan_triggers
from envcheck.explain.matcher import clean_line
from envcheck.explain.scanner import MAX_LINE, ChunkScanner
from envcheck.explain.triggers import (
    Trigger,
    TriggerScan,
    cut,
    folded_scan,
    outermost,
    re2_scan,
    written_forms,
)
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix

TESTS = Path(__file__).resolve().parent
LOGS = sorted((TESTS / "logs").rglob("*.log")) + sorted((TESTS / "corpus").rglob("*.log"))
MATRIX = load_matrix(bundled_matrix_dir())
TRIGGERS = [
    Trigger("Could not load dynamic library"),
    Trigger("cannot open shared object file"),
    Trigger("error", ignore_case=True),
    Trigger("CUDA_ERROR_"),
    Trigger("xyz"),
]
HAS_RE2 = importlib.util.find_spec("re2") is not None


def _texts(triggers: list[Trigger]) -> list[bytes]:
    return [text.encode() for trigger in triggers for text in written_forms(trigger)]


def _reference(data: bytes, triggers: list[Trigger]) -> tuple[list[tuple[int, str]], int]:
    """What the scan must yield, read the slow and obvious way."""
    texts = _texts(triggers)
    wanted = []
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    last = 0  # the last line number yielded
    for number, line in enumerate(lines, start=1):
        body = line.removesuffix(b"\r")
        parts = [part for part in body.split(b"\r") if any(text in part for text in texts)]
        if parts and last < number - 1:
            # The line before a triggered one comes too (a message may start there).
            before = lines[number - 2].removesuffix(b"\r")
            wanted.append((number - 1, before.decode("utf-8", errors="replace")))
        for part in parts:
            wanted.append((number, part.decode("utf-8", errors="replace")))
            last = number
    return wanted, len(lines)


def _scan(data: bytes, scan: TriggerScan, size: int) -> tuple[list[tuple[int, str]], int]:
    scanner = ChunkScanner(scan, (data[i : i + size] for i in range(0, len(data), size)))
    return list(scanner), scanner.lines


def _engines(triggers: list[Trigger]) -> list[TriggerScan]:
    engines: list[TriggerScan] = [folded_scan(triggers)]
    chosen = re2_scan(triggers)
    if chosen is not None:
        engines.append(chosen)
    return engines


SAMPLES = [
    b"",
    b"no newline at the end",
    b"Could not load dynamic library 'x'\n",
    b"a\r\nCould not load dynamic library 'x'\r\nb\r\n",
    b"progress 1%\rprogress 2%\rERROR: boom\rprogress 3%\nnext line\n",
    b"\n\n\nCUDA_ERROR_NO_DEVICE\n\n",
    b"the word Error, then error, then ERROR and eRRoR\n",
    b"xy" + b"z" * 3 + b"\n" + b"x" * 10 + b"yz\n",
]


@pytest.mark.parametrize("data", SAMPLES)
@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 1 << 20])
def test_the_scan_yields_exactly_the_lines_with_a_trigger(data: bytes, size: int) -> None:
    expected = _reference(data, TRIGGERS)
    for scan in _engines(TRIGGERS):
        assert _scan(data, scan, size) == expected, (type(scan).__name__, size)


def test_random_text_in_random_chunks_agrees_with_the_reference() -> None:
    rng = random.Random(15)
    alphabet = [b"a", b"b", b" ", b"\n", b"\r", b"\r\n", b"x", b"yz", b"Error", b"error",
                b"CUDA_ERROR_", b"Could not load dynamic library", b"\xff", b"\xc3\xa9"]  # fmt: skip
    for _ in range(300):
        data = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
        expected = _reference(data, TRIGGERS)
        for scan in _engines(TRIGGERS):
            assert _scan(data, scan, rng.randrange(1, 50)) == expected, data


@pytest.mark.skipif(
    not HAS_RE2, reason="google-re2 is not installed (pip install 'envcheck[fast]')"
)
def test_both_engines_pick_the_same_lines_of_every_public_log() -> None:
    scan = scan_triggers(MATRIX.signatures)
    assert scan is not None
    triggers = _bundled_triggers()
    folded, re2 = folded_scan(triggers), re2_scan(triggers)
    assert re2 is not None
    for path in LOGS:
        data = path.read_bytes()
        assert _scan(data, folded, 4096) == _scan(data, re2, 1 << 20), path


def _bundled_triggers() -> list[Trigger]:
    """The trigger list scan_triggers builds for the bundled signatures (rebuilt here through
    its parts, so the test can hand the same list to each engine)."""
    from envcheck.explain.explanation import ALARM_TRIGGERS  # noqa: PLC0415
    from envcheck.explain.log_facts import FACT_GATES  # noqa: PLC0415
    from envcheck.explain.triggers import signature_triggers  # noqa: PLC0415

    triggers = [Trigger(word) for word in (*ALARM_TRIGGERS, *FACT_GATES)]
    for signature in MATRIX.signatures:
        if not signature.follows:
            own = signature_triggers(signature)
            assert own is not None, f"{signature.id} requires no literal text"
            triggers.extend(own)
    return triggers


def test_no_line_a_signature_matches_is_skipped_by_the_scan() -> None:
    """Soundness: every line of the public logs that some signature matches holds a trigger."""
    texts = _texts(_bundled_triggers())
    checked = 0
    for path in LOGS:
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            line = clean_line(raw)
            matched = [s.id for s in MATRIX.signatures if not s.follows and s.pattern.search(line)]
            if matched:
                checked += 1
                encoded = line.encode()
                assert any(text in encoded for text in texts), (path.name, matched, line)
    assert checked > 200


def test_a_cut_piece_starts_at_the_rarest_character() -> None:
    assert cut(Trigger("Could not load dynamic library")).text.startswith(("C", "y", "b"))
    piece = cut(Trigger("zlibwapi.dll")).text
    assert piece.startswith("z") and "zlibwapi.dll".startswith(piece)
    assert cut(Trigger("abc")).text == "abc"  # too short to cut


def _endless(total: int, tail: bytes) -> Iterator[bytes]:
    block = b"a" * (1 << 20)
    for _ in range(total // len(block)):
        yield block
    yield tail


def test_an_endless_line_keeps_its_ends_in_bounded_memory() -> None:
    tail = b"Error at the end\nCUDA_ERROR_NO_DEVICE\n"
    tracemalloc.start()
    try:
        scanner = ChunkScanner(folded_scan(TRIGGERS), _endless(64 << 20, tail))
        found = list(scanner)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, peak  # the 64 MB line is never held whole
    assert [number for number, _ in found] == [1, 2]
    first = found[0][1]
    assert first.endswith("Error at the end") and "bytes not read" in first
    assert len(first) <= MAX_LINE + 100
    assert found[1] == (2, "CUDA_ERROR_NO_DEVICE")
    assert scanner.lines == 2


def test_a_long_line_in_a_chunk_is_read_by_its_ends() -> None:
    line = b"Error " + b"x" * (3 * MAX_LINE) + b" the end\n"
    found, count = _scan(line + b"next\n", folded_scan(TRIGGERS), 1 << 22)
    assert count == 2
    assert found[0][0] == 1 and "bytes not read" in found[0][1]
    assert found[0][1].startswith("Error ") and found[0][1].endswith(" the end")


def test_the_standard_library_engine_with_every_bundled_trigger_agrees_with_the_reference() -> None:
    """The folded engine's tricks (rarest pieces, plain texts found by shared prefix, a cache per
    buffer) on the real trigger set, over real log lines shuffled among training-log noise."""
    triggers = _bundled_triggers()
    scan = folded_scan(triggers)
    rng = random.Random(16)
    public = [
        line.encode()
        for path in LOGS
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
    ]
    noise = [
        b"Epoch 3/200",
        b"1875/1875 [==============================] - 4s 2ms/step - loss: 0.2961 - accuracy: 0.9137",
        b"I tensorflow/core/common_runtime/executor.cc:1197] (DEBUG INFO) Executor start aborting",
        b"index = 7",
        b"",
    ]
    for _ in range(20):
        lines = [rng.choice(public if rng.random() < 0.3 else noise) for _ in range(400)]
        data = b"\n".join(lines) + b"\n"
        assert _scan(data, scan, rng.randrange(64, 8192)) == _reference(data, triggers)


@pytest.mark.skipif(
    not HAS_RE2, reason="google-re2 is not installed (pip install 'envcheck[fast]')"
)
def test_the_re2_engine_searching_from_where_the_scanner_stands_agrees_with_the_reference() -> None:
    """RE2 searches from where the scanner stands to the next trigger, line after line: on
    lines dense with triggers (several a line, one running into the next line's) every search
    starts after a line already read, and the lines are counted on from there."""
    scan = re2_scan(TRIGGERS)
    assert scan is not None
    rng = random.Random(17)
    alphabet = [b"a", b" ", b"\n", b"\r", b"\r\n", b"Error", b"error", b"CUDA_ERROR_", b"xyz",
                b"Could not load dynamic library", b"errorxyz"]  # fmt: skip
    for _ in range(300):
        data = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 500)))
        assert _scan(data, scan, rng.randrange(1, 200)) == _reference(data, TRIGGERS)


def test_the_re2_automaton_leaves_out_texts_that_hold_another() -> None:
    # A line holding "CUDA error: " holds "error" too, on the same line: the automaton needs
    # only the outermost texts (the engines' agreement on every public log, above, holds the
    # scan to the same lines).
    texts = [b"error", b"CUDA error: ", b"Error", b"cudnn", b"libcudnn.so", b"a\nerror"]
    assert sorted(outermost(sorted(texts))) == [b"Error", b"a\nerror", b"cudnn", b"error"]
    bundled = _texts(_bundled_triggers())
    kept = outermost(bundled)
    assert len(kept) < 0.8 * len(bundled)
    assert all(not any(o != t and o in t for o in kept) for t in kept[:50])
