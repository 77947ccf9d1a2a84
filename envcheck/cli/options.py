"""The command line as data: each command's options, their ENVCHECK_* variables, and a parser.

Built on the standard library's argparse rather than a CLI framework: `envcheck doctor --no-smoke`
has to finish in a tenth of a bare `import tensorflow`, and the framework envcheck started with
(typer, which now builds a pydantic adapter for every option on every run) cost about 0.2 s of
that before the first fact was read. argparse imports in ~2 ms. What a framework gave for free
and this module adds: options that also read an environment variable, flags with yes/no values
from the environment, lower bounds, one-line usage errors and a help text that names the
variables and defaults.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Callable, NoReturn

from envcheck.record import record

TEXT = "text"
FLAG = "flag"
NUMBER = "number"
INTEGER = "integer"
LIST = "list"

# The spellings click and typer accepted for a flag in an environment variable; scripts written
# against earlier envcheck versions keep working.
_TRUE = frozenset({"1", "true", "t", "yes", "y", "on"})
_FALSE = frozenset({"0", "false", "f", "no", "n", "off"})


class UsageError(Exception):
    """The command line or an ENVCHECK_* variable cannot be used; the message is one line."""

    def __init__(self, message: str, command: str) -> None:
        super().__init__(message)
        self.command = command


@record
class Option:
    """One option (or the one positional argument) of a command."""

    flags: tuple[str, ...]  # ("--output", "-o"); empty for a positional argument
    dest: str  # the attribute of the parsed namespace
    help: str
    kind: str = TEXT  # TEXT | FLAG | NUMBER | INTEGER | LIST (repeatable)
    envvar: str | None = None
    metavar: str | None = None
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    required: bool = False
    # Spellings an earlier envcheck used for this option: still accepted, so that scripts keep
    # working, but listed in the help only as old names.
    old_flags: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """How messages name it: the long flag, or the metavar of a positional argument."""
        long_flags = [f for f in self.flags if f.startswith("--")]
        return (long_flags or self.flags or (self.metavar or self.dest,))[0]


@record
class Command:
    """A command: its options, the function that runs it ("module:function") or subcommands."""

    name: str
    help: str
    options: tuple[Option, ...] = ()
    handler: str | None = None  # None: a group that only holds subcommands
    subcommands: tuple[Command, ...] = ()
    hidden: bool = False
    description: str | None = None  # the help page's paragraph; `help` when None


def _convert(option: Option, text: str) -> Any:
    """The value of `text` for `option`; ValueError with a sentence when it is not one."""
    if option.kind in (NUMBER, INTEGER):
        number_type: Callable[[str], float | int] = float if option.kind == NUMBER else int
        try:
            value = number_type(text)
        except ValueError:
            noun = "a number" if option.kind == NUMBER else "a whole number"
            raise ValueError(f"{text!r} is not {noun}") from None
        if not math.isfinite(value):
            raise ValueError(f"{text!r} is not a finite number")
        if option.minimum is not None and value < option.minimum:
            raise ValueError(f"{text} is below the minimum of {option.minimum:g}")
        if option.maximum is not None and value > option.maximum:
            raise ValueError(f"{text} is above the maximum of {option.maximum:g}")
        return value
    if option.kind == FLAG:
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ValueError(f"{text!r} is not a yes/no value (use 1 or 0)")
    return text


def _argparse_type(option: Option) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            return _convert(option, text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = option.kind  # argparse names the type in some messages
    return convert


def environment_defaults(options: Sequence[Option], environ: Mapping[str, str]) -> dict[str, Any]:
    """Defaults taken from the ENVCHECK_* variables that are set (and not empty)."""
    defaults: dict[str, Any] = {}
    for option in options:
        raw = environ.get(option.envvar) if option.envvar else None
        if not raw:
            continue
        try:
            if option.kind == LIST:
                defaults[option.dest] = raw.split()
            else:
                defaults[option.dest] = _convert(option, raw)
        except ValueError as exc:
            raise UsageError(f"{option.envvar} (for {option.name}): {exc}", "") from None
    return defaults


HelpPage = Callable[[Command, str, bool], str]  # (command, prog, is the root) -> the page


class _HelpAction(argparse.Action):
    """-h/--help: the page written from the command table (envcheck.cli.help), then exit 0."""

    # argparse calls actions with these signatures; the help needs none of their values.
    def __init__(self, option_strings: Sequence[str], dest: str, page: Callable[[], str]) -> None:
        del dest
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0)
        self.page = page

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any,
                 option_string: str | None = None) -> None:  # fmt: skip
        del namespace, values, option_string
        sys.stdout.write(self.page())
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are UsageError (one line, exit 2) instead of usage + exit."""

    def __init__(self, page: Callable[[], str], **kwargs: Any) -> None:
        # No abbreviations: `--no-s` working today would break the day another --no-s... exists.
        super().__init__(**kwargs, add_help=False, allow_abbrev=False)
        self.page = page
        self.visible_commands: list[str] = []  # the subcommands an unknown name is compared with
        # A command that takes paths and has subcommands too (`fleet DIR ...`, `fleet plan`):
        # argparse cannot tell a path from a subcommand's name, so the first word picks.
        self.routes: dict[str, argparse.ArgumentParser] = {}
        self.add_argument("-h", "--help", action=_HelpAction, page=page)
        # A subcommand's options and subcommands, added when it is first used: a run parses
        # one command, and building all ~40 parsers' options cost ~3 ms of every run.
        self.pending: Callable[[], None] | None = None

    def configured(self) -> _Parser:
        """This parser with its options and subcommands added."""
        pending, self.pending = self.pending, None
        if pending is not None:
            pending()
        return self

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self.configured()
        words = list(sys.argv[1:] if args is None else args)
        if words and words[0] in self.routes:
            return self.routes[words[0]].parse_known_args(words[1:], namespace)
        return super().parse_known_args(words, namespace)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # An unknown command: argparse's message lists the hidden ones too, and its wording
        # changes between Python versions; this one names the visible commands or a close one.
        if isinstance(action, argparse._SubParsersAction) and value not in action.choices:
            hint = _close_hint(str(value), self.visible_commands, "commands")
            raise argparse.ArgumentError(None, f"no command {value!r}{hint}")
        super()._check_value(action, value)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.prog)


def _close_hint(word: str, known: Sequence[str], noun: str) -> str:
    import difflib  # noqa: PLC0415 - only a mistyped word needs it

    close = difflib.get_close_matches(word, known, n=1)
    if close:
        return f"; did you mean {close[0]}?"
    return f" ({noun}: {', '.join(known)})" if noun else ""


def _add_option(parser: argparse.ArgumentParser, option: Option) -> None:
    common: dict[str, Any] = {"default": argparse.SUPPRESS}  # see parse()
    if not option.flags:
        many = option.kind == LIST  # paths: none or more
        parser.add_argument(option.dest, nargs="*" if many else "?", metavar=option.metavar,
                            **common)  # fmt: skip
        return
    common["dest"] = option.dest
    if option.kind == FLAG:
        parser.add_argument(*option.flags, *option.old_flags, action="store_true", **common)
        return
    if option.kind == LIST:
        common["action"] = "append"
    else:
        common["type"] = _argparse_type(option)
    parser.add_argument(*option.flags, *option.old_flags, metavar=option.metavar, **common)


def build_parser(root: Command, prog: str, version: str, page: HelpPage) -> argparse.ArgumentParser:
    """The argparse parser of `root` and its subcommands (hidden ones parse but are not listed);
    `page` writes each one's --help."""
    parser = _parser(root, prog, page, is_root=True)
    parser.add_argument("--version", action="version", version=f"{prog} {version}")
    return parser


def _parser(
    command: Command, prog: str, page: HelpPage, is_root: bool = False
) -> argparse.ArgumentParser:
    parser = _Parser(page=lambda: page(command, prog, is_root), prog=prog)
    _configure(parser, command, command.options, prog, page)
    return parser


def _configure(
    parser: argparse.ArgumentParser,
    command: Command,
    options: tuple[Option, ...],
    prog: str,
    page: HelpPage,
) -> None:
    for option in command.options:
        _add_option(parser, option)
    parser.set_defaults(_command=command, _options=options, _prog=prog)
    if not command.subcommands:
        return
    if isinstance(parser, _Parser):
        parser.visible_commands = [c.name for c in command.subcommands if not c.hidden]
        if any(not o.flags and o.kind == LIST for o in command.options):
            for sub in command.subcommands:
                sub_prog = f"{prog} {sub.name}"
                child = _Parser(page=_sub_page(page, sub, sub_prog), prog=sub_prog)
                _defer(child, sub, options + sub.options, sub_prog, page)
                parser.routes[sub.name] = child
            return
    group = parser.add_subparsers(dest=f"_{command.name}_subcommand", parser_class=_Parser)
    for sub in command.subcommands:
        sub_prog = f"{prog} {sub.name}"
        child = group.add_parser(
            sub.name, prog=sub_prog, page=lambda c=sub, p=sub_prog: page(c, p, False)
        )
        _defer(child, sub, options + sub.options, sub_prog, page)


def _defer(
    child: _Parser, command: Command, options: tuple[Option, ...], prog: str, page: HelpPage
) -> None:
    """Configure `child` on its first use (_Parser.configured)."""
    child.pending = lambda: _configure(child, command, options, prog, page)


def _sub_page(page: HelpPage, command: Command, prog: str) -> Callable[[], str]:
    return lambda: page(command, prog, False)


@record
class Parsed:
    """What the command line asked for: the command and its option values."""

    command: Command
    values: argparse.Namespace


def parse(
    parser: argparse.ArgumentParser, argv: Sequence[str], environ: Mapping[str, str] | None = None
) -> Parsed:
    """Parse `argv`; an option not given takes its ENVCHECK_* variable, then its default.

    Every option's argparse default is SUPPRESS, so "not given" is visible as a missing
    attribute: a value typed on the command line always wins, even when it equals the default.
    """
    values, extras = parser.parse_known_args(list(argv))
    command: Command = values._command
    options: tuple[Option, ...] = values._options
    if extras:
        known = ["--help", *(flag for o in options for flag in o.flags if flag.startswith("--"))]
        word = extras[0].split("=", 1)[0]
        what = "option" if word.startswith("-") else "argument"
        hint = _close_hint(word, known, "") if word.startswith("-") else ""
        raise UsageError(f"no {what} {extras[0]!r}{hint}", _prog(values, parser))
    env = os.environ if environ is None else environ
    missing = [o for o in options if not hasattr(values, o.dest)]
    try:
        from_env = environment_defaults(missing, env)
    except UsageError as exc:
        raise UsageError(str(exc), _prog(values, parser)) from None
    # Which options took their value from a variable: an error about the value names it.
    values._from_env = {o.name: o.envvar for o in missing if o.dest in from_env and o.envvar}
    for option in missing:
        if option.dest in from_env:
            setattr(values, option.dest, from_env[option.dest])
        elif option.required:
            raise UsageError(f"the option {option.name} is required", _prog(values, parser))
        else:
            setattr(values, option.dest, False if option.kind == FLAG else option.default)
    return Parsed(command, values)


def _prog(values: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    prog: str = getattr(values, "_prog", parser.prog)
    return prog


def print_help(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """The help of the (sub)command named by `argv` on stderr, for a group called bare."""
    target = parser
    for word in argv:
        found = None
        if isinstance(target, _Parser):
            target.configured()
        for action in target._actions:
            if isinstance(action, argparse._SubParsersAction):
                found = action.choices.get(word)
        if found is None:
            break
        target = found
    page = getattr(target, "page", None)
    sys.stderr.write(page() if page is not None else target.format_help())
