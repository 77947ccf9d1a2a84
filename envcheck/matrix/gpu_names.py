"""Match a GPU name the way people and tools write it to a row of the GPU table.

"RTX 3060", "GeForce RTX 3060", "NVIDIA GeForce RTX 3060 Laptop GPU" and NVML's "NVIDIA H100 80GB
HBM3" all name rows of gpus.toml: vendor and brand words, laptop markers, memory sizes and form
factors do not change the compute capability, so they are dropped before comparing. Words that do
tell models apart ("Quadro", "Ti", "Ada", "Super") are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from envcheck.errors import InputError
from envcheck.matrix.records import Gpu
from envcheck.record import record
from envcheck.versions import ComputeCapability

# Words that never distinguish two models with different compute capabilities.
_NOISE = frozenset(
    {
        "nvidia",
        "geforce",
        "tesla",
        "laptop",
        "notebook",
        "mobile",
        "gpu",
        "graphics",
        "maxq",
        "max-q",
        "design",
        "with",
        "generation",
        "oem",
        "lhr",
        "pcie",
        "sxm",
        "sxm2",
        "sxm3",
        "sxm4",
        "sxm5",
        "sxm6",
        "nvl",
        "hbm2",
        "hbm2e",
        "hbm3",
        "hbm3e",
        "mig",
    }
)
# Memory sizes ("80GB", "16g", "24gb") and bare "gb" left after splitting.
_MEMORY = re.compile(r"^\d+(gb|g)$|^gb$")


def name_key(name: str) -> str:
    """The comparable form of a GPU name: lower case, noise words removed, single spaces."""
    text = name.lower().replace("™", " ").replace("®", " ")
    text = re.sub(r"max-q", " maxq ", text)
    text = re.sub(r"[-_/,()]", " ", text)
    # "RTX3060" and "GTX1080Ti" are common spellings of "RTX 3060" and "GTX 1080 Ti".
    text = re.sub(r"\b(rtx|gtx|gt|mx|quadro)(\d)", r"\1 \2", text)
    text = re.sub(r"(\d)(ti|super)\b", r"\1 \2", text)
    words = [w for w in text.split() if w not in _NOISE and not _MEMORY.match(w)]
    return " ".join(words)


@record
class GpuIndex:
    """Lookup of GPU rows by name key; built once from the matrix."""

    by_key: dict[str, Gpu]

    @classmethod
    def build(cls, gpus: Iterable[Gpu]) -> GpuIndex:
        by_key: dict[str, Gpu] = {}
        for gpu in gpus:
            for spelling in (gpu.name, *gpu.aliases):
                by_key.setdefault(name_key(spelling), gpu)
        return cls(by_key)

    def capability(self, name: str) -> ComputeCapability | None:
        """The compute capability of `name`, or None when the table cannot tell which GPU."""
        try:
            return self.find(name).compute_capability
        except InputError:
            return None

    def find(self, name: str) -> Gpu:
        """The row for `name`; InputError listing the closest known names when none fits."""
        key = name_key(name)
        if not key:
            raise InputError(f"GPU name {name!r} is empty after removing brand words")
        exact = self.by_key.get(key)
        if exact is not None:
            return exact
        # "P4000" for "Quadro P4000": accept when the typed words name exactly one model.
        words = set(key.split())
        containing = {gpu.name: gpu for k, gpu in self.by_key.items() if words <= set(k.split())}
        if len(containing) == 1:
            return next(iter(containing.values()))
        if containing:
            names = sorted(containing)[:8]
            raise InputError(
                f"GPU name {name!r} is ambiguous: it could be {', '.join(names)}; "
                "give the full name or --compute-capability"
            )
        import difflib  # noqa: PLC0415 - only an unknown name needs it

        close = difflib.get_close_matches(key, list(self.by_key), n=5, cutoff=0.6)
        suggestions = sorted({self.by_key[k].name for k in close})
        hint = f" Closest known names: {', '.join(suggestions)}." if suggestions else ""
        raise InputError(
            f"GPU {name!r} is not in the GPU table.{hint} "
            "Pass --compute-capability X.Y if you know it."
        )
