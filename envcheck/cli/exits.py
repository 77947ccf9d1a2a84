"""How every command turns envcheck's own errors into one stderr line and an exit code.

Only command modules use this; library code raises EnvcheckError subclasses and never exits.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from envcheck.cli import signals
from envcheck.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NEGATIVE,
    EXIT_NO_VERDICT,
    EXIT_OK,
    EXIT_USAGE,
    EnvcheckError,
    Interrupted,
)

__all__ = [
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_NEGATIVE",
    "EXIT_NO_VERDICT",
    "EXIT_OK",
    "EXIT_USAGE",
    "CommandExit",
    "fail",
    "handles_errors",
]

F = TypeVar("F", bound=Callable[..., Any])


class CommandExit(Exception):  # noqa: N818 - an exit, like SystemExit, not an error
    """Ends a command with `code`; whatever it had to say is already printed."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def fail(message: str, code: int) -> CommandExit:
    """Print `message` as envcheck's one error line; raise the result to exit with `code`."""
    print(f"envcheck: error: {' '.join(message.split())}", file=sys.stderr)
    return CommandExit(code)


def _name_variables(message: str, args: tuple[Any, ...]) -> str:
    """The message with an option that took its value from an ENVCHECK_* variable named as that
    variable: `ENVCHECK_DRIVER_VERSION=banana` must not be blamed on a --driver nobody typed."""
    from_env = getattr(args[0], "_from_env", None) if args else None
    for flag, variable in (from_env or {}).items():
        named = re.compile(rf"(?<![\w-]){re.escape(flag)}(?![\w-])")
        if named.search(message):
            return named.sub(f"{variable} (for {flag})", message, count=1)
    return message


def handles_errors(function: F) -> F:
    """A decorator: an envcheck error ends the command with its class's exit code (2 for
    unusable input, 1 for a refused install or a failed download), one line on stderr and no
    traceback."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except EnvcheckError as exc:
            stopped = signals.received()
            if stopped is not None:
                # The error is the signal's doing (its children killed under the command), and
                # the signal was swallowed where it was raised: end as the signal ends envcheck.
                raise Interrupted(stopped) from None
            raise fail(_name_variables(str(exc), args), exc.exit_code) from None

    return wrapper  # type: ignore[return-value]
