"""The driver cascade against fake driver libraries built with gcc (no GPU exists here).

The fakes export the real symbols nvidia-ml-py and the probe's ctypes code call, so the real
pynvml and the real dynamic loader run; only the values come from the fakes' environment.
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest

from envcheck.probe.driver import (
    cuda_version_text,
    loader_locate,
    parse_nvidia_smi_csv,
    parse_proc_driver_version,
    probe_driver,
    pynvml_dir,
    version_from_library_path,
)
from tests.native_fakes import fake_libcuda, fake_nvml, have_gcc

pytestmark = pytest.mark.skipif(not have_gcc(), reason="gcc is needed to build the fake drivers")

PROC_535 = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"
)


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("driver")
    return {
        "nvml": fake_nvml(root / "nvml").parent,
        "nvml_550": fake_nvml(root / "nvml550", release="550.54.15").parent,
        "libcuda": fake_libcuda(root / "cuda", release="550.54.14").parent,
        "stub": fake_libcuda(root / "toolkit" / "lib64" / "stubs", release=None).parent,
    }


def _env(tmp_path: Path, *dirs: Path, **values: str) -> dict[str, str]:
    """A minimal environment: the fake library dirs first, no real nvidia-smi on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    env = {"PATH": str(bin_dir), "LD_LIBRARY_PATH": ":".join(str(d) for d in dirs)}
    env.update(values)
    return env


def _no_proc(tmp_path: Path) -> Path:
    return tmp_path / "no-such-proc-file"


def test_nvml_reports_driver_cuda_and_gpus(libs: dict[str, Path], tmp_path: Path) -> None:
    env = _env(
        tmp_path,
        libs["nvml"],
        FAKE_NVML_DRIVER="535.104.05",
        FAKE_NVML_CUDA="12020",
        FAKE_NVML_GPUS="NVIDIA GeForce RTX 3060|8.6|12288|GPU-aaaa;NVIDIA A100-SXM4-40GB|8.0|40960|GPU-bbbb",
    )
    driver, gpus = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path))
    assert driver.found_via == "nvml"
    assert driver.version == "535.104.05"  # the driver release ...
    assert driver.cuda == "12.2"  # ... and the driver's CUDA version, kept apart
    assert driver.state == "ok"
    assert driver.user_library == "535.104.05"  # from the resolved libnvidia-ml.so.535.104.05
    assert [(g.name, g.compute_capability, g.memory_mib, g.uuid) for g in gpus] == [
        ("NVIDIA GeForce RTX 3060", "8.6", 12288, "GPU-aaaa"),
        ("NVIDIA A100-SXM4-40GB", "8.0", 40960, "GPU-bbbb"),
    ]


def test_nvml_without_devices_is_no_device(libs: dict[str, Path], tmp_path: Path) -> None:
    env = _env(tmp_path, libs["nvml"], FAKE_NVML_GPUS="")
    driver, gpus = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path))
    assert (driver.state, gpus) == ("no-device", ())


def test_libcuda_answers_when_nvml_is_missing(libs: dict[str, Path], tmp_path: Path) -> None:
    env = _env(
        tmp_path,
        libs["libcuda"],
        FAKE_CUDA_VERSION="12040",
        FAKE_CUINIT="0",
        FAKE_CUDA_GPUS="NVIDIA GeForce RTX 4090|8.9|24564",
    )
    driver, gpus = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path))
    assert driver.found_via == "libcuda"
    assert driver.cuda == "12.4"
    assert driver.version == "550.54.14"  # read from the versioned file name behind libcuda.so.1
    assert [(g.name, g.compute_capability, g.memory_mib) for g in gpus] == [
        ("NVIDIA GeForce RTX 4090", "8.9", 24564)
    ]
    assert any(e.startswith("nvml:") for e in driver.errors)  # the failed step is kept


def test_version_mismatch_names_both_versions(libs: dict[str, Path], tmp_path: Path) -> None:
    proc = tmp_path / "version"
    proc.write_text(PROC_535)
    env = _env(tmp_path, libs["nvml_550"], FAKE_NVML_INIT_RC="18")
    driver, _ = probe_driver(env, timeout=20, proc_file=proc)
    assert driver.state == "mismatch"
    assert driver.kernel_module == "535.104.05"
    assert driver.user_library == "550.54.15"
    # pynvml words error 18 itself: "RM has detected an NVML/RM version mismatch."
    assert any(e.startswith("nvml:") and "version mismatch" in e for e in driver.errors)


def test_hanging_cuinit_becomes_a_timeout_fact(libs: dict[str, Path], tmp_path: Path) -> None:
    proc = tmp_path / "version"
    proc.write_text(PROC_535)
    env = _env(tmp_path, libs["libcuda"], FAKE_CUINIT="hang")
    driver, _ = probe_driver(env, timeout=3, proc_file=proc)
    assert any(e.startswith("libcuda:") and "timed out" in e for e in driver.errors)
    assert driver.kernel_module == "535.104.05"  # the cascade went on after the hang


def test_crashing_cuinit_becomes_a_crash_fact(libs: dict[str, Path], tmp_path: Path) -> None:
    env = _env(tmp_path, libs["libcuda"], FAKE_CUINIT="crash")
    driver, _ = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path))
    assert any(e.startswith("libcuda:") and "SIGSEGV" in e for e in driver.errors)
    assert driver.state == "missing"


def test_stub_libcuda_is_named(libs: dict[str, Path], tmp_path: Path) -> None:
    env = _env(tmp_path, libs["stub"], FAKE_CUINIT="34")
    driver, _ = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path))
    assert driver.state == "stub"
    assert any("stub" in e for e in driver.errors)


def test_no_device_keeps_the_drivers_cuda_version(libs: dict[str, Path], tmp_path: Path) -> None:
    env = _env(tmp_path, libs["libcuda"], FAKE_CUINIT="100", CUDA_VISIBLE_DEVICES="")
    driver, gpus = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path))
    assert driver.state == "no-device"
    assert driver.cuda == "12.2"
    assert gpus == ()
    assert any("CUDA_ERROR_NO_DEVICE" in e for e in driver.errors)


def test_nothing_found_lists_every_place_looked(tmp_path: Path) -> None:
    driver, gpus = probe_driver(_env(tmp_path), timeout=20, proc_file=_no_proc(tmp_path))
    assert driver.state == "missing"
    assert driver.version is None
    assert gpus == ()
    steps = [s.step for s in driver.steps]
    assert steps == ["nvml", "libcuda", "nvidia-smi", str(_no_proc(tmp_path))]
    assert all(not s.ok for s in driver.steps)


def test_libraries_the_loader_cannot_find_are_not_loaded(tmp_path: Path) -> None:
    # Without libnvidia-ml / libcuda anywhere the loader looks, no child is started: the step
    # says where the loader looks instead of relaying pynvml's "Shared Library Not Found".
    host = loader_locate(_env(tmp_path))
    if host is not None and (host("libnvidia-ml.so.1") or host("libcuda.so.1")):
        pytest.skip("this host has NVIDIA driver libraries where the loader looks")
    driver, _ = probe_driver(_env(tmp_path), timeout=20, proc_file=_no_proc(tmp_path))
    details = {s.step: s.detail for s in driver.steps}
    assert "libnvidia-ml.so.1 was not found where the loader looks" in details["nvml"]
    assert "libcuda.so.1 or libcuda.so was not found where the loader looks" in details["libcuda"]


def test_without_the_loader_check_the_children_decide(tmp_path: Path) -> None:
    # locate=None: the real loader in the children answers, with its own words.
    driver, _ = probe_driver(_env(tmp_path), timeout=20, proc_file=_no_proc(tmp_path), locate=None)
    details = {s.step: s.detail for s in driver.steps}
    assert "not found where the loader looks" not in details["nvml"]
    assert "no CUDA driver library could be loaded" in details["libcuda"]
    assert "libcuda.so.1" in details["libcuda"]  # dlopen's own message for the tried name


def test_the_loader_check_agrees_with_the_real_loader(
    libs: dict[str, Path], tmp_path: Path
) -> None:
    # The emulation says "found" exactly where the children's dlopen() finds the fakes.
    found = loader_locate(_env(tmp_path, libs["nvml"], libs["libcuda"]))
    empty = loader_locate(_env(tmp_path))
    assert found is not None and empty is not None
    assert found("libnvidia-ml.so.1")
    assert found("libcuda.so.1")
    if empty("libnvidia-ml.so.1") or empty("libcuda.so.1"):
        pytest.skip("this host has NVIDIA driver libraries where the loader looks")
    assert not empty("libnvidia-ml.so.1")
    for env, located in ((_env(tmp_path, libs["nvml"]), True), (_env(tmp_path), False)):
        checked, _ = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path))
        unchecked, _ = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path), locate=None)
        assert (checked.found_via == "nvml") is located
        assert checked.found_via == unchecked.found_via
        assert checked.state == unchecked.state


def test_a_preloaded_driver_library_is_not_missed(libs: dict[str, Path], tmp_path: Path) -> None:
    # LD_PRELOAD satisfies dlopen("libnvidia-ml.so.1") by soname from a directory the loader
    # never searches; the emulation cannot see that, so with LD_PRELOAD set the children decide.
    preloaded = str(libs["nvml"] / "libnvidia-ml.so.1")
    env = _env(tmp_path, LD_PRELOAD=preloaded, FAKE_NVML_DRIVER="550.54.14")
    assert loader_locate(env) is None
    driver, _ = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path))
    assert (driver.found_via, driver.version) == ("nvml", "550.54.14")


def test_pynvml_is_found_as_module_or_package_and_never_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module_site, package_site, cwd = tmp_path / "a", tmp_path / "b", tmp_path / "cwd"
    (module_site).mkdir()
    (module_site / "pynvml.py").write_text("")  # nvidia-ml-py
    (package_site / "pynvml").mkdir(parents=True)
    (package_site / "pynvml" / "__init__.py").write_text("")  # the older pynvml package
    cwd.mkdir()
    (cwd / "pynvml.py").write_text("raise SystemExit('the working directory was searched')")
    monkeypatch.chdir(cwd)
    assert pynvml_dir([str(module_site)]) == str(module_site)
    assert pynvml_dir([str(package_site)]) == str(package_site)
    assert pynvml_dir([str(tmp_path / "empty")]) is None
    assert pynvml_dir() != str(cwd)


def test_the_loader_check_steps_aside_for_hwcap_subdirectories(tmp_path: Path) -> None:
    # ld.so also looks in DIR/glibc-hwcaps/<level>/ (and legacy tls/, x86_64/...): a driver
    # library only there is found by dlopen(), so the emulation must not answer for it.
    hidden = tmp_path / "hw"
    fake_libcuda(hidden / "glibc-hwcaps" / "x86-64-v2", release="550.54.14")
    assert loader_locate(_env(tmp_path, hidden)) is None
    driver, _ = probe_driver(
        _env(tmp_path, hidden, FAKE_CUINIT="100"), timeout=20, proc_file=_no_proc(tmp_path)
    )
    details = {s.step: s.detail for s in driver.steps}
    assert "not found where the loader looks" not in details["libcuda"]


def test_the_interpreters_rpath_counts(tmp_path: Path) -> None:
    # A conda python carries DT_RPATH $ORIGIN/../lib: ld.so searches it for ctypes' dlopen().
    prefix = tmp_path / "env"
    (prefix / "bin").mkdir(parents=True)
    fake_libcuda(prefix / "lib", release="550.54.14")
    source = tmp_path / "main.c"
    source.write_text("int main(void) { return 0; }\n")
    executable = prefix / "bin" / "python"
    subprocess.run(
        ["gcc", str(source), "-o", str(executable), "-Wl,--disable-new-dtags",
         "-Wl,-rpath,$ORIGIN/../lib"],
        check=True, capture_output=True,
    )  # fmt: skip
    locate = loader_locate(_env(tmp_path), executable=str(executable))
    plain = loader_locate(_env(tmp_path))
    if locate is None or plain is None:
        pytest.skip("no ld.so.cache on this host")
    if plain("libcuda.so.1"):
        pytest.skip("this host has a libcuda where the loader looks")
    assert locate("libcuda.so.1")  # only through the executable's RPATH


def test_override_wins(tmp_path: Path) -> None:
    env = _env(tmp_path, ENVCHECK_DRIVER_VERSION="550.54.14")
    driver, _ = probe_driver(env, timeout=20)
    assert (driver.version, driver.found_via) == ("550.54.14", "ENVCHECK_DRIVER_VERSION")


def test_nvidia_smi_is_used_after_the_libraries(tmp_path: Path) -> None:
    env = _env(tmp_path)
    smi = Path(env["PATH"]) / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho '470.82.01, Tesla K80, [N/A], 11441, GPU-1234'\n")
    smi.chmod(smi.stat().st_mode | stat.S_IEXEC)
    driver, gpus = probe_driver(env, timeout=20, proc_file=_no_proc(tmp_path))
    assert (driver.version, driver.found_via) == ("470.82.01", "nvidia-smi")
    assert [(g.name, g.compute_capability, g.memory_mib) for g in gpus] == [
        ("Tesla K80", None, 11441)
    ]


def test_parsers() -> None:
    assert parse_proc_driver_version(PROC_535) == "535.104.05"
    open_module = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build  (dvs-builder@U16-I3-B03-4-3)  Fri Aug 16 21:42:42 UTC 2024"
    assert parse_proc_driver_version(open_module) == "560.35.03"
    assert parse_proc_driver_version("garbage") is None
    rows = parse_nvidia_smi_csv(
        "535.104.05, NVIDIA H100 80GB HBM3, 9.0, 81559, GPU-1\n535.104.05, NVIDIA H100 80GB HBM3, 9.0, 81559, GPU-2\n"
    )
    assert [(r.name, r.compute_capability, r.uuid) for r in rows] == [
        ("NVIDIA H100 80GB HBM3", "9.0", "GPU-1"),
        ("NVIDIA H100 80GB HBM3", "9.0", "GPU-2"),
    ]
    assert parse_nvidia_smi_csv("Failed to initialize NVML: Driver/library version mismatch") == ()
    assert cuda_version_text(12020) == "12.2"
    assert cuda_version_text(11080) == "11.8"
    assert cuda_version_text(13000) == "13.0"


def test_version_from_library_path(tmp_path: Path) -> None:
    real = tmp_path / "libcuda.so.535.104.05"
    real.write_bytes(b"")
    link = tmp_path / "libcuda.so.1"
    link.symlink_to(real.name)
    assert version_from_library_path(str(link)) == "535.104.05"
    assert version_from_library_path("/usr/lib/wsl/lib/libcuda.so.1") is None
    assert version_from_library_path(None) is None
    assert link.is_symlink()
