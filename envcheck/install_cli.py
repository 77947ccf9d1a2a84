"""`envcheck install`: parse, call envcheck.install, print, and choose the exit code.

Kept beside cli.py (which calls `register(app)`) so the install command has no import cycle with
it; the contract is the same: the plan and results on stdout, the installer's progress and
errors on stderr, exit 0 done (or a dry run), 1 no plan / the check or the installation failed /
declined at the prompt, 2 unusable input (including no terminal to confirm on and no --yes).
Every option can also be set with an ENVCHECK_* variable.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from envcheck.cli_errors import EXIT_NEGATIVE, fail, handles_errors
from envcheck.errors import InputError
from envcheck.install import InstallError
from envcheck.install.constraints import check_constraints_path, constraints_text, write_constraints
from envcheck.install.plan import make_plan, plan_text, read_target, target_machine
from envcheck.install.run import (
    changes_text,
    doctor_status,
    dry_run,
    dry_run_text,
    installer_command,
    parse_installer,
    redact_url,
    resolved_versions,
    run_install,
    secret_masker,
)
from envcheck.matrix.load import matrix_dir
from envcheck.matrix.model import load_matrix, tensorflow_specifier

# A refused or failed installation exits 1, unusable input 2 (envcheck.cli_errors).
_handles_errors = handles_errors(negative=(InstallError,))


def _err(line: str) -> None:
    typer.echo(line, err=True)


@_handles_errors
def install_command(
    tensorflow: Optional[str] = typer.Option(
        None,
        "--tensorflow",
        envvar="ENVCHECK_TENSORFLOW",
        metavar="SPEC",
        help="Only consider these TensorFlow versions (2.15, 2.15.1, '>=2.12').",
    ),
    python: Optional[str] = typer.Option(
        None,
        "--python",
        envvar="ENVCHECK_PYTHON_EXECUTABLE",
        metavar="PATH",
        help="Install into the environment of this interpreter (default: this one).",
    ),
    dry_run_only: bool = typer.Option(
        False,
        "--dry-run",
        envvar="ENVCHECK_DRY_RUN",
        help="Show the plan and the installer's check; install nothing.",
    ),
    yes: bool = typer.Option(
        False,
        "--yes",
        envvar="ENVCHECK_YES",
        help="Install without asking (for scripts; without it a terminal prompt confirms).",
    ),
    installer: str = typer.Option(
        "pip",
        "--installer",
        envvar="ENVCHECK_INSTALLER",
        metavar="pip|uv",
        help="Run the target's pip, or uv (when on PATH).",
    ),
    index_url: Optional[str] = typer.Option(
        None,
        "--index-url",
        envvar="ENVCHECK_INDEX_URL",
        metavar="URL",
        help="The package index (default: your pip configuration, else pip's default).",
    ),
    constraints_out: Optional[str] = typer.Option(
        None,
        "--constraints-out",
        envvar="ENVCHECK_CONSTRAINTS_OUT",
        metavar="FILE",
        help="Also write a pip constraints file for the plan (atomically).",
    ),
    matrix_option: Optional[str] = typer.Option(
        None,
        "--matrix",
        envvar="ENVCHECK_MATRIX",
        metavar="DIR",
        help="Use the matrix data in DIR instead of the bundled one.",
    ),
) -> None:
    """Install the recommended TensorFlow (and its CUDA wheels) into one environment, safely."""
    chosen_installer = parse_installer(installer)
    out_path = check_constraints_path(Path(constraints_out)) if constraints_out else None
    if tensorflow is not None:
        tensorflow_specifier(tensorflow)  # a bad SPEC is an input error before any work
    if not dry_run_only and not yes and not sys.stdin.isatty():
        raise InputError(
            "envcheck install changes an environment and asks first, but there is no terminal "
            "to ask on: pass --yes to install without asking, or --dry-run to only see the plan"
        )
    target_python = python or sys.executable
    command = installer_command(chosen_installer, target_python, index_url)
    matrix = load_matrix(matrix_dir(matrix_option))
    target = read_target(target_python)
    plan = make_plan(matrix, target_machine(matrix, target), tensorflow, target)
    typer.echo(plan_text(plan), nl=False)
    if command.index_url is not None:
        typer.echo(f"Index: {redact_url(command.index_url)}")
    if not dry_run_only and not target.is_environment:
        raise InputError(
            f"--python {target_python!r} is not a virtual or conda environment (its prefix "
            f"{target.prefix} is the interpreter's own), and envcheck installs only into one: "
            f"create one with {target_python} -m venv DIR and pass --python DIR/bin/python, or "
            "use --dry-run --constraints-out FILE and install yourself"
        )
    _err(f"Checking the plan with {command.label} install --dry-run ...")
    check = dry_run(command, plan.requirements)
    typer.echo(dry_run_text(plan, check, command.label), nl=False)
    if out_path is not None:
        write_constraints(out_path, constraints_text(plan, resolved_versions(plan, check)))
        typer.echo(f"Constraints: wrote {out_path}")
    if not check.ok:
        for line in check.error_lines:
            _err(line)
        raise fail(
            f"{command.label}'s dry run rejected the plan (shown above); nothing was installed "
            "and the environment is unchanged",
            EXIT_NEGATIVE,
        )
    if dry_run_only:
        typer.echo("Dry run: nothing was installed.")
        return
    question = f"Install {' '.join(plan.requirements)} into {target.prefix}?"
    if not yes and not typer.confirm(question, default=False, err=True):
        typer.echo("Nothing was installed.")
        raise typer.Exit(EXIT_NEGATIVE)
    before = doctor_status(matrix, target_python)
    result = run_install(command, plan.requirements, echo=_err)
    if not result.ok:
        mask = secret_masker(command.index_url)
        for line in result.error_lines:
            _err(mask(line))
        what = (
            "was interrupted" if result.interrupted else f"failed (exit code {result.returncode})"
        )
        typer.echo(result.state(command))
        raise fail(f"{command.label} install {what}; {result.summary}", EXIT_NEGATIVE)
    if result.changes is not None:
        typer.echo(changes_text(result.changes), nl=False)
    after = doctor_status(matrix, target_python)
    typer.echo(f"doctor before: {before}")
    typer.echo(f"doctor after:  {after}")


def register(app: typer.Typer) -> None:
    """Add `envcheck install` to the envcheck command line."""
    app.command("install")(install_command)
