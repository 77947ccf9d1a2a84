"""Render the probe's Facts as text tables for a terminal (JSON is Facts.to_json). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from envcheck.probe.facts import ANOTHER_VERSION, Facts, FrameworkLoadingFacts, LibraryFacts
from envcheck.report.terminal_text import shown, shown_lines


def _table(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    if not rows:
        return []
    rows = [[shown(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        indent + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
        for row in rows
    ]


def _platform_line(facts: Facts) -> str:
    p = facts.platform
    parts = [f"{p.os} {p.arch}", f"Python {p.python} ({p.python_bits}-bit)"]
    if p.wsl:
        parts.append(p.wsl.upper())
    if p.container:
        parts.append(f"in a {p.container} container")
    parts.append(f"device nodes: {', '.join(p.device_nodes) or 'none'}")
    for name, value in (
        ("CUDA_VISIBLE_DEVICES", p.cuda_visible_devices),
        ("NVIDIA_VISIBLE_DEVICES", p.nvidia_visible_devices),
    ):
        if value is not None:
            parts.append(f"{name}={value!r}")
    return "Platform:   " + ", ".join(parts)


def _driver_lines(facts: Facts) -> list[str]:
    d = facts.driver
    if facts.platform.nvidia_gpu == "absent" and d.state == "missing" and not facts.gpus:
        # No NVIDIA GPU here: no driver is expected, so none is missing.
        return ["Driver:     none, none needed (this machine has no NVIDIA GPU)"]
    if d.version or d.cuda:
        head = f"{d.version or 'release unknown'}"
        head += f" (supports CUDA {d.cuda})" if d.cuda else ""
        head += f", found via {d.found_via}" if d.found_via else ""
    else:
        head = "none found"
    lines = [f"Driver:     {head}  [{d.state}]"]
    if d.state == "mismatch":
        lines.append(
            f"            kernel module {d.kernel_module or '?'} vs user-space library "
            f"{d.user_library or '?'}"
        )
    lines.extend(f"            tried {shown(error)}" for error in d.errors)
    return lines


def _gpu_lines(facts: Facts) -> list[str]:
    if not facts.gpus:
        return ["GPUs:       none found"]
    rows = [
        [
            str(g.index),
            g.name or "?",
            f"CC {g.compute_capability or '?'}",
            f"{g.memory_mib} MiB" if g.memory_mib is not None else "",
            g.uuid or "",
        ]
        for g in facts.gpus
    ]
    return ["GPUs:", *_table(rows)]


def _framework_lines(facts: Facts) -> list[str]:
    if not facts.frameworks:
        return ["Frameworks: none installed"]
    lines = ["Frameworks:"]
    for f in facts.frameworks:
        build = f.build
        details = []
        if build.get("cuda_version"):
            details.append(f"CUDA {build['cuda_version']}")
        if build.get("cudnn_version"):
            details.append(f"cuDNN {build['cudnn_version']}")
        if build.get("is_cuda_build") is False:
            details.append("CPU-only build")
        via = f" (build info from {f.build_found_via})" if f.build_found_via else ""
        lines.append(f"  {f.name} {f.version} [{f.distribution}]: {', '.join(details) or '-'}{via}")
        lines.extend(f"    ! {shown(problem)}" for problem in f.problems)
    return lines


def _library_lines(libraries: Sequence[LibraryFacts]) -> list[str]:
    found = [lib for lib in libraries if lib.path and lib.found_via != ANOTHER_VERSION]
    others = _other_versions(libraries)
    missing = [lib.file for lib in libraries if not lib.path]
    lines = ["Libraries (* marks the copy the loader would load):"]
    rows = [
        [
            "*" if lib.selected else " ",
            lib.file,
            lib.version or "?",
            lib.arch or "?",
            lib.path,
            lib.found_via,
            lib.owner or "",
        ]
        for lib in found
    ]
    # A file of another version is one row, however many wanted names it is another version of
    # (with no TensorFlow to narrow the search, that is one per CUDA line the matrix knows).
    rows += [
        [" ", Path(path).name, first.version or "?", first.arch or "?", path,
         f"{ANOTHER_VERSION} of {_names(asked)}", first.owner or ""]
        for path, (first, asked) in others.items()
    ]  # fmt: skip
    lines.extend(_table(rows))
    for lib in found:
        lines.extend(
            f"    ! {shown(lib.file)} at {shown(lib.path)}: {shown(problem)}"
            for problem in lib.problems
        )
    for path, (_, asked) in others.items():
        lines.append(
            f"    ! {path} is {ANOTHER_VERSION}: the loader is asked for {_names(asked)}, "
            "never for this file"
        )
    if not found and not others:
        lines.append("  none of the CUDA or cuDNN libraries was found")
    if missing:
        lines.append(f"  not found: {', '.join(missing)}")
    return lines


def _other_versions(
    libraries: Sequence[LibraryFacts],
) -> dict[str, tuple[LibraryFacts, list[str]]]:
    """path -> (its first fact, every name it was found as another version of), in order."""
    grouped: dict[str, tuple[LibraryFacts, list[str]]] = {}
    for lib in libraries:
        if lib.path and lib.found_via == ANOTHER_VERSION:
            names = grouped.setdefault(lib.path, (lib, []))[1]
            names.extend(n for n in (lib.asked_as or (lib.file,)) if n not in names)
    return grouped


def _loading_lines(loadings: Sequence[FrameworkLoadingFacts]) -> list[str]:
    """What PyTorch and JAX load, one line per library: soname, file, whose bytes, linked by."""
    lines = []
    for loading in loadings:
        built = f", built for CUDA {loading.cuda}" if loading.cuda else ""
        lines.append(f"Loaded by {loading.framework} {loading.version}{built} (static model):")
        lines.append(f"  {shown(loading.model)}")
        rows = [
            [
                lib.library,
                lib.path or "not found",
                f"{lib.owner or '?'}" + (f", CUDA {lib.cuda}" if lib.cuda else ""),
                f"wanted by {', '.join(lib.wanted_by)}" if lib.wanted_by else "not wanted by it",
            ]
            for lib in loading.libraries
        ]
        lines.extend(_table(rows, "    "))
    return lines


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def to_text(facts: Facts) -> str:
    lines = [
        _platform_line(facts),
        *_driver_lines(facts),
        *_gpu_lines(facts),
        *_framework_lines(facts),
    ]
    if facts.wheels:
        wheels = ", ".join(f"{w.name} {w.version}" for w in facts.wheels)
        lines.append(f"Wheels:     {wheels}")
    lines.extend(_library_lines(facts.libraries))
    lines.extend(_loading_lines(facts.framework_libraries))
    lines.extend(f"Probe error: {shown(error)}" for error in facts.errors)
    lines.append(f"Probed in {facts.seconds:.2f} s")
    return shown_lines("\n".join(lines)) + "\n"
