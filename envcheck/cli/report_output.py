"""--format and -o/--output, with one meaning on every command that writes a report, and the
progress lines a person at a terminal sees while a long step runs.

The options are data for cli/table.py; the functions run in the commands. `-o FILE` without
--format (or --json) takes the format its suffix names (a .md file is Markdown), so that a
file is never written in a format its name contradicts; a suffix that names a format the
command does not write is a usage error rather than a silent text file. A written file is
announced in one line when stderr is a terminal: standard output stays empty, and a person sees
where it went.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from envcheck.cli.options import Option
from envcheck.errors import InputError

# What a file name's suffix says its content is. .xml: JUnit, the only XML envcheck writes;
# .prom: node_exporter's textfile collector reads *.prom files only.
SUFFIX_FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".xml": "junit",
    ".prom": "prometheus",
    ".csv": "csv",
    ".txt": "text",
}
# Formats a person reads: the only ones with progress lines beside them.
_FOR_PEOPLE = frozenset({"text", "markdown"})


def format_option(
    formats: Sequence[str], more_help: str = "", envvar: str = "ENVCHECK_FORMAT"
) -> Option:
    """--format for a command that writes `formats` (text first: the default)."""
    return Option(
        ("--format",),
        "output_format",
        f"Report format (default text; with -o, the one the file's suffix names).{more_help}",
        envvar=envvar,
        metavar="|".join(formats),
    )


def output_option(envvar: str = "ENVCHECK_OUTPUT") -> Option:
    """-o/--output. The commands that had it first (doctor, fleet) share ENVCHECK_OUTPUT; the
    others have a variable of their own, so that a variable exported for the doctor (a Docker
    build's ENV, a Slurm prolog) never sends another command's output over the doctor's file."""
    return Option(
        ("-o", "--output"),
        "output",
        "Write the report to FILE (atomically) instead of standard output, in the format its "
        "suffix names (.md markdown, .json json, .xml junit, .prom prometheus, .csv csv, .txt "
        "text) unless --format or --json says otherwise.",
        envvar=envvar,
        metavar="FILE",
    )


OUTPUT = output_option()


def requested_format(
    output_format: str | None, as_json: bool, output: str | None, offered: Sequence[str]
) -> str | None:
    """The format asked for: --format, else --json, else the suffix of -o FILE when it names
    one; None for the command's default. The command's own chooser checks a --format value."""
    if output_format:
        return output_format
    if as_json:
        return "json"
    if output is None:
        return None
    named = SUFFIX_FORMATS.get(Path(output).suffix.lower())
    if named is None or named in offered:
        return named
    raise InputError(
        f"-o {output!r} names the {named} format, which this command does not write "
        f"({', '.join(offered)}): give --format, or another file name"
    )


def chosen_format(
    output_format: str | None, as_json: bool, output: str | None, offered: Sequence[str]
) -> str:
    """The format of a command that writes `offered` (the first the default), checked, and an
    -o FILE checked writable now rather than after the work."""
    asked = requested_format(output_format, as_json, output, offered)
    name = (asked or offered[0]).lower()
    if name not in offered:
        raise InputError(f"--format {asked!r} is not one of {', '.join(offered)}")
    if output is not None:
        from envcheck.atomic_file import check_writable  # noqa: PLC0415 - only with -o

        check_writable(output)
    return name


def write_report(output: str | None, text: str, format_name: str) -> None:
    """`text` to standard output, or atomically to `output` with one line on stderr."""
    if output is None:
        sys.stdout.write(text)
        return
    from envcheck.atomic_file import write_atomically  # noqa: PLC0415 - only with -o

    write_atomically(Path(output), text)
    announce_written(output, format_name)


def announce_written(output: str, format_name: str) -> None:
    """One line for a person at a terminal. Not for a script: the Kubernetes job and the Slurm
    script (deploy/) pass envcheck's stderr on as the pod's termination message and a node's
    drain reason, where only a problem belongs."""
    if _is_terminal(sys.stderr):
        print(f"envcheck: wrote {output} ({format_name})", file=sys.stderr)


Progress = Callable[[str], None]


def progress(format_name: str) -> Progress | None:
    """A writer of progress lines on stderr when stderr is a terminal and the report is for a
    person; None otherwise (a pipe, a log file, a JSON reader: nothing is added there)."""
    if format_name not in _FOR_PEOPLE or not _is_terminal(sys.stderr):
        return None

    def say(step: str) -> None:
        print(f"envcheck: {step}", file=sys.stderr, flush=True)

    return say


def prompt_for_paste(source: str) -> None:
    """`explain` reading a terminal: the user may not know it waits for a paste."""
    if source == "-" and _is_terminal(sys.stdin):
        end = "Ctrl-Z, Enter" if sys.platform == "win32" else "Ctrl-D"
        print(f"envcheck: paste the log, then {end} on a line of its own", file=sys.stderr)


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):  # a closed stream
        return False
