"""The report formats every reporting command offers, and how --format / --json choose one."""

from __future__ import annotations

from enum import Enum

from envcheck.errors import EnvcheckError


class Format(str, Enum):
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


def choose_format(output_format: str | None, as_json: bool) -> Format:
    """--format, else --json, else text; an unknown name is an input error."""
    text = (output_format or ("json" if as_json else "text")).lower()
    try:
        return Format(text)
    except ValueError:
        names = ", ".join(f.value for f in Format)
        raise EnvcheckError(f"--format {output_format!r} is not one of {names}") from None
