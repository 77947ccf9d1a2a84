"""Which node ran the doctor, when, and which envcheck: the facts of a run that are not the
node's own (the report's `node`, `time` and `envcheck_version`)."""

from __future__ import annotations

from envcheck.record import record


@record
class Stamp:
    """Which node, when, and which envcheck: the facts of a run that are not the node's."""

    node: str  # the host name, or --node
    time: str  # UTC, ISO 8601 with a Z: 2026-12-02T10:15:30Z
    envcheck_version: str
    unix_time: float  # the same moment, for Prometheus
