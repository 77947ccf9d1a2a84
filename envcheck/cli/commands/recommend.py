"""`envcheck recommend`: rank TensorFlow releases for this machine or one described by flags."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from envcheck.cli.commands.flags import (
    capability_lookup,
    framework_choice,
    gpus_from_flags,
    target_python,
)
from envcheck.cli.commands.matrix_choice import load
from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_OK, fail, handles_errors
from envcheck.cli.report_output import chosen_format, write_report
from envcheck.cli.table import RECOMMEND_FORMATS
from envcheck.errors import InputError
from envcheck.matrix.model import Matrix
from envcheck.recommend.frameworks import recommend_jax, recommend_torch
from envcheck.recommend.machine import MachineDescription, describe_machine, with_capabilities
from envcheck.recommend.rank import recommend
from envcheck.report import recommendation
from envcheck.report.matrix_rows import series_range


@handles_errors
def run(args: argparse.Namespace) -> int:
    chosen = chosen_format(args.output_format, args.as_json, args.output, RECOMMEND_FORMATS)
    matrix = load(args.matrix_option)
    gpus = gpus_from_flags(matrix, args.gpu, args.compute_capability)
    python_version, interpreter = target_python(args.python, args.python_version)
    arch = args.arch or (interpreter.machine if interpreter else None)
    described = describe_machine(args.os_name, arch, python_version, args.driver, gpus)
    if interpreter is not None:
        found_via = {**described.found_via, "python": f"--python {interpreter.executable}"}
        if args.arch is None and interpreter.machine:
            found_via["arch"] = f"--python {interpreter.executable}"
        described = replace(described, found_via=found_via)
    elif python_version is not None:
        described = replace(
            described, found_via={**described.found_via, "python": "--python-version"}
        )
    machine = with_capabilities(described, capability_lookup(matrix))
    framework = framework_choice(args.framework) or "tensorflow"
    if framework != "tensorflow":
        return _other_framework(matrix, machine, framework, args, chosen)
    result = recommend(matrix, machine, args.tensorflow)
    # A --tensorflow outside the matrix is no fact about this machine: say so, not "nothing
    # installs here". A negative answer (exit 1) like `envcheck matrix`'s, as the matrix may
    # just be older than the release.
    unknown = args.tensorflow is not None and not matrix.releases_matching(args.tensorflow)
    if chosen == "json":
        write_report(args.output, _json(recommendation.to_json(result)), chosen)
    elif not unknown:
        write_report(args.output, recommendation.to_text(result, show_all=args.show_all), chosen)
    if unknown:
        raise fail(
            f"no TensorFlow release in the matrix matches --tensorflow {args.tensorflow!r}: it "
            f"knows TensorFlow {series_range(matrix.releases)}",
            EXIT_NEGATIVE,
        )
    return EXIT_OK if result.has_gpu_candidate else EXIT_NEGATIVE


def _other_framework(
    matrix: Matrix,
    machine: MachineDescription,
    framework: str,
    args: argparse.Namespace,
    chosen: str,
) -> int:
    """`--framework torch|jax`: rank its builds; exit as for TensorFlow (0 with a compatible
    GPU candidate, else 1)."""
    if args.tensorflow is not None:
        raise InputError("--tensorflow applies to --framework tensorflow; use --framework-version")
    spec = args.framework_version
    if framework == "torch":
        result = recommend_torch(matrix, machine, spec, args.torch_index_url)
    else:
        result = recommend_jax(matrix, machine, spec)
    if spec is not None and not result.candidates and not result.rejected:
        raise fail(
            f"no {result.display_name} version in the matrix matches --framework-version {spec!r}",
            EXIT_NEGATIVE,
        )
    if chosen == "json":
        text = _json(recommendation.framework_to_json(result))
    else:
        text = recommendation.framework_to_text(result, show_all=args.show_all)
    write_report(args.output, text, chosen)
    return EXIT_OK if result.has_gpu_candidate else EXIT_NEGATIVE


def _json(document: object) -> str:
    return json.dumps(document, indent=2) + "\n"
