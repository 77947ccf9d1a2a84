"""What each installed framework was built with, as the rules read it: one record per framework.

TensorFlow's comes from its build info and the matrix row of its release (Context); PyTorch's from
torch/version.py (`cuda = '13.0'`, None for CPU and ROCm builds); JAX's from its parts: a
jax-cudaNN plugin is built for CUDA NN, a jaxlib before 0.4.26 names its CUDA in its local version
(+cuda12.cudnn89), and a jaxlib with neither runs on the CPU only. Unknown stays None: a build
that cannot be told is never taken for a CPU build.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from packaging.version import InvalidVersion, Version

from envcheck.framework_names import framework_of, label
from envcheck.matrix.records import TorchBuild
from envcheck.probe.facts import FrameworkFacts
from envcheck.record import record
from envcheck.versions import CudaTarget


@record
class FrameworkBuild:
    key: str  # tensorflow | torch | jax
    parts: tuple[FrameworkFacts, ...]  # the framework's installed distributions, main one first
    is_cuda_build: bool | None  # None: cannot tell
    cuda: Version | None  # the CUDA it was built with (a JAX plugin tells the major only)
    cudnn: Version | None
    targets: tuple[CudaTarget, ...]  # GPU architectures it ships kernels for; () unknown
    # Where the build's own target list is unknown, the CUDA whose toolkit bounds `targets`:
    # a build holds no kernel its nvcc could not compile (bounded_by_toolkit).
    bounded_by: Version | None = None

    @property
    def label(self) -> str:
        return label(self.key)

    @property
    def main(self) -> FrameworkFacts:
        return self.parts[0]

    @property
    def version(self) -> Version | None:
        try:
            return Version(self.main.version)
        except InvalidVersion:
            return None

    @property
    def installed(self) -> str:
        """'torch 2.14.1+cu130', 'jax 0.7.2, jaxlib 0.7.2, jax-cuda12-plugin 0.7.2'."""
        return ", ".join(f"{part.distribution} {part.version}" for part in self.parts)

    @property
    def found(self) -> str:
        """The component table's 'found': what is installed and the CUDA it was built for."""
        if self.is_cuda_build is False:
            return f"{self.installed} (CPU only)"
        return f"{self.installed} (CUDA {self.cuda})" if self.cuda else self.installed


def bounded_by_toolkit(
    build: FrameworkBuild, capabilities: Sequence[CudaTarget], ptx: bool
) -> FrameworkBuild:
    """A CUDA build whose own target list is unknown, with the most it can hold: SASS for what
    its CUDA toolkit's nvcc can compile (`capabilities`, matrix/cuda_architectures.toml) and,
    with `ptx` (TensorFlow ships PTX of its newest target), PTX of the newest. A GPU newer or
    older than all of them has no kernels in the build whatever its release (an RTX 3090,
    CC 8.6, under a CUDA 10 build; a K80, CC 3.7, under a CUDA 12 one)."""
    if build.targets or build.is_cuda_build is False or build.cuda is None or not capabilities:
        return build
    targets = tuple(capabilities)
    if ptx:
        targets += (CudaTarget("ptx", max(t.capability for t in capabilities)),)
    return replace(build, targets=targets, bounded_by=build.cuda)


def _version(text: object) -> Version | None:
    try:
        return Version(str(text)) if text else None
    except InvalidVersion:
        return None


def _newest(versions: Iterable[Version | None]) -> Version | None:
    return max((v for v in versions if v is not None), default=None)


def torch_variant(torch: FrameworkFacts) -> str | None:
    """The PyTorch variant of an install: its local version tag (2.14.1+cu130 -> cu130, +cpu),
    from torch/version.py's __version__ or the distribution's; else the CUDA it names."""
    raw = torch.build.get("raw")
    texts = [raw.get("__version__") if isinstance(raw, dict) else None, torch.version]
    for text in texts:
        version = _version(text)
        if version is not None and version.local:
            return version.local
    cuda = _version(torch.build.get("cuda_version"))
    if cuda is not None:
        return "cu" + "".join(str(part) for part in cuda.release[:2])
    return "cpu" if torch.build.get("is_cuda_build") is False else None


def torch_row(rows: Sequence[TorchBuild], torch: FrameworkFacts) -> TorchBuild | None:
    """The matrix row (release series x variant) of an installed torch, when it has one."""
    version, variant = _version(torch.version), torch_variant(torch)
    if version is None or variant is None:
        return None
    public = Version(version.public)
    return next((r for r in rows if r.variant == variant and public in r.versions), None)


def torch_build(torch: FrameworkFacts, row: TorchBuild | None = None) -> FrameworkBuild:
    """`row` (torch_row) gives the GPU architectures the build ships kernels for."""
    flag = torch.build.get("is_cuda_build")
    cuda = _version(torch.build.get("cuda_version"))
    if not isinstance(flag, bool):
        # No version.py read: a local version tag still tells the variant (2.5.1+cpu, +cu124).
        flag = False if torch_variant(torch) == "cpu" else None
    targets: tuple[CudaTarget, ...] = ()
    if row is not None and row.arch_list and flag is not False:
        targets = tuple(CudaTarget("sass", capability) for capability in row.arch_list)
    cudnn = row.cudnn if row is not None else None
    return FrameworkBuild("torch", (torch,), flag, cuda, cudnn, targets)


def jax_build(parts: Sequence[FrameworkFacts]) -> FrameworkBuild:
    order = {"jax": 0, "jaxlib": 1}
    ordered = tuple(sorted(parts, key=lambda p: (order.get(p.name, 2), p.name)))
    cuda_parts = [p for p in ordered if p.build.get("is_cuda_build") is True]
    cuda = max(
        (v for p in cuda_parts if (v := _version(p.build.get("cuda_version")))), default=None
    )
    cudnn = max(
        (v for p in cuda_parts if (v := _version(p.build.get("cudnn_version")))), default=None
    )
    has_jaxlib = any(p.name == "jaxlib" for p in ordered)
    flag: bool | None = True if cuda_parts else (False if has_jaxlib else None)
    return FrameworkBuild("jax", ordered, flag, cuda, cudnn, ())


def group_frameworks(frameworks: Sequence[FrameworkFacts]) -> dict[str, list[FrameworkFacts]]:
    """The installed distributions of each judged framework, in FRAMEWORKS order of discovery.

    Only the first install of a name counts (the one the search path finds first); later ones are
    shadowed copies the frameworks probe reports as problems of their own."""
    groups: dict[str, list[FrameworkFacts]] = {}
    seen: set[str] = set()
    for facts in frameworks:
        key = framework_of(facts.name)
        if key is None or facts.name in seen:
            continue
        seen.add(facts.name)
        groups.setdefault(key, []).append(facts)
    return groups
