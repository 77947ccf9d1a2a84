"""Check that `envcheck explain` says exactly the same thing before and after a change.

Three steps, each a subcommand:

  inputs DIR             write the logs to compare under DIR/inputs: every log of tests/logs,
                         tests/corpus* (but the sealed held-out set) and tests/seeds, one
                         log per signature made of its sample lines (tests/test_signatures.py),
                         the benchmark's logs at 0.3 MB
                         (bench/logs.py), and logs built to repeat: public logs pasted many
                         times over, some with digits changed here and there or lines dropped,
                         so that every shortcut for repeated lines is taken and then broken.
  run DIR LABEL ROOT     explain every input with the envcheck of the checkout ROOT (the code
                         before a change, say, in a git worktree), once with each scan engine
                         (RE2 where google-re2 is installed, and the standard library's), and
                         write its text, JSON and Markdown output and exit status to DIR/LABEL.
  compare DIR A B ...    compare the outputs of runs A, B, ... byte for byte; exit 1 on any
                         difference, naming the inputs that differ.

Run, e.g.:
  python bench/explain_outputs.py inputs /tmp/out
  python bench/explain_outputs.py run /tmp/out before /path/to/main-worktree
  python bench/explain_outputs.py run /tmp/out after .
  python bench/explain_outputs.py compare /tmp/out before after
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run inside the checkout being measured (its envcheck comes first on sys.path): reads the input
# list, explains each input with the engine asked for, and writes one JSON line per input.
_RUNNER = r"""
import json, sys, traceback
root, engine, listing = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, root)
try:  # (explain/explain.py before it was named explanation.py, in an older checkout)
    from envcheck.explain import explanation as explain_module
except ImportError:
    from envcheck.explain import explain as explain_module
explain_log = explain_module.explain_log
from envcheck.explain.reader import read_chunks
from envcheck.explain.triggers import folded_scan
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.report.explanation import render
from envcheck.report.formats import choose_format
if engine == "stdlib":
    explain_module._SCANS.clear()
    explain_module.combined = folded_scan
matrix = load_matrix(bundled_matrix_dir())
formats = {"text": choose_format("text", False), "json": choose_format("json", True),
           "markdown": choose_format("markdown", False)}
for path in open(listing, encoding="utf-8").read().splitlines():
    result = {"input": path}
    try:
        explanation = explain_log(read_chunks(path), matrix.signatures, matrix, matrix.known_bugs)
        for name, chosen in formats.items():
            result[name] = render(explanation, chosen)
        result["exit"] = int(any(f.severity.value == "error" for f in explanation.findings))
    except Exception as exc:
        result["error"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(result), flush=True)
"""


def _public_logs() -> list[Path]:
    sys.path.insert(0, str(ROOT))
    from tests.corpus_cases import SEALED  # noqa: PLC0415

    tests = ROOT / "tests"
    found = [*sorted((tests / "logs").rglob("*.log")), *sorted((tests / "seeds").glob("*.txt"))]
    for corpus in sorted(tests.glob("corpus*")):
        if corpus.is_dir() and corpus not in SEALED:
            # (The sealed held-out set is read only by its final scoring: bench/corpus.py.)
            found.extend(sorted(corpus.rglob("*.log")))
    return found


def _signature_samples() -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT))
    from tests.test_signatures import _all_samples  # noqa: PLC0415

    samples: dict[str, list[str]] = {}
    for signature_id, line in _all_samples():
        samples.setdefault(signature_id, []).append(line)
    return samples


def _perturbed(data: bytes, rng: random.Random) -> bytes:
    """`data` with a digit changed on one line in fifty and one line in a hundred dropped."""
    lines = data.split(b"\n")
    out = []
    for line in lines:
        roll = rng.random()
        if roll < 0.01:
            continue
        kept = line
        if roll < 0.03:
            digits = [i for i, byte in enumerate(line) if 48 <= byte <= 57]
            if digits:
                at = rng.choice(digits)
                kept = line[:at] + bytes([48 + (line[at] - 47) % 10]) + line[at + 1 :]
        out.append(kept)
    return b"\n".join(out)


def write_inputs(folder: Path) -> list[Path]:
    """Write every input log under folder/inputs; returns their paths."""
    sys.path.insert(0, str(ROOT))
    from bench.logs import LOGS, MB, write_log  # noqa: PLC0415

    inputs = folder / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def put(name: str, data: bytes) -> None:
        path = inputs / name
        path.write_bytes(data)
        written.append(path)

    public = _public_logs()
    for path in public:
        put("public-" + "-".join(path.relative_to(ROOT / "tests").parts), path.read_bytes())
    for signature_id, lines in sorted(_signature_samples().items()):
        put(f"samples-{signature_id}.log", ("\n".join(lines) + "\n").encode())
    for kind in LOGS:
        path = inputs / f"bench-{kind.replace(' ', '-')}.log"
        # (A few hundred kB: the standard library's engine before issue 22 took minutes on a
        # few MB of repeated INFO lines.)
        write_log(kind, path, MB * 3 // 10)
        written.append(path)
    rng = random.Random(22)
    # Pasted again and again (a restarted run): 120 copies take every signature past the hits
    # kept per signature, so that later copies are passed over (envcheck.explain.cycles).
    small = [path for path in public if path.stat().st_size <= 4096]
    for path in rng.sample(small, 60):
        data = path.read_bytes()
        if not data.endswith(b"\n"):
            data += b"\n"
        stem = "-".join(path.relative_to(ROOT / "tests").parts)
        put(f"repeated-{stem}", data * 120)
        put(f"perturbed-{stem}", _perturbed(data * 120, rng))
    return written


def run(folder: Path, label: str, root: Path) -> None:
    listing = folder / "inputs.txt"
    paths = sorted(str(p) for p in (folder / "inputs").iterdir())
    listing.write_text("\n".join(paths) + "\n", encoding="utf-8")
    out = folder / label
    out.mkdir(parents=True, exist_ok=True)
    for engine in ("re2", "stdlib"):
        completed = subprocess.run(
            [sys.executable, "-c", _RUNNER, str(root.resolve()), engine, str(listing)],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            raise SystemExit(f"{label} ({engine}) failed:\n{completed.stderr[-4000:]}")
        (out / f"{engine}.jsonl").write_text(completed.stdout, encoding="utf-8")
        print(f"{label} ({engine}): {len(completed.stdout.splitlines())} inputs explained")


def _load(folder: Path, label: str, engine: str) -> dict[str, dict[str, object]]:
    lines = (folder / label / f"{engine}.jsonl").read_text(encoding="utf-8").splitlines()
    return {entry["input"]: entry for entry in map(json.loads, lines)}


def compare(folder: Path, labels: list[str]) -> int:
    runs = {
        f"{label}/{engine}": _load(folder, label, engine)
        for label in labels
        for engine in ("re2", "stdlib")
    }
    first_name, first = next(iter(runs.items()))
    differing = 0
    for name, other in runs.items():
        if other.keys() != first.keys():
            print(f"{name}: other inputs than {first_name}")
            differing += 1
            continue
        for key, entry in first.items():
            if other[key] != entry:
                differing += 1
                print(f"DIFFERS: {Path(key).name} ({first_name} vs {name})")
    digest = hashlib.sha256(json.dumps(first, sort_keys=True).encode()).hexdigest()[:16]
    verdict = "identical" if not differing else f"{differing} differences"
    print(f"{len(first)} inputs x {len(runs)} runs ({', '.join(runs)}): {verdict} (sha {digest})")
    return 1 if differing else 0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    inputs = commands.add_parser("inputs")
    inputs.add_argument("folder", type=Path)
    runs = commands.add_parser("run")
    runs.add_argument("folder", type=Path)
    runs.add_argument("label")
    runs.add_argument("root", type=Path)
    comparing = commands.add_parser("compare")
    comparing.add_argument("folder", type=Path)
    comparing.add_argument("labels", nargs="+")
    args = parser.parse_args()
    if args.command == "inputs":
        print(f"{len(write_inputs(args.folder))} inputs written")
    elif args.command == "run":
        run(args.folder, args.label, args.root)
    else:
        raise SystemExit(compare(args.folder, args.labels))


if __name__ == "__main__":
    main()
