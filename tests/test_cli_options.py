"""The argparse layer under every command (envcheck.cli.options) and the command table.

Parsing is tested on small command tables built here and on envcheck's own (envcheck.cli.table),
in-process; the end-to-end behaviour of each command is tested in its own test file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from envcheck import __version__
from envcheck.cli.help import help_page
from envcheck.cli.options import (
    FLAG,
    INTEGER,
    LIST,
    NUMBER,
    Command,
    Option,
    UsageError,
    build_parser,
    parse,
    print_help,
)
from envcheck.cli.table import MAX_TIMEOUT_S, ROOT

TOOL = Command(
    "tool",
    "A test tool.",
    subcommands=(
        Command(
            "run",
            "Run it.",
            handler="x:y",
            options=(
                Option(
                    ("--timeout",),
                    "timeout",
                    "Limit.",
                    kind=NUMBER,
                    envvar="T_TIMEOUT",
                    default=10.0,
                    minimum=0.5,
                ),
                Option(("--strict",), "strict", "Strict.", kind=FLAG, envvar="T_STRICT"),
                Option(("--name",), "name", "A name.", envvar="T_NAME", metavar="NAME"),
                Option(("--count",), "count", "A count.", kind=INTEGER, default=0),
                Option(("--tag",), "tag", "Tags.", kind=LIST, envvar="T_TAG", metavar="TAG"),
                Option(("-o", "--out"), "out", "Output 100% atomically.", metavar="FILE"),
                Option((), "source", "Input.", metavar="FILE|-", default="-"),
            ),
        ),
        Command(
            "group",
            "A group.",
            options=(Option(("--dir",), "dir", "A directory.", envvar="T_DIR"),),
            handler="x:group",
            subcommands=(
                Command(
                    "leaf",
                    "A leaf.",
                    handler="x:leaf",
                    options=(Option(("--dir",), "dir", "A directory.", envvar="T_DIR"),),
                ),
            ),
        ),
        Command("secret", "Hidden.", handler="x:secret", hidden=True),
    ),
)


def _parser() -> argparse.ArgumentParser:
    return build_parser(TOOL, "tool", "1.0", help_page)


def _parse(*argv: str, **environ: str) -> dict[str, object]:
    parsed = parse(_parser(), argv, environ)
    return {k: v for k, v in vars(parsed.values).items() if not k.startswith("_")} | {
        "command": parsed.command.name
    }


def _usage_error(*argv: str, **environ: str) -> UsageError:
    with pytest.raises(UsageError) as raised:
        parse(_parser(), argv, environ)
    return raised.value


def test_defaults_when_nothing_is_given() -> None:
    assert _parse("run") == {
        "timeout": 10.0,
        "strict": False,
        "name": None,
        "count": 0,
        "tag": None,
        "out": None,
        "source": "-",
        "command": "run",
    }


def test_values_from_the_command_line() -> None:
    values = _parse(
        "run", "--timeout", "2.5", "--strict", "--name=x", "--count", "3", "--tag", "a",
        "--tag", "b", "-o", "f.txt", "log.txt",
    )  # fmt: skip
    assert values["timeout"] == 2.5
    assert values["strict"] is True
    assert values["name"] == "x"
    assert values["count"] == 3
    assert values["tag"] == ["a", "b"]
    assert values["out"] == "f.txt"
    assert values["source"] == "log.txt"


def test_environment_variables_fill_options_not_given() -> None:
    values = _parse("run", T_TIMEOUT="3", T_STRICT="yes", T_NAME="n", T_TAG="a  b")
    assert (values["timeout"], values["strict"], values["name"]) == (3.0, True, "n")
    assert values["tag"] == ["a", "b"]


def test_the_command_line_wins_even_when_it_repeats_the_default() -> None:
    # --timeout 10 equals the default; the variable must not override what was typed.
    assert _parse("run", "--timeout", "10", T_TIMEOUT="3")["timeout"] == 10.0
    assert _parse("run", "--name", "cli", T_NAME="env")["name"] == "cli"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", True), ("true", True), ("On", True), ("y", True), ("0", False), ("no", False),
     ("OFF", False), ("", False)],
)  # fmt: skip
def test_flag_variables_take_yes_and_no_spellings(text: str, expected: bool) -> None:
    # An empty variable counts as unset, as it did with click.
    assert _parse("run", T_STRICT=text)["strict"] is expected


def test_a_bad_variable_names_the_variable_and_the_option() -> None:
    error = _usage_error("run", T_STRICT="maybe")
    assert str(error) == "T_STRICT (for --strict): 'maybe' is not a yes/no value (use 1 or 0)"
    assert error.command == "tool run"
    assert "is not a number" in str(_usage_error("run", T_TIMEOUT="soon"))


def test_a_bad_variable_of_an_option_not_in_play_is_ignored() -> None:
    # T_TIMEOUT belongs to `run`; `group` must not fail because of it.
    assert _parse("group", T_TIMEOUT="soon")["command"] == "group"


def test_minimum_applies_to_both_sources() -> None:
    assert "below the minimum of 0.5" in str(_usage_error("run", "--timeout", "0.1"))
    assert "below the minimum of 0.5" in str(_usage_error("run", T_TIMEOUT="0"))
    assert "is not a whole number" in str(_usage_error("run", "--count", "1.5"))


def test_unknown_words_get_one_line_with_a_close_match() -> None:
    assert str(_usage_error("run", "--strikt")) == "no option '--strikt'; did you mean --strict?"
    assert str(_usage_error("run", "a", "b")) == "no argument 'b'"
    assert str(_usage_error("rnu")) == "no command 'rnu'; did you mean run?"
    # Hidden commands are never offered.
    assert str(_usage_error("zzz")) == "no command 'zzz' (commands: run, group)"


def test_options_are_not_abbreviated() -> None:
    # A script's `--str` would break the day a second option starting with it is added.
    assert str(_usage_error("run", "--str")) == "no option '--str'; did you mean --strict?"


def test_a_group_option_survives_its_subcommand() -> None:
    # argparse copies a subcommand's defaults over its parent's values; SUPPRESS defaults
    # keep `tool group --dir D leaf` meaning D.
    assert _parse("group", "--dir", "D", "leaf") == {"dir": "D", "command": "leaf"}
    assert _parse("group", "leaf", "--dir", "E") == {"dir": "E", "command": "leaf"}
    assert _parse("group", "leaf", T_DIR="V") == {"dir": "V", "command": "leaf"}


def test_hidden_commands_parse_but_are_not_listed() -> None:
    assert _parse("secret")["command"] == "secret"
    text = help_page(TOOL, "tool", root=True, width=100)
    assert "group" in text
    assert "secret" not in text
    assert "--version" in text


def test_help_names_variables_defaults_and_bounds() -> None:
    text = help_page(TOOL.subcommands[0], "tool run", width=100)
    assert text.startswith("Usage: tool run [OPTIONS] [FILE|-]\n\nRun it.\n")
    assert "  -o, --out FILE" in text
    assert "Output 100% atomically." in text
    flat = " ".join(text.split())
    assert "--timeout TIMEOUT Limit. [env: T_TIMEOUT; default: 10; at least 0.5]" in flat
    assert "--tag TAG Tags. [env: T_TAG]" in flat
    assert "Arguments: FILE|- Input. [default: -]" in flat


def test_help_is_the_same_page_whatever_the_python(capsys: pytest.CaptureFixture[str]) -> None:
    # `tool run --help` prints help_page's text, not argparse's (which differs by version).
    with pytest.raises(SystemExit) as exited:
        _parse("run", "--help")
    assert exited.value.code == 0
    assert capsys.readouterr().out == help_page(TOOL.subcommands[0], "tool run")


def test_help_wraps_to_the_width() -> None:
    for width in (60, 80, 100):
        lines = help_page(TOOL.subcommands[0], "tool run", width=width).splitlines()
        assert max(len(line) for line in lines) <= width


def test_numbers_must_be_finite_and_within_bounds() -> None:
    assert "'nan' is not a finite number" in str(_usage_error("run", "--timeout", "nan"))
    assert "'inf' is not a finite number" in str(_usage_error("run", T_TIMEOUT="inf"))


def test_required_option() -> None:
    required = Command(
        "t", "T.", handler="x:y", options=(Option(("--must",), "must", "M.", required=True),)
    )
    with pytest.raises(UsageError, match="the option --must is required"):
        parse(build_parser(required, "t", "1", help_page), [], {})


# --- envcheck's own table -----------------------------------------------------------------------


def _commands(command: Command) -> list[Command]:
    return [command, *(c for sub in command.subcommands for c in _commands(sub))]


def test_every_envcheck_command_has_an_importable_handler() -> None:
    import importlib  # noqa: PLC0415 - only this test imports every command module

    for command in _commands(ROOT):
        if command.handler is None:
            assert command.subcommands, command.name
            continue
        module, _, function = command.handler.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), command.handler


def test_envcheck_options_are_unique_per_command() -> None:
    for command in _commands(ROOT):
        flags = [f for o in command.options for f in o.flags]
        dests = [o.dest for o in command.options]
        assert len(flags) == len(set(flags)), command.name
        assert len(dests) == len(set(dests)), command.name
        for option in command.options:
            assert option.envvar is None or option.envvar.startswith("ENVCHECK_"), option


def _envcheck(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envcheck", *args],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", **env},
        check=False,
    )


def test_usage_errors_are_one_line_and_exit_2() -> None:
    for args in (["doctr"], ["doctor", "--jsn"], ["doctor", "--timeout", "x"], ["matrix", "vx"]):
        result = _envcheck(*args)
        assert result.returncode == 2, args
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith("envcheck: error: ")
    assert "did you mean doctor?" in _envcheck("doctr").stderr


def test_a_bad_value_from_a_variable_is_blamed_on_the_variable() -> None:
    # The value check lives in the command (DriverVersion.parse), not in the parser.
    from_variable = _envcheck("recommend", ENVCHECK_DRIVER_VERSION="banana")
    assert from_variable.returncode == 2
    assert from_variable.stderr.startswith(
        "envcheck: error: ENVCHECK_DRIVER_VERSION (for --driver) 'banana' is not a version"
    )
    typed = _envcheck("recommend", "--driver", "banana", ENVCHECK_DRIVER_VERSION="535.104.05")
    assert typed.stderr.startswith("envcheck: error: --driver 'banana' is not a version")


def test_envcheck_timeouts_are_bounded() -> None:
    # Above a day the platform's timers overflow (an internal error before this bound).
    for command in ("probe", "doctor", "fetch"):
        option = next(o for c in ROOT.subcommands if c.name == command for o in c.options
                      if o.dest == "timeout")  # fmt: skip
        assert option.maximum == MAX_TIMEOUT_S
    result = _envcheck("probe", "--timeout", "1e10")
    assert result.returncode == 2
    assert "above the maximum of 86400" in result.stderr


@pytest.mark.parametrize(
    "args", [("matrix", "--json"), ("matrix", "validate"), ("--help",), ("doctor", "--help")]
)
def test_a_reader_that_leaves_gets_no_traceback(args: tuple[str, ...]) -> None:
    # `envcheck ... | head -0`: the reader is gone before envcheck writes. With stdout
    # block-buffered (PYTHONUNBUFFERED unset) a short output meets the broken pipe only at the
    # final flush, which main must do itself: Python's own at exit prints "Exception ignored".
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "envcheck", *args],
            stdout=write_end, stderr=subprocess.PIPE, env={"PATH": "/usr/bin:/bin"},
            timeout=60, check=False,
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert result.stderr.decode() == ""
    assert result.returncode == 1


def test_no_command_prints_the_help_on_stderr_and_exits_2() -> None:
    result = _envcheck()
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Usage: envcheck [OPTIONS] COMMAND" in result.stderr
    group = _envcheck("setup")
    assert group.returncode == 2
    assert "wsl-state" in group.stderr


def test_help_and_version_exit_0() -> None:
    assert _envcheck("doctor", "--help").returncode == 0
    version = subprocess.run(
        [sys.executable, "-c", "from envcheck.cli.main import main; main(['--version'])"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert version.returncode == 0
    assert version.stdout.strip() == f"envcheck {__version__}"


def test_doctor_does_not_import_other_commands(tmp_path: Path) -> None:
    # The point of the command table: `envcheck doctor` loads neither the installer, the
    # download stack nor a CLI framework.
    script = (
        "import sys\n"
        "from envcheck.cli.main import main\n"
        "try:\n"
        "    main(['doctor', '--no-smoke', '--facts', sys.argv[1]])\n"
        "except SystemExit:\n"
        "    pass\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('typer', 'click', 'requests',"
        " 'pydantic', 'rich') or m.startswith(('envcheck.acquire', 'envcheck.index',"
        " 'envcheck.cli.commands.fetch', 'envcheck.cli.commands.install'))]\n"
        "print('BAD', sorted(bad), file=sys.stderr)\n"
    )
    facts = subprocess.run(
        [sys.executable, "-m", "envcheck", "probe", "--json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    (tmp_path / "facts.json").write_text(facts)
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "facts.json")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "BAD []" in result.stderr, result.stderr


def test_each_timeout_variable_belongs_to_one_command() -> None:
    # probe's step limit and doctor's smoke-test limit were both ENVCHECK_TIMEOUT.
    step = _envcheck("probe", ENVCHECK_STEP_TIMEOUT="soon")
    assert step.returncode == 2 and "ENVCHECK_STEP_TIMEOUT" in step.stderr
    smoke = _envcheck("doctor", "--no-smoke", ENVCHECK_SMOKE_TIMEOUT="soon")
    assert smoke.returncode == 2 and "ENVCHECK_SMOKE_TIMEOUT" in smoke.stderr
    variables = {
        option.envvar for command in ROOT.subcommands for option in command.options if option.envvar
    }
    assert "ENVCHECK_TIMEOUT" not in variables and "ENVCHECK_PYTHON" not in variables


def test_ctrl_c_exits_130_with_one_line() -> None:
    # The exit-code table (errors.py, docs/exit-codes.md): an interrupted command exits 130, as fetch did,
    # whatever the command. `explain -` waits on a stdin that never ends until SIGINT.
    import signal  # noqa: PLC0415
    import time  # noqa: PLC0415

    process = subprocess.Popen(
        [sys.executable, "-m", "envcheck", "explain", "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert process.stdin is not None
    process.stdin.write(b"2024-01-01 W tensorflow: starting\n")
    process.stdin.flush()
    time.sleep(1.5)  # past the interpreter's start and the import of the command
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert stderr.decode().strip() == "envcheck: interrupted"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_a_subcommand_is_built_when_it_is_used_and_parses_as_if_built_at_once() -> None:
    parser = _parser()
    children = _subparsers(parser)
    # Only -h/--help until the command is parsed: building every command's options costs
    # start-up time for each run, which parses one.
    assert [len(c._actions) for c in children.values()] == [1, 1, 1]
    parsed = parse(parser, ["group", "leaf", "--dir", "d"], {})
    assert (parsed.command.name, parsed.values.dir) == ("leaf", "d")
    assert len(children["run"]._actions) == 1  # never used
    assert len(children["group"]._actions) > 1
    # The same parser parses a second command line, and the lazily built one answers as before.
    assert parse(parser, ["run", "--count", "3"], {}).values.count == 3
    assert _usage_error("run", "--cont", "3").args[0] == "no option '--cont'; did you mean --count?"


def test_the_help_of_a_command_named_by_its_words_is_its_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # print_help walks the subcommands of parsers no command line has used yet.
    print_help(_parser(), ["group", "leaf"])
    assert capsys.readouterr().err.startswith("Usage: tool group leaf [OPTIONS]\n\nA leaf.")
