"""The command line: parse the options, run the chosen command, turn its end into an exit code.

Data goes to stdout, errors to stderr as one line. Exit codes: 0 success (for `recommend`: a GPU
candidate exists), 1 a negative answer (no GPU candidate, matrix problems, no matching rows),
2 a usage error or unusable input, 3 a bug in envcheck. Every option can also be set with an
ENVCHECK_* variable. The commands and their options are data (envcheck.cli.table); each
command's code (envcheck.cli.commands.*) is imported only when it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO, cast

from envcheck import __version__
from envcheck.cli import signals, standard_output
from envcheck.cli.exits import (
    EXIT_INTERNAL,
    EXIT_NEGATIVE,
    EXIT_OK,
    EXIT_USAGE,
    CommandExit,
)
from envcheck.cli.help import help_page
from envcheck.cli.options import UsageError, build_parser, parse, print_help
from envcheck.cli.table import ROOT
from envcheck.errors import Interrupted
from envcheck.report.terminal_text import FilteredStream

PROG = "envcheck"


def parser() -> argparse.ArgumentParser:
    """The parser of the whole command line (docs/commands.md's --help blocks come from it)."""
    return build_parser(ROOT, PROG, __version__, help_page)


def _handler(reference: str) -> Callable[[argparse.Namespace], Any]:
    module, _, function = reference.partition(":")
    handler: Callable[[argparse.Namespace], Any] = getattr(
        importlib.import_module(module), function
    )
    return handler


def run(argv: Sequence[str]) -> int:
    """Run the command line `argv` (without the program name); return the exit code."""
    whole = parser()
    parsed = parse(whole, argv)
    if parsed.command.handler is None:  # a group named without its subcommand
        print_help(whole, argv)
        return EXIT_USAGE
    result = _handler(parsed.command.handler)(parsed.values)
    return result if isinstance(result, int) else EXIT_OK


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: every way a command ends becomes an exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    closed = standard_output.adopt_closed_streams()
    if closed is not None:
        sys.exit(closed)
    with signals.handled(), _messages_filtered():
        code = _run_to_exit_code(args)
    sys.exit(code)


@contextlib.contextmanager
def _messages_filtered() -> Iterator[None]:
    """stderr behind the one output filter while the command runs: every error and notice
    (an index's file URL in a digest mismatch, a wheel's tags, an exception's text, pip's
    lines) is escaped there, so no caller can forget to."""
    stream = sys.stderr
    sys.stderr = cast(TextIO, FilteredStream(stream))
    try:
        yield
    finally:
        sys.stderr.flush()
        sys.stderr = stream


def _run_to_exit_code(args: Sequence[str]) -> int:
    try:
        code = _run_and_flush(args)
    except BrokenPipeError:
        code = _reader_left()
    except CommandExit as exc:
        code = exc.code
    except UsageError as exc:
        message = " ".join(str(exc).split())
        print(f"envcheck: error: {message} (see {exc.command or PROG} --help)", file=sys.stderr)
        code = EXIT_USAGE
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, SIGHUP (signals.py)
        code = signals.finish(exc)
    except OSError as exc:  # standard output on a full disk, else a bug
        if standard_output.is_output_failure(exc):
            code = standard_output.give_up(exc)
        else:
            code = _internal_error(exc)
    except Exception as exc:
        code = _internal_error(exc)
    return signals.exit_code(code)


def _internal_error(exc: Exception) -> int:
    """A bug: say so in one line, after the traceback when ENVCHECK_DEBUG asks for it. Exit 3
    either way: re-raising made it Python's own 1, which means "a negative answer"."""
    signum = signals.received()
    if signum is not None:
        # A signal's exception that came out as another (Python wraps what a class body's
        # __set_name__ raises in a RuntimeError): the signal ends envcheck, not a bug.
        return signals.finish(Interrupted(signum))
    if os.environ.get("ENVCHECK_DEBUG"):
        import traceback  # noqa: PLC0415 - only when asked for

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        advice = "please report it, with the traceback above"
    else:
        advice = "set ENVCHECK_DEBUG=1 for the traceback, and please report it"
    print(f"envcheck: internal error: {type(exc).__name__}: {exc} ({advice})", file=sys.stderr)
    return EXIT_INTERNAL


def _run_and_flush(args: Sequence[str]) -> int:
    """Run, then flush stdout here: a reader that left (`| head`) must be noticed inside main,
    not by the interpreter's own flush at exit, which prints "Exception ignored" and exits 120."""
    try:
        code = run(args)
    except SystemExit as exc:  # argparse's --help and --version
        sys.stdout.flush()
        raise CommandExit(exc.code if isinstance(exc.code, int) else EXIT_USAGE) from None
    sys.stdout.flush()
    return code


def _reader_left() -> int:
    # Nothing more can reach the reader; point stdout at /dev/null so the exit flush is quiet.
    standard_output.discard()
    return EXIT_NEGATIVE
