"""The fix for a CUDA library a framework could not load, from the wheel the framework pins.

The smoke test reads a framework's failed load with the log signatures (smoke_rules.py), whose
fix has to serve any log: "install exactly the version the package was built for". On a probed
machine the doctor knows more: the framework's own metadata pins the distribution that ships the
library (torch 2.14.1 requires nvidia-cudnn-cu13==9.24.0.43; matrix/wheel_libraries.toml says
which distribution ships libcudnn.so.9), and whether pip counts it as installed. A wheel pip
counts as installed whose library is gone (deleted, or an uninstall of a wheel that shared its
files) is not put back by `pip install`: it must be reinstalled.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from packaging.version import InvalidVersion, Version

from envcheck.diagnose.context import Context
from envcheck.diagnose.pins import Pin, installed_distributions, pin_on, requirement_text
from envcheck.distribution_names import canonical_name
from envcheck.findings import Finding
from envcheck.framework_names import framework_of, label
from envcheck.matrix.rows import MatrixDataError
from envcheck.matrix.wheel_libraries import WheelLibraries, shipping
from envcheck.probe.facts import FrameworkFacts

# The findings about a library that did not load, which a pinned wheel can answer.
LIBRARY_CODES = frozenset({"cudnn-missing", "cudnn-sublibrary-missing", "cuda-library-missing"})
# A Linux shared object's file name in a message: libcudnn.so.9, libcublasLt.so.13.
_LIBRARY_FILE = re.compile(r"\blib[A-Za-z0-9_+-]{1,80}\.so(?:\.[0-9]{1,6}){0,4}")


def with_wheel_fixes(findings: Sequence[Finding], context: Context) -> list[Finding]:
    """`findings`, each library finding of a framework (data["framework"]) whose library a
    distribution it pins ships given that distribution's install as its fix."""
    if not any(f.code in LIBRARY_CODES for f in findings):
        return list(findings)
    try:
        context.matrix.wheel_libraries  # noqa: B018 (read once here, where it may fail)
    except MatrixDataError:
        # A --matrix folder from before wheel_libraries.toml (or a broken copy, which
        # `envcheck matrix validate` names): the findings keep their own fixes.
        return list(findings)
    return [_with_wheel_fix(f, context) for f in findings]


def _with_wheel_fix(finding: Finding, context: Context) -> Finding:
    key = finding.data.get("framework") if finding.code in LIBRARY_CODES else None
    # (JAX is several distributions: its CUDA plugin is the one that pins the nvidia-* wheels.)
    parts = [f for f in context.facts.frameworks if key and framework_of(f.name) == key]
    found = next(
        (found for part in parts if (found := _pinned_library(finding, context, part))), None
    )
    if found is None or not isinstance(key, str):
        return finding
    file_name, pin = found
    framework = pin.framework
    name = str(pin.requirement.name)
    installed = installed_distributions(context.facts).get(canonical_name(name))
    pinned = requirement_text(pin.requirement)
    owner = f"{label(key)} {framework.version}"
    if installed is not None and _satisfies(pin, installed.version):
        fix = (
            f"{owner} loads {file_name} from {name}, pinned in its metadata ({pinned}); pip "
            f"counts {name} {installed.version} as installed, so `pip install` would change "
            "nothing: put its files back with python -m pip install --force-reinstall --no-deps "
            f'"{name}=={installed.version}"'
        )
        state = f"installed: {name} {installed.version}, yet {file_name} did not load"
    else:
        fix = (
            f"{owner} loads {file_name} from {name}, pinned in its metadata: "
            f'python -m pip install "{pinned}"'
        )
        state = (
            f"installed: {name} {installed.version}, which the pin does not allow"
            if installed is not None
            else f"{name} is not installed"
        )
    return replace(finding, fix=fix, evidence=(*finding.evidence, pin.text(), state))


def _pinned_library(
    finding: Finding, context: Context, framework: FrameworkFacts
) -> tuple[str, Pin] | None:
    """The first library file the finding names that a distribution `framework` pins ships,
    with that pin; cuDNN's main library for a cuDNN finding that names no file (JAX's "Unable
    to load cuDNN")."""
    wheels: Sequence[WheelLibraries] = context.matrix.wheel_libraries
    lines = (finding.message, *finding.evidence)
    # (file name to look up, as the fix names it)
    named = [(name, name) for line in lines for name in _LIBRARY_FILE.findall(line)]
    if not named and finding.code == "cudnn-missing":
        named = [("libcudnn.so", "cuDNN")]
    for file_name, shown in named:
        family = shipping(wheels, file_name)
        if family is None:
            continue
        pin = pin_on(context.facts, framework, family.names)
        if pin is not None:
            return shown, pin
    return None


def _satisfies(pin: Pin, version: str) -> bool:
    try:
        return pin.requirement.specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False
