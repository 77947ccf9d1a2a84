"""One node's report, as `envcheck fleet` needs it: the contract fields (report/node.py)
checked, or the reason the report is set apart.

Speed (10,000 reports in seconds) comes from reading only the head of each report: the
doctor writes the contract fields first, so the top-level values are decoded one at a time
until those are in, and the facts and recommendations after them (most of a report's bytes)
are never parsed. A report whose fields come in another order (rewritten by jq, say) is read
to its end the same way. The text must still end as a JSON object ends; a report cut short
is malformed. The fingerprint is recomputed from the key facts: a report edited by hand, or
damaged, does not join a group it does not belong to.
"""

from __future__ import annotations

import json
import re
from typing import Any

from envcheck.diagnose.verdict import VERDICTS, Verdict, fingerprint
from envcheck.fleet.ages import report_time
from envcheck.fleet.sources import Document
from envcheck.record import record

SCHEMA = "envcheck.report/1"
_FAMILY = "envcheck.report/"
NEEDED = ("schema", "node", "time", "verdict", "fingerprint", "not_checked", "summary",
          "key_facts", "findings")  # fmt: skip
_NODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,252}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_SPACE = re.compile(r"[ \t\r\n]*")
_MAX_DEPTH = 8  # key facts nest 3 deep (frameworks, [0], name); rendering recurses through them
_DECODER = json.JSONDecoder()


@record
class NodeReport:
    source: str
    node: str
    time: float  # Unix time
    verdict: Verdict
    fingerprint: str
    key_facts: dict[str, Any]
    summary: str
    headline: str  # the first error (else warning) finding: "code: message"; "" for none
    fix: str  # that finding's fix; for no verdict, what to do about it


@record
class Apart:
    """A report not merged, and why: malformed, another schema, a duplicate, too old."""

    source: str
    reason: str
    kind: str  # malformed | schema | duplicate | stale | unreadable
    node: str | None = None


def read(document: Document) -> NodeReport | Apart:
    if document.problem is not None:
        return Apart(document.source, document.problem, document.kind)
    try:
        fields = document.value if document.text is None else head(document.text)
    except (ValueError, RecursionError) as exc:
        return Apart(document.source, f"is not a JSON report ({_short(exc)})", "malformed")
    if not isinstance(fields, dict):
        return Apart(document.source, "is not a JSON object", "malformed")
    return _checked(document.source, fields)


def head(text: str) -> dict[str, Any]:
    """The NEEDED top-level fields of the JSON object `text`, decoded one value at a time
    and no further than the last of them; ValueError where the text is no such object."""
    position = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("{", position):
        raise ValueError("it does not begin with '{'")
    if not text.rstrip().endswith("}"):
        raise ValueError("it does not end with '}': cut short")
    position += 1
    found: dict[str, Any] = {}
    while True:
        position = _SPACE.match(text, position).end()  # type: ignore[union-attr]
        if text.startswith("}", position):
            return found
        if not text.startswith('"', position):
            raise ValueError(f"a key was expected at character {position}")
        key, position = _DECODER.raw_decode(text, position)  # a JSON string
        if not isinstance(key, str):
            raise ValueError(f"a key was expected at character {position}")
        position = _SPACE.match(text, position).end()  # type: ignore[union-attr]
        if not text.startswith(":", position):
            raise ValueError(f"':' was expected at character {position}")
        position = _SPACE.match(text, position + 1).end()  # type: ignore[union-attr]
        value, position = _DECODER.raw_decode(text, position)
        if key in NEEDED:
            found[key] = value
            if len(found) == len(NEEDED):
                return found
        position = _SPACE.match(text, position).end()  # type: ignore[union-attr]
        if text.startswith(",", position):
            position += 1
        elif not text.startswith("}", position):
            raise ValueError(f"',' or '}}' was expected at character {position}")


def _short(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    text = str(exc)
    return text if len(text) <= 120 else text[:117] + "..."


def _checked(source: str, fields: dict[str, Any]) -> NodeReport | Apart:
    schema = fields.get("schema")
    if schema != SCHEMA:
        if isinstance(schema, str) and schema.startswith(_FAMILY):
            return Apart(source, f"has schema {schema[:40]!r}, not {SCHEMA}", "schema")
        return Apart(source, f"is not an {SCHEMA} report", "malformed")
    node = fields.get("node")
    if not isinstance(node, str) or not _NODE.fullmatch(node):
        return Apart(source, "has no usable node name", "malformed")
    problem = _problem(fields)
    if problem:
        return Apart(source, problem, "malformed", node)
    when = report_time(fields["time"])
    if when is None:
        return Apart(
            source, f"has no usable time ({str(fields['time'])[:40]!r})", "malformed", node
        )
    headline, fix = _headline(fields["findings"], fields["not_checked"])
    return NodeReport(
        source, node, when, fields["verdict"], fields["fingerprint"], fields["key_facts"],
        fields["summary"], headline, fix,
    )  # fmt: skip


def _problem(fields: dict[str, Any]) -> str:
    """What makes the contract fields unusable; "" when nothing does."""
    missing = [name for name in NEEDED if name not in fields]
    if missing:
        return f"lacks {', '.join(missing)}"
    if not isinstance(fields["time"], str):
        return "has no usable time"
    if fields["verdict"] not in VERDICTS:
        return f"has no verdict of {', '.join(VERDICTS)}"
    facts = fields["key_facts"]
    if not isinstance(facts, dict) or _deeper_than(facts, _MAX_DEPTH):
        return "has unusable key facts"
    mark = fields["fingerprint"]
    if not isinstance(mark, str) or not _HEX64.fullmatch(mark) or mark != fingerprint(facts):
        return "has a fingerprint that is not its key facts' (edited or damaged)"
    findings = fields["findings"]
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        return "has unusable findings"
    unchecked = fields["not_checked"]
    if not isinstance(unchecked, list) or not all(isinstance(c, str) for c in unchecked):
        return "has an unusable not_checked"
    if not isinstance(fields["summary"], str):
        return "has no summary"
    return ""


def _deeper_than(value: dict[str, Any], limit: int) -> bool:
    """Whether containers nest in `value` deeper than `limit` (iterative; scalars are not
    visited twice, which keeps it cheap for 10,000 reports)."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, (dict, list)):
                if depth >= limit:
                    return True
                pending.append((child, depth + 1))
    return False


def _headline(findings: list[dict[str, Any]], unchecked: list[str]) -> tuple[str, str]:
    """The first error finding (else the first warning) as "code: message", and its fix."""
    for severity in ("error", "warning"):
        for finding in findings:
            if finding.get("severity") == severity:
                code, message = _text(finding.get("code")), _text(finding.get("message"))
                return f"{code}: {message}", _text(finding.get("fix"))
    if unchecked:
        names = ", ".join(_text(name) for name in unchecked)
        return (
            f"not checked: {names}",
            "Give the doctor a longer --deadline, or find what hangs on the node "
            "(envcheck doctor --json there names the checks not done).",
        )
    return "", ""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
