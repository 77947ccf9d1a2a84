"""`envcheck matrix` (the rows) and `envcheck matrix validate` (the checks of a directory)."""

from __future__ import annotations

import argparse
import json
import sys

from packaging.version import Version

from envcheck.cli.commands.matrix_choice import load
from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_OK, EXIT_USAGE, fail, handles_errors
from envcheck.errors import EnvcheckError
from envcheck.matrix.checks import Problem, check_advisories, check_files, check_matrix
from envcheck.matrix.load import MatrixDataError, matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.matrix.parsed_cache import parsed_afresh
from envcheck.report import matrix_rows
from envcheck.versions import major_minor, parse_numeric_version


@handles_errors
def rows(args: argparse.Namespace) -> int:
    """Show TensorFlow releases with their Python, CUDA, cuDNN, driver and GPU targets."""
    matrix = load(args.matrix_option)
    releases = matrix.releases_matching(args.tensorflow)
    if args.cuda is not None:
        wanted = parse_numeric_version(args.cuda, "CUDA version")
        releases = tuple(
            r for r in releases if r.cuda is not None and _cuda_matches(r.cuda, wanted)
        )
    if args.as_json:
        # A JSON reader gets its document even when no release matches: an empty list.
        print(json.dumps(matrix_rows.to_json(matrix, releases), indent=2))
    elif releases:
        sys.stdout.write(matrix_rows.to_text(matrix, releases))
    if not releases:
        raise fail("no TensorFlow release matches the given filters", EXIT_NEGATIVE)
    return EXIT_OK


def _cuda_matches(built: Version, wanted: Version) -> bool:
    if len(wanted.release) == 1:
        return built.release[0] == wanted.release[0]
    return major_minor(built) == major_minor(wanted)


def validate(args: argparse.Namespace) -> int:
    """Check a matrix directory: every row parses, cites a source, and agrees with the others."""
    try:
        directory = matrix_dir(args.matrix_option)
    except EnvcheckError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    problems: list[Problem]
    # The files themselves are checked, not a cache entry of their parse (which an edit to the
    # entry, not the file, once turned into "valid").
    with parsed_afresh():
        # Every file that does not load, all in one run; the checks across files need them all.
        problems = check_files(directory)
        if not problems:
            try:
                problems = check_matrix(load_matrix(directory))
            except MatrixDataError as exc:
                problems = [Problem("load", str(exc))]
            problems += check_advisories(directory)
    if args.as_json:
        print(json.dumps(matrix_rows.validation_to_json(directory, problems), indent=2))
    else:
        sys.stdout.write(matrix_rows.validation_to_text(directory, problems))
    return EXIT_NEGATIVE if problems else EXIT_OK
