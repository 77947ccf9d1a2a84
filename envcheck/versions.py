"""Value types for the versions envcheck compares, and their parsers.

Each kind of version gets its own name, because mixing them up is the classic mistake: a driver
release (535.104.05), the CUDA version a driver supports (12.2), a CUDA toolkit or runtime
version (12.5.1), a cuDNN version (9.3.0) and a GPU's compute capability (8.6). Parsers are pure
and raise InputError with a one-line message; nothing here reads the machine.
"""

from __future__ import annotations

import functools
import re

from packaging.version import InvalidVersion, Version

from envcheck.errors import InputError, quoted
from envcheck.record import record

_NUMERIC = re.compile(r"^\d+(\.\d+)*$")
# The most digits a number in a version may have. Real ones have at most 8 (a dev release's
# date); Python refuses to read more than 4,300 digits as an int (a ValueError, which was
# exit 3), and a number this long is a typo or a hostile value, never a release.
MAX_DIGITS = 16
_TOO_LONG = re.compile(rf"\d{{{MAX_DIGITS + 1}}}")


def refuse_long_numbers(text: str, what: str) -> None:
    """InputError when `text` (a version, a specifier, a platform tag; `what` names it) holds
    a number of more than MAX_DIGITS digits. Every parser of versions calls it first."""
    if _TOO_LONG.search(text):
        raise InputError(
            f"{what} {quoted(text)} has a number of more than {MAX_DIGITS} digits: "
            "no version is numbered so"
        )


def parse_numeric_version(text: str, what: str) -> Version:
    """Parse a dotted numeric version such as '535.104.05' or '12.2'; `what` names it in errors."""
    refuse_long_numbers(text, what)
    cleaned = text.strip()
    if not _NUMERIC.match(cleaned):
        raise InputError(
            f"{what} {text!r} is not a version: expected digits and dots, e.g. 535.104.05"
        )
    try:
        return Version(cleaned)
    except InvalidVersion as exc:  # pragma: no cover - the regex admits only valid versions
        raise InputError(f"{what} {text!r} is not a version") from exc


def major_minor(version: Version) -> tuple[int, int]:
    """(major, minor) of a version, with a missing minor read as 0."""
    release = (*version.release, 0)
    return release[0], release[1]


def format_major_minor(version: Version) -> str:
    major, minor = major_minor(version)
    return f"{major}.{minor}"


@functools.total_ordering
@record
class DriverVersion:
    """An NVIDIA driver release such as 535.104.05, compared numerically, printed as NVIDIA does.

    packaging would print 450.80.02 as 450.80.2, which nobody can find in NVIDIA's tables.
    """

    text: str

    @property
    def key(self) -> Version:
        return Version(self.text)

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DriverVersion) and self.key == other.key

    def __lt__(self, other: DriverVersion) -> bool:
        return self.key < other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @classmethod
    def parse(cls, text: str, what: str = "driver version") -> DriverVersion:
        """A release as nvidia-smi prints it. A bare branch ('570') is refused, not read as
        570.0: no release of a branch is its .0 (R570 starts at 570.86), and the matrix does
        not list each branch's first release, so any number put in its place would be made up."""
        version = parse_numeric_version(text, what)
        if len(version.release) < 2:
            raise InputError(
                f"{what} {text!r} is a driver branch, not a release: give the full release as "
                "nvidia-smi prints it, e.g. 570.133.07"
            )
        return cls(text.strip())


@record(order=True)
class PythonVersion:
    """A Python feature version such as 3.11 (the part that decides which wheels fit)."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @classmethod
    def parse(cls, text: str) -> PythonVersion:
        refuse_long_numbers(text, "Python version")
        match = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.\d+)?\s*", text)
        if match is None:
            raise InputError(f"Python version {text!r} is not of the form X.Y, e.g. 3.11")
        return cls(int(match.group(1)), int(match.group(2)))


@record(order=True)
class ComputeCapability:
    """A GPU architecture as CUDA numbers it: 8.6 is major 8, minor 6."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @classmethod
    def parse(cls, text: str) -> ComputeCapability:
        """Accept '8.6', '86', 'sm_86' or 'compute_86' (the last digit is the minor)."""
        refuse_long_numbers(text, "compute capability")
        cleaned = text.strip().lower()
        match = re.fullmatch(r"(\d+)\.(\d)", cleaned)
        if match is not None:
            return cls(int(match.group(1)), int(match.group(2)))
        match = re.fullmatch(r"(?:sm_|compute_)?(\d+)(\d)[af]?", cleaned)
        if match is not None:
            return cls(int(match.group(1)), int(match.group(2)))
        raise InputError(f"compute capability {text!r} is not of the form X.Y, e.g. 8.6")


@record(order=True)
class CudaTarget:
    """One entry of a build's CUDA target list: SASS for one architecture or PTX from one.

    SASS (`sm_XY`) runs only on GPUs of the same major with a minor >= Y; PTX (`compute_XY`)
    can be compiled by the driver for any GPU of capability >= X.Y (NVIDIA's compatibility
    rules, quoted in TensorFlow's .bazelrc).
    """

    kind: str  # "sass" or "ptx"
    capability: ComputeCapability

    def __str__(self) -> str:
        prefix = "sm" if self.kind == "sass" else "compute"
        return f"{prefix}_{self.capability.major}{self.capability.minor}"

    @classmethod
    def parse(cls, text: str) -> CudaTarget:
        cleaned = text.strip().lower()
        if cleaned.startswith("sm_"):
            return cls("sass", ComputeCapability.parse(cleaned))
        if cleaned.startswith("compute_"):
            return cls("ptx", ComputeCapability.parse(cleaned))
        raise InputError(f"CUDA target {text!r} is neither sm_XY nor compute_XY")
