"""No NVIDIA GPU versus a GPU without a driver, and the loader rules that decide which copies
count: cuDNN sub-libraries (beside the shim, and every one its wheel ships), TensorFlow's CUPTI
fallback, and the children seeing the user's PYTHONPATH.

sysfs trees are built from the files the kernel exposes (vendor, class, device under
/sys/bus/pci/devices/<address>/), with the values a real NVIDIA card has: vendor 0x10de, class
0x030000 (VGA, GeForce) or 0x030200 (3D controller, data-centre GPUs), and its HDMI audio
function at class 0x040300.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.findings import Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.probe.facts import FrameworkFacts
from envcheck.probe.frameworks import probe_frameworks
from envcheck.probe.isolation import user_python_path
from envcheck.probe.libraries import (
    probe_libraries,
    shipped_sublibraries,
    wanted_libraries,
)
from envcheck.probe.platform_facts import (
    nvidia_gpu_presence,
    parse_video_controllers,
    read_platform,
)
from envcheck.probe.search import LinuxSearch
from tests.facts_builder import LINUX, driver, machine, tensorflow
from tests.native_fakes import build_shared_object, fake_cudnn, have_gcc

X86_64 = ("x86_64", 64)


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def pci(root: Path, address: str, vendor: str, device_class: str, device: str = "0x2504") -> None:
    directory = root / "sys/bus/pci/devices" / address
    directory.mkdir(parents=True)
    (directory / "vendor").write_text(f"{vendor}\n")
    (directory / "class").write_text(f"{device_class}\n")
    (directory / "device").write_text(f"{device}\n")


# --- is there an NVIDIA GPU ------------------------------------------------------------------


def test_a_geforce_and_its_audio_function(tmp_path: Path) -> None:
    pci(tmp_path, "0000:00:00.0", "0x8086", "0x060000")  # the host bridge
    pci(tmp_path, "0000:01:00.0", "0x10de", "0x030000")  # RTX 3060 (GA106)
    pci(tmp_path, "0000:01:00.1", "0x10de", "0x040300", "0x228e")  # its HDMI audio
    assert nvidia_gpu_presence(tmp_path, "linux", None) == (
        "present",
        ("PCI 0000:01:00.0 10de:2504 class 0x030000",),
    )


def test_a_data_centre_gpu_is_a_3d_controller(tmp_path: Path) -> None:
    pci(tmp_path, "0000:17:00.0", "0x10de", "0x030200", "0x20b0")  # A100
    state, evidence = nvidia_gpu_presence(tmp_path, "linux", None)
    assert state == "present" and evidence == ("PCI 0000:17:00.0 10de:20b0 class 0x030200",)


def test_other_vendors_only_is_absent(tmp_path: Path) -> None:
    pci(tmp_path, "0000:00:02.0", "0x8086", "0x030000")  # Intel graphics
    pci(tmp_path, "0000:03:00.0", "0x1002", "0x030000")  # AMD
    pci(tmp_path, "0000:00:1f.3", "0x10de", "0x040300")  # an NVIDIA audio function alone
    assert nvidia_gpu_presence(tmp_path, "linux", None) == (
        "absent",
        ("no NVIDIA display device among the 3 PCI devices in sysfs",),
    )


def test_no_readable_pci_bus_tells_nothing(tmp_path: Path) -> None:
    assert nvidia_gpu_presence(tmp_path, "linux", None) == (None, ())
    (tmp_path / "sys/bus/pci/devices").mkdir(parents=True)  # a sandbox that hides the bus
    assert nvidia_gpu_presence(tmp_path, "linux", None) == (None, ())
    assert nvidia_gpu_presence(tmp_path, "windows", None) == (None, ())


def test_wsl_sees_gpus_only_through_dev_dxg(tmp_path: Path) -> None:
    assert nvidia_gpu_presence(tmp_path, "wsl", "wsl2")[0] == "absent"
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev/dxg").write_text("")  # a stand-in: only its existence is read
    assert nvidia_gpu_presence(tmp_path, "wsl", "wsl2")[0] is None


# Win32_VideoController as `Name|PNPDeviceID` lines. Windows cannot run here: these are the
# query's output shapes (a laptop with Intel + NVIDIA, a desktop with AMD only), fed to the parser
# and, through the runner seam, to nvidia_gpu_presence.
WINDOWS_HYBRID = (
    "Intel(R) UHD Graphics|PCI\\VEN_8086&DEV_9A60&SUBSYS_0A6A1028&REV_01\\3&11583659&0&10\r\n"
    "NVIDIA GeForce RTX 3060 Laptop GPU|PCI\\VEN_10DE&DEV_2520&SUBSYS_0A6A1028&REV_A1\\4&2D4A&0&0008\r\n"
)
WINDOWS_AMD = "AMD Radeon RX 6600|PCI\\VEN_1002&DEV_73FF&SUBSYS_E4471DA2&REV_C7\\6&1A0&0&00000019\n"


def test_windows_display_adapters() -> None:
    state, evidence = nvidia_gpu_presence(Path("/"), "windows", None, lambda: WINDOWS_HYBRID)
    assert state == "present"
    assert evidence == (
        "display adapter NVIDIA GeForce RTX 3060 Laptop GPU|"
        "PCI\\VEN_10DE&DEV_2520&SUBSYS_0A6A1028&REV_A1\\4&2D4A&0&0008",
    )
    assert parse_video_controllers(WINDOWS_AMD) == (
        "absent",
        ("no NVIDIA display adapter among: AMD Radeon RX 6600",),
    )
    assert parse_video_controllers("") == (None, ())  # the query failed: nothing is known


def test_read_platform_reports_it(tmp_path: Path) -> None:
    pci(tmp_path, "0000:01:00.0", "0x10de", "0x030000")
    facts = read_platform({}, root=tmp_path)
    if facts.os == "linux":
        assert facts.nvidia_gpu == "present"


# --- what the doctor makes of it --------------------------------------------------------------


def no_driver(**platform: Any) -> dict[str, Any]:
    return {
        "driver": driver(None, None, state="missing"),
        "gpus": (),
        "libraries": (),
        "platform": replace(LINUX, device_nodes=(), **platform),
    }


def test_no_nvidia_gpu_and_no_driver_is_fine_on_the_cpu(matrix: Matrix) -> None:
    evidence = ("no NVIDIA display device among the 6 PCI devices in sysfs",)
    facts = machine(
        frameworks=(tensorflow("2.21.0"),),  # the GPU build, without its CUDA libraries
        **no_driver(nvidia_gpu="absent", nvidia_gpu_evidence=evidence),
    )
    report = diagnose(facts, matrix)
    assert report.status == "ok"
    assert report.verdict() == (
        "No problem found; this machine has no NVIDIA GPU, so TensorFlow will run on the CPU."
    )
    (no_gpu,) = [f for f in report.findings if f.code == "no-gpu"]
    assert no_gpu.severity is Severity.INFO and no_gpu.evidence == evidence
    assert {c.status for c in report.components} == {"ok"}


def test_a_gpu_without_a_driver_is_still_an_error(matrix: Matrix) -> None:
    facts = machine(**no_driver(nvidia_gpu="present"))
    report = diagnose(facts, matrix)
    assert next(f.code for f in report.findings if f.severity is Severity.ERROR) == "driver-missing"
    facts = machine(**no_driver(nvidia_gpu=None))  # a facts file from before the field
    assert "driver-missing" in {f.code for f in diagnose(facts, matrix).findings}


def test_a_container_not_given_the_gpu(matrix: Matrix) -> None:
    evidence = ("PCI 0000:01:00.0 10de:2504 class 0x030000",)
    facts = machine(
        **no_driver(container="docker", nvidia_gpu="present", nvidia_gpu_evidence=evidence)
    )
    (missing,) = [f for f in diagnose(facts, matrix).findings if f.code == "driver-missing"]
    assert "was not given it" in missing.message
    assert "--gpus all" in missing.fix and "NVIDIA Container Toolkit" in missing.fix
    assert missing.evidence[0] == evidence[0]


def test_a_docker_build_describes_its_target_whatever_the_build_machine_has(
    matrix: Matrix,
) -> None:
    from envcheck.diagnose.context import Target  # noqa: PLC0415
    from envcheck.versions import ComputeCapability, DriverVersion  # noqa: PLC0415

    target = Target(DriverVersion.parse("570.133.07"), (ComputeCapability.parse("8.0"),), ("A100",))
    facts = machine(**no_driver(nvidia_gpu="absent"))
    report = diagnose(facts, matrix, target)
    assert not report.no_nvidia_gpu
    assert "no-gpu" not in {f.code for f in report.findings}


def test_a_gpu_build_packaging_bug_is_not_a_cpu_builds(matrix: Matrix) -> None:
    gpu_build = machine(frameworks=(tensorflow("2.21.0"),))
    cpu_build = machine(frameworks=(tensorflow("2.21.0", "tensorflow-cpu", is_cuda_build=False),))
    bug = next(b for b in diagnose(gpu_build, matrix).findings if "cuSOLVER" in b.message)
    assert bug.code == "known-bug" and bug.severity is Severity.INFO
    assert not [f for f in diagnose(cpu_build, matrix).findings if "cuSOLVER" in f.message]


# --- cuDNN sub-libraries ----------------------------------------------------------------------

pytestmark_gcc = pytest.mark.skipif(not have_gcc(), reason="gcc builds the fake libraries")


def _cudnn9_wheel(site: Path, files: list[str]) -> Path:
    lib_dir = site / "nvidia" / "cudnn" / "lib"
    fake_cudnn(lib_dir, 92800, soname="libcudnn.so.9")
    for name in files:
        (lib_dir / name).write_bytes((lib_dir / "libcudnn.so.9").read_bytes())
    return lib_dir


@pytestmark_gcc
def test_every_sublibrary_the_wheel_ships_is_looked_for(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    lib_dir = _cudnn9_wheel(site, ["libcudnn_graph.so.9", "libcudnn_ext.so.9"])
    record = {
        str(lib_dir / name): "nvidia-cudnn-cu12 9.28.0.42 (pip)"
        for name in ("libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ext.so.9",
                     "libcudnn_engines_tensor_ir.so.9")
    }  # fmt: skip
    shipped = shipped_sublibraries(str(lib_dir / "libcudnn.so.9"), "libcudnn.so.9", record)
    assert shipped == (
        ("cudnn_engines_tensor_ir", "libcudnn_engines_tensor_ir.so.9"),
        ("cudnn_ext", "libcudnn_ext.so.9"),
        ("cudnn_graph", "libcudnn_graph.so.9"),
    )


@pytestmark_gcc
def test_a_deleted_sublibrary_is_cudnn_sublibrary_missing(tmp_path: Path, matrix: Matrix) -> None:
    site = tmp_path / "site-packages"
    lib_dir = _cudnn9_wheel(site, ["libcudnn_graph.so.9"])  # libcudnn_ext.so.9 was deleted
    owners = {
        str(lib_dir / n): "nvidia-cudnn-cu12 9.28.0.42 (pip)"
        for n in ("libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ext.so.9")
    }
    wanted = [
        w
        for w in wanted_libraries(matrix, [tensorflow("2.21.0")], False)
        if w.role.startswith("cudnn")
    ]
    search = LinuxSearch((str(lib_dir),), (), (), (), ())
    facts = probe_libraries(wanted, search, X86_64, owners, call_versions=False)
    ext = [f for f in facts if f.file == "libcudnn_ext.so.9"]
    assert [(f.selected, f.found_via) for f in ext] == [(False, "not found")]
    report = diagnose(machine(libraries=facts, frameworks=(tensorflow("2.21.0"),)), matrix)
    missing = [f for f in report.findings if f.code == "cudnn-sublibrary-missing"]
    assert any("libcudnn_ext.so.9" in f.message for f in missing)


@pytestmark_gcc
def test_cudnn_9_takes_the_sublibrary_beside_it_over_ld_library_path(
    tmp_path: Path, matrix: Matrix
) -> None:
    # The real cuDNN's behaviour is checked in tests/test_real_installs.py; this is the rule.
    lib_dir = _cudnn9_wheel(tmp_path / "site", ["libcudnn_graph.so.9"])
    other = tmp_path / "other"
    other.mkdir()
    (other / "libcudnn_graph.so.9").write_bytes((lib_dir / "libcudnn_graph.so.9").read_bytes())
    wanted = [
        w
        for w in wanted_libraries(matrix, [tensorflow("2.21.0")], False)
        if w.file in ("libcudnn.so.9", "libcudnn_graph.so.9")
    ]
    assert {w.beside_shim for w in wanted} == {True}
    search = LinuxSearch((str(other), str(lib_dir)), (), (), (), ())
    facts = probe_libraries(wanted, search, X86_64, {}, call_versions=False)
    graph = [(f.path, f.selected) for f in facts if f.file == "libcudnn_graph.so.9"]
    assert graph == [
        (str(lib_dir / "libcudnn_graph.so.9"), True),
        (str(other / "libcudnn_graph.so.9"), False),
    ]


# --- CUPTI's fallback to libcupti.so ----------------------------------------------------------


@pytestmark_gcc
def test_tensorflow_falls_back_to_an_unversioned_cupti(tmp_path: Path, matrix: Matrix) -> None:
    toolkit = tmp_path / "cuda-13.0" / "lib"
    build_shared_object("fake_nvjitlink.c", toolkit, "libcupti.so.13")  # any body will do
    (toolkit / "libcupti.so").symlink_to("libcupti.so.13")
    wanted = [w for w in wanted_libraries(matrix, [tensorflow("2.15.1")], False)
              if w.role == "cupti"]  # fmt: skip
    assert [(w.file, w.fallback) for w in wanted] == [("libcupti.so.12", "libcupti.so")]
    search = LinuxSearch((), (), (), (("libcupti.so", str(toolkit / "libcupti.so")),), ())
    facts = probe_libraries(wanted, search, X86_64, {}, call_versions=False)
    (fallback,) = [f for f in facts if f.selected]
    assert fallback.file == "libcupti.so" and fallback.name == "cupti"
    assert "fallback when libcupti.so.12 fails" in fallback.found_via
    assert fallback.problems == (
        "is libcupti.so.13, another version than the libcupti.so.12 this build needs",
    )
    build = {"cuda_version": "12.2", "cudnn_version": "8"}
    report = diagnose(machine(libraries=facts, frameworks=(tensorflow("2.15.1", **build),)), matrix)
    (mismatch,) = [f for f in report.findings if f.code == "cuda-version-mismatch"]
    assert mismatch.severity is Severity.WARNING


# --- PYTHONPATH ---------------------------------------------------------------------------------


def test_user_python_path_keeps_entries_and_drops_the_implicit_current_directory() -> None:
    env = {"PYTHONPATH": os.pathsep.join(["", "/opt/tf/site", "relative", ""])}
    assert user_python_path(env) == ["/opt/tf/site", str(Path("relative").absolute())]
    assert user_python_path({}) == []


def _fake_tensorflow_dist(site: Path, version: str) -> None:
    dist = site / f"tensorflow-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tensorflow\nVersion: {version}\n")


def test_the_probe_sees_pythonpath_but_not_the_current_directory(tmp_path: Path) -> None:
    modules = tmp_path / "hpc-modules" / "site-packages"
    _fake_tensorflow_dist(modules, "2.15.1")
    work = tmp_path / "work"
    _fake_tensorflow_dist(work, "9.9.9")  # the directory the probe happens to run in
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENVCHECK_", "PYTHON"))}
    env["PYTHONPATH"] = f"{os.pathsep}{modules}"  # its empty entry means the current directory
    done = subprocess.run(
        [sys.executable, "-m", "envcheck", "probe", "--json", "--python", sys.executable],
        capture_output=True, text=True, env=env, timeout=120, check=False, cwd=work,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    versions = {f["version"] for f in report["frameworks"] if f["name"] == "tensorflow"}
    assert "2.15.1" in versions and "9.9.9" not in versions


def test_framework_facts_from_pythonpath_have_its_location(tmp_path: Path) -> None:
    modules = tmp_path / "site-packages"
    _fake_tensorflow_dist(modules, "2.15.1")
    frameworks, _, _ = probe_frameworks(sys.executable, pythonpath=[str(modules)], timeout=60)
    (tf,) = [f for f in frameworks if f.name == "tensorflow" and f.version == "2.15.1"]
    assert isinstance(tf, FrameworkFacts) and tf.location == str(modules)


# --- one child runner: its whole process group is killed on a timeout ---------------------------


@pytest.mark.skipif(os.name != "posix", reason="a shell script stands in for a wrapper")
def test_a_wrapper_whose_child_hangs_times_out_instead_of_waiting_forever(tmp_path: Path) -> None:
    # A `--python` wrapper script whose own child hangs and holds the pipes: killing only the
    # wrapper left communicate() waiting for the grandchild (300 s here, forever in the field).
    import time  # noqa: PLC0415

    from envcheck.probe.isolation import run_child  # noqa: PLC0415

    wrapper = tmp_path / "python"
    wrapper.write_text("#!/bin/sh\nsleep 300\n")
    wrapper.chmod(0o755)
    started = time.monotonic()
    result = run_child("interpreter", None, python=str(wrapper), timeout=1.0, site=False)
    assert result.status == "timeout"
    assert time.monotonic() - started < 15
