"""The doctor: facts (probed here, or read from a file) x matrix x smoke test -> a report.

Runs every rule, orders the findings, builds the component table (found / required / status,
with `unknown` where nothing could be told), and adds the recommendation for this machine.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Collection, Sequence
from typing import Any, Literal

from envcheck.diagnose import rule_set
from envcheck.diagnose.checks import DRIVER_CODES, without_artefacts
from envcheck.diagnose.context import Context, Target
from envcheck.diagnose.coresidency_rules import one_finding_per_overwrite
from envcheck.diagnose.rule_set import rule_findings
from envcheck.diagnose.wheel_fixes import with_wheel_fixes
from envcheck.errors import EnvcheckError, InputError
from envcheck.findings import Finding, Severity, ordered
from envcheck.framework_names import label, subject, within
from envcheck.matrix.model import Matrix
from envcheck.probe.facts import Facts, LibraryFacts
from envcheck.recommend.frameworks import (
    FrameworkRecommendation,
    recommend_jax,
    recommend_torch,
)
from envcheck.recommend.machine import GpuDescription, MachineDescription
from envcheck.recommend.rank import Recommendation, recommend
from envcheck.record import record
from envcheck.versions import DriverVersion, PythonVersion

FRAMEWORK_RECOMMENDERS: dict[
    str, Callable[[Matrix, MachineDescription], FrameworkRecommendation]
] = {
    "torch": recommend_torch,
    "jax": recommend_jax,
}

Status = Literal["ok", "warning", "error"]
ComponentStatus = Literal["ok", "warning", "error", "unknown"]

NO_NVIDIA_GPU = "this machine has no NVIDIA GPU"


@record
class Component:
    name: str
    found: str
    required: str
    status: ComponentStatus


@record
class Report:
    status: Status
    findings: tuple[Finding, ...]
    components: tuple[Component, ...]
    facts: Facts
    recommendation: Recommendation | None
    smoke: dict[str, Any] | None  # the smoke test's result as data, when it ran
    target: Target | None
    no_nvidia_gpu: bool = False  # Context.no_nvidia_gpu: only the CPU can be used here
    frameworks: tuple[str, ...] = ()  # Context.judged: the frameworks this report is about
    # Every framework's smoke test as data, keyed by framework (tensorflow's is also `smoke`),
    # and the import-order probe's table (diagnose/run.py fills both; None when not run).
    smoke_tests: dict[str, Any] | None = None
    import_orders: dict[str, Any] | None = None
    # What `recommend --framework torch|jax` says for this machine, for the PyTorch and JAX
    # judged here (TensorFlow's is `recommendation`).
    framework_recommendations: tuple[FrameworkRecommendation, ...] = ()
    # The checks the --deadline left undone (diagnose/checks.py names): no verdict then.
    not_checked: tuple[str, ...] = ()
    # The installed TensorFlow ("tensorflow-cpu 2.21.0") when it is the recommendation's first
    # choice and works here: the recommendation then says so instead of asking to reinstall it.
    installed_choice: str | None = None

    def verdict(self) -> str:
        """The verdict in one sentence (the JSON's `summary`; its `verdict` is one word)."""
        who = subject(self.frameworks)
        if self.not_checked:
            return (
                "No verdict: the --deadline passed before these checks were done: "
                f"{', '.join(self.not_checked)}."
            )
        errors = [f for f in self.findings if f.severity is Severity.ERROR]
        if errors:
            named = errors[0].data.get("framework")
            if isinstance(named, str):
                who = label(named)
            return f"{who} will not use the GPU here: {errors[0].message}"
        warnings = [f for f in self.findings if f.severity is Severity.WARNING]
        if warnings:
            return f"It should work, with {len(warnings)} warning(s): {warnings[0].message}"
        if self.no_nvidia_gpu:
            if self.smoke and self.smoke.get("status") == "ok":
                return f"TensorFlow works on the CPU; {NO_NVIDIA_GPU}."
            return f"No problem found; {NO_NVIDIA_GPU}, so {within(who)} will run on the CPU."
        if self.smoke and self.smoke.get("status") == "ok" and self.smoke.get("gpus"):
            return "TensorFlow uses the GPU: the smoke test ran on it."
        unchecked = [c.name for c in self.components if c.status == "unknown"]
        if unchecked:
            names = ", ".join(unchecked)
            return f"No problem found in what could be checked; not checked: {names}."
        return "No problem found."


# Within a severity, what stops everything else comes first: a damaged copy the loader picks
# (a truncated libcudart crashes the import before any missing library matters), then the
# rest, then the smoke test's own failures, which are the symptoms the others explain.
_FIRST_CAUSES = frozenset({"library-shadowed", "library-wrong-architecture"})
_SYMPTOMS = frozenset({"smoke-test-crashed", "smoke-test-failed", "smoke-test-timeout"})


def by_cause(findings: Sequence[Finding]) -> list[Finding]:
    """`findings` (already ordered by severity) with the most causal first in each severity."""

    def rank(finding: Finding) -> tuple[int, int]:
        cause = 0 if finding.code in _FIRST_CAUSES else 2 if finding.code in _SYMPTOMS else 1
        return (finding.severity.rank, cause)

    return sorted(findings, key=rank)


def _status(findings: Sequence[Finding]) -> Status:
    if any(f.severity is Severity.ERROR for f in findings):
        return "error"
    if any(f.severity is Severity.WARNING for f in findings):
        return "warning"
    return "ok"


def _component_status(
    findings: Sequence[Finding], codes: Collection[str], known: bool
) -> ComponentStatus:
    mine = [f for f in findings if f.code in codes and f.severity is not Severity.INFO]
    if mine:
        return _status(mine)
    return "ok" if known else "unknown"


# Codes about one framework's own install; the framework is in the finding's data.
_FRAMEWORK_CODES = {
    "framework-cpu-only",
    "framework-missing",
    "python-unsupported",
    "windows-native-gpu-unsupported",
}


def _framework_status(findings: Sequence[Finding], key: str, known: bool) -> ComponentStatus:
    mine = [
        f
        for f in findings
        if f.severity is not Severity.INFO
        and (
            f.data.get("framework") == key
            or (key == "tensorflow" and f.code in _FRAMEWORK_CODES and not f.data)
        )
    ]
    if mine:
        return _status(mine)
    return "ok" if known else "unknown"


def _framework_rows(context: Context, findings: Sequence[Finding]) -> list[Component]:
    """One row per framework judged: what is installed, what it needs, its own findings."""
    rows = []
    release = context.release
    for build in context.builds:
        required = "-"
        if build.key == "tensorflow" and release is not None:
            required = f"Python {', '.join(str(p) for p in release.python)}"
        found = (
            f"{build.main.distribution} {build.main.version}"
            if build.key == "tensorflow"
            else build.found
        )
        rows.append(
            Component(build.label, found, required, _framework_status(findings, build.key, True))
        )
    if not context.builds:
        name = label(context.framework) if context.framework else "Framework"
        rows.append(Component(name, "not installed", "-", "unknown"))
    return rows


def _driver_required(context: Context) -> str:
    """The newest driver floor among the builds judged, and whose it is when several are."""
    floors = []
    for build in context.builds:
        if build.is_cuda_build is False or build.cuda is None:
            continue
        requirement = context.matrix.driver_requirement(build.cuda, context.os)
        if requirement is not None:
            floors.append((requirement.minimum, build))
    if not floors:
        return "-"
    minimum, build = max(floors, key=lambda pair: pair[0])
    if len(context.builds) == 1:
        return f">= {minimum}"
    return f">= {minimum} ({build.label}, CUDA {build.cuda})"


def components(context: Context, findings: Sequence[Finding]) -> tuple[Component, ...]:
    facts = context.facts
    cuda = context.build_cuda
    driver_found = str(context.driver) if context.driver else facts.driver.state
    if context.driver is None and facts.driver.version:
        driver_found = f"{facts.driver.version!r} (not a driver release)"
    if context.target is not None:
        driver_found = (
            f"{context.target.driver} (target)" if context.target.driver else "not given (target)"
        )
    gpus = ", ".join(f"{n} (CC {c or '?'})" for n, c in context.capabilities) or "none"
    every_capability = bool(context.capabilities) and all(c for _, c in context.capabilities)
    cudnn = context.selected("cudnn")
    cudart = context.selected("cudart")
    if context.no_nvidia_gpu:
        return _components_without_gpu(context, findings)
    rows = [
        Component(
            "NVIDIA driver", driver_found, _driver_required(context),
            # "known" only with a release to compare: a missing driver is an error finding
            # elsewhere, and a Docker build without --target-driver checks none.
            _component_status(findings, DRIVER_CODES, context.driver is not None),
        ),
        Component(
            "GPU", gpus,
            ", ".join(str(t) for t in context.build_targets) or "-",
            _component_status(findings, {"no-gpu", "compute-capability-unsupported"},
                              every_capability),
        ),
        *_framework_rows(context, findings),
    ]  # fmt: skip
    if context.tensorflow is None and context.builds:
        return tuple(rows)  # the CUDA libraries probed are TensorFlow's; the rows are its
    # With other frameworks beside it, say whose libraries these rows are.
    whose = " (TensorFlow)" if len(context.builds) > 1 else ""
    rows += [
        Component(
            f"CUDA runtime{whose}",
            f"{cudart.version or '?'} at {cudart.path}" if cudart else "not found",
            f"CUDA {cuda.release[0]}.x (built with {cuda})" if cuda else "-",
            # The runtime's own row: a finding about cuSOLVER is not the runtime's status.
            _component_status([f for f in findings if _about(f, cudart, "libcudart")],
                              {"cuda-library-missing", "cuda-version-mismatch",
                               "library-shadowed", "library-wrong-architecture"},
                              cudart is not None),
        ),
        Component(
            f"cuDNN{whose}", f"{cudnn.version or '?'} at {cudnn.path}" if cudnn else "not found",
            f">= {context.build_cudnn}, same major" if context.build_cudnn else "-",
            _component_status([f for f in findings if _about(f, cudnn, "libcudnn")],
                              {"cudnn-missing", "cudnn-version-mismatch",
                                         "cudnn-sublibrary-missing", "library-shadowed"},
                              cudnn is not None),
        ),
    ]  # fmt: skip
    return tuple(rows)


def _about(finding: Finding, selected: LibraryFacts | None, stem: str) -> bool:
    """Whether `finding` is about the library `stem` (its file name or its selected path)."""
    text = " ".join((finding.message, *finding.evidence))
    return stem in text or (selected is not None and selected.path in text)


def _components_without_gpu(context: Context, findings: Sequence[Finding]) -> tuple[Component, ...]:
    """The table for a machine without an NVIDIA GPU: only the frameworks themselves matter."""
    not_needed = f"not needed ({NO_NVIDIA_GPU})"
    rows = [
        Component("NVIDIA driver", "none", not_needed, "ok"),
        Component("GPU", "none (no NVIDIA GPU)", "-", "ok"),
        *_framework_rows(context, findings),
    ]
    if context.tensorflow is not None or not context.builds:
        rows += [
            Component("CUDA runtime", "-", not_needed, "ok"),
            Component("cuDNN", "-", not_needed, "ok"),
        ]
    return tuple(rows)


def _recommend_hint(context: Context) -> str:
    """The recommend command(s) for another machine, for the frameworks judged here."""
    keys = [key for key in context.judged if key != "tensorflow"]
    commands = [
        "`envcheck recommend" + (f" --framework {key}" if key else "") + " --gpu NAME --driver VER`"
        for key in (([""] if "tensorflow" in context.judged or not keys else []) + keys)
    ]
    return " or ".join(commands)


def _installed_choice(
    context: Context, recommendation: Recommendation | None, findings: Sequence[Finding]
) -> str | None:
    """The installed TensorFlow, when it is the first choice for this machine and nothing is
    wrong with it: the CPU choice on a machine without a GPU (tensorflow-cpu is that choice too:
    the same release, without the GPU code), or a CUDA build where a GPU choice comes first."""
    tf = context.tensorflow
    if recommendation is None or not recommendation.candidates or tf is None:
        return None
    if any(f.severity is Severity.ERROR for f in findings):
        return None
    first = recommendation.candidates[0]
    if context.tensorflow_version != first.tensorflow:
        return None
    if first.kind == "gpu" and context.is_cuda_build is not True:
        return None
    return f"{tf.distribution} {tf.version}"


def machine_from_facts(context: Context) -> MachineDescription:
    """The recommendation's machine: this one as probed, or the Docker build's target."""
    facts = context.facts
    try:
        python = PythonVersion.parse(facts.platform.python)
    except InputError:  # the probed interpreter could not be run: describe envcheck's own
        python = PythonVersion(sys.version_info.major, sys.version_info.minor)
    gpus = tuple(GpuDescription(name, capability) for name, capability in context.capabilities)
    driver: DriverVersion | None = context.driver
    return MachineDescription(
        os=facts.platform.os,
        arch=facts.platform.arch,
        python=python,
        driver=driver,
        gpus=gpus,
        found_via={"driver": facts.driver.found_via or "not found", "python": "probe"},
        searched=tuple(step.step for step in facts.driver.steps if not step.ok),
        no_nvidia_gpu=context.no_nvidia_gpu,
    )


def diagnose(
    facts: Facts,
    matrix: Matrix,
    target: Target | None = None,
    extra_findings: Sequence[Finding] = (),
    smoke: dict[str, Any] | None = None,
    framework: str | None = None,
    measured: Collection[str] = (),
    not_checked: Sequence[str] = (),
) -> Report:
    """`measured`: the frameworks whose loaded copies a child really mapped (the smoke and
    import-order children): their maps win over the static loader model, which then adds no
    finding about them (one finding per cause). `not_checked`: the checks the --deadline cut
    short (diagnose/checks.py); what their killed children seem to say is left out."""
    context = Context(facts, matrix, target, framework)
    findings = rule_findings(context, rule_set.RULES, measured)
    if context.no_nvidia_gpu:
        findings.append(
            Finding(
                "no-gpu",
                Severity.INFO,
                f"{context.subject} can only use the CPU: {NO_NVIDIA_GPU}, so no NVIDIA driver or "
                "CUDA library is needed.",
                facts.platform.nvidia_gpu_evidence,
                "Nothing to do for the CPU. To use a GPU, run on a machine with an NVIDIA GPU "
                f"({_recommend_hint(context)} shows what to install there).",
            )
        )
    # A library a framework's smoke test could not load: the fix installs what it pins.
    extra = with_wheel_fixes(extra_findings, context)
    findings = one_finding_per_overwrite([*findings, *extra], facts)
    for error in facts.errors:
        findings.append(
            Finding("probe-incomplete", Severity.WARNING, f"Part of the probe failed: {error}.")
        )
    findings = by_cause(ordered(without_artefacts(findings, not_checked)))
    recommendation: Recommendation | None = None
    # The recommendation ranks TensorFlow releases: for an environment of other frameworks it
    # would answer a question nobody asked (`envcheck recommend` still does on request).
    if context.judged in ((), ("tensorflow",)) or "tensorflow" in context.judged:
        try:
            recommendation = recommend(matrix, machine_from_facts(context))
        except EnvcheckError:  # a report without a recommendation beats no report
            recommendation = None
    others = []
    machine = machine_from_facts(context)
    for key in context.judged:
        if key in FRAMEWORK_RECOMMENDERS:
            # As for TensorFlow's: a report without a recommendation beats no report.
            with contextlib.suppress(EnvcheckError):
                others.append(FRAMEWORK_RECOMMENDERS[key](matrix, machine))
    return Report(
        installed_choice=_installed_choice(context, recommendation, findings),
        status=_status(findings),
        findings=tuple(findings),
        components=components(context, findings),
        facts=facts,
        recommendation=recommendation,
        smoke=smoke,
        target=target,
        no_nvidia_gpu=context.no_nvidia_gpu,
        frameworks=context.judged,
        framework_recommendations=tuple(others),
        not_checked=tuple(not_checked),
    )
