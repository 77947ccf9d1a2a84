"""Benchmark envcheck against its peers, side by side in one run on this machine.

Prints median wall times over --runs runs and each command's ratio to `envcheck probe`.
Peers are measured only when installed: `python -c "import tensorflow"` (what any TensorFlow
check costs) and `python -m torch.utils.collect_env` (PyTorch's environment report).
Run: python bench/run.py [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _time(command: list[str], env: dict[str, str], runs: int) -> float | None:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        completed = subprocess.run(command, env=env, capture_output=True, check=False)
        samples.append(time.perf_counter() - started)
        if completed.returncode not in (0, 1):
            return None
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = dict(os.environ)
    envcheck = [sys.executable, "-m", "envcheck"]
    with tempfile.TemporaryDirectory() as tmp:
        many = [str(Path(tmp, f"d{i}")) for i in range(1000)]
        for directory in many:
            Path(directory).mkdir()
        wide = {**env, "LD_LIBRARY_PATH": os.pathsep.join(many)}
        rows: list[tuple[str, list[str], dict[str, str]]] = [
            ("python -c pass", [sys.executable, "-c", "pass"], env),
            ("envcheck --version", [*envcheck, "--version"], env),
            ("envcheck matrix validate", [*envcheck, "matrix", "validate"], env),
            ("envcheck recommend", [*envcheck, "recommend"], env),
            ("envcheck probe", [*envcheck, "probe"], env),
            ("envcheck probe (1,000 dirs on LD_LIBRARY_PATH)", [*envcheck, "probe"], wide),
        ]
        if importlib.util.find_spec("tensorflow") is not None:
            tf = [sys.executable, "-c", "import tensorflow"]
            rows.append(("python -c 'import tensorflow'", tf, env))
        if importlib.util.find_spec("torch") is not None:
            torch = [sys.executable, "-m", "torch.utils.collect_env"]
            rows.append(("python -m torch.utils.collect_env", torch, env))
        results = [(name, _time(command, run_env, args.runs)) for name, command, run_env in rows]
    baseline = dict(results).get("envcheck probe")
    print(f"{'command':50} {'median s':>9} {'x probe':>8}")
    for name, seconds in results:
        if seconds is None:
            print(f"{name:50} {'failed':>9}")
            continue
        ratio = f"{seconds / baseline:8.2f}" if baseline else ""
        print(f"{name:50} {seconds:9.3f} {ratio}")


if __name__ == "__main__":
    main()
