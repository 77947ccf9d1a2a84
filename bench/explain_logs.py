"""Time `envcheck explain` against a bare Python loop over the same log's lines (issue 22, item 3).

The logs are generated once (bench/logs.py): a training run's output, a log of mostly
TensorFlow INFO lines from a restarted run, the issue's two INFO lines repeated, and two logs
where every line is a distinct triggered line: one whose lines differ in their numbers, one
whose lines differ in their words too (every line judged afresh; smaller, --words-mb, since it
is read line by line). For each log the bare loop and explain take turns run by run
(bench/timing.py), so a slow spell of the machine slows them alike; with --before CHECKOUT the
explain of that checkout (the code before a change, say, in a git worktree) takes its turns in
the same run (--before-runs times: it may take minutes a log). A third loop, one regex search
per line (ONE_SEARCH_LOOP), takes its turns too: explain's ratio to it ("/search") says how far
explain is from the least a line-by-line judge in Python can cost. Peak memory is measured in runs
of its own (/usr/bin/time -v). The targets: within 4x of the bare loop on the training log, the
TensorFlow INFO log and the repeated INFO lines, within 10x on the logs of distinct lines.
Run: python bench/explain_logs.py [--runs 5] [--mb 100] [--words-mb 5] [--before PATH]
     [--before-runs 1] [--limit 900]
(bench/run.py adds the same rows to its table.)
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.logs import MB, write_log  # noqa: E402
from bench.timing import byte_compile, load, time_interleaved  # noqa: E402

# What the issue measures explain against: a Python loop that reads every line and does nothing.
BARE_LOOP = "import sys\nfor line in open(sys.argv[1], 'rb'):\n    pass\n"
# The least any reader that judges lines one at a time in Python does: one search of one
# literal per line (about 2.5 times the bare loop on the distinct-words log, measured on a
# 100 MB copy). explain's ratio to it says how far explain is from what a line-by-line judge
# can reach, beside the ratio to the bare loop.
ONE_SEARCH_LOOP = (
    "import re, sys\nsearch = re.compile(rb'error').search\n"
    "for line in open(sys.argv[1], 'rb'):\n    search(line)\n"
)

# (row name, bench/logs.py kind, target: at most this many times the bare loop)
LOGS = (
    ("training log", "training", 4.0),
    ("TensorFlow INFO log", "TensorFlow INFO", 4.0),
    ("repeated INFO lines", "repeated INFO", 4.0),
    ("distinct lines (numbers differ)", "distinct numbers", 10.0),
    ("distinct lines (words differ)", "distinct words", 10.0),
)


def engine() -> str:
    """Which scan engine explain uses here (envcheck.explain.triggers): RE2 with the optional
    google-re2 package (pip install 'envcheck[fast]'), else the standard library's."""
    return "" if importlib.util.find_spec("re2") is not None else " [stdlib engine, no google-re2]"


@dataclass(frozen=True)
class Result:
    name: str
    size: int  # bytes
    lines: int
    bare: float | None
    one_search: float | None
    explain: float | None
    before: float | None
    peak_mb: float | None
    before_peak_mb: float | None
    target: float

    def ratio(self, seconds: float | None) -> float | None:
        return None if seconds is None or not self.bare else seconds / self.bare

    def to_one_search(self) -> float | None:
        """explain's time over the one-search loop's (ONE_SEARCH_LOOP)."""
        if self.explain is None or not self.one_search:
            return None
        return self.explain / self.one_search


_MAX_RSS = re.compile(r"Maximum resident set size \(kbytes\): (\d+)")
# Without GNU time: a fresh interpreter runs the command and reports the peak of its only child
# (RUSAGE_CHILDREN of the bench itself would count every earlier row's children too).
_RUSAGE_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print('Maximum resident set size (kbytes):', peak // 1024 if sys.platform == 'darwin' "
    "else peak, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def peak_mb(command: list[str], cwd: Path, limit: float | None) -> float | None:
    """Peak resident memory (MB) of one run of `command` (None where it cannot be told)."""
    gnu_time = shutil.which("time", path="/usr/bin")
    if gnu_time:
        wrapped = [gnu_time, "-v", *command]
    elif sys.platform != "win32":
        wrapped = [sys.executable, "-c", _RUSAGE_WRAPPER, *command]
    else:
        return None
    try:
        completed = subprocess.run(
            wrapped, cwd=cwd, capture_output=True, timeout=limit, check=False
        )
    except subprocess.TimeoutExpired:
        return None
    found = _MAX_RSS.search(completed.stderr.decode(errors="replace"))
    return int(found.group(1)) / 1024 if found else None


def measure(
    runs: int = 5,
    mb: int = 100,
    words_mb: int = 5,
    before: Path | None = None,
    before_runs: int = 1,
    limit: float | None = None,
) -> list[Result]:
    """Time every log of LOGS (see the module docstring)."""
    byte_compile()
    results = []
    # -m envcheck from a checkout's folder imports that checkout's envcheck; ENVCHECK_*
    # settings of the caller's shell would change what is timed.
    with tempfile.TemporaryDirectory(prefix="envcheck-bench-logs-") as temporary:
        for name, kind, target in LOGS:
            path = Path(temporary, kind.replace(" ", "-") + ".log")
            size = (words_mb if kind == "distinct words" else mb) * MB
            lines = write_log(kind, path, size)
            explain = [sys.executable, "-m", "envcheck", "explain", str(path)]
            rows: list[tuple[str, list[str], dict[str, str] | None]] = [
                ("bare", [sys.executable, "-c", BARE_LOOP, str(path)], None),
                ("one search", [sys.executable, "-c", ONE_SEARCH_LOOP, str(path)], None),
                ("explain", explain, None),
            ]
            if before is not None:
                rows.append(("before", explain, None))
            times = dict(
                time_interleaved(
                    rows,
                    runs,
                    limit,
                    cwd=ROOT,
                    row_runs={"before": before_runs},
                    row_cwds={"before": before} if before is not None else None,
                )
            )
            results.append(
                Result(
                    name,
                    path.stat().st_size,
                    lines,
                    times["bare"],
                    times["one search"],
                    times["explain"],
                    times.get("before"),
                    peak_mb(explain, ROOT, limit),
                    peak_mb(explain, before, limit)
                    if before is not None and times["before"]
                    else None,
                    target,
                )
            )
            path.unlink()
    return results


def _seconds(value: float | None) -> str:
    return "over the limit" if value is None else f"{value:.2f}"


def _times(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}x"


def report(results: list[Result], before: bool) -> list[str]:
    """The table and the targets, as printed."""
    head = (
        f"{'log':34} {'MB':>5} {'lines':>9} {'bare s':>7} {'search s':>8} {'explain s':>9} "
        f"{'ratio':>6} {'/search':>7}"
    )
    if before:
        head += f" {'before s':>9} {'ratio':>6}"
    out = [head + f" {'peak MB':>8}" + (f" {'before':>7}" if before else "")]
    for result in results:
        line = (
            f"{result.name + engine():34} {result.size / MB:5.0f} {result.lines:9,} "
            f"{_seconds(result.bare):>7} {_seconds(result.one_search):>8} "
            f"{_seconds(result.explain):>9} {_times(result.ratio(result.explain)):>6} "
            f"{_times(result.to_one_search()):>7}"
        )
        if before:
            line += f" {_seconds(result.before):>9} {_times(result.ratio(result.before)):>6}"
        peak = "-" if result.peak_mb is None else f"{result.peak_mb:.0f}"
        line += f" {peak:>8}"
        if before:
            old = "-" if result.before_peak_mb is None else f"{result.before_peak_mb:.0f}"
            line += f" {old:>7}"
        out.append(line)
    out.append("")
    out.extend(targets(results))
    return out


def targets(results: list[Result]) -> list[str]:
    checks = []
    for result in results:
        ratio = result.ratio(result.explain)
        if ratio is None:
            checks.append(f"explain on the {result.name}: not measured")
            continue
        verdict = "met" if ratio <= result.target else "MISSED"
        checks.append(
            f"explain on the {result.name} vs a bare loop over its lines: {ratio:.2f}x "
            f"(target <= {result.target:g}x) {verdict}"
        )
    return checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mb", type=int, default=100, help="size of each log but the next")
    parser.add_argument("--words-mb", type=int, default=5, help="size of the distinct-words log")
    parser.add_argument("--before", type=Path, help="another envcheck checkout to time too")
    parser.add_argument("--before-runs", type=int, default=1)
    parser.add_argument("--limit", type=float, default=None, help="seconds per command at most")
    args = parser.parse_args()
    print(f"load before: {load()}")
    results = measure(args.runs, args.mb, args.words_mb, args.before, args.before_runs, args.limit)
    print(f"load after: {load()}")
    for line in report(results, args.before is not None):
        print(line)


if __name__ == "__main__":
    main()
