"""The doctor's last resort under --deadline: a report without a verdict, written on time.

The deadline bounds every child process (probe/deadline.py), so the doctor normally writes its
own report in time. What no child bound covers (a file system that stops answering while the
probe reads it: a hung network mount on a cluster node) is covered here: when the report is not
out by the deadline plus a moment, this thread kills the children, writes the report of a run
that reached no verdict in the format asked for, and ends the process with exit 4. A health
checker (Slurm kills its HealthCheckProgram at 60 s) then learns "no verdict", never nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator

from envcheck.errors import EXIT_NO_VERDICT
from envcheck.probe.isolation import kill_live_children

# After the deadline: the time the doctor's own report still has (its children are gone half
# a second before the deadline, and the diagnosis takes about 0.3 s).
GRACE_S = 0.5


class Watchdog:
    """Writes `fallback()` and exits 4 at `seconds` + GRACE_S, unless the report is being
    written (writing()) or was written by then."""

    def __init__(self, seconds: float, fallback: Callable[[], None]) -> None:
        self._fallback = fallback
        self._lock = threading.Lock()  # held by whoever writes the report: one report only
        self._timer = threading.Timer(seconds + GRACE_S, self._fire)
        self._timer.daemon = True  # a report written in time: nothing waits for the timer

    def start(self) -> None:
        self._timer.start()

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """The doctor's own report is written inside; the fallback never comes after it."""
        with self._lock:
            self._timer.cancel()
            yield

    def _fire(self) -> None:
        if not self._lock.acquire(blocking=False):
            return  # the doctor is writing its own report right now
        kill_live_children()
        code = EXIT_NO_VERDICT
        try:
            self._fallback()
            print(
                "envcheck: the --deadline passed before the doctor finished; "
                "wrote a report without a verdict",
                file=sys.stderr,
            )
        except Exception as exc:
            print(f"envcheck: error: {exc}", file=sys.stderr)
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)
