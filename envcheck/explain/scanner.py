"""Find the few lines of a big log worth a close look, without a Python step per line.

A training log has millions of lines and a handful that matter. Looking at every line in Python
(clean it, screen its words, score it) was 70 times the cost of reading the lines at all. This
scanner reads the log in large chunks and runs one combined regular expression of *trigger*
literals over each chunk; only a line holding a trigger comes out, with its number. Every
signature, log fact and "telling word" contributes the literal that any line it can match must
contain (envcheck.explain.triggers), so the lines it skips are lines nothing could use.

Lines end at LF (CRLF too), numbered as `grep -n` does. A line longer
than MAX_LINE is kept as its two ends (a line of megabytes is data, and the message is at an
end), and an endless line is never held whole: memory stays bounded by the chunk size.

`read_through(n)` asks for every line up to line n, triggers or not: what a call printed after
its leader's message (`[]` after `list_physical_devices('GPU')`) has no trigger of its own. The
line before a triggered one comes too (when not yielded already), for messages split in two.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from envcheck.explain.triggers import TriggerScan

# A longer line keeps its first and last halves of this (see the module docstring).
MAX_LINE = 64 * 1024
_HALF = MAX_LINE // 2


# Room for the marker: a line an endless one was cut down to is not cut again.
_MARKER_ROOM = 64


def line_ends(line: bytes) -> bytes:
    """`line`, or its two ends around a marker when it is longer than MAX_LINE: an endless
    line costs bounded memory (also the cycle reader's, explain/cycles.py)."""
    if len(line) <= MAX_LINE + _MARKER_ROOM:
        return line
    return b"%s [... %d bytes not read ...] %s" % (
        line[:_HALF],
        len(line) - 2 * _HALF,
        line[-_HALF:],
    )


def decode(line: bytes) -> str:
    return line.decode("utf-8", errors="replace")


class ChunkScanner:
    """The lines of `chunks` that hold a match of `triggers`, as (number, text)."""

    def __init__(
        self, triggers: TriggerScan, chunks: Iterable[bytes], passer: Passer | None = None
    ) -> None:
        self._triggers = triggers
        self._chunks = iter(chunks)
        self._through = 0  # every line up to this number is wanted
        self.lines = 0  # lines read so far; after the scan, the log's line count
        self.saw_text = False  # whether any line holds more than white space
        self._yielded = 0  # the number of the last line yielded
        self._last_line = b""  # the last line of the previous region
        # Where the text last yielded starts in `buffer` (-1: it is not there, e.g. the last
        # line of the region before): envcheck.explain.cycles maps a line's digits to bytes.
        self.buffer = b""
        self.where = -1
        self._passer = passer

    def read_through(self, last: int) -> None:
        """Yield every line up to line `last` from now on, triggered or not (0: only lines
        with a trigger again)."""
        self._through = last

    def __iter__(self) -> Iterator[tuple[int, str]]:
        carry = b""
        while (chunk := next(self._chunks, None)) is not None:
            # (not a for loop: _endless puts back what follows a long line into self._chunks)
            begin = 0
            if carry:
                # Only the line the previous chunk left open is joined: copying whole chunks
                # to prepend a few bytes cost a tenth of the scan.
                first = chunk.find(b"\n")
                if first == -1:
                    carry += chunk
                    if len(carry) > 2 * MAX_LINE:
                        yield from self._endless(carry)
                        carry = b""
                    continue
                head = carry + chunk[: first + 1]
                yield from self._region(head, len(head))
                carry, begin = b"", first + 1
            end = chunk.rfind(b"\n")
            if end < begin:
                carry = chunk[begin:]
                if len(carry) > 2 * MAX_LINE:
                    yield from self._endless(carry)
                    carry = b""
                continue
            yield from self._region(chunk, end + 1, begin)
            carry = chunk[end + 1 :]
        if carry:
            yield from self._region(carry + b"\n", len(carry) + 1)

    def _endless(self, start: bytes) -> Iterator[tuple[int, str]]:
        """A line longer than 2 * MAX_LINE so far: keep its ends while reading on."""
        head, tail = start[:_HALF], start[-_HALF:]
        dropped = len(start) - 2 * _HALF
        for chunk in self._chunks:
            cut = _first_break(chunk)
            body = chunk if cut == -1 else chunk[:cut]
            joined = tail + body
            dropped += len(joined) - min(len(joined), _HALF)
            tail = joined[-_HALF:]
            if cut == -1:
                continue
            yield from self._long_line(head, dropped, tail)
            self._chunks = _prepend(chunk[cut + 1 :], self._chunks)
            return
        yield from self._long_line(head, dropped, tail)

    def _long_line(self, head: bytes, dropped: int, tail: bytes) -> Iterator[tuple[int, str]]:
        line = b"%s [... %d bytes not read ...] %s\n" % (head, dropped, tail)
        yield from self._region(line, len(line))

    @property
    def yielded_last(self) -> bool:
        """Whether the last line read was yielded."""
        return self._yielded == self.lines

    @property
    def wanted_after(self) -> int:
        """How many lines after the last one read are wanted whatever their triggers."""
        return max(self._through - self.lines, 0)

    def passed_over(self, lines: int, yielded: bool, through: int) -> None:
        """`lines` more lines were read by a Passer without yielding them: the last of them was
        yielded (as its model was) or not; `through` lines after the last are wanted."""
        self.lines += lines
        self._yielded = self.lines if yielded else min(self._yielded, self.lines - 1)
        self._through = self.lines + through if through else min(self._through, self.lines)

    def _region(self, buffer: bytes, stop: int, begin: int = 0) -> Iterator[tuple[int, str]]:
        """The wanted lines of buffer[begin:stop], which ends with a line break.

        Lines are numbered by their LF as `grep -n` and `wc -l` count them; a lone CR (a
        progress bar redrawn in place) splits a line into parts that share its number.
        """
        scan = self._triggers
        if not self.saw_text:
            self.saw_text = bool(buffer[begin:stop].strip())  # checked until the first text
        prepared = scan.prepare(buffer, begin, stop)
        base = self.lines  # lines before this region
        position = begin  # every LF before `position` is counted in self.lines
        self.buffer = buffer
        passer = self._passer
        while position < stop:
            if passer is not None:
                # Runs of lines like the ones just read are passed over (cycles.py).
                passed = passer.pass_over(self, buffer, begin, stop, position)
                if passed > position:
                    scan.passed(prepared, passed, self.lines - base)
                    position = passed
                    if position >= stop:
                        break
            if self._through > self.lines:
                # Every line is wanted: walk them one at a time until the window closes.
                end = buffer.find(b"\n", position, stop)
                self.lines += 1
                self.where = position
                yield from self._parts(buffer[position:end])
                self._yielded = self.lines
                position = end + 1
                continue
            at = scan.next(prepared, buffer, position, stop)
            if at == -1:
                self.lines = base + scan.newlines(prepared, buffer, stop)
                break
            start = buffer.rfind(b"\n", position, at) + 1 or position
            end = buffer.find(b"\n", at, stop)
            # (No LF lies between a line's start and its trigger: up to either counts the same.)
            self.lines = base + scan.newlines(prepared, buffer, at) + 1
            if self._yielded < self.lines - 1:
                # The line before, untriggered, comes too: a message a console wrapped may
                # start there ("Could n" / "ot load dynamic library ..."). Nothing in it can
                # match alone, so reading it costs only the time.
                if start > begin:
                    self.where = buffer.rfind(b"\n", begin, start - 1) + 1 or begin
                    before = buffer[self.where : start - 1]
                else:
                    self.where, before = -1, self._last_line
                yield self.lines - 1, decode(line_ends(before.removesuffix(b"\r")))
            if buffer.find(b"\r", start, end) == -1:
                self.where = start
                yield self.lines, decode(line_ends(buffer[start:end]))
            else:
                yield from self._parts_with_triggers(buffer, prepared, start, at, end)
            self._yielded = self.lines
            position = end + 1
        self._keep_last_line(buffer, stop, begin)

    def _keep_last_line(self, buffer: bytes, stop: int, begin: int) -> None:
        """The region's last line, the line before the next buffer's first (kept by its ends)."""
        start = buffer.rfind(b"\n", begin, stop - 1) + 1 or begin
        self._last_line = line_ends(buffer[start : stop - 1])

    def _parts_with_triggers(
        self, buffer: bytes, prepared: object, start: int, at: int, end: int
    ) -> Iterator[tuple[int, str]]:
        """The parts of one line (split at lone CRs: a progress bar redrawn in place) that hold
        a trigger, each with the line's number; the first trigger is at `at`."""
        while at != -1:
            left = buffer.rfind(b"\r", start, at) + 1 or start
            right = buffer.find(b"\r", at, end)
            right = end if right == -1 else right
            self.where = left
            yield self.lines, decode(line_ends(buffer[left:right]))
            if right >= end:
                return
            at = self._triggers.next(prepared, buffer, right + 1, end)

    def _parts(self, line: bytes) -> Iterator[tuple[int, str]]:
        for part in line.removesuffix(b"\r").split(b"\r") if b"\r" in line else (line,):
            yield self.lines, decode(line_ends(part))


class Passer(Protocol):
    """Passes over lines the scanner need not hand on (envcheck.explain.cycles)."""

    def pass_over(
        self, scanner: ChunkScanner, buffer: bytes, begin: int, stop: int, position: int
    ) -> int:
        """Where reading goes on in buffer[position:stop] (`position`: nothing passed over);
        the lines passed over are counted with scanner.passed_over()."""
        ...


def _first_break(buffer: bytes) -> int:
    return buffer.find(b"\n")


def _prepend(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield first
    yield from rest
