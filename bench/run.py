"""Benchmark envcheck against its peers, side by side in one run on this machine.

Prints median wall times over --runs runs and each command's ratio to `envcheck probe`.
Peers are measured only when installed: `python -c "import tensorflow"` (what any TensorFlow
check costs) and `python -m torch.utils.collect_env` (PyTorch's environment report).
`envcheck explain` is timed on a ~100 MB log of realistic lines, generated once, with its peak
memory (maximum resident set size, from /usr/bin/time -v where present), against a bare Python
loop over the same file's lines; without the optional google-re2 package explain falls back to
the standard library's regex engine, and its row says so.
`envcheck fetch` and `pip download --no-deps` fetch the same files (TensorFlow 2.15.1 and its
and-cuda wheels, built as stand-ins) from a local pypiserver on 127.0.0.1.
The targets from the issue are checked at the end: `doctor --no-smoke` under a tenth of a bare
TensorFlow import, the full doctor within 1.2x of a bare import-and-conv script, `--version`
under 0.15 s, fetch within 1.2x of pip download, explain within 4x of the bare line loop.
With --venv PATH (repeatable) it also times the doctor on that environment's frameworks against
their bare imports and import + conv scripts (bench/frameworks.py, which runs those rows alone).
Run: python bench/run.py [--runs 5] [--venv PATH ...]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.index_server builds the stand-in wheels and the index

# After the path set-up above, which is why these are not at the top.
from packaging.requirements import Requirement  # noqa: E402

from bench.frameworks import CONV_SCRIPTS, load, venv_rows, venv_targets  # noqa: E402
from bench.timing import byte_compile, time_interleaved  # noqa: E402
from envcheck.index.wheels import expand_platform  # noqa: E402
from envcheck.matrix.load import bundled_matrix_dir  # noqa: E402
from envcheck.matrix.model import load_matrix  # noqa: E402
from tests.index_server import build_wheel, isolated_pip_environment, pypiserver  # noqa: E402

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


# What the issue measures explain against: a Python loop that reads every line and does nothing.
BARE_LOOP = "import sys\nfor line in open(sys.argv[1], 'rb'):\n    pass\n"


def _engine() -> str:
    """Which scan engine explain uses here (envcheck.explain.triggers): RE2 with the optional
    google-re2 package (pip install 'envcheck[fast]'), else the standard library's."""
    return "" if importlib.util.find_spec("re2") is not None else " [stdlib engine, no google-re2]"


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


CONV_SCRIPT = CONV_SCRIPTS["tensorflow"]


def _fetch_vs_pip(runs: int) -> list[tuple[str, float | None, float | None]]:
    """envcheck fetch against pip download --no-deps: same files, same local index."""
    with tempfile.TemporaryDirectory() as tmp:
        packages = Path(tmp, "packages")
        packages.mkdir()
        release = load_matrix(bundled_matrix_dir()).releases_matching("2.15.1")[0]
        tag = "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64"
        build_wheel(packages, "tensorflow", "2.15.1", tag, payload=40_000_000)
        requirements = ["tensorflow==2.15.1"]
        for pin in release.and_cuda:
            requirement = Requirement(pin)
            version = next(iter(requirement.specifier)).version
            build_wheel(packages, requirement.name, version, "py3-none-manylinux1_x86_64",
                        payload=8_000_000)  # fmt: skip
            requirements.append(pin)
        env = isolated_pip_environment()
        platforms = [a for p in expand_platform("manylinux_2_17_x86_64") for a in ("--platform", p)]
        with pypiserver(packages) as server:
            commands = {
                "envcheck fetch (local index)": [
                    sys.executable, "-m", "envcheck", "fetch", "--tensorflow", "2.15.1",
                    "--platform", "manylinux_2_17_x86_64", "--python-version", "3.11",
                    "--index-url", server.url, "--dest",
                ],
                "pip download --no-deps (same files)": [
                    sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                    "--progress-bar", "off", "-q", *platforms, "--python-version", "3.11",
                    "--implementation", "cp", "--index-url", server.url, *requirements, "-d",
                ],
            }  # fmt: skip
            results = []
            for name, command in commands.items():
                samples = []
                for run in range(runs):
                    dest = Path(tmp, f"out-{run}-{len(results)}")
                    started = time.perf_counter()
                    completed = subprocess.run(
                        [*command, str(dest)], env=env, capture_output=True, check=False
                    )
                    samples.append(time.perf_counter() - started)
                    if completed.returncode != 0:
                        samples = []
                        break
                results.append((name, statistics.median(samples) if samples else None, None))
    return results


def _targets(results: list[tuple[str, float | None, float | None]]) -> list[str]:
    """The issue's speed targets, each with its measured ratio."""
    times = {name: seconds for name, seconds, _ in results if seconds is not None}
    checks = []

    def ratio(name: str, over: str, limit: float, what: str) -> None:
        if name in times and over in times:
            value = times[name] / times[over]
            verdict = "met" if value <= limit else "MISSED"
            checks.append(f"{what}: {value:.2f}x (target <= {limit}x) {verdict}")

    ratio("envcheck doctor --no-smoke", "python -c 'import tensorflow'", 0.1,
          "doctor --no-smoke vs import tensorflow")  # fmt: skip
    ratio("envcheck doctor (with smoke test)", "bare TF import + conv2d script", 1.2,
          "doctor vs bare import + conv")  # fmt: skip
    ratio("envcheck fetch (local index)", "pip download --no-deps (same files)", 1.2,
          "fetch vs pip download")  # fmt: skip
    ratio(f"envcheck explain (100 MB log){_engine()}", "bare line loop (100 MB log)", 4.0,
          "explain vs a bare loop over the log's lines")  # fmt: skip
    if "envcheck --version" in times:
        value = times["envcheck --version"]
        verdict = "met" if value < 0.15 else "MISSED"
        checks.append(f"envcheck --version: {value:.3f} s (target < 0.15 s) {verdict}")
    return checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--venv", action="append", default=[],
        help="also time the doctor on this virtual environment's frameworks (bench/frameworks.py)",
    )  # fmt: skip
    args = parser.parse_args()
    byte_compile()
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
        rows.append(("envcheck doctor --no-smoke", [*envcheck, "doctor", "--no-smoke"], env))
        if importlib.util.find_spec("tensorflow") is not None:
            rows.append(("envcheck doctor (with smoke test)", [*envcheck, "doctor"], env))
            tf = [sys.executable, "-c", "import tensorflow"]
            rows.append(("python -c 'import tensorflow'", tf, env))
            rows.append(
                ("bare TF import + conv2d script", [sys.executable, "-c", CONV_SCRIPT], env)
            )
        if importlib.util.find_spec("torch") is not None:
            torch = [sys.executable, "-m", "torch.utils.collect_env"]
            rows.append(("python -m torch.utils.collect_env", torch, env))
        rows += [row for venv in args.venv for row in venv_rows(venv, env)]
        print(f"load before: {load()}")
        results: list[tuple[str, float | None, float | None]] = [
            (name, seconds, None) for name, seconds in time_interleaved(rows, args.runs)
        ]
        big = Path(tmp, "big.log")
        started = time.perf_counter()
        lines = _write_big_log(big)
        print(
            f"(generated {big.name}: {big.stat().st_size / 2**20:.0f} MB, {lines:,} lines, "
            f"in {time.perf_counter() - started:.1f} s)"
        )
        explain = [*envcheck, "explain", str(big)]
        bare = [sys.executable, "-c", BARE_LOOP, str(big)]
        # Timed taking turns, like the rows above (the ratio is the target); peak memory from
        # runs of their own under /usr/bin/time.
        timed = dict(time_interleaved([("explain", explain, env), ("bare", bare, env)], args.runs))
        _, explain_peak = _time_with_memory(explain, env, 1)
        _, bare_peak = _time_with_memory(bare, env, 1)
        results.append(
            (f"envcheck explain (100 MB log){_engine()}", timed["explain"], explain_peak)
        )
        results.append(("bare line loop (100 MB log)", timed["bare"], bare_peak))
    results.extend(_fetch_vs_pip(args.runs))
    print(f"load after: {load()}")
    baseline = next((s for name, s, _ in results if name == "envcheck probe"), None)
    print(f"{'command':50} {'median s':>9} {'x probe':>8} {'peak MB':>8}")
    for name, seconds, peak in results:
        if seconds is None:
            print(f"{name:50} {'failed':>9}")
            continue
        ratio = f"{seconds / baseline:8.2f}" if baseline else f"{'':8}"
        memory = f" {peak:8.0f}" if peak is not None else ""
        print(f"{name:50} {seconds:9.3f} {ratio}{memory}".rstrip())
    print()
    for line in _targets(results):
        print(line)
    times = {name: seconds for name, seconds, _ in results if seconds is not None}
    for venv in args.venv:
        for line in venv_targets(venv, times):
            print(line)


if __name__ == "__main__":
    main()
