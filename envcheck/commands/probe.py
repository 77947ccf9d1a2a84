"""`envcheck probe`: collect the facts of this machine (or of another interpreter's environment)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from envcheck.cli_errors import EXIT_OK, handles_errors
from envcheck.commands.flags import load
from envcheck.errors import EnvcheckError
from envcheck.probe.background import start_probe
from envcheck.probe.collect import collect_facts
from envcheck.report import facts as report_facts


@handles_errors()
def run(args: argparse.Namespace) -> int:
    if args.python is not None and not Path(args.python).exists():
        raise EnvcheckError(f"--python {args.python!r} does not exist")
    # The probe's children run while the matrix loads.
    started = start_probe(args.python, args.timeout, args.import_frameworks)
    facts = collect_facts(load(args.matrix_option), started=started)
    if args.as_json:
        print(json.dumps(facts.to_json(), indent=2))
    else:
        sys.stdout.write(report_facts.to_text(facts))
    return EXIT_OK
