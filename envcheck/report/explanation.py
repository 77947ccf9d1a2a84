"""Render an Explanation (envcheck explain) as text, JSON or Markdown. Pure."""

from __future__ import annotations

import json
import re
from typing import Any

from envcheck.errors import assert_never
from envcheck.explain.explanation import Explanation
from envcheck.explain.log_facts import LogFacts
from envcheck.report.formats import Format
from envcheck.report.terminal_text import shown, shown_lines

SCHEMA = "envcheck.explain/1"


def to_json(explanation: Explanation) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "summary": explanation.summary(),
        "findings": [
            f.to_json() | {"lines": list(f.lines), "lines_total": max(f.lines_total, len(f.lines))}
            for f in explanation.findings
        ],
        "facts": explanation.facts.to_json(),
        "relevant_lines": [{"line": number, "text": text} for number, text in explanation.relevant]
        if not explanation.recognised
        else [],
        "lines_read": explanation.lines_read,
    }


def _lines(numbers: tuple[int, ...], total: int = 0) -> str:
    """The first line numbers, and how many more lines there are in all (`total`, when the
    finding counted more lines than it kept)."""
    if not numbers:
        return ""
    shown = ", ".join(str(n) for n in numbers[:6])
    hidden = max(total, len(numbers)) - min(len(numbers), 6)
    more = f" (+{hidden} more)" if hidden > 0 else ""
    return f" (line {shown}{more})" if len(numbers) == 1 else f" (lines {shown}{more})"


def _known_facts(facts: LogFacts) -> list[str]:
    """What the log showed of its environment, for the report's last line."""
    known = []
    if facts.tensorflow:
        known.append(f"TensorFlow {facts.tensorflow}")
    elif facts.tensorflow_range:
        known.append(f"TensorFlow {facts.tensorflow_range} (from its source paths)")
    if facts.torch:
        known.append(f"PyTorch {facts.torch}")
    if facts.cudnn:
        known.append(f"loaded cuDNN {facts.cudnn}")
    if facts.libraries:
        known.append("expects CUDA " + " or ".join(sorted(set(facts.libraries.values()))))
    if facts.cuda:
        known.append(f"environment's CUDA {facts.cuda}")
    if facts.driver:
        known.append(f"driver {facts.driver}")
    if facts.kernel_module and facts.kernel_module != facts.driver:
        known.append(f"kernel module {facts.kernel_module}")
    if facts.gpus:
        known.append(", ".join(f"{n or 'GPU'} (CC {c or '?'})" for n, c in facts.gpus.items()))
    if facts.platforms:
        known.append("platform: " + ", ".join(sorted(facts.platforms)))
    return known


def to_text(explanation: Explanation) -> str:
    lines = [explanation.summary(), ""]
    real = [f for f in explanation.findings if f.code != "benign-warning"]
    benign = [f for f in explanation.findings if f.code == "benign-warning"]
    for finding in real:
        where = _lines(finding.lines, finding.lines_total)
        lines.append(f"{finding.severity.value.upper()} [{finding.code}]{where}")
        lines.append(f"  {finding.message}")
        lines.extend(f"  > {shown(item)}" for item in finding.evidence[:6])
        if finding.fix:
            lines.append(f"  fix: {finding.fix}")
        lines.append("")
    if benign:
        lines.append("Harmless (no need to chase these):")
        for finding in benign:
            lines.append(f"  -{_lines(finding.lines, finding.lines_total)} {finding.message}")
        lines.append("")
    if not explanation.recognised and explanation.relevant:
        lines.append("Lines that looked most relevant:")
        lines.extend(f"  {number}: {shown(text)}" for number, text in explanation.relevant)
        lines.append("")
    known = _known_facts(explanation.facts)
    if known:
        lines.append("From the log: " + "; ".join(known))
    return shown_lines("\n".join(lines).rstrip()) + "\n"


def to_markdown(explanation: Explanation) -> str:
    lines = ["### envcheck explain", "", explanation.summary(), ""]
    for finding in explanation.findings:
        where = _lines(finding.lines, finding.lines_total)
        lines.append(f"- **{finding.severity.value}** `{finding.code}`{where}: {finding.message}")
        # The lines the text format quotes, as code: a log line holds `*`, `_` and `<`.
        lines.extend(f"  - evidence: {_code_span(item)}" for item in finding.evidence[:6])
        if finding.fix:
            lines.append(f"  - fix: {finding.fix}")
    return shown_lines("\n".join(lines)) + "\n"


def _code_span(text: str) -> str:
    """`text` as a Markdown code span, fenced by one backtick more than its longest run of
    them (CommonMark), so that a backtick in a log line cannot end it."""
    value = shown(text)
    longest = max((len(run) for run in re.findall("`+", value)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {value} {fence}" if longest else f"`{value}`"


def render(explanation: Explanation, output: Format) -> str:
    if output is Format.TEXT:
        return to_text(explanation)
    if output is Format.JSON:
        return json.dumps(to_json(explanation), indent=2) + "\n"
    if output is Format.MARKDOWN:
        return to_markdown(explanation)
    return assert_never(output)
