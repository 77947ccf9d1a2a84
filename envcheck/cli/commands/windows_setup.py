"""`envcheck setup ...`: the hidden commands scripts/setup-windows.ps1 asks for its decisions.

Each command reads the files the script wrote (raw bytes of `py -0p` / `wsl.exe` output;
envcheck.recommend.windows_setup decodes them) and prints one JSON object (ASCII only, so the
console code page cannot garble it). Exit codes: 0 an answer, 1 `windows-python` found no usable
interpreter (the message says which to install), 2 unusable input (a missing file, a bad
--driver). Decisions
live in envcheck.recommend.windows_setup.
"""

from __future__ import annotations

import argparse
import json

from envcheck.bounded_input import UnsuitableFileError, read_regular_file
from envcheck.cli.commands.flags import capability_lookup, gpus_from_flags
from envcheck.cli.commands.matrix_choice import load
from envcheck.cli.exits import EXIT_NEGATIVE, EXIT_OK, handles_errors
from envcheck.errors import InputError
from envcheck.recommend.machine import describe_machine, with_capabilities
from envcheck.recommend.windows_setup import (
    decode_output,
    plan_windows_python,
    user_distributions,
    wsl_explanation,
    wsl_message,
)
from envcheck.recommend.windows_setup import wsl_state as classify_wsl
from envcheck.report import windows_setup as setup_report

MAX_LIST_BYTES = 16 * 1024 * 1024  # `py --list-paths` or `wsl --list` output: a few KB
PYTHON_SCHEMA = "envcheck.setup-windows-python/1"
WSL_SCHEMA = "envcheck.setup-wsl-state/1"


def _read(path: str, option: str) -> str:
    try:  # a FIFO or /dev/zero is refused, not waited on or read without end
        return decode_output(read_regular_file(path, MAX_LIST_BYTES))
    except UnsuitableFileError as exc:
        raise InputError(f"{option} {path!r} {exc}") from None
    except OSError as exc:
        raise InputError(f"{option} {path!r} cannot be read: {exc.strerror or exc}") from None


@handles_errors
def windows_python(args: argparse.Namespace) -> int:
    """Which installed Python the TensorFlow venv should use, and whether the GPU needs WSL2."""
    text = _read(args.py_list, "--py-list")
    matrix = load(args.matrix_option)
    gpus = gpus_from_flags(matrix, args.gpu, args.compute_capability, capability_wins=True)
    machine = with_capabilities(
        describe_machine("windows", "x86_64", None, args.driver, gpus), capability_lookup(matrix)
    )
    plan = plan_windows_python(matrix, machine, text, args.tensorflow)
    print(
        json.dumps(
            {
                "schema": PYTHON_SCHEMA,
                "chosen": setup_report.install_json(plan.chosen)
                if plan.chosen is not None
                else None,
                "tensorflow": setup_report.candidate_json(plan.candidate),
                "gpu": machine.driver is not None or bool(machine.gpus),
                "wsl2": {
                    "advised": plan.wsl_advised,
                    "tensorflow": setup_report.candidate_json(plan.wsl),
                    "explanation": wsl_explanation(plan.wsl) if plan.wsl is not None else None,
                },
                "advice": list(plan.advice),
                "message": plan.message,
                "installs": [setup_report.install_json(i) for i in plan.installs],
            },
            indent=2,
        )
    )
    return EXIT_NEGATIVE if plan.chosen is None else EXIT_OK


@handles_errors
def wsl_state(args: argparse.Namespace) -> int:
    """Is WSL absent, WSL 1 only, WSL 2, or without a Linux distribution; and what to do."""
    text = _read(args.list_file, "--list") if args.list_file is not None else ""
    state = classify_wsl(args.status_exit_code, text, args.list_exit_code)
    distributions = user_distributions(text, args.list_exit_code)
    print(
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
    return EXIT_OK
