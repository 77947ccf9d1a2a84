"""`envcheck setup ...`: the hidden commands scripts/setup-windows.ps1 asks for its decisions.

Kept beside cli.py (which calls `register(app)`), like install_cli. Each command reads the files
the script wrote (raw bytes of `py -0p` / `wsl.exe` output; envcheck.windows_setup decodes them)
and prints one JSON object (ASCII only, so the console code page cannot garble it). Exit codes:
0 an answer, 1 `windows-python` found no usable interpreter (the message says which to install),
2 unusable input (a missing file, a bad --driver). Decisions live in envcheck.windows_setup.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from envcheck.cli_errors import EXIT_NEGATIVE, handles_errors
from envcheck.errors import InputError
from envcheck.machine import GpuDescription, describe_machine, with_capabilities
from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.load import matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.recommend import Candidate
from envcheck.versions import ComputeCapability
from envcheck.windows_setup import (
    PythonInstall,
    decode_output,
    plan_windows_python,
    user_distributions,
    wsl_explanation,
    wsl_message,
    wsl_state,
)

PYTHON_SCHEMA = "envcheck.setup-windows-python/1"
WSL_SCHEMA = "envcheck.setup-wsl-state/1"

setup_app = typer.Typer(
    help="Decisions for scripts/setup-windows.ps1 (not meant to be run by hand).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


_handles_errors = handles_errors()


def _read(path: str, option: str) -> str:
    try:
        return decode_output(Path(path).read_bytes())
    except OSError as exc:
        raise InputError(f"{option} {path!r} cannot be read: {exc.strerror or exc}") from None


def _gpus(
    matrix: Matrix, name: Optional[str], capability: Optional[str]
) -> tuple[GpuDescription, ...] | None:
    if name is None and capability is None:
        return None
    parsed = ComputeCapability.parse(capability) if capability is not None else None
    if name is None:
        return (GpuDescription(None, parsed),)
    row = GpuIndex.build(matrix.gpus).find(name)
    return (GpuDescription(row.name, parsed or row.compute_capability),)


def _install_json(install: PythonInstall) -> dict[str, Any]:
    return {
        "launcher_arg": install.launcher_arg,
        "tag": install.tag,
        "version": str(install.version) if install.version is not None else None,
        "arch": install.arch,
        "path": install.path,
        "default": install.default,
        "problem": install.problem,
    }


def _candidate_json(candidate: Candidate | None) -> dict[str, Any] | None:
    if candidate is None:
        return None
    return {
        "version": str(candidate.tensorflow),
        "kind": candidate.kind,
        "status": candidate.status,
        "cuda": candidate.cuda,
        "python": [str(p) for p in candidate.release.python],
        "commands": list(candidate.commands),
    }


@setup_app.command("windows-python")
@_handles_errors
def windows_python_command(
    py_list: str = typer.Option(
        ..., "--py-list", metavar="FILE", help="What `py -0p` printed (any encoding)."
    ),
    tensorflow: Optional[str] = typer.Option(
        None,
        "--tensorflow",
        envvar="ENVCHECK_TENSORFLOW",
        metavar="SPEC",
        help="Only consider these TensorFlow versions (2.15, '>=2.11').",
    ),
    driver: Optional[str] = typer.Option(
        None,
        "--driver",
        envvar="ENVCHECK_DRIVER_VERSION",
        metavar="VER",
        help="The NVIDIA driver release, or 'none' (default: detected).",
    ),
    gpu: Optional[str] = typer.Option(
        None, "--gpu", envvar="ENVCHECK_GPU", metavar="NAME", help="The GPU model."
    ),
    compute_capability: Optional[str] = typer.Option(
        None,
        "--compute-capability",
        envvar="ENVCHECK_COMPUTE_CAPABILITY",
        metavar="X.Y",
        help="The GPU's compute capability.",
    ),
    matrix_option: Optional[str] = typer.Option(
        None, "--matrix", envvar="ENVCHECK_MATRIX", metavar="DIR", help="Another matrix."
    ),
) -> None:
    """Which installed Python the TensorFlow venv should use, and whether the GPU needs WSL2."""
    text = _read(py_list, "--py-list")
    matrix = load_matrix(matrix_dir(matrix_option))
    lookup = GpuIndex.build(matrix.gpus).capability

    machine = with_capabilities(
        describe_machine("windows", "x86_64", None, driver, _gpus(matrix, gpu, compute_capability)),
        lookup,
    )
    plan = plan_windows_python(matrix, machine, text, tensorflow)
    typer.echo(
        json.dumps(
            {
                "schema": PYTHON_SCHEMA,
                "chosen": _install_json(plan.chosen) if plan.chosen is not None else None,
                "tensorflow": _candidate_json(plan.candidate),
                "gpu": machine.driver is not None or bool(machine.gpus),
                "wsl2": {
                    "advised": plan.wsl_advised,
                    "tensorflow": _candidate_json(plan.wsl),
                    "explanation": wsl_explanation(plan.wsl) if plan.wsl is not None else None,
                },
                "advice": list(plan.advice),
                "message": plan.message,
                "installs": [_install_json(i) for i in plan.installs],
            },
            indent=2,
        )
    )
    if plan.chosen is None:
        raise typer.Exit(EXIT_NEGATIVE)


@setup_app.command("wsl-state")
@_handles_errors
def wsl_state_command(
    status_exit_code: Optional[int] = typer.Option(
        None,
        "--status-exit-code",
        metavar="N",
        help="The exit code of `wsl.exe --status`; leave out when wsl.exe does not exist.",
    ),
    list_file: Optional[str] = typer.Option(
        None, "--list", metavar="FILE", help="What `wsl.exe -l -v` printed (any encoding)."
    ),
    list_exit_code: int = typer.Option(
        0, "--list-exit-code", metavar="N", help="The exit code of `wsl.exe -l -v`."
    ),
) -> None:
    """Is WSL absent, WSL 1 only, WSL 2, or without a Linux distribution; and what to do."""
    text = _read(list_file, "--list") if list_file is not None else ""
    state = wsl_state(status_exit_code, text, list_exit_code)
    distributions = user_distributions(text, list_exit_code)
    typer.echo(
        json.dumps(
            {
                "schema": WSL_SCHEMA,
                "state": state,
                "distributions": [
                    {"name": d.name, "version": d.version, "default": d.default}
                    for d in distributions
                ],
                "message": wsl_message(state, distributions),
            },
            indent=2,
        )
    )


def register(app: typer.Typer) -> None:
    """Add the hidden `envcheck setup` group to the envcheck command line."""
    app.add_typer(setup_app, name="setup", hidden=True)
