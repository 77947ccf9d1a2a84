"""How long and how large one file's download, or one index page, may get: the bounds that keep
a fetch from hanging on a trickling server, filling the disk from an endless body, or filling
memory from a page that inflates without end.

The per-read timeout (`http.Timeouts`) catches a server that goes silent; these catch one that
never stops talking. Pure data and arithmetic; `download` and `http.HttpClient.get_small`
enforce them.
"""

from __future__ import annotations

from envcheck.record import record

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


@record
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


# A project page is read into memory and parsed whole. The largest real ones (nightly builds
# with tens of thousands of files) are tens of MB; a page past this is a broken or hostile
# index, stopped before it takes the machine's memory (a 6 MB gzip page inflating to 6 GB did).
MAX_PAGE_BYTES = 64 * 1024 * 1024


@record
class PageLimits:
    """The bounds of reading one index page, all its attempts and waits together: bytes after
    any Content-Encoding is undone, and seconds of wall-clock time."""

    max_bytes: int = MAX_PAGE_BYTES
    deadline: float = DEADLINE_FLOOR_S  # a 64 MB page at 100 kB/s nearly fills it

    @classmethod
    def following(cls, downloads: DownloadLimits | None) -> PageLimits:
        """The page bounds of a fetch: `--deadline`, when given, bounds each page as well."""
        if downloads is None or downloads.deadline is None:
            return cls()
        return cls(deadline=downloads.deadline)
