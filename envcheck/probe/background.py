"""Start the probe's child processes early, so they run while envcheck loads the rest of itself.

The doctor's wall time is mostly waiting: for the driver cascade's children (NVML, libcuda) and
the framework scan's child. Neither needs the version matrix, so a command starts them before it
imports the diagnosis and loads the matrix, and `collect_facts` collects their results later.
The children run in threads that only wait on subprocesses (no GIL held), on another core.
The code the threads run is imported here, in the main thread, before any thread starts: an
import in a thread racing the main thread's imports deadlocks when a signal lands inside the
main thread's import (the module lock it held is never released, and the exit waits for the
thread forever).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from envcheck.probe import deadline
from envcheck.probe.driver import probe_driver
from envcheck.probe.facts import DriverFacts, GpuFacts
from envcheck.probe.frameworks import EnvironmentScan, probe_environment
from envcheck.probe.interpreter import Interpreter, describe_interpreter, interpreter_from_answer
from envcheck.probe.isolation import ChildGroup, LaunchedChild, user_python_path
from envcheck.record import record

R = TypeVar("R")
DriverResult = tuple[DriverFacts, tuple[GpuFacts, ...]]
# How long the question of which Python it is waits for the framework scan's answer, which
# holds it, before it asks the interpreter child instead: a scan that takes longer (a slow
# file system, a hanging interpreter) costs the answer no more than this.
SCAN_GRACE_S = 2.0


def probe_timeout(smoke_timeout: float) -> float:
    """The doctor's limit for each probe step: the smoke test's, at most 10 s (a hanging NVML
    or libcuda must not hold the report that long)."""
    return min(smoke_timeout, 10.0)


class Call(Generic[R]):
    """`function(**arguments)` running in a thread of its own; `result()` waits for its value or
    raises what it raised. What a ThreadPoolExecutor's Future gives here, without
    concurrent.futures, which imports logging: ~4 ms of the doctor's start-up. The thread is
    not a daemon, as the pool's are not: the exit waits for it (the children it waits on have
    their own timeouts, and `ChildGroup.cancel` ends them sooner)."""

    def __init__(self, function: Callable[..., R], **arguments: Any) -> None:
        self._done = threading.Event()
        self._value: R | None = None
        self._error: BaseException | None = None
        thread = threading.Thread(
            target=self._run, args=(function, arguments), name=f"envcheck-probe-{function.__name__}"
        )
        thread.start()

    def _run(self, function: Callable[..., R], arguments: dict[str, Any]) -> None:
        try:
            self._value = function(**arguments)
        except BaseException as error:  # handed to whoever asks for the result
            self._error = error
        finally:
            self._done.set()

    def result(self, timeout: float | None = None) -> R:
        """The value, once the call has finished (TimeoutError after `timeout` seconds)."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"no result within {timeout} s")
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value] # set whenever no error was


@record
class StartedProbe:
    """The probe's running parts and the inputs they were started with."""

    python: str | None
    timeout: float
    environ: Mapping[str, str]
    started: float  # time.monotonic() at the start
    frameworks: Call[EnvironmentScan]
    driver: Call[DriverResult]
    group: ChildGroup
    # What `python` is (None without one): asked beside the scan, not after it, since the doctor
    # would otherwise wait for one more interpreter start on its critical path.
    interpreter: Call[Interpreter] | None = None

    def cancel(self) -> None:
        """Stop the children still running (a no-op once both results are in): a command that
        fails after the start must not wait for a hanging NVML's timeout to exit."""
        self.group.cancel()


def start_probe(
    python: str | None = None,
    timeout: float = 10.0,
    import_frameworks: bool = False,
    environ: Mapping[str, str] | None = None,
    scan: LaunchedChild | None = None,
    group: ChildGroup | None = None,
) -> StartedProbe:
    """Start the driver cascade, the framework scan of `python` (default: this interpreter) and,
    for a given `python`, the question of which Python it is. `scan` is the scan's child when
    it was launched already (scan_launch.py), in `group` with the same `python` and `environ`."""
    env = dict(os.environ if environ is None else environ)
    group = ChildGroup() if group is None else group
    frameworks = Call(
        probe_environment,
        python=python,
        import_tensorflow=import_frameworks,
        timeout=max(timeout, 30.0),
        group=group,
        pythonpath=user_python_path(env),
        launched=scan,
    )
    interpreter = (
        None
        if python is None
        else Call(_interpreter, python=python, timeout=timeout, group=group, scan=frameworks)
    )
    driver = Call(probe_driver, environ=env, timeout=timeout, group=group)
    return StartedProbe(
        python, timeout, env, time.monotonic(), frameworks, driver, group, interpreter
    )


def _interpreter(
    python: str, timeout: float, group: ChildGroup, scan: Call[EnvironmentScan]
) -> Interpreter:
    """Which Python `python` is. The framework scan's child, which runs in it anyway, answers
    that too (one interpreter start fewer: ~20 ms of CPU); when it has not within SCAN_GRACE_S,
    or gave no answer, the interpreter child is asked, as before. Under a --deadline it is
    asked at once: the scan may be what the deadline cuts short."""
    if not deadline.active():
        try:
            answer = scan.result(timeout=SCAN_GRACE_S).interpreter
        except Exception:  # late or failed: the interpreter child says what is wrong
            answer = None
        if answer is not None and isinstance(answer.get("python"), str):
            return interpreter_from_answer(answer, python)
    return describe_interpreter(python, timeout, group=group)
