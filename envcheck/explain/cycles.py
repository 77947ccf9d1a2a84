"""Pass over the runs of a log that repeat the run just read, counting what they would add.

A verbose or restarted run prints the same lines again and again with other timestamps:
TensorFlow's start-up block after every restart, two INFO lines in turn, a warning per step.
Reading each such line in Python, even remembered (explain._Memo), costs far more than the
bare loop over the log's lines issue 22 measures against. So when the scanner comes back to a
line of the same mask (digits.masked) as one it stood at before, with the reading in the same
state but for its counts, the lines between were a *cycle* that changed nothing but counts. The
lines that follow are compared with that cycle in C, a cycle's length at a time: their masks
must be the same bytes, and so must every digit the cycle's reading hung on (its *pins*: the
digits its patterns read, digits.py, and those of any trigger text that holds a digit). Each
cycle that passes would be read exactly like the one before (the reading is a function of the
masks, the pinned digits and the state, and the state came back to itself), so it is passed
over: its lines are counted, and the counts it added (lines showing a framework, hits of a
signature beyond those kept) are added once more.

Nothing is passed over while a `follows` row waits for its line, where a line's digits could
not be placed (its text is not its bytes: colour codes taken out), across a region's start or
over a carriage return or a line longer than the scanner keeps whole.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from envcheck.explain.digits import MASK
from envcheck.explain.matcher import clean_line
from envcheck.explain.scanner import MAX_LINE, ChunkScanner, _ends, decode

if TYPE_CHECKING:
    from envcheck.explain.matcher import Followers

# The longest cycle looked for (a restarted run's start-up block is a few kB; this leaves room
# for a pasted log of a few hundred lines), and how many visits are remembered per region.
MAX_CYCLE = 1 << 20
VISITS_KEPT = 8192


class Reading(Protocol):
    """What cycles need of explain's reading of a log."""

    steps: list[tuple[str, str]]
    pins_here: list[int] | tuple[int, ...]
    pins_before: list[int]
    text: str
    followers: Followers

    @property
    def changes(self) -> int: ...

    @property
    def pending(self) -> tuple[int, str, bytes] | None: ...

    def set_pending(self, number: int, text: str) -> None: ...

    def count(self, step: tuple[str, str], times: int) -> None: ...


@dataclass(frozen=True)
class _Visit:
    position: int  # where the line starts in the region's buffer
    lines: int  # lines before it
    state: tuple[int, ...]  # the reading's and the scanner's state but for counts
    pins: int  # len(Cycles._pins) then
    steps: int  # len(reading.steps) then


class Cycles:
    """The scanner's Passer (scanner.ChunkScanner): see the module docstring. `read` is told of
    every line the reading took, after it took it."""

    def __init__(self, reading: Reading, digit_texts: tuple[bytes, ...]) -> None:
        self._reading = reading
        # Trigger texts that hold a digit, masked: whether a line holds one hangs on digits.
        self._digit_texts = tuple(text.translate(MASK) for text in digit_texts)
        self._buffer = b""
        self._begin = 0
        self._masked = b""  # the mask of buffer[begin:], as far as it was needed
        self._visits: dict[bytes, _Visit] = {}
        self._pins: list[int] = []  # places in the buffer of the digits the reading hung on
        self._blind = 0  # lines read whose pinned digits could not be placed in the buffer
        self._last: tuple[int, str] = (-1, "")  # where the last line read starts, its text

    def read(self, scanner: ChunkScanner) -> None:
        """The reading has taken the line the scanner yielded last: place its pins."""
        reading = self._reading
        here = (scanner.where if scanner.buffer is self._buffer else -1, reading.text)
        for (where, text), pins in ((self._last, reading.pins_before), (here, reading.pins_here)):
            if not pins:
                continue
            placed = self._placed(where, text, pins)
            if placed is None:
                self._blind += 1
            else:
                self._pins += placed
        self._last = here

    def _placed(self, where: int, text: str, pins: list[int] | tuple[int, ...]) -> list[int] | None:
        """The places in the buffer of the characters at `pins` of `text`, which starts at
        `where`; None unless the text is the buffer's bytes there."""
        if where < 0:
            return None
        encoded = text.encode("utf-8", "surrogatepass")
        if not self._buffer.startswith(encoded, where):
            return None
        if len(encoded) == len(text):
            return [where + pin for pin in pins]
        return [where + len(text[:pin].encode("utf-8", "surrogatepass")) for pin in pins]

    def pass_over(
        self, scanner: ChunkScanner, buffer: bytes, begin: int, stop: int, position: int
    ) -> int:
        if buffer is not self._buffer:
            self._start(buffer, begin)
        reading = self._reading
        if reading.followers.waiting or not scanner.saw_text:
            return position
        end = buffer.find(b"\n", position, stop)
        if end == -1:
            return position
        key = buffer[position:end].translate(MASK)
        pending = reading.pending
        state = (
            reading.changes,
            self._blind,
            scanner.yielded_last,
            scanner.wanted_after,
            pending is not None and pending[0] == scanner.lines,
        )
        before = self._visits.get(key)
        if len(self._visits) >= VISITS_KEPT:
            self._forget()
        visit = _Visit(position, scanner.lines, state, len(self._pins), len(reading.steps))
        self._visits[key] = visit
        if before is None or before.state != state:
            return position
        cycles = self._cycles(before, visit, begin, stop)
        if cycles == 0:
            return position
        return self._pass(scanner, before, visit, cycles, begin)

    def _cycles(self, before: _Visit, now: _Visit, begin: int, stop: int) -> int:
        """How many cycles like buffer[before.position:now.position] follow now.position."""
        start, position = before.position, now.position
        period = position - start
        if start <= begin or now.lines <= before.lines or period > MAX_CYCLE:
            return 0
        buffer = self._buffer
        # The window: the cycle and the line before it, which a join reads with its first.
        window = buffer.rfind(b"\n", begin, start - 1) + 1 or begin
        if buffer.find(b"\r", window, position) != -1 or not self._short(window, position):
            return 0
        most = (stop - position) // period
        if most == 0:
            return 0
        mismatch = self._periodic_until(window, period, position + (most - 1) * period)
        cycles = min(most, (mismatch + period - position) // period)
        if cycles <= 0:
            return 0
        pins = self._pins[before.pins :] + self._trigger_digits(window, position)
        for pin in pins:
            if cycles <= 0 or pin < window:
                return 0
            # Every cycle's digit at this place: a strided copy, compared in C.
            same = buffer[pin + period : pin + cycles * period + 1 : period]
            cycles = min(cycles, len(same) - len(same.lstrip(buffer[pin : pin + 1])))
        return max(cycles, 0)

    def _short(self, start: int, end: int) -> bool:
        """Whether every line of buffer[start:end] is read whole (scanner.MAX_LINE)."""
        if end - start <= MAX_LINE:
            return True
        return max(map(len, self._buffer[start:end].split(b"\n"))) <= MAX_LINE

    def _mask_to(self, end: int) -> None:
        """Mask the buffer up to `end`: a stretch at first (most attempts fail within a cycle),
        then the rest of the region at once (growing it piece by piece copied it again)."""
        covered = self._begin + len(self._masked)
        if end > covered:
            if covered == self._begin:
                end = min(max(end, covered + (1 << 16)), len(self._buffer))
                self._masked = self._buffer[covered:end].translate(MASK)
            else:
                self._masked = self._buffer[self._begin :].translate(MASK)

    def _periodic_until(self, start: int, period: int, limit: int) -> int:
        """The first place x in [start, limit) whose masked byte differs from the one a period
        on (limit: none), found by comparing doubling stretches, then halving the one that
        differs: each byte is compared a few times at most."""
        low, step, masked, origin = start, period, self._masked, self._begin
        while low < limit:
            high = min(low + step, limit)
            self._mask_to(high + period)
            masked = self._masked
            if (
                masked[low - origin : high - origin]
                == masked[low + period - origin : high + period - origin]
            ):
                low, step = high, step * 2
                continue
            while high - low > 1:
                middle = (low + high) // 2
                if (
                    masked[low - origin : middle - origin]
                    == masked[low + period - origin : middle + period - origin]
                ):
                    low = middle
                else:
                    high = middle
            return low
        return limit

    def _trigger_digits(self, start: int, end: int) -> list[int]:
        """The places of the digits of every trigger text with a digit in buffer[start:end]
        (masked: whether a line holds such a text hangs on those digits)."""
        if not self._digit_texts:
            return []
        self._mask_to(end)
        masked, origin, places = self._masked, self._begin, []
        for text in self._digit_texts:
            at = masked.find(text, start - origin, end - origin)
            while at != -1:
                places += [origin + at + i for i, byte in enumerate(text) if byte == 0x30]
                at = masked.find(text, at + 1, end - origin)
        return places

    def _pass(
        self, scanner: ChunkScanner, before: _Visit, now: _Visit, cycles: int, begin: int
    ) -> int:
        """Pass over `cycles` cycles from now.position: count their lines and what they add."""
        reading = self._reading
        for step, times in Counter(reading.steps[before.steps : now.steps]).items():
            reading.count(step, times * cycles)
        _, _, yielded, through, pending = now.state
        scanner.passed_over((now.lines - before.lines) * cycles, bool(yielded), through)
        position = now.position + (now.position - before.position) * cycles
        if pending:
            # The last line passed over is the unexplained line the next may finish.
            start = self._buffer.rfind(b"\n", begin, position - 1) + 1 or begin
            text = clean_line(decode(_ends(self._buffer[start : position - 1])))
            reading.set_pending(scanner.lines, text)
            self._last = (start, text)
        self._forget()
        return position

    def _start(self, buffer: bytes, begin: int) -> None:
        self._buffer, self._begin, self._masked = buffer, begin, b""
        self._last = (-1, self._last[1])
        self._forget()

    def _forget(self) -> None:
        """Drop what was seen so far (a new region, a cycle passed over, too many visits)."""
        self._visits.clear()
        self._pins.clear()
        self._reading.steps.clear()
