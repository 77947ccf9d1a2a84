"""Render `envcheck fleet`'s groups as text, JSON, Markdown or CSV. Pure: no I/O.

Every value in a group came from a node's report, written elsewhere: text and Markdown pass it
through terminal_text.shown (control characters escaped, huge values cut), CSV cells that a
spreadsheet would take for a formula are quoted with a leading apostrophe.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from envcheck.errors import assert_never
from envcheck.fleet.merge import Fleet, Group
from envcheck.fleet.reader import Apart
from envcheck.report.formats import FleetFormat
from envcheck.report.terminal_text import shown

SCHEMA = "envcheck.fleet/1"
APART_SHOWN = 50  # in text and Markdown; JSON and CSV list every one


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def driver(facts: dict[str, Any]) -> str:
    found = _dict(facts.get("driver"))
    version, cuda, state = found.get("version"), found.get("cuda"), found.get("state")
    if not version:
        return f"no driver ({state})" if state else "driver unknown"
    return f"driver {version} (CUDA {cuda})" if cuda else f"driver {version}"


def gpus(facts: dict[str, Any]) -> list[str]:
    described = []
    for item in _list(facts.get("gpus")):
        pair = _list(item)
        if len(pair) == 2:
            described.append(f"{pair[0] or 'GPU'} (CC {pair[1] or '?'})")
    return described


def frameworks(facts: dict[str, Any]) -> list[str]:
    described = []
    for item in _list(facts.get("frameworks")):
        framework = _dict(item)
        text = f"{framework.get('name')} {framework.get('version')}"
        if framework.get("cuda"):
            text += f" (CUDA {framework.get('cuda')})"
        described.append(text)
    return described


def copies(facts: dict[str, Any]) -> list[str]:
    """The CUDA runtime and cuDNN copies the frameworks load: TensorFlow's selected ones, and
    the wheel each PyTorch or JAX library comes from."""
    found: list[str] = []
    for item in _list(facts.get("libraries")):
        pair = _list(item)
        if len(pair) == 2 and pair[0] in ("cudart", "cudnn"):
            name = "CUDA runtime" if pair[0] == "cudart" else "cuDNN"
            found.append(f"{name} {pair[1] or '?'} (tensorflow)")
    for item in _list(facts.get("framework_libraries")):
        triple = _list(item)
        if len(triple) == 3 and str(triple[1]).startswith(("libcudart.so", "libcudnn.so")):
            found.append(f"{triple[1]} {triple[2]} ({triple[0]})")
    return found


def findings(facts: dict[str, Any]) -> list[str]:
    """The error and warning codes of the group, each once."""
    codes = []
    for item in _list(facts.get("findings")):
        pair = _list(item)
        if len(pair) == 2 and pair[1] in ("error", "warning") and pair[0] not in codes:
            codes.append(str(pair[0]))
    return codes


def _group_json(group: Group) -> dict[str, Any]:
    facts = group.key_facts
    return {
        "verdict": group.verdict,
        "nodes": len(group.nodes),
        "hostlist": group.hostlist,
        "fingerprint": group.fingerprint,
        "driver": driver(facts),
        "gpus": gpus(facts),
        "frameworks": frameworks(facts),
        "copies": copies(facts),
        "findings": findings(facts),
        "finding": group.headline,
        "fix": group.fix,
        "summary": group.summary,
        "key_facts": facts,
    }


def _apart_json(apart: Apart) -> dict[str, Any]:
    return {"source": apart.source, "kind": apart.kind, "reason": apart.reason, "node": apart.node}


def to_json(fleet: Fleet) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "reports": fleet.reports,
        "nodes": fleet.nodes,
        "groups": [_group_json(g) for g in fleet.groups],
        "apart": [_apart_json(a) for a in fleet.apart],
    }


def headline(fleet: Fleet) -> str:
    counts: dict[str, int] = {}
    for group in fleet.groups:
        counts[group.verdict] = counts.get(group.verdict, 0) + len(group.nodes)
    verdicts = ", ".join(f"{count} {verdict}" for verdict, count in counts.items())
    line = f"{fleet.nodes} node(s) in {len(fleet.groups)} group(s)"
    line += f" ({verdicts})" if verdicts else ""
    if fleet.apart:
        line += f"; {len(fleet.apart)} report(s) set apart"
    return line + "."


def to_text(fleet: Fleet) -> str:
    lines = [headline(fleet)]
    for group in fleet.groups:
        facts = group.key_facts
        lines += ["", f"{group.verdict.upper():<8}{len(group.nodes):>6} node(s)  "
                      f"{shown(group.hostlist)}"]  # fmt: skip
        described = [driver(facts), *gpus(facts), *frameworks(facts), *copies(facts)]
        lines.append("  " + shown("; ".join(described), 1000))
        if group.headline:
            lines.append(f"  {shown(group.headline)}")
        if group.fix:
            lines.append(f"  fix: {shown(group.fix)}")
    if fleet.apart:
        lines += ["", f"Set apart ({len(fleet.apart)}):"]
        lines += [f"  {shown(a.source)}: {shown(a.reason)}" for a in fleet.apart[:APART_SHOWN]]
        if len(fleet.apart) > APART_SHOWN:
            lines.append(
                f"  ... and {len(fleet.apart) - APART_SHOWN} more (--format json lists them)"
            )
    return "\n".join(lines) + "\n"


def _cell(value: str) -> str:
    """A Markdown table cell: one line, no column breaks."""
    return shown(value).replace("|", "\\|")


def to_markdown(fleet: Fleet) -> str:
    lines = [f"### envcheck fleet: {headline(fleet)}", ""]
    lines += ["| verdict | nodes | hostlist | driver | GPUs | frameworks | finding | fix |",
              "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for group in fleet.groups:
        facts = group.key_facts
        cells = [
            group.verdict, str(len(group.nodes)), f"`{group.hostlist}`", driver(facts),
            ", ".join(gpus(facts)), ", ".join(frameworks(facts)), group.headline, group.fix,
        ]  # fmt: skip
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if fleet.apart:
        lines += ["", f"Set apart ({len(fleet.apart)}):", ""]
        lines += [f"- `{_cell(a.source)}`: {_cell(a.reason)}" for a in fleet.apart[:APART_SHOWN]]
        if len(fleet.apart) > APART_SHOWN:
            lines.append(f"- ... and {len(fleet.apart) - APART_SHOWN} more")
    return "\n".join(lines) + "\n"


_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: str) -> str:
    return f"'{value}" if value.startswith(_FORMULA) else value


def to_csv(fleet: Fleet) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["verdict", "nodes", "hostlist", "driver", "gpus", "frameworks", "copies",
                     "findings", "finding", "fix", "fingerprint"])  # fmt: skip
    for group in fleet.groups:
        facts = group.key_facts
        row = [
            group.verdict, str(len(group.nodes)), group.hostlist, driver(facts),
            "; ".join(gpus(facts)), "; ".join(frameworks(facts)), "; ".join(copies(facts)),
            " ".join(findings(facts)), group.headline, group.fix, group.fingerprint,
        ]  # fmt: skip
        writer.writerow([_csv_cell(cell) for cell in row])
    return out.getvalue()


def render(fleet: Fleet, output: FleetFormat) -> str:
    if output is FleetFormat.TEXT:
        return to_text(fleet)
    if output is FleetFormat.JSON:
        return json.dumps(to_json(fleet), indent=2) + "\n"
    if output is FleetFormat.MARKDOWN:
        return to_markdown(fleet)
    if output is FleetFormat.CSV:
        return to_csv(fleet)
    return assert_never(output)
