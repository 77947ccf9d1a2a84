"""Findings from the import-order probe: which copy of a CUDA library each framework really gets.

Judges probe/import_order.py's ImportOrderFacts; runs nothing and reads no file. framework-conflict
when a framework gets the build of a library made for another CUDA major than its own (PyTorch
built for CUDA 13 mapping nvidia-cudnn-cu12's libcudnn.so.9, which nvidia-cudnn-cu13 also
installs to nvidia/cudnn/lib: the last wheel installed wins the file), or when which copy it gets
depends on the import order; the evidence is the table of order -> path per framework. An order
whose child crashed or hung is a smoke-test-crashed / smoke-test-timeout finding naming it.
Severity is a warning for a copy: without a GPU nothing here proves the other build fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from envcheck.findings import Finding, Severity
from envcheck.framework_names import label

if TYPE_CHECKING:  # only its types: explain and `doctor --no-smoke` run no import order
    from envcheck.probe.import_order import ImportOrderFacts, OrderRun

# Sonames that NVIDIA's CUDA 12 and CUDA 13 wheels share: which build a process has is told by
# who wrote the file, not by the name (the file lists of nvidia-*-cu12 and the CUDA 13 wheels
# under nvidia/cu13/lib, nvidia/cudnn/lib, nvidia/nccl/lib, as installed in a venv).
SHARED_SONAMES = frozenset(
    {
        "libcudnn.so.9",
        "libnccl.so.2",
        "libcurand.so.10",
        "libcusparse.so.12",
        "libcusparseLt.so.0",
        "libnvshmem_host.so.3",
        "libcufile.so.0",
    }
)
# Sonames that name their CUDA major: a framework built for that major asks for these names, so
# a copy of one of them is judged for it; another major's (libcudart.so.12 for a CUDA 13 torch,
# which torch's __init__ preloads from nvidia/cuda_runtime/lib when it finds it) is not asked for.
MAJOR_SONAMES = {
    "12": frozenset(
        {"libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12", "libcufft.so.11",
         "libcusolver.so.11", "libnvrtc.so.12", "libnvJitLink.so.12", "libcupti.so.12"}
    ),
    "13": frozenset(
        {"libcudart.so.13", "libcublas.so.13", "libcublasLt.so.13", "libcufft.so.12",
         "libcusolver.so.12", "libnvrtc.so.13", "libnvJitLink.so.13", "libcupti.so.13"}
    ),
}  # fmt: skip
FIX = (
    "Keep each framework in a virtual environment of its own: CUDA 12 and CUDA 13 wheels in one "
    "environment install libraries under the same names in site-packages/nvidia/ (some into "
    "the very same files), and in one process the first copy of a library loaded is the one "
    "every framework gets."
)


def _title(name: str) -> str:
    return label(name)


def judged(library: str, major: str | None) -> bool:
    return major is not None and (
        library in SHARED_SONAMES or library in MAJOR_SONAMES.get(major, frozenset())
    )


def loaded_copy_findings(facts: ImportOrderFacts) -> list[Finding]:
    findings = _failed_orders(facts.runs)
    libraries = dict.fromkeys(c.library for run in facts.runs for c in run.copies)
    majors = {
        name: next(
            (run.framework_cuda(name) for run in facts.runs if run.framework_cuda(name)), None
        )
        for name in facts.frameworks
    }
    for library in libraries:
        finding = _library_finding(facts, library, majors)
        if finding is not None:
            findings.append(finding)
    return findings


def _library_finding(
    facts: ImportOrderFacts, library: str, majors: dict[str, str | None]
) -> Finding | None:
    table: dict[str, dict[str, str]] = {}  # order -> framework -> path
    gets: dict[str, set[str]] = {}
    for run in facts.runs:
        for step in run.imports:
            if step.status != "ok" or not judged(library, majors.get(step.framework)):
                continue
            path = run.copy_for(library, step.framework)
            if path is not None:
                table.setdefault(run.label(), {})[step.framework] = path
                gets.setdefault(step.framework, set()).add(path)
    wrong: list[tuple[str, str, str]] = []  # (framework, path, the copy's CUDA major)
    for framework, paths in gets.items():
        for path in sorted(paths):
            owner = facts.owner(path)
            if owner is not None and owner.cuda and owner.cuda != majors.get(framework):
                wrong.append((framework, path, owner.cuda))
    varying = sorted(f for f, paths in gets.items() if len(paths) > 1)
    if not wrong and not varying:
        return None
    involved = sorted({f for f, _, _ in wrong} | set(varying))
    if wrong:
        framework, path, cuda = wrong[0]
        owner = facts.owner(path)
        who = f" ({owner.distribution})" if owner and owner.distribution else ""
        message = (
            f"{_title(framework)} (built for CUDA {majors.get(framework)}) gets the CUDA {cuda} "
            f"build of {library}{who}: {path}."
        )
    else:
        message = (
            f"Which {library} {', '.join(_title(f) for f in varying)} gets depends on the "
            "order the frameworks are imported in."
        )
    if wrong and varying:
        message = message[:-1] + "; which copy it gets also depends on the import order."
    evidence = tuple(
        f"{order}: " + "; ".join(f"{name} gets {path}{_owner_text(facts, path)}"
                                 for name, path in row.items())
        for order, row in table.items()
    )  # fmt: skip
    return Finding(
        "framework-conflict",
        Severity.WARNING,
        message,
        evidence,
        FIX,
        data={
            "frameworks": involved,
            "library": library,
            "copies": table,
            "built_for_cuda": {f: majors.get(f) for f in involved},
            "copy_cuda": {p: _copy_cuda(facts, p) for row in table.values() for p in row.values()},
            "order_dependent": bool(varying),
        },
    )


def _copy_cuda(facts: ImportOrderFacts, path: str) -> str | None:
    owner = facts.owner(path)
    return owner.cuda if owner else None


def _owner_text(facts: ImportOrderFacts, path: str) -> str:
    owner = facts.owner(path)
    if owner is None or (owner.distribution is None and owner.cuda is None):
        return ""
    parts = [p for p in (owner.distribution, f"CUDA {owner.cuda}" if owner.cuda else None) if p]
    return f" ({', '.join(parts)})"


def _failed_orders(runs: Sequence[OrderRun]) -> list[Finding]:
    """An import order whose child crashed or hung: the import it died in, named."""
    findings = []
    for run in runs:
        if len(run.order) < 2 or run.status not in ("crashed", "timeout"):
            continue
        here = next((s for s in run.imports if s.status == "crashed-here"), None)
        where = f"importing {_title(here.framework)}" if here else "after the imports"
        crashed = run.status == "crashed"
        how = (
            f"crashed ({run.signal or 'no signal'})"
            if crashed
            else (f"hung (killed after {run.seconds:g} s)")
        )
        findings.append(
            Finding(
                "smoke-test-crashed" if crashed else "smoke-test-timeout",
                Severity.ERROR,
                f"Importing {' then '.join(_title(n) for n in run.order)} in one process "
                f"{how} {where}.",
                tuple(run.stderr_tail.strip().splitlines()[-5:]),
                f"Import the frameworks in another order, or keep them in separate virtual "
                f"environments. {FIX}"
                if crashed
                else FIX,
                data={
                    "framework": here.framework if here else run.order[-1],
                    "frameworks": list(run.order),
                    "order": list(run.order),
                },
            )
        )
    return findings
