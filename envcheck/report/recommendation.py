"""Render a Recommendation as JSON-ready data or as text for a terminal. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from envcheck.recommend.frameworks import FrameworkRecommendation
from envcheck.recommend.machine import MachineDescription, recommend_command
from envcheck.recommend.rank import Candidate, Recommendation
from envcheck.report.terminal_text import shown_lines

SCHEMA = "envcheck.recommend/1"
TEXT_CANDIDATES = 3  # the text report details the best few; --json has them all


def machine_dict(recommendation: Recommendation) -> dict[str, Any]:
    return _machine_of(recommendation.machine)


def _machine_of(machine: MachineDescription) -> dict[str, Any]:
    return {
        "os": machine.os,
        "arch": machine.arch,
        "python": str(machine.python),
        "driver": str(machine.driver) if machine.driver is not None else None,
        "gpus": [
            {
                "name": gpu.name,
                "compute_capability": str(gpu.compute_capability)
                if gpu.compute_capability is not None
                else None,
            }
            for gpu in machine.gpus
        ],
        "found_via": dict(machine.found_via),
    }


def _candidate_dict(candidate: Candidate) -> dict[str, Any]:
    return {
        "tensorflow": str(candidate.tensorflow),
        "cuda": candidate.cuda,
        "cudnn": candidate.cudnn,
        "python": [str(p) for p in candidate.release.python],
        "commands": list(candidate.commands),
        "notes": list(candidate.notes),
        "status": candidate.status,
    }


def to_json(recommendation: Recommendation) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "machine": machine_dict(recommendation),
        "tensorflow_spec": recommendation.tensorflow_spec,
        "candidates": [_candidate_dict(c) for c in recommendation.candidates],
        "rejected": [
            {"tensorflow": str(r.tensorflow), "reasons": list(r.reasons)}
            for r in recommendation.rejected
        ],
        "advice": list(recommendation.advice),
    }


def _describe_machine(recommendation: Recommendation) -> str:
    return _machine_line(recommendation.machine)


def _machine_line(machine: MachineDescription) -> str:
    gpus = (
        ", ".join(f"{g.name or 'GPU'} (CC {g.compute_capability or '?'})" for g in machine.gpus)
        or "GPU unknown"
    )
    driver = f"driver {machine.driver}" if machine.driver is not None else "no NVIDIA driver"
    if machine.no_nvidia_gpu:
        driver, gpus = "no NVIDIA GPU", "no driver needed"
    return f"{machine.os} {machine.arch}, Python {machine.python}, {driver}, {gpus}"


def _shared_by_all(groups: Sequence[Sequence[str]]) -> list[str]:
    """The lines every one of several groups holds, in the first group's order; none for one
    group (a line said once already)."""
    if len(groups) < 2:
        return []
    return [line for line in groups[0] if all(line in other for other in groups[1:])]


def to_text(
    recommendation: Recommendation, show_all: bool = False, show_rejected: bool = True
) -> str:
    lines = [f"Machine: {_describe_machine(recommendation)}"]
    if recommendation.tensorflow_spec:
        lines.append(f"TensorFlow asked for: {recommendation.tensorflow_spec}")
    lines.append("")
    candidates = recommendation.candidates
    if recommendation.has_gpu_candidate:
        lines.append("TensorFlow releases that can use the GPU here, best first:")
    elif any(c.kind == "gpu" for c in candidates):
        lines.append(
            "No release is confirmed to use the GPU; these may, once the unknowns are known:"
        )
    elif candidates:
        lines.append(
            "No TensorFlow release can use an NVIDIA GPU on this machine. CPU-only choices:"
        )
    else:
        lines.append("No TensorFlow release installs on this machine.")
    shown = candidates if show_all else candidates[:TEXT_CANDIDATES]
    # A note every listed choice carries (no driver found, say) is said once, not per choice.
    common = _shared_by_all([c.notes for c in shown])
    lines.extend(f"  (all of them) {note}" for note in common)
    for index, candidate in enumerate(shown, start=1):
        stack = (
            f"CUDA {candidate.cuda}, cuDNN {candidate.cudnn}"
            if candidate.kind == "gpu"
            else "CPU only"
        )
        lines.append(f"  {index}. TensorFlow {candidate.tensorflow}  ({stack}; {candidate.status})")
        lines.extend(f"       $ {command}" for command in candidate.commands)
        lines.extend(f"       - {note}" for note in candidate.notes if note not in common)
    hidden = len(candidates) - len(shown)
    spec = (
        (f"--tensorflow '{recommendation.tensorflow_spec}'",)
        if recommendation.tensorflow_spec
        else ()
    )
    if hidden > 0:
        again = recommend_command(recommendation.machine, *spec, "--all")
        lines.append(f"  ... and {hidden} more (`{again}` lists them)")
    if recommendation.advice:
        lines.append("")
        lines.append("What would change the answer:")
        lines.extend(f"  - {item}" for item in recommendation.advice)
    if recommendation.rejected and not show_rejected:
        lines.append("")
        again = recommend_command(recommendation.machine, *spec)
        lines.append(f"({len(recommendation.rejected)} releases rejected: `{again}` says why)")
    elif recommendation.rejected:
        lines.append("")
        lines.append("Rejected:")
        rejected = recommendation.rejected
        shared = _shared_by_all([r.reasons for r in rejected])
        lines.extend(f"  (all of them) {reason}" for reason in shared)
        for rejection in rejected:
            own = [r for r in rejection.reasons if r not in shared]
            lines.append(f"  TensorFlow {rejection.tensorflow}: {'; '.join(own) or 'as above'}")
    return shown_lines("\n".join(lines)) + "\n"


FRAMEWORK_SCHEMA = "envcheck.recommend-framework/1"


def framework_to_json(result: FrameworkRecommendation) -> dict[str, Any]:
    return {
        "schema": FRAMEWORK_SCHEMA,
        "framework": result.framework,
        "machine": _machine_of(result.machine),
        "spec": result.spec,
        "candidates": [
            {
                "version": str(c.version),
                "build": c.build,
                "cuda": c.cuda,
                "kind": c.kind,
                "status": c.status,
                "commands": list(c.commands),
                "notes": list(c.notes),
            }
            for c in result.candidates
        ],
        "rejected": [
            {"version": str(r.version), "build": r.build, "reasons": list(r.reasons)}
            for r in result.rejected
        ],
    }


def framework_to_text(
    result: FrameworkRecommendation, show_all: bool = False, show_rejected: bool = True
) -> str:
    name = result.display_name
    lines = [f"Machine: {_machine_line(result.machine)}"]
    if result.spec:
        lines.append(f"{name} asked for: {result.spec}")
    lines.append("")
    candidates = result.candidates
    if result.has_gpu_candidate:
        lines.append(f"{name} builds that can use the GPU here, best first:")
    elif any(c.kind == "gpu" for c in candidates):
        lines.append(
            "No build is confirmed to use the GPU; these may, once the unknowns are known:"
        )
    elif candidates:
        lines.append(f"No {name} build can use an NVIDIA GPU on this machine. CPU-only choices:")
    else:
        lines.append(f"No {name} build installs on this machine.")
    shown = candidates if show_all else candidates[:TEXT_CANDIDATES]
    common = _shared_by_all([c.notes for c in shown])
    lines.extend(f"  (all of them) {note}" for note in common)
    for index, candidate in enumerate(shown, start=1):
        stack = f"CUDA {candidate.cuda}" if candidate.cuda else "CPU only"
        lines.append(
            f"  {index}. {name} {candidate.version} {candidate.build}  ({stack}; "
            f"{candidate.status})"
        )
        lines.extend(f"       $ {command}" for command in candidate.commands)
        lines.extend(f"       - {note}" for note in candidate.notes if note not in common)
    hidden = len(candidates) - len(shown)
    spec = (f"--framework-version '{result.spec}'",) if result.spec else ()
    if hidden > 0:
        again = recommend_command(result.machine, *spec, "--all", framework=result.framework)
        lines.append(f"  ... and {hidden} more (`{again}` lists them)")
    if result.rejected and not show_rejected:
        lines.append("")
        again = recommend_command(result.machine, *spec, framework=result.framework)
        lines.append(f"  ({len(result.rejected)} builds rejected: `{again}` says why)")
    elif result.rejected:
        lines.append("")
        lines.append("Rejected:")
        shared = _shared_by_all([r.reasons for r in result.rejected])
        lines.extend(f"  (all of them) {reason}" for reason in shared)
        for rejection in result.rejected:
            own = [r for r in rejection.reasons if r not in shared]
            lines.append(
                f"  {name} {rejection.version} {rejection.build}: {'; '.join(own) or 'as above'}"
            )
    return shown_lines("\n".join(lines)) + "\n"
