"""Start the probe's child processes early, so they run while envcheck loads the rest of itself.

The doctor's wall time is mostly waiting: for the driver cascade's children (NVML, libcuda) and
the framework scan's child. Neither needs the version matrix, so a command starts them before it
imports the diagnosis and loads the matrix, and `collect_facts` collects their results later.
The children run in threads that only wait on subprocesses (no GIL held), on another core.
This module imports only what starting them takes: each thread imports the code that reads its
child's answer, so the first child starts before the heavy modules load, not after them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envcheck.probe.isolation import ChildGroup, user_python_path

if TYPE_CHECKING:
    from envcheck.probe.facts import DriverFacts, GpuFacts
    from envcheck.probe.frameworks import EnvironmentScan
    from envcheck.probe.interpreter import Interpreter

    DriverResult = tuple[DriverFacts, tuple[GpuFacts, ...]]


def probe_timeout(smoke_timeout: float) -> float:
    """The doctor's limit for each probe step: the smoke test's, at most 10 s (a hanging NVML
    or libcuda must not hold the report that long)."""
    return min(smoke_timeout, 10.0)


@dataclass(frozen=True)
class StartedProbe:
    """The probe's running parts and the inputs they were started with."""

    python: str | None
    timeout: float
    environ: Mapping[str, str]
    started: float  # time.monotonic() at the start
    frameworks: Future[EnvironmentScan]
    driver: Future[DriverResult]
    group: ChildGroup
    # What `python` is (None without one): asked beside the scan, not after it, since the doctor
    # would otherwise wait for one more interpreter start on its critical path.
    interpreter: Future[Interpreter] | None = None

    def cancel(self) -> None:
        """Stop the children still running (a no-op once both results are in): a command that
        fails after the start must not wait for a hanging NVML's timeout to exit."""
        self.group.cancel()


def start_probe(
    python: str | None = None,
    timeout: float = 10.0,
    import_frameworks: bool = False,
    environ: Mapping[str, str] | None = None,
) -> StartedProbe:
    """Start the driver cascade, the framework scan of `python` (default: this interpreter) and,
    for a given `python`, the question of which Python it is."""
    env = dict(os.environ if environ is None else environ)
    group = ChildGroup()
    pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="envcheck-probe")
    try:
        frameworks = pool.submit(
            _scan,
            python=python,
            import_tensorflow=import_frameworks,
            timeout=max(timeout, 30.0),
            group=group,
            pythonpath=user_python_path(env),
        )
        interpreter = None if python is None else pool.submit(_interpreter, python, timeout, group)
        driver = pool.submit(_driver, env, timeout, group)
    finally:
        pool.shutdown(wait=False)  # the threads finish their job; nothing else is queued
    return StartedProbe(
        python, timeout, env, time.monotonic(), frameworks, driver, group, interpreter
    )


# Each imports its module in its own thread (see the module's docstring).
def _scan(
    *,
    python: str | None,
    import_tensorflow: bool,
    timeout: float,
    group: ChildGroup,
    pythonpath: Sequence[str],
) -> EnvironmentScan:
    from envcheck.probe.frameworks import probe_environment  # noqa: PLC0415

    return probe_environment(
        python=python,
        import_tensorflow=import_tensorflow,
        timeout=timeout,
        group=group,
        pythonpath=pythonpath,
    )


def _interpreter(python: str, timeout: float, group: ChildGroup) -> Interpreter:
    from envcheck.probe.interpreter import describe_interpreter  # noqa: PLC0415

    return describe_interpreter(python, timeout, group=group)


def _driver(env: Mapping[str, str], timeout: float, group: ChildGroup) -> DriverResult:
    from envcheck.probe.driver import probe_driver  # noqa: PLC0415

    return probe_driver(env, timeout=timeout, group=group)
