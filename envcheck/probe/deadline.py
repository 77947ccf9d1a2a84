"""The doctor's `--deadline`: one end time for every child process of the run.

A health checker (Slurm's HealthCheckProgram, NHC's `check_cmd_status -t`) kills a check that
runs too long and learns nothing from it. With a deadline every child process envcheck starts
waits at most until the deadline, a child that would start after it is not started, and each
check cut short is named here, so the doctor can still write a report that says what it did
not check (verdict `unknown`) instead of being killed mid-way.

Process-wide state, like isolation.py's registry of live children: the probe's threads, the
smoke tests and the import-order children all start children on behalf of one run, and
threading the deadline through each of their signatures would touch every probe function for a
value that is the same for all of them.
"""

from __future__ import annotations

import threading
import time

# Children must be gone this long before the deadline: the diagnosis and the report are
# written in the time left (about 0.3 s on a loaded machine).
RESERVE_S = 0.5


class _Run:
    """The one run's deadline (one command per process): its end, and the checks it cut."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.end: float | None = None  # time.monotonic() by which every child must be gone
        self.cut: list[str] = []  # the checks a child was cut short or refused for, in order


_RUN = _Run()


def start(seconds: float | None) -> None:
    """Bound this run to `seconds` from now (None: no deadline); forgets earlier cuts."""
    with _RUN.lock:
        _RUN.cut.clear()
        if seconds is None:
            _RUN.end = None
            return
        reserve = min(RESERVE_S, seconds / 4)
        _RUN.end = time.monotonic() + seconds - reserve


def active() -> bool:
    return _RUN.end is not None


def expired() -> bool:
    """The deadline is set and its time for children has passed."""
    end = _RUN.end
    return end is not None and time.monotonic() >= end


def bounded(timeout: float) -> float:
    """`timeout`, or the time left before the deadline when that is shorter (never < 0)."""
    end = _RUN.end
    if end is None:
        return timeout
    return max(0.0, min(timeout, end - time.monotonic()))


def note_cut(check: str) -> None:
    """`check` was not done to the end because of the deadline."""
    with _RUN.lock:
        if check not in _RUN.cut:
            _RUN.cut.append(check)


def cut() -> tuple[str, ...]:
    """The checks the deadline cut short, in the order they were cut."""
    with _RUN.lock:
        return tuple(_RUN.cut)
