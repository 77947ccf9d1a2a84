"""The node verdict contract in a report's JSON (issue 21, docs/report-schema.md): who ran the
doctor where and when, and the verdict every output format carries.

The fields every envcheck.report/1 document begins with; the rest of a full report follows
them. A run that reached no diagnosis before its --deadline writes these fields alone.
"""

from __future__ import annotations

import json
from typing import Any

from envcheck.diagnose.verdict import NodeResult
from envcheck.errors import assert_never
from envcheck.report import junit, nfd, prometheus
from envcheck.report.formats import Format, NodeFormat
from envcheck.report.stamp import Stamp
from envcheck.report.terminal_text import shown_lines

SCHEMA = "envcheck.report/1"


def contract_fields(result: NodeResult, stamp: Stamp) -> dict[str, Any]:
    """The contract fields, in the order `envcheck fleet` reads them (it stops reading a
    report once it has them: see fleet/reader.py)."""
    return {
        "schema": SCHEMA,
        "node": stamp.node,
        "time": stamp.time,
        "envcheck_version": stamp.envcheck_version,
        "verdict": result.verdict,
        "fingerprint": result.fingerprint,
        "not_checked": list(result.not_checked),
        "summary": result.summary,
        "key_facts": result.key_facts,
        "findings": [f.to_json() for f in result.findings],
    }


def render_node(result: NodeResult, stamp: Stamp, output: Format | NodeFormat) -> str:
    """The formats that need only the node's result (and what a run without a diagnosis, cut
    short by its --deadline, writes in every format)."""
    if output is NodeFormat.PROMETHEUS:
        return prometheus.render(result, stamp)
    if output is NodeFormat.NFD:
        return nfd.render(result)
    if output is NodeFormat.JUNIT:
        return junit.render(result, stamp)
    if output is Format.JSON:
        return json.dumps(contract_fields(result, stamp), indent=2) + "\n"
    if output is Format.TEXT or output is Format.MARKDOWN:
        return shown_lines(result.summary) + "\n"
    return assert_never(output)
