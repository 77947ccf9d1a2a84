"""The body of `envcheck doctor` after its probe has started: diagnose, render, exit code."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from envcheck.atomic_file import write_atomically
from envcheck.cli.commands.flags import framework_choice, gpus_from_flags
from envcheck.cli.commands.matrix_choice import load
from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_OK
from envcheck.diagnose.context import Target
from envcheck.diagnose.run import run_doctor
from envcheck.matrix.model import Matrix
from envcheck.probe.background import StartedProbe
from envcheck.report.doctor import render
from envcheck.report.formats import Format
from envcheck.versions import DriverVersion


def report(args: argparse.Namespace, chosen: Format, started: StartedProbe | None) -> int:
    """Diagnose (this machine through `started`, or --facts), write the report, exit code."""
    matrix = load(args.matrix_option)
    target = _target(matrix, args.target_driver, args.target_gpu, args.target_cc)
    framework = framework_choice(args.framework)
    result = run_doctor(
        matrix,
        facts_file=args.facts_file,
        python=args.python,
        smoke=not args.no_smoke and args.facts_file is None,
        timeout=args.timeout,
        target=target,
        started=started,
        framework=framework,
    )
    colour = chosen is Format.TEXT and args.output is None and sys.stdout.isatty()
    text = render(result, chosen, colour, home=str(Path.home()), user=_user_name())
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_atomically(Path(args.output), text)
    failing = {"error"} | ({"warning"} if args.strict else set())
    return EXIT_NEGATIVE if result.status in failing else EXIT_OK


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
