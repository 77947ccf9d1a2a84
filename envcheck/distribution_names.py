"""Distribution names as the package index compares them (PEP 503: runs of "-", "_" and "."
are one "-", letters lower case), so that pip's spelling, the matrix's and the facts' meet.

packaging.utils.canonicalize_name says the same, but importing packaging.utils brings in
packaging.tags, and with it logging and subprocess: a tenth of `envcheck explain`'s start-up,
which never reads a wheel's tags.
"""

from __future__ import annotations

import re

_SEPARATORS = re.compile(r"[-_.]+")


def canonical_name(name: str) -> str:
    """`name` as the index compares it: Nvidia_CUDNN.cu12 -> nvidia-cudnn-cu12."""
    return _SEPARATORS.sub("-", name).lower()
