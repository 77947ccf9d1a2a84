"""How long and how large one file's download may get: the bounds that keep a fetch from hanging
on a trickling server or filling the disk from an endless body.

The per-read timeout (`http.Timeouts`) catches a server that goes silent; these catch one that
never stops talking. Pure data and arithmetic; `download` enforces them.
"""

from __future__ import annotations

from dataclasses import dataclass

# A multi-GB wheel on a slow but working link (100 kB/s is under 1 Mbit/s) must still finish;
# a server that sends a byte now and then must not hold a fetch for ever. The floor covers
# small files on a link that needs a while to get going.
DEADLINE_FLOOR_S = 600.0
DEADLINE_MIN_RATE = 100_000.0  # bytes per second the size-scaled deadline allows for
# When neither the index (PEP 700 size) nor the server (Content-Length) says how big a file is,
# no wheel anyone publishes comes near this; an endless body stops here, not at a full disk.
MAX_UNKNOWN_BYTES = 20_000_000_000
# The largest size an index may list for a file: past it the listing is taken as broken, not as
# a file to make room for.
MAX_LISTED_BYTES = MAX_UNKNOWN_BYTES


@dataclass(frozen=True)
class DownloadLimits:
    """The bounds of one file's download, all its attempts and waits together."""

    deadline: float | None = None  # seconds per file; None: scaled from the file's size
    floor_s: float = DEADLINE_FLOOR_S
    min_rate: float = DEADLINE_MIN_RATE
    max_unknown_bytes: int = MAX_UNKNOWN_BYTES

    def deadline_for(self, size: int | None) -> float:
        """Seconds a file of `size` bytes (None: not known yet) may take in all."""
        if self.deadline is not None:
            return self.deadline
        if size is None:
            return self.floor_s
        return max(self.floor_s, size / self.min_rate)
