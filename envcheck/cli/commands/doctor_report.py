"""The body of `envcheck doctor` after its probe has started: diagnose, render, exit code."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import sys
from pathlib import Path

from envcheck.cli.commands.doctor_deadline import Watchdog
from envcheck.cli.commands.flags import framework_choice, gpus_from_flags
from envcheck.cli.commands.matrix_choice import load
from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_NO_VERDICT, EXIT_OK
from envcheck.cli.report_output import progress, write_report
from envcheck.diagnose.context import Target
from envcheck.diagnose.node import node_result
from envcheck.diagnose.run import run_doctor
from envcheck.diagnose.verdict import NodeResult, no_result
from envcheck.errors import EnvcheckError
from envcheck.matrix.model import Matrix
from envcheck.probe import deadline
from envcheck.probe.background import StartedProbe
from envcheck.report.doctor import render
from envcheck.report.formats import Format, NodeFormat
from envcheck.report.node import render_node
from envcheck.report.stamp import Stamp
from envcheck.versions import DriverVersion


def report(
    args: argparse.Namespace,
    chosen: Format | NodeFormat,
    started: StartedProbe | None,
    stamp: Stamp,
    watchdog: Watchdog | None = None,
) -> int:
    """Diagnose (this machine through `started`, or --facts), write the report, exit code:
    0 pass or warn (1 for warn with --strict), 1 fail, 4 no verdict (the --deadline)."""
    matrix = load(args.matrix_option)
    target = _target(matrix, args.target_driver, args.target_gpu, args.target_cc)
    framework = framework_choice(args.framework)
    smoke = not args.no_smoke and args.facts_file is None
    try:
        diagnosis = run_doctor(
            matrix,
            facts_file=args.facts_file,
            python=args.python,
            smoke=smoke,
            timeout=args.timeout,
            target=target,
            started=started,
            framework=framework,
            progress=progress(chosen.value),
        )
    except EnvcheckError:
        if not deadline.cut():
            raise
        # The deadline cut short what the probe needed to go on (a --python that did not
        # answer in time): a report without a verdict, not a usage error.
        result = no_result(f"the --deadline passed before {', '.join(deadline.cut())} answered")
        _write(args.output, render_node(result, stamp, chosen), chosen, watchdog)
        return EXIT_NO_VERDICT
    result = node_result(diagnosis, smoke)
    colour = chosen is Format.TEXT and args.output is None and sys.stdout.isatty()
    home, user = str(Path.home()), _user_name()
    text = render(diagnosis, result, stamp, chosen, colour, home, user)
    _write(args.output, text, chosen, watchdog)
    return exit_code(result, args.strict)


def exit_code(result: NodeResult, strict: bool) -> int:
    if result.verdict == "unknown":
        return EXIT_NO_VERDICT
    if result.verdict == "fail" or (strict and result.verdict == "warn"):
        return EXIT_NEGATIVE
    return EXIT_OK


def _write(
    output: str | None, text: str, chosen: Format | NodeFormat, watchdog: Watchdog | None
) -> None:
    with watchdog.writing() if watchdog is not None else contextlib.nullcontext():
        write_report(output, text, chosen.value)


def _user_name() -> str | None:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return None


def _target(
    matrix: Matrix, driver: str | None, gpu: str | None, capability: str | None
) -> Target | None:
    if driver is None and gpu is None and capability is None:
        return None
    gpus = gpus_from_flags(matrix, gpu, capability) or ()
    return Target(
        driver=DriverVersion.parse(driver, "--target-driver") if driver else None,
        capabilities=tuple(g.compute_capability for g in gpus if g.compute_capability),
        gpu_names=tuple(g.name or "target GPU" for g in gpus),
    )
