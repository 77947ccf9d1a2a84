"""The framework probe against real site-packages trees built in tmp_path.

Each tree holds dist-info directories with real-format METADATA and RECORD files, TensorFlow
build_info.py files in every historic format, torch/version.py and jaxlib/version.py. The
tensorflow/__init__.py files crash, raise or hang when imported: the static probe must never
import them, and the optional import child must turn each failure into a problem sentence.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from envcheck.probe.facts import FrameworkFacts, WheelFacts
from envcheck.probe.frameworks import (
    VIA_BUILD_INFO,
    VIA_DISTRIBUTION_NAME,
    VIA_DISTRIBUTION_VERSION,
    VIA_GET_BUILD_INFO,
    VIA_VERSION_PY,
    jax_build,
    normalize_build_info,
    probe_frameworks,
    torch_build,
)
from envcheck.probe.isolation import child_source

LICENSE_HEADER = (
    "# Copyright 2020 The TensorFlow Authors. All Rights Reserved.\n"
    "#\n"
    '# Licensed under the Apache License, Version 2.0 (the "License");\n'
    "# ==============================================================================\n"
)
# TF 2.21.0 Linux x86_64 (docs/facts.md sections 1.2 and 8): the OrderedDict form of 2.4+.
BUILD_INFO_2_21 = (
    LICENSE_HEADER + '"""Auto-generated module providing information about the build."""\n'
    "import collections\n\n"
    "build_info = collections.OrderedDict([('cpu_compiler', 'clang'), "
    "('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), "
    "('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True), "
    "('is_rocm_build', False), ('is_tensorrt_build', False)])\n"
)
# tensorflow-cpu 2.21.0 (docs/facts.md section 8).
BUILD_INFO_CPU_2_21 = (
    LICENSE_HEADER + "import collections\n\n"
    "build_info = collections.OrderedDict([('is_cuda_build', False), "
    "('is_rocm_build', False), ('is_tensorrt_build', False)])\n"
)
# TF 2.19.0 Linux (docs/facts.md 1.2 row 2.19.0).
BUILD_INFO_2_19 = BUILD_INFO_2_21.replace("'clang'", "'/usr/lib/llvm-18/bin/clang'")
# TF 2.3.0 Linux: the plain dict form, with the __future__ imports of that era.
BUILD_INFO_2_3 = (
    LICENSE_HEADER + '"""Auto-generated module providing information about the build."""\n'
    "from __future__ import absolute_import\n"
    "from __future__ import division\n"
    "from __future__ import print_function\n\n"
    "build_info = {'cuda_version': '10.1', 'cudnn_version': '7', "
    "'cuda_compute_capabilities': ['sm_35', 'sm_37', 'sm_52', 'sm_60', 'sm_61', 'compute_70'], "
    "'cpu_compiler': '/usr/bin/gcc-5', 'is_rocm_build': False, 'is_cuda_build': True}\n"
)
# TF 2.10 Windows: DLL suffixes instead of versions (docs/facts.md 1.2 "build_info quirks").
BUILD_INFO_WINDOWS_2_10 = (
    LICENSE_HEADER + "import collections\n\n"
    "build_info = collections.OrderedDict([('cpu_compiler', 'C:/Program Files (x86)/Microsoft "
    "Visual Studio/2019/Enterprise/VC/Tools/MSVC/14.29.30133/bin/HostX64/x64/cl.exe'), "
    "('cuda_compute_capabilities', ['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), "
    "('cuda_version', '64_112'), ('cudart_dll_name', 'cudart64_112.dll'), "
    "('cudnn_dll_name', 'cudnn64_8.dll'), ('cudnn_version', '64_8'), ('is_cuda_build', True), "
    "('is_rocm_build', False), ('is_tensorrt_build', False), "
    "('msvcp_dll_names', 'msvcp140.dll,msvcp140_1.dll'), ('nvcuda_dll_name', 'nvcuda.dll')])\n"
)
# TF 1.14-2.2: module-level variables; 1.15's live in tensorflow_core/.
BUILD_INFO_1_15 = (
    LICENSE_HEADER + '"""Generates a Python module containing information about the build."""\n'
    "from __future__ import absolute_import\n"
    "from __future__ import division\n"
    "from __future__ import print_function\n\n"
    "is_rocm_build = False\n"
    "is_cuda_build = True\n"
    "cuda_version_number = '10'\n"
    "cudnn_version_number = '7'\n"
)
# TF 1.14 Windows: module-level with the DLL names.
BUILD_INFO_WINDOWS_1_14 = (
    "cuda_version_number = '10.0'\ncudnn_version_number = '7'\n"
    "msvcp_dll_name = 'msvcp140.dll'\nnvcuda_dll_name = 'nvcuda.dll'\n"
    "cudart_dll_name = 'cudart64_100.dll'\ncudnn_dll_name = 'cudnn64_7.dll'\n"
)
BUILD_INFO_1_13 = LICENSE_HEADER + "is_cuda_build = True\n"

TORCH_VERSION_PY = (
    "from typing import Optional\n\n"
    "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
    "__version__ = '2.1.0+cu121'\n"
    "debug = False\n"
    "cuda: Optional[str] = '12.1'\n"
    "git_version = '7bcf7da3a268b435777fe87c7794c382f444e86d'\n"
    "hip: Optional[str] = None\n"
)
# jaxlib 0.4.30: the version is computed at import time from _version.
JAXLIB_VERSION_PY = (
    '_version: str = "0.4.30"\n'
    "_release_version = None\n\n"
    "def _get_version_string():\n    return _version\n\n"
    "__version__ = _get_version_string()\n"
)

BUILD_INFO_PATH = "tensorflow/python/platform/build_info.py"
TF_AND_CUDA_2_19 = (
    'nvidia-cublas-cu12==12.5.3.2; extra == "and-cuda"',
    'nvidia-cuda-runtime-cu12==12.5.82; extra == "and-cuda"',
    'nvidia-cudnn-cu12==9.3.0.75; extra == "and-cuda"',
    'nvidia-nccl-cu12==2.23.4; extra == "and-cuda"',
)
TORCH_2_1_PINS = (
    'nvidia-cudnn-cu12==8.9.2.26; platform_system == "Linux" and platform_machine == "x86_64"',
    'nvidia-cublas-cu12==12.1.3.1; platform_system == "Linux" and platform_machine == "x86_64"',
)

# --- building trees -------------------------------------------------------------------------


def _hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def write_dist(
    site: Path,
    name: str,
    version: str,
    *,
    requires: Sequence[str] = (),
    files: dict[str, str] | None = None,
    record: bool = True,
) -> Path:
    """A dist-info directory as pip writes it, plus the package files it lists in RECORD."""
    escaped = re.sub(r"[-_.]+", "_", name)
    dist_info = site / f"{escaped}-{version}.dist-info"
    dist_info.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += ["Summary: a test distribution", "Requires-Python: >=3.9"]
    lines += ["Requires-Dist: absl-py>=1.0.0", "Requires-Dist: numpy<2.2.0,>=1.26.0"]
    lines += [f"Requires-Dist: {requirement}" for requirement in requires]
    # The description body follows the blank line; its text is not a header.
    body = "\nRequires-Dist: nvidia-not-a-header==1.0\nThe long description.\n"
    (dist_info / "METADATA").write_text("\n".join(lines) + "\n" + body, encoding="utf-8")
    rows = []
    for relative, text in (files or {}).items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        rows.append(f"{relative},{_hash(data)},{len(data)}")
    if record:
        rows += [f"{dist_info.name}/METADATA,,", f"{dist_info.name}/RECORD,,"]
        (dist_info / "RECORD").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return dist_info


def crash_on_import(kind: str, marker: Path) -> str:
    """A tensorflow/__init__.py that leaves `marker` and then fails the way `kind` says."""
    action = {
        "segfault": "import signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
        "exit": "os._exit(139)\n",
        "raise": "raise ImportError('libcublas.so.10.0: cannot open shared object file')\n",
        "hang": "import time\ntime.sleep(120)\n",
    }[kind]
    return f"import os\nopen({str(marker)!r}, 'w').close()\n{action}"


def fake_working_tensorflow(version: str, build: str) -> dict[str, str]:
    """Package files of a TensorFlow that imports and answers get_build_info() from `build`."""
    return {
        "tensorflow/__init__.py": f"__version__ = {version!r}\nfrom tensorflow import sysconfig\n",
        "tensorflow/sysconfig.py": (
            "def get_build_info():\n"
            "    from tensorflow.python.platform import build_info\n"
            "    return dict(build_info.build_info)\n"
        ),
        "tensorflow/python/__init__.py": "",
        "tensorflow/python/platform/__init__.py": "",
        BUILD_INFO_PATH: build,
    }


@pytest.fixture(scope="module")
def env_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One environment with TF + torch + JAX + keras and conflicting nvidia-* wheels."""
    site = tmp_path_factory.mktemp("env") / "site-packages"
    marker = site.parent / "tensorflow-was-imported"
    write_dist(
        site,
        "tensorflow",
        "2.19.0",
        requires=TF_AND_CUDA_2_19,
        files={
            "tensorflow/__init__.py": crash_on_import("segfault", marker),
            BUILD_INFO_PATH: BUILD_INFO_2_19,
        },
    )
    write_dist(
        site,
        "torch",
        "2.1.0",
        requires=TORCH_2_1_PINS,
        files={"torch/__init__.py": "raise SystemExit(3)\n", "torch/version.py": TORCH_VERSION_PY},
    )
    write_dist(site, "jax", "0.4.30", files={"jax/__init__.py": ""})
    write_dist(site, "jaxlib", "0.4.30", files={"jaxlib/version.py": JAXLIB_VERSION_PY})
    write_dist(
        site,
        "jax-cuda12-plugin",
        "0.4.30",
        requires=(
            "jax-cuda12-pjrt==0.4.30",
            'nvidia-cudnn-cu12<10.0,>=9.1; extra == "with-cuda"',
        ),
    )
    write_dist(site, "keras", "3.5.0")
    write_dist(site, "numpy", "1.26.4")
    write_dist(site, "nvidia-cudnn-cu11", "8.6.0.163")
    write_dist(site, "nvidia-cudnn-cu12", "9.3.0.75")
    write_dist(site, "nvidia-cublas-cu12", "12.5.3.2")
    write_dist(site, "nvidia-cuda-runtime-cu12", "12.5.82")
    write_dist(site, "tensorrt", "8.6.1")
    broken = site / "nvidia_nccl_cu12-2.23.4.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_bytes(b"this is not metadata\n\x00\xff\xfe garbage\n")
    return site


def by_distribution(frameworks: Sequence[FrameworkFacts]) -> dict[str, FrameworkFacts]:
    return {f.distribution: f for f in frameworks}


@pytest.fixture(scope="module")
def env_probe(
    env_site: Path,
) -> tuple[tuple[FrameworkFacts, ...], tuple[WheelFacts, ...], tuple[str, ...]]:
    return probe_frameworks(paths=[str(env_site)])


ProbeResult = tuple[tuple[FrameworkFacts, ...], tuple[WheelFacts, ...], tuple[str, ...]]

# --- the static probe on one environment ----------------------------------------------------


def test_static_probe_never_imports_a_framework(env_site: Path, env_probe: ProbeResult) -> None:
    frameworks, _, errors = env_probe
    assert not (env_site.parent / "tensorflow-was-imported").exists()
    assert [f.distribution for f in frameworks] == [
        "jax",
        "jax-cuda12-plugin",
        "jaxlib",
        "keras",
        "tensorflow",
        "torch",
    ]
    assert len(errors) == 1, errors  # the broken nvidia-nccl METADATA, nothing else


def test_tensorflow_build_info_read_without_importing(
    env_site: Path, env_probe: ProbeResult
) -> None:
    tf = by_distribution(env_probe[0])["tensorflow"]
    assert (tf.name, tf.version, tf.location) == ("tensorflow", "2.19.0", str(env_site))
    assert tf.build_found_via == VIA_BUILD_INFO
    assert tf.build["cuda_version"] == "12.5.1"
    assert tf.build["cudnn_version"] == "9"
    assert tf.build["cuda_compute_capabilities"] == [
        "sm_60",
        "sm_70",
        "sm_80",
        "sm_89",
        "compute_90",
    ]
    assert tf.build["is_cuda_build"] is True
    assert tf.build["is_tensorrt_build"] is False
    assert tf.build["raw"]["cpu_compiler"] == "/usr/lib/llvm-18/bin/clang"
    assert tf.build["file"] == str(env_site / BUILD_INFO_PATH)
    assert tf.problems == ()


def test_requirements_keep_only_cuda_lines_with_their_markers(env_probe: ProbeResult) -> None:
    frameworks = by_distribution(env_probe[0])
    assert frameworks["tensorflow"].requires == TF_AND_CUDA_2_19
    assert frameworks["torch"].requires == TORCH_2_1_PINS
    assert frameworks["jax-cuda12-plugin"].requires == (
        "jax-cuda12-pjrt==0.4.30",
        'nvidia-cudnn-cu12<10.0,>=9.1; extra == "with-cuda"',
    )
    assert frameworks["keras"].requires == ()


def test_torch_build_from_version_py(env_probe: ProbeResult) -> None:
    torch = by_distribution(env_probe[0])["torch"]
    assert torch.build_found_via == VIA_VERSION_PY
    assert torch.build["cuda_version"] == "12.1"
    assert torch.build["is_cuda_build"] is True
    assert torch.build["is_rocm_build"] is False
    assert torch.build["raw"]["__version__"] == "2.1.0+cu121"


def test_jax_family(env_probe: ProbeResult) -> None:
    frameworks = by_distribution(env_probe[0])
    assert frameworks["jax"].build == {}
    assert frameworks["jaxlib"].build_found_via == VIA_VERSION_PY
    assert frameworks["jaxlib"].build["raw"] == {"_version": "0.4.30", "_release_version": None}
    plugin = frameworks["jax-cuda12-plugin"]
    assert plugin.name == "jax-cuda12-plugin"
    assert (plugin.build["cuda_version"], plugin.build_found_via) == ("12", VIA_DISTRIBUTION_NAME)


def test_every_nvidia_wheel_is_listed_including_conflicting_cudnn_majors(
    env_site: Path, env_probe: ProbeResult
) -> None:
    wheels = {w.name: w for w in env_probe[1]}
    assert sorted(wheels) == [
        "nvidia-cublas-cu12",
        "nvidia-cuda-runtime-cu12",
        "nvidia-cudnn-cu11",
        "nvidia-cudnn-cu12",
        "nvidia-nccl-cu12",
        "tensorrt",
    ]
    assert wheels["nvidia-cudnn-cu11"].version == "8.6.0.163"
    assert wheels["nvidia-cudnn-cu12"].version == "9.3.0.75"
    assert all(w.location == str(env_site) for w in wheels.values())


def test_malformed_metadata_is_an_error_and_the_directory_name_still_counts(
    env_site: Path, env_probe: ProbeResult
) -> None:
    wheels = {w.name: w for w in env_probe[1]}
    assert wheels["nvidia-nccl-cu12"].version == "2.23.4"
    (error,) = env_probe[2]
    assert str(env_site / "nvidia_nccl_cu12-2.23.4.dist-info" / "METADATA") in error
    assert "not a 'Key: value' header" in error


def test_import_crash_keeps_the_static_build_and_says_what_happened(
    env_site: Path, env_probe: ProbeResult
) -> None:
    frameworks, wheels, errors = probe_frameworks(paths=[str(env_site)], import_tensorflow=True)
    assert (env_site.parent / "tensorflow-was-imported").exists()
    (env_site.parent / "tensorflow-was-imported").unlink()
    tf = by_distribution(frameworks)["tensorflow"]
    assert tf.build == by_distribution(env_probe[0])["tensorflow"].build
    assert tf.build_found_via == VIA_BUILD_INFO
    (problem,) = tf.problems
    assert problem.startswith("import tensorflow in a child process crashed (SIGSEGV)")
    assert "read from build_info.py without importing" in problem
    assert by_distribution(frameworks)["torch"].problems == ()
    assert (wheels, errors) == env_probe[1:]


# --- every build_info.py format -------------------------------------------------------------

FORMATS = {
    # id: (distribution, version, file, text, expected normalized keys)
    "2.21-ordereddict": (
        "tensorflow",
        "2.21.0",
        BUILD_INFO_PATH,
        BUILD_INFO_2_21,
        {"cuda_version": "12.5.1", "cudnn_version": "9", "is_cuda_build": True},
    ),
    "2.21-cpu": (
        "tensorflow-cpu",
        "2.21.0",
        BUILD_INFO_PATH,
        BUILD_INFO_CPU_2_21,
        {"is_cuda_build": False, "is_rocm_build": False},
    ),
    "2.10-windows": (
        "tensorflow-gpu",
        "2.10.0",
        BUILD_INFO_PATH,
        BUILD_INFO_WINDOWS_2_10,
        {"cuda_version": "11.2", "cudnn_version": "8", "is_cuda_build": True},
    ),
    "2.3-dict": (
        "tensorflow",
        "2.3.0",
        BUILD_INFO_PATH,
        BUILD_INFO_2_3,
        {"cuda_version": "10.1", "cudnn_version": "7", "is_cuda_build": True},
    ),
    "1.15-tensorflow_core": (
        "tensorflow-gpu",
        "1.15.0",
        "tensorflow_core/python/platform/build_info.py",
        BUILD_INFO_1_15,
        {"cuda_version": "10", "cudnn_version": "7", "is_cuda_build": True},
    ),
    "1.14-windows": (
        "tensorflow-gpu",
        "1.14.0",
        BUILD_INFO_PATH,
        BUILD_INFO_WINDOWS_1_14,
        {"cuda_version": "10.0", "cudnn_version": "7", "is_cuda_build": True},
    ),
    "1.13-flag-only": (
        "tensorflow-gpu",
        "1.13.1",
        BUILD_INFO_PATH,
        BUILD_INFO_1_13,
        {"is_cuda_build": True},
    ),
}


@pytest.mark.parametrize("case", FORMATS.values(), ids=FORMATS.keys())
def test_each_build_info_format_is_read_statically(
    case: tuple[str, str, str, str, dict[str, object]], tmp_path: Path
) -> None:
    distribution, version, relative, text, expected = case
    top = relative.split("/")[0]
    files = {relative: text, f"{top}/__init__.py": "raise RuntimeError('imported!')\n"}
    write_dist(tmp_path, distribution, version, files=files)
    frameworks, _, errors = probe_frameworks(paths=[str(tmp_path)])
    (tf,) = frameworks
    assert (tf.name, tf.distribution, tf.version) == ("tensorflow", distribution, version)
    assert errors == ()
    assert tf.problems == ()
    assert tf.build_found_via == VIA_BUILD_INFO
    assert {key: tf.build[key] for key in expected} == expected
    assert tf.build.get("cuda_version") == expected.get("cuda_version")


# --- normalize_build_info and friends, pure -------------------------------------------------


def _literal_build_info(text: str) -> dict[str, object]:
    """What the child hands over: module-level literals with the build_info dict merged in."""
    values: dict[str, object] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Call):
                values.update(dict(ast.literal_eval(value.args[0])))
            else:
                evaluated = ast.literal_eval(value)
                if isinstance(evaluated, dict):
                    values.update(evaluated)
                else:
                    values[node.targets[0].id] = evaluated
    return values


@pytest.mark.parametrize(
    ("text", "cuda", "cudnn"),
    [
        (BUILD_INFO_2_21, "12.5.1", "9"),
        (BUILD_INFO_2_19, "12.5.1", "9"),
        (BUILD_INFO_WINDOWS_2_10, "11.2", "8"),
        (BUILD_INFO_2_3, "10.1", "7"),
        (BUILD_INFO_1_15, "10", "7"),
        (BUILD_INFO_WINDOWS_1_14, "10.0", "7"),
        (BUILD_INFO_1_13, None, None),
        (BUILD_INFO_CPU_2_21, None, None),
    ],
)
def test_normalize_build_info_formats(text: str, cuda: str | None, cudnn: str | None) -> None:
    raw = _literal_build_info(text)
    build = normalize_build_info(raw)
    assert build.get("cuda_version") == cuda
    assert build.get("cudnn_version") == cudnn
    assert build["raw"] == raw


@pytest.mark.parametrize(
    ("raw_cuda", "raw_cudnn", "cuda", "cudnn"),
    [
        ("64_112", "64_8", "11.2", "8"),
        ("64_101", "64_7", "10.1", "7"),
        ("64_110", "64_8", "11.0", "8"),
        ("64_116", "64_8", "11.6", "8"),
        ("64_100", "64_7", "10.0", "7"),
        ("64_90", "64_7", "9.0", "7"),
        ("64_12", "64_9", "12", "9"),
        ("10", "7", "10", "7"),
        ("10.1", "7", "10.1", "7"),
        ("12.5.1", "9", "12.5.1", "9"),
    ],
)
def test_normalize_build_info_versions(
    raw_cuda: str, raw_cudnn: str, cuda: str, cudnn: str
) -> None:
    build = normalize_build_info({"cuda_version": raw_cuda, "cudnn_version": raw_cudnn})
    assert (build["cuda_version"], build["cudnn_version"]) == (cuda, cudnn)
    assert build["is_cuda_build"] is True


def test_normalize_build_info_capabilities_and_flags() -> None:
    build = normalize_build_info(
        {"cuda_compute_capabilities": "sm_35, compute_70", "is_cuda_build": False, "x": 1}
    )
    assert build == {
        "cuda_compute_capabilities": ["sm_35", "compute_70"],
        "is_cuda_build": False,
        "raw": {"cuda_compute_capabilities": "sm_35, compute_70", "is_cuda_build": False, "x": 1},
    }
    assert normalize_build_info({}) == {"raw": {}}
    assert normalize_build_info({"cuda_version": "", "is_cuda_build": "yes"}) == {
        "raw": {"cuda_version": "", "is_cuda_build": "yes"}
    }


def test_torch_build_cpu_and_rocm() -> None:
    assert torch_build({"cuda": None, "hip": None})["is_cuda_build"] is False
    rocm = torch_build({"__version__": "2.3.0+rocm6.0", "cuda": None, "hip": "6.0.32830"})
    assert (rocm["is_cuda_build"], rocm["is_rocm_build"]) == (False, True)
    assert rocm["hip_version"] == "6.0.32830"
    assert "is_cuda_build" not in torch_build({})


@pytest.mark.parametrize(
    ("name", "version", "cuda", "cudnn", "via"),
    [
        ("jaxlib", "0.4.7+cuda12.cudnn88", "12", "8.8", VIA_DISTRIBUTION_VERSION),
        ("jaxlib", "0.3.0+cuda11.cudnn805", "11", "8.0.5", VIA_DISTRIBUTION_VERSION),
        ("jaxlib", "0.1.69+cuda111", "11.1", None, VIA_DISTRIBUTION_VERSION),
        ("jax-cuda12-pjrt", "0.4.35", "12", None, VIA_DISTRIBUTION_NAME),
        ("jaxlib", "0.4.30", None, None, None),
    ],
)
def test_jax_build(
    name: str, version: str, cuda: str | None, cudnn: str | None, via: str | None
) -> None:
    build, found_via = jax_build(name, version, None)
    assert (build.get("cuda_version"), build.get("cudnn_version"), found_via) == (cuda, cudnn, via)


# --- failures that must become errors or problems -------------------------------------------


def test_build_info_with_a_syntax_error_is_an_error(tmp_path: Path) -> None:
    bad = "build_info = collections.OrderedDict([('cuda_version', '12.3')\n"
    write_dist(tmp_path, "tensorflow", "2.16.1", files={BUILD_INFO_PATH: bad})
    frameworks, _, errors = probe_frameworks(paths=[str(tmp_path)])
    (tf,) = frameworks
    assert (tf.version, tf.build, tf.build_found_via) == ("2.16.1", {}, None)
    (error,) = errors
    assert error.startswith(f"cannot parse {tmp_path / BUILD_INFO_PATH}: SyntaxError")
    (problem,) = tf.problems
    assert problem.startswith("build info not read:")


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        ({BUILD_INFO_PATH: "build_info = make_build_info()\n"}, "assigns no literal values"),
        ({BUILD_INFO_PATH: "build_info = collections.OrderedDict(1, 2)\n"}, "no literal"),
        ({BUILD_INFO_PATH: "build_info = OrderedDict([('a',)])\n"}, "no literal"),
        ({BUILD_INFO_PATH: "x = 1 +\x00\n"}, "could not be parsed"),
        ({f"{BUILD_INFO_PATH}/not-a-file": ""}, "no file at"),
        ({"tensorflow/__init__.py": ""}, "no file at"),
    ],
    ids=["call", "bad-args", "bad-pair", "nul-byte", "directory", "missing"],
)
def test_unreadable_build_info_never_crashes(
    tmp_path: Path, files: dict[str, str], problem: str
) -> None:
    write_dist(tmp_path, "tensorflow", "2.15.0", files=files, record=False)
    frameworks, _, _ = probe_frameworks(paths=[str(tmp_path)])
    (tf,) = frameworks
    assert tf.build == {}
    assert any(problem in p for p in tf.problems), tf.problems


def test_metadata_that_is_a_directory_or_missing_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "torch-2.3.1.dist-info" / "METADATA").mkdir(parents=True)
    (tmp_path / "nvidia_cufft_cu12-11.2.3.61.dist-info").mkdir()
    (tmp_path / "nvidia_cufft_cu12-11.2.3.61.dist-info" / "RECORD").write_text("")
    frameworks, wheels, errors = probe_frameworks(paths=[str(tmp_path)])
    assert [(f.distribution, f.version) for f in frameworks] == [("torch", "2.3.1")]
    assert "metadata is unreadable" in frameworks[0].problems[0]
    assert wheels == (WheelFacts("nvidia-cufft-cu12", "11.2.3.61", str(tmp_path)),)
    assert len(errors) == 2


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("exit", "import tensorflow in a child process failed (exit code 139)"),
        (
            "raise",
            "import tensorflow failed in a child process: ImportError: libcublas.so.10.0: "
            "cannot open shared object file",
        ),
        ("hang", "import tensorflow in a child process timed out after 5.0 s"),
    ],
)
def test_import_failures_are_problems(tmp_path: Path, kind: str, expected: str) -> None:
    marker = tmp_path / "imported"
    files = {
        "tensorflow/__init__.py": crash_on_import(kind, marker),
        BUILD_INFO_PATH: BUILD_INFO_2_3,
    }
    write_dist(tmp_path / "site", "tensorflow", "2.3.0", files=files)
    frameworks, _, errors = probe_frameworks(
        paths=[str(tmp_path / "site")], import_tensorflow=True, timeout=5.0
    )
    assert marker.exists()
    (tf,) = frameworks
    assert tf.build["cuda_version"] == "10.1"
    assert tf.build_found_via == VIA_BUILD_INFO
    (problem,) = tf.problems
    assert problem.startswith(expected), problem
    assert errors == ()


def test_import_tensorflow_uses_get_build_info(tmp_path: Path) -> None:
    write_dist(
        tmp_path, "tensorflow", "2.21.0", files=fake_working_tensorflow("2.21.0", BUILD_INFO_2_21)
    )
    frameworks, _, errors = probe_frameworks(paths=[str(tmp_path)], import_tensorflow=True)
    (tf,) = frameworks
    assert (tf.build_found_via, tf.problems, errors) == (VIA_GET_BUILD_INFO, (), ())
    assert tf.build["cuda_version"] == "12.5.1"
    assert tf.build["raw"]["cpu_compiler"] == "clang"
    assert tf.build["file"] == str(tmp_path / BUILD_INFO_PATH)


def test_import_tensorflow_before_get_build_info_reads_the_module(tmp_path: Path) -> None:
    files = fake_working_tensorflow("1.14.0", BUILD_INFO_WINDOWS_1_14)
    files["tensorflow/__init__.py"] = "__version__ = '1.14.0'\n"
    write_dist(tmp_path, "tensorflow-gpu", "1.14.0", files=files)
    frameworks, _, _ = probe_frameworks(paths=[str(tmp_path)], import_tensorflow=True)
    (tf,) = frameworks
    assert tf.build_found_via == "tensorflow.python.platform.build_info (imported)"
    assert (tf.build["cuda_version"], tf.build["cudnn_version"]) == ("10.0", "7")


def test_import_reporting_another_version_is_a_problem(tmp_path: Path) -> None:
    files = fake_working_tensorflow("2.15.0", BUILD_INFO_2_21)
    write_dist(tmp_path, "tensorflow", "2.21.0", files=files)
    frameworks, _, _ = probe_frameworks(paths=[str(tmp_path)], import_tensorflow=True)
    assert frameworks[0].problems == (
        "import tensorflow reports version 2.15.0, the distribution says 2.21.0",
    )


def test_no_import_child_without_tensorflow(tmp_path: Path) -> None:
    write_dist(tmp_path, "torch", "2.1.0", files={"torch/version.py": TORCH_VERSION_PY})
    started = time.monotonic()
    frameworks, _, _ = probe_frameworks(paths=[str(tmp_path)], import_tensorflow=True)
    assert frameworks[0].problems == ()
    assert time.monotonic() - started < 5


# --- several installs -----------------------------------------------------------------------


def test_an_earlier_site_shadows_a_later_one(tmp_path: Path) -> None:
    user, system = tmp_path / "user", tmp_path / "system"
    write_dist(user, "tensorflow", "2.15.0", files={BUILD_INFO_PATH: BUILD_INFO_2_19})
    write_dist(system, "tensorflow", "2.19.0", files={BUILD_INFO_PATH: BUILD_INFO_2_19})
    first, second = probe_frameworks(paths=[str(user), str(system)])[0]
    assert (first.version, first.problems) == ("2.15.0", ())
    assert second.problems == (
        f"shadowed: tensorflow 2.15.0 in {user} comes earlier on the search path",
    )


def test_two_tensorflow_distributions_in_one_site(tmp_path: Path) -> None:
    write_dist(tmp_path, "tensorflow-cpu", "2.15.0", files={BUILD_INFO_PATH: BUILD_INFO_CPU_2_21})
    # Installed second: overwrites build_info.py, so tensorflow-cpu's RECORD hash no longer matches.
    write_dist(tmp_path, "tensorflow", "2.19.0", files={BUILD_INFO_PATH: BUILD_INFO_2_19})
    frameworks = by_distribution(probe_frameworks(paths=[str(tmp_path)])[0])
    shared = (
        f"tensorflow-cpu 2.15.0 and tensorflow 2.19.0 are both installed in {tmp_path} "
        "and share one tensorflow/ package directory"
    )
    assert frameworks["tensorflow"].problems == (shared,)
    assert frameworks["tensorflow-cpu"].problems[0] == shared
    assert "RECORD differs" in frameworks["tensorflow-cpu"].problems[1]
    assert frameworks["tensorflow-cpu"].build["cuda_version"] == "12.5.1"


def test_windows_metapackage_and_tensorflow_intel_are_not_a_conflict(tmp_path: Path) -> None:
    write_dist(tmp_path, "tensorflow", "2.12.0")  # the metapackage installs no files
    write_dist(
        tmp_path, "tensorflow-intel", "2.12.0", files={BUILD_INFO_PATH: BUILD_INFO_WINDOWS_2_10}
    )
    frameworks = probe_frameworks(paths=[str(tmp_path)])[0]
    assert [f.problems for f in frameworks] == [(), ()]
    assert {f.build["cuda_version"] for f in frameworks} == {"11.2"}


# --- where the child looks ------------------------------------------------------------------


def test_pth_files_and_egg_info(tmp_path: Path) -> None:
    site, source = tmp_path / "site", tmp_path / "src"
    site.mkdir()
    (site / "easy-install.pth").write_text(f"# a comment\nimport sys\n{source}\n../missing\n")
    egg = source / "torch.egg-info"
    egg.mkdir(parents=True)
    (egg / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.4.0a0+git1\n")
    (egg / "requires.txt").write_text(
        "filelock\n\n[:platform_system == 'Linux']\nnvidia-cudnn-cu12==9.1.0.70\n"
    )
    (source / "torch").mkdir()
    (source / "torch" / "version.py").write_text("__version__ = '2.4.0a0+git1'\ncuda = '12.4'\n")
    (torch,) = probe_frameworks(paths=[str(site)])[0]
    assert (torch.version, torch.location) == ("2.4.0a0+git1", str(source))
    assert torch.requires == ("nvidia-cudnn-cu12==9.1.0.70; (platform_system == 'Linux')",)
    assert torch.build["cuda_version"] == "12.4"


def test_a_missing_search_path_is_an_error(tmp_path: Path) -> None:
    assert probe_frameworks(paths=[str(tmp_path / "nope")]) == (
        (),
        (),
        (f"search path {tmp_path / 'nope'} is not a directory",),
    )


def test_default_paths_are_the_interpreters_own() -> None:
    """This venv has nvidia-ml-py installed: a real nvidia-* distribution on the real sys.path."""
    _, wheels, errors = probe_frameworks()
    assert errors == ()
    (nvml,) = [w for w in wheels if w.name == "nvidia-ml-py"]
    assert nvml.location is not None
    assert Path(nvml.location, "pynvml.py").exists()


def test_an_interpreter_that_cannot_start(tmp_path: Path) -> None:
    (error,) = probe_frameworks(python=str(tmp_path / "python"))[2]
    assert error.startswith(f"framework probe could not start {tmp_path / 'python'}:")


def test_a_timeout_is_an_error(tmp_path: Path) -> None:
    slow = tmp_path / "python"
    slow.write_text("#!/bin/sh\nexec sleep 5\n")
    slow.chmod(0o755)
    assert probe_frameworks(python=str(slow), timeout=0.5) == (
        (),
        (),
        ("framework probe timed out after 0.5 s",),
    )


# --- the child script itself ----------------------------------------------------------------

SOURCE = child_source("frameworks")


def test_child_source_is_python_3_7_grammar() -> None:
    ast.parse(SOURCE, feature_version=(3, 7))


def test_child_imports_only_the_standard_library() -> None:
    imported: set[str] = set()
    for node in ast.walk(ast.parse(SOURCE)):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported - {"tensorflow"} <= set(sys.stdlib_module_names)


def test_child_fits_a_windows_command_line() -> None:
    """run_child passes the source with -c; CreateProcess allows 32767 characters in all."""
    assert len(SOURCE) + len(json.dumps({"paths": ["x" * 260] * 8})) < 30000


@pytest.mark.parametrize("argument", ["not json", "[1, 2]", '{"paths": "/x"}', '{"paths": [1]}'])
def test_child_survives_a_bad_argument(argument: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-I", "-c", SOURCE, argument],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert completed.returncode == 0
    output = json.loads(completed.stdout.splitlines()[-1])
    assert set(output) >= {"python", "frameworks", "wheels", "errors"}


def _other_pythons() -> list[str]:
    """Older interpreters to run the child with, when this machine has them (pyenv or PATH)."""
    found = []
    for minor in (7, 8, 9, 10):
        pyenv = sorted(Path.home().glob(f".pyenv/versions/3.{minor}.*/bin/python3.{minor}"))
        candidate = str(pyenv[-1]) if pyenv else None
        found.append(candidate or _which(f"python3.{minor}"))
    return [p for p in found if p]


def _which(name: str) -> str | None:
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        path = Path(directory) / name
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


@pytest.mark.parametrize("python", _other_pythons() or [None], ids=lambda p: Path(p or "none").name)
def test_child_gives_the_same_answer_on_older_pythons(
    python: str | None, env_site: Path, env_probe: ProbeResult
) -> None:
    if python is None:
        pytest.skip("no Python 3.7-3.10 interpreter on this machine")
    assert probe_frameworks(python=python, paths=[str(env_site)]) == env_probe
