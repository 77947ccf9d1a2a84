"""How every command turns envcheck's own errors into one stderr line and an exit code.

Only command modules use this; library code raises EnvcheckError subclasses and never exits.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from envcheck.errors import EnvcheckError

EXIT_OK = 0
EXIT_NEGATIVE = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

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


def handles_errors(
    negative: tuple[type[Exception], ...] = (),
) -> Callable[[F], F]:
    """A decorator: `negative` errors (a refused install, say) exit 1, every other envcheck
    error exits 2 (unusable input); either way one line on stderr and no traceback."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except negative as exc:
                raise fail(_name_variables(str(exc), args), EXIT_NEGATIVE) from None
            except EnvcheckError as exc:
                raise fail(_name_variables(str(exc), args), EXIT_USAGE) from None

        return wrapper  # type: ignore[return-value]

    return decorate
