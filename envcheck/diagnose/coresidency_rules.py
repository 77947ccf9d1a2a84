"""Rules about frameworks that share one environment (issue 20): TensorFlow, PyTorch and JAX
install their CUDA libraries as pip wheels into one site-packages/nvidia/ tree, and pip lets two
wheels write the same file (nvidia-cudnn-cu12 and nvidia-cudnn-cu13 both write
nvidia/cudnn/lib/libcudnn.so.9): the one installed last wins, and the other framework runs on a
library it never pinned. Also pins on one wheel that the installed version cannot all meet.

Reads the facts only (FrameworkFacts.requires, WheelFacts.requires, SharedFileFacts); must not
touch the disk or print. A fix names a version set only where every framework's own pins hold for
it, and only versions the pins or the environment name (a range's bound may not exist as a
release); otherwise it says to keep the frameworks in separate virtual environments, and why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envcheck.diagnose.context import Context
from envcheck.diagnose.pins import (
    Pin,
    framework_key,
    installed_distributions,
)
from envcheck.distribution_names import canonical_name
from envcheck.findings import Finding, Severity
from envcheck.framework_names import label
from envcheck.probe.facts import Facts, FrameworkFacts, SharedFileFacts, WheelFacts
from envcheck.record import record

if TYPE_CHECKING:  # (read by pins.py where a requirement is parsed; see its imports)
    from packaging.requirements import Requirement

CODE = "framework-conflict"
_JAX_CUDA_PLUGIN = re.compile(r"^jax-(cuda\d+)-(?:plugin|pjrt)$")  # its extra: jax[cuda12]
# The libraries under nvidia/<dir>/ by the names their users know.
_LIBRARY_NAMES = {"cudnn": "cuDNN", "nccl": "NCCL", "cublas": "cuBLAS", "cufft": "cuFFT",
                  "curand": "cuRAND", "cusolver": "cuSOLVER", "cusparse": "cuSPARSE",
                  "cusparselt": "cuSPARSELt", "nvjitlink": "nvJitLink", "cuda_nvrtc": "NVRTC",
                  "cuda_runtime": "the CUDA runtime", "cuda_cupti": "CUPTI",
                  "nvshmem": "NVSHMEM", "cuda_nvcc": "the CUDA compiler tools"}  # fmt: skip
_SHARED_OBJECT = re.compile(r"(?:^lib[^/]*\.so(?:\.\d+)*|\.dll)$")
_EVIDENCE_FILES = 12  # file lines in a finding's evidence; the rest are counted


def _label(framework: FrameworkFacts) -> str:
    return f"{label(framework_key(framework) or framework.name)} {framework.version}"


# --- files two distributions install ----------------------------------------------------------


@record
class _Clash:
    """The files under nvidia/ that one set of distributions all list (one site directory)."""

    location: str
    owners: tuple[str, ...]  # canonical names, sorted
    files: tuple[SharedFileFacts, ...]

    @property
    def libraries(self) -> tuple[SharedFileFacts, ...]:
        return tuple(f for f in self.files if _SHARED_OBJECT.search(f.path.rsplit("/", 1)[-1]))

    @property
    def main(self) -> SharedFileFacts:
        """The file the finding is named after: the shortest library name (libcudnn.so.9, not
        libcudnn_adv.so.9) among the files whose bytes are not every owner's."""
        changed = [f for f in self.libraries or self.files if _changed(f)] or list(self.files)
        return min(changed, key=lambda f: (len(f.path.rsplit("/", 1)[-1]), f.path))


def _changed(shared: SharedFileFacts) -> bool:
    return any(owner.matches is False for owner in shared.owners)


def _clashes(facts: Facts) -> list[_Clash]:
    groups: dict[tuple[str, tuple[str, ...]], list[SharedFileFacts]] = {}
    for shared in facts.shared_files:
        owners = tuple(sorted({canonical_name(o.distribution) for o in shared.owners}))
        groups.setdefault((shared.location, owners), []).append(shared)
    clashes = [_Clash(loc, owners, tuple(files)) for (loc, owners), files in groups.items()]
    # A file whose bytes are every owner's (the same header in both wheels) is no problem.
    return [c for c in clashes if any(_changed(f) for f in c.files)]


def _library_name(path: str) -> str:
    parts = path.split("/")
    return _LIBRARY_NAMES.get(parts[1], parts[-1]) if len(parts) > 2 else parts[-1]


def _owner_label(shared: SharedFileFacts, name: str) -> str:
    owner = next(o for o in shared.owners if canonical_name(o.distribution) == name)
    return f"{owner.distribution} {owner.version}"


def _file_line(shared: SharedFileFacts) -> str:
    size = shared.compared if shared.size is None else f"{shared.size} bytes"
    # Whose copy it is only means something where there is a file to compare.
    gone = _gone(shared)
    owners = "; ".join(
        f"{o.distribution} {o.version} recorded "
        f"{'no size' if o.size is None else f'{o.size} bytes'}"
        f"{'' if o.matches is None or gone else _whose(o.matches)}"
        for o in shared.owners
    )
    how = "" if shared.size is None else f", compared by {shared.compared}"
    return f"{shared.path}: {size} on disk{how}; {owners}"


def _gone(shared: SharedFileFacts) -> bool:
    """Whether nothing loadable is at the path: gone, or replaced by a link or a special file."""
    return shared.compared in ("missing", "not a regular file")


def _whose(matches: bool) -> str:
    return " (its copy)" if matches else " (not its copy)"


def _frameworks_of(pins_on: Sequence[Pin]) -> list[str]:
    return sorted({pin.key for pin in pins_on})


def _names(keys: Iterable[str]) -> str:
    return " and ".join(label(key) for key in sorted(set(keys)))


def _built_for(name: str) -> str:
    """' (CUDA 13 wheels)' for nvidia-cudnn-cu13: the suffix says which CUDA a wheel is for."""
    suffix = name.rsplit("-", 1)[-1]
    return f" (CUDA {suffix[2:]} wheels)" if suffix[:2] == "cu" and suffix[2:].isdigit() else ""


def venv_fix(context: Context, keys: Sequence[str]) -> str:
    """One virtual environment per framework, each installed with its own CUDA wheels."""
    scripts = "Scripts" if context.os == "windows" else "bin"
    lines = []
    for key in keys:
        framework = next(f for f in context.facts.frameworks if framework_key(f) == key)
        spec = _install_spec(context.facts, key, framework)
        lines.append(
            f"python -m venv .venv-{key} && .venv-{key}/{scripts}/python -m pip install {spec}"
        )
    return "; ".join(lines)


def _install_spec(facts: Facts, key: str, framework: FrameworkFacts) -> str:
    if key == "tensorflow" and any("and-cuda" in text for text in framework.requires):
        return f'"{framework.distribution}[and-cuda]=={framework.version}"'
    if key == "jax":
        jax = next((f for f in facts.frameworks if f.name == "jax"), framework)
        plugins = [m for f in facts.frameworks if (m := _JAX_CUDA_PLUGIN.match(f.name))]
        extra = plugins[0].group(1) if plugins else ""
        return f'"jax[{extra}]=={jax.version}"' if extra else f'"jax=={jax.version}"'
    return f'"{framework.distribution}=={framework.version}"'


def overwritten_files(context: Context) -> list[Finding]:
    """framework-conflict: a wheel's files under nvidia/ hold another wheel's bytes."""
    all_pins = context.pins
    installed = installed_distributions(context.facts)
    findings = []
    for clash in sorted(_clashes(context.facts), key=lambda c: (c.location, c.owners)):
        main = clash.main
        winners = [canonical_name(o.distribution) for o in main.owners if o.matches]
        losers = [n for n in clash.owners if n not in winners]
        need = {name: all_pins.get(name, []) for name in clash.owners}
        hurt = _labels([pin for name in losers for pin in need[name]])
        changed = sum(1 for f in clash.files if _changed(f)) - 1
        also = f" and {changed} more file{'s' if changed > 1 else ''}" if changed > 0 else ""
        holder = _owner_label(main, winners[0]) if winners else None
        library = _library_name(main.path)
        # Gone or replaced by a link: pip uninstall of one owner removes the files the other
        # still lists, and nothing can be loaded from there.
        gone = _gone(main)
        state = "missing" if main.compared == "missing" else "not a regular file"
        if len(clash.owners) > 1:
            owners = " and ".join(
                _owner_label(main, n) + (f" ({_labels(need[n])}'s)" if need[n] else "")
                for n in clash.owners
            )
            now = f"it is {state} now" if gone else f"the bytes there are {holder or 'neither'}'s"
            message = f"{owners} both install {main.path}{also} ({library}); {now}"
        else:
            owner = _owner_label(main, clash.owners[0])
            pinned = f" ({_labels(need[clash.owners[0]])}'s)" if need[clash.owners[0]] else ""
            message = (
                f"{main.path}{also} ({library}), installed by {owner}{pinned}, is {state}"
                if gone
                else f"{main.path}{also} ({library}) is not the copy {owner}{pinned} installed"
            )
        if hurt:
            message += (
                f", so {hurt} cannot load {library} from there."
                if gone
                else f", so {hurt} runs on {library} from a wheel it did not pin."
            )
        else:
            message += "."
        requirements = [pin.text() for name in clash.owners for pin in need[name]]
        fix, constraints = _overwrite_fix(context, clash, winners, need, installed)
        # The libraries are what a framework loads; the headers only matter to builds, so they
        # are counted, not listed (unless no library is among the files).
        changed_files = [f for f in clash.files if _changed(f)]
        shown = [f for f in changed_files if f in clash.libraries] or changed_files
        rest = len(changed_files) - len(shown[:_EVIDENCE_FILES])
        evidence = [
            f"in {clash.location}:",
            *(_file_line(f) for f in shown[:_EVIDENCE_FILES]),
            *([f"and {rest} more files (headers and others) likewise"] if rest else []),
            *requirements,
        ]
        findings.append(
            Finding(
                CODE,
                # Without an NVIDIA GPU no framework loads the CUDA build it lost: the clash
                # waits for the day this environment runs on a GPU machine.
                Severity.ERROR if hurt and not context.no_nvidia_gpu else Severity.WARNING,
                message,
                tuple(evidence),
                fix,
                data={
                    "frameworks": sorted({pin.key for name in clash.owners for pin in need[name]}),
                    "library": main.path.rsplit("/", 1)[-1],
                    "requirements": requirements,
                    "installed": holder,
                    "overwritten": [_owner_label(main, n) for n in losers],
                    "files": [f.path for f in clash.files if _changed(f)],
                    "constraints": constraints,
                },
            )
        )
    return findings


def _overwrite_fix(
    context: Context,
    clash: _Clash,
    winners: Sequence[str],
    need: Mapping[str, Sequence[Pin]],
    installed: Mapping[str, WheelFacts],
) -> tuple[str, list[str]]:
    """(fix, constraint lines): restore the needed owner's bytes, or separate environments."""
    needed = [name for name in clash.owners if need[name]]
    keys_by_owner = {name: {pin.key for pin in need[name]} for name in needed}
    every_key = sorted({key for keys in keys_by_owner.values() for key in keys})
    if len(needed) > 1 and len(every_key) > 1:
        # Each owner is pinned by another framework and both write the same path: no version
        # set of these releases holds, as each needs its own distribution's bytes there.
        why = "; ".join(
            f"{_names(keys_by_owner[n])} needs {n}{_built_for(n)}, pinned in its metadata"
            for n in needed
        )
        return (
            f"Keep {_names(every_key)} in separate virtual environments: {why}, and both write "
            f"{clash.main.path}. {venv_fix(context, every_key)}",
            [],
        )
    keep = needed[0] if needed else (winners[0] if winners else clash.owners[0])
    version = installed[keep].version if keep in installed else None
    drop = [n for n in clash.owners if n != keep]
    reinstall = (
        f'python -m pip install --force-reinstall --no-deps "{keep}=={version}"'
        if version
        else f"python -m pip install --force-reinstall --no-deps {keep}"
    )
    # Uninstalling the other owner first: pip removes every file its RECORD lists, the shared
    # ones included, so the reinstall must come after it.
    steps = [f"python -m pip uninstall -y {' '.join(drop)}", reinstall] if drop else [reinstall]
    constraints = [f"{keep}=={version}"] if version else []
    return " && ".join(steps), constraints


# --- pins on one distribution -----------------------------------------------------------------


def _exact(requirement: Requirement) -> str | None:
    """The version an `==X` pin names (not `==X.*`), else None."""
    specifiers = list(requirement.specifier)
    if (
        len(specifiers) == 1
        and specifiers[0].operator in ("==", "===")
        and "*" not in str(specifiers[0].version)
    ):
        return specifiers[0].version
    return None


def _contains(requirement: Requirement, version: str) -> bool:
    try:
        Version(version)
    except InvalidVersion:
        return False
    return requirement.specifier.contains(version, prereleases=True)


def framework_conflicts(context: Context) -> list[Finding]:
    """framework-conflict: the frameworks' pins on one distribution, and files under nvidia/
    that one distribution overwrote of another's (overwritten_files)."""
    return [*pin_conflicts(context), *overwritten_files(context)]


def pin_conflicts(context: Context) -> list[Finding]:
    """framework-conflict: two frameworks pin one installed distribution, and its version fails
    one of the pins (exact against exact, exact against a range, or range against range)."""
    installed = installed_distributions(context.facts)
    findings = []
    for name, wanted in sorted(context.pins.items()):
        if len({pin.key for pin in wanted}) < 2:
            continue
        version = installed[name].version
        unmet = [pin for pin in wanted if not _contains(pin.requirement, version)]
        if not unmet:
            continue
        met = [pin for pin in wanted if pin not in unmet]
        candidates = dict.fromkeys(
            [v for v in (_exact(p.requirement) for p in wanted) if v] + [version]
        )
        fitting = [v for v in candidates if all(_contains(p.requirement, v) for p in wanted)]
        # Provably impossible: one framework's exact version that another's pin excludes.
        impossible = [
            (p, v, q)
            for p in wanted
            if (v := _exact(p.requirement))
            for q in wanted
            if q.key != p.key and not _contains(q.requirement, v)
        ]
        keys = _frameworks_of(wanted)
        message = (
            f"{name} {version} meets the pins of {_labels(met) or 'no framework'} but not of "
            f"{_labels(unmet)}"
        )
        if fitting:
            message += f"; {name}=={fitting[0]} meets every framework's pin."
            fix = (
                f'python -m pip install "{name}=={fitting[0]}" (or put {name}=={fitting[0]} '
                "in a constraints file and install with -c FILE)"
            )
            constraints = [f"{name}=={fitting[0]}"]
        else:
            if impossible:
                p, v, q = impossible[0]
                message += (
                    f"; the pins cannot both hold: {_label(p.framework)} needs exactly {v}, "
                    f"which {_label(q.framework)}'s {q.requirement.specifier} excludes."
                )
            else:
                message += (
                    "; no version the pins name meets all of them (whether one between their "
                    "bounds does, only the index can tell)."
                )
            combined = SpecifierSet()
            for pin in wanted:
                combined &= pin.requirement.specifier
            fix = f"Keep {_names(keys)} in separate virtual environments: {venv_fix(context, keys)}"
            if not impossible:
                fix += (
                    f"; or look for a {name} that meets every pin: "
                    f'python -m pip install "{name}{combined}"'
                )
            constraints = []
        findings.append(
            Finding(
                CODE,
                Severity.ERROR,
                message,
                tuple(pin.text() for pin in wanted),
                fix,
                data={
                    "frameworks": keys,
                    "library": name,
                    "requirements": [pin.text() for pin in wanted],
                    "installed": f"{name} {version}",
                    "constraints": constraints,
                },
            )
        )
    return findings


def _labels(wanted: Sequence[Pin]) -> str:
    return ", ".join(dict.fromkeys(_label(pin.framework) for pin in wanted))


def one_finding_per_overwrite(findings: Sequence[Finding], facts: Facts) -> list[Finding]:
    """The loaded-copy findings (which copy each framework got, measured per import order) about
    a library whose file another wheel overwrote, folded into that overwrite finding: one cause,
    one finding, with the orders' lines as more evidence. The rest are left as they are."""
    overwritten = overwritten_paths(facts)
    by_library = {
        f.data.get("library"): i
        for i, f in enumerate(findings)
        if f.code == CODE and "overwritten" in f.data
    }
    merged = list(findings)
    dropped: set[int] = set()
    for index, finding in enumerate(findings):
        copies = finding.data.get("copies")
        target = by_library.get(finding.data.get("library"))
        if finding.code != CODE or not isinstance(copies, dict) or target is None:
            continue
        paths = {path for row in copies.values() for path in row.values()}
        if not paths or not paths <= overwritten:
            continue  # a copy that is not the overwritten file is a cause of its own
        into = merged[target]
        merged[target] = replace(
            into,
            evidence=(*into.evidence, *(f"loaded: {line}" for line in finding.evidence)),
            data={**into.data, "copies": copies},
        )
        dropped.add(index)
    return [f for i, f in enumerate(merged) if i not in dropped]


def overwritten_paths(facts: Facts) -> set[str]:
    """location/path of each file under nvidia/ whose bytes are not every owner's (the files of
    the overwrite findings)."""
    return {
        f"{shared.location.rstrip('/')}/{shared.path}"
        for shared in facts.shared_files
        if any(owner.matches is False for owner in shared.owners)
    }
