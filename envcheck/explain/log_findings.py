"""Group a log's signature hits into findings: one per cause, its evidence every line about it.

Consequences (lines a signature marks as not a root cause, such as "Cannot dlopen some GPU
libraries" after a failed dlopen) join the first root-cause finding when the log has one, so a
person sees the cause first with everything it explains; alone, they are findings of their own.
explain asks for one harmless finding per signature, so each keeps its own label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from envcheck.explain.matcher import LogHit
from envcheck.findings import Finding

MAX_EVIDENCE = 12


def findings_from_log(
    hits: Sequence[LogHit],
    harmless_by_signature: bool = False,
    unkept: Mapping[str, int] | None = None,
) -> list[Finding]:
    """One finding per cause; with `harmless_by_signature` (explain) one harmless finding per
    signature, each with its own label, else one for all harmless lines (the doctor).

    `unkept`: hits of each signature id beyond those in `hits` (a log repeating one line is
    kept bounded); each finding's lines_total counts them too."""
    hits = without_replaced(hits)
    roots = [h for h in hits if h.root_cause]
    groups: dict[str, list[LogHit]] = {}
    for hit in sorted(hits, key=lambda h: (not h.root_cause, h.line)):
        # Mistakes in user code are each their own finding: two pitfalls in one log are two
        # fixes, not one (a Keras load error and an XLA crash in seed 003). explain lists
        # harmless lines by kind: a group is labelled by its first line's message, and an Abseil
        # notice must not speak for oneDNN, CPU-instruction or cuDNN-version lines.
        by_signature = hit.code == "usage-pitfall" or (harmless_by_signature and hit.benign)
        key = f"{hit.code}:{hit.signature.id}" if by_signature else hit.code
        if not hit.root_cause and not hit.benign and roots and key not in groups:
            key = roots[0].code  # a consequence: evidence for the cause the log names first
        groups.setdefault(key, []).append(hit)
    findings = []
    for group in groups.values():
        # The cause speaks for the group, at the severity of its most severe line: an error
        # folded under an earlier warning about the same cause must not read as a warning.
        first = group[0]
        severity = min((h.severity for h in group), key=lambda s: s.rank)
        findings.append(
            Finding(
                first.code,
                severity,
                first.message,
                tuple(dict.fromkeys(h.text for h in group))[:MAX_EVIDENCE],
                first.fix,
                tuple(sorted({h.line for h in group})),
                _total(group, unkept or {}),
                _data(group),
            )
        )
    return findings


def _data(group: Sequence[LogHit]) -> dict[str, str]:
    """What a program reading the JSON is told besides the text: which framework cannot use
    CUDA, and that a finding is a cause the log leaves open ("reading": "open") rather than
    one a line names."""
    first = group[0]
    data = {}
    if first.code == "framework-cpu-only" and first.framework:
        data["framework"] = first.framework
    if all(hit.open_reading for hit in group):
        data["reading"] = "open"
    return data


def without_replaced(hits: Sequence[LogHit]) -> list[LogHit]:
    """The hits without those another hit on the same line reads differently
    (Signature.replaces): a row that knows the line's context speaks for it alone. A hit of a
    with_leader row reads its leader's line too (one message over several lines)."""
    replaced = {
        (line, code)
        for h in hits
        for code in h.signature.replaces
        for line in ((h.line, h.leader_line) if h.leader_line else (h.line,))
    }
    if not replaced:
        return list(hits)
    return [h for h in hits if (h.line, h.code) not in replaced]


def _total(group: Sequence[LogHit], unkept: Mapping[str, int]) -> int:
    """The log lines a group of kept hits stands for: its own, and every hit left unkept of the
    signatures in it."""
    signatures = {h.signature.id for h in group}
    return len({h.line for h in group}) + sum(unkept.get(s, 0) for s in signatures)
