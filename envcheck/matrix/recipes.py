"""What to install for one TensorFlow release on one OS: the one answer recommend, install,
fetch, the doctor and explain all give.

Pure: a release row, a version, an OS and whether the GPU build is wanted in; a Recipe out.
Linux and WSL2 get the `and-cuda` extra where the release has one (2.14+), whose nvidia-*
wheels bring CUDA and cuDNN; otherwise the GPU package, with CUDA and cuDNN set up outside pip
(the release's `cuda_setup` steps: native Windows up to 2.10, Linux before 2.14). Every recipe
carries the release's `install_pins` (requirements a working install needs that the wheel's
metadata does not state).
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import Version

from envcheck.matrix.records import TensorflowRelease

AND_CUDA = "and-cuda"
# Where the and-cuda extra installs a working CUDA (WSL2 runs the Linux wheels).
AND_CUDA_OSES = ("linux", "wsl")


@dataclass(frozen=True)
class Recipe:
    requirements: tuple[str, ...]  # what pip is given: "tensorflow[and-cuda]==2.21.0", pins
    wheels: tuple[str, ...]  # the same as separate distributions (the extra's pins spelled out)
    extra: str | None  # "and-cuda" when the requirements name it
    outside_pip: tuple[str, ...]  # set-up steps pip cannot do (CUDA, cuDNN from elsewhere)
    gpu: bool  # whether this installs a build that uses the GPU here

    def pip_command(self) -> str:
        """The pip command line a person types (requirements quoted for any shell)."""
        return "python -m pip install " + " ".join(f'"{r}"' for r in self.requirements)


def install_recipe(
    release: TensorflowRelease, version: Version | str, os_name: str, gpu: bool
) -> Recipe:
    """The recipe for TensorFlow `version` of `release` on `os_name`; `gpu` False for the CPU
    build (or a machine whose GPU it cannot use)."""
    pins = release.install_pins
    if gpu and os_name in AND_CUDA_OSES and release.and_cuda:
        return Recipe(
            requirements=(f"tensorflow[{AND_CUDA}]=={version}", *pins),
            wheels=(f"tensorflow=={version}", *release.and_cuda, *pins),
            extra=AND_CUDA,
            outside_pip=(),
            gpu=True,
        )
    if gpu:
        requirement = f"{release.gpu_package}=={version}"
        return Recipe((requirement, *pins), (requirement, *pins), None, release.cuda_setup, True)
    requirement = f"tensorflow=={version}"
    return Recipe((requirement, *pins), (requirement, *pins), None, (), False)
