"""The frameworks a log can be read as, and the keys a fix variant is written under.

Shared by the log signatures (signatures.py) and the known bugs (advisories.py): their own
module, so that the doctor, which reads the known bugs but no log, loads no signature code.
"""

from __future__ import annotations

import re

# The frameworks a log can be read as (envcheck.explain.log_facts): a row's `framework`, and
# the keys of its `fix_for` with "other" and each "<framework> on <place>" (FIX_PLACES).
LOG_FRAMEWORKS = frozenset(
    {"tensorflow", "torch", "jax", "onnxruntime", "ctranslate2", "paddle", "cupy"}
)
# Where a fix may differ for one framework: macOS has no CUDA at all; native Windows has no
# TensorFlow GPU build after 2.10. The first place a log shows wins, in this order.
FIX_PLACES = ("macos", "windows")
FIX_KEYS = frozenset(
    {
        "other",
        *LOG_FRAMEWORKS,
        *(f"{name} on {place}" for name in LOG_FRAMEWORKS for place in FIX_PLACES),
    }
)
# A fix that names TensorFlow: shown to a log of another framework it would send the reader to
# TensorFlow's install route (issue 20), so such a row must be TensorFlow's own message or
# carry an "other" variant that does not name it (checked at load).
NAMES_TENSORFLOW = re.compile(r"tensorflow|\bTF\b", re.IGNORECASE)
