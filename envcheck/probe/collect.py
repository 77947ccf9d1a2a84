"""Collect every fact of the probe in one pass: platform, driver and GPUs, frameworks, libraries.

The order matters: the frameworks decide which libraries to look for and through which RUNPATH
the loader finds them. Each part that loads foreign code does so in a child process; this module
only combines their results.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from envcheck.matrix.model import Matrix
from envcheck.probe import file_system
from envcheck.probe.background import StartedProbe
from envcheck.probe.binary_files import python_machine, read_once
from envcheck.probe.facts import Facts, FrameworkFacts, PlatformFacts, WheelFacts
from envcheck.probe.framework_loading import framework_loading
from envcheck.probe.interpreter import Interpreter, describe_interpreter
from envcheck.probe.libraries import (
    conda_owners,
    loader_skips,
    probe_libraries,
    requester_paths,
    tensorflow_loader_names,
    tensorflow_requester,
    wanted_libraries,
    wheel_owners,
)
from envcheck.probe.platform_facts import nvidia_gpu_presence, read_platform
from envcheck.probe.search import (
    LinuxSearch,
    ListingCache,
    conda_dirs,
    host_search,
    nvidia_wheel_dirs,
    unsearchable_locations,
)


def _site_dirs(frameworks: tuple[FrameworkFacts, ...], wheels: tuple[WheelFacts, ...]) -> list[str]:
    places = [f.location for f in frameworks] + [w.location for w in wheels]
    return list(dict.fromkeys(p for p in places if p))


def collect_facts(
    matrix: Matrix,
    started: StartedProbe,
    call_versions: bool = True,
    all_libraries: bool = False,
) -> Facts:
    """Probe this machine (and the environment of the probed Python, when one was given).

    `started` is the probe's child processes already running (start_probe): the one carrier
    of which Python is probed, each step's timeout and the environment, so no second copy of
    them can disagree. `all_libraries` keeps a "not found" entry for every name looked for
    when no TensorFlow decides which names matter. InputError when the probed Python is no
    runnable Python 3: its facts are never replaced by this interpreter's.
    """
    python, timeout, env = started.python, started.timeout, dict(started.environ)
    platform = read_platform(env)
    if python is not None:
        # Asked while the framework scan runs in the same interpreter; a file that is no Python 3
        # ends the probe here, before anything is reported about envcheck's own interpreter.
        asked = started.interpreter
        interpreter = asked.result() if asked else describe_interpreter(python, timeout)
        platform = _target_interpreter(platform, interpreter)
    # The libraries depend on the frameworks (RUNPATH, wheel directories), not on the driver:
    # they are searched while the driver cascade may still be running.
    scan = started.frameworks.result()
    frameworks, wheels, framework_errors = scan.frameworks, scan.wheels, scan.errors
    with read_once():  # the search, the libraries and the loader model read the same files
        windows = platform.os == "windows"
        requester = None if windows else tensorflow_requester(frameworks)
        runpath, rpath, requester_problems = requester_paths(requester)
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
            search = replace(
                search,
                realpath=file_system.real_path,  # resolved once a run (read_once)
                exists=listing.exists,
                usable=loader_skips(*python_machine()),
                listed=listing.names,
            )
        owners = {**conda_owners(env.get("CONDA_PREFIX")), **wheel_owners(wheels)}
        libraries = probe_libraries(
            wanted_libraries(
                matrix, frameworks, windows, tensorflow_loader_names(requester, matrix)
            ),
            search,
            python_machine(),
            owners,
            call_versions=call_versions,
            timeout=timeout,
            listing=listing,
        )
        if not all_libraries and not any(
            f.name == "tensorflow" and f.build.get("is_cuda_build") is not False for f in frameworks
        ):
            # Without a TensorFlow that can use CUDA every CUDA and cuDNN name is looked for
            # (or, for tensorflow-cpu, only the driver's); the copies that exist are facts, the
            # names that do not are noise nobody asked for (--all-libraries keeps them).
            libraries = tuple(lib for lib in libraries if lib.path)
        # What PyTorch and JAX load, by the same search (TensorFlow's requester and the wheel
        # directories aside: each object searches from itself).
        loading = framework_loading(
            frameworks,
            scan.paths,
            search if isinstance(search, LinuxSearch) and platform.os in ("linux", "wsl") else None,
            python or sys.executable,
            scan.claims,
        )
    driver, gpus = started.driver.result()
    if platform.os == "windows" and driver.state == "missing":
        state, evidence = nvidia_gpu_presence(Path("/"), platform.os, platform.wsl)
        platform = replace(platform, nvidia_gpu=state, nvidia_gpu_evidence=evidence)
    return Facts(
        platform=platform,
        driver=driver,
        gpus=gpus,
        libraries=libraries,
        frameworks=frameworks,
        wheels=wheels,
        errors=(*framework_errors, *requester_problems, *unsearchable_locations(search)),
        seconds=round(time.monotonic() - started.started, 3),
        shared_files=scan.shared_files,
        framework_libraries=loading,
    )


def _target_interpreter(platform: PlatformFacts, interpreter: Interpreter) -> PlatformFacts:
    """The platform facts with the probed interpreter's own Python version and bitness."""
    return replace(
        platform,
        python=interpreter.version,
        python_bits=interpreter.bits or platform.python_bits,
        python_executable=interpreter.executable,
    )
