"""Benchmark the doctor on real framework installs: each --venv against its own frameworks.

For every virtual environment given with --venv (repeatable) this times, taking turns run by
run (bench/timing.py): `envcheck doctor --no-smoke --python V/bin/python`, a bare
`V/bin/python -c "import NAME"` for each framework installed there (TensorFlow, PyTorch, JAX),
the full doctor (its smoke tests on), and a bare import + tiny conv forward/backward script per
framework. It prints the medians and the issue's two targets for each environment, measured in
this one run: `doctor --no-smoke` under a tenth of the cheapest bare framework import there,
and the full doctor within 1.2x of the sum of the frameworks' bare import + conv scripts (the
doctor runs each framework's smoke test, so the fair bare cost is all of them).
Run: python bench/frameworks.py --venv PATH [--venv PATH ...] [--runs 5]
(bench/run.py --venv PATH adds the same rows to its table.)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.timing import byte_compile, load, time_interleaved  # noqa: E402

FRAMEWORKS = ("tensorflow", "torch", "jax")  # the doctor's smoke-test order
# What any check that imports the framework and runs one op costs: import + a tiny conv forward
# and backward, as a user's first training step does (the smoke tests do this and a few ops).
CONV_SCRIPTS = {
    "tensorflow": (
        "import tensorflow as tf\n"
        "x = tf.random.normal([1, 8, 8, 3]); k = tf.random.normal([3, 3, 3, 4])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(k); y = tf.reduce_sum(tf.nn.conv2d(x, k, 1, 'SAME'))\n"
        "tape.gradient(y, k)\n"
    ),
    "torch": (
        "import torch\n"
        "x = torch.randn(1, 3, 8, 8); k = torch.randn(4, 3, 3, 3, requires_grad=True)\n"
        "torch.nn.functional.conv2d(x, k, padding=1).sum().backward()\n"
    ),
    "jax": (
        "import jax\n"
        "x = jax.numpy.ones((1, 3, 8, 8)); k = jax.numpy.ones((4, 3, 3, 3))\n"
        "loss = lambda k: jax.lax.conv_general_dilated(x, k, (1, 1), 'SAME').sum()\n"
        "jax.grad(loss)(k).block_until_ready()\n"
    ),
}
_FIND = "import importlib.util as u, sys; print(*[n for n in sys.argv[1:] if u.find_spec(n)])"

Row = tuple[str, list[str], dict[str, str]]


def installed(python: str) -> list[str]:
    """The frameworks `python` can import (found, not imported), in FRAMEWORKS order."""
    done = subprocess.run(
        [python, "-c", _FIND, *FRAMEWORKS], capture_output=True, text=True, check=False
    )
    found = done.stdout.split()
    return [name for name in FRAMEWORKS if name in found]


def _names(venv: str) -> dict[str, str]:
    tag = Path(venv).name
    return {
        "no_smoke": f"[{tag}] envcheck doctor --no-smoke",
        "doctor": f"[{tag}] envcheck doctor (smoke tests on)",
        **{f"import:{n}": f"[{tag}] python -c 'import {n}'" for n in FRAMEWORKS},
        **{f"conv:{n}": f"[{tag}] bare {n} import + conv" for n in FRAMEWORKS},
    }


def venv_rows(venv: str, env: dict[str, str]) -> list[Row]:
    """The rows for one environment: the doctor's two forms and each framework's bare costs."""
    python = str(Path(venv, "bin", "python"))
    present = installed(python)
    names = _names(venv)
    envcheck = [sys.executable, "-m", "envcheck", "doctor", "--python", python]
    rows: list[Row] = [(names["no_smoke"], [*envcheck, "--no-smoke"], env)]
    rows += [(names[f"import:{n}"], [python, "-c", f"import {n}"], env) for n in present]
    rows.append((names["doctor"], envcheck, env))
    rows += [(names[f"conv:{n}"], [python, "-c", CONV_SCRIPTS[n]], env) for n in present]
    return rows


def venv_targets(venv: str, times: dict[str, float]) -> list[str]:
    """The two targets for `venv`, from the medians of one run (a row that failed is absent)."""
    names = _names(venv)
    imports = [times[names[f"import:{n}"]] for n in FRAMEWORKS if names[f"import:{n}"] in times]
    convs = [times[names[f"conv:{n}"]] for n in FRAMEWORKS if names[f"conv:{n}"] in times]
    checks = []
    tag = Path(venv).name
    if names["no_smoke"] in times and imports:
        value = times[names["no_smoke"]] / min(imports)
        verdict = "met" if value <= 0.1 else "MISSED"
        checks.append(
            f"[{tag}] doctor --no-smoke vs the cheapest bare import: {value:.2f}x "
            f"(target <= 0.1x) {verdict}"
        )
    if names["doctor"] in times and convs:
        value = times[names["doctor"]] / sum(convs)
        verdict = "met" if value <= 1.2 else "MISSED"
        checks.append(
            f"[{tag}] doctor vs the sum of bare import + conv ({len(convs)} frameworks): "
            f"{value:.2f}x (target <= 1.2x) {verdict}"
        )
    return checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--venv", action="append", required=True, help="a virtual environment")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    byte_compile()
    env = dict(os.environ)
    rows = [row for venv in args.venv for row in venv_rows(venv, env)]
    print(f"load before: {load()}")
    results = time_interleaved(rows, args.runs)
    print(f"load after:  {load()}")
    print(f"{'command':60} {'median s':>9}")
    for name, seconds in results:
        print(f"{name:60} {'failed':>9}" if seconds is None else f"{name:60} {seconds:9.3f}")
    times = {name: seconds for name, seconds in results if seconds is not None}
    print()
    for venv in args.venv:
        for line in venv_targets(venv, times):
            print(line)


if __name__ == "__main__":
    main()
