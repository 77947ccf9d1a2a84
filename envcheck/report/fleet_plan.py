"""Render `envcheck fleet plan`: per group of nodes, will the image run there and why not.
Pure: no I/O. Values from reports pass terminal_text.shown in text and Markdown."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from envcheck.errors import assert_never
from envcheck.fleet.plan import GroupPlan, Plan, Reason
from envcheck.report.fleet import APART_SHOWN, driver, frameworks, gpus
from envcheck.report.formats import FleetFormat
from envcheck.report.terminal_text import shown

SCHEMA = "envcheck.fleet-plan/1"


def _reason_json(reason: Reason) -> dict[str, str]:
    return {"check": reason.check, "outcome": reason.outcome, "message": reason.message,
            "fix": reason.fix}  # fmt: skip


def _group_json(group: GroupPlan) -> dict[str, Any]:
    facts = group.group.key_facts
    return {
        "verdict": group.verdict,
        "nodes": len(group.group.nodes),
        "hostlist": group.group.hostlist,
        "fingerprint": group.group.fingerprint,
        "driver": driver(facts),
        "gpus": gpus(facts),
        "reasons": [_reason_json(r) for r in group.reasons],
    }


def to_json(plan: Plan) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "image": {
            "source": plan.image.source,
            "frameworks": plan.image.describe(),
            "problems": [_reason_json(r) for r in plan.image.problems],
        },
        "reports": plan.reports,
        "groups": [_group_json(g) for g in plan.groups],
        "apart": [
            {"source": a.source, "kind": a.kind, "reason": a.reason, "node": a.node}
            for a in plan.apart
        ],
    }


def headline(plan: Plan) -> str:
    counts: dict[str, int] = {}
    for group in plan.groups:
        counts[group.verdict] = counts.get(group.verdict, 0) + len(group.group.nodes)
    nodes = sum(counts.values())
    verdicts = ", ".join(f"{count} {verdict}" for verdict, count in counts.items())
    return (
        f"Image {shown(plan.image.source)} ({shown(plan.image.describe())}) on {nodes} node(s) "
        f"in {len(plan.groups)} group(s)" + (f": {verdicts}" if verdicts else "") + "."
    )


def to_text(plan: Plan) -> str:
    lines = [headline(plan)]
    for group in plan.groups:
        facts = group.group.key_facts
        lines += ["", f"{group.verdict.upper():<8}{len(group.group.nodes):>6} node(s)  "
                      f"{shown(group.group.hostlist)}"]  # fmt: skip
        lines.append("  " + shown("; ".join([driver(facts), *gpus(facts), *frameworks(facts)])))
        for reason in group.reasons:
            lines.append(f"  {reason.outcome:<8}{reason.check}: {shown(reason.message)}")
            if reason.fix and reason.outcome != "ok":
                lines.append(f"          fix: {shown(reason.fix)}")
    if plan.apart:
        lines += ["", f"Node reports set apart ({len(plan.apart)}):"]
        lines += [f"  {shown(a.source)}: {shown(a.reason)}" for a in plan.apart[:APART_SHOWN]]
        if len(plan.apart) > APART_SHOWN:
            lines.append(f"  ... and {len(plan.apart) - APART_SHOWN} more (--format json)")
    return "\n".join(lines) + "\n"


def _not_ok(group: GroupPlan) -> list[Reason]:
    return [r for r in group.reasons if r.outcome != "ok"]


def to_markdown(plan: Plan) -> str:
    lines = [f"### envcheck fleet plan: {headline(plan)}", ""]
    lines += [
        "| verdict | nodes | hostlist | driver | GPUs | why not |",
        "|---|---|---|---|---|---|",
    ]
    for group in plan.groups:
        facts = group.group.key_facts
        why = "; ".join(f"{r.outcome} {r.check}: {r.message}" for r in _not_ok(group)) or "-"
        cells = [group.verdict, str(len(group.group.nodes)), f"`{group.group.hostlist}`",
                 driver(facts), ", ".join(gpus(facts)), why]  # fmt: skip
        lines.append("| " + " | ".join(shown(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def to_csv(plan: Plan) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["verdict", "nodes", "hostlist", "driver", "gpus", "check", "outcome",
                     "message", "fix"])  # fmt: skip
    for group in plan.groups:
        facts = group.group.key_facts
        for reason in group.reasons:
            row = [group.verdict, str(len(group.group.nodes)), group.group.hostlist,
                   driver(facts), "; ".join(gpus(facts)), reason.check, reason.outcome,
                   reason.message, reason.fix]  # fmt: skip
            writer.writerow([f"'{c}" if c.startswith(("=", "+", "-", "@")) else c for c in row])
    return out.getvalue()


def render(plan: Plan, output: FleetFormat) -> str:
    if output is FleetFormat.TEXT:
        return to_text(plan)
    if output is FleetFormat.JSON:
        return json.dumps(to_json(plan), indent=2) + "\n"
    if output is FleetFormat.MARKDOWN:
        return to_markdown(plan)
    if output is FleetFormat.CSV:
        return to_csv(plan)
    return assert_never(output)
