"""Which Python an interpreter path is: its version, bitness, machine and executable.

Asked in a child process (it may be any Python, a wrapper script, or no Python at all), with a
plain explanation when the answer is "none": not startable, not Python 3, hung, crashed.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from typing import Any

from envcheck.errors import InputError, quoted
from envcheck.probe.isolation import ChildGroup, ChildResult, run_child
from envcheck.record import record
from envcheck.versions import PythonVersion, refuse_long_numbers

_ERRNO = re.compile(r"^\[Errno \d+\] ")  # str(OSError) -> its words
_VERSION = re.compile(r"\d+\.\d+\.\d+")


@record
class Interpreter:
    version: str  # 3.11.7
    bits: int | None  # 64 or 32
    machine: str | None  # platform.machine(): x86_64, AMD64, arm64
    executable: str
    prefix: str | None = None  # sys.prefix: the environment's root in a virtual environment
    base_prefix: str | None = None  # sys.base_prefix: the installation it was made from
    conda: bool = False  # prefix holds conda-meta/: a conda environment
    # (name, version) of each installed distribution in sys.path order, when asked for; None
    # when not asked, or when the interpreter cannot list them (no importlib.metadata).
    distributions: tuple[tuple[str, str], ...] | None = None


def describe_interpreter(
    python: str,
    timeout: float,
    flag: str = "--python",
    group: ChildGroup | None = None,
    distributions: bool = False,
) -> Interpreter:
    """What `python` is; InputError (naming `flag`) when it is not a Python 3 that runs.

    `timeout` is the user's, as given: no floor of envcheck's own makes a hanging interpreter
    cost more than the --timeout the user chose (the message names the limit it hit). `group`
    lets the probe that asked cancel it. `distributions` also lists what is installed there
    (`install` says what it would replace).
    """
    # With the site module: in a virtual environment it is site that sets sys.prefix.
    argument = {"distributions": True} if distributions else None
    result = run_child("interpreter", argument, python=python, timeout=timeout, group=group)
    data = result.data if result.ok else None
    version = str(data.get("python", "")) if data is not None else ""
    if data is None or not version.startswith("3."):
        why = f"it is Python {version}" if version else _why_not_python(result, python, timeout)
        raise InputError(f"{flag} {python!r} is not a runnable Python 3 interpreter: {why}")
    return interpreter_from_answer(data, python, flag)


def interpreter_from_answer(
    data: Mapping[str, Any], python: str, flag: str = "--python"
) -> Interpreter:
    """The Interpreter the child's answer describes (children/interpreter.py's, which the
    framework scan's child also gives); InputError when it is no Python 3."""
    version = str(data.get("python", ""))
    if not version.startswith("3."):
        why = f"it is Python {version}" if version else "it gives no version"
        raise InputError(f"{flag} {python!r} is not a runnable Python 3 interpreter: {why}")
    try:
        # (A version of thousands of digits from a fake interpreter was exit 3 later, where
        # Python refused to read it as a number.)
        refuse_long_numbers(version, "version")
        PythonVersion.parse(".".join(version.split(".")[:2]))
    except InputError:
        raise InputError(
            f"{flag} {python!r} is not a runnable Python 3 interpreter: it reports the "
            f"version {quoted(version)}"
        ) from None
    bits = data.get("bits")
    machine = data.get("machine")
    prefix, base_prefix = data.get("prefix"), data.get("base_prefix")
    return Interpreter(
        version=version,
        bits=bits if isinstance(bits, int) else None,
        machine=machine if isinstance(machine, str) and machine else None,
        executable=str(data.get("executable", python)),
        prefix=prefix if isinstance(prefix, str) else None,
        base_prefix=base_prefix if isinstance(base_prefix, str) else None,
        conda=data.get("conda") is True,
        distributions=_distributions(data.get("distributions")),
    )


def _distributions(raw: object) -> tuple[tuple[str, str], ...] | None:
    """The child's [[name, version], ...] (pure); entries that are not two strings dropped."""
    if not isinstance(raw, list):
        return None
    return tuple(
        (item[0], item[1])
        for item in raw
        if isinstance(item, list) and len(item) == 2 and all(isinstance(v, str) for v in item)
    )


def _why_not_python(result: ChildResult, python: str, timeout: float) -> str:
    """Why the interpreter child gave no answer, in words (only on that failure path)."""
    if result.status == "not-run":
        return f"it cannot be started ({_ERRNO.sub('', result.stderr_tail.strip())})"
    if result.status == "timeout":
        return f"it did not answer within {timeout:g} s"
    if result.status in ("crashed", "too-large"):
        return f"it {result.describe()}"
    # Python 2 stops at -I ("Unknown option: -I"): ask it the portable way what it is.
    version = _python_version_plainly(python, timeout)
    if version is not None:
        return f"it is Python {version}"
    last = result.stderr_tail.strip().splitlines()[-1:]
    detail = f": {last[0].strip()}" if last else ", printing nothing a Python would"
    return f"it exited with code {result.returncode}{detail}"


def _python_version_plainly(python: str, timeout: float) -> str | None:
    """X.Y.Z from `python -c ...` without the options Python 2 lacks; None if it says none."""
    source = "import sys; sys.stdout.write('%d.%d.%d' % tuple(sys.version_info[:3]))"
    try:  # in a child group of its own: a signal or a timeout kills what it started
        completed = ChildGroup().run(
            [python, "-E", "-s", "-c", source], timeout=timeout, check="interpreter"
        )
    except (OSError, subprocess.SubprocessError):
        return None
    text = completed.stdout.strip()
    return text if completed.returncode == 0 and _VERSION.fullmatch(text) else None
