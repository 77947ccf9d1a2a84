"""`envcheck install`'s output for a terminal: the plan, the installer's dry-run check against
it, and what changed. Pure functions of the results."""

from __future__ import annotations

from collections.abc import Sequence

from envcheck.acquire.install_plan import Action, InstallPlan
from envcheck.acquire.install_run import Change, DryRun, plan_mismatches
from envcheck.framework_names import label
from envcheck.recommend.machine import MachineDescription
from envcheck.recommend.rank import Candidate
from envcheck.report.terminal_text import shown, shown_lines
from envcheck.urls import secret_masker


def _machine_line(machine: MachineDescription) -> str:
    driver = (
        f"driver {machine.driver} (via {machine.found_via.get('driver', '?')})"
        if machine.driver is not None
        else "no NVIDIA driver found"
    )
    return f"{machine.os} {machine.arch}, Python {machine.python}, {driver}"


def build_line(plan: InstallPlan) -> str:
    """'TensorFlow 2.15.1: GPU build (...)', 'PyTorch 2.14.1 cu130: GPU build (...), CUDA 13.0'."""
    candidate = plan.candidate
    if isinstance(candidate, Candidate):
        build = (
            f"GPU build ({candidate.status}), CUDA {candidate.cuda}, cuDNN {candidate.cudnn}"
            if candidate.kind == "gpu"
            else "CPU only"
        )
        return f"TensorFlow {candidate.tensorflow}: {build}"
    build = (
        f"GPU build ({candidate.status}), CUDA {candidate.cuda}"
        if candidate.kind == "gpu"
        else "CPU only"
    )
    return f"{label(plan.framework)} {candidate.version} {candidate.build}: {build}"


def plan_text(plan: InstallPlan) -> str:
    """The plan for a terminal (pure)."""
    candidate = plan.candidate
    lines = [
        f"Target: {plan.target.path} (Python {plan.target.python}, prefix {plan.target.prefix})",
        f"Machine: {_machine_line(plan.machine)}",
        build_line(plan),
        "Requirements: " + " ".join(plan.requirements),
    ]
    if plan.recipe is not None:
        # The command recommend prints for the same build: install runs exactly this.
        # (with the index URL's credentials masked, as everywhere else)
        lines.append("Command: " + secret_masker(urls=(plan.index_url,))(plan.recipe.pip_command()))
    lines.append("Packages:")
    width = max(len(p.name) for p in plan.packages)
    spec_width = max(len(p.specifier) for p in plan.packages)
    for package in plan.packages:
        now = f"installed {package.installed}" if package.installed else "not installed"
        if package.action is Action.UNKNOWN:
            now = "installed version unknown"
        lines.append(
            f"  {package.name:<{width}}  {package.specifier:<{spec_width}}  "
            f"{package.action.value:<7}  {now}; via {package.via}"
        )
    if plan.replaced:
        lines.append(
            "Will replace: "
            + ", ".join(f"{p.name} {p.installed} ({p.specifier})" for p in plan.replaced)
        )
    if plan.manual_steps and isinstance(candidate, Candidate):
        lines.append(
            f"Manual steps: TensorFlow {candidate.tensorflow} finds CUDA {candidate.cuda} and "
            f"cuDNN {candidate.cudnn} outside pip; install them yourself, e.g.:"
        )
        lines += [f"  {step}" for step in plan.manual_steps]
    if plan.notes:
        lines.append("Notes:")
        lines += [f"  - {note}" for note in plan.notes]
    return shown_lines("\n".join(lines)) + "\n"


def dry_run_text(plan: InstallPlan, check: DryRun, label: str) -> str:
    """What the check found, against the plan (pure)."""
    if not check.checked:
        return f"Check: {check.note}\n"
    if not check.ok:
        return f"Check ({label} install --dry-run): failed; its error follows on stderr\n"
    installed = plan.target.distributions or {}
    lines = [f"Check ({label} install --dry-run): would install {len(check.packages)} package(s)"]
    for package in check.packages:
        now = installed.get(package.name)
        change = f" (replaces {now})" if now is not None and now != package.version else ""
        lines.append(f"  + {package.name} {package.version}{change}")
    if not check.packages:
        lines.append("  (everything is installed already)")
    lines += [f"  ! {problem}" for problem in plan_mismatches(plan, check.packages)]
    return shown_lines("\n".join(lines)) + "\n"


def changes_text(changes: Sequence[Change]) -> str:
    if not changes:
        return "Installed: nothing changed (everything was installed already).\n"
    return "Installed:\n" + "".join(f"  {shown(c.describe())}\n" for c in changes)
