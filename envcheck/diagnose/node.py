"""The node verdict contract made from a doctor Report (diagnose/verdict.py holds the record):
the verdict word, the checks, each framework's readiness and the key facts. Pure: no I/O."""

from __future__ import annotations

from typing import Any

from envcheck.diagnose.checks import check_of
from envcheck.diagnose.doctor import Report
from envcheck.diagnose.verdict import (
    Check,
    FrameworkState,
    NodeResult,
    Verdict,
    fingerprint,
)
from envcheck.findings import Finding, Severity
from envcheck.framework_names import FRAMEWORKS, framework_of

_BY_STATUS: dict[str, Verdict] = {"error": "fail", "warning": "warn", "ok": "pass"}


def node_verdict(report: Report) -> Verdict:
    """pass (nothing wrong; info notes allowed), warn, fail (an error finding), or unknown (the
    deadline passed before every check was done)."""
    if report.not_checked:
        return "unknown"
    return _BY_STATUS[report.status]


def node_result(report: Report, smoke_asked: bool) -> NodeResult:
    facts = key_facts(report)
    frameworks = []
    for key in report.frameworks:
        parts = [f for f in report.facts.frameworks if framework_of(f.name) == key]
        if not parts:
            continue  # --framework named one that is not installed
        main = next((f for f in parts if f.name == key), parts[0])  # jax, not jaxlib
        frameworks.append(FrameworkState(key, main.version, framework_ready(report, key)))
    return NodeResult(
        verdict=node_verdict(report),
        summary=report.verdict(),
        key_facts=facts,
        fingerprint=fingerprint(facts),
        checks=checks(report, smoke_asked),
        not_checked=report.not_checked,
        findings=report.findings,
        frameworks=tuple(frameworks),
        driver=report.facts.driver.version,
        cuda=report.facts.driver.cuda,
        cudnn=_cudnn(report),
    )


def _cudnn(report: Report) -> str | None:
    """TensorFlow's selected cuDNN, else the one PyTorch or JAX loads (its wheel's version)."""
    for library in report.facts.libraries:
        if library.name == "cudnn" and library.selected and library.version:
            return _major_minor(library.version)
    for framework in report.facts.framework_libraries:
        for loaded in framework.libraries:
            if loaded.library.startswith("libcudnn.so") and loaded.owner:
                return _major_minor(loaded.owner.rsplit(" ", 1)[-1])
    return None


def _major_minor(version: str) -> str | None:
    parts = version.split(".")
    if len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    return f"{parts[0]}.{parts[1]}"


def checks(report: Report, smoke_asked: bool) -> tuple[Check, ...]:
    """Every check the doctor makes for this report, in a stable order, with its findings."""
    names = ["driver", "gpu-architecture"]
    names += [f"framework:{key}" for key in report.frameworks]
    names.append("cuda-libraries")
    names += [f"smoke-test:{key}" for key in report.frameworks]
    names += ["co-residency", "known-bugs", "probe"]
    by_check: dict[str, list[Finding]] = {}
    for finding in report.findings:
        by_check.setdefault(check_of(finding), []).append(finding)
    names += [name for name in by_check if name not in names]  # e.g. "other"
    result = []
    for name in names:
        why = ""
        if name in report.not_checked:
            why = "not checked: the --deadline passed first"
        elif name.startswith("smoke-test:") and not _smoke_ran(report, name):
            why = "not run (--no-smoke)" if not smoke_asked else "not run"
        result.append(Check(name, tuple(by_check.get(name, ())), not why, why))
    return tuple(result)


def _smoke_ran(report: Report, name: str) -> bool:
    key = name.split(":", 1)[1]
    return bool(report.smoke_tests and key in report.smoke_tests)


def framework_ready(report: Report, key: str) -> bool:
    """Whether framework `key` is installed and nothing stands in its way: no error finding
    about it or about the machine (the driver, a GPU), its smoke test (when it ran) passed, and
    the report has a verdict."""
    if key not in report.frameworks or report.not_checked:
        return False
    for finding in report.findings:
        if finding.severity is not Severity.ERROR:
            continue
        framework = finding.data.get("framework")
        if framework is None or framework == key:
            return False
    smoke = (report.smoke_tests or {}).get(key)
    return smoke is None or smoke.get("status") == "ok"


def key_facts(report: Report) -> dict[str, Any]:
    """The facts the verdict rests on, as JSON without paths, times or the node's name: two
    nodes set up alike have equal key facts (and so one fingerprint)."""
    facts = report.facts
    platform = facts.platform
    target = report.target
    frameworks = []
    loading = {f.framework: f for f in facts.framework_libraries}
    for framework in facts.frameworks:
        key = framework_of(framework.name)
        if key not in FRAMEWORKS:
            continue
        cuda = framework.build.get("cuda_version") or (
            loading[key].cuda if key in loading else None
        )
        frameworks.append(
            {
                "name": framework.name,
                "distribution": framework.distribution,
                "version": framework.version,
                "cuda": None if cuda is None else str(cuda),
            }
        )
    return {
        "os": platform.os,
        "arch": platform.arch,
        "wsl": platform.wsl,
        "container": platform.container,
        "container_toolkit": None
        if platform.container_toolkit is None
        else sorted(platform.container_toolkit),
        "python": ".".join(platform.python.split(".")[:2]),
        "driver": {
            "version": facts.driver.version,
            "cuda": facts.driver.cuda,
            "state": facts.driver.state,
        },
        "gpus": sorted(
            {(g.name or "", g.compute_capability or "") for g in facts.gpus}
        ),  # distinct models: a node with 4 of them is judged as one with 8
        "frameworks": sorted(frameworks, key=lambda f: (f["name"], f["version"])),
        "libraries": sorted(
            (lib.name, lib.version or "") for lib in facts.libraries if lib.selected
        ),
        "framework_libraries": sorted(
            (f.framework, lib.library, lib.owner or lib.cuda or "")
            for f in facts.framework_libraries
            for lib in f.libraries
            if lib.path
        ),
        "smoke_tests": sorted(
            (key, str(data.get("status"))) for key, data in (report.smoke_tests or {}).items()
        ),
        "target": None
        if target is None
        else {
            "driver": None if target.driver is None else str(target.driver),
            "compute_capabilities": sorted(str(c) for c in target.capabilities),
        },
        "findings": sorted((f.code, f.severity.value) for f in report.findings),
        "not_checked": sorted(report.not_checked),
    }
