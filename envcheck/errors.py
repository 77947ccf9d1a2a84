"""The exception base of envcheck, the errors that mean "the user's input is wrong", and the exit
codes (docs/exit-codes.md: this module is that table).

Every error class carries the exit code it ends a command with; `envcheck.cli` reads it once.
Library code raises them with a message that quotes the input and ends with what the user can do.
"""

from __future__ import annotations

from typing import ClassVar, NoReturn

EXIT_OK = 0  # success; a positive answer
EXIT_NEGATIVE = 1  # a negative answer, or an action that failed (install, fetch)
EXIT_USAGE = 2  # a usage error or unusable input
EXIT_INTERNAL = 3  # a bug in envcheck
# `doctor`: no verdict (`unknown`): the --deadline passed before the checks were done. Its own
# code, as health checkers expect (NVIDIA's health validation has one for it): not a failing
# node (1), not a mistyped command (2).
EXIT_NO_VERDICT = 4
# Ended by a signal: 128 + the signal's number, as shells report it.
EXIT_HANGUP = 129  # SIGHUP: the terminal or the session went away
EXIT_INTERRUPTED = 130  # SIGINT: Ctrl-C
EXIT_TERMINATED = 143  # SIGTERM: `timeout`, a CI cancel, `docker stop`, kill


class EnvcheckError(Exception):
    """Base of every error envcheck raises on purpose: unusable input unless a subclass says
    otherwise (exit 2)."""

    exit_code: ClassVar[int] = EXIT_USAGE


class InputError(EnvcheckError):
    """A value given on the command line or in the environment cannot be used (exit 2)."""


class Interrupted(KeyboardInterrupt):
    """A signal that ends envcheck (SIGINT, SIGTERM, SIGHUP), raised in the main thread.

    A KeyboardInterrupt, so the code that already cleans up after Ctrl-C (a partial download
    deleted, an installer given time to roll back) does the same for `timeout` and
    `docker stop`."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def quoted(value: str, limit: int = 40) -> str:
    """How a message quotes a value it refuses: repr, cut after `limit` characters with how
    long it was (a 5,000-digit version or a 1 MB tag would fill the terminal)."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value)} characters)"


def assert_never(value: NoReturn) -> NoReturn:
    """The end of a dispatch over a closed set (an Enum, a Literal): mypy proves every member is
    handled before it (typing.assert_never, which Python 3.9 and 3.10 lack)."""
    raise AssertionError(f"unhandled value {value!r}")  # pragma: no cover
