"""Benchmark envcheck against its peers, side by side in one run on this machine.

Prints median wall times over --runs runs and each command's ratio to `envcheck probe`.
Peers are measured only when installed: `python -c "import tensorflow"` (what any TensorFlow
check costs) and `python -m torch.utils.collect_env` (PyTorch's environment report).
`envcheck explain` is timed on a ~100 MB log of realistic lines, generated once, with its peak
memory (maximum resident set size, from /usr/bin/time -v where present).
Run: python bench/run.py [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIG_LOG_BYTES = 100 * 1024 * 1024
# A training run's output: progress and INFO noise, with a few real problems repeated now and then.
_NOISE = (
    "Epoch {n}/200",
    "{n}/1875 [==============================] - 4s 2ms/step - loss: 0.2961 - accuracy: 0.9137",
    "2024-04-03 16:50:32.{m:06d}: I tensorflow/core/common_runtime/executor.cc:1197] "
    "[/job:localhost/replica:0/task:0/device:GPU:0] (DEBUG INFO) Executor start aborting",
    "2024-04-03 16:50:32.{m:06d}: I tensorflow/stream_executor/cuda/cuda_blas.cc:1614] "
    "TensorFloat-32 will be used for the matrix multiplication. This will only be logged once.",
    "index = {n}",
    "",
)
_PROBLEMS = (
    "2021-11-24 04:51:47.{m:06d}: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded "
    "runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN library needs to "
    "have matching major version and equal or higher minor version.",
    "2022-07-10 15:08:09.{m:06d}: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory",
    "2025-11-30 03:28:13.{m:06d}: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] "
    "TF-TRT Warning: Could not find TensorRT",
)


def _write_big_log(path: Path, size: int = BIG_LOG_BYTES) -> int:
    """Write a log of about `size` bytes; returns its number of lines."""
    lines = written = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        while written < size:
            block = []
            for n in range(lines, lines + 10_000):
                pool = _PROBLEMS if n % 4999 == 0 else _NOISE
                block.append(pool[n % len(pool)].format(n=n, m=n % 1_000_000))
            text = "\n".join(block) + "\n"
            out.write(text)
            written += len(text.encode("utf-8"))
            lines += len(block)
    return lines


_MAX_RSS = re.compile(r"Maximum resident set size \(kbytes\): (\d+)")
# Fallback without GNU time: a fresh interpreter runs the command and reports the peak of its only
# child (RUSAGE_CHILDREN here would also count every earlier row's children).
_RUSAGE_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print('Maximum resident set size (kbytes):', peak // 1024 if sys.platform == 'darwin' "
    "else peak, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _time_with_memory(
    command: list[str], env: dict[str, str], runs: int
) -> tuple[float | None, float | None]:
    """Median wall seconds and peak resident memory (MB) of `command` over `runs` runs."""
    gnu_time = shutil.which("time", path="/usr/bin")
    if gnu_time:
        wrapped = [gnu_time, "-v", *command]
    elif sys.platform != "win32":
        wrapped = [sys.executable, "-c", _RUSAGE_WRAPPER, *command]
    else:
        wrapped = command
    samples, peaks = [], []
    for _ in range(runs):
        started = time.perf_counter()
        completed = subprocess.run(wrapped, env=env, capture_output=True, check=False)
        samples.append(time.perf_counter() - started)
        if completed.returncode not in (0, 1):
            return None, None
        found = _MAX_RSS.search(completed.stderr.decode(errors="replace"))
        if found:
            peaks.append(int(found.group(1)) / 1024)
    return statistics.median(samples), max(peaks) if peaks else None


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
        results: list[tuple[str, float | None, float | None]] = [
            (name, _time(command, run_env, args.runs), None) for name, command, run_env in rows
        ]
        big = Path(tmp, "big.log")
        started = time.perf_counter()
        lines = _write_big_log(big)
        print(
            f"(generated {big.name}: {big.stat().st_size / 2**20:.0f} MB, {lines:,} lines, "
            f"in {time.perf_counter() - started:.1f} s)"
        )
        explain = [*envcheck, "explain", str(big)]
        seconds, peak = _time_with_memory(explain, env, args.runs)
        results.append(("envcheck explain (100 MB log)", seconds, peak))
    baseline = next((s for name, s, _ in results if name == "envcheck probe"), None)
    print(f"{'command':50} {'median s':>9} {'x probe':>8} {'peak MB':>8}")
    for name, seconds, peak in results:
        if seconds is None:
            print(f"{name:50} {'failed':>9}")
            continue
        ratio = f"{seconds / baseline:8.2f}" if baseline else f"{'':8}"
        memory = f" {peak:8.0f}" if peak is not None else ""
        print(f"{name:50} {seconds:9.3f} {ratio}{memory}".rstrip())


if __name__ == "__main__":
    main()
