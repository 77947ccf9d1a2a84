"""`envcheck fleet`: the doctor reports of many nodes merged into groups of nodes alike; and
`envcheck fleet plan`: whether an image will run on each group. Exit codes: 0 no group fails,
1 a group fails (or nothing could be merged at all), 2 usage."""

from __future__ import annotations

import argparse
import sys
import time

from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_OK, handles_errors
from envcheck.cli.report_output import chosen_format, write_report
from envcheck.cli.table import FLEET_FORMATS
from envcheck.errors import InputError
from envcheck.fleet.ages import parse_duration
from envcheck.fleet.merge import Fleet, merge
from envcheck.fleet.sources import check_sources, documents
from envcheck.report.formats import FleetFormat, choose_fleet_format


def _fleet(sources: list[str], max_age: str | None) -> Fleet:
    if not sources:
        raise InputError("name the node reports: files, directories or - (envcheck fleet DIR)")
    seconds = parse_duration(max_age) if max_age else None
    check_sources(sources)
    return merge(documents(sources, sys.stdin.buffer), time.time(), seconds)


def _format(args: argparse.Namespace) -> FleetFormat:
    """The format asked for, checked, and -o FILE checked writable before any report is read."""
    return choose_fleet_format(chosen_format(args.output_format, False, args.output, FLEET_FORMATS))


@handles_errors
def merge_reports(args: argparse.Namespace) -> int:
    from envcheck.report.fleet import render  # noqa: PLC0415 - only this command renders it

    chosen = _format(args)
    fleet = _fleet(list(args.sources or []), args.max_age)
    write_report(args.output, render(fleet, chosen), chosen.value)
    return EXIT_NEGATIVE if fleet.failing or not fleet.groups else EXIT_OK


@handles_errors
def plan(args: argparse.Namespace) -> int:
    # Imported here: the diagnosis (rules, matrix) is only this subcommand's.
    from envcheck.cli.commands.matrix_choice import load  # noqa: PLC0415
    from envcheck.fleet.plan import plan as plan_image  # noqa: PLC0415
    from envcheck.fleet.plan import read_image  # noqa: PLC0415
    from envcheck.report.fleet_plan import render  # noqa: PLC0415

    chosen = _format(args)
    image = read_image(args.image)
    matrix = load(args.matrix_option)
    fleet = _fleet(list(args.nodes or []), args.max_age)
    result = plan_image(image, fleet, matrix)
    write_report(args.output, render(result, chosen), chosen.value)
    return EXIT_NEGATIVE if result.failing or not result.groups else EXIT_OK
