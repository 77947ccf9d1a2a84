"""Benchmark envcheck against its peers, side by side in one run on this machine.

Prints median wall times over --runs runs and each command's ratio to `envcheck probe`.
Peers are measured only when installed: `python -c "import tensorflow"` (what any TensorFlow
check costs) and `python -m torch.utils.collect_env` (PyTorch's environment report).
`envcheck explain` is timed on the logs of bench/logs.py (a training run's output, a log of
mostly TensorFlow INFO lines from a restarted run, the issue's two INFO lines repeated, 100 MB
each, and logs where every line is a distinct triggered line), each with its peak memory
(maximum resident set size, from /usr/bin/time -v where present), against a bare Python loop
over the same file's lines (bench/explain_logs.py, which runs those rows alone); without the
optional google-re2 package explain falls back to the standard library's regex engine, and
its rows say so.
`envcheck fetch` and `pip download --no-deps` fetch the same files (TensorFlow 2.15.1 and its
and-cuda wheels, built as stand-ins) from a local pypiserver on 127.0.0.1.
The targets from the issue are checked at the end: `doctor --no-smoke` under a tenth of a bare
TensorFlow import, the full doctor within 1.2x of a bare import-and-conv script, `--version`
under 0.15 s, fetch within 1.2x of pip download, explain within 4x of the bare line loop on the
training, TensorFlow INFO and repeated INFO logs and within 10x on the logs of distinct lines.
With --venv PATH (repeatable) it also times the doctor on that environment's frameworks against
their bare imports and import + conv scripts (bench/frameworks.py, which runs those rows alone).
Run: python bench/run.py [--runs 5] [--venv PATH ...] [--only explain] [--mb 100]
(--only explain: the explain rows alone, with their targets; --mb: the size of each explain log
but the one of lines distinct in words, --words-mb.)
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.index_server builds the stand-in wheels and the index

# After the path set-up above, which is why these are not at the top.
from packaging.requirements import Requirement  # noqa: E402

from bench.explain_logs import engine  # noqa: E402
from bench.explain_logs import measure as measure_logs  # noqa: E402
from bench.explain_logs import targets as explain_targets  # noqa: E402
from bench.frameworks import CONV_SCRIPTS, venv_rows, venv_targets  # noqa: E402
from bench.logs import MB  # noqa: E402
from bench.timing import byte_compile, load, time_interleaved  # noqa: E402
from envcheck.index.wheels import expand_platform  # noqa: E402
from envcheck.matrix.load import bundled_matrix_dir  # noqa: E402
from envcheck.matrix.model import load_matrix  # noqa: E402
from tests.index_server import build_wheel, isolated_pip_environment, pypiserver  # noqa: E402

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
    if "envcheck --version" in times:
        value = times["envcheck --version"]
        verdict = "met" if value < 0.15 else "MISSED"
        checks.append(f"envcheck --version: {value:.3f} s (target < 0.15 s) {verdict}")
    return checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--only", choices=("explain",), help="run only these rows (explain: bench/logs.py's logs)"
    )
    parser.add_argument("--mb", type=int, default=100, help="size of each explain log but one")
    parser.add_argument(
        "--words-mb", type=int, default=5, help="size of the log of lines distinct in words"
    )
    parser.add_argument(
        "--venv", action="append", default=[],
        help="also time the doctor on this virtual environment's frameworks (bench/frameworks.py)",
    )  # fmt: skip
    args = parser.parse_args()
    byte_compile()
    results: list[tuple[str, float | None, float | None]] = []
    print(f"load before: {load()}")
    if args.only is None:
        results += _commands(args.runs, args.venv)
    # explain on the logs of bench/logs.py against a bare loop over each one's lines.
    explained = measure_logs(args.runs, mb=args.mb, words_mb=args.words_mb)
    for log in explained:
        label = f" ({log.name}, {log.size / MB:.0f} MB, {log.lines:,} lines)"
        results.append((f"envcheck explain{label}{engine()}", log.explain, log.peak_mb))
        results.append((f"bare line loop{label}", log.bare, None))
        results.append((f"one-search line loop{label}", log.one_search, None))
    if args.only is None:
        results.extend(_fetch_vs_pip(args.runs))
    print(f"load after: {load()}")
    baseline = next((s for name, s, _ in results if name == "envcheck probe"), None)
    width = max([50, *(len(name) for name, _, _ in results)])
    print(f"{'command':{width}} {'median s':>9} {'x probe':>8} {'peak MB':>8}")
    for name, seconds, peak in results:
        if seconds is None:
            print(f"{name:{width}} {'failed':>9}")
            continue
        ratio = f"{seconds / baseline:8.2f}" if baseline else f"{'':8}"
        memory = f" {peak:8.0f}" if peak is not None else ""
        print(f"{name:{width}} {seconds:9.3f} {ratio}{memory}".rstrip())
    print()
    for line in [*_targets(results), *explain_targets(explained)]:
        print(line)
    times = {name: seconds for name, seconds, _ in results if seconds is not None}
    for venv in args.venv:
        for line in venv_targets(venv, times):
            print(line)


def _commands(runs: int, venvs: list[str]) -> list[tuple[str, float | None, float | None]]:
    """The commands timed against each other (every row but explain's and fetch's)."""
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
        rows += [row for venv in venvs for row in venv_rows(venv, env)]
        return [(name, seconds, None) for name, seconds in time_interleaved(rows, runs)]


if __name__ == "__main__":
    main()
