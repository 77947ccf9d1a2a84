"""`envcheck probe`: collect the facts of this machine (or of another interpreter's environment).

Like the doctor, it starts the probe's child processes before it loads the rest (the matrix, the
library search, the report), which then happens while they run.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from envcheck.cli.exits import EXIT_OK, handles_errors
from envcheck.cli.report_output import chosen_format, progress, write_report
from envcheck.cli.table import PROBE_FORMATS
from envcheck.errors import EnvcheckError
from envcheck.probe.background import start_probe


@handles_errors
def run(args: argparse.Namespace) -> int:
    chosen = chosen_format(args.output_format, args.as_json, args.output, PROBE_FORMATS)
    if args.python is not None and not Path(args.python).exists():
        raise EnvcheckError(f"--python {args.python!r} does not exist")
    started = start_probe(args.python, args.timeout, args.import_frameworks)
    say = progress(chosen)
    if say is not None and args.import_frameworks:
        say("importing the frameworks in a child process (about 10 s)…")
    try:
        # Loaded now, while the probe's children run (see the module's docstring).
        from envcheck.cli.commands.matrix_choice import load  # noqa: PLC0415
        from envcheck.probe.collect import collect_facts  # noqa: PLC0415
        from envcheck.report import facts as report_facts  # noqa: PLC0415

        facts = collect_facts(
            load(args.matrix_option), started=started, all_libraries=args.all_libraries
        )
    finally:
        started.cancel()  # after an error (a bad --matrix, Ctrl-C): exit now
    if chosen == "json":
        text = json.dumps(facts.to_json(), indent=2) + "\n"
    else:
        text = report_facts.to_text(facts)
    write_report(args.output, text, chosen)
    return EXIT_OK
