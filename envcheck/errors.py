"""The exception base of envcheck and the errors that mean "the user's input is wrong".

Only the CLI turns these into exit codes; library code raises them with a message that quotes
the input and ends with what the user can do.
"""

from __future__ import annotations


class EnvcheckError(Exception):
    """Base of every error envcheck raises on purpose."""


class InputError(EnvcheckError):
    """A value given on the command line or in the environment cannot be used (exit 2)."""
