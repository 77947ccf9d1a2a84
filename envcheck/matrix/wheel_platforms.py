"""Where a package's wheels for one platform begin or end (matrix/wheel_platforms.toml).

explain reads pip's list of the releases it could install against these spans: a list that
starts at a span's first release (or ends at its last) was printed on that platform
(envcheck/explain/pip_offers.py). Loaded strictly with the row reader of
`envcheck.matrix.rows`, so a bad row is a one-line MatrixDataError naming it.
"""

from __future__ import annotations

from pathlib import Path

from packaging.version import InvalidVersion, Version

from envcheck.distribution_names import canonical_name
from envcheck.errors import InputError
from envcheck.matrix import rows as matrix_rows
from envcheck.matrix.records import PLATFORMS
from envcheck.matrix.rows import Row
from envcheck.record import record
from envcheck.versions import PythonVersion

FILE = "wheel_platforms.toml"
# Platforms as the spans name them: tensorflow.toml's, and Linux by its C library where a
# package's wheels moved to a newer manylinux tag (glibc 2.28: RHEL 8, Debian 10, Ubuntu 20.04).
KEYS = (*PLATFORMS, "linux-glibc-before-2.28")


def release_of(version: Version) -> Version:
    """The release a version is of: 2.13.0rc0 and 2.13.0.post1 are 2.13.0's."""
    return Version(version.base_version)


@record
class WheelSpan:
    """The releases of `package` with wheels for `platform`: from `first` on, up to `last`, or
    none at all (`never`: both None)."""

    package: str  # as the index compares names (envcheck.distribution_names)
    key: str  # the platform (KEYS: tensorflow.toml's `platforms` and a few more)
    platform: str  # as a person calls it
    first: Version | None
    last: Version | None
    advice: str
    sources: tuple[str, ...]
    # The oldest Python any of the span's wheels is for (None: not recorded): an older Python
    # has no wheel on this platform in any release (jaxlib on Windows: 3.9).
    pythons_from: PythonVersion | None = None

    @property
    def never(self) -> bool:
        return self.first is None and self.last is None

    @property
    def os(self) -> str:
        """The OS of the key as a log shows it (explain's platforms: windows, macos, linux)."""
        return self.key.split("-")[0]

    @property
    def edge(self) -> str:
        """Where the span lies, as a clause: 'begin with 0.4.13' (', for Python 3.9 and
        later' where recorded), 'end with 2.2.2', or 'do not exist'."""
        if self.first is not None:
            pythons = f", for Python {self.pythons_from} and later" if self.pythons_from else ""
            return f"begin with {self.first}{pythons}"
        return f"end with {self.last}" if self.last is not None else "do not exist"

    def holds(self, version: Version) -> bool:
        """Whether `version` lies in the span (its release: 2.13.0rc0 is of 2.13.0's)."""
        if self.never:
            return False
        release = release_of(version)
        if self.first is not None and release < self.first:
            return False
        return self.last is None or release <= self.last


def _version(row: Row, key: str) -> Version | None:
    text = row.optional_string(key)
    if text is None:
        return None
    try:
        return Version(text)
    except InvalidVersion as exc:
        raise row.error(key, f"{text!r} is not a version") from exc


def _python(row: Row, key: str) -> PythonVersion | None:
    text = row.optional_string(key)
    if text is None:
        return None
    try:
        return PythonVersion.parse(text)
    except InputError as exc:
        raise row.error(key, f"{text!r} is not a version") from exc


def load_wheel_platforms(directory: Path) -> tuple[WheelSpan, ...]:
    data = matrix_rows.read_toml(directory, FILE)
    matrix_rows.check_top_level(data, FILE, {"span"})
    sources = matrix_rows.read_sources(data, FILE)
    spans = []
    for row in matrix_rows.table_rows(data, FILE, "span", sources):
        package = row.string("package")
        wanted = canonical_name(package)
        if wanted != package:
            raise row.error("package", f"write it as the index compares names: {wanted!r}")
        key = row.string("key")
        if key not in KEYS:
            raise row.error("key", f"{key!r} is not one of {', '.join(KEYS)}")
        first, last = _version(row, "first"), _version(row, "last")
        never = row.optional_boolean("never") or False
        if sum((first is not None, last is not None, never)) != 1:
            raise row.error("first", "give first, last or never = true (one of the three)")
        pythons_from = _python(row, "pythons_from")
        if pythons_from is not None and never:
            raise row.error("pythons_from", "a span without wheels has no Python")
        spans.append(
            WheelSpan(
                package=package,
                key=key,
                platform=row.string("platform"),
                first=first,
                last=last,
                advice=row.string("advice"),
                sources=row.sources(),
                pythons_from=pythons_from,
            )
        )
        row.done()
    return tuple(spans)
