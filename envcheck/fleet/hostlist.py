"""Node names compressed as Slurm writes them: gpu001,gpu002,gpu003,gpu005 -> gpu[001-003,005].

A name is a prefix and the digits that end it (x1y3: prefix x1y, number 3); names with one
prefix share one bracket, consecutive numbers become a range. Zero padding is kept: a range
holds numbers that print at one width (gpu[099-101]: 099, 100, 101), and an unpadded number
never joins a padded one it would print differently (n[98,099-100]), as Slurm's hostlist.c
(_width_equiv) decides. Sorted by prefix and number, duplicates dropped; the output expands,
with `scontrol show hostnames`, to exactly the names given (tests/test_hostlist.py checks it
against a real scontrol where one is installed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from envcheck.record import record

_SUFFIX = re.compile(r"^(?P<prefix>.*?)(?P<digits>[0-9]+)$")


@record
class _Name:
    prefix: str
    number: int
    digits: str  # as written: "007"

    @property
    def padded(self) -> bool:
        return len(self.digits) > 1 and self.digits.startswith("0")


@dataclass
class _Range:
    first: _Name
    last: _Name
    width: int | None  # the fixed width of its padded members; None while it has none
    narrowest: int  # the fewest digits an unpadded member has (it must not be padded)

    def takes(self, name: _Name) -> bool:
        """Whether `name` extends this range: the next number, printed at the same width."""
        if name.number != self.last.number + 1:
            return False
        if name.padded:
            return self.width in (None, len(name.digits)) and self.narrowest >= len(name.digits)
        return self.width is None or len(name.digits) >= self.width

    def add(self, name: _Name) -> None:
        self.last = name
        if name.padded:
            self.width = len(name.digits)
        else:
            self.narrowest = min(self.narrowest, len(name.digits))

    def text(self) -> str:
        if self.first == self.last:
            return self.first.digits
        if self.width is None:
            return f"{self.first.number}-{self.last.number}"
        return f"{self.first.digits}-{str(self.last.number).zfill(self.width)}"


def _range(name: _Name) -> _Range:
    if name.padded:
        return _Range(name, name, len(name.digits), 10**9)
    return _Range(name, name, None, len(name.digits))


def compress(names: Iterable[str]) -> str:
    """The Slurm hostlist expression of `names` (each name once)."""
    plain: set[str] = set()
    numbered: dict[str, set[_Name]] = {}
    for text in names:
        match = _SUFFIX.match(text)
        if match is None:
            plain.add(text)
        else:
            digits = match["digits"]
            numbered.setdefault(match["prefix"], set()).add(
                _Name(match["prefix"], int(digits), digits)
            )
    parts: list[tuple[str, str]] = [(name, name) for name in plain]
    for prefix, members in numbered.items():
        ranges: list[_Range] = []
        ending: dict[int, list[_Range]] = {}  # the ranges by their last number: only those
        # ending just below a name can take it, so each name is one look-up (linear in names)
        # By number, then the narrower spelling first (n1 before n01).
        for name in sorted(members, key=lambda n: (n.number, len(n.digits))):
            below = ending.get(name.number - 1, [])
            taker = next((r for r in below if r.takes(name)), None)
            if taker is None:
                taker = _range(name)
                ranges.append(taker)
            else:
                below.remove(taker)
                taker.add(name)
            ending.setdefault(name.number, []).append(taker)
        if len(ranges) == 1 and ranges[0].first == ranges[0].last:
            only = ranges[0].first
            parts.append((prefix, f"{prefix}{only.digits}"))
            continue
        inside = ",".join(r.text() for r in sorted(ranges, key=lambda r: r.first.number))
        parts.append((prefix, f"{prefix}[{inside}]"))
    return ",".join(text for _, text in sorted(parts))
