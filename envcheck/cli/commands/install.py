"""`envcheck install`: parse, call envcheck.install, print, and choose the exit code.

The plan and results go to stdout, the installer's progress and errors to stderr. Exit 0 done (or
a dry run), 1 no plan / the check or the installation failed / declined at the prompt, 2 unusable
input (including no terminal to confirm on and no --yes). Every option can also be set with an
ENVCHECK_* variable.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from envcheck.cli.commands.matrix_choice import load
from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_OK, fail, handles_errors
from envcheck.errors import InputError
from envcheck.install import InstallError
from envcheck.install.constraints import check_constraints_path, constraints_text, write_constraints
from envcheck.install.plan import (
    InstallPlan,
    make_plan,
    read_target,
    target_machine,
)
from envcheck.install.run import (
    doctor_status,
    dry_run,
    installer_command,
    parse_installer,
    redact_url,
    resolved_versions,
    run_install,
    secret_masker,
)
from envcheck.matrix.model import tensorflow_specifier
from envcheck.report.install import changes_text, dry_run_text, plan_text

# A refused or failed installation exits 1, unusable input 2 (envcheck.cli.exits).


def _err(line: str) -> None:
    print(line, file=sys.stderr)


def confirm(question: str) -> bool:
    """Ask on the terminal (stderr, so stdout stays the plan); only y or yes installs."""
    sys.stdout.flush()  # the plan must be on the screen before the question about it
    sys.stderr.write(f"{question} [y/N]: ")
    sys.stderr.flush()
    answer = sys.stdin.readline()
    if not answer:  # end of input: the question was not answered
        sys.stderr.write("\n")
    return answer.strip().lower() in {"y", "yes"}


def _checked_inputs(args: argparse.Namespace) -> Path | None:
    """Input errors before any work; the --constraints-out path when given."""
    out_path = check_constraints_path(Path(args.constraints_out)) if args.constraints_out else None
    if args.tensorflow is not None:
        tensorflow_specifier(args.tensorflow)  # a bad SPEC is an input error before any work
    if not args.dry_run_only and not args.yes and not sys.stdin.isatty():
        raise InputError(
            "envcheck install changes an environment and asks first, but there is no terminal "
            "to ask on: pass --yes to install without asking, or --dry-run to only see the plan"
        )
    return out_path


def _nothing_to_install(plan: InstallPlan, target_python: str, dry_run_only: bool) -> bool:
    """True (said on stdout) when the recommended CPU-only release is already installed;
    InstallError when another TensorFlow distribution would be installed over."""
    if plan.already_installed is not None:
        print(
            f"Nothing to install: {plan.already_installed} already is the recommended "
            f"TensorFlow {plan.candidate.tensorflow} for this machine (CPU only)."
        )
        return True
    if plan.conflicts and not dry_run_only:
        names = " ".join(plan.conflicts)
        raise InstallError(
            f"{names} is installed in {plan.target.prefix} and owns the same tensorflow/ "
            f"directory as the plan's {plan.packages[0].name}: installing over it leaves both "
            f"broken. Uninstall it first ({target_python} -m pip uninstall -y {names}), then run "
            "envcheck install again; nothing was installed"
        )
    return False


@handles_errors
def run(args: argparse.Namespace) -> int:
    """Install the recommended TensorFlow (and its CUDA wheels) into one environment, safely."""
    tensorflow: str | None = args.tensorflow
    dry_run_only: bool = args.dry_run_only
    yes: bool = args.yes
    python: str | None = args.python
    chosen_installer = parse_installer(args.installer)
    out_path = _checked_inputs(args)
    target_python = python or sys.executable
    command = installer_command(chosen_installer, target_python, args.index_url)
    matrix = load(args.matrix_option)
    target = read_target(target_python)
    plan = make_plan(matrix, target_machine(matrix, target), tensorflow, target)
    sys.stdout.write(plan_text(plan))
    if command.index_url is not None:
        print(f"Index: {redact_url(command.index_url)}")
    if _nothing_to_install(plan, target_python, dry_run_only):
        return EXIT_OK
    if not dry_run_only and not target.is_environment:
        raise InputError(
            f"--python {target_python!r} is not a virtual or conda environment (its prefix "
            f"{target.prefix} is the interpreter's own), and envcheck installs only into one: "
            f"create one with {target_python} -m venv DIR and pass --python DIR/bin/python, or "
            "use --dry-run --constraints-out FILE and install yourself"
        )
    _err(f"Checking the plan with {command.label} install --dry-run ...")
    check = dry_run(command, plan.requirements)
    sys.stdout.write(dry_run_text(plan, check, command.label))
    if out_path is not None:
        write_constraints(out_path, constraints_text(plan, resolved_versions(plan, check)))
        print(f"Constraints: wrote {out_path}")
    if not check.ok:
        for line in check.error_lines:
            _err(line)
        raise fail(
            f"{command.label}'s dry run rejected the plan (shown above); nothing was installed "
            "and the environment is unchanged",
            EXIT_NEGATIVE,
        )
    if dry_run_only:
        print("Dry run: nothing was installed.")
        return EXIT_OK
    question = f"Install {' '.join(plan.requirements)} into {target.prefix}?"
    if not yes and not confirm(question):
        print("Nothing was installed.")
        return EXIT_NEGATIVE
    before = doctor_status(matrix, target_python)
    result = run_install(command, plan.requirements, echo=_err)
    if not result.ok:
        mask = secret_masker(command.index_url)
        for line in result.error_lines:
            _err(mask(line))
        what = (
            "was interrupted" if result.interrupted else f"failed (exit code {result.returncode})"
        )
        print(result.state(command))
        raise fail(f"{command.label} install {what}; {result.summary}", EXIT_NEGATIVE)
    if result.changes is not None:
        sys.stdout.write(changes_text(result.changes))
    after = doctor_status(matrix, target_python)
    print(f"doctor before: {before}")
    print(f"doctor after:  {after}")
    return EXIT_OK
