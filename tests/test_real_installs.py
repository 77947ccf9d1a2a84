"""The doctor on real installs from the package index, judged by TensorFlow's own loader.

Opt-in (ENVCHECK_REAL_INSTALLS=1): the first run downloads about 7 GB of wheels through pip
(from your pip configuration's index, or pip's default) into virtual environments kept under
ENVCHECK_REAL_INSTALLS_DIR (default ~/.cache/envcheck/real-installs); later runs reuse them.
See docs/development.md, "Tests on real installs".

The judge is scripts/tf_loader_judge.py, run inside each environment: it imports TensorFlow and
calls its own DsoLoader functions, the dlopen() TensorFlow makes before it registers a GPU, and
reports the path each one opened. No GPU is needed for that. What envcheck says must hold there:
the copy it selects is the one TensorFlow's loader opens, a library it reports as out of reach
is one TensorFlow cannot open, and its fix makes TensorFlow open it.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.report_schema import validated

ROOT = Path(__file__).resolve().parents[1]
JUDGE = ROOT / "scripts" / "tf_loader_judge.py"
ENABLED = os.environ.get("ENVCHECK_REAL_INSTALLS") == "1"
pytestmark = [
    pytest.mark.skipif(not ENABLED, reason="opt-in: set ENVCHECK_REAL_INSTALLS=1 (~7 GB)"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux wheels"),
]
CACHE = Path(
    os.environ.get("ENVCHECK_REAL_INSTALLS_DIR", Path.home() / ".cache/envcheck/real-installs")
)
# What a Docker build step declares (docs/guide-docker.md): a driver and a GPU of the fleet.
TARGET = ("--target-driver", "570.133.07", "--target-gpu", "A100")
# (pip install arguments, in order) per environment.
INSTALLS = {
    "tf-2.13.1-cu11": [["tensorflow==2.13.1", "nvidia-cudnn-cu11==8.6.0.163",
                        "nvidia-cuda-runtime-cu11==11.8.89", "nvidia-cublas-cu11==11.11.3.6",
                        "nvidia-cufft-cu11==10.9.0.58", "nvidia-cusolver-cu11==11.4.1.48",
                        "nvidia-cusparse-cu11==11.7.5.86", "nvidia-cuda-cupti-cu11==11.8.87"]],
    "tf-2.21.0-and-cuda": [["tensorflow[and-cuda]==2.21.0"]],
    "tf-2.15.1-and-cuda": [["tensorflow[and-cuda]==2.15.1"], ["--no-deps", "nvidia-cudnn-cu12==8.9.7.29"]],
    "tf-cpu-2.21.0": [["tensorflow-cpu==2.21.0"]],
    "cudnn-9.1.0": [["--no-deps", "nvidia-cudnn-cu12==9.1.0.70"]],
    "torch": [["torch==2.14.1"]],
    # One resolve: pip accepts it, and the cu12 and cu13 cuDNN and NCCL wheels both write
    # nvidia/cudnn/lib and nvidia/nccl/lib (tests/layouts/tf-2.21.0-and-cuda-torch-2.14.1-records.json).
    "tf-torch": [["tensorflow[and-cuda]==2.21.0", "torch==2.14.1"]],
    "tf-jax": [["tensorflow[and-cuda]==2.21.0", "jax[cuda12]==0.10.2"]],
    "cuda-runtime-12": [["--no-deps", "nvidia-cuda-runtime-cu12==12.9.79"]],
}  # fmt: skip
# TensorFlow's DSO loader function -> the probe's role for the library it opens.
LOADED_BY_TENSORFLOW = {"CudaRuntime": "cudart", "Cublas": "cublas", "CublasLt": "cublasLt",
                        "Cufft": "cufft", "Cusolver": "cusolver", "Cusparse": "cusparse",
                        "Cudnn": "cudnn", "Cupti": "cupti", "Nccl": "nccl", "Curand": "curand"}  # fmt: skip


def environment(name: str) -> Path:
    """The venv `name`, installed once (a marker file says the install finished)."""
    venv = CACHE / name
    done = venv / ".envcheck-installed"
    if not done.is_file():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        for arguments in INSTALLS[name]:
            subprocess.run(
                [str(venv / "bin/python"), "-m", "pip", "install", "-q", *arguments],
                check=True,
                timeout=3600,
            )
        done.write_text("ok\n")
    return venv


def site_packages(venv: Path) -> Path:
    (site,) = venv.glob("lib/python3.*/site-packages")
    return site


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENVCHECK_", "LD_"))}
    return {**env, "TF_CPP_MIN_LOG_LEVEL": "3", **extra}


def doctor(venv: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "envcheck", "doctor", "--json", "--python",
         str(venv / "bin/python"), *args],
        capture_output=True, text=True, env=env or clean_env(), timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, validated(json.loads(done.stdout))


def judge(venv: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [str(venv / "bin/python"), str(JUDGE), *LOADED_BY_TENSORFLOW],
        capture_output=True, text=True, env=env or clean_env(), timeout=600, check=True,
    )  # fmt: skip
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def selected(report: dict[str, Any], file: str) -> dict[str, Any] | None:
    copies = [
        lib for lib in report["facts"]["libraries"] if lib["file"] == file and lib["selected"]
    ]
    assert len(copies) <= 1
    return copies[0] if copies else None


def errors(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["severity"] == "error"]


def selected_for(report: dict[str, Any], role: str) -> dict[str, Any] | None:
    """The copy the probe says loads for a role, under its own name or the fallback name."""
    copies = [
        lib for lib in report["facts"]["libraries"] if lib["name"] == role and lib["selected"]
    ]
    assert len(copies) <= 1, copies
    return copies[0] if copies else None


def assert_probe_agrees_with_tensorflow(
    report: dict[str, Any], answer: dict[str, Any], except_roles: tuple[str, ...] = ()
) -> None:
    checked = 0
    for function, role in LOADED_BY_TENSORFLOW.items():
        call = answer["calls"][function]
        if call["function"] is None or role in except_roles:
            continue
        copy = selected_for(report, role)
        checked += 1
        if call["opened"]:
            assert copy is not None, (role, call)
            assert os.path.realpath(copy["path"]) == os.path.realpath(call["path"]), (role, call)
        else:
            assert copy is None, (role, copy)
    assert checked >= 7, answer


def test_tf_2_15_1_with_its_wheels_is_healthy() -> None:
    venv = environment("tf-2.15.1-and-cuda")
    code, report = doctor(venv, "--no-smoke", *TARGET)
    assert (code, errors(report)) == (0, [])
    cudnn = selected(report, "libcudnn.so.8")
    assert cudnn is not None and cudnn["version"].startswith("8.9.7")
    answer = judge(venv)
    assert answer["try_dlopen_cuda_libraries"] == {"ok": True}
    assert_probe_agrees_with_tensorflow(report, answer)


def test_tf_2_21_0_only_error_is_the_cusolver_path_and_its_fix_works() -> None:
    venv = environment("tf-2.21.0-and-cuda")
    code, report = doctor(venv, "--no-smoke", *TARGET)
    assert code == 1
    (error,) = errors(report)
    assert error["code"] == "cuda-library-missing" and error["evidence"][0] == "libcusolver.so.11"
    cusolver_lib = site_packages(venv) / "nvidia" / "cusolver" / "lib"
    assert f'export LD_LIBRARY_PATH="{cusolver_lib}' in error["fix"]
    answer = judge(venv)
    assert answer["calls"]["Cusolver"]["opened"] is False
    assert answer["try_dlopen_cuda_libraries"] == {"ok": False}  # it would skip the GPU
    assert_probe_agrees_with_tensorflow(report, answer)
    fixed = clean_env(LD_LIBRARY_PATH=str(cusolver_lib))
    code, report = doctor(venv, "--no-smoke", *TARGET, env=fixed)
    assert (code, errors(report)) == (0, [])
    answer = judge(venv, fixed)
    assert answer["calls"]["Cusolver"]["opened"] is True
    assert answer["try_dlopen_cuda_libraries"] == {"ok": True}
    assert_probe_agrees_with_tensorflow(report, answer)


def test_tf_2_15_wheels_first_on_ld_library_path_under_tf_2_21() -> None:
    new, old = environment("tf-2.21.0-and-cuda"), environment("tf-2.15.1-and-cuda")
    old_nvidia = site_packages(old) / "nvidia"
    first = [old_nvidia / "cublas/lib", old_nvidia / "cuda_runtime/lib", old_nvidia / "nccl/lib",
             site_packages(new) / "nvidia/cusolver/lib"]  # fmt: skip
    env = clean_env(LD_LIBRARY_PATH=":".join(map(str, first)))
    code, report = doctor(new, "--no-smoke", *TARGET, env=env)
    assert code == 1
    shadowed = {
        f["message"].split()[1] for f in report["findings"] if f["code"] == "library-shadowed"
    }
    assert {"libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12", "libnccl.so.2"} <= shadowed
    # cuSOLVER 11.7 then fails to load against the older cuBLAS that the shadowing findings name
    # (symbol versions, which the probe does not read): it is left out of the comparison.
    answer = judge(new, env)
    assert answer["calls"]["Cusolver"]["opened"] is False
    assert_probe_agrees_with_tensorflow(report, answer, except_roles=("cusolver",))


def test_cpu_only_tensorflow_without_an_nvidia_gpu_exits_0() -> None:
    from envcheck.probe.platform_facts import read_platform  # noqa: PLC0415

    if read_platform().nvidia_gpu != "absent":
        pytest.skip("this machine has an NVIDIA GPU")
    code, report = doctor(environment("tf-cpu-2.21.0"), "--timeout", "300")
    assert code == 0, report["findings"]
    assert report["verdict"] == "pass"
    assert report["summary"] == "TensorFlow works on the CPU; this machine has no NVIDIA GPU."


# Every sub-library nvidia-cudnn-cu12 9.x ships (its RECORD), not only those the matrix names.
CUDNN_9_SUBLIBRARIES = ["libcudnn_adv.so.9", "libcudnn_cnn.so.9", "libcudnn_engines_precompiled.so.9",
                        "libcudnn_engines_runtime_compiled.so.9", "libcudnn_engines_tensor_ir.so.9",
                        "libcudnn_ext.so.9", "libcudnn_graph.so.9", "libcudnn_heuristic.so.9",
                        "libcudnn_ops.so.9"]  # fmt: skip


@pytest.mark.parametrize("sublibrary", CUDNN_9_SUBLIBRARIES)
def test_removing_a_cudnn_9_sublibrary_is_found(sublibrary: str) -> None:
    venv = environment("tf-2.21.0-and-cuda")
    path = site_packages(venv) / "nvidia" / "cudnn" / "lib" / sublibrary
    aside = path.with_name(path.name + ".envcheck-test")
    env = clean_env(LD_LIBRARY_PATH=str(site_packages(venv) / "nvidia/cusolver/lib"))
    path.rename(aside)
    try:
        code, report = doctor(venv, "--no-smoke", *TARGET, env=env)
    finally:
        aside.rename(path)
    assert code == 1
    missing = [f for f in errors(report) if f["code"] == "cudnn-sublibrary-missing"]
    assert [sublibrary in f["message"] for f in missing] == [True], errors(report)


CUDNN_SUBLIBRARY_LOAD = r"""
import ctypes, sys
cudnn = ctypes.CDLL(sys.argv[1])
descriptor = ctypes.c_void_p()
for kind in range(40):  # every backend descriptor type: each needs libcudnn_graph
    cudnn.cudnnBackendCreateDescriptor(kind, ctypes.byref(descriptor))
print([l.split()[-1] for l in open("/proc/self/maps") if "libcudnn_graph" in l][0])
"""


def test_cudnn_9_opens_its_sublibraries_beside_itself(tmp_path: Path) -> None:
    venv = environment("tf-2.21.0-and-cuda")
    cudnn_lib = site_packages(venv) / "nvidia" / "cudnn" / "lib"
    shutil.copy2(cudnn_lib / "libcudnn_graph.so.9", tmp_path / "libcudnn_graph.so.9")
    env = clean_env(LD_LIBRARY_PATH=f"{tmp_path}:{site_packages(venv) / 'nvidia/cusolver/lib'}")
    done = subprocess.run(
        [str(venv / "bin/python"), "-c", CUDNN_SUBLIBRARY_LOAD, str(cudnn_lib / "libcudnn.so.9")],
        capture_output=True, text=True, env=env, timeout=300, check=True,
    )  # fmt: skip
    really = done.stdout.strip().splitlines()[-1]
    assert os.path.realpath(really) == os.path.realpath(cudnn_lib / "libcudnn_graph.so.9")
    _, report = doctor(venv, "--no-smoke", *TARGET, env=env)
    copy = selected(report, "libcudnn_graph.so.9")
    assert copy is not None and os.path.realpath(copy["path"]) == os.path.realpath(really)


def test_tf_2_13_1_through_ld_library_path_needs_curand_too() -> None:
    # Before and-cuda: the -cu11 wheels reached through LD_LIBRARY_PATH, without cuRAND, which
    # TF 2.13's own check still needs (its DSO loader has GetCurandDsoHandle).
    venv = environment("tf-2.13.1-cu11")
    nvidia = site_packages(venv) / "nvidia"
    env = clean_env(LD_LIBRARY_PATH=":".join(str(p) for p in sorted(nvidia.glob("*/lib"))))
    code, report = doctor(venv, "--no-smoke", *TARGET, env=env)
    answer = judge(venv, env)
    assert answer["try_dlopen_cuda_libraries"] == {"ok": False}
    assert answer["calls"]["Curand"]["opened"] is False
    assert code == 1
    (error,) = errors(report)
    assert error["code"] == "cuda-library-missing" and error["evidence"] == ["libcurand.so.10"]
    assert_probe_agrees_with_tensorflow(report, answer)


def test_an_older_cudnn_first_on_ld_library_path() -> None:
    venv, old = environment("tf-2.21.0-and-cuda"), environment("cudnn-9.1.0")
    old_cudnn = site_packages(old) / "nvidia" / "cudnn" / "lib"
    first = [old_cudnn, site_packages(venv) / "nvidia/cusolver/lib"]
    env = clean_env(LD_LIBRARY_PATH=":".join(map(str, first)))
    code, report = doctor(venv, "--no-smoke", *TARGET, env=env)
    answer = judge(venv, env)
    opened = answer["calls"]["Cudnn"]["path"]
    assert os.path.realpath(opened) == os.path.realpath(old_cudnn / "libcudnn.so.9")
    assert code == 1
    cudnn = [
        f for f in errors(report) if f["code"] in ("cudnn-version-mismatch", "library-shadowed")
    ]
    assert cudnn and all("9.1.0" in f["message"] for f in cudnn)
    assert any(str(old_cudnn) in " ".join(f["evidence"]) for f in cudnn)
    assert_probe_agrees_with_tensorflow(report, answer)


def record_rows(site: Path, relative: str) -> dict[str, list[str]]:
    """Distribution -> its RECORD row for `relative`, for every RECORD in site that lists it."""
    rows = {}
    for dist_info in site.glob("*.dist-info"):
        for row in csv.reader((dist_info / "RECORD").read_text(errors="replace").splitlines()):
            if row and row[0] == relative:
                rows[dist_info.name.split("-")[0].replace("_", "-")] = row
    return rows


def owner_of_bytes(site: Path, relative: str) -> list[str]:
    """The distributions whose RECORD hash the file on disk has: the judge, read with hashlib
    over the whole file (the probe compares sizes first and hashes only same-size copies)."""
    path = site / relative
    found = []
    for name, row in record_rows(site, relative).items():
        algorithm, _, expected = row[1].partition("=")
        hasher = hashlib.new(algorithm)
        with path.open("rb") as stream:
            for chunk in iter(lambda: stream.read(1 << 20), b""):
                hasher.update(chunk)
        actual = base64.urlsafe_b64encode(hasher.digest()).rstrip(b"=").decode()
        if actual == expected.rstrip("="):
            found.append(name)
    return found


def conflicts(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = [f for f in report["findings"] if f["code"] == "framework-conflict"]
    return {f["data"]["library"]: f for f in found}


def test_torch_alone_has_no_framework_conflict() -> None:
    _, report = doctor(environment("torch"), "--no-smoke", *TARGET)
    assert conflicts(report) == {}
    assert report["facts"]["shared_files"] == []


def test_tensorflow_and_jax_on_one_set_of_cuda_12_wheels_do_not_conflict() -> None:
    _, report = doctor(environment("tf-jax"), "--no-smoke", *TARGET)
    assert conflicts(report) == {}
    shared = report["facts"]["shared_files"]
    assert {s["path"] for s in shared} >= {"nvidia/__init__.py"}
    assert all(owner["matches"] is not False for s in shared for owner in s["owners"])


def test_tensorflow_and_torch_in_one_environment_overwrite_cudnn_and_nccl() -> None:
    venv = environment("tf-torch")
    site = site_packages(venv)
    code, report = doctor(venv, "--no-smoke", *TARGET)
    assert code == 1
    found = conflicts(report)
    # cuDNN and NCCL: one wheel's files overwrote the other's. cuRAND and cuSPARSE: torch's own
    # preload takes the CUDA 12 wheels' nvidia/curand/lib and nvidia/cusparse/lib before
    # nvidia/cu13/lib (the static loader model; tests/test_real_framework_loading.py).
    assert set(found) == {"libcudnn.so.9", "libnccl.so.2", "libcurand.so.10", "libcusparse.so.12"}
    for library, directory, cu13 in (
        ("libcudnn.so.9", "cudnn", "nvidia-cudnn-cu13"),
        ("libnccl.so.2", "nccl", "nvidia-nccl-cu13"),
    ):
        relative = f"nvidia/{directory}/lib/{library}"
        owners = record_rows(site, relative)
        assert len(owners) == 2 and cu13 in owners, owners  # both wheels list the file
        (holder,) = owner_of_bytes(site, relative)
        finding = found[library]
        assert finding["severity"] == "error"
        assert finding["data"]["installed"].split()[0] == holder
        overwritten = [label.split()[0] for label in finding["data"]["overwritten"]]
        assert overwritten == [name for name in owners if name != holder]
        assert finding["data"]["frameworks"] == ["tensorflow", "torch"]
        # The frameworks' own metadata: torch pins the cu13 wheel, TensorFlow the cu12 one.
        requirements = " ".join(finding["data"]["requirements"])
        assert f"torch 2.14.1 requires {cu13}==" in requirements
        assert f"tensorflow 2.21.0 requires {cu13[:-2]}12" in requirements
        assert "separate virtual environments" in finding["fix"]


def test_tf_2_21_0_is_not_recommended_first_while_its_own_install_fails_the_doctor() -> None:
    # Issue 23, point 13: the doctor fails tensorflow[and-cuda]==2.21.0 as pip installs it (the
    # cuSOLVER RUNPATH gap, above); recommend for the same target must not rank it first, and
    # says why with the path line that makes it pass.
    venv = environment("tf-2.21.0-and-cuda")
    code, report = doctor(venv, "--no-smoke", *TARGET)
    assert code == 1 and [e["code"] for e in errors(report)] == ["cuda-library-missing"]
    done = subprocess.run(
        [sys.executable, "-m", "envcheck", "recommend", "--json", "--python",
         str(venv / "bin/python"), "--driver", "570.133.07", "--gpu", "A100"],
        capture_output=True, text=True, env=clean_env(), timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    candidates = json.loads(done.stdout)["candidates"]
    assert candidates[0]["tensorflow"] == "2.20.0"
    (second,) = [c for c in candidates if c["tensorflow"] == "2.21.0"]
    assert candidates.index(second) == 1
    assert any("nvidia.cusolver" in note for note in second["notes"]), second["notes"]


def test_a_truncated_libcudart_first_on_the_path_heads_the_report(tmp_path: Path) -> None:
    # Issue 23, point 14: the real 2.21.0 install with a truncated libcudart.so.12 first on
    # LD_LIBRARY_PATH (the install itself is left untouched). The import dies with SIGBUS; the
    # report ties the crash to the file the probe read, and in a Docker build the damaged copy
    # heads the report.
    venv = environment("tf-2.21.0-and-cuda")
    good = site_packages(venv) / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12"
    broken = tmp_path / "libcudart.so.12"
    broken.write_bytes(good.read_bytes()[:100_000])
    env = clean_env(LD_LIBRARY_PATH=str(tmp_path))
    code, report = doctor(venv, "--timeout", "300", env=env)
    assert code == 1
    crash = [f for f in errors(report) if f["code"] == "smoke-test-crashed"]
    assert crash and str(broken) in crash[0]["message"], errors(report)
    assert "findings above" not in crash[0]["fix"]
    code, report = doctor(venv, "--no-smoke", *TARGET, env=env)
    assert code == 1
    assert errors(report)[0]["code"] == "library-shadowed", errors(report)
    assert str(good.parent) in errors(report)[0]["fix"]
    rows = {c["name"]: c["status"] for c in report["components"]}
    assert (rows["CUDA runtime"], rows["cuDNN"]) == ("error", "ok"), rows


@pytest.mark.parametrize("name", ["tf-2.21.0-and-cuda", "tf-2.13.1-cu11"])
def test_the_loader_names_looked_up_are_the_ones_a_scan_of_the_real_binary_finds(
    name: str,
) -> None:
    # The symbol-hash lookup (tsl::internal in 2.21, stream_executor::internal in 2.13) against
    # the scan of the whole dynamic string table, on TensorFlow's own binary.
    from envcheck.matrix.load import bundled_matrix_dir  # noqa: PLC0415
    from envcheck.matrix.model import load_matrix  # noqa: PLC0415
    from envcheck.probe.libraries import (  # noqa: PLC0415
        known_loader_names,
        tensorflow_loader_names,
    )

    framework = site_packages(environment(name)) / "tensorflow/libtensorflow_framework.so.2"
    matrix = load_matrix(bundled_matrix_dir())
    known = known_loader_names(matrix)
    scanned = tensorflow_loader_names(framework)
    assert scanned is not None and {"Cublas", "Cudnn", "CudaRuntime"} <= scanned
    assert tensorflow_loader_names(framework, matrix) == scanned & known


# The CUDA runtime asked for its devices on a machine where no driver library loads: what it
# answers, as (number, name, description), from a child of the environment's own Python.
ASK_FOR_DEVICES = """
import ctypes, glob, json, sys
try:
    ctypes.CDLL("libcuda.so.1")
    print(json.dumps(None)); sys.exit()
except OSError:
    pass
cudart = ctypes.CDLL(glob.glob(sys.prefix + "/lib/python3*/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12")[0])
cudart.cudaGetErrorName.restype = cudart.cudaGetErrorString.restype = ctypes.c_char_p
count = ctypes.c_int(-1)
result = cudart.cudaGetDeviceCount(ctypes.byref(count))
print(json.dumps([result, cudart.cudaGetErrorName(result).decode(), cudart.cudaGetErrorString(result).decode()]))
"""


def test_without_a_driver_the_runtime_says_insufficient_driver_and_explain_keeps_both_open(
    tmp_path: Path,
) -> None:
    """The measurement behind the if_unknown readings of driver-insufficient-for-runtime
    (matrix/log_signatures.toml, source s41-no-libcuda-35): with no libcuda at all, the real
    runtime gives cudaErrorInsufficientDriver, the old-driver error; so explain, on a log that
    shows no driver release, names the missing driver and the container without GPU access
    beside the old driver."""
    venv = environment("cuda-runtime-12")
    done = subprocess.run(
        [str(venv / "bin/python"), "-c", ASK_FOR_DEVICES],
        capture_output=True, text=True, env=clean_env(), timeout=120, check=True,
    )  # fmt: skip
    answer = json.loads(done.stdout)
    if answer is None:
        pytest.skip("this machine has a driver library (libcuda.so.1 loads)")
    number, name, description = answer
    assert (number, name) == (35, "cudaErrorInsufficientDriver")
    log = tmp_path / "run.log"
    log.write_text(f"RuntimeError: CUDA failed with error {description}\n")
    shown = subprocess.run(
        [sys.executable, "-m", "envcheck", "explain", "--json", str(log)],
        capture_output=True, text=True, env=clean_env(), timeout=120, check=False,
    )  # fmt: skip
    findings = {f["code"]: f["severity"] for f in json.loads(shown.stdout)["findings"]}
    assert findings == {
        "driver-too-old": "error",
        "driver-missing": "warning",
        "container-gpu-unavailable": "warning",
    }
