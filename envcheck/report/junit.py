"""The doctor's checks as a JUnit XML report, for CI systems that show test results: one test
case per check (diagnose/checks.py), a failure for each check with an error finding, skipped
for a check not done (the --deadline passed, or the smoke test was not asked for).

Built with ElementTree, which escapes markup; characters XML 1.0 cannot hold at all (the
control characters of a terminal log) are dropped first, so the file is always well-formed.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

from envcheck.diagnose.verdict import Check, NodeResult
from envcheck.findings import Finding, Severity
from envcheck.report.stamp import Stamp

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
CLASS = "envcheck.doctor"


def _text(value: str) -> str:
    return _NOT_XML.sub("", value)


def _details(findings: tuple[Finding, ...] | list[Finding]) -> str:
    lines = []
    for finding in findings:
        lines.append(f"{finding.severity.value} [{finding.code}] {finding.message}")
        lines.extend(f"  evidence: {item}" for item in finding.evidence if item)
        if finding.fix:
            lines.append(f"  fix: {finding.fix}")
    return _text("\n".join(lines))


def _case(suite: ElementTree.Element, check: Check) -> None:
    case = ElementTree.SubElement(suite, "testcase", classname=CLASS, name=check.name, time="0")
    if not check.done:
        ElementTree.SubElement(case, "skipped", message=_text(check.why_not))
        return
    errors = [f for f in check.findings if f.severity is Severity.ERROR]
    if errors:
        failure = ElementTree.SubElement(
            case, "failure", message=_text(errors[0].message), type=errors[0].code
        )
        failure.text = _details(errors)
    others = [f for f in check.findings if f.severity is not Severity.ERROR]
    if others:
        ElementTree.SubElement(case, "system-out").text = _details(others)


def render(result: NodeResult, stamp: Stamp) -> str:
    cases = result.checks
    failures = sum(1 for c in cases if c.done and c.failed)
    skipped = sum(1 for c in cases if not c.done)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0",
              "skipped": str(skipped)}  # fmt: skip
    root = ElementTree.Element("testsuites", {"name": "envcheck doctor", **counts})
    suite = ElementTree.SubElement(
        root, "testsuite", {"name": _text(f"envcheck doctor on {stamp.node}"),
                            "timestamp": stamp.time, "hostname": _text(stamp.node), **counts},
    )  # fmt: skip
    properties = ElementTree.SubElement(suite, "properties")
    for name, value in (
        ("verdict", result.verdict),
        ("summary", result.summary),
        ("fingerprint", result.fingerprint),
        ("envcheck_version", stamp.envcheck_version),
    ):
        ElementTree.SubElement(properties, "property", name=name, value=_text(value))
    for check in cases:
        _case(suite, check)
    ElementTree.indent(root)
    body = ElementTree.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
