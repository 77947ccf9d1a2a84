"""How every command turns envcheck's own errors into one stderr line and an exit code.

Only command modules use this; library code raises EnvcheckError subclasses and never exits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from envcheck.errors import EnvcheckError

EXIT_OK = 0
EXIT_NEGATIVE = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"envcheck: error: {message}", err=True)
    return typer.Exit(code)


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
                raise fail(str(exc), EXIT_NEGATIVE) from None
            except EnvcheckError as exc:
                raise fail(str(exc), EXIT_USAGE) from None

        return wrapper  # type: ignore[return-value]

    return decorate
