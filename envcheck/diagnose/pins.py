"""What each framework pins: its requirements on the distributions installed beside it, read
from the facts (FrameworkFacts.requires, WheelFacts.requires) with the probed machine's markers.

Worked out once per diagnosis (Context.pins) for every rule that compares pins with what is
installed or loaded: markers and requirements cost, and the co-residency rules all ask.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from envcheck.distribution_names import canonical_name
from envcheck.framework_names import framework_of
from envcheck.probe.facts import Facts, FrameworkFacts, WheelFacts
from envcheck.record import record

# packaging's markers and requirements are imported where a requirement is read: explain runs
# these rules too, over a log's facts, which list no requirement, and importing them (with the
# tokenizer and parser they bring) cost a tenth of its start-up.
if TYPE_CHECKING:
    from packaging.markers import Marker
    from packaging.requirements import Requirement

# `extra == "and-cuda"` in a marker: simple tokens, no nested quantifiers (no backtracking).
_EXTRA = re.compile(r"""extra\s*==\s*["']([A-Za-z0-9._-]+)["']""")
_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")  # a PEP 508 requirement's name, in front


def framework_key(framework: FrameworkFacts) -> str | None:
    """tensorflow / torch / jax for a framework distribution that can pin CUDA wheels (keras
    rides on one of the others and pins no CUDA wheel)."""
    return framework_of(framework.name)


@record
class Pin:
    """One framework's requirement on one installed distribution, maybe through another one
    (torch requires cuda-toolkit[cublas]==13.0.3, which requires nvidia-cublas==13.1.1.3.*)."""

    framework: FrameworkFacts
    requirement: Requirement
    via: str = ""  # "cuda-toolkit[cublas,...]==13.0.3" when the pin comes through it

    @property
    def key(self) -> str:
        return framework_key(self.framework) or self.framework.name

    def text(self) -> str:
        own = f"{self.framework.distribution} {self.framework.version} requires"
        pinned = requirement_text(self.requirement)
        return f"{own} {self.via}, which requires {pinned}" if self.via else f"{own} {pinned}"


def requirement_text(requirement: Requirement) -> str:
    """name[extras]specifier without the marker (the marker held, or it would not be a pin)."""
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    return f"{requirement.name}{extras}{requirement.specifier}"


def marker_environment(facts: Facts) -> dict[str, str]:
    """PEP 508 marker variables of the probed machine (not envcheck's own: facts may come from a
    file written on another machine)."""
    system = facts.platform.os
    windows = system == "windows"
    python = facts.platform.python
    machine = facts.platform.arch
    if windows and machine == "x86_64":
        machine = "AMD64"  # what platform.machine() says there
    return {
        "sys_platform": {"windows": "win32", "macos": "darwin"}.get(system, "linux"),
        "platform_system": {"windows": "Windows", "macos": "Darwin"}.get(system, "Linux"),
        "platform_machine": machine,
        "os_name": "nt" if windows else "posix",
        "python_version": ".".join(python.split(".")[:2]),
        "python_full_version": python,
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }


def _holds(marker: Marker | None, environment: Mapping[str, str], extras: Iterable[str]) -> bool:
    """The marker holds for one of `extras` ("" for none); an unreadable one counts as holding:
    the distribution it names is installed, which is what the rules look at."""
    if marker is None:
        return True
    # An extra the marker never names gives the answer "" gives: cuda-toolkit's requirements
    # each name one of its dozen extras, so most of the dozen evaluations would be repeats.
    written = str(marker)
    named = {canonical_name(e) for e in _EXTRA.findall(written)}
    if named or "extra" not in written:
        extras = dict.fromkeys(e for e in extras if e == "" or canonical_name(e) in named)
    from packaging.markers import (  # noqa: PLC0415 (see the imports)
        InvalidMarker,
        UndefinedComparison,
        UndefinedEnvironmentName,
    )

    try:
        return any(marker.evaluate({**environment, "extra": extra}) for extra in extras)
    except (UndefinedComparison, UndefinedEnvironmentName, InvalidMarker, ValueError):
        return True


def _parsed(text: str, named: Callable[[str], bool]) -> Requirement | None:
    """The requirement `text` when `named` says yes to the (canonical) name it names, else None:
    most of a framework's requirements name something else, and a full parse (markers included)
    costs far more than reading the name in front."""
    name = _NAME.match(text)
    if name is None or not named(canonical_name(name.group(1))):
        return None
    return parse_requirement(text)


def installed_distributions(facts: Facts) -> dict[str, WheelFacts]:
    """Canonical name -> the wheel, the first of each name in search order."""
    found: dict[str, WheelFacts] = {}
    for wheel in facts.wheels:
        found.setdefault(canonical_name(wheel.name), wheel)
    return found


def pins(facts: Facts) -> dict[str, list[Pin]]:
    """Installed distribution -> the frameworks' requirements on it, directly or through one
    installed distribution in between (cuda-toolkit with the extras the framework asked for).

    A framework's own extra (TensorFlow's and-cuda) counts when what it names is installed: pip
    records no extras, and TensorFlow finds the wheels under nvidia/ through its RUNPATH whether
    or not it pulled them in itself.
    """
    environment = marker_environment(facts)
    installed = installed_distributions(facts)
    found: dict[str, list[Pin]] = {}
    for framework in facts.frameworks:
        if framework_key(framework) is None:
            continue
        for pin in _pins_of(framework, installed.__contains__, environment, installed):
            found.setdefault(canonical_name(pin.requirement.name), []).append(pin)
    # One pin said twice (cuda-toolkit's cublas and cusolver extras both name nvidia-cublas).
    return {name: list({p.text(): p for p in wanted}.values()) for name, wanted in found.items()}


def pin_on(facts: Facts, framework: FrameworkFacts, wanted: Callable[[str], bool]) -> Pin | None:
    """`framework`'s requirement (its markers holding here) on a distribution `wanted` says yes
    to (a canonical name), installed or not: its own, or one through an installed distribution
    in between (torch 2.14's nvidia-cublas comes through cuda-toolkit[cublas]==13.0.3). What a
    framework pins is what to install when a library it loads is gone, whichever is there."""
    installed = installed_distributions(facts)
    pins_on = _pins_of(framework, wanted, marker_environment(facts), installed)
    return next(pins_on, None)


def _pins_of(
    framework: FrameworkFacts,
    named: Callable[[str], bool],
    environment: Mapping[str, str],
    installed: Mapping[str, WheelFacts],
) -> Iterator[Pin]:
    """`framework`'s requirements whose markers hold here on a distribution `named` says yes to
    (a canonical name), in the order it lists them: its own, and after each installed
    distribution it requires, that one's requirements the framework's extras select."""
    for text in framework.requires:
        requirement = _parsed(text, lambda name: named(name) or name in installed)
        if requirement is None or not _holds(
            requirement.marker, environment, ["", *_EXTRA.findall(text)]
        ):
            continue
        name = canonical_name(requirement.name)
        if named(name):
            yield Pin(framework, requirement)
        if name not in installed:
            continue
        through = requirement_text(requirement)
        for inner_text in installed[name].requires:
            inner = _parsed(inner_text, named)
            if inner is not None and _holds(
                inner.marker, environment, ["", *sorted(requirement.extras)]
            ):
                yield Pin(framework, inner, through)


def parse_requirement(text: str) -> Requirement | None:
    """`text` as a PEP 508 requirement; None where it is not one."""
    from packaging.requirements import (  # noqa: PLC0415 (see the imports)
        InvalidRequirement,
        Requirement,
    )

    try:
        return Requirement(text)
    except InvalidRequirement:
        return None
