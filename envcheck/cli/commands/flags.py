"""Flags several commands share: --matrix, --gpu with --compute-capability, --python PATH
with --python-version X.Y, and --framework."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from envcheck.errors import EnvcheckError, InputError
from envcheck.framework_names import FRAMEWORKS
from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.model import Matrix
from envcheck.probe.interpreter import Interpreter, describe_interpreter
from envcheck.recommend.machine import GpuDescription
from envcheck.versions import ComputeCapability


def capability_lookup(matrix: Matrix) -> Callable[[str], ComputeCapability | None]:
    return GpuIndex.build(matrix.gpus).capability


def gpus_from_flags(
    matrix: Matrix, name: str | None, capability: str | None, *, capability_wins: bool = False
) -> tuple[GpuDescription, ...] | None:
    """The GPU the flags describe; None when neither flag is given.

    A named GPU and a different --compute-capability contradict each other: an error, unless
    `capability_wins` (the Windows setup script passes what the driver reported).
    """
    if name is None and capability is None:
        return None
    parsed = ComputeCapability.parse(capability) if capability is not None else None
    if name is None:
        return (GpuDescription(None, parsed),)
    row = GpuIndex.build(matrix.gpus).find(name)
    if parsed is not None and parsed != row.compute_capability and not capability_wins:
        raise EnvcheckError(
            f"--gpu {name!r} is a {row.name} with compute capability {row.compute_capability}, "
            f"but --compute-capability says {parsed}; drop one of them"
        )
    return (GpuDescription(row.name, parsed or row.compute_capability),)


_LOOKS_LIKE_A_VERSION = re.compile(r"\d+(\.\d+)*")


def target_python(
    python: str | None, python_version: str | None, timeout: float = 30.0
) -> tuple[str | None, Interpreter | None]:
    """(X.Y, the interpreter) a command describes: --python-version as given, or the version of
    the --python interpreter (asked in a child); (None, None) for envcheck's own."""
    if python is not None and python_version is not None:
        raise InputError("give --python PATH or --python-version X.Y, not both")
    if python is None:
        return python_version, None
    if _LOOKS_LIKE_A_VERSION.fullmatch(python) and not Path(python).exists():
        raise InputError(
            "--python takes an interpreter path; for a Python version use "
            f"--python-version {python}"
        )
    interpreter = describe_interpreter(python, timeout)
    return ".".join(interpreter.version.split(".")[:2]), interpreter


def framework_choice(text: str | None) -> str | None:
    """--framework's value: one of the frameworks judged (pytorch is read as torch)."""
    if text is None:
        return None
    key = text.strip().lower()
    key = {"pytorch": "torch"}.get(key, key)
    if key not in FRAMEWORKS:
        raise InputError(f"--framework {text!r} is not one of {', '.join(FRAMEWORKS)}")
    return key


def build_choice(cpu: bool, gpu: bool) -> str | None:
    """--cpu or --gpu: the build install and fetch take instead of the one recommend finds the
    machine can use; None for neither."""
    if cpu and gpu:
        raise InputError("give --cpu or --gpu, not both")
    return "cpu" if cpu else "gpu" if gpu else None
