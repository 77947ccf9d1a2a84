"""A reader of the Prometheus text exposition format, for the tests: samples with their labels
unescaped (\\\\, \\" and \\n), and the HELP and TYPE lines per metric name."""

from __future__ import annotations

import re
from dataclasses import dataclass

_SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})? (?P<value>\S+)$")
_LABEL = re.compile(r'\s*(?P<name>[a-zA-Z_][a-zA-Z0-9_]*)="(?P<value>(?:[^"\\]|\\.)*)"\s*,?')
_ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


@dataclass(frozen=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


def _unescaped(text: str) -> str:
    return re.sub(r"\\[\\\"n]", lambda m: _ESCAPES[m.group(0)], text)


def parse(text: str) -> tuple[list[Sample], dict[str, str], dict[str, str]]:
    """(samples, HELP by name, TYPE by name); AssertionError on a line it cannot read."""
    samples, helps, types = [], {}, {}
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("# HELP "):
            name, _, words = line[7:].partition(" ")
            helps[name] = words
            continue
        if line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            types[name] = kind
            continue
        if line.startswith("#"):
            continue
        match = _SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        labels: dict[str, str] = {}
        rest = match["labels"] or ""
        position = 0
        while position < len(rest):
            label = _LABEL.match(rest, position)
            assert label, f"bad labels in {line!r}"
            labels[label["name"]] = _unescaped(label["value"])
            position = label.end()
        samples.append(Sample(match["name"], labels, float(match["value"])))
    return samples, helps, types


def value(samples: list[Sample], name: str, **labels: str) -> float | None:
    """The value of the one sample `name` whose labels include `labels`; None if none."""
    found = [s for s in samples if s.name == name and labels.items() <= s.labels.items()]
    assert len(found) <= 1, found
    return found[0].value if found else None
