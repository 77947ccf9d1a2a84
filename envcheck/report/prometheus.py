"""The doctor's verdict as node_exporter textfile-collector metrics (Prometheus text format).

node_exporter reads every *.prom file in its --collector.textfile.directory on each scrape; a
file must be written whole (a temporary file, then a rename: atomic_file.py), hold each metric
name's samples together under one HELP and one TYPE line, and carry no timestamps. Label values
are escaped as the exposition format says: backslash, double quote and line feed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from envcheck.diagnose.verdict import VERDICTS, NodeResult
from envcheck.report.stamp import Stamp


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(pairs: Iterable[tuple[str, str]]) -> str:
    inside = ",".join(f'{name}="{_escaped(value)}"' for name, value in pairs)
    return f"{{{inside}}}" if inside else ""


def _metric(name: str, help_text: str, samples: list[tuple[list[tuple[str, str]], float]]) -> str:
    if not samples:
        return ""  # a family without samples says nothing; leave it out
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
    lines += [f"{name}{_labels(labels)} {_number(value)}" for labels, value in samples]
    return "\n".join(lines)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def render(result: NodeResult, stamp: Stamp) -> str:
    findings = Counter((f.code, f.severity.value) for f in result.findings)
    blocks = [
        _metric(
            "envcheck_verdict",
            "The doctor's verdict on this node: 1 for the verdict given, 0 for the others.",
            [([("verdict", word)], int(word == result.verdict)) for word in VERDICTS],
        ),
        _metric(
            "envcheck_framework_ready",
            "1 when the framework is installed and nothing stands in its way on this node.",
            [
                ([("framework", f.key), ("version", f.version)], int(f.ready))
                for f in result.frameworks
            ],
        ),
        _metric(
            "envcheck_finding",
            "How many findings of this code and severity the doctor made.",
            [
                ([("code", code), ("severity", severity)], count)
                for (code, severity), count in sorted(findings.items())
            ],
        ),
        _metric(
            "envcheck_not_checked",
            "1 for each check the --deadline left undone (the verdict is then unknown).",
            [([("check", name)], 1) for name in result.not_checked],
        ),
        _metric(
            "envcheck_info",
            "The versions the verdict is about; always 1.",
            [
                (
                    [
                        ("driver", result.driver or ""),
                        ("cuda", result.cuda or ""),
                        ("cudnn", result.cudnn or ""),
                        ("envcheck_version", stamp.envcheck_version),
                        ("fingerprint", result.fingerprint),
                        ("node", stamp.node),
                    ],
                    1,
                )
            ],
        ),
        _metric(
            "envcheck_last_run_timestamp_seconds",
            "When the doctor ran (Unix time).",
            [([], round(stamp.unix_time, 3))],
        ),
    ]
    return "\n".join(block for block in blocks if block) + "\n"
