"""Who wrote a file under site-packages/nvidia/, and the CUDA major that copy is built for.

Two wheels can write one file (nvidia-cudnn-cu12 and -cu13 both install
nvidia/cudnn/lib/libcudnn.so.9); the distribution whose RECORD lists the file, by size and by
hash when sizes tie, is its owner. Used by the static loader model (framework_loading.py) and
the import-order probe (import_order.py); kept apart from the latter so that `doctor
--no-smoke`, which runs no import order, does not load the order and smoke-test code.
Facts only: it reads RECORDs and files, never loads a library, and judges nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Optional

from envcheck.probe import file_system
from envcheck.record import record

RECORD_LIMIT = 4 * 1024 * 1024  # characters of a RECORD read (nvidia wheels' are ~10 KB)
_NVIDIA_ROW = re.compile(r"^nvidia/[^\r\n]*", re.MULTILINE)  # one anchored class run: linear
HASH_LIMIT = 1 << 30  # bytes: hash a file only up to this size when sizes cannot tell
# Library name prefixes of the CUDA stack whose copies are compared (Linux sonames; Windows
# DLLs are keyed by their whole name, e.g. cudnn64_9.dll).
CUDA_STACK = (
    "libcudnn",
    "libcublasLt",
    "libcublas",
    "libcudart",
    "libnccl",
    "libnvrtc",
    "libcusparseLt",
    "libcusparse",
    "libcufft",
    "libcurand",
    "libcusolver",
    "libcupti",
    "libnvJitLink",
    "libnvshmem_host",
    "libcufile",
)
_WINDOWS_STACK = ("cudnn", "cublas", "cudart", "nvrtc", "cusparse", "cufft", "curand", "cusolver")


def library_key(path: str) -> str | None:
    """The soname a mapped file answers to, or None when it is not a CUDA-stack library:
    .../libcudnn.so.9.1.0 -> libcudnn.so.9, libnvrtc-builtins.so.12.9 -> libnvrtc-builtins.so.12,
    C:\\...\\cudnn64_9.dll -> cudnn64_9.dll."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    lower = base.lower()
    if lower.endswith(".dll"):
        return lower if lower.startswith(_WINDOWS_STACK) else None
    stem, dot_so, versions = base.partition(".so")
    if not dot_so or not stem.startswith(CUDA_STACK):
        return None
    if stem.startswith("libcudnn_"):
        return None  # cuDNN 9's sub-libraries open beside libcudnn.so.9: that copy decides
    major = versions[1:].split(".", 1)[0] if versions.startswith(".") else ""
    return f"{stem}.so.{major}" if major.isdigit() else f"{stem}.so"


@record
class CopyOwner:
    """Which installed distribution wrote a mapped file, and the CUDA major it is built for."""

    path: str
    distribution: str | None  # e.g. nvidia-cudnn-cu12 9.28.0.42
    cuda: str | None  # "12"
    via: str  # how: "path" (nvidia/cu13/), "RECORD (size)", "RECORD (sha256)", "unknown: ..."


def path_cuda(path: str) -> str | None:
    """The CUDA major a directory on the path names: nvidia/cu13/lib, /usr/local/cuda-12.4/."""
    for part in Path(path).parts[:-1]:
        lower = part.lower()
        for prefix in ("cuda-", "cu"):
            digits = lower[len(prefix) :].split(".", 1)[0]
            if lower.startswith(prefix) and digits.isdigit() and len(digits) <= 2:
                return digits
    return None


def _name_cuda(distribution: str) -> str | None:
    """nvidia-cudnn-cu12 -> 12 (the CUDA 12 build of a library that keeps its soname)."""
    suffix = distribution.lower().replace("_", "-").rsplit("-", 1)[-1]
    digits = suffix[2:]
    return digits if suffix.startswith("cu") and digits.isdigit() else None


Claim = tuple[str, str, Optional[int]]  # (distribution, sha256, size) from one RECORD row


def copy_owner(path: str) -> CopyOwner:
    """Who wrote `path`: the distribution whose RECORD lists it (two wheels can write one
    file: nvidia-cudnn-cu12 and -cu13 both install nvidia/cudnn/lib/libcudnn.so.9, and the
    file is the last installed one's), and so its CUDA major."""
    return copy_owners([path])[0]


def copy_owners(
    paths: Sequence[str], sites: dict[str, dict[str, list[Claim]]] | None = None
) -> tuple[CopyOwner, ...]:
    """copy_owner of each path, each site directory's RECORDs read once for all of them: read
    per path, TensorFlow's (~3 MB) and torch's (~1.4 MB) made 22 paths cost over a second.
    `sites` (site -> site_claims) is the reads a caller has made already, and keeps these."""
    sites = {} if sites is None else sites
    return tuple(_copy_owner(path, sites) for path in paths)


def site_claims(site: str) -> dict[str, list[Claim]]:
    """RECORD path under nvidia/ -> the claims on it of every distribution in `site`."""
    claims: dict[str, list[Claim]] = {}
    for info in file_system.matching(site, "*.dist-info"):
        data = file_system.read_bytes_limited(info / "RECORD", RECORD_LIMIT)
        # A row under nvidia/ starts a line: TensorFlow's and torch's RECORDs (MBs) have none,
        # and a search of the bytes passes them at memory speed, undecoded (decoding keeps
        # every ASCII byte), where a MULTILINE scan steps each byte.
        if not data or not (data.startswith(b"nvidia/") or b"\nnvidia/" in data):
            continue
        record = data.decode("utf-8", errors="replace")
        # The rows under nvidia/ found by one linear scan in C: TensorFlow's RECORD has ~30,000
        # rows and torch's ~15,000, and a Python test per row cost more than the rest.
        add_claims(claims, info.name, _NVIDIA_ROW.findall(record))
    return claims


def add_claims(claims: dict[str, list[Claim]], dist_info: str, rows: Iterable[str]) -> None:
    """Add the claims of RECORD `rows` (lines under nvidia/) of the `dist_info` directory: what
    site_claims makes of each RECORD it reads, and of the rows the framework scan's child
    found the same way (children/frameworks.py), which spares the doctor reading them again."""
    distribution = _distribution(dist_info)
    for line in rows:
        fields = line.split(",")
        digest = fields[1].partition("sha256=")[2] if len(fields) > 1 else ""
        size = int(fields[2]) if len(fields) > 2 and fields[2].isdigit() else None
        claims.setdefault(fields[0], []).append((distribution, digest, size))


def _copy_owner(path: str, sites: dict[str, dict[str, list[Claim]]]) -> CopyOwner:
    by_path = path_cuda(path)
    site, marker, relative = path.replace("\\", "/").rpartition("/nvidia/")
    if not marker:
        return CopyOwner(path, None, by_path, "path" if by_path else "unknown: not from a wheel")
    if site not in sites:
        sites[site] = site_claims(site)
    claims = list(sites[site].get(f"nvidia/{relative}", ()))
    if not claims:
        return CopyOwner(path, None, by_path, "path" if by_path else "unknown: in no RECORD")
    how = "RECORD"
    if len(claims) > 1:
        size = file_system.file_size(path)
        same = [c for c in claims if c[2] == size]
        how = "RECORD (size)"
        if len(same) != 1:
            actual = file_system.sha256_urlsafe(path, HASH_LIMIT)
            same = [c for c in claims if actual and c[1] == actual]
            how = "RECORD (sha256)"
        if len(same) != 1:
            names = ", ".join(c[0] for c in claims)
            return CopyOwner(path, None, by_path, f"unknown: claimed by {names}, matches none")
        claims = same
    distribution = claims[0][0]
    cuda = by_path or _name_cuda(distribution.split(" ", 1)[0])
    return CopyOwner(path, distribution, cuda, how)


def _distribution(dist_info: str) -> str:
    """nvidia_cudnn_cu12-9.28.0.42.dist-info -> nvidia-cudnn-cu12 9.28.0.42."""
    name, _, version = dist_info[: -len(".dist-info")].partition("-")
    return f"{name.replace('_', '-').lower()} {version}".strip()
