"""Render a doctor Report as text, JSON or Markdown. Pure: no I/O, no terminal queries.

Text: the verdict first, the component table, the findings (errors first) with their fixes, then
the recommendation. Colour only when the caller says the output is a terminal, painted after the
values are made safe (terminal_text.shown): the only escape sequences in the text are its own.
Markdown is for bug reports: user names and home directories are redacted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from envcheck.diagnose.doctor import Report
from envcheck.diagnose.verdict import NodeResult
from envcheck.findings import Finding, Severity
from envcheck.framework_names import label as framework_label
from envcheck.report import recommendation as recommendation_report
from envcheck.report.formats import Format, NodeFormat
from envcheck.report.node import SCHEMA, contract_fields, render_node
from envcheck.report.stamp import Stamp
from envcheck.report.terminal_text import shown, shown_lines

__all__ = ["SCHEMA", "render", "to_json", "to_markdown", "to_text"]


_COLOURS = {"error": "\x1b[31m", "warning": "\x1b[33m", "ok": "\x1b[32m", "unknown": "\x1b[36m"}
_RESET = "\x1b[0m"


def to_json(report: Report, result: NodeResult, stamp: Stamp) -> dict[str, Any]:
    """The whole report: the contract fields (report/node.py) first, then the diagnosis."""
    return {
        **contract_fields(result, stamp),
        "status": report.status,
        "components": [
            {"name": c.name, "found": c.found, "required": c.required, "status": c.status}
            for c in report.components
        ],
        "facts": report.facts.to_json(),
        "smoke_test": report.smoke,  # TensorFlow's, as before smoke_tests existed
        "smoke_tests": report.smoke_tests,
        "import_orders": report.import_orders,
        "recommendation": (
            recommendation_report.to_json(report.recommendation) if report.recommendation else None
        ),
        "recommendation_installed": report.installed_choice,
        "framework_recommendations": {
            r.framework: recommendation_report.framework_to_json(r)
            for r in report.framework_recommendations
        },
    }


def _paint(text: str, status: str, colour: bool) -> str:
    return f"{_COLOURS[status]}{text}{_RESET}" if colour and status in _COLOURS else text


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]


def to_text(report: Report, colour: bool = False) -> str:
    lines = [_paint(shown_lines(report.verdict()), report.status, colour), ""]
    if report.not_checked:
        lines[1:1] = [f"Not checked (the --deadline passed first): {', '.join(report.not_checked)}"]
    rows = [["component", "found", "required", "status"]]
    rows += [
        [shown(c.name), shown(c.found), shown(c.required), c.status] for c in report.components
    ]
    table = _table(rows)
    lines.append(table[0])
    for row, component in zip(table[1:], report.components):
        lines.append(_paint(row, component.status, colour))
    # TensorFlow's alone says "smoke test", as before PyTorch and JAX had one; beside them,
    # each line names its framework.
    smokes = report.smoke_tests or ({"tensorflow": report.smoke} if report.smoke else {})
    for name, smoke in smokes.items():
        title = (
            f"{framework_label(name)} smoke test"
            if len(smokes) > 1 or name != "tensorflow"
            else "smoke test"
        )
        lines.append(f"  {title}: {shown(smoke.get('describe', smoke.get('status')))}")
    lines.append("")
    listed = [f for f in report.findings if f.code != "benign-warning" and not _usage_note(f)]
    benign = [f for f in report.findings if f.code == "benign-warning"]
    notes = [f for f in report.findings if _usage_note(f)]
    if listed:
        lines.append("Findings:")
    for finding in listed:
        label = _paint(finding.severity.value.upper(), finding.severity.value, colour)
        lines.append(f"  {label} [{finding.code}] {shown_lines(finding.message)}")
        lines.extend(f"      evidence: {shown(item)}" for item in finding.evidence if item)
        if finding.fix:
            lines.append(f"      fix: {shown_lines(finding.fix)}")
    if benign:
        lines.append(
            f"  ({len(benign)} harmless message(s) in the smoke test's log; the same doctor "
            "command with --json lists them)"
        )
    if notes:
        lines.append(
            f"  ({len(notes)} known bug(s) that matter only for some uses of this release; the "
            "same doctor command with --json lists them)"
        )
    if report.installed_choice is not None and report.recommendation is not None:
        lines.append("")
        lines.append(f"Recommendation for this machine: {_installed_line(report)}")
    elif report.recommendation is not None:
        lines.append("")
        lines.append("Recommendation for this machine:")
        text = recommendation_report.to_text(report.recommendation, show_rejected=False)
        lines.extend(f"  {line}" if line else "" for line in text.rstrip("\n").splitlines())
    for other in report.framework_recommendations:
        if lines[-1]:
            lines.append("")
        lines.append(f"Recommendation for this machine ({other.display_name}):")
        text = recommendation_report.framework_to_text(other, show_rejected=False)
        lines.extend(f"  {line}" if line else "" for line in text.rstrip("\n").splitlines())
    return "\n".join(lines).rstrip() + "\n"


def _usage_note(finding: Finding) -> bool:
    """A known bug at INFO: it bites only some programs (XLA's memory growth with many compiled
    models), so the text says it exists instead of repeating it on every healthy run."""
    return (
        finding.code == "known-bug"
        and finding.severity is Severity.INFO
        and finding.data.get("usage_dependent") is True
    )


def _installed_line(report: Report) -> str:
    assert report.recommendation is not None
    first = report.recommendation.candidates[0]
    where = "the CPU" if first.kind == "cpu" else "the GPU"
    return (
        f"TensorFlow {first.tensorflow} for {where} is the first choice here, and "
        f"{report.installed_choice} is installed: nothing to install."
    )


def redact(text: str, home: str | None, user: str | None) -> str:
    """Replace the home directory with ~ and the user name with <user>."""
    if home:
        text = text.replace(home.rstrip("/\\"), "~")
    if user and len(user) > 1:
        text = re.sub(rf"(?<![\w]){re.escape(user)}(?![\w])", "<user>", text)
    return text


def _markdown_driver(report: Report) -> str:
    driver = report.facts.driver
    if report.no_nvidia_gpu:
        return "no NVIDIA GPU, so no driver needed"
    if driver.version is None:
        return f"driver: none found ({driver.state})"
    return f"driver {driver.version}" + (f" (supports CUDA {driver.cuda})" if driver.cuda else "")


def to_markdown(report: Report, home: str | None = None, user: str | None = None) -> str:
    lines = [f"### envcheck doctor: {report.status}", "", report.verdict(), ""]
    lines += ["| component | found | required | status |", "|---|---|---|---|"]
    lines += [f"| {c.name} | {c.found} | {c.required} | {c.status} |" for c in report.components]
    lines.append("")
    if report.smoke is not None:
        smoke = report.smoke.get("describe", report.smoke.get("status"))
        lines += [f"Smoke test: {smoke}", ""]
    for finding in report.findings:
        if finding.code == "benign-warning":
            continue
        lines.append(f"- **{finding.severity.value}** `{finding.code}`: {finding.message}")
        lines.extend(f"  - evidence: `{item}`" for item in finding.evidence if item)
        if finding.fix:
            lines.append(f"  - fix: {finding.fix}")
    platform = report.facts.platform
    lines += [
        "",
        "<details><summary>machine</summary>",
        "",
        "```",
        f"{platform.os} {platform.arch}, Python {platform.python} ({platform.python_bits}-bit)",
        _markdown_driver(report),
        *(f"GPU {g.index}: {g.name} CC {g.compute_capability}" for g in report.facts.gpus),
        *(f"{f.distribution} {f.version}" for f in report.facts.frameworks),
        "```",
        "",
        "</details>",
    ]
    if report.installed_choice is not None:
        lines += ["", f"Recommendation for this machine: {_installed_line(report)}"]
    elif report.recommendation is not None:
        # The same text as the terminal report, as a block: its layout is columns and commands.
        text = recommendation_report.to_text(report.recommendation, show_rejected=False)
        lines += [
            "",
            "<details><summary>recommendation for this machine</summary>",
            "",
            "```",
            *text.rstrip("\n").splitlines(),
            "```",
            "",
            "</details>",
        ]
    return shown_lines(redact("\n".join(lines), home, user)) + "\n"


def render(report: Report, result: NodeResult, stamp: Stamp, output: Format | NodeFormat,
           colour: bool = False, home: str | None = None,
           user: str | None = None) -> str:  # fmt: skip
    if output is Format.TEXT:
        return to_text(report, colour)
    if output is Format.JSON:
        return json.dumps(to_json(report, result, stamp), indent=2) + "\n"
    if output is Format.MARKDOWN:
        return to_markdown(report, home, user)
    return render_node(result, stamp, output)
