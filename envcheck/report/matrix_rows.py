"""Render TensorFlow matrix rows (`envcheck matrix`) as JSON-ready data or a text table. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envcheck.matrix.model import Matrix
from envcheck.matrix.records import TensorflowRelease
from envcheck.report.terminal_text import shown, shown_lines

if TYPE_CHECKING:  # `envcheck matrix` (rows) need not load the checks
    from envcheck.matrix.checks import Problem

SCHEMA = "envcheck.matrix/1"


def _driver_floor(matrix: Matrix, release: TensorflowRelease, os_name: str) -> str | None:
    if release.cuda is None:
        return None
    requirement = matrix.driver_requirement(release.cuda, os_name)
    return str(requirement.minimum) if requirement else None


def release_dict(matrix: Matrix, release: TensorflowRelease) -> dict[str, Any]:
    return {
        "tensorflow": release.series,
        "versions": [str(v) for v in release.versions],
        "gpu_package": release.gpu_package,
        "python": [str(p) for p in release.python],
        "cuda": str(release.cuda) if release.cuda else None,
        "cudnn": str(release.cudnn) if release.cudnn else None,
        "linux_gpu": release.linux_gpu,
        "windows_gpu": release.windows_gpu,
        "platforms": sorted(release.platforms),
        "sass": [f"sm_{c.major}{c.minor}" for c in release.sass],
        "ptx": [f"compute_{c.major}{c.minor}" for c in release.ptx],
        "driver_min": {
            "linux": _driver_floor(matrix, release, "linux"),
            "windows": _driver_floor(matrix, release, "windows"),
        },
        "and_cuda": list(release.and_cuda),
        "notes": list(release.notes),
        "sources": [matrix.sources["tensorflow.toml"][s].citation for s in release.sources],
    }


def series_range(releases: tuple[TensorflowRelease, ...]) -> str:
    """'1.13-2.21': the oldest and the newest TensorFlow series of `releases`."""
    ordered = sorted(releases, key=lambda r: r.latest)
    if not ordered:
        return "none"
    return f"{ordered[0].series}-{ordered[-1].series}"


def to_json(matrix: Matrix, releases: tuple[TensorflowRelease, ...]) -> dict[str, Any]:
    return {"schema": SCHEMA, "releases": [release_dict(matrix, r) for r in releases]}


def to_text(matrix: Matrix, releases: tuple[TensorflowRelease, ...]) -> str:
    header = ("TF", "latest", "Python", "CUDA", "cuDNN", "GPU on", "driver (Linux/Win)", "targets")
    rows = [header]
    for release in releases:
        gpu_on = "+".join(
            name
            for name, flag in (("linux", release.linux_gpu), ("windows", release.windows_gpu))
            if flag
        )
        linux = _driver_floor(matrix, release, "linux") or "-"
        windows = _driver_floor(matrix, release, "windows") or "-"
        python = f"{release.python[0]}-{release.python[-1]}" if release.python else "-"
        rows.append(
            (
                release.series,
                str(release.latest),
                python,
                str(release.cuda) if release.cuda else "-",
                str(release.cudnn) if release.cudnn else "-",
                gpu_on or "-",
                f"{linux}/{windows}",
                ",".join(str(t) for t in release.cuda_targets) or "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows
    ]
    return shown_lines("\n".join(lines)) + "\n"


def validation_to_json(directory: Path, problems: Sequence[Problem]) -> dict[str, Any]:
    """`envcheck matrix validate --json` (envcheck.matrix-validate/1)."""
    return {
        "schema": "envcheck.matrix-validate/1",
        "directory": str(directory),
        "valid": not problems,
        "problems": [{"file": p.file, "message": p.message} for p in problems],
    }


def validation_to_text(directory: Path, problems: Sequence[Problem]) -> str:
    summary = "matrix is valid" if not problems else f"{len(problems)} problem(s)"
    lines = [*(shown(problem) for problem in problems), f"{shown(directory)}: {summary}"]
    return "\n".join(lines) + "\n"
