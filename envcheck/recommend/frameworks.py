"""Rank PyTorch builds (release x CUDA variant) and JAX CUDA plugins for a described machine.

The same shape of answer as `rank.py` gives for TensorFlow: GPU candidates when every rule
passes (or none fails and some cannot be decided: "unverified"), CPU-only builds when none can
use the GPU, and one reason per failed rule for every rejected build. Pure: a matrix and a
machine in, data out; the install commands come from envcheck/matrix/recipes.py.
"""

from __future__ import annotations

from typing import Literal

from packaging.version import Version

from envcheck.framework_names import label
from envcheck.matrix.model import Matrix, tensorflow_specifier
from envcheck.matrix.recipes import Recipe, jax_recipe, torch_recipe
from envcheck.matrix.records import JaxPlugin, TorchBuild
from envcheck.matrix.rules import (
    Outcome,
    Status,
    driver_branch_supports_gpu,
    driver_knows_gpu,
    driver_supports_cuda,
    gpu_runs_build,
)
from envcheck.recommend.machine import MachineDescription
from envcheck.record import record
from envcheck.versions import PythonVersion

FrameworkStatus = Literal["compatible", "unverified", "cpu-only"]
# JAX's CUDA plugins are Linux wheels (WSL2 runs them); the machine's platform names these.
JAX_GPU_PLATFORMS = ("linux-x86_64", "linux-aarch64")


@record
class FrameworkCandidate:
    version: Version
    build: str  # the torch variant (cu130, cpu) or the jax extra (cuda12; "cpu" for jax alone)
    cuda: str | None
    kind: str  # "gpu" or "cpu"
    status: FrameworkStatus
    commands: tuple[str, ...]
    notes: tuple[str, ...]
    # What install and fetch act on: the same recipe whose pip command `commands` shows.
    recipe: Recipe


@record
class FrameworkRejection:
    version: Version
    build: str
    reasons: tuple[str, ...]  # one sentence per failed rule


@record
class FrameworkRecommendation:
    framework: str  # "torch" or "jax"
    machine: MachineDescription
    spec: str | None
    candidates: tuple[FrameworkCandidate, ...]
    rejected: tuple[FrameworkRejection, ...]

    @property
    def has_gpu_candidate(self) -> bool:
        return any(c.kind == "gpu" and c.status == "compatible" for c in self.candidates)

    @property
    def display_name(self) -> str:
        return label(self.framework)


def _pick(versions: tuple[Version, ...], spec: str | None) -> Version | None:
    """The newest version of a row inside `spec` (same spelling as --tensorflow: 2.14 = 2.14.*)."""
    if spec is None:
        return versions[-1]
    specifier = tensorflow_specifier(spec)
    inside = [v for v in versions if v in specifier]
    return max(inside) if inside else None


def _python(name: str, pythons: tuple[PythonVersion, ...], python: PythonVersion) -> Outcome:
    if python in pythons:
        return Outcome("python", Status.OK, f"Python {python} is supported")
    span = f"{pythons[0]}-{pythons[-1]}" if pythons else "none"
    return Outcome(
        "python",
        Status.INCOMPATIBLE,
        f"{name} has no wheel for Python {python} (it has Python {span})",
    )


def _driver(matrix: Matrix, machine: MachineDescription, cuda: Version) -> Outcome:
    if machine.driver is None:
        return Outcome("driver", Status.INCOMPATIBLE, machine.without_driver_reason())
    return driver_supports_cuda(matrix, cuda, machine.driver, machine.os, needs_ptx_jit=False)


def _torch_gpu(matrix: Matrix, build: TorchBuild, machine: MachineDescription) -> Outcome:
    """Usable when at least one GPU has native kernels in the build (PyTorch ships no PTX in
    the wheels recorded, so a GPU without its sm_ gets "no kernel image is available")."""
    if build.arch_list is None:
        return Outcome(
            "gpu",
            Status.UNKNOWN,
            f"pytorch.toml records no GPU architecture list for torch {build.series} "
            f"{build.variant}",
        )
    if not machine.gpus:
        return Outcome(
            "gpu",
            Status.UNKNOWN,
            "the GPU is unknown; pass --gpu NAME or --compute-capability X.Y to check it",
        )
    outcomes = []
    for gpu in machine.gpus:
        runs = gpu_runs_build(gpu.compute_capability, build.arch_list, ())
        if runs.ok and gpu.compute_capability is not None and machine.driver is not None:
            for check in (
                driver_branch_supports_gpu(matrix, gpu.compute_capability, machine.driver),
                driver_knows_gpu(matrix, gpu.compute_capability, machine.driver, machine.os),
            ):
                if check.status is Status.INCOMPATIBLE:
                    runs = check
                    break
        outcomes.append(runs)
    usable = [o for o in outcomes if o.ok]
    if usable:
        return usable[0]
    if any(o.status is Status.UNKNOWN for o in outcomes):
        return Outcome("gpu", Status.UNKNOWN, outcomes[0].message)
    if any(
        g.compute_capability is not None
        and not gpu_runs_build(g.compute_capability, build.arch_list, ()).ok
        for g in machine.gpus
    ):
        sms = ", ".join(f"sm_{c.major}{c.minor}" for c in build.arch_list)
        capabilities = ", ".join(str(g.compute_capability) for g in machine.gpus)
        return Outcome(
            "gpu",
            Status.INCOMPATIBLE,
            f"no native kernels for CC {capabilities} in torch {build.series} {build.variant} "
            f"(it ships {sms})",
        )
    return outcomes[0]  # the driver cannot run this GPU at all (branch or age)


def _torch_rules(
    matrix: Matrix, build: TorchBuild, machine: MachineDescription
) -> tuple[list[Outcome], list[Outcome]]:
    """(install rules, GPU rules) for one build."""
    label = f"torch {build.latest} {build.variant}"
    if machine.platform in build.platforms:
        platform = Outcome("platform", Status.OK, f"{label} has {machine.platform} wheels")
    else:
        platform = Outcome(
            "platform", Status.INCOMPATIBLE, f"{label} has no wheel for {machine.platform}"
        )
    install = [platform, _python(label, build.python, machine.python)]
    if build.cuda is None:
        return install, []
    return install, [_driver(matrix, machine, build.cuda), _torch_gpu(matrix, build, machine)]


def _failed(outcomes: list[Outcome]) -> list[str]:
    return [o.message for o in outcomes if o.status is Status.INCOMPATIBLE]


def _newest_first(version: Version) -> tuple[int, ...]:
    return tuple(-part for part in version.release)


def recommend_torch(
    matrix: Matrix,
    machine: MachineDescription,
    spec: str | None = None,
    index_base: str | None = None,
) -> FrameworkRecommendation:
    gpu: list[tuple[tuple[object, ...], FrameworkCandidate]] = []
    cpu: list[FrameworkCandidate] = []
    rejected: list[FrameworkRejection] = []
    for build in matrix.torch_builds:
        version = _pick(build.versions, spec)
        if version is None:
            continue
        install, gpu_rules = _torch_rules(matrix, build, machine)
        recipe = torch_recipe(build, version, machine.platform, index_base)
        notes = [n for o in gpu_rules for n in o.notes]
        if _failed(install) or _failed(gpu_rules):
            rejected.append(
                FrameworkRejection(version, build.variant, (*_failed(install), *_failed(gpu_rules)))
            )
            continue
        if build.cuda is None:
            cpu.append(
                FrameworkCandidate(
                    version, "cpu", None, "cpu", "cpu-only", (recipe.pip_command(),), (), recipe
                )
            )
            continue
        unknown = [o.message for o in gpu_rules if o.status is Status.UNKNOWN]
        candidate = FrameworkCandidate(
            version,
            build.variant,
            str(build.cuda),
            "gpu",
            "unverified" if unknown else "compatible",
            (recipe.pip_command(),),
            tuple(dict.fromkeys([*unknown, *notes])),
            recipe,
        )
        # Confirmed first, then the newest release; within one release the index's default
        # wheel (no extra index to configure), then the newest CUDA.
        key = (
            candidate.status != "compatible",
            _newest_first(version),
            machine.platform not in build.pypi_default,
            _newest_first(build.cuda),
        )
        gpu.append((key, candidate))
    candidates: list[FrameworkCandidate]
    if gpu:
        candidates = [c for _, c in sorted(gpu, key=lambda pair: pair[0])]
        rejected.extend(
            FrameworkRejection(c.version, c.build, ("a CPU-only build, and a GPU build fits",))
            for c in cpu
        )
    else:
        candidates = sorted(cpu, key=lambda c: _newest_first(c.version))
    rejected.sort(key=lambda r: (_newest_first(r.version), r.build))
    return FrameworkRecommendation("torch", machine, spec, tuple(candidates), tuple(rejected))


def _jax_rules(matrix: Matrix, plugin: JaxPlugin, machine: MachineDescription) -> list[Outcome]:
    label = f"jax {plugin.jax} [{plugin.extra}]"
    if machine.platform in JAX_GPU_PLATFORMS:
        platform = Outcome("platform", Status.OK, f"{plugin.plugin} has Linux wheels")
    else:
        platform = Outcome(
            "platform",
            Status.INCOMPATIBLE,
            f"{plugin.plugin} is a Linux wheel; there is none for {machine.platform}",
        )
    cuda = Version(f"{plugin.cuda_major}.0")
    return [
        platform,
        _python(label, plugin.python, machine.python),
        _driver(matrix, machine, cuda),
    ]


def recommend_jax(
    matrix: Matrix, machine: MachineDescription, spec: str | None = None
) -> FrameworkRecommendation:
    """The jax[cudaNN] extras the machine can use; the GPU's architecture is not checked
    (jax.toml records none), which every candidate says."""
    gpu: list[FrameworkCandidate] = []
    rejected: list[FrameworkRejection] = []
    pythons: dict[Version, tuple[PythonVersion, ...]] = {}
    for plugin in matrix.jax_plugins:
        version = _pick((plugin.jax,), spec)
        if version is None:
            continue
        pythons[version] = tuple(sorted({*pythons.get(version, ()), *plugin.python}))
        outcomes = _jax_rules(matrix, plugin, machine)
        failed = _failed(outcomes)
        if failed:
            rejected.append(FrameworkRejection(version, plugin.extra, tuple(failed)))
            continue
        unknown = [o.message for o in outcomes if o.status is Status.UNKNOWN]
        notes = [n for o in outcomes for n in o.notes]
        recipe = jax_recipe(plugin, version)
        gpu.append(
            FrameworkCandidate(
                version,
                plugin.extra,
                f"{plugin.cuda_major}.x",
                "gpu",
                "unverified" if unknown else "compatible",
                (recipe.pip_command(),),
                (
                    *unknown,
                    *notes,
                    f"cuDNN from the plugin's requirement {plugin.cudnn}; the GPU's "
                    "architecture is not checked for JAX",
                ),
                recipe,
            )
        )
    if gpu:
        # Within one release the newer CUDA plugin first: both fit the driver here.
        candidates = sorted(
            gpu,
            key=lambda c: (
                c.status != "compatible",
                _newest_first(c.version),
                -int(c.build.removeprefix("cuda")),
            ),
        )
    else:
        # jax alone runs on the CPU; its Python versions are taken from the plugin rows.
        candidates = [
            FrameworkCandidate(
                version,
                "cpu",
                None,
                "cpu",
                "cpu-only",
                (jax_recipe(None, version).pip_command(),),
                (),
                jax_recipe(None, version),
            )
            for version, supported in sorted(pythons.items(), key=lambda i: _newest_first(i[0]))
            if machine.python in supported
        ]
    rejected.sort(key=lambda r: (_newest_first(r.version), r.build))
    return FrameworkRecommendation("jax", machine, spec, tuple(candidates), tuple(rejected))
