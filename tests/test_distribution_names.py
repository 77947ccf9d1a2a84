"""envcheck.distribution_names says what packaging.utils.canonicalize_name says (PEP 503), on the
names envcheck meets: pip's, the matrix's, the wheels' dist-info folders."""

from __future__ import annotations

import pytest
from packaging.utils import canonicalize_name

from envcheck.distribution_names import canonical_name


@pytest.mark.parametrize(
    "name",
    [
        "nvidia-cudnn-cu12",
        "nvidia_cudnn_cu12",
        "Nvidia_CUDNN.cu12",
        "tensorflow-cpu",
        "jax_cuda12_plugin",
        "torch",
        "ONNXRuntime-GPU",
        "a.-_b",
        "cuda-toolkit",
        "",
    ],
)
def test_the_same_name_as_packaging(name: str) -> None:
    assert canonical_name(name) == str(canonicalize_name(name))
