"""The `--help` pages, written from the command table (envcheck.cli.table).

Not argparse's formatter: its headings and columns change between Python versions (3.9 says
"optional arguments", 3.13 moves metavars), and the command reference (docs/commands.md) is
compared with this output by a test. Pure functions of the table and a width.
"""

from __future__ import annotations

import shutil

from envcheck.cli.options import FLAG, LIST, Command, Option

MAX_WIDTH = 100
_INDENT = "  "
_MAX_COLUMN = 34  # where help text starts at most; longer invocations put it on the next line
HELP_ROW = ("-h, --help", "Show this help and exit.")
VERSION_ROW = ("--version", "Print the version and exit.")


def terminal_width() -> int:
    """The terminal's width (COLUMNS when set), at most MAX_WIDTH, at least 60."""
    return max(60, min(MAX_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns))


def invocation(option: Option) -> str:
    """How an option is written: "-o, --output FILE", "--strict", "[FILE|-]"."""
    if not option.flags:
        return option.metavar or option.dest.upper()
    flags = ", ".join(option.flags)
    if option.kind == FLAG:
        return flags
    return f"{flags} {option.metavar or option.dest.upper()}"


def option_help(option: Option) -> str:
    """An option's help sentence with its variable, default, bounds and whether it is required."""
    notes = []
    if option.envvar:
        notes.append(f"env: {option.envvar}")
    if option.default not in (None, False, ()) and option.kind != FLAG:
        default = option.default
        notes.append(
            f"default: {default:g}" if isinstance(default, float) else f"default: {default}"
        )
    if option.minimum is not None:
        notes.append(f"at least {option.minimum:g}")
    if option.maximum is not None:
        notes.append(f"at most {option.maximum:g}")
    if option.required:
        notes.append("required")
    if option.old_flags:
        notes.append(f"old name{'s' if len(option.old_flags) > 1 else ''}, still accepted: "
                     + ", ".join(option.old_flags))  # fmt: skip
    return f"{option.help} [{'; '.join(notes)}]" if notes else option.help


def usage(command: Command, prog: str) -> str:
    positional = next((o for o in command.options if not o.flags), None)
    parts = [prog, "[OPTIONS]"]
    if positional is not None:
        many = "..." if positional.kind == LIST else ""  # paths: none or more
        parts.append(f"[{positional.metavar or positional.dest.upper()}{many}]")
    if command.subcommands:
        parts.append("COMMAND [ARGS]..." if command.handler is None else "[COMMAND [ARGS]...]")
    return " ".join(parts)


def help_page(command: Command, prog: str, root: bool = False, width: int | None = None) -> str:
    """The whole `prog --help` page of `command` (`root`: the program's own, with --version)."""
    # Imported here: only a help page wraps text, and a command's run need not load it.
    import textwrap  # noqa: PLC0415

    width = width or terminal_width()
    lines = [f"Usage: {usage(command, prog)}", ""]
    lines += [*textwrap.wrap(command.description or command.help, width), ""]
    positional = [(invocation(o), option_help(o)) for o in command.options if not o.flags]
    options = [HELP_ROW, *([VERSION_ROW] if root else [])]
    options += [(invocation(o), option_help(o)) for o in command.options if o.flags]
    commands = [(c.name, c.help) for c in command.subcommands if not c.hidden]
    for title, rows in (("Arguments", positional), ("Options", options), ("Commands", commands)):
        if rows:
            lines += [f"{title}:", *_table(rows, width), ""]
    return "\n".join(lines[:-1]) + "\n"


def _table(rows: list[tuple[str, str]], width: int) -> list[str]:
    import textwrap  # noqa: PLC0415 - see help_page

    column = min(_MAX_COLUMN, max(len(left) for left, _ in rows) + len(_INDENT) + 2)
    text_width = max(20, width - column)
    out = []
    for left, right in rows:
        wrapped = textwrap.wrap(right, text_width) or [""]
        head = f"{_INDENT}{left}"
        if len(head) + 2 > column:
            out.append(head)
            out += [" " * column + line for line in wrapped]
            continue
        out.append(head.ljust(column) + wrapped[0])
        out += [" " * column + line for line in wrapped[1:]]
    return out
