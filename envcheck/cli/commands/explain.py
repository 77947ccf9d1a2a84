"""`envcheck explain`: a pasted TensorFlow / CUDA / cuDNN log → what is wrong and what to do."""

from __future__ import annotations

import argparse
import sys

from envcheck.cli.commands.matrix_choice import load
from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_OK, handles_errors
from envcheck.diagnose.log_diagnosis import reason_over_log
from envcheck.explain.explain import explain_log
from envcheck.explain.reader import read_chunks
from envcheck.report.explanation import render
from envcheck.report.formats import choose_format


@handles_errors
def run(args: argparse.Namespace) -> int:
    chosen = choose_format(args.output_format, args.as_json)
    matrix = load(args.matrix_option)
    read = explain_log(read_chunks(args.source), matrix.signatures, matrix, matrix.known_bugs)
    # The doctor's rules over the facts the log shows (a log is a partial facts file).
    explanation = reason_over_log(read, matrix)
    sys.stdout.write(render(explanation, chosen))
    failed = any(f.severity.value == "error" for f in explanation.findings)
    return EXIT_NEGATIVE if failed else EXIT_OK
