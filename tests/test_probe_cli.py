"""`envcheck probe` end to end on a fake machine made of real parts: a real virtual environment
holding a TensorFlow-shaped install (dist-info, build_info.py, a gcc-built
libtensorflow_framework.so.2 with the real RUNPATH layout) and a pip cuDNN wheel tree, plus a
gcc-built libnvidia-ml.so.1 that the real nvidia-ml-py loads.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.native_fakes import fake_cudnn, fake_nvml, fake_tf_framework, have_gcc

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc builds the fake libraries")

BUILD_INFO_2_18 = (
    "import collections\n"
    "build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-18/bin/clang'), "
    "('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), "
    "('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True), "
    "('is_rocm_build', False), ('is_tensorrt_build', False)])\n"
)


def _dist(
    site: Path,
    name: str,
    version: str,
    records: tuple[str, ...] = (),
    requires: tuple[str, ...] = (),
) -> None:
    dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (dist_info / "METADATA").write_text("\n".join(lines) + "\n\n")
    (dist_info / "RECORD").write_text("".join(f"{r},sha256=x,1\n" for r in records))


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("machine")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    site = Path(purelib)
    platform_dir = site / "tensorflow" / "python" / "platform"
    platform_dir.mkdir(parents=True)
    (platform_dir / "build_info.py").write_text(BUILD_INFO_2_18)
    framework = fake_tf_framework(
        site, "$ORIGIN/../nvidia/cudnn/lib:$ORIGIN/../nvidia/cuda_runtime/lib"
    )
    _dist(
        site, "tensorflow", "2.18.1", requires=('nvidia-cudnn-cu12==9.3.0.75; extra == "and-cuda"',)
    )
    # The environment got an older cuDNN 9 than the build's 9.3: cudnnGetVersion() says 9.1.0.
    cudnn = fake_cudnn(site / "nvidia" / "cudnn" / "lib", 90100, soname="libcudnn.so.9")
    _dist(site, "nvidia-cudnn-cu12", "9.1.0.70", records=("nvidia/cudnn/lib/libcudnn.so.9",))
    nvml_dir = fake_nvml(root / "driver").parent
    bin_dir = root / "bin"
    bin_dir.mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("ENVCHECK_", "CUDA_", "LD_"))},
        "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}",
        "LD_LIBRARY_PATH": str(nvml_dir),
        "FAKE_NVML_DRIVER": "550.54.14",
        "FAKE_NVML_CUDA": "12040",
        "FAKE_NVML_GPUS": "NVIDIA GeForce RTX 4090|8.9|24564|GPU-4090",
    }
    return {"python": str(python), "env": env, "cudnn": cudnn, "framework": framework, "site": site}


def run_probe(machine: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "probe", *args],
        env=machine["env"], capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_probe_json_on_a_fake_machine(machine: dict[str, Any]) -> None:
    completed = run_probe(machine, "--json", "--python", machine["python"])
    assert completed.returncode == 0, completed.stderr
    facts = json.loads(completed.stdout)
    assert facts["schema"] == "envcheck.facts/1"
    assert set(facts) >= {"platform", "driver", "gpus", "libraries", "frameworks"}
    driver = facts["driver"]
    assert (driver["version"], driver["cuda"], driver["found_via"]) == ("550.54.14", "12.4", "nvml")
    assert facts["gpus"] == [
        {"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9",
         "memory_mib": 24564, "uuid": "GPU-4090", "found_via": "nvml"},
    ]  # fmt: skip
    (tf,) = [f for f in facts["frameworks"] if f["name"] == "tensorflow"]
    assert tf["version"] == "2.18.1"
    assert tf["build"]["cuda_version"] == "12.5.1"
    assert str(tf["build"]["cudnn_version"]) == "9"
    cudnn = [lib for lib in facts["libraries"] if lib["file"] == "libcudnn.so.9"]
    assert len(cudnn) == 1
    assert cudnn[0]["selected"] is True
    assert cudnn[0]["path"] == str(machine["cudnn"])
    assert cudnn[0]["found_via"] == f"RUNPATH of {machine['framework']}"
    assert cudnn[0]["owner"] == "nvidia-cudnn-cu12 9.1.0.70 (pip)"
    assert cudnn[0]["version"] == "9.1.0.70"
    assert cudnn[0]["arch"] == "x86_64 64-bit"
    # The build's other libraries (libraries.toml, CUDA 12.x set) are reported as missing.
    missing = {lib["file"] for lib in facts["libraries"] if not lib["path"]}
    assert {"libcudart.so.12", "libcublas.so.12", "libcudnn_cnn.so.9"} <= missing
    assert "libcudnn.so.8" not in {lib["file"] for lib in facts["libraries"]}
    wheels = {w["name"]: w["version"] for w in facts["wheels"]}
    assert wheels["nvidia-cudnn-cu12"] == "9.1.0.70"


def test_probe_text_report(machine: dict[str, Any]) -> None:
    completed = run_probe(machine, "--python", machine["python"])
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "Driver:     550.54.14 (supports CUDA 12.4), found via nvml  [ok]" in out
    assert "NVIDIA GeForce RTX 4090" in out
    assert "tensorflow 2.18.1 [tensorflow]: CUDA 12.5.1, cuDNN 9" in out
    # The selected copy is starred; column widths depend on the host's other libraries.
    assert re.search(
        r"^  \*\s+libcudnn\.so\.9\s+9\.1\.0\.70\s+x86_64 64-bit\s", out, re.MULTILINE
    ), out
    assert "\x1b[" not in out  # no colour codes when piped


def test_probe_without_a_driver_says_so(machine: dict[str, Any], tmp_path: Path) -> None:
    env = {**machine["env"], "LD_LIBRARY_PATH": str(tmp_path)}
    completed = subprocess.run(
        [sys.executable, "-m", "envcheck", "probe", "--json", "--timeout", "20"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    driver = json.loads(completed.stdout)["driver"]
    assert driver["state"] == "missing"
    assert [e.split(":")[0] for e in driver["errors"]][:3] == ["nvml", "libcuda", "nvidia-smi"]


def test_probe_bad_python_is_a_usage_error(machine: dict[str, Any], tmp_path: Path) -> None:
    completed = run_probe(machine, "--python", str(tmp_path / "no-python"))
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.count("\n") == 1
    assert "no-python" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_without_tensorflow_only_existing_copies_unless_all_libraries(
    machine: dict[str, Any], tmp_path: Path
) -> None:
    # A bare environment (no TensorFlow): the probe looks for every CUDA and cuDNN name.
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    env = {**machine["env"], "LD_LIBRARY_PATH": str(machine["cudnn"].parent)}
    args = ("--json", "--python", str(bare / "bin" / "python"))

    def libraries(*extra: str) -> list[dict[str, Any]]:
        completed = subprocess.run(
            [sys.executable, "-m", "envcheck", "probe", *args, *extra],
            env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert completed.returncode == 0, completed.stderr
        found: list[dict[str, Any]] = json.loads(completed.stdout)["libraries"]
        return found

    default = libraries()
    assert [lib["path"] for lib in default if lib["file"] == "libcudnn.so.9"] == [
        str(machine["cudnn"])
    ]
    assert all(lib["path"] for lib in default)
    everything = libraries("--all-libraries")
    not_found = {lib["file"] for lib in everything if not lib["path"]}
    assert {"libcudart.so.10.0", "libcudart.so.11.0", "libcudnn.so.7", "libcudnn.so.8"} <= not_found
    assert len(everything) > len(default) + 20


BUILD_INFO_CPU = (
    "import collections\n"
    "build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-18/bin/clang'), "
    "('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False)])\n"
)


def test_tensorflow_cpu_is_probed_for_what_it_asks_and_each_file_once(
    machine: dict[str, Any], tmp_path: Path
) -> None:
    # tensorflow-cpu 2.21.0 (build_info.py as the real wheel has it: no CUDA) beside a CUDA 13
    # toolkit on LD_LIBRARY_PATH. The build asks for no CUDA library: no "not found" list of
    # every CUDA line's names (47 of them before), no "this build" about a cupti it never
    # loads, and the CUDA 13 files each once, however many names they stand beside.
    venv = tmp_path / "cpu"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )  # fmt: skip
    platform_dir = site / "tensorflow" / "python" / "platform"
    platform_dir.mkdir(parents=True)
    (platform_dir / "build_info.py").write_text(BUILD_INFO_CPU)
    _dist(site, "tensorflow-cpu", "2.21.0")
    toolkit = tmp_path / "cuda-13.0" / "lib"
    toolkit.mkdir(parents=True)
    for name in ("libcudart.so.13", "libcupti.so.13"):
        (toolkit / name).write_bytes(b"")
    (toolkit / "libcupti.so").symlink_to("libcupti.so.13")
    env = {**machine["env"], "LD_LIBRARY_PATH": f"{toolkit}:{machine['env']['LD_LIBRARY_PATH']}"}
    for bare in (False, True):
        args = ["--json", "--python", str(python)]
        if bare:  # no framework at all: the other versions are still facts, each file once
            bare_venv = tmp_path / "bare"
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare_venv)],
                           check=True)  # fmt: skip
            args[-1] = str(bare_venv / "bin" / "python")
        completed = subprocess.run(
            [sys.executable, "-m", "envcheck", "probe", *args],
            env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert completed.returncode == 0, completed.stderr
        libraries = json.loads(completed.stdout)["libraries"]
        assert [lib["file"] for lib in libraries if not lib["path"]] == []
        paths = [lib["path"] for lib in libraries]
        assert len(paths) == len(set(paths)), paths
        assert not any("this build" in p for lib in libraries for p in lib["problems"])
        if bare:
            (cudart,) = [
                lib for lib in libraries if lib["path"] == str(toolkit / "libcudart.so.13")
            ]
            assert {"libcudart.so.11.0", "libcudart.so.12"} <= set(cudart["asked_as"])
        else:  # tensorflow-cpu asks for none of them
            assert [lib["name"] for lib in libraries] == []
