"""`envcheck fleet plan`: will an image run on each group of nodes, and why not (issue 21, 6).

The image is described by the report its Docker build step wrote (`envcheck doctor --format
json` in the build: its frameworks, their CUDA and kernels, the build's findings); each group
of nodes by the key facts of its reports (merge.py). The questions, each answered ok, warn,
fail or unknown (a fact the reports do not carry is never guessed):

- driver: the doctor's own rule (diagnose/driver_rules.driver_version) with the group's driver
  as the target, as in a Docker build with --target-driver; when the driver is too old, whether
  CUDA forward compatibility could help (data-center GPUs only: envcheck/matrix/rules.py);
- gpu-architecture: the doctor's rule (gpu_architecture) with the group's GPUs as the target;
- platform: native Windows and macOS run no Linux GPU container;
- container-runtime: the NVIDIA Container Toolkit on the nodes (a probe fact), or proof that
  the doctor itself ran in a container that had the GPU;
- image: the build's own errors (a missing library, a CPU-only build) fail every group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from envcheck.bounded_input import TooDeepError, UnsuitableFileError, loads_json, read_regular_file
from envcheck.diagnose import driver_rules
from envcheck.diagnose.checks import check_of
from envcheck.diagnose.context import Context, Target
from envcheck.diagnose.verdict import VERDICTS, Verdict
from envcheck.errors import InputError
from envcheck.findings import CODES, Finding, Severity, current_code
from envcheck.fleet.merge import Fleet, Group
from envcheck.fleet.reader import SCHEMA, Apart
from envcheck.fleet.sources import REPORT_LIMIT
from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.model import Matrix
from envcheck.matrix.rules import Status, forward_compatibility
from envcheck.probe.facts import Facts, FactsFileError, facts_from_json
from envcheck.record import record
from envcheck.versions import ComputeCapability, DriverVersion

Outcome = Literal["ok", "warn", "fail", "unknown"]
_RANK: dict[Outcome, int] = {"fail": 0, "unknown": 1, "warn": 2, "ok": 3}
_VERDICT: dict[Outcome, Verdict] = {"fail": "fail", "unknown": "unknown", "warn": "warn",
                                    "ok": "pass"}  # fmt: skip
_MAX_DEPTH = 64


@record
class Reason:
    check: str  # driver | gpu-architecture | platform | container-runtime | image
    outcome: Outcome
    message: str
    fix: str = ""


@record
class GroupPlan:
    group: Group
    verdict: Verdict
    reasons: tuple[Reason, ...]


@record
class Image:
    source: str
    facts: Facts
    problems: tuple[Reason, ...]  # the build's own errors: they fail every group
    forward_compatible: bool  # the image carries NVIDIA's cuda-compat libcuda

    def describe(self) -> str:
        names = [f"{f.name} {f.version}" for f in self.facts.frameworks
                 if f.name in ("tensorflow", "torch", "jax")]  # fmt: skip
        return ", ".join(names) or "no framework"


@record
class Plan:
    image: Image
    groups: tuple[GroupPlan, ...]  # worst first
    apart: tuple[Apart, ...]
    reports: int

    @property
    def failing(self) -> bool:
        return any(g.verdict == "fail" for g in self.groups)


def read_image(path: str) -> Image:
    """The image's report (--image); InputError, naming it, when it is not a full doctor
    report with its facts."""
    try:
        data = loads_json(read_regular_file(path, REPORT_LIMIT).decode("utf-8-sig"), _MAX_DEPTH)
    except UnsuitableFileError as exc:
        raise InputError(f"--image {path!r} {exc}") from None
    except OSError as exc:
        raise InputError(f"--image {path!r} cannot be read: {exc.strerror or exc}") from None
    except (TooDeepError, ValueError) as exc:
        raise InputError(f"--image {path!r} is not a JSON report: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise InputError(
            f"--image {path!r} is not an {SCHEMA} report (write it with envcheck doctor "
            "--format json in the image's Docker build)"
        )
    try:
        facts = facts_from_json(data.get("facts"))
    except FactsFileError as exc:
        raise InputError(f"--image {path!r} has no usable facts: {exc}") from None
    findings = data.get("findings")
    problems = tuple(_image_problems(findings if isinstance(findings, list) else []))
    compat = any(
        "/compat/" in lib.path and lib.file.startswith("libcuda.so") for lib in facts.libraries
    )
    return Image(path, facts, problems, compat)


def _image_problems(findings: list[Any]) -> list[Reason]:
    """The build's error findings that no node can change (not the driver's, not the GPU's)."""
    problems = []
    for item in findings:
        if not isinstance(item, dict) or item.get("severity") != "error":
            continue
        code = current_code(str(item.get("code")))
        data = item.get("data")
        finding = Finding(
            code if code in CODES else "probe-incomplete", Severity.ERROR,
            str(item.get("message", "")), fix=str(item.get("fix", "")),
            data=data if isinstance(data, dict) else {},
        )  # fmt: skip
        if check_of(finding) not in ("driver", "gpu-architecture"):
            problems.append(Reason("image", "fail", f"{code}: {finding.message}", finding.fix))
    return problems


def plan(image: Image, fleet: Fleet, matrix: Matrix) -> Plan:
    index = GpuIndex.build(matrix.gpus)
    plans = [_group_plan(image, group, matrix, index) for group in fleet.groups]
    rank = {verdict: number for number, verdict in enumerate(VERDICTS)}
    plans.sort(key=lambda p: (rank[p.verdict], -len(p.group.nodes), p.group.hostlist))
    return Plan(image, tuple(plans), fleet.apart, fleet.reports)


def _group_plan(image: Image, group: Group, matrix: Matrix, index: GpuIndex) -> GroupPlan:
    facts = group.key_facts
    reasons = [_platform(facts)]
    if reasons[0].outcome != "fail":
        reasons.append(_runtime(facts))
    reasons += _driver_and_gpus(image, facts, matrix, index)
    reasons += image.problems
    worst = min((r.outcome for r in reasons), key=lambda outcome: _RANK[outcome])
    return GroupPlan(group, _VERDICT[worst], tuple(reasons))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _platform(facts: dict[str, Any]) -> Reason:
    system = facts.get("os")
    if system == "windows":
        return Reason(
            "platform", "fail",
            "native Windows: a Linux image's containers get no NVIDIA GPU there",
            "Run the containers in WSL2 (Docker Desktop's WSL2 back end, or a Linux "
            "distribution in WSL2 with the NVIDIA Container Toolkit).",
        )  # fmt: skip
    if system == "macos":
        return Reason("platform", "fail", "macOS: no NVIDIA GPU or CUDA for containers",
                      "Run the image on Linux nodes with NVIDIA GPUs.")  # fmt: skip
    if system in ("linux", "wsl"):
        return Reason("platform", "ok", f"{system} runs Linux containers with NVIDIA GPUs")
    return Reason("platform", "unknown", "the nodes' reports do not name their OS")


def _runtime(facts: dict[str, Any]) -> Reason:
    driver = _dict(facts.get("driver"))
    container = facts.get("container")
    if container and driver.get("state") == "ok" and facts.get("gpus"):
        return Reason(
            "container-runtime", "ok",
            f"the nodes' doctor ran in a {container} container that had the GPU",
        )  # fmt: skip
    toolkit = facts.get("container_toolkit")
    if isinstance(toolkit, list) and toolkit:
        found = ", ".join(map(str, toolkit))
        return Reason("container-runtime", "ok", f"NVIDIA Container Toolkit found: {found}")
    if isinstance(toolkit, list) and not container:
        return Reason(
            "container-runtime", "fail",
            "no NVIDIA Container Toolkit on these nodes (nvidia-container-runtime, nvidia-ctk, "
            "nvidia-container-cli, or a CDI spec under /etc/cdi)",
            "Install the NVIDIA Container Toolkit and set up the engine "
            "(nvidia-ctk runtime configure --runtime=docker, or nvidia-ctk cdi generate).",
        )  # fmt: skip
    return Reason(
        "container-runtime", "unknown",
        "the nodes' reports do not say whether a container can get the GPU (the doctor ran in "
        "a container without it, or the reports come from an envcheck that did not look)",
    )  # fmt: skip


def _target(
    facts: dict[str, Any], index: GpuIndex
) -> tuple[DriverVersion | None, list[tuple[str, ComputeCapability | None]]]:
    version = _dict(facts.get("driver")).get("version")
    try:
        driver = DriverVersion.parse(version) if isinstance(version, str) else None
    except InputError:
        driver = None
    gpus: list[tuple[str, ComputeCapability | None]] = []
    for item in facts.get("gpus") or []:
        if not isinstance(item, list) or len(item) != 2:
            continue
        name, text = str(item[0]), str(item[1])
        try:
            capability: ComputeCapability | None = ComputeCapability.parse(text)
        except InputError:
            capability = index.capability(name) if name else None
        gpus.append((name or "GPU", capability))
    return driver, gpus


def _driver_and_gpus(
    image: Image, facts: dict[str, Any], matrix: Matrix, index: GpuIndex
) -> list[Reason]:
    driver, gpus = _target(facts, index)
    state = _dict(facts.get("driver")).get("state")
    reasons = []
    if driver is None:
        if state in ("missing", "stub"):
            reasons.append(Reason("driver", "fail", "no NVIDIA driver on these nodes",
                                  "Install the NVIDIA driver on the nodes."))  # fmt: skip
        else:
            reasons.append(Reason("driver", "unknown", "the nodes' reports name no driver release"))
    known = [(name, c) for name, c in gpus if c is not None]
    if not known:
        unnamed = "the nodes' reports name no GPU with a compute capability"
        reasons.append(Reason("gpu-architecture", "unknown", unnamed))
    # The doctor's own rules, with the group as the Docker build's target machine.
    target = Target(driver, tuple(c for _, c in known), tuple(name for name, _ in known))
    context = Context(image.facts, matrix, target)
    findings = driver_rules.driver_version(context) if driver is not None else []
    architecture = driver_rules.gpu_architecture(context) if known else []
    for finding in findings:
        reasons.append(_driver_reason(finding, image, known, index))
    for finding in architecture:
        outcome: Outcome = "fail" if finding.severity is Severity.ERROR else "warn"
        reasons.append(Reason("gpu-architecture", outcome, finding.message, finding.fix))
    cudas = sorted({str(b.cuda) for b in context.builds if b.cuda and b.is_cuda_build is not False})
    if driver is not None and not findings:
        runs = f" runs CUDA {', '.join(cudas)}" if cudas else " (the image has no CUDA build)"
        reasons.append(Reason("driver", "ok", f"driver {driver}{runs}"))
    if known and not architecture:
        named = ", ".join(f"{name} (CC {c})" for name, c in known)
        reasons.append(Reason("gpu-architecture", "ok", f"the image's builds run on {named}"))
    return reasons


def _driver_reason(
    finding: Finding,
    image: Image,
    gpus: Sequence[tuple[str, ComputeCapability | None]],
    index: GpuIndex,
) -> Reason:
    """A driver finding; when the driver is too old, whether forward compatibility helps."""
    outcome: Outcome = "fail" if finding.severity is Severity.ERROR else "warn"
    if finding.code != "driver-too-old" or not gpus:
        return Reason("driver", outcome, finding.message, finding.fix)
    answers = [forward_compatibility(name, _segment(index, name)) for name, _ in gpus]
    if all(a.status is Status.OK for a in answers):
        if image.forward_compatible and outcome == "fail":
            return Reason(
                "driver", "warn",
                f"{finding.message} The image carries NVIDIA's cuda-compat libraries, which "
                "run it on these data-center GPUs (forward compatibility).",
                finding.fix,
            )  # fmt: skip
        compat = f"{finding.fix} Or add cuda-compat to the image: {answers[0].message}."
        return Reason("driver", outcome, finding.message, compat)
    worst = next(a for a in answers if a.status is not Status.OK)
    return Reason("driver", outcome, finding.message, f"{finding.fix} ({worst.message}.)")


def _segment(index: GpuIndex, name: str) -> str | None:
    try:
        return index.find(name).segment
    except InputError:
        return None
