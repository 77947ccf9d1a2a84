"""What every diagnosis rule reads: the facts, the matrix, the target, and what they imply.

Derived once here (which TensorFlow is installed, what it was built with, which driver and GPUs
count) so each rule stays a small function of one concern. In a Docker build the target
machine's driver and GPUs, given by flags, replace the ones found (there are none).
"""

from __future__ import annotations

import functools

from packaging.version import InvalidVersion, Version

from envcheck.diagnose.framework_builds import (
    FrameworkBuild,
    bounded_by_toolkit,
    group_frameworks,
    jax_build,
    torch_build,
    torch_row,
)
from envcheck.diagnose.pins import Pin, pins
from envcheck.errors import InputError
from envcheck.framework_names import FRAMEWORKS, framework_of, subject
from envcheck.matrix.advisories import KnownBug
from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.model import Matrix
from envcheck.matrix.records import TensorflowRelease
from envcheck.probe.facts import Facts, FrameworkFacts, LibraryFacts
from envcheck.record import record
from envcheck.versions import ComputeCapability, CudaTarget, DriverVersion, PythonVersion


@record
class Target:
    """The machines an image will run on (Docker build step): `--target-driver` and GPU."""

    driver: DriverVersion | None
    capabilities: tuple[ComputeCapability, ...]
    gpu_names: tuple[str, ...]


@record
class Context:
    facts: Facts
    matrix: Matrix
    target: Target | None
    # `--framework NAME`: judge this framework only (tensorflow, torch, jax); None judges all.
    framework: str | None = None

    @functools.cached_property
    def pins(self) -> dict[str, list[Pin]]:
        """Installed distribution -> the frameworks' pins on it (pins.pins), once for every rule
        that compares them with what is installed or loaded."""
        return pins(self.facts)

    @functools.cached_property
    def builds(self) -> tuple[FrameworkBuild, ...]:
        """Every judged framework present, TensorFlow first (FRAMEWORKS order)."""
        groups = group_frameworks(self.facts.frameworks)
        builds = []
        for key in FRAMEWORKS:
            if key not in groups or self.framework not in (None, key):
                continue
            if key == "tensorflow":
                builds.append(self._bounded(self._tensorflow_build(groups[key][0]), ptx=True))
            elif key == "torch":
                torch = groups[key][0]
                build = torch_build(torch, torch_row(self.matrix.torch_builds, torch))
                # (PyTorch's wheels ship no PTX: matrix/pytorch.toml.)
                builds.append(self._bounded(build, ptx=False))
            else:
                builds.append(jax_build(groups[key]))
        return tuple(builds)

    @functools.cached_property
    def programs(self) -> tuple[FrameworkBuild, ...]:
        """Installed programs none of the judged frameworks is (a log's PaddlePaddle or CuPy, or
        one it does not name) whose facts say the CUDA they were built with or the architectures
        their build lists; none where a judged framework is present (its own build is judged).
        One without its own list holds at most what its CUDA's nvcc compiles, with PTX of the
        newest (whether it ships PTX is not known: so only a GPU older than every target is
        sure to find no kernel, a newer one JIT-compiles)."""
        if self.builds:
            return ()
        found = []
        for program in self.facts.frameworks:
            if framework_of(program.name) is not None:
                continue
            targets = _listed_targets(program)
            try:
                cuda: Version | None = Version(str(program.build.get("cuda_version") or ""))
            except InvalidVersion:
                cuda = None
            if cuda is None and not targets:
                continue
            build = FrameworkBuild(program.name, (program,), True, cuda, None, targets)
            found.append(self._bounded(build, ptx=True))
        return tuple(found)

    def _bounded(self, build: FrameworkBuild, ptx: bool) -> FrameworkBuild:
        """The build, or where its own kernel list is unknown, bounded by its CUDA toolkit's."""
        if build.cuda is None or build.targets:
            return build
        targetable = self.matrix.targetable_capabilities(build.cuda)
        sass = tuple(CudaTarget("sass", capability) for capability in targetable)
        return bounded_by_toolkit(build, sass, ptx)

    def _tensorflow_build(self, tf: FrameworkFacts) -> FrameworkBuild:
        release = self.release
        cudnn = release.cudnn if release is not None else None
        return FrameworkBuild(
            "tensorflow", (tf,), self.is_cuda_build, self.build_cuda, cudnn, self.build_targets
        )

    @property
    def subject(self) -> str:
        """Who a sentence about this environment is about: 'TensorFlow', 'PyTorch and JAX', or,
        with none installed, 'A framework'."""
        return subject(self.judged)

    @property
    def judged(self) -> tuple[str, ...]:
        """The keys of the frameworks judged here: those present, or the one --framework names."""
        if self.framework is not None:
            return (self.framework,)
        return tuple(build.key for build in self.builds)

    @property
    def known_bugs(self) -> tuple[KnownBug, ...]:
        return self.matrix.known_bugs

    @property
    def os(self) -> str:
        return self.facts.platform.os

    @property
    def no_nvidia_gpu(self) -> bool:
        """This machine has no NVIDIA GPU (told without a driver) and no driver: TensorFlow can
        only use the CPU, and no driver or CUDA library is missing. Never in a Docker build,
        whose target machines are described by flags."""
        facts = self.facts
        return (
            self.target is None
            and facts.platform.nvidia_gpu == "absent"
            and facts.driver.state == "missing"
            and not facts.gpus
        )

    @property
    def tensorflow(self) -> FrameworkFacts | None:
        if self.framework not in (None, "tensorflow"):
            return None  # --framework names another: TensorFlow's rules stay silent
        return next((f for f in self.facts.frameworks if f.name == "tensorflow"), None)

    @property
    def tensorflow_version(self) -> Version | None:
        tf = self.tensorflow
        if tf is None:
            return None
        try:
            return Version(tf.version)
        except InvalidVersion:
            return None

    @property
    def release(self) -> TensorflowRelease | None:
        version = self.tensorflow_version
        return self.matrix.release_for(version) if version is not None else None

    @property
    def is_cuda_build(self) -> bool | None:
        """Whether the installed TensorFlow can use CUDA at all (None: cannot tell)."""
        tf = self.tensorflow
        if tf is None:
            return None
        flag = tf.build.get("is_cuda_build")
        if isinstance(flag, bool):
            return flag
        if tf.distribution in ("tensorflow-cpu", "tensorflow-macos", "tensorflow-intel"):
            return False
        release = self.release
        return None if release is None else release.has_gpu_build

    @property
    def build_cuda(self) -> Version | None:
        if self.is_cuda_build is False:
            return None
        tf = self.tensorflow
        text = tf.build.get("cuda_version") if tf is not None else None
        try:
            if text:
                return Version(str(text))
        except InvalidVersion:
            pass
        release = self.release
        return release.cuda if release is not None else None

    @property
    def build_cudnn(self) -> Version | None:
        """cuDNN major.minor the build needs: the matrix's (build info has only the major)."""
        if self.is_cuda_build is False:
            return None
        release = self.release
        if release is not None and release.cudnn is not None:
            return release.cudnn
        tf = self.tensorflow
        text = tf.build.get("cudnn_version") if tf is not None else None
        try:
            return Version(str(text)) if text else None
        except InvalidVersion:
            return None

    @property
    def build_targets(self) -> tuple[CudaTarget, ...]:
        if self.is_cuda_build is False:
            return ()
        tf = self.tensorflow
        listed = _listed_targets(tf) if tf is not None else ()
        if listed:
            return listed
        release = self.release
        return release.cuda_targets if release is not None else ()

    @property
    def driver(self) -> DriverVersion | None:
        if self.target is not None and self.target.driver is not None:
            return self.target.driver
        text = self.facts.driver.version
        try:
            return DriverVersion.parse(text) if text else None
        except InputError:
            return None

    @functools.cached_property
    def capabilities(self) -> tuple[tuple[str, ComputeCapability | None], ...]:
        """(name, compute capability) of each GPU that counts: the target's or the found ones.

        A found GPU without a capability (nvidia-smi before driver 510 prints [N/A]) gets the
        one the GPU table gives its name; None when the table cannot tell.
        """
        if self.target is not None and self.target.capabilities:
            names = self.target.gpu_names or tuple("target GPU" for _ in self.target.capabilities)
            return tuple(zip(names, self.target.capabilities))
        result = []
        index: GpuIndex | None = None
        for gpu in self.facts.gpus:
            capability = None
            if gpu.compute_capability:
                try:
                    capability = ComputeCapability.parse(gpu.compute_capability)
                except InputError:
                    capability = None
            elif gpu.name:
                index = index or GpuIndex.build(self.matrix.gpus)
                capability = index.capability(gpu.name)
            result.append((gpu.name or f"GPU {gpu.index}", capability))
        return tuple(result)

    @property
    def python(self) -> PythonVersion | None:
        try:
            return PythonVersion.parse(self.facts.platform.python)
        except InputError:
            return None

    def libraries(self, role: str) -> tuple[LibraryFacts, ...]:
        return tuple(lib for lib in self.facts.libraries if lib.name == role)

    def selected(self, role: str) -> LibraryFacts | None:
        return next((lib for lib in self.libraries(role) if lib.selected), None)


def _listed_targets(installed: FrameworkFacts) -> tuple[CudaTarget, ...]:
    """The targets a build's facts list (cuda_compute_capabilities: TensorFlow's build info, a
    program's printed list); () where none is listed or an entry is unreadable."""
    listed = installed.build.get("cuda_compute_capabilities")
    if not isinstance(listed, list) or not listed:
        return ()
    try:
        return tuple(CudaTarget.parse(str(item)) for item in listed)
    except InputError:
        return ()
