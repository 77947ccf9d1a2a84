"""Start the framework scan's child (children/frameworks.py) before the rest of envcheck loads.

The scan is the probe's slowest child (the probed interpreter's start-up, then every RECORD of
its site-packages); the doctor launches it first thing, and loads the probe's other modules,
the diagnosis and the matrix while it runs. Kept apart from probe/frameworks.py, which turns the
child's answer into facts: this module imports nothing heavier than the child runner.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from envcheck.probe.isolation import ChildGroup, LaunchedChild, launch_child

CHILD = "frameworks"


def scan_argument(
    paths: Sequence[str] | None, pythonpath: Sequence[str], import_tensorflow: bool = False
) -> dict[str, Any]:
    """The child's JSON argument (its docstring describes the keys)."""
    return {
        "paths": None if paths is None else [os.fspath(p) for p in paths],
        "pythonpath": list(pythonpath),
        "import_tensorflow": import_tensorflow,
    }


def launch_scan(
    python: str | None,
    pythonpath: Sequence[str],
    group: ChildGroup,
    paths: Sequence[str] | None = None,
) -> LaunchedChild:
    """Start the scan of `python` (default: this interpreter); probe_environment(launched=...)
    reads its answer."""
    return launch_child(CHILD, scan_argument(paths, pythonpath), python=python, group=group)
