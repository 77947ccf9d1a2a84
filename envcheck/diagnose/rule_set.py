"""The one rule set: every rule of the doctor, which findings are whose, and how a set of rules
runs over a context. The doctor runs it over a probe's facts (doctor.py), explain over the facts
a log shows (log_diagnosis.py). Imports the rules and nothing of the recommendation, so that
explain pays only for the rules."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from envcheck.diagnose import (
    advisory_rules,
    driver_rules,
    framework_rules,
    library_rules,
    static_copies_rules,
)
from envcheck.diagnose.context import Context
from envcheck.diagnose.coresidency_rules import framework_conflicts
from envcheck.findings import Finding

Rule = Callable[[Context], list[Finding]]

RULES: tuple[Rule, ...] = (
    driver_rules.driver_presence,
    driver_rules.driver_version,
    driver_rules.program_driver,
    driver_rules.gpu_architecture,
    framework_rules.framework_installed,
    framework_rules.cpu_only_build,
    framework_rules.python_version,
    framework_rules.windows_native,
    framework_conflicts,
    static_copies_rules.static_copy_findings,
    library_rules.missing_libraries,
    library_rules.runtime_of_another_cuda,
    library_rules.cudnn_version,
    library_rules.library_files,
    library_rules.shadowed_copies,
    library_rules.below_tensorflow_floor,
    advisory_rules.known_bugs,
)


# The rules about the CUDA libraries TensorFlow's build asks for (the library probe follows
# TensorFlow's loader): TensorFlow's, and only worth running where a GPU could be used.
_TENSORFLOW_LIBRARY_RULES: frozenset[Rule] = frozenset(
    {
        library_rules.missing_libraries,
        library_rules.cudnn_version,
        library_rules.library_files,
        library_rules.shadowed_copies,
        library_rules.below_tensorflow_floor,
    }
)

# The rules about TensorFlow alone (its Python and Windows support, its libraries, its known
# bugs): their findings are TensorFlow's, said in the finding's data so the verdict and the
# component table name the right framework beside PyTorch or JAX.
TENSORFLOW_RULES: frozenset[Rule] = _TENSORFLOW_LIBRARY_RULES | {
    framework_rules.python_version,
    framework_rules.windows_native,
    advisory_rules.known_bugs,
}

# The rules that only matter where an NVIDIA GPU could be used: on a machine without one,
# a missing driver or CUDA library, or a CPU-only build, is no problem.
GPU_RULES: frozenset[Rule] = _TENSORFLOW_LIBRARY_RULES | {
    library_rules.runtime_of_another_cuda,
    driver_rules.driver_presence,
    driver_rules.driver_version,
    driver_rules.program_driver,
    driver_rules.gpu_architecture,
    framework_rules.cpu_only_build,
    framework_rules.windows_native,
}

# The rules that conclude from a fact's absence, which only a whole probe can tell: no
# framework in the facts is "none installed" after a probe, and "not shown" in a log. The
# others conclude only from facts present, so they also run over the partial facts a log shows
# (diagnose/log_diagnosis.py), where anything the log is silent about is unknown. Known bugs
# are read from a log by their symptoms (explain's known-bug reading, which checks the same
# version and platform conditions), not from versions alone: a log quoting a version is no
# sign that a bug with other symptoms struck.
WHOLE_PROBE_RULES: frozenset[Rule] = frozenset(
    {framework_rules.framework_installed, advisory_rules.known_bugs}
)


def partial_facts_rules() -> tuple[Rule, ...]:
    """The rules of RULES that run over partial facts (a log's), read when asked so that a
    rule added to RULES serves the doctor and explain alike."""
    return tuple(rule for rule in RULES if rule not in WHOLE_PROBE_RULES)


def rule_findings(
    context: Context, rules: Sequence[Rule], measured: Collection[str] = ()
) -> list[Finding]:
    """The findings of `rules` over a context: GPU rules skipped where no NVIDIA GPU is, and
    TensorFlow's rules' findings said to be TensorFlow's."""
    findings: list[Finding] = []
    for rule in rules:
        if context.no_nvidia_gpu and rule in GPU_RULES:
            continue
        found = rule(context)
        if rule in TENSORFLOW_RULES:
            found = [_tensorflows(f) for f in found]
        if rule is static_copies_rules.static_copy_findings:
            found = [f for f in found if f.data.get("framework") not in measured]
        findings.extend(found)
    return findings


def _tensorflows(finding: Finding) -> Finding:
    if "framework" in finding.data:
        return finding
    return replace(finding, data={**finding.data, "framework": "tensorflow"})
