"""framework-conflict from the static loader model: which copy PyTorch and JAX get, without a child.

`doctor --no-smoke` imports no framework, so loaded_copies_rules.py has no measured maps to judge.
The probe's static loader model (probe/framework_loading.py, Facts.framework_libraries) says,
from the installed files, which file each library PyTorch or JAX links resolves to. This judges
those the way loaded_copies_rules judges real maps (the same libraries: `judged`): a finding when
a framework gets a copy built for another CUDA major than its own, or a copy owned by another
distribution than the one it pins for that library (in its metadata, as coresidency_rules reads
it). The fix is the same as theirs: separate virtual environments, with the commands.

One finding per cause: a copy whose file is an overwritten one (two wheels wrote it) is left to
coresidency_rules' overwrite finding, which already names the framework that runs on it; and
where the children did run, their measured maps win (diagnose drops these findings for the
frameworks they measured). Reads the facts only.
"""

from __future__ import annotations

from envcheck.diagnose.context import Context
from envcheck.diagnose.coresidency_rules import CODE, overwritten_paths, venv_fix
from envcheck.diagnose.loaded_copies_rules import FIX, judged
from envcheck.diagnose.pins import Pin
from envcheck.distribution_names import canonical_name
from envcheck.findings import Finding, Severity
from envcheck.framework_names import label
from envcheck.probe.facts import FrameworkLibraryFacts, FrameworkLoadingFacts

FOUND_BY = "static loader model"


def _name(distribution: str) -> str:
    """'nvidia-cudnn-cu12 9.28.0.42' -> 'nvidia-cudnn-cu12' (canonical)."""
    return canonical_name(distribution.split(" ", 1)[0])


def static_copy_findings(context: Context) -> list[Finding]:
    facts = context.facts
    if not facts.framework_libraries:
        return []
    all_pins = context.pins
    overwritten = overwritten_paths(facts)
    findings = []
    for loading in facts.framework_libraries:
        if context.framework not in (None, loading.framework):
            continue
        for library in loading.libraries:
            if library.path is None or not library.wanted_by or library.path in overwritten:
                continue
            finding = _finding(context, loading, library, all_pins)
            if finding is not None:
                findings.append(finding)
    return findings


def _finding(
    context: Context,
    loading: FrameworkLoadingFacts,
    library: FrameworkLibraryFacts,
    all_pins: dict[str, list[Pin]],
) -> Finding | None:
    key, path = loading.framework, library.path or ""
    own = (
        [p for p in all_pins.get(_name(library.owner), []) if p.key == key] if library.owner else []
    )
    # The distributions this framework pins that install a file of this name (torch pins
    # nvidia-curand through cuda-toolkit[curand]; nvidia-curand-cu12 writes the same name).
    pinned = sorted(
        {
            _name(p)
            for p in library.providers
            if any(q.key == key for q in all_pins.get(_name(p), []))
        }
    )
    wrong_major = (
        judged(library.library, loading.cuda)
        and library.cuda is not None
        and library.cuda != loading.cuda
    )
    unpinned = bool(pinned) and library.owner is not None and not own
    if not (wrong_major or unpinned):
        return None
    who = f"{label(key)} {loading.version}"
    owner = f" ({library.owner})" if library.owner else ""
    if wrong_major:
        message = (
            f"{who} (built for CUDA {loading.cuda}) gets the CUDA {library.cuda} build of "
            f"{library.library}{owner}: {path}"
        )
    else:
        message = f"{who} gets {library.library} from {library.owner}: {path}"
    if unpinned:
        message += f", not from {' or '.join(pinned)}, which it pins"
    message += "."
    holders = sorted({p.key for p in all_pins.get(_name(library.owner or ""), [])} - {key})
    involved = sorted({key, *holders})
    requirements = [
        p.text()
        for name in dict.fromkeys([*pinned, _name(library.owner or "")])
        for p in all_pins.get(name, [])
    ]
    evidence = (
        f"{FOUND_BY} (no child imported {label(key)}): {library.how}",
        f"linked by {', '.join(library.wanted_by)}",
        *requirements,
    )
    return Finding(
        CODE,
        # As for a measured copy: without a GPU nothing here proves the other build fails.
        Severity.WARNING,
        message,
        evidence,
        f"{FIX} {venv_fix(context, involved)}",
        data={
            "framework": key,
            "frameworks": involved,
            "library": library.library,
            "copies": {FOUND_BY: {key: path}},
            "built_for_cuda": {key: loading.cuda},
            "copy_cuda": {path: library.cuda},
            "order_dependent": False,
            "installed": library.owner,
            "pinned": pinned,
            "requirements": requirements,
            "found_by": FOUND_BY,
        },
    )
