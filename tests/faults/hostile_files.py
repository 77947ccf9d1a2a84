"""Helpers of the hostile-file tests (issue 24: a shared cache, special files, deep nesting).

Every envcheck run is a real process under a wall-clock timeout (a FIFO that blocks fails the
test instead of hanging it) and a 2 GiB address-space limit (a file without end fails it with
MemoryError instead of filling the machine's memory). Nothing here writes to /dev: a device node
a test needs is made by `zero_device` in the test's own folder.
"""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.faults.processes import ENVCHECK, environment

TIMEOUT = 60.0
MEMORY_LIMIT = 2 * 1024 * 1024 * 1024
LOGS = Path(__file__).resolve().parents[1] / "logs"
# recommend for a described machine: reads the matrix, never this one.
RECOMMEND = [
    "recommend", "--os", "linux", "--arch", "x86_64", "--python-version", "3.11",
    "--driver", "550.54.14", "--gpu", "RTX 3060",
]  # fmt: skip
EXPLAIN = ["explain", "--json", str(LOGS / "tf2_linux_cudnn8_missing.log")]


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(
    args: Sequence[str], timeout: float = TIMEOUT, **variables: str
) -> subprocess.CompletedProcess[str]:
    """`envcheck ARGS` with no ENVCHECK_* settings of this machine but `variables`."""
    return subprocess.run(
        [*ENVCHECK, *args],
        env=environment(**variables),
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_bounded,
        check=False,
    )


def one_line_error(result: subprocess.CompletedProcess[str], code: int) -> str:
    """The one stderr line of a run that failed with `code`, checked to be one clean line."""
    assert result.returncode == code, (result.returncode, result.stderr[-2000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr[-2000:]
    assert lines[0].startswith("envcheck: error: "), lines[0]
    assert "Traceback" not in result.stderr
    return lines[0]


def entry_names(*args: Sequence[str], folder: Path) -> list[str]:
    """The names of the cache entries the runs `args` keep (learned in a scratch cache)."""
    for command in args:
        result = run(command, ENVCHECK_CACHE_DIR=str(folder))
        assert result.returncode in (0, 1), result.stderr
    names = sorted(p.name for p in folder.glob("*.json"))
    assert names, "the runs kept no cache entry"
    return names


def zero_device(folder: Path) -> Path:
    """A character device like /dev/zero (endless zeros), made in `folder`, not in /dev."""
    node = folder / "zero"
    os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, 5))
    return node


def edit_entries(folder: Path, change: Callable[[Any], bool]) -> int:
    """Apply `change` to the JSON of every cache entry in `folder`, as a person editing it would
    (a first line that is a digest is kept as it was); the number of entries it changed."""
    changed = 0
    for entry in sorted(folder.glob("*.json")):
        raw = entry.read_bytes()
        head, _, rest = raw.partition(b"\n")
        header = b""
        if len(head) == 64 and all(c in b"0123456789abcdef" for c in head):
            header, raw = head + b"\n", rest
        data = json.loads(raw)
        if change(data):
            entry.write_bytes(header + json.dumps(data, ensure_ascii=False).encode())
            changed += 1
    return changed


def walk(value: Any) -> list[Any]:
    """Every dict and list inside `value`, itself included."""
    found: list[Any] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            found.append(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            pending.extend(item)
    return found
