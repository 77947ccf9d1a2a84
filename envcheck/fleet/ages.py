"""`--max-age`: a duration as people write it for a fleet's reports (24h, 30m, 90s, 2d, or
seconds), and a report's time (the doctor's UTC ISO 8601 with a Z)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from envcheck.errors import InputError

_DURATION = re.compile(r"^(?P<number>[0-9]+(?:\.[0-9]+)?)\s*(?P<unit>[smhd]?)$")
_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_MAX_SECONDS = 366 * 86400  # a year: any older report is no evidence about a node today
_TIME = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")


def parse_duration(text: str, option: str = "--max-age") -> float:
    """Seconds in `text` ('24h', '30m', '90s', '2d', '3600'); InputError for anything else."""
    match = _DURATION.match(text.strip().lower())
    if match is None:
        raise InputError(
            f"{option} {text!r} is not a duration: write seconds or a number with s, m, h or d "
            "(24h, 30m)"
        )
    seconds = float(match["number"]) * _SECONDS[match["unit"]]
    if not 0 < seconds <= _MAX_SECONDS:
        raise InputError(f"{option} {text!r} is not between 1 second and 366 days")
    return seconds


def report_time(text: str) -> float | None:
    """The Unix time of a report's `time` (2026-12-02T10:15:30Z); None when it is not one."""
    if not _TIME.match(text):
        return None
    try:
        moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:  # 2026-13-45T...
        return None
    return moment.timestamp()
