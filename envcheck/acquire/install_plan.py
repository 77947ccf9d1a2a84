"""The installation plan: which exact requirements go to the installer, and what they change.

The plan follows the best candidate of `recommend` for the target interpreter's machine (this
host's OS and driver, the interpreter's own architecture and Python version), so `envcheck
install` never disagrees with `envcheck recommend --python-version X.Y`. The requirements mirror
`recommend.gpu_commands` / `cpu_commands`: the TensorFlow pin (with the `and-cuda` extra on
Linux and WSL2 from 2.14 on), then the release's install_pins; on native Windows (2.10 and
earlier) the CUDA/cuDNN setup stays a manual step. The only I/O here is one read-only child
process in the target interpreter (`read_target`); it never installs anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from enum import Enum
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envcheck.acquire.install_errors import NoPlanError
from envcheck.distribution_names import canonical_name
from envcheck.errors import EnvcheckError, InputError
from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.model import Matrix
from envcheck.matrix.recipes import Recipe, install_recipe, wants_gpu
from envcheck.matrix.rules import gpu_build_available
from envcheck.platforms import normalize_arch
from envcheck.probe.interpreter import describe_interpreter
from envcheck.recommend.frameworks import (
    FrameworkCandidate,
    FrameworkRecommendation,
    recommend_jax,
    recommend_torch,
)
from envcheck.recommend.machine import (
    MachineDescription,
    describe_machine,
    recommend_command,
    with_capabilities,
)
from envcheck.recommend.rank import Candidate, Recommendation, recommend
from envcheck.record import record
from envcheck.versions import PythonVersion

TARGET_TIMEOUT_S = 30.0
_RECOMMEND_GPU_FLAGS = "pass --gpu NAME or --compute-capability X.Y to check it"
_INSTALL_GPU_HINT = (
    "no GPU was detected here, so the build was not checked against one "
    "(envcheck recommend --gpu NAME checks a model)"
)

# Distributions that install into the same tensorflow/ directory as `tensorflow`: two of them in
# one environment overwrite each other's files (see the frameworks probe). tensorflow-intel is
# left out: it is what `tensorflow` itself depends on for Windows 2.11-2.15.
TENSORFLOW_VARIANTS = (
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-aarch64",
    "tensorflow-cpu-aws",
    "intel-tensorflow",
    "tf-nightly",
    "tf-nightly-cpu",
    "tf-nightly-gpu",
)


@record
class TargetInterpreter:
    """The interpreter to install into, as it describes itself."""

    path: str  # as the user gave it (or this interpreter)
    executable: str  # sys.executable of the target
    python: str  # full version, e.g. 3.11.7
    machine: str  # platform.machine() of the target, e.g. x86_64, AMD64, arm64
    prefix: str
    base_prefix: str
    conda: bool  # prefix holds conda-meta/: a conda environment
    distributions: dict[str, str] | None  # canonical name -> version; None: could not list

    @property
    def is_environment(self) -> bool:
        """A virtual environment or a conda environment, not a system-wide interpreter."""
        return self.prefix != self.base_prefix or self.conda

    @property
    def feature_version(self) -> PythonVersion:
        return PythonVersion.parse(".".join(self.python.split(".")[:2]))


def target_from_child(path: str, data: Mapping[str, object]) -> TargetInterpreter:
    """The child's JSON -> TargetInterpreter (pure); InputError when it is not what we asked."""
    python, machine = data.get("python"), data.get("machine")
    if not isinstance(python, str) or not isinstance(machine, str):
        raise InputError(f"--python {path!r} did not report its version and machine")
    distributions: dict[str, str] | None = None
    raw = data.get("distributions")
    if isinstance(raw, list):
        distributions = {}
        for item in raw:
            if isinstance(item, list) and len(item) == 2 and all(isinstance(v, str) for v in item):
                distributions.setdefault(canonical_name(item[0]), item[1])
    prefix = str(data.get("prefix", ""))
    return TargetInterpreter(
        path=path,
        executable=str(data.get("executable", path)),
        python=python,
        machine=machine,
        prefix=prefix,
        base_prefix=str(data.get("base_prefix", prefix)),
        conda=data.get("conda") is True,
        distributions=distributions,
    )


def read_target(path: str, timeout: float = TARGET_TIMEOUT_S) -> TargetInterpreter:
    """Ask the target interpreter once (probe's interpreter child, under the child runner's
    timeout and process-group handling) its version, machine and installed distributions."""
    if not Path(path).exists():
        raise InputError(f"--python {path!r} does not exist")
    found = describe_interpreter(path, timeout, distributions=True)
    return target_from_child(
        path,
        {
            "python": found.version,
            "machine": found.machine,
            "executable": found.executable,
            "prefix": found.prefix or "",
            "base_prefix": found.base_prefix or found.prefix or "",
            "conda": found.conda,
            "distributions": None
            if found.distributions is None
            else [list(item) for item in found.distributions],
        },
    )


def target_machine(matrix: Matrix, target: TargetInterpreter) -> MachineDescription:
    """This host's OS and driver with the target interpreter's architecture and Python."""
    try:
        arch = normalize_arch(target.machine)
    except InputError:
        raise NoPlanError(
            f"{target.path} runs on {target.machine}; TensorFlow wheels exist for x86_64 and "
            "aarch64 only"
        ) from None
    machine = describe_machine(None, arch, str(target.feature_version), None, None)
    lookup = GpuIndex.build(matrix.gpus).capability

    via = f"the target interpreter {target.path}"
    found_via = {**machine.found_via, "arch": via, "python": via}
    return with_capabilities(replace(machine, found_via=found_via), lookup)


class Action(str, Enum):
    INSTALL = "install"  # not installed now
    KEEP = "keep"  # installed, and the installed version already fits
    REPLACE = "replace"  # installed in a version that does not fit
    UNKNOWN = "unknown"  # the target's distributions could not be listed


@record
class PlannedPackage:
    name: str  # canonical distribution name
    specifier: str  # '==2.15.1', '<13.0,>=12.5.3.2', '<2'
    via: str  # 'requested', 'tensorflow[and-cuda]' or 'install pin'
    installed: str | None  # the version installed now
    action: Action

    @property
    def exact(self) -> str | None:
        """The version when the specifier pins exactly one ('==X', no wildcard)."""
        specifiers = list(SpecifierSet(self.specifier))
        if (
            len(specifiers) == 1
            and specifiers[0].operator in ("==", "===")
            and (not specifiers[0].version.endswith(".*"))
        ):
            return specifiers[0].version
        return None


@record
class InstallPlan:
    target: TargetInterpreter
    machine: MachineDescription
    candidate: Candidate | FrameworkCandidate  # recommend's best: a TensorFlow release, or
    # a PyTorch build / JAX plugin (FrameworkCandidate)
    requirements: tuple[str, ...]  # exactly what the installer is given
    packages: tuple[PlannedPackage, ...]  # the framework, its CUDA wheels and the install pins
    manual_steps: tuple[str, ...]  # what pip cannot install (native Windows CUDA/cuDNN)
    notes: tuple[str, ...]
    # Another TensorFlow distribution installed in the target (tensorflow-cpu when the plan is
    # tensorflow): both own the tensorflow/ directory, so installing over it breaks both.
    conflicts: tuple[str, ...] = ()
    # The installed distribution that already is the planned CPU-only release ("tensorflow-cpu
    # 2.21.0"): nothing to install.
    already_installed: str | None = None
    # The recipe the requirements come from: its pip_command() is what recommend prints.
    recipe: Recipe | None = None
    # The index the installer must be given instead of the user's (a PyTorch variant's).
    index_url: str | None = None
    # Why the real run cannot install this plan (a PyTorch variant without --torch-index-url);
    # a dry run shows the plan and this sentence.
    refusal: str | None = None
    framework: str = "tensorflow"  # or "torch", "jax"

    @property
    def replaced(self) -> tuple[PlannedPackage, ...]:
        return tuple(p for p in self.packages if p.action is Action.REPLACE)


def _action(specifier: str, installed: str | None, known: bool) -> Action:
    if not known:
        return Action.UNKNOWN
    if installed is None:
        return Action.INSTALL
    try:
        fits = Version(installed) in SpecifierSet(specifier)
    except InvalidVersion:
        fits = False
    return Action.KEEP if fits else Action.REPLACE


def _package(requirement: str, via: str, distributions: Mapping[str, str] | None) -> PlannedPackage:
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement as exc:  # the matrix loader validates these; a bug if it happens
        raise EnvcheckError(f"matrix requirement {requirement!r} does not parse: {exc}") from exc
    name = canonical_name(parsed.name)
    installed = distributions.get(name) if distributions is not None else None
    specifier = str(parsed.specifier)
    return PlannedPackage(
        name, specifier, via, installed, _action(specifier, installed, distributions is not None)
    )


def _recipe(candidate: Candidate, machine: MachineDescription, build: str | None) -> Recipe:
    """recommend's candidate as installed: its own build, or the one --cpu/--gpu asks for
    (NoPlanError when the release has no GPU build there)."""
    gpu = wants_gpu(candidate.kind == "gpu", build)
    if gpu and candidate.kind != "gpu":
        available = gpu_build_available(
            candidate.release, "linux" if machine.os == "wsl" else machine.os, machine.arch
        )
        if not available.ok:
            raise NoPlanError(
                f"--gpu: TensorFlow {candidate.tensorflow} has no GPU build for "
                f"{machine.platform}: {available.message}; drop --gpu for the CPU package"
            )
    return install_recipe(candidate.release, candidate.tensorflow, machine.os, gpu=gpu)


def _no_candidate(recommendation: Recommendation, spec: str | None) -> NoPlanError:
    wanted = f"--tensorflow {spec!r}" if spec else "any TensorFlow release"
    if not recommendation.rejected:
        return NoPlanError(f"no TensorFlow release in the matrix matches {wanted}")
    newest = recommendation.rejected[0]
    reasons = "; ".join(newest.reasons) or "no reason recorded"
    advice = f" {' '.join(recommendation.advice)}" if recommendation.advice else ""
    return NoPlanError(
        f"{wanted} cannot be installed for Python {recommendation.machine.python} on "
        f"{recommendation.machine.platform}: TensorFlow {newest.tensorflow}: {reasons}.{advice}"
    )


def _wsl_instead(
    matrix: Matrix, machine: MachineDescription, best: Candidate, spec: str | None
) -> NoPlanError | None:
    """Native Windows without a GPU build of the wanted release: say what WSL2 would give."""
    if machine.os != "windows" or best.kind != "cpu":
        return None
    wsl = recommend(matrix, replace(machine, os="wsl"), spec, with_advice=False)
    top = next((c for c in wsl.candidates if c.kind == "gpu"), None)
    if top is None:
        return None
    last_native = max(
        (r for r in matrix.releases if r.windows_gpu), key=lambda r: r.latest, default=None
    )
    native = (
        f" For the GPU on native Windows, ask for --tensorflow {last_native.series} (the last "
        f"native Windows GPU release, Python {last_native.python[0]}-{last_native.python[-1]}, "
        f"CUDA {last_native.cuda} and cuDNN {last_native.cudnn} installed separately)."
        if last_native is not None
        else ""
    )
    return NoPlanError(
        f"TensorFlow {best.tensorflow} has no GPU support on native Windows (it ended with "
        f"2.10), so installing it here gives a CPU-only TensorFlow. In WSL2 on this machine, "
        f"TensorFlow {top.tensorflow} can use the GPU ({top.status}): install WSL2 (wsl --install "
        f"in an administrator PowerShell), then inside the Linux shell run {top.commands[0]} "
        f"(`{recommend_command(wsl.machine)}` shows the details).{native}"
    )


def make_plan(
    matrix: Matrix,
    machine: MachineDescription,
    spec: str | None,
    target: TargetInterpreter,
    build: str | None = None,
) -> InstallPlan:
    """The plan for `target` on `machine` (pure); NoPlanError when nothing fits. `build` "cpu"
    or "gpu" overrides the build recommend found the machine can use (--cpu, --gpu)."""
    recommendation = recommend(matrix, machine, spec)
    if not recommendation.candidates:
        raise _no_candidate(recommendation, spec)
    best = recommendation.candidates[0]
    refusal = _wsl_instead(matrix, machine, best, spec)
    if refusal is not None:
        raise refusal
    recipe = _recipe(best, machine, build)
    pin, extra, manual = recipe.requirements[0], recipe.extra, recipe.outside_pip
    dists = target.distributions
    packages = [_package(pin.replace(f"[{extra}]", "") if extra else pin, "requested", dists)]
    if extra:
        packages += [_package(r, f"tensorflow[{extra}]", dists) for r in best.release.and_cuda]
    packages += [_package(r, "install pin", dists) for r in best.release.install_pins]
    # recommend's notes name its own flags; install reads the GPU from this host only.
    notes = [n.replace(_RECOMMEND_GPU_FLAGS, _INSTALL_GPU_HINT) for n in best.notes]
    if not recipe.gpu:
        notes.insert(0, f"TensorFlow {best.tensorflow} will run on the CPU only.")
    if recipe.gpu and best.kind != "gpu":
        notes.insert(0, "--gpu: the GPU build, although this machine cannot use it as it is now")
    elif not recipe.gpu and best.kind == "gpu":
        notes.insert(0, "--cpu: the CPU package, although this machine can use the GPU build")
    if dists is None:
        notes.append(
            f"the installed distributions of {target.path} could not be listed (Python "
            f"{target.python} has no importlib.metadata); the installer's check shows what changes"
        )
    conflicts: list[str] = []
    already: str | None = None
    if dists is not None:
        own = packages[0].name
        if not recipe.gpu:
            already = next(
                (f"{name} {dists[name]}" for name in TENSORFLOW_VARIANTS
                 if name != "tensorflow-gpu" and dists.get(name) == str(best.tensorflow)),
                None,
            )  # fmt: skip
        for name in TENSORFLOW_VARIANTS:
            if already is None and name != own and name in dists:
                conflicts.append(name)
                notes.append(
                    f"{name} {dists[name]} is installed too and shares the tensorflow/ directory "
                    f"with {own}; the installer will not remove it: uninstall it first "
                    f"({target.path} -m pip uninstall {name})"
                )
    return InstallPlan(
        target=target,
        machine=machine,
        candidate=best,
        requirements=(pin, *best.release.install_pins),
        packages=tuple(packages),
        manual_steps=manual,
        notes=tuple(dict.fromkeys(notes)),
        conflicts=tuple(conflicts),
        already_installed=already,
        recipe=recipe,
    )


def _no_framework_candidate(
    recommendation: FrameworkRecommendation, spec: str | None
) -> NoPlanError:
    name, machine = recommendation.display_name, recommendation.machine
    wanted = f"--framework-version {spec!r}" if spec else f"any {name} version"
    if not recommendation.rejected:
        return NoPlanError(f"no {name} version in the matrix matches {wanted}")
    newest = recommendation.rejected[0]
    reasons = "; ".join(newest.reasons) or "no reason recorded"
    return NoPlanError(
        f"{name} ({wanted}) cannot be installed for Python {machine.python} on "
        f"{machine.platform}: {name} {newest.version} {newest.build}: {reasons}"
    )


def make_framework_plan(
    matrix: Matrix,
    machine: MachineDescription,
    framework: str,
    spec: str | None,
    target: TargetInterpreter,
    torch_index_base: str | None = None,
    build: str | None = None,
) -> InstallPlan:
    """The plan for PyTorch (`framework` "torch") or JAX on `machine` (pure): recommend's best
    build and its recipe, the very command `envcheck recommend --framework` prints; `build`
    "cpu" or "gpu" takes recommend's best build of that kind (--cpu, --gpu)."""
    if framework == "torch":
        recommendation = recommend_torch(matrix, machine, spec, torch_index_base)
    else:
        recommendation = recommend_jax(matrix, machine, spec)
    if not recommendation.candidates:
        raise _no_framework_candidate(recommendation, spec)
    best = best_of_build(recommendation, build)
    recipe, name = best.recipe, recommendation.display_name
    dists = target.distributions
    # The recipe's first wheel is the framework itself (jax without its extra); the rest are
    # what the requirement brings: the build's NVIDIA pins, or the plugin and its CUDA wheels.
    via = recipe.requirements[0]
    packages = [_package(recipe.wheels[0], "requested", dists)]
    packages += [_package(w, via, dists) for w in recipe.wheels[1:]]
    notes = [n.replace(_RECOMMEND_GPU_FLAGS, _INSTALL_GPU_HINT) for n in best.notes]
    if best.kind == "cpu":
        notes.insert(0, f"{name} {best.version} will run on the CPU only.")
    if dists is None:
        notes.append(
            f"the installed distributions of {target.path} could not be listed (Python "
            f"{target.python} has no importlib.metadata); the installer's check shows what changes"
        )
    refusal = None
    if recipe.index_missing:
        refusal = (
            f"PyTorch {best.version} {best.build} is on PyTorch's own index, not the default "
            f"one: pass --torch-index-url URL (or ENVCHECK_TORCH_INDEX_URL), the base URL of "
            f"PyTorch's wheel index, and envcheck installs from URL/{best.build}"
        )
    return InstallPlan(
        target=target,
        machine=machine,
        candidate=best,
        requirements=recipe.requirements,
        packages=tuple(packages),
        manual_steps=recipe.outside_pip,
        notes=tuple(dict.fromkeys(notes)),
        recipe=recipe,
        index_url=None if recipe.index_missing else recipe.index_url,
        refusal=refusal,
        framework=framework,
    )


def best_of_build(recommendation: FrameworkRecommendation, build: str | None) -> FrameworkCandidate:
    """recommend's best PyTorch or JAX build, or its best CPU or GPU one (--cpu, --gpu);
    NoPlanError when it has none of that kind."""
    if build is None:
        return recommendation.candidates[0]
    for candidate in recommendation.candidates:
        if (candidate.kind == "cpu") == (build == "cpu"):
            return candidate
    name, machine = recommendation.display_name, recommendation.machine
    return_driver = (
        f"no NVIDIA driver is known for it ({machine.found_via.get('driver', 'not found')}): "
        "give the target's --driver VER"
        if machine.driver is None
        else f"the driver {machine.driver} runs none of them"
    )
    raise NoPlanError(
        f"--{build}: no {name} {build.upper()} build fits Python {machine.python} on "
        f"{machine.platform}; {return_driver}"
    )
