"""The doctor's verdict as a node-feature-discovery feature file (the local source's
`features.d/` format: one `name=value` line per label; docs/clusters.md lists the names).

NFD turns each line into a node label, so each name and value must be a valid Kubernetes
label: a value is at most 63 characters of [A-Za-z0-9._-], beginning and ending with a letter
or digit, or empty. A value that is not (a local version such as 2.14.1+cu130) is made one
here rather than rejected by NFD, which would drop the whole line. The names live under
envcheck.dev/, a namespace NFD 0.13 and later accept by default (older ones need
-extra-label-ns=envcheck.dev).
"""

from __future__ import annotations

import re

from envcheck.diagnose.verdict import NodeResult

DOMAIN = "envcheck.dev"
MAX_VALUE = 63
FINGERPRINT_DIGITS = 16  # a whole SHA-256 (64 hex digits) is longer than a label value may be
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9._-]")
_UNTRIMMED = re.compile(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$")


def label_value(text: str) -> str:
    """`text` as a valid label value: other characters become '_', cut to 63, letters or
    digits at both ends ('' when nothing is left)."""
    value = _NOT_ALLOWED.sub("_", text)[:MAX_VALUE]
    return _UNTRIMMED.sub("", value)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def render(result: NodeResult) -> str:
    labels: list[tuple[str, str]] = [
        ("verdict", result.verdict),
        ("ready", _flag(result.verdict in ("pass", "warn"))),
        ("driver", result.driver or ""),
        ("cuda", result.cuda or ""),
        ("cudnn", result.cudnn or ""),
    ]
    for framework in result.frameworks:
        labels.append((framework.key, framework.version))
        labels.append((f"{framework.key}.ready", _flag(framework.ready)))
    labels.append(("fingerprint", result.fingerprint[:FINGERPRINT_DIGITS]))
    lines = []
    for name, text in labels:
        value = label_value(text)
        if value:  # an unknown version is no label, not an empty one
            lines.append(f"{DOMAIN}/{name}={value}")
    return "\n".join(lines) + "\n"
