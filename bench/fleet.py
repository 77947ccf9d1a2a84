"""Benchmark `envcheck fleet` on a generated cluster's reports (issue 21, 5: 10,000 reports in
at most 5 s, memory flat in the number of reports).

The generator renders real doctor reports with the doctor's own code (diagnose + report) for a
few dozen node configurations (drivers from R470 to R580, a dozen GPU models, TensorFlow,
PyTorch and JAX builds, cuDNN copies, CPU-only nodes, deadline-cut reports), 10-40 KB each,
and writes one per node, most nodes in a few big groups as on a real cluster. About 4% are
set apart: cut short, another schema, older duplicates of a node, older than --max-age.
Then `envcheck fleet DIR --format json --max-age 24h` runs as a child process for 1,000 and
10,000 reports; its wall time (median of --runs) and peak resident memory (the child's
ru_maxrss) are printed, and the 5 s target is checked.

Run: python bench/fleet.py [--runs 3] [--sizes 1000 10000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.facts_builder describes the machines

# After the path set-up above, which is why these are not at the top.
from envcheck.diagnose.doctor import diagnose  # noqa: E402
from envcheck.diagnose.node import node_result  # noqa: E402
from envcheck.matrix.load import bundled_matrix_dir  # noqa: E402
from envcheck.matrix.model import load_matrix  # noqa: E402
from envcheck.probe.facts import Facts, WheelFacts  # noqa: E402
from envcheck.report.doctor import to_json  # noqa: E402
from envcheck.report.stamp import Stamp  # noqa: E402
from tests.facts_builder import (  # noqa: E402
    LINUX,
    SITE,
    driver,
    gpu,
    healthy_libraries,
    jax,
    machine,
    tensorflow,
    torch,
)

TARGET_S = 5.0
NODE = "NODE-PLACEHOLDER-0000000000"
TIME = "2000-01-01T00:00:00Z"

# The nvidia-* wheels a real tensorflow[and-cuda] or torch install brings, with their pins:
# what makes a real report 10-40 KB (its facts list every wheel and library).
WHEELS = tuple(
    WheelFacts(name, version, SITE, (f"nvidia-cuda-runtime-cu12=={version}",))
    for name, version in (
        ("nvidia-cublas-cu12", "12.5.3.2"), ("nvidia-cuda-cupti-cu12", "12.5.82"),
        ("nvidia-cuda-nvcc-cu12", "12.5.82"), ("nvidia-cuda-nvrtc-cu12", "12.5.82"),
        ("nvidia-cuda-runtime-cu12", "12.5.82"), ("nvidia-cudnn-cu12", "9.3.0.75"),
        ("nvidia-cufft-cu12", "11.2.3.61"), ("nvidia-curand-cu12", "10.3.6.82"),
        ("nvidia-cusolver-cu12", "11.6.3.83"), ("nvidia-cusparse-cu12", "12.5.1.3"),
        ("nvidia-nccl-cu12", "2.21.5"), ("nvidia-nvjitlink-cu12", "12.5.82"),
    )
)  # fmt: skip

DRIVERS = [("580.65.06", "13.0"), ("570.133.07", "12.8"), ("550.54.14", "12.4"),
           ("535.104.05", "12.2"), ("470.256.02", "11.4")]  # fmt: skip
GPUS = [("NVIDIA H100 80GB HBM3", "9.0"), ("NVIDIA A100-SXM4-80GB", "8.0"),
        ("NVIDIA L4", "8.9"), ("Tesla V100-SXM2-16GB", "7.0"), ("NVIDIA GeForce RTX 4090", "8.9"),
        ("Tesla T4", "7.5"), ("NVIDIA A10", "8.6"), ("NVIDIA L40S", "8.9")]  # fmt: skip


def configurations() -> list[tuple[Facts, tuple[str, ...]]]:
    """A few dozen distinct nodes: (facts, the deadline's not_checked)."""
    stacks = [
        ((tensorflow("2.18.1"),), healthy_libraries()),
        ((tensorflow("2.18.1"),), healthy_libraries(cudnn_version="9.1.0")),
        ((torch("2.14.1", "13.0"),), ()),
        ((torch("2.14.1", "12.6"),), ()),
        ((tensorflow("2.18.1"), torch("2.14.1", "13.0")), healthy_libraries()),
        (jax("0.7.2", "12"), ()),
    ]
    found: list[tuple[Facts, tuple[str, ...]]] = []
    chance = random.Random(21)
    for version, cuda in DRIVERS:
        for name, capability in chance.sample(GPUS, 4):
            frameworks, libraries = chance.choice(stacks)
            facts = machine(driver=driver(version, cuda), gpus=(gpu(name, capability),),
                            frameworks=frameworks, libraries=libraries,
                            wheels=WHEELS[: chance.randint(4, len(WHEELS))])  # fmt: skip
            found.append((facts, ()))
    cpu = replace(LINUX, nvidia_gpu="absent", device_nodes=())
    found.append((machine(driver=driver(None, None, "missing"), gpus=(), platform=cpu), ()))
    found.append((machine(), ("driver", "gpu-architecture")))  # the deadline cut the driver
    return found


def templates() -> list[str]:
    """Each configuration's report as JSON text, with placeholders for the node and time."""
    matrix = load_matrix(bundled_matrix_dir())
    stamp = Stamp(NODE, TIME, "0.1.0", 0.0)
    texts = []
    for facts, unchecked in configurations():
        report = diagnose(facts, matrix, not_checked=unchecked)
        data = to_json(report, node_result(report, smoke_asked=False), stamp)
        texts.append(json.dumps(data, indent=2))
    return texts


def _stamp(text: str, node: str, when: float) -> str:
    moment = datetime.fromtimestamp(when, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return text.replace(NODE, node, 1).replace(TIME, moment, 1)


def generate(directory: Path, count: int, texts: list[str], seed: int = 5) -> dict[str, int]:
    """`count` report files in `directory`; how many of each kind were written."""
    chance = random.Random(seed)
    now = time.time()
    # A real cluster: a few big groups and a tail of small ones.
    weights = [chance.paretovariate(1.2) for _ in texts]
    kinds = {"reports": 0, "cut short": 0, "other schema": 0, "duplicates": 0, "stale": 0}
    for number in range(count):
        node = f"gpu{number:05d}"
        text = _stamp(chance.choices(texts, weights)[0], node, now - chance.uniform(0, 3600))
        roll = chance.random()
        if roll < 0.01:
            text, kind = text[: len(text) // 3], "cut short"
        elif roll < 0.015:
            text, kind = text.replace("envcheck.report/1", "envcheck.report/2", 1), "other schema"
        elif roll < 0.025:
            text, kind = _stamp(texts[0], f"gpu{number - 1:05d}", now - 7200), "duplicates"
        elif roll < 0.04:
            text, kind = _stamp(texts[1], node, now - 3 * 86400), "stale"
        else:
            kind = "reports"
        kinds[kind] += 1
        (directory / f"{number:05d}.json").write_text(text, encoding="utf-8")
    return kinds


def run_fleet(directory: Path) -> tuple[float, int, int]:
    """(wall seconds, peak resident memory in KiB, exit code) of one `envcheck fleet` run."""
    command = [sys.executable, "-m", "envcheck", "fleet", str(directory), "--format", "json",
               "--max-age", "24h", "-o", os.devnull]  # fmt: skip
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss, child.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--keep", type=Path, help="write the reports here and keep them")
    args = parser.parse_args()
    texts = templates()
    sizes = [len(t.encode()) for t in texts]
    print(f"{len(texts)} node configurations; reports of {min(sizes) // 1024}-"
          f"{max(sizes) // 1024} KB")  # fmt: skip
    rows = []
    for count in args.sizes:
        base = args.keep or Path(tempfile.mkdtemp(prefix="envcheck-fleet-bench-"))
        directory = base / f"reports-{count}"
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        try:
            kinds = generate(directory, count, texts)
            total = sum(p.stat().st_size for p in directory.iterdir())
            run_fleet(directory)  # once to warm the page cache, as a cluster's NFS client would
            results = [run_fleet(directory) for _ in range(args.runs)]
        finally:
            if args.keep is None:
                shutil.rmtree(base, ignore_errors=True)
        wall = statistics.median(r[0] for r in results)
        peak = max(r[1] for r in results) / 1024
        rows.append((count, total / 1e6, wall, peak, kinds, results[0][2]))
    print(
        "\n| reports | MB | median s | peak RSS MiB | set apart | exit |\n|---|---|---|---|---|---|"
    )
    for count, megabytes, wall, peak, kinds, code in rows:
        apart = count - kinds["reports"]
        print(f"| {count:,} | {megabytes:.0f} | {wall:.2f} | {peak:.1f} | {apart} | {code} |")
    for count, _, wall, _, _, _ in rows:
        if count >= 10000:
            verdict = "met" if wall <= TARGET_S else "MISSED"
            print(f"\nTarget: {count:,} reports in <= {TARGET_S:g} s: {wall:.2f} s, {verdict}")
    if len(rows) > 1:
        print(f"Memory: {rows[0][3]:.1f} MiB for {rows[0][0]:,} reports, "
              f"{rows[-1][3]:.1f} MiB for {rows[-1][0]:,}")  # fmt: skip


if __name__ == "__main__":
    main()
