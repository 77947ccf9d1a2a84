"""Benchmark `envcheck probe` against the size of a site-packages: linear, not wheels x entries.

Builds site-packages directories once, in a temporary folder: one empty, one per --sizes count of
`nvidia_*` distributions (a *.dist-info folder with METADATA and a RECORD naming one library, as
the nvidia-* wheels have; with --lib-dirs each also gets its nvidia/<name>/lib directory and
library file, which the loader search then has to look through), and one with --plain plain
files. Each is put on PYTHONPATH (the probe's framework scan and library owners read it as a
site directory) and `envcheck probe` is timed on it, the rows taking turns run by run
(bench/timing.py). Prints the median seconds, the seconds over the empty site, and that extra
per 1,000 distributions: linear growth keeps the last column flat (issue 24: 1,000 extra
distributions took 39 s, 2,000 161 s, 4,000 over 5 minutes).
--root times another envcheck checkout (the code before a change, say), run from that folder;
--limit ends a command that runs longer (its row then reads "over the limit").
Run: python bench/probe_sitepackages.py [--runs 3] [--sizes 1000,2000,4000,10000]
     [--plain 100000] [--lib-dirs] [--root PATH] [--limit 120]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.timing import byte_compile, time_interleaved  # noqa: E402


def build_site(site: Path, distributions: int, plain: int = 0, lib_dirs: bool = False) -> Path:
    """A site-packages of `distributions` nvidia_* distributions and `plain` plain files."""
    site.mkdir(parents=True)
    for number in range(distributions):
        name = f"nvidia_bench{number}_cu12"
        version = f"1.0.{number}"
        library = f"nvidia/bench{number}/lib/libbench{number}.so.1"
        info = site / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n\n"
        )
        (info / "RECORD").write_text(f"{library},,\n{info.name}/METADATA,,\n{info.name}/RECORD,,\n")
        if lib_dirs:
            (site / library).parent.mkdir(parents=True)
            (site / library).write_bytes(b"\x7fELF")  # a truncated ELF file: read, never loaded
    for number in range(plain):
        (site / f"module{number}.py").write_bytes(b"")
    return site


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="1000,2000,4000,10000")
    parser.add_argument("--plain", type=int, default=100_000)
    parser.add_argument("--lib-dirs", action="store_true")
    parser.add_argument("--root", type=Path, default=ROOT, help="the envcheck checkout to time")
    parser.add_argument("--limit", type=float, default=None, help="seconds per command at most")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",") if size]
    if args.root == ROOT:
        byte_compile()
    # -m envcheck from the checkout's folder imports that checkout's envcheck, ahead of any
    # installed one; ENVCHECK_* settings of the caller's shell would change what is timed.
    base = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    base.pop("PYTHONPATH", None)
    command = [sys.executable, "-m", "envcheck", "probe"]
    with tempfile.TemporaryDirectory(prefix="envcheck-bench-site-") as temporary:
        folder = Path(temporary)
        sites = {"empty site-packages": build_site(folder / "empty", 0)}
        for size in sizes:
            sites[f"{size:,} distributions"] = build_site(
                folder / f"d{size}", size, lib_dirs=args.lib_dirs
            )
        if args.plain:
            sites[f"{args.plain:,} plain files"] = build_site(folder / "plain", 0, args.plain)
        rows = [(name, command, {**base, "PYTHONPATH": str(site)}) for name, site in sites.items()]
        results = dict(time_interleaved(rows, args.runs, args.limit, cwd=args.root))
    empty = results["empty site-packages"]
    print(f"envcheck probe on a site-packages of ... ({args.root}; medians of {args.runs} runs)")
    print(f"{'site-packages':<28} {'median s':>9} {'extra s':>8} {'extra s per 1k':>15}")
    per_thousand: list[float] = []
    for name, seconds in results.items():
        if seconds is None:
            over = f"over the {args.limit:g} s limit" if args.limit else "failed"
            print(f"{name:<28} {over:>9}")
            continue
        extra = seconds - empty if empty is not None else None
        line = f"{name:<28} {seconds:>9.3f} {'' if extra is None else f'{extra:.3f}':>8}"
        size = next((s for s in sizes if name == f"{s:,} distributions"), None)
        if size and extra is not None:
            per_thousand.append(extra / size * 1000)
            line += f" {per_thousand[-1]:>15.3f}"
        print(line)
    if len(per_thousand) >= 2 and per_thousand[0] > 0:
        growth = per_thousand[-1] / per_thousand[0]
        verdict = "linear" if growth < 2 else "faster than linear"
        print(
            f"extra per 1,000 distributions, largest size against smallest: {growth:.2f}x "
            f"({verdict}; quadratic growth would be {sizes[-1] / sizes[0]:.0f}x)"
        )


if __name__ == "__main__":
    main()
