"""The node verdict contract in a report's JSON (issue 21, docs/report-schema.md): who ran the
doctor where and when, and the verdict every output format carries.

The fields every envcheck.report/1 document begins with; the rest of a full report follows
them. A run that reached no diagnosis before its --deadline writes these fields alone.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from envcheck.diagnose.verdict import NodeResult
from envcheck.errors import assert_never
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


_FORMAT_MODULES = {
    NodeFormat.PROMETHEUS: "envcheck.report.prometheus",
    NodeFormat.NFD: "envcheck.report.nfd",
    NodeFormat.JUNIT: "envcheck.report.junit",
}


def load_renderer(output: Format | NodeFormat) -> None:
    """Import what render_node needs for `output` now. Its cluster formats' modules load only
    for their format (JUnit's pulls in xml.etree, which the doctor's text and JSON reports
    never need); the --deadline watchdog calls this before it may fire, never leaving an
    import for a moment when the main thread may hold the import lock."""
    name = _FORMAT_MODULES.get(output) if isinstance(output, NodeFormat) else None
    if name is not None:
        importlib.import_module(name)


def render_node(result: NodeResult, stamp: Stamp, output: Format | NodeFormat) -> str:
    """The formats that need only the node's result (and what a run without a diagnosis, cut
    short by its --deadline, writes in every format)."""
    # The cluster formats' modules are imported only for their format (see load_renderer).
    if output is NodeFormat.PROMETHEUS:
        from envcheck.report import prometheus  # noqa: PLC0415

        return prometheus.render(result, stamp)
    if output is NodeFormat.NFD:
        from envcheck.report import nfd  # noqa: PLC0415

        return nfd.render(result)
    if output is NodeFormat.JUNIT:
        from envcheck.report import junit  # noqa: PLC0415

        return junit.render(result, stamp)
    if output is Format.JSON:
        return json.dumps(contract_fields(result, stamp), indent=2) + "\n"
    if output is Format.TEXT or output is Format.MARKDOWN:
        return shown_lines(result.summary) + "\n"
    return assert_never(output)
