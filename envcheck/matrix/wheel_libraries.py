"""Which pip nvidia-* distribution ships a CUDA library (matrix/wheel_libraries.toml).

The doctor turns a framework's failed load of `libcudnn.so.9` into the distribution the
framework pins (nvidia-cudnn-cu13==9.24.0.43 for torch 2.14.1): envcheck/diagnose/wheel_fixes.py.
Loaded strictly with the row reader of `envcheck.matrix.rows`, so a bad row is a one-line
MatrixDataError naming it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from envcheck.distribution_names import canonical_name
from envcheck.matrix import rows as matrix_rows
from envcheck.record import record

FILE = "wheel_libraries.toml"
# A Linux shared object's name before ".so": lib<letters, digits, _ + ->.
_LIBRARY = re.compile(r"lib[A-Za-z0-9_+-]{1,80}")
# A name of the family: the distribution itself or it with a CUDA major's suffix.
_SUFFIX = re.compile(r"-cu[0-9]{1,3}")


@record
class WheelLibraries:
    """The shared objects the wheels of `distribution` (in any CUDA major's name) install."""

    distribution: str  # canonical, without the -cu<N> suffix: nvidia-cudnn
    libraries: tuple[str, ...]  # names before ".so": libcudnn, libcublasLt
    sources: tuple[str, ...]

    def ships(self, stem: str) -> bool:
        """Whether a file named `stem`.so[.N] is one of them (or a sub-library: stem_*, -*)."""
        return any(
            stem == name or stem.startswith((f"{name}_", f"{name}-")) for name in self.libraries
        )

    def names(self, distribution: str) -> bool:
        """Whether `distribution` (canonical) is one of this family's: nvidia-cudnn-cu13."""
        if distribution == self.distribution:
            return True
        rest = distribution.removeprefix(self.distribution)
        return rest != distribution and _SUFFIX.fullmatch(rest) is not None


def shipping(wheels: Sequence[WheelLibraries], file_name: str) -> WheelLibraries | None:
    """The family whose wheels install `file_name` (libcudnn.so.9), or None."""
    stem = file_name.split(".", 1)[0]  # libnvrtc.alt.so.13 is NVRTC's too
    return next((wheel for wheel in wheels if wheel.ships(stem)), None)


def load_wheel_libraries(directory: Path) -> tuple[WheelLibraries, ...]:
    data = matrix_rows.read_toml(directory, FILE)
    matrix_rows.check_top_level(data, FILE, {"wheel"})
    sources = matrix_rows.read_sources(data, FILE)
    wheels: list[WheelLibraries] = []
    seen: dict[str, str] = {}
    for row in matrix_rows.table_rows(data, FILE, "wheel", sources):
        distribution = row.string("distribution")
        wanted = canonical_name(distribution)
        if wanted != distribution:
            raise row.error("distribution", f"write it as the index compares names: {wanted!r}")
        if _SUFFIX.search(distribution):
            raise row.error("distribution", "write the name without its -cu<N> suffix")
        libraries = row.string_list("libraries")
        for name in libraries:
            if _LIBRARY.fullmatch(name) is None:
                raise row.error("libraries", f"{name!r} is not a library's name before '.so'")
            if name in seen:
                raise row.error("libraries", f"{name!r} is {seen[name]}'s already")
            seen[name] = distribution
        wheels.append(WheelLibraries(distribution, libraries, row.sources()))
        row.done()
    return tuple(wheels)
