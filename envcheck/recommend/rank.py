"""Rank every TensorFlow release for a described machine, with the reason for each rejection.

A release is a GPU candidate when every rule passes (status "compatible") or none fails but some
could not be decided (status "unverified", e.g. the GPU is unknown). When no release can use the
GPU, the releases that at least install become CPU-only candidates, each saying why not GPU.
Pure: takes a matrix and a machine description, returns data; printing is in envcheck.report.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from packaging.version import Version

from envcheck.matrix.advisories import KnownBug
from envcheck.matrix.model import Matrix, tensorflow_specifier
from envcheck.matrix.recipes import install_recipe
from envcheck.matrix.records import TensorflowRelease
from envcheck.matrix.rules import (
    Outcome,
    Status,
    driver_branch_supports_gpu,
    driver_knows_gpu,
    driver_supports_cuda,
    gpu_build_available,
    gpu_runs_build,
    platform_has_wheel,
    ptx_jit_needed,
    python_supported,
)
from envcheck.recommend.machine import GpuDescription, MachineDescription, recommend_command
from envcheck.record import record
from envcheck.versions import DriverVersion

CandidateStatus = Literal["compatible", "unverified", "cpu-only"]


@record
class Candidate:
    tensorflow: Version  # the exact version to install
    release: TensorflowRelease
    kind: str  # "gpu" or "cpu"
    status: CandidateStatus  # unverified: a GPU candidate some rule could not decide
    commands: tuple[str, ...]
    notes: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    needs_ptx_jit: bool
    # Its own install leaves the GPU unused until a known bug's workaround is applied
    # (KnownBug.breaks_gpu_install): ranked after the releases whose install works as it is.
    needs_workaround: bool = False

    @property
    def cuda(self) -> str | None:
        return str(self.release.cuda) if self.kind == "gpu" and self.release.cuda else None

    @property
    def cudnn(self) -> str | None:
        return str(self.release.cudnn) if self.kind == "gpu" and self.release.cudnn else None


@record
class Rejection:
    tensorflow: Version
    release: TensorflowRelease
    reasons: tuple[str, ...]  # one sentence per failed rule


@record
class Recommendation:
    machine: MachineDescription
    tensorflow_spec: str | None
    candidates: tuple[Candidate, ...]
    rejected: tuple[Rejection, ...]
    advice: tuple[str, ...] = ()

    @property
    def has_gpu_candidate(self) -> bool:
        return any(c.kind == "gpu" and c.status == "compatible" for c in self.candidates)


def _pinned_version(release: TensorflowRelease, spec: str | None) -> Version:
    if spec is None:
        return release.latest
    specifier = tensorflow_specifier(spec)
    return max(v for v in release.versions if v in specifier)


def _one_gpu(
    matrix: Matrix, release: TensorflowRelease, machine: MachineDescription, gpu: GpuDescription
) -> Outcome:
    """Can this GPU run this build, and does the driver know the GPU at all?"""
    runs = gpu_runs_build(gpu.compute_capability, release.sass, release.ptx, release.mlir_sass)
    if not runs.ok or gpu.compute_capability is None or machine.driver is None:
        return runs
    for outcome in (
        driver_branch_supports_gpu(matrix, gpu.compute_capability, machine.driver),
        driver_knows_gpu(matrix, gpu.compute_capability, machine.driver, machine.os),
    ):
        if outcome.status is Status.INCOMPATIBLE:
            return outcome
    return runs


def _gpu_outcome(
    matrix: Matrix, release: TensorflowRelease, machine: MachineDescription
) -> Outcome:
    """The GPU rule over every GPU of the machine: usable when at least one GPU can run it."""
    if not machine.gpus:
        return Outcome(
            "gpu",
            Status.UNKNOWN,
            "the GPU is unknown; pass --gpu NAME or --compute-capability X.Y to check it",
        )
    outcomes = [_one_gpu(matrix, release, machine, gpu) for gpu in machine.gpus]
    usable = [o for o in outcomes if o.ok]
    if not usable:
        if any(o.status is Status.UNKNOWN for o in outcomes):
            return Outcome("gpu", Status.UNKNOWN, outcomes[0].message)
        return outcomes[0]
    notes = [n for o in usable for n in o.notes]
    for gpu, outcome in zip(machine.gpus, outcomes):
        if outcome.status is Status.INCOMPATIBLE:
            notes.append(f"{gpu.name or 'a GPU'} will be ignored: {outcome.message}")
    return Outcome("gpu", Status.OK, usable[0].message, tuple(dict.fromkeys(notes)))


def _needs_full_jit(outcome: Outcome) -> bool:
    return outcome.rule == "gpu" and outcome.ok and outcome.message.startswith("no native kernels")


def _driver_outcome(
    matrix: Matrix, release: TensorflowRelease, machine: MachineDescription, needs_jit: bool
) -> Outcome:
    if release.cuda is None:
        return Outcome("driver", Status.INCOMPATIBLE, "this release has no GPU build")
    if machine.driver is None and machine.found_via.get("driver") != "ENVCHECK_DRIVER_VERSION":
        return Outcome("driver", Status.INCOMPATIBLE, machine.without_driver_reason())
    return driver_supports_cuda(matrix, release.cuda, machine.driver, machine.os, needs_jit)


def _gpu_rules(
    matrix: Matrix, release: TensorflowRelease, machine: MachineDescription
) -> list[Outcome]:
    available = gpu_build_available(release, machine.os, machine.arch)
    if not available.ok:
        return [available]
    gpu = _gpu_outcome(matrix, release, machine)
    jit = any(
        ptx_jit_needed(g.compute_capability, release.sass, release.ptx, release.mlir_sass)
        for g in machine.gpus
    )
    return [available, _driver_outcome(matrix, release, machine, jit), gpu]


def gpu_commands(release: TensorflowRelease, version: Version, os_name: str) -> tuple[str, ...]:
    """How to install this GPU build on `os_name` (envcheck/matrix/recipes.py)."""
    recipe = install_recipe(release, version, os_name, gpu=True)
    return (recipe.pip_command(), *recipe.outside_pip)


def cpu_commands(release: TensorflowRelease, version: Version) -> tuple[str, ...]:
    return (install_recipe(release, version, "linux", gpu=False).pip_command(),)


def _sort_key(candidate: Candidate) -> tuple[int, int, Version]:
    status_rank = {"compatible": 0, "unverified": 1, "cpu-only": 2}[candidate.status]
    # Newest first, but a build with native kernels for the GPU beats one that needs PTX JIT.
    return (status_rank, int(candidate.needs_ptx_jit), _negate(candidate.tensorflow))


def _ranked(candidates: list[Candidate]) -> list[Candidate]:
    """Best first; a release whose install needs a known bug's workaround right after the next
    one whose install works as it is (2.21.0 after 2.20.0, not after 2.12)."""
    ranked: list[Candidate] = []
    waiting: list[Candidate] = []
    for candidate in sorted(candidates, key=_sort_key):
        if candidate.needs_workaround:
            waiting.append(candidate)
            continue
        ranked.append(candidate)
        ranked += waiting
        waiting = []
    return ranked + waiting


def _negate(version: Version) -> Version:
    # Sorting ascending on a key that must run newest-first: invert each release number.
    return Version(".".join(str(10_000 - part) for part in version.release))


@record
class _Evaluation:
    release: TensorflowRelease
    version: Version
    install: tuple[Outcome, ...]
    gpu: tuple[Outcome, ...]

    def failed(self, outcomes: tuple[Outcome, ...]) -> list[Outcome]:
        return [o for o in outcomes if o.status is Status.INCOMPATIBLE]

    @property
    def failed_rules(self) -> set[str]:
        return {o.rule for o in self.failed((*self.install, *self.gpu))}


def _evaluate(matrix: Matrix, machine: MachineDescription, spec: str | None) -> list[_Evaluation]:
    return [
        _Evaluation(
            release,
            _pinned_version(release, spec),
            (
                python_supported(release, machine.python),
                platform_has_wheel(release, machine.platform),
            ),
            tuple(_gpu_rules(matrix, release, machine)) if release.has_gpu_build else (),
        )
        for release in matrix.releases_matching(spec)
    ]


def _gpu_bugs(matrix: Matrix) -> tuple[KnownBug, ...]:
    """The known bugs tied to GPU hardware (min_compute_capability): they decide whether a
    release really runs on the machine's GPU, so recommend weighs them as the doctor does."""
    return tuple(b for b in matrix.known_bugs if b.min_compute_capability is not None)


def _candidate(
    evaluation: _Evaluation,
    machine: MachineDescription,
    bugs: tuple[KnownBug, ...] = (),
    install_bugs: tuple[KnownBug, ...] = (),
) -> Candidate | None:
    """A GPU or CPU-only candidate, or None when the release does not even install here."""
    if evaluation.failed(evaluation.install):
        return None
    release, version, gpu_rules = evaluation.release, evaluation.version, evaluation.gpu
    failed_gpu = [o.message for o in evaluation.failed(gpu_rules)]
    outcomes = (*evaluation.install, *gpu_rules)
    if gpu_rules and not failed_gpu:
        unknown = [o.message for o in gpu_rules if o.status is Status.UNKNOWN]
        gpu_outcome = next(o for o in gpu_rules if o.rule == "gpu")  # the per-GPU summary
        notes = [n for o in gpu_rules for n in o.notes]
        capabilities = [g.compute_capability for g in machine.gpus if g.compute_capability]
        hit = [b for b in bugs if b.affects(version, machine.os, None, capabilities)]
        unknown += [f"known bug: {b.title} ({b.url}). {b.workaround}" for b in hit]
        gaps = [
            b
            for b in install_bugs
            if b.affects(version, machine.os, None, capabilities, cuda_build=True)
        ]
        notes = [
            *(
                f"ranked after the releases whose install works as it is: {b.title}. {b.workaround}"
                for b in gaps
            ),
            *notes,
        ]
        return Candidate(
            tensorflow=version,
            release=release,
            kind="gpu",
            status="unverified" if unknown else "compatible",
            commands=gpu_commands(release, version, machine.os),
            notes=tuple(dict.fromkeys([*unknown, *notes, *release.notes])),
            outcomes=outcomes,
            needs_ptx_jit=_needs_full_jit(gpu_outcome),
            needs_workaround=bool(gaps),
        )
    why_not_gpu = failed_gpu or ["this release has no GPU build"]
    return Candidate(
        tensorflow=version,
        release=release,
        kind="cpu",
        status="cpu-only",
        commands=cpu_commands(release, version),
        notes=tuple(f"no GPU: {reason}" for reason in why_not_gpu),
        outcomes=outcomes,
        needs_ptx_jit=False,
    )


def _driver_advice(
    matrix: Matrix,
    machine: MachineDescription,
    evaluations: list[_Evaluation],
    best_gpu: Version | None,
) -> str | None:
    """The newest release a driver update alone would unlock, with the oldest driver that does.

    Tries every driver number the matrix knows for this OS, oldest first, re-running the GPU
    rules, and never suggests a driver NVIDIA does not ship for this GPU's architecture.
    """
    current = machine.driver
    if current is None and not machine.gpus:
        return None  # no driver and no GPU described: nothing says a GPU is there to drive
    blocked = [
        e
        for e in evaluations
        if e.failed_rules
        and e.failed_rules <= {"driver", "gpu", "gpu-driver"}
        and (best_gpu is None or e.version > best_gpu)
    ]
    windows = machine.os in ("windows", "wsl")
    known: set[DriverVersion | None] = {
        t.windows_driver if windows else t.linux_driver for t in matrix.toolkits
    } | {f.windows_driver if windows else f.linux_driver for f in matrix.families}
    drivers = sorted(d for d in known if d is not None)
    capabilities = [g.compute_capability for g in machine.gpus if g.compute_capability]
    for evaluation in sorted(blocked, key=lambda e: e.version, reverse=True):
        for driver in drivers:
            if current is not None and driver <= current:
                continue
            if capabilities and not any(matrix.driver_available(c, driver) for c in capabilities):
                break
            trial = replace(machine, driver=driver)
            rules = _gpu_rules(matrix, evaluation.release, trial)
            if all(o.status is not Status.INCOMPATIBLE for o in rules):
                change = (
                    f"Installing the NVIDIA driver {driver} or newer"
                    if current is None
                    else f"Updating the NVIDIA driver to {driver} or newer (now {current})"
                )
                return (
                    f"{change} would allow TensorFlow {evaluation.version} with CUDA "
                    f"{evaluation.release.cuda}."
                )
    return None


def _advice(
    matrix: Matrix,
    machine: MachineDescription,
    evaluations: list[_Evaluation],
    best: Candidate | None,
    spec: str | None,
) -> tuple[str, ...]:
    """What one change to the machine would buy: another Python, a newer driver, WSL2."""
    best_gpu = best.tensorflow if best is not None and best.kind == "gpu" else None
    advice = []

    def newest_blocked_only_by(rule: str) -> _Evaluation | None:
        blocked = [e for e in evaluations if e.failed_rules == {rule}]
        blocked = [e for e in blocked if best_gpu is None or e.version > best_gpu]
        return max(blocked, key=lambda e: e.version, default=None)

    by_python = newest_blocked_only_by("python")
    if by_python is not None and by_python.release.python:
        python = by_python.release.python[-1]
        advice.append(
            f"With Python {python} instead of {machine.python}, TensorFlow {by_python.version} "
            f"would use the GPU (it supports Python {by_python.release.python[0]}-{python})."
        )
    by_driver = _driver_advice(matrix, machine, evaluations, best_gpu)
    if by_driver:
        advice.append(by_driver)
    if machine.os == "windows" and machine.arch == "x86_64":
        wsl = recommend(matrix, replace(machine, os="wsl"), spec, with_advice=False)
        top = wsl.candidates[0] if wsl.candidates else None
        if (
            top is not None
            and top.kind == "gpu"
            and (best_gpu is None or top.tensorflow > best_gpu)
        ):
            advice.append(
                f"In WSL2 on this machine, TensorFlow {top.tensorflow} can use the GPU "
                f"({top.status}): inside WSL2 run {top.commands[0]} "
                f"(`{recommend_command(replace(machine, os='wsl'))}` shows the details)."
            )
    return tuple(advice)


def recommend(
    matrix: Matrix,
    machine: MachineDescription,
    tensorflow_spec: str | None = None,
    with_advice: bool = True,
) -> Recommendation:
    evaluations = _evaluate(matrix, machine, tensorflow_spec)
    bugs = _gpu_bugs(matrix) if machine.gpus else ()
    install_bugs = tuple(b for b in matrix.known_bugs if b.breaks_gpu_install)
    gpu_candidates: list[Candidate] = []
    cpu_candidates: list[Candidate] = []
    rejected: list[Rejection] = []
    for evaluation in evaluations:
        candidate = _candidate(evaluation, machine, bugs, install_bugs)
        if candidate is None:
            reasons = [o.message for o in evaluation.failed((*evaluation.install, *evaluation.gpu))]
            rejected.append(Rejection(evaluation.version, evaluation.release, tuple(reasons)))
        elif candidate.kind == "gpu":
            gpu_candidates.append(candidate)
        else:
            cpu_candidates.append(candidate)
    if gpu_candidates:
        candidates = _ranked(gpu_candidates)
        # With a GPU choice on the table, releases that would run on the CPU only are rejected.
        rejected.extend(
            Rejection(c.tensorflow, c.release, tuple(n.removeprefix("no GPU: ") for n in c.notes))
            for c in cpu_candidates
        )
    else:
        candidates = sorted(cpu_candidates, key=_sort_key)
    rejected.sort(key=lambda r: r.tensorflow, reverse=True)
    best = candidates[0] if candidates else None
    advice = _advice(matrix, machine, evaluations, best, tensorflow_spec) if with_advice else ()
    return Recommendation(machine, tensorflow_spec, tuple(candidates), tuple(rejected), advice)
