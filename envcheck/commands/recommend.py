"""`envcheck recommend`: rank TensorFlow releases for this machine or one described by flags."""

from __future__ import annotations

import argparse
import json
import sys

from envcheck.cli_errors import EXIT_NEGATIVE, EXIT_OK, handles_errors
from envcheck.commands.flags import capability_lookup, gpus_from_flags, load
from envcheck.machine import describe_machine, with_capabilities
from envcheck.recommend import recommend
from envcheck.report import recommendation


@handles_errors()
def run(args: argparse.Namespace) -> int:
    matrix = load(args.matrix_option)
    gpus = gpus_from_flags(matrix, args.gpu, args.compute_capability)
    machine = with_capabilities(
        describe_machine(args.os_name, args.arch, args.python, args.driver, gpus),
        capability_lookup(matrix),
    )
    result = recommend(matrix, machine, args.tensorflow)
    if args.as_json:
        print(json.dumps(recommendation.to_json(result), indent=2))
    else:
        sys.stdout.write(recommendation.to_text(result, show_all=args.show_all))
    return EXIT_OK if result.has_gpu_candidate else EXIT_NEGATIVE
