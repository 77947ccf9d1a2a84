"""`envcheck install`: parse, call envcheck.acquire, print, and choose the exit code.

The plan and results go to stdout, the installer's progress and errors to stderr. Exit 0 done (or
a dry run), 1 no plan / the check or the installation failed / declined at the prompt, 2 unusable
input (including no terminal to confirm on and no --yes). Every option can also be set with an
ENVCHECK_* variable.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from envcheck.acquire.install_constraints import (
    check_constraints_path,
    constraints_text,
    write_constraints,
)
from envcheck.acquire.install_errors import InstallError
from envcheck.acquire.install_plan import (
    InstallPlan,
    TargetInterpreter,
    make_framework_plan,
    make_plan,
    read_target,
    target_machine,
)
from envcheck.acquire.install_run import (
    InstallerCommand,
    doctor_status,
    dry_run,
    installer_command,
    parse_installer,
    resolved_versions,
    run_install,
)
from envcheck.cli.commands.flags import build_choice, framework_choice
from envcheck.cli.commands.matrix_choice import load
from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_OK, CommandExit, fail, handles_errors
from envcheck.errors import EnvcheckError, InputError
from envcheck.index.config import check_index_url
from envcheck.matrix.model import Matrix, tensorflow_specifier
from envcheck.report.install import build_line, changes_text, dry_run_text, plan_text
from envcheck.report.terminal_text import escaped
from envcheck.urls import redact, secret_masker

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


def _checked_inputs(args: argparse.Namespace, framework: str) -> Path | None:
    """Input errors before any work; the --constraints-out path when given."""
    out_path = check_constraints_path(Path(args.constraints_out)) if args.constraints_out else None
    build_choice(args.cpu_build, args.gpu_build)  # both given: an input error before any work
    if framework == "tensorflow" and args.framework_version is not None:
        raise InputError(
            "--framework-version applies to --framework torch or jax; use --tensorflow"
        )
    if framework != "tensorflow" and args.tensorflow is not None:
        raise InputError("--tensorflow applies to --framework tensorflow; use --framework-version")
    spec = args.tensorflow if framework == "tensorflow" else args.framework_version
    if spec is not None:
        tensorflow_specifier(spec)  # a bad SPEC is an input error before any work
    if args.torch_index_url is not None:
        check_index_url(args.torch_index_url, "--torch-index-url", allow_file=True)
    # No stdin at all (`<&-`) is no terminal either.
    if not args.dry_run_only and not args.yes and not (sys.stdin and sys.stdin.isatty()):
        raise InputError(
            "envcheck install changes an environment and asks first, but there is no terminal "
            "to ask on: pass --yes to install without asking, or --dry-run to only see the plan"
        )
    return out_path


def _nothing_to_install(plan: InstallPlan) -> bool:
    """True (said on stdout) when the recommended CPU-only release is already installed."""
    if plan.already_installed is None:
        return False
    print(
        escaped(
            f"Nothing to install: {plan.already_installed} already is the recommended "
            f"{build_line(plan).split(':')[0]} for this machine (CPU only)."
        )
    )
    return True


def _refusal(
    plan: InstallPlan, target: TargetInterpreter, target_python: str
) -> EnvcheckError | None:
    """Why the real run will not install this plan, as the error it ends with; a dry run says
    the same and ends with the same exit code, so that a passing dry run means the real run
    goes ahead."""
    if plan.refusal is not None:
        return InputError(plan.refusal)
    if plan.conflicts:
        names = " ".join(plan.conflicts)
        return InstallError(
            f"{names} is installed in {plan.target.prefix} and owns the same tensorflow/ "
            f"directory as the plan's {plan.packages[0].name}: installing over it leaves both "
            f"broken. Uninstall it first ({target_python} -m pip uninstall -y {names}), then run "
            "envcheck install again; nothing was installed"
        )
    if not target.is_environment:
        return InputError(
            f"--python {target_python!r} is not a virtual or conda environment (its prefix "
            f"{target.prefix} is the interpreter's own), and envcheck installs only into one: "
            f"create one with {target_python} -m venv DIR and pass --python DIR/bin/python, or "
            "use --dry-run --constraints-out FILE and install yourself"
        )
    return None


def _refused_dry_run(refusal: EnvcheckError) -> CommandExit:
    return fail(
        f"dry run: nothing was installed, and the real run would refuse: {refusal}",
        refusal.exit_code,
    )


def _plan(
    args: argparse.Namespace,
    framework: str,
    matrix: Matrix,
    target: TargetInterpreter,
    command: InstallerCommand,
) -> tuple[InstallPlan, InstallerCommand]:
    """The plan, and the installer command with the index the plan needs (a PyTorch variant's
    comes from --torch-index-url: the index recommend's command names)."""
    machine = target_machine(matrix, target)
    build = build_choice(args.cpu_build, args.gpu_build)
    if framework == "tensorflow":
        return make_plan(matrix, machine, args.tensorflow, target, build), command
    plan = make_framework_plan(
        matrix, machine, framework, args.framework_version, target, args.torch_index_url, build
    )
    if plan.index_url is None:
        return plan, command
    if command.index_url is not None:
        raise InputError(
            f"{plan.requirements[0]} comes from PyTorch's index {redact(plan.index_url)} "
            "with its requirements, and --index-url names another: drop --index-url (or point "
            "--torch-index-url at your mirror)"
        )
    return plan, replace(command, index_url=plan.index_url)


def _rejected(command: InstallerCommand, refusal: EnvcheckError | None) -> CommandExit:
    """The end of a run whose installer check failed: the refusal the real run ends with before
    any check, else the check's own failure."""
    if refusal is not None:
        return _refused_dry_run(refusal)
    return fail(
        f"{command.label}'s dry run rejected the plan (shown above); nothing was installed "
        "and the environment is unchanged",
        EXIT_NEGATIVE,
    )


@handles_errors
def run(args: argparse.Namespace) -> int:
    """Install the recommended TensorFlow, PyTorch or JAX (and its CUDA wheels) into one
    environment, safely."""
    dry_run_only: bool = args.dry_run_only
    yes: bool = args.yes
    python: str | None = args.python
    chosen_installer = parse_installer(args.installer)
    framework = framework_choice(args.framework) or "tensorflow"
    out_path = _checked_inputs(args, framework)
    target_python = python or sys.executable
    command = installer_command(chosen_installer, target_python, args.index_url)
    matrix = load(args.matrix_option)
    target = read_target(target_python)
    plan, command = _plan(args, framework, matrix, target, command)
    sys.stdout.write(plan_text(plan))
    if command.index_url is not None:
        print(escaped(f"Index: {redact(command.index_url)}"))
    if _nothing_to_install(plan):
        return EXIT_OK
    refusal = _refusal(plan, target, target_python)
    if refusal is not None and (not dry_run_only or plan.refusal is not None):
        # The real run stops here; so does a dry run whose check needs the index the plan lacks.
        raise _refused_dry_run(refusal) if dry_run_only else refusal
    _err(f"Checking the plan with {command.label} install --dry-run ...")
    check = dry_run(command, plan.requirements)
    sys.stdout.write(dry_run_text(plan, check, command.label))
    if out_path is not None:
        write_constraints(out_path, constraints_text(plan, resolved_versions(plan, check)))
        print(escaped(f"Constraints: wrote {out_path}"))
    if not check.ok:
        for line in check.error_lines:
            _err(line)
        raise _rejected(command, refusal)
    if dry_run_only:
        if refusal is not None:
            raise _refused_dry_run(refusal)
        print("Dry run: nothing was installed.")
        return EXIT_OK
    question = f"Install {' '.join(plan.requirements)} into {target.prefix}?"
    if not yes and not confirm(question):
        print("Nothing was installed.")
        return EXIT_NEGATIVE
    before = doctor_status(matrix, target_python)
    result = run_install(command, plan.requirements, echo=_err)
    if not result.ok:
        mask = secret_masker(urls=(command.index_url,))
        for line in result.error_lines:
            _err(mask(line))
        what = (
            "was interrupted" if result.interrupted else f"failed (exit code {result.returncode})"
        )
        print(escaped(result.state(command)))
        raise fail(f"{command.label} install {what}; {result.summary}", EXIT_NEGATIVE)
    if result.changes is not None:
        sys.stdout.write(changes_text(result.changes))
    after = doctor_status(matrix, target_python)
    print(escaped(f"doctor before: {before}"))
    print(escaped(f"doctor after:  {after}"))
    return EXIT_OK
