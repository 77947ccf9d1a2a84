"""`envcheck doctor`: will TensorFlow use the GPU here; if not, which link is broken and the fix.

The probe's child processes start first, and the diagnosis (rules, matrix, report) loads while
they run: most of the doctor's wall time is waiting for them (bench/run.py measures it).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from envcheck.atomic_file import check_writable
from envcheck.cli.exits import handles_errors
from envcheck.errors import EnvcheckError
from envcheck.probe.background import StartedProbe, probe_timeout, start_probe
from envcheck.report.formats import Format, choose_format


@handles_errors
def run(args: argparse.Namespace) -> int:
    chosen = choose_format(args.output_format, args.as_json)
    if args.python is not None and not Path(args.python).exists():
        raise EnvcheckError(f"--python {args.python!r} does not exist")
    if args.output is not None:
        check_writable(args.output)  # now, not after a smoke test of minutes
    if args.facts_file is not None:
        return _report(args, chosen, None)
    started = start_probe(python=args.python, timeout=probe_timeout(args.timeout))
    try:
        return _report(args, chosen, started)
    finally:
        started.cancel()  # after an error (a bad --target-gpu, Ctrl-C): exit now, not after NVML


def _report(args: argparse.Namespace, chosen: Format, started: StartedProbe | None) -> int:
    # Loaded now, while the probe's children run (see the module's docstring).
    from envcheck.cli.commands.doctor_report import report  # noqa: PLC0415

    return report(args, chosen, started)
