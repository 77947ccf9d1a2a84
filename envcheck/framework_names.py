"""The deep-learning frameworks envcheck judges, named as users and the code name them.

One place for the vocabulary every layer shares: the key a framework goes by in facts, findings'
data and `--framework` (tensorflow, torch, jax), the name a person reads (TensorFlow, PyTorch,
JAX), and which installed distributions make up one framework (JAX is jax + jaxlib + a CUDA
plugin). It holds no version facts (those are in matrix/) and looks at nothing.
"""

from __future__ import annotations

import re

# Judged in this order: TensorFlow first, as the project began with it and reports keep its place.
FRAMEWORKS = ("tensorflow", "torch", "jax")
LABELS = {"tensorflow": "TensorFlow", "torch": "PyTorch", "jax": "JAX"}
# The name a log's program goes by when the log does not name it (explain's facts).
PROGRAM = "program"
# Programs a log can show that are not judged as frameworks (their facts only say the CUDA they
# were built with), and a program a log does not name.
_OTHER_LABELS = {
    "onnxruntime": "ONNX Runtime",
    "ctranslate2": "CTranslate2",
    "paddle": "PaddlePaddle",
    "cupy": "CuPy",
    PROGRAM: PROGRAM,
}
# FrameworkFacts.name of JAX's parts: jaxlib carries the CPU kernels and, before 0.4.26, CUDA
# (its local version +cuda12.cudnn89); since then the CUDA kernels are a plugin distribution.
_JAX_PART = re.compile(r"^(jax|jaxlib|jax-(cuda|rocm)\d+-(plugin|pjrt))$")


def framework_of(facts_name: str) -> str | None:
    """The framework a FrameworkFacts.name belongs to; None for those not judged (Keras runs on
    one of the three and has no CUDA of its own)."""
    if facts_name in ("tensorflow", "torch"):
        return facts_name
    return "jax" if _JAX_PART.match(facts_name) else None


def label(key: str) -> str:
    return LABELS.get(key) or _OTHER_LABELS.get(key, key)


def labels(keys: list[str] | tuple[str, ...]) -> str:
    """'TensorFlow', 'TensorFlow and PyTorch', 'TensorFlow, PyTorch and JAX'."""
    names = [label(key) for key in keys]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def subject(keys: list[str] | tuple[str, ...]) -> str:
    """Who a sentence about an environment is about: labels(keys), or 'A framework' for none."""
    return labels(keys) or GENERIC_SUBJECT


GENERIC_SUBJECT = "A framework"


def within(subject_text: str) -> str:
    """`subject_text` placed inside a sentence: 'a framework', not 'A framework' (a name such as
    'TensorFlow' is left as it is)."""
    return "a framework" if subject_text == GENERIC_SUBJECT else subject_text
