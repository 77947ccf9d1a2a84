"""Collect every fact of the probe in one pass: platform, driver and GPUs, frameworks, libraries.

The order matters: the frameworks decide which libraries to look for and through which RUNPATH
the loader finds them. Each part that loads foreign code does so in a child process; this module
only combines their results.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from dataclasses import replace

from envcheck.matrix.model import Matrix
from envcheck.probe.background import StartedProbe, start_probe
from envcheck.probe.binary_files import python_machine
from envcheck.probe.facts import Facts, FrameworkFacts, PlatformFacts, WheelFacts
from envcheck.probe.isolation import run_child
from envcheck.probe.libraries import (
    conda_owners,
    probe_libraries,
    requester_paths,
    tensorflow_requester,
    wanted_libraries,
    wheel_owners,
)
from envcheck.probe.platform_facts import read_platform
from envcheck.probe.search import (
    LinuxSearch,
    ListingCache,
    conda_dirs,
    host_search,
    nvidia_wheel_dirs,
)


def _site_dirs(frameworks: tuple[FrameworkFacts, ...], wheels: tuple[WheelFacts, ...]) -> list[str]:
    places = [f.location for f in frameworks] + [w.location for w in wheels]
    return list(dict.fromkeys(p for p in places if p))


def collect_facts(
    matrix: Matrix,
    python: str | None = None,
    timeout: float = 10.0,
    import_frameworks: bool = False,
    environ: Mapping[str, str] | None = None,
    call_versions: bool = True,
    started: StartedProbe | None = None,
) -> Facts:
    """Probe this machine (and the environment of `python`, when given).

    `started` is the probe's child processes already running (start_probe, called with the same
    python, timeout and environment); without it they start here.
    """
    if started is None:
        started = start_probe(python, timeout, import_frameworks, environ)
    python, timeout, env = started.python, started.timeout, dict(started.environ)
    platform = read_platform(env)
    # The libraries depend on the frameworks (RUNPATH, wheel directories), not on the driver:
    # they are searched while the driver cascade may still be running.
    frameworks, wheels, framework_errors = started.frameworks.result()
    if python is not None:
        platform = _target_interpreter(platform, python, timeout, framework_errors)
    windows = platform.os == "windows"
    runpath, rpath = requester_paths(None if windows else tensorflow_requester(frameworks))
    extra = (
        *nvidia_wheel_dirs(_site_dirs(frameworks, wheels), windows=windows),
        *conda_dirs(env, windows=windows),
    )
    search = host_search(
        runpath=runpath,
        rpath=rpath,
        extra=extra,
        env=env,
        executable=python or sys.executable,
    )
    listing = ListingCache()
    if isinstance(search, LinuxSearch):
        search = replace(search, exists=listing.exists)
    owners = {**conda_owners(env.get("CONDA_PREFIX")), **wheel_owners(wheels)}
    libraries = probe_libraries(
        wanted_libraries(matrix, frameworks, windows),
        search,
        python_machine(),
        owners,
        call_versions=call_versions,
        timeout=timeout,
        listing=listing,
    )
    driver, gpus = started.driver.result()
    return Facts(
        platform=platform,
        driver=driver,
        gpus=gpus,
        libraries=libraries,
        frameworks=frameworks,
        wheels=wheels,
        errors=tuple(framework_errors) + _interpreter_errors(platform, python),
        seconds=round(time.monotonic() - started.started, 3),
    )


def _target_interpreter(
    platform: PlatformFacts, python: str, timeout: float, errors: tuple[str, ...]
) -> PlatformFacts:
    """The platform facts with the probed interpreter's own Python version and bitness."""
    del errors  # the frameworks probe reports its own failures
    # With the site module: in a virtual environment it is site that sets sys.prefix.
    result = run_child("interpreter", None, python=python, timeout=timeout)
    data = result.data if result.ok else None
    if data is None:
        return replace(platform, python_executable=python, python="unknown")
    return replace(
        platform,
        python=str(data.get("python", "unknown")),
        python_bits=int(data.get("bits", platform.python_bits)),
        python_executable=str(data.get("executable", python)),
    )


def _interpreter_errors(platform: PlatformFacts, python: str | None) -> tuple[str, ...]:
    if python is not None and platform.python == "unknown":
        return (f"could not run {python} to read its Python version",)
    return ()
