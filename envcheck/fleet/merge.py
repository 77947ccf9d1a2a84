"""Reports merged into groups of nodes alike (same fingerprint: the facts their verdict rests
on), in one pass and with memory flat in the number of reports: a group keeps its first
report's facts, finding and fix and the names of its nodes, nothing per report. A node read
twice keeps its newest report; the other is set apart as a duplicate, as are reports older
than --max-age. Worst groups first: fail, unknown, warn, pass, then the biggest."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from envcheck.diagnose.verdict import VERDICTS, Verdict
from envcheck.fleet.hostlist import compress
from envcheck.fleet.reader import Apart, NodeReport, read
from envcheck.fleet.sources import Document
from envcheck.record import record


@record
class Group:
    verdict: Verdict
    fingerprint: str
    nodes: tuple[str, ...]  # sorted
    hostlist: str  # the nodes as Slurm writes them: gpu[001-128,130]
    key_facts: dict[str, Any]
    summary: str
    headline: str
    fix: str


@record
class Fleet:
    groups: tuple[Group, ...]  # worst first
    apart: tuple[Apart, ...]
    reports: int  # documents read, merged or not

    @property
    def nodes(self) -> int:
        return sum(len(g.nodes) for g in self.groups)

    @property
    def failing(self) -> bool:
        return any(g.verdict == "fail" for g in self.groups)


@dataclass
class _Group:
    first: NodeReport  # its facts, finding and fix stand for the group's
    nodes: set[str] = field(default_factory=set)


class Merger:
    """Feed documents with add(); result() when done."""

    def __init__(self, now: float, max_age: float | None = None) -> None:
        self._now, self._max_age = now, max_age
        self._groups: dict[str, _Group] = {}
        self._latest: dict[str, tuple[float, str, str]] = {}  # node -> (time, fingerprint, source)
        self._apart: list[Apart] = []
        self._reports = 0

    def add_all(self, documents: Iterable[Document]) -> None:
        for document in documents:
            self.add(document)

    def add(self, document: Document) -> None:
        self._reports += 1
        report = read(document)
        if isinstance(report, Apart):
            self._apart.append(report)
            return
        if self._max_age is not None and report.time < self._now - self._max_age:
            hours = (self._now - report.time) / 3600
            self._apart.append(
                Apart(report.source, f"is {hours:.1f} h old, past --max-age", "stale", report.node)
            )
            return
        before = self._latest.get(report.node)
        if before is not None:
            when, mark, source = before
            if report.time <= when:
                self._apart.append(
                    _duplicate(report.source, report.node, source, report.time == when)
                )
                return
            self._groups[mark].nodes.discard(report.node)
            if not self._groups[mark].nodes:
                del self._groups[mark]
            self._apart.append(_duplicate(source, report.node, report.source))
        self._latest[report.node] = (report.time, report.fingerprint, report.source)
        group = self._groups.get(report.fingerprint)
        if group is None:
            group = self._groups[report.fingerprint] = _Group(report)
        group.nodes.add(report.node)

    def result(self) -> Fleet:
        groups = []
        for mark, group in self._groups.items():
            first = group.first
            groups.append(
                Group(
                    first.verdict, mark, tuple(sorted(group.nodes)), compress(group.nodes),
                    first.key_facts, first.summary, first.headline, first.fix,
                )
            )  # fmt: skip
        rank = {verdict: number for number, verdict in enumerate(VERDICTS)}
        groups.sort(key=lambda g: (rank[g.verdict], -len(g.nodes), g.hostlist))
        return Fleet(tuple(groups), tuple(self._apart), self._reports)


def _duplicate(source: str, node: str, kept: str, same_time: bool = False) -> Apart:
    what = "of the same time as" if same_time else "older than"
    return Apart(source, f"is a report of {node} {what} {kept}", "duplicate", node)


def merge(documents: Iterable[Document], now: float, max_age: float | None = None) -> Fleet:
    merger = Merger(now, max_age)
    merger.add_all(documents)
    return merger.result()
