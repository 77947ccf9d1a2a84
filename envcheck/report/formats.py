"""The report formats every reporting command offers, and how --format / --json choose one."""

from __future__ import annotations

from enum import Enum

from envcheck.errors import EnvcheckError


class Format(str, Enum):
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


class NodeFormat(str, Enum):
    """The doctor's formats for the systems a cluster already runs (issue 21)."""

    PROMETHEUS = "prometheus"  # node_exporter's textfile collector
    NFD = "nfd"  # node-feature-discovery's features.d
    JUNIT = "junit"  # CI test reports


def choose_doctor_format(output_format: str | None, as_json: bool) -> Format | NodeFormat:
    """choose_format, and the doctor's own formats besides."""
    text = (output_format or "").lower()
    try:
        return NodeFormat(text)
    except ValueError:
        pass
    try:
        return choose_format(output_format, as_json)
    except EnvcheckError:
        names = ", ".join([*(f.value for f in Format), *(f.value for f in NodeFormat)])
        raise EnvcheckError(f"--format {output_format!r} is not one of {names}") from None


def choose_format(output_format: str | None, as_json: bool) -> Format:
    """--format, else --json, else text; an unknown name is an input error."""
    text = (output_format or ("json" if as_json else "text")).lower()
    try:
        return Format(text)
    except ValueError:
        names = ", ".join(f.value for f in Format)
        raise EnvcheckError(f"--format {output_format!r} is not one of {names}") from None


class FleetFormat(str, Enum):
    """`envcheck fleet`'s formats: a table people read, and three that tools read."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"
    CSV = "csv"


def choose_fleet_format(output_format: str | None) -> FleetFormat:
    text = (output_format or "text").lower()
    try:
        return FleetFormat(text)
    except ValueError:
        names = ", ".join(f.value for f in FleetFormat)
        raise EnvcheckError(f"--format {output_format!r} is not one of {names}") from None
