"""`envcheck explain`: a pasted TensorFlow / CUDA / cuDNN log → what is wrong and what to do."""

from __future__ import annotations

import argparse

from envcheck.cli.commands.matrix_choice import load
from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_OK, handles_errors
from envcheck.cli.report_output import chosen_format, prompt_for_paste, write_report
from envcheck.cli.table import EXPLAIN_FORMATS
from envcheck.diagnose.log_diagnosis import reason_over_log
from envcheck.explain.explanation import explain_log
from envcheck.explain.reader import read_chunks
from envcheck.report.explanation import render
from envcheck.report.formats import choose_format


@handles_errors
def run(args: argparse.Namespace) -> int:
    asked = chosen_format(args.output_format, args.as_json, args.output, EXPLAIN_FORMATS)
    chosen = choose_format(asked, as_json=False)
    matrix = load(args.matrix_option)
    prompt_for_paste(args.source)
    read = explain_log(read_chunks(args.source), matrix.signatures, matrix, matrix.known_bugs)
    # The doctor's rules over the facts the log shows (a log is a partial facts file).
    explanation = reason_over_log(read, matrix)
    write_report(args.output, render(explanation, chosen), chosen.value)
    failed = any(f.severity.value == "error" for f in explanation.findings)
    return EXIT_NEGATIVE if failed else EXIT_OK
