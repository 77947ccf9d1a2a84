"""Timing helpers shared by the bench scripts (run.py, frameworks.py, explain_logs.py, ...)."""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def time_interleaved(
    rows: list[tuple[str, list[str], dict[str, str] | None]],
    runs: int,
    limit: float | None = None,
    cwd: Path | None = None,
    row_runs: Mapping[str, int] | None = None,
    row_cwds: Mapping[str, Path] | None = None,
) -> list[tuple[str, float | None]]:
    """Median seconds of each row, the rows taking turns run by run: a machine that slows down
    for a while (another tenant, a thermal limit) then slows every command alike, and the
    ratios between them stay fair. A row that fails, or runs past `limit` seconds, is None.
    `row_runs` and `row_cwds` give a row (by name) its own number of runs and folder."""
    runs_of = {name: (row_runs or {}).get(name, runs) for name, _, _ in rows}
    samples: dict[str, list[float]] = {name: [] for name, _, _ in rows}
    failed: set[str] = set()
    for run in range(max(runs_of.values(), default=0)):
        for name, command, env in rows:
            if name in failed or run >= runs_of[name]:
                continue
            started = time.perf_counter()
            try:
                completed = subprocess.run(
                    command,
                    env=env,
                    cwd=(row_cwds or {}).get(name, cwd),
                    capture_output=True,
                    check=False,
                    timeout=limit,
                )
            except subprocess.TimeoutExpired:
                failed.add(name)
                continue
            samples[name].append(time.perf_counter() - started)
            if completed.returncode not in (0, 1):
                failed.add(name)
    return [
        (name, None if name in failed or not samples[name] else statistics.median(samples[name]))
        for name, _, _ in rows
    ]


def byte_compile() -> None:
    """Compile envcheck's modules as pip does when it installs a package. In a checkout with
    PYTHONDONTWRITEBYTECODE set (as in many containers) every run would otherwise recompile the
    changed modules, which an installed envcheck never does."""
    compileall.compile_dir(str(ROOT / "envcheck"), quiet=1)


def load() -> str:
    """The load averages (1, 5, 15 min): timing on a shared machine means little without them."""
    if not hasattr(os, "getloadavg"):  # Windows
        return "?"
    return " ".join(f"{value:.2f}" for value in os.getloadavg())
