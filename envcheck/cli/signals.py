"""SIGTERM, SIGHUP and SIGINT end envcheck alike: the child processes die with it, and it exits
with 128 + the signal's number (docs/exit-codes.md).

Each child runs in its own session (so that a timeout can kill its whole group), which also
means a signal sent to envcheck never reaches it: without this, `timeout`, a CI cancel or
`docker stop` left the smoke test's TensorFlow running and holding GPU memory.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

from envcheck.errors import EXIT_HANGUP, EXIT_INTERRUPTED, EXIT_TERMINATED, Interrupted

# signal name -> (exit code, what envcheck says on stderr); those this OS has are handled.
_HANDLED = {
    "SIGINT": (EXIT_INTERRUPTED, "interrupted"),
    "SIGTERM": (EXIT_TERMINATED, "terminated (SIGTERM)"),
    "SIGHUP": (EXIT_HANGUP, "hung up (SIGHUP)"),
}
_received: list[int] = []


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Inside: each handled signal raises Interrupted in the main thread. The handlers before
    are put back after, for a caller that runs envcheck's main() in its own process."""
    _received.clear()
    isolation = sys.modules.get("envcheck.probe.isolation")
    if isolation is not None:  # a signal in an earlier run in this process ended its children
        isolation.accept_children()
    unraisable = sys.unraisablehook
    sys.unraisablehook = _quiet_interrupts(unraisable)
    before: dict[int, Any] = {}
    # Python lets only the main thread set handlers (an embedding caller may use another).
    names = _HANDLED if threading.current_thread() is threading.main_thread() else {}
    for name in names:
        number = getattr(signal, name, None)
        # An ignored signal stays ignored: `nohup envcheck doctor` must outlive its terminal,
        # and a background job of a non-interactive shell ignores Ctrl-C on purpose.
        if number is not None and signal.getsignal(number) is not signal.SIG_IGN:
            before[number] = signal.signal(number, _raise_interrupted)
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        sys.unraisablehook = unraisable


def _quiet_interrupts(hook: Any) -> Any:
    """sys.unraisablehook that passes over the Interrupted a signal raised where Python cannot
    propagate it (inside the import system's weakref callbacks, a __del__): the signal is
    recorded (received()) and its children already killed, so the command ends with it anyway;
    the traceback Python would print is noise in front of 'envcheck: terminated (SIGTERM)'."""

    def quiet(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, Interrupted):
            return
        hook(unraisable)

    return quiet


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    del frame
    if _received:
        # Already on the way out: a second signal (a repeated Ctrl-C) must not cut short the
        # cleanup that kills the children.
        return
    _received.append(signum)
    # Killed here, not only where the exception lands: raised inside a weakref callback of the
    # import system (a signal during an import), it is swallowed, and the probe threads would
    # wait for their children's whole timeout.
    isolation = sys.modules.get("envcheck.probe.isolation")
    if isolation is not None:
        isolation.kill_children_from_signal_handler()
    raise Interrupted(signum)


def received() -> int | None:
    """The signal that is ending envcheck, if one is."""
    return _received[0] if _received else None


def _signal_of(interrupted: KeyboardInterrupt) -> int:
    return interrupted.signum if isinstance(interrupted, Interrupted) else signal.SIGINT


def words(interrupted: KeyboardInterrupt) -> str:
    """What envcheck says it was stopped by: `interrupted` (Ctrl-C), `terminated (SIGTERM)`."""
    signum = _signal_of(interrupted)
    return _HANDLED.get(signal.Signals(signum).name, (128 + signum, "stopped"))[1]


def finish(interrupted: KeyboardInterrupt) -> int:
    """Kill what is still running, say why envcheck stops, and return its exit code."""
    _kill_live_children()
    signum = _signal_of(interrupted)
    code = _HANDLED.get(signal.Signals(signum).name, (128 + signum, ""))[0]
    print(f"envcheck: {words(interrupted)}", file=sys.stderr)
    return code


def exit_code(code: int) -> int:
    """`code`, unless a signal ends envcheck (a command that caught the interrupt itself, as
    fetch does, still exits with the signal's code)."""
    signum = received()
    if signum is None:
        return code
    _kill_live_children()
    return _HANDLED.get(signal.Signals(signum).name, (128 + signum, ""))[0]


def _kill_live_children() -> None:
    """Kill the process groups envcheck.probe.isolation registered. A command that never
    imported it (explain, matrix) started no child, and need not pay for its import."""
    isolation = sys.modules.get("envcheck.probe.isolation")
    if isolation is not None:
        isolation.kill_live_children(ending=True)
