"""What to install for one TensorFlow release on one OS (and for a PyTorch build or a JAX CUDA
plugin): the one answer recommend, install, fetch, the doctor and explain all give.

Pure: a release row, a version, an OS and whether the GPU build is wanted in; a Recipe out.
Linux and WSL2 get the `and-cuda` extra where the release has one (2.14+), whose nvidia-*
wheels bring CUDA and cuDNN; otherwise the GPU package, with CUDA and cuDNN set up outside pip
(the release's `cuda_setup` steps: native Windows up to 2.10, Linux before 2.14). Every recipe
carries the release's `install_pins` (requirements a working install needs that the wheel's
metadata does not state).
"""

from __future__ import annotations

from packaging.version import Version

from envcheck.matrix.records import JaxPlugin, TensorflowRelease, TorchBuild
from envcheck.record import record
from envcheck.urls import redact

AND_CUDA = "and-cuda"
# Where the and-cuda extra installs a working CUDA (WSL2 runs the Linux wheels).
AND_CUDA_OSES = ("linux", "wsl")


@record
class Recipe:
    requirements: tuple[str, ...]  # what pip is given: "tensorflow[and-cuda]==2.21.0", pins
    wheels: tuple[str, ...]  # the same as separate distributions (the extra's pins spelled out)
    extra: str | None  # "and-cuda" when the requirements name it
    outside_pip: tuple[str, ...]  # set-up steps pip cannot do (CUDA, cuDNN from elsewhere)
    gpu: bool  # whether this installs a build that uses the GPU here
    # The index pip must be given (PyTorch's variant wheels), or a placeholder naming it.
    index_url: str | None = None
    # True when index_url is that placeholder: the recipe needs PyTorch's index and its base URL
    # was not given, so a command that installs or downloads must refuse (the placeholder is
    # for people to read, never a URL to open).
    index_missing: bool = False

    def pip_command(self) -> str:
        """The pip command line a person types (requirements quoted for any shell). It is
        printed, so a password in the index URL (--torch-index-url) shows as ****; install and
        fetch use `index_url` itself."""
        command = "python -m pip install " + " ".join(f'"{r}"' for r in self.requirements)
        return f"{command} --index-url {redact(self.index_url)}" if self.index_url else command


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


# The user's choice over the machine's: `--cpu` or `--gpu` on install and fetch.
BUILDS = ("cpu", "gpu")


def wants_gpu(recommended_gpu: bool, build: str | None) -> bool:
    """Whether the GPU recipe is the one to install: the user's --cpu/--gpu (`build`), else what
    recommend found the machine can use (a GPU candidate). install and fetch both ask this, so
    a machine without an NVIDIA GPU gets the CPU package from both, as recommend prints."""
    if build is None:
        return recommended_gpu
    return build == "gpu"


def torch_index_url(variant: str, base: str | None) -> str:
    """Where PyTorch's `variant` wheels are: `base`/`variant` when the base URL of PyTorch's
    wheel index is configured (ENVCHECK_TORCH_INDEX_URL, --torch-index-url), else a
    placeholder naming it. envcheck never writes an index's host name itself."""
    if base:
        return f"{base.rstrip('/')}/{variant}"
    return f"<PyTorch's {variant} index>"


def torch_recipe(
    build: TorchBuild, version: Version | str, platform: str, index_base: str | None = None
) -> Recipe:
    """`torch==version` of `build` on `platform`: the package index's default wheel where the
    build is that default, else the same requirement from PyTorch's index for the variant."""
    requirement = f"torch=={version}"
    default = platform in build.pypi_default
    index = None if default else torch_index_url(build.variant, index_base)
    return Recipe(
        requirements=(requirement,),
        wheels=(requirement, *build.wheels),
        extra=None,
        outside_pip=(),
        gpu=build.cuda is not None,
        index_url=index,
        index_missing=not default and not index_base,
    )


def jax_recipe(plugin: JaxPlugin | None, version: Version | str) -> Recipe:
    """`jax[cudaNN]==version` (the plugin and its with-cuda wheels), or jax alone (CPU)."""
    if plugin is None:
        requirement = f"jax=={version}"
        return Recipe((requirement,), (requirement,), None, (), False)
    requirement = f"jax[{plugin.extra}]=={version}"
    return Recipe(
        requirements=(requirement,),
        wheels=(
            f"jax=={version}",
            f"jaxlib=={version}",
            f"{plugin.plugin}=={version}",
            *plugin.with_cuda,
        ),
        extra=plugin.extra,
        outside_pip=(),
        gpu=True,
    )
