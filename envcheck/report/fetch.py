"""`envcheck fetch`'s output: the fetch report and a wheelhouse verification, as text and JSON.

Pure functions of the results; the command decides where they go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envcheck.framework_names import label
from envcheck.report.terminal_text import shown_lines

if TYPE_CHECKING:
    from envcheck.acquire.manifest import Verification
    from envcheck.acquire.wheelhouse_fetch import FetchReport

FETCH_SCHEMA = "envcheck.fetch/1"
VERIFY_SCHEMA = "envcheck.wheelhouse-verify/1"
_MB = 1_000_000


def _size(nbytes: int) -> str:
    return f"{nbytes / _MB:.1f} MB" if nbytes >= _MB // 10 else f"{nbytes / 1000:.1f} kB"


def report_to_json(report: FetchReport) -> dict[str, Any]:
    return {
        "schema": FETCH_SCHEMA,
        "dest": str(report.dest),
        "index": {"url": report.index.display, "found_via": report.index.found_via},
        "with_deps": report.with_deps,
        "targets": [
            {
                "platform": plan.target.platform,
                "python": str(plan.target.python),
                **({"tensorflow": str(plan.version)} if plan.framework == "tensorflow" else {}),
                "framework": plan.framework,
                "version": str(plan.version),
                "build": plan.build,
                "requirements": [str(r) for r in plan.requirements],
                "notes": list(plan.notes),
            }
            for plan in report.plans
        ],
        "files": [
            {
                "file": f.file,
                "sha256": f.sha256,
                "size": f.size,
                "url": f.url,
                "platform": f.platform,
                "python": f.python,
                "status": f.status,
            }
            for f in report.files
        ],
        "manifest": str(report.manifest),
        **({} if report.planned is None else _dry_run_json(report)),
    }


def _dry_run_json(report: FetchReport) -> dict[str, Any]:
    """A dry run's plan: every file it would fetch (no file was written, no manifest)."""
    planned = report.planned or ()
    unique = {f.file: f for f in planned}
    sizes = [f.size for f in unique.values()]
    return {
        "dry_run": True,
        "planned": [
            {
                "file": f.file,
                "size": f.size,
                "url": f.url,
                "platform": f.platform,
                "python": f.python,
            }
            for f in planned
        ],
        "total_size": sum(s for s in sizes if s is not None),
        "unknown_sizes": sum(s is None for s in sizes),
    }


def _dry_run_lines(report: FetchReport) -> list[str]:
    unique = {f.file: f for f in report.planned or ()}
    lines = [
        f"would fetch  {f.file}  {_size(f.size) if f.size is not None else 'size not listed'}"
        for f in unique.values()
    ]
    total = sum(f.size for f in unique.values() if f.size is not None)
    unknown = sum(f.size is None for f in unique.values())
    more = f" and {unknown} file(s) whose size the index does not list" if unknown else ""
    deps = " (and pip's dependencies, resolved when it downloads)" if report.with_deps else ""
    lines.append(
        f"Dry run: {len(unique)} file(s){deps}, {_size(total)}{more}; nothing was downloaded "
        f"and nothing was written to {report.dest}"
    )
    return lines


def report_to_text(report: FetchReport) -> str:
    lines = []
    for plan in report.plans:
        build = f" {plan.build}" if plan.build else ""
        lines.append(
            f"{label(plan.framework)} {plan.version}{build} for {plan.target.describe()}: "
            + ", ".join(str(r) for r in plan.requirements)
            + (" and their dependencies" if report.with_deps else "")
        )
        lines += [f"  note: {note}" for note in plan.notes]
    if report.planned is not None:
        lines += _dry_run_lines(report)
        lines.append(f"index: {report.index.display} (from {report.index.found_via})")
        return shown_lines("\n".join(lines)) + "\n"
    seen: set[str] = set()
    total = 0
    for f in report.files:
        if f.file in seen:
            continue
        seen.add(f.file)
        total += f.size
        lines.append(f"{f.status:<10}  {f.file}  {_size(f.size)}")
    lines.append(
        f"{len(seen)} file(s), {_size(total)}, in {report.dest}; manifest {report.manifest}"
    )
    lines.append(f"index: {report.index.display} (from {report.index.found_via})")
    return shown_lines("\n".join(lines)) + "\n"


def verification_to_json(result: Verification) -> dict[str, Any]:
    return {
        "schema": VERIFY_SCHEMA,
        "directory": str(result.directory),
        "ok": result.ok,
        "checked": list(result.checked),
        "mismatched": [
            {
                "file": m.file,
                "expected_sha256": m.expected_sha256,
                "actual_sha256": m.actual_sha256,
                "expected_size": m.expected_size,
                "actual_size": m.actual_size,
            }
            for m in result.mismatched
        ],
        "missing": list(result.missing),
        "extra": list(result.extra),
        "conflicting": list(result.conflicting),
        "failed": list(result.failed),
        "incomplete": list(result.incomplete),
        "partial": list(result.partial),
    }


def verification_to_text(result: Verification) -> str:
    bad = {m.file for m in result.mismatched} | set(result.missing)
    bad |= set(result.failed) | set(result.incomplete)
    lines = [f"ok          {name}" for name in result.checked if name not in bad]
    lines += [
        f"MISMATCH    {m.file}: sha256 {m.actual_sha256} ({m.actual_size} bytes), the manifest "
        f"says {m.expected_sha256} ({m.expected_size} bytes)"
        for m in result.mismatched
    ]
    lines += [f"MISSING     {name}" for name in result.missing]
    lines += [
        f"FAILED      {name} (its download failed; run envcheck fetch again)"
        for name in result.failed
    ]
    lines += [
        f"INCOMPLETE  {name} (planned, not downloaded: the fetch was cut short; run it again)"
        for name in result.incomplete
    ]
    lines += [
        f"PARTIAL     {name} (an unfinished download, not a wheel; the next fetch resumes or "
        "removes it)"
        for name in result.partial
    ]
    lines += [f"EXTRA       {name} (not in the manifest)" for name in result.extra]
    lines += [f"CONFLICT    {name} (listed with two digests)" for name in result.conflicting]
    verdict = "verified" if result.ok else "verification FAILED"
    lines.append(
        f"{result.directory}: {verdict}: {len(result.checked)} file(s) listed, "
        f"{len(result.mismatched)} mismatched, {len(result.missing)} missing, "
        f"{len(result.failed)} failed, {len(result.incomplete)} incomplete, "
        f"{len(result.extra)} extra"
    )
    return shown_lines("\n".join(lines)) + "\n"


def verification_hint(result: Verification) -> str | None:
    """One line on what to do about a failed verification, the commonest cause first; None
    when the wheelhouse verified."""
    if result.ok:
        return None
    directory = str(result.directory)
    if result.mismatched or result.conflicting:
        return (
            f"wheelhouse {directory} failed verification: a file differs from the digest its "
            f"manifest records; delete it and run envcheck fetch --dest {directory} again"
        )
    if result.failed or result.incomplete or result.missing:
        return (
            f"wheelhouse {directory} failed verification: planned files are not there; run "
            f"envcheck fetch --dest {directory} again with the same options to get them"
        )
    more = len(result.extra) - 1
    extra = result.extra[0] + (f" and {more} more" if more else "")
    return (
        f"wheelhouse {directory} failed verification: {extra} is not in its manifest "
        "(a file envcheck fetch did not write); move it out of the wheelhouse, or fetch into "
        "a fresh --dest"
    )
