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

import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from envcheck.explain.digits import MASK
from envcheck.explain.matcher import clean_line
from envcheck.explain.scanner import MAX_LINE, ChunkScanner, decode, line_ends
from envcheck.record import record

if TYPE_CHECKING:
    from envcheck.explain.matcher import Followers

# The longest cycle looked for (a restarted run's start-up block is a few kB; this leaves room
# for a pasted log of a few hundred lines), and how many visits are remembered per region.
MAX_CYCLE = 1 << 16
VISITS_KEPT = 8192
# Bytes of the first stretch of cycles compared after the first cycle (see Cycles._cycles).
FIRST_STRETCH = 1 << 16
# Cycles (by mask) whose varying digit places are remembered (at most MAX_CYCLE bytes each).
MASKS_OF_CYCLES_KEPT = 16


class _Run:
    """Compares stretches of cycles with a cycle. A cycle's bytes differ from the next's only at
    digits that vary (a timestamp's last digits, a counter): those places are checked down the
    stretches at once (a strided slice, in C: they hold digits), set to the cycle's own digit,
    and the rest is compared with the cycle repeated, byte for byte, as fast as memcmp; a
    digit place found to vary further on (a timestamp's seconds) joins them. Masking every
    byte instead took as long as the bare loop over the lines (issue 22)."""

    def __init__(
        self,
        cycle: bytes,
        mask: bytes,
        pinned: dict[int, int],
        next_cycle: bytes,
        known: Iterable[int] = (),
    ) -> None:
        self._cycle, self._mask, self._pinned = cycle, mask, pinned
        # The digit places that differ between the cycle and the next (which matched it),
        # found in C: the bytes that differ are those of the two XORed that are not zero.
        size = len(cycle)
        xored = (int.from_bytes(cycle, "big") ^ int.from_bytes(next_cycle, "big")).to_bytes(
            size, "big"
        )
        differing = {found.start() for found in _NOT_ZERO.finditer(xored)}
        # And those found to vary in an earlier run of a cycle of this mask, where they may
        # vary here too (a digit, not pinned): each place found in the middle of a stretch
        # costs a comparison more, and a training log's cycles break every 5,000 lines.
        differing.update(at for at in known if mask[at] == 0x30 and at not in pinned)
        self.varying = sorted(differing)

    def matching(self, buffer: bytes, position: int, count: int) -> int:
        """How many of the `count` stretches of the cycle's length from `position` read like
        the cycle: the same bytes but for digits at digit places that are not pinned."""
        cycle = self._cycle
        period = len(cycle)
        stretches = bytearray(memoryview(buffer)[position : position + count * period])
        good = self._settled(stretches, self.varying, count)
        whole = cycle * count
        low = 0
        while good > 0:
            low = _first_difference(stretches, whole, low)
            if low // period >= good:  # (the end, or past the stretches already bad)
                break
            at = low % period
            if self._mask[at] != 0x30 or at in self._pinned:
                good = low // period
                break
            # A digit that varies further on, not pinned: it need only be a digit.
            self.varying.append(at)
            good = min(good, self._settled(stretches, [at], count))
        return good

    def _settled(self, stretches: bytearray, places: list[int], count: int) -> int:
        """Check that the places `places` of every stretch hold digits (how many stretches do,
        from the first) and write the cycle's own digits there. The columns are read and
        checked together: a cycle of TensorFlow's start-up has ~150 digits that vary."""
        period, cycle = len(self._cycle), self._cycle
        columns = [stretches[at::period] for at in places]
        good = count
        if b"".join(columns).translate(None, b"0123456789"):
            # (Some place holds another byte: the stretches up to the first that does.)
            good = min(count - len(column.lstrip(b"0123456789")) for column in columns)
        for at in places:
            stretches[at::period] = _repeated(cycle[at], count)
        return good


# The bytes of a repeated digit, by digit and count (the counts of a run double: few of them).
_REPEATS: dict[tuple[int, int], bytes] = {}
_NOT_ZERO = re.compile(b"[^\\x00]")


def _repeated(digit: int, count: int) -> bytes:
    found = _REPEATS.get((digit, count))
    if found is None:
        if len(_REPEATS) > 4096:
            _REPEATS.clear()
        found = _REPEATS[(digit, count)] = bytes((digit,)) * count
    return found


def _first_difference(one: bytes | bytearray, other: bytes | bytearray, low: int = 0) -> int:
    """The first place at or after `low` where two byte strings of one length differ (their
    length: none): stretches twice as long each time while they agree, then the one that
    differs halved (a few passes at most)."""
    step, size = 64, len(one)
    if low == 0 and one == other:
        # (Most runs agree to their end: one memcmp, not a pass over slices copied in steps.)
        return size
    while low < size:
        high = min(low + step, size)
        if one[low:high] == other[low:high]:
            low, step = high, step * 2
            continue
        while high - low > 1:
            middle = (low + high) // 2
            if one[low:middle] == other[low:middle]:
                low = middle
            else:
                high = middle
        return low
    return size


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


@record
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
        self._visits: dict[bytes, _Visit] = {}
        self._pins: list[int] = []  # places in the buffer of the digits the reading hung on
        self._blind = 0  # lines read whose pinned digits could not be placed in the buffer
        self._last: tuple[int, str] = (-1, "")  # where the last line read starts, its text
        # A cycle's mask -> the places of its digits that varied in its last run (_Run).
        self._varying_of: dict[bytes, list[int]] = {}

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
        if len(self._visits) >= VISITS_KEPT:
            self._forget()  # (a log of distinct lines: the pins and steps go too)
        before = self._visits.get(key)
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
        most = (stop - position) // period
        # The window: the cycle and the line before it, which a join reads with its first.
        window = buffer.rfind(b"\n", begin, start - 1) + 1 or begin
        if most == 0 or buffer.find(b"\r", window, position) != -1:
            return 0
        cycle = buffer[start:position].translate(MASK)
        # (The line before the cycle reads like the cycle's last: the line before the next.)
        if not cycle.endswith(buffer[window:start].translate(MASK)) or not self._short(cycle):
            return 0
        pinned = self._pinned(now, before.pins, window, start, period, cycle)
        if pinned is None or not self._matching_one(position, cycle, pinned):
            return 0
        # The first cycle matched (most attempts end before); the next are compared with it in
        # stretches twice as long each time, so that what is compared past the end of the run
        # is never more than what is passed over (and FIRST_STRETCH bytes): each comparison
        # costs tens of microseconds in Python whatever its length, so starting with one
        # cycle's worth made the comparisons after each break of a training log's cycles
        # (a problem line every 5,000 lines) half of explain's reading time (issue 22).
        known = self._varying_of.get(cycle, ())
        run = _Run(
            buffer[start:position], cycle, pinned, buffer[position : position + period], known
        )
        done, stretch = 1, max(1, FIRST_STRETCH // period)
        while done < most:
            count = min(stretch, most - done)
            good = run.matching(buffer, position + done * period, count)
            done += good
            if good < count:
                break
            stretch *= 2
        if len(self._varying_of) >= MASKS_OF_CYCLES_KEPT:
            self._varying_of.clear()
        self._varying_of[cycle] = run.varying
        return done

    def _matching_one(self, position: int, cycle: bytes, pinned: dict[int, int]) -> bool:
        """Whether the cycle's length of bytes from `position` reads like the cycle: the same
        mask, and the same digit at every pinned place."""
        buffer = self._buffer
        if buffer[position : position + len(cycle)].translate(MASK) != cycle:
            return False
        return all(buffer[position + at] == digit for at, digit in pinned.items())

    def _pinned(
        self, now: _Visit, pins_from: int, window: int, start: int, period: int, cycle: bytes
    ) -> dict[int, int] | None:
        """The places in the cycle whose digit every cycle must repeat, with that digit: those
        the reading hung on (a join's in the line before the cycle are those of the cycle's
        last line, read by the next cycle's join), and those of trigger texts with a digit.
        None where one cannot be placed."""
        buffer, pinned = self._buffer, {}
        for pin in self._pins[pins_from : now.pins]:
            if pin < window:
                return None
            place = pin - start if pin >= start else pin - start + period
            if buffer[start + place] != buffer[pin]:
                return None
            pinned[place] = buffer[pin]
        for text in self._digit_texts:
            at = cycle.find(text)
            while at != -1:
                for offset, byte in enumerate(text):
                    if byte == 0x30:
                        pinned[at + offset] = buffer[start + at + offset]
                at = cycle.find(text, at + 1)
        return pinned

    @staticmethod
    def _short(cycle: bytes) -> bool:
        """Whether every line of the cycle is read whole (scanner.MAX_LINE)."""
        return len(cycle) <= MAX_LINE or max(map(len, cycle.split(b"\n"))) <= MAX_LINE

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
            text = clean_line(decode(line_ends(self._buffer[start : position - 1])))
            reading.set_pending(scanner.lines, text)
            self._last = (start, text)
        self._moved_on(before, now, cycles)
        return position

    def _moved_on(self, before: _Visit, now: _Visit, cycles: int) -> None:
        """Make the visits of the cycle read the visits of the last cycle passed over, so that
        where the run breaks (a number grown a digit wider), the cycle after the break is
        compared with the one before it at once instead of being read twice more. Its
        visits' pins are moved with them; the steps they index are the same (every cycle
        passed over took the same steps)."""
        shift = (now.position - before.position) * cycles
        lines = (now.lines - before.lines) * cycles
        self._visits = {
            key: _Visit(v.position + shift, v.lines + lines, v.state, v.pins, v.steps)
            for key, v in self._visits.items()
            if before.position <= v.position <= now.position
        }
        pins = self._pins
        pins[before.pins :] = [pin + shift for pin in pins[before.pins :]]

    def _start(self, buffer: bytes, begin: int) -> None:
        self._buffer, self._begin = buffer, begin
        self._last = (-1, self._last[1])
        self._forget()

    def _forget(self) -> None:
        """Drop what was seen so far (a new region, a cycle passed over, too many visits)."""
        self._visits.clear()
        self._pins.clear()
        self._reading.steps.clear()
