"""A pip constraints file for a plan, for people and Dockerfiles that run the installer themselves.

One `name==version` line per package of the plan: TensorFlow (without the extra: constraints
files take no extras), its `and-cuda` wheels and the install pins. Where the matrix holds a range
(the and-cuda extra of TF 2.20+, or `numpy<2`) the exact version comes from the installer's
dry-run report, or from a fitting version already installed; failing both the range stays, with
a comment that says so. The text is pure; `write_constraints` is the only I/O and writes
atomically (a temporary file beside the target, read back, then renamed).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from envcheck.acquire.install_plan import InstallPlan
from envcheck.atomic_file import write_atomically
from envcheck.errors import InputError
from envcheck.framework_names import label
from envcheck.recommend.rank import Candidate
from envcheck.urls import redact


def constraints_text(plan: InstallPlan, resolved: Mapping[str, str]) -> str:
    """The constraints file for `plan`; `resolved` maps canonical names to exact versions."""
    candidate, machine = plan.candidate, plan.machine
    if isinstance(candidate, Candidate):
        build = (
            f"GPU build, CUDA {candidate.cuda}, cuDNN {candidate.cudnn}"
            if candidate.kind == "gpu"
            else "CPU only"
        )
        what = f"TensorFlow {candidate.tensorflow} ({build})"
    else:
        build = f"GPU build, CUDA {candidate.cuda}" if candidate.kind == "gpu" else "CPU only"
        what = f"{label(plan.framework)} {candidate.version} {candidate.build} ({build})"
    # A PyTorch variant's wheels come from its index: the constraints hold only with it.
    url = plan.recipe.index_url if plan.recipe else None
    index = f" --index-url {redact(url)}" if url else ""
    lines = [
        f"# {what} for {machine.os} {machine.arch}, "
        f"Python {machine.python}; written by envcheck install.",
        "# Use: python -m pip install -c THIS_FILE "
        + " ".join(f'"{r}"' for r in plan.requirements)
        + index,
    ]
    for package in plan.packages:
        exact = package.exact or resolved.get(package.name)
        if exact is not None:
            lines.append(f"{package.name}=={exact}")
        else:
            lines.append(
                f"# {package.name}: the matrix gives the range {package.specifier!r} "
                f"({package.via}) and no dry-run report resolved it; kept as a range"
            )
            lines.append(f"{package.name}{package.specifier}")
    return "\n".join(lines) + "\n"


def check_constraints_path(path: Path) -> Path:
    """`path` when a file can be written there (checked before any work); InputError if not."""
    directory = path.parent if str(path.parent) else Path()
    if not directory.is_dir():
        raise InputError(
            f"--constraints-out {str(path)!r}: the directory {str(directory)!r} does not exist"
        )
    if path.is_dir():
        raise InputError(f"--constraints-out {str(path)!r} is a directory")
    return path


def write_constraints(path: Path, text: str) -> None:
    """Write `text` to `path` atomically; InputError when the place cannot take it."""
    check_constraints_path(path)
    write_atomically(path, text, "--constraints-out")
