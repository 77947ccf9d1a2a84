"""The command line: parse options, call the library, print, and choose the exit code.

Data goes to stdout, errors to stderr as one line. Exit codes: 0 success (for `recommend`: a GPU
candidate exists), 1 a negative answer (no GPU candidate, matrix problems, no matching rows),
2 a usage error or unusable input. Every option can also be set with an ENVCHECK_* variable.
"""

from __future__ import annotations

import getpass
import importlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import typer
from packaging.version import Version

from envcheck import __version__
from envcheck.atomic_file import write_atomically
from envcheck.cli_errors import (
    EXIT_INTERNAL,
    EXIT_NEGATIVE,
    EXIT_OK,
    EXIT_USAGE,
    fail,
    handles_errors,
)
from envcheck.diagnose.context import Target
from envcheck.diagnose.run import run_doctor
from envcheck.errors import EnvcheckError
from envcheck.explain.explain import explain_lines
from envcheck.explain.reader import read_log
from envcheck.explain.signatures import load_signatures
from envcheck.fetch_cli import register as register_fetch
from envcheck.install_cli import register as register_install
from envcheck.machine import GpuDescription, describe_machine, with_capabilities
from envcheck.matrix.advisories import load_known_bugs
from envcheck.matrix.checks import Problem, check_matrix
from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.load import MatrixDataError, matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.probe.collect import collect_facts
from envcheck.recommend import recommend
from envcheck.report import facts as report_facts
from envcheck.report import matrix_rows, recommendation
from envcheck.report.doctor import Format, render
from envcheck.report.explanation import render as render_explanation
from envcheck.versions import (
    ComputeCapability,
    DriverVersion,
    major_minor,
    parse_numeric_version,
)
from envcheck.windows_setup_cli import register as register_setup

app = typer.Typer(
    name="envcheck",
    help="Will TensorFlow, CUDA, cuDNN, the NVIDIA driver and this GPU work together?",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
matrix_app = typer.Typer(
    help="Show the version matrix rows, or validate a matrix directory.",
    invoke_without_command=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.add_typer(matrix_app, name="matrix")
register_install(app)
register_fetch(app)
register_setup(app)

_handles_errors = handles_errors()
_fail = fail


def _print_json(data: object) -> None:
    typer.echo(json.dumps(data, indent=2))


def _load(matrix_option: Optional[str]) -> Matrix:
    return load_matrix(matrix_dir(matrix_option))


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"envcheck {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print the version and exit.",
        callback=_version_callback,
        is_eager=True,
    ),
) -> None:
    """Will TensorFlow, CUDA, cuDNN, the NVIDIA driver and this GPU work together?"""


MATRIX_OPTION = typer.Option(
    None,
    "--matrix",
    envvar="ENVCHECK_MATRIX",
    metavar="DIR",
    help="Use the matrix data in DIR instead of the bundled one.",
)


@matrix_app.callback()
@_handles_errors
def matrix_rows_command(
    ctx: typer.Context,
    tensorflow: Optional[str] = typer.Option(
        None,
        "--tensorflow",
        envvar="ENVCHECK_TENSORFLOW",
        metavar="VER",
        help="Only TensorFlow releases matching VER (2.15, 2.15.1 or '>=2.12,<2.16').",
    ),
    cuda: Optional[str] = typer.Option(
        None,
        "--cuda",
        envvar="ENVCHECK_CUDA",
        metavar="VER",
        help="Only releases built with this CUDA (12 or 12.5).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    matrix_option: Optional[str] = MATRIX_OPTION,
) -> None:
    """Show TensorFlow releases with their Python, CUDA, cuDNN, driver and GPU targets."""
    if ctx.invoked_subcommand is not None:
        # `envcheck matrix --matrix DIR validate` means the same as `... validate --matrix DIR`.
        ctx.obj = {"matrix": matrix_option}
        return
    matrix = _load(matrix_option)
    releases = matrix.releases_matching(tensorflow)
    if cuda is not None:
        wanted = parse_numeric_version(cuda, "CUDA version")
        releases = tuple(
            r for r in releases if r.cuda is not None and _cuda_matches(r.cuda, wanted)
        )
    if not releases:
        raise _fail("no TensorFlow release matches the given filters", EXIT_NEGATIVE)
    if as_json:
        _print_json(matrix_rows.to_json(matrix, releases))
    else:
        typer.echo(matrix_rows.to_text(matrix, releases), nl=False)


def _cuda_matches(built: Version, wanted: Version) -> bool:
    if len(wanted.release) == 1:
        return built.release[0] == wanted.release[0]
    return major_minor(built) == major_minor(wanted)


@matrix_app.command("validate")
def validate_command(
    ctx: typer.Context,
    matrix_option: Optional[str] = MATRIX_OPTION,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Check a matrix directory: every row parses, cites a source, and agrees with the others."""
    if matrix_option is None and isinstance(ctx.obj, dict):
        matrix_option = ctx.obj.get("matrix")
    try:
        directory = matrix_dir(matrix_option)
    except EnvcheckError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    problems: list[Problem]
    try:
        problems = check_matrix(load_matrix(directory))
    except MatrixDataError as exc:
        problems = [Problem("load", str(exc))]
    try:
        signature_ids = {s.id for s in load_signatures(directory)}
        for bug in load_known_bugs(directory):
            for symptom in sorted(set(bug.symptoms) - signature_ids):
                problems.append(
                    Problem("known_bugs.toml", f"{bug.id}: symptom {symptom!r} is no signature id")
                )
    except MatrixDataError as exc:
        problems.append(Problem("load", str(exc)))
    if as_json:
        _print_json(
            {
                "schema": "envcheck.matrix-validate/1",
                "directory": str(directory),
                "valid": not problems,
                "problems": [{"file": p.file, "message": p.message} for p in problems],
            }
        )
    else:
        for problem in problems:
            typer.echo(str(problem))
        summary = "matrix is valid" if not problems else f"{len(problems)} problem(s)"
        typer.echo(f"{directory}: {summary}")
    if problems:
        raise typer.Exit(EXIT_NEGATIVE)


@app.command("recommend")
@_handles_errors
def recommend_command(
    os_name: Optional[str] = typer.Option(
        None,
        "--os",
        envvar="ENVCHECK_OS",
        metavar="linux|windows|wsl|macos",
        help="The target OS (default: this machine).",
    ),
    arch: Optional[str] = typer.Option(
        None,
        "--arch",
        envvar="ENVCHECK_ARCH",
        metavar="x86_64|aarch64",
        help="The target CPU architecture (default: this machine).",
    ),
    python: Optional[str] = typer.Option(
        None,
        "--python",
        envvar="ENVCHECK_PYTHON",
        metavar="X.Y",
        help="The target Python (default: this interpreter).",
    ),
    driver: Optional[str] = typer.Option(
        None,
        "--driver",
        envvar="ENVCHECK_DRIVER_VERSION",
        metavar="VER",
        help="The NVIDIA driver release, e.g. 535.104.05, or 'none' (default: detected).",
    ),
    gpu: Optional[str] = typer.Option(
        None,
        "--gpu",
        envvar="ENVCHECK_GPU",
        metavar="NAME",
        help="The GPU model, e.g. 'RTX 3060' (default: detected).",
    ),
    compute_capability: Optional[str] = typer.Option(
        None,
        "--compute-capability",
        envvar="ENVCHECK_COMPUTE_CAPABILITY",
        metavar="X.Y",
        help="The GPU's compute capability, e.g. 8.6.",
    ),
    tensorflow: Optional[str] = typer.Option(
        None,
        "--tensorflow",
        envvar="ENVCHECK_TENSORFLOW",
        metavar="SPEC",
        help="Only consider these TensorFlow versions (2.15, 2.15.1, '>=2.12').",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    show_all: bool = typer.Option(False, "--all", help="List every candidate, not the best three."),
    matrix_option: Optional[str] = MATRIX_OPTION,
) -> None:
    """Rank TensorFlow releases for this machine (or one described by flags), with commands."""
    matrix = _load(matrix_option)
    gpus = _gpus_from_flags(matrix, gpu, compute_capability)
    machine = with_capabilities(
        describe_machine(os_name, arch, python, driver, gpus), _capability_lookup(matrix)
    )
    result = recommend(matrix, machine, tensorflow)
    if as_json:
        _print_json(recommendation.to_json(result))
    else:
        typer.echo(recommendation.to_text(result, show_all=show_all), nl=False)
    if not result.has_gpu_candidate:
        raise typer.Exit(EXIT_NEGATIVE)


@app.command("probe")
@_handles_errors
def probe_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON (schema envcheck.facts/1)."),
    python: Optional[str] = typer.Option(
        None,
        "--python",
        envvar="ENVCHECK_PYTHON_EXECUTABLE",
        metavar="PATH",
        help="Probe the environment of this interpreter (e.g. a project's venv).",
    ),
    timeout: float = typer.Option(
        10.0,
        "--timeout",
        envvar="ENVCHECK_TIMEOUT",
        metavar="SECONDS",
        min=0.1,
        help="Time limit for each isolated step (NVML, libcuda, a library's version call).",
    ),
    import_frameworks: bool = typer.Option(
        False,
        "--import-frameworks",
        envvar="ENVCHECK_IMPORT_FRAMEWORKS",
        help="Also import TensorFlow (in a child process) for tf.sysconfig.get_build_info().",
    ),
    matrix_option: Optional[str] = MATRIX_OPTION,
) -> None:
    """Collect the facts: platform, driver and GPUs, frameworks, and the CUDA/cuDNN libraries."""
    if python is not None and not Path(python).exists():
        raise EnvcheckError(f"--python {python!r} does not exist")
    matrix = _load(matrix_option)
    facts = collect_facts(
        matrix, python=python, timeout=timeout, import_frameworks=import_frameworks
    )
    if as_json:
        _print_json(facts.to_json())
    else:
        typer.echo(report_facts.to_text(facts), nl=False)


@app.command("doctor")
@_handles_errors
def doctor_command(
    no_smoke: bool = typer.Option(
        False,
        "--no-smoke",
        envvar="ENVCHECK_NO_SMOKE",
        help="Skip the smoke test (importing TensorFlow and running a tiny conv, LSTM, matmul).",
    ),
    timeout: float = typer.Option(
        120.0,
        "--timeout",
        envvar="ENVCHECK_TIMEOUT",
        metavar="SECONDS",
        min=1.0,
        help="Time limit of the smoke test.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
    output_format: Optional[str] = typer.Option(
        None,
        "--format",
        envvar="ENVCHECK_FORMAT",
        metavar="text|json|markdown",
        help="Report format (default text).",
    ),
    output: Optional[str] = typer.Option(
        None,
        "--output",
        "-o",
        envvar="ENVCHECK_OUTPUT",
        metavar="FILE",
        help="Write the report to FILE (atomically) instead of standard output.",
    ),
    strict: bool = typer.Option(
        False, "--strict", envvar="ENVCHECK_STRICT", help="Exit 1 on warnings too."
    ),
    python: Optional[str] = typer.Option(
        None,
        "--python",
        envvar="ENVCHECK_PYTHON_EXECUTABLE",
        metavar="PATH",
        help="Diagnose the environment of this interpreter.",
    ),
    facts_file: Optional[str] = typer.Option(
        None,
        "--facts",
        envvar="ENVCHECK_FACTS",
        metavar="FILE",
        help="Diagnose a facts file from `envcheck probe --json` (no probing here).",
    ),
    target_driver: Optional[str] = typer.Option(
        None,
        "--target-driver",
        envvar="ENVCHECK_TARGET_DRIVER",
        metavar="VER",
        help="Docker build: the driver of the machines the image will run on.",
    ),
    target_gpu: Optional[str] = typer.Option(
        None,
        "--target-gpu",
        envvar="ENVCHECK_TARGET_GPU",
        metavar="NAME",
        help="Docker build: the GPU model the image will run on.",
    ),
    target_cc: Optional[str] = typer.Option(
        None,
        "--target-compute-capability",
        envvar="ENVCHECK_TARGET_COMPUTE_CAPABILITY",
        metavar="X.Y",
        help="Docker build: the target GPU's compute capability.",
    ),
    matrix_option: Optional[str] = MATRIX_OPTION,
) -> None:
    """Diagnose: will TensorFlow use the GPU here, and if not, which link is broken and the fix."""
    chosen = (
        Format((output_format or ("json" if as_json else "text")).lower())
        if ((output_format or "text").lower() in {f.value for f in Format})
        else None
    )
    if chosen is None:
        raise EnvcheckError(f"--format {output_format!r} is not one of text, json, markdown")
    if python is not None and not Path(python).exists():
        raise EnvcheckError(f"--python {python!r} does not exist")
    matrix = _load(matrix_option)
    target = _target(matrix, target_driver, target_gpu, target_cc)
    report = run_doctor(
        matrix,
        facts_file=facts_file,
        python=python,
        smoke=not no_smoke and facts_file is None,
        timeout=timeout,
        target=target,
    )
    colour = chosen is Format.TEXT and output is None and sys.stdout.isatty()
    text = render(report, chosen, colour, home=str(Path.home()), user=_user_name())
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_atomically(Path(output), text)
    failing = {"error"} | ({"warning"} if strict else set())
    if report.status in failing:
        raise typer.Exit(EXIT_NEGATIVE)


@app.command("explain")
@_handles_errors
def explain_command(
    source: str = typer.Argument("-", metavar="[FILE|-]", help="The log file; - reads stdin."),
    as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
    output_format: Optional[str] = typer.Option(
        None,
        "--format",
        envvar="ENVCHECK_FORMAT",
        metavar="text|json|markdown",
        help="Report format (default text).",
    ),
    matrix_option: Optional[str] = MATRIX_OPTION,
) -> None:
    """Explain a pasted TensorFlow / CUDA / cuDNN log: what is wrong and what to do."""
    chosen = _format(output_format, as_json)
    matrix = _load(matrix_option)
    explanation = explain_lines(
        read_log(source),
        load_signatures(matrix.directory),
        matrix,
        load_known_bugs(matrix.directory),
    )
    typer.echo(render_explanation(explanation, chosen), nl=False)
    if any(f.severity.value == "error" for f in explanation.findings):
        raise typer.Exit(EXIT_NEGATIVE)


def _format(output_format: Optional[str], as_json: bool) -> Format:
    text = (output_format or ("json" if as_json else "text")).lower()
    try:
        return Format(text)
    except ValueError:
        raise EnvcheckError(
            f"--format {output_format!r} is not one of text, json, markdown"
        ) from None


def _user_name() -> Optional[str]:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return None


def _target(
    matrix: Matrix, driver: Optional[str], gpu: Optional[str], capability: Optional[str]
) -> Optional[Target]:
    if driver is None and gpu is None and capability is None:
        return None
    gpus = _gpus_from_flags(matrix, gpu, capability) or ()
    return Target(
        driver=DriverVersion.parse(driver, "--target-driver") if driver else None,
        capabilities=tuple(g.compute_capability for g in gpus if g.compute_capability),
        gpu_names=tuple(g.name or "target GPU" for g in gpus),
    )


def _capability_lookup(matrix: Matrix) -> Callable[[str], ComputeCapability | None]:
    return GpuIndex.build(matrix.gpus).capability


def _gpus_from_flags(
    matrix: Matrix, name: Optional[str], capability: Optional[str]
) -> tuple[GpuDescription, ...] | None:
    if name is None and capability is None:
        return None
    parsed = ComputeCapability.parse(capability) if capability is not None else None
    if name is None:
        return (GpuDescription(None, parsed),)
    row = GpuIndex.build(matrix.gpus).find(name)
    if parsed is not None and parsed != row.compute_capability:
        raise EnvcheckError(
            f"--gpu {name!r} is a {row.name} with compute capability {row.compute_capability}, "
            f"but --compute-capability says {parsed}; drop one of them"
        )
    return (GpuDescription(row.name, row.compute_capability),)


def _click_exceptions() -> Any:
    """The click exceptions module typer raises: its vendored copy (typer >= 0.2x) or click."""
    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportError("neither typer._click nor click is installed")  # pragma: no cover


def main() -> None:
    """Console-script entry point: click's usage errors become one line too."""
    click_exceptions = _click_exceptions()
    no_args = getattr(click_exceptions, "NoArgsIsHelpError", ())
    try:
        code = app(standalone_mode=False, prog_name="envcheck")
    except no_args as exc:
        typer.echo(exc.format_message(), err=True)
        sys.exit(EXIT_USAGE)
    except click_exceptions.UsageError as exc:
        message = " ".join(exc.format_message().split())
        typer.echo(f"envcheck: error: {message} (see --help)", err=True)
        sys.exit(EXIT_USAGE)
    except typer.Abort:
        typer.echo("envcheck: aborted", err=True)
        sys.exit(EXIT_NEGATIVE)
    except Exception as exc:  # a bug: say so in one line unless asked for the traceback
        if os.environ.get("ENVCHECK_DEBUG"):
            raise
        print(
            f"envcheck: internal error: {type(exc).__name__}: {exc} "
            "(set ENVCHECK_DEBUG=1 for the traceback, and please report it)",
            file=sys.stderr,
        )
        sys.exit(EXIT_INTERNAL)
    sys.exit(code if isinstance(code, int) else EXIT_OK)
