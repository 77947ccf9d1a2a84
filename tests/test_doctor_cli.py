"""`envcheck doctor` end to end: real subprocesses in controlled environments.

The machines are made of real parts, as in test_probe_cli.py: a real venv holding a
TensorFlow-shaped install whose pip cuDNN is older than the build's (a gcc-built libcudnn.so.9
that says 9.1.0), a gcc-built libnvidia-ml.so.1 that the real nvidia-ml-py loads (driver
550.54.14, one RTX 4090), broken `tensorflow` packages for the smoke test (test_smoke.py's), the
real tensorflow-cpu wheel of envcheck's own interpreter, and facts files written from
tests/facts_builder.py. Every run gets an environment without ENVCHECK_*, CUDA_* and LD_*
variables and a PATH without nvidia-smi.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from envcheck.probe.facts import Facts
from envcheck.probe.platform_facts import read_platform
from tests.facts_builder import LINUX, driver, machine
from tests.native_fakes import fake_cudnn, fake_nvml, fake_tf_framework, have_gcc
from tests.report_schema import validated
from tests.test_probe_cli import BUILD_INFO_2_18, _dist
from tests.test_smoke import FULL_FAKE, HANG_ON_IMPORT, SEGFAULT_ON_IMPORT, _alive
from tests.test_smoke_rules import TF221_NO_GPU_LOG

USER = "grace"
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")  # anything but "\n": ANSI ESC, CR, tabs ...
HAS_DRIVER = Path("/proc/driver/nvidia/version").exists()
HAS_TENSORFLOW = importlib.util.find_spec("tensorflow") is not None


def clean_env(home: Path, **variables: str) -> dict[str, str]:
    """os.environ without ENVCHECK_*, CUDA_*, LD_*; PATH holds only this Python's directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENVCHECK_", "CUDA_", "LD_"))}
    env.update(
        PATH=str(Path(sys.executable).parent),
        HOME=str(home),
        USER=USER,
        LOGNAME=USER,
        LD_LIBRARY_PATH=str(home / "no-driver-here"),
    )
    env.update(variables)
    return env


def doctor(env: dict[str, str], *args: str, cwd: Path | None = None,
           timeout: float = 120) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "doctor", *args],
        env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


def report_of(completed: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert "Traceback" not in completed.stderr, completed.stderr
    data: dict[str, Any] = json.loads(completed.stdout)
    assert data["schema"] == "envcheck.report/1"
    return validated(data)


def codes(report: dict[str, Any], severity: str | None = None) -> list[str]:
    return [f["code"] for f in report["findings"] if severity in (None, f["severity"])]


def finding(report: dict[str, Any], code: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [f for f in report["findings"] if f["code"] == code]
    assert len(found) == 1, codes(report)
    return found[0]


def assert_usage_error(completed: subprocess.CompletedProcess[str], *words: str) -> None:
    assert completed.returncode == 2, (completed.stdout, completed.stderr)
    assert completed.stdout == ""
    assert "Traceback" not in completed.stderr
    lines = completed.stderr.splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith("envcheck: error: ")
    assert all(word in lines[0] for word in words), lines[0]


def write_facts(path: Path, facts: Facts) -> Path:
    path.write_text(json.dumps(facts.to_json()), encoding="utf-8")
    return path


# A Docker build: no driver, no /dev/nvidia*, a healthy TF 2.18.1 install (facts_builder).
BUILD_MACHINE = machine(
    driver=driver(None, None, "missing", errors=("nvml: NVML Shared Library Not Found",)),
    gpus=(),
    platform=replace(LINUX, device_nodes=(), container="docker"),
)


# --- fixtures -------------------------------------------------------------------------------


def _venv(path: Path) -> tuple[Path, Path]:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    return python, Path(purelib)


@pytest.fixture(scope="module")
def fake_machine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Driver 550.54.14 with an RTX 4090 (fake NVML); TF 2.18.1 in a venv inside HOME, whose
    pip cuDNN says 9.1.0 while the build wants 9.3 (test_probe_cli.py's machine)."""
    if not have_gcc():
        pytest.skip("gcc builds the fake libraries")
    root = tmp_path_factory.mktemp("doctor")
    home = root / "home" / USER
    python, site = _venv(home / "venv")
    platform_dir = site / "tensorflow" / "python" / "platform"
    platform_dir.mkdir(parents=True)
    (platform_dir / "build_info.py").write_text(BUILD_INFO_2_18)
    fake_tf_framework(site, "$ORIGIN/../nvidia/cudnn/lib:$ORIGIN/../nvidia/cuda_runtime/lib")
    _dist(
        site, "tensorflow", "2.18.1", requires=('nvidia-cudnn-cu12==9.3.0.75; extra == "and-cuda"',)
    )
    fake_cudnn(site / "nvidia" / "cudnn" / "lib", 90100, soname="libcudnn.so.9")
    _dist(site, "nvidia-cudnn-cu12", "9.1.0.70", records=("nvidia/cudnn/lib/libcudnn.so.9",))
    nvml_dir = fake_nvml(root / "driver").parent
    env = clean_env(
        home,
        LD_LIBRARY_PATH=str(nvml_dir),
        FAKE_NVML_DRIVER="550.54.14",
        FAKE_NVML_CUDA="12040",
        FAKE_NVML_GPUS="NVIDIA GeForce RTX 4090|8.9|24564|GPU-4090",
    )
    return {"root": root, "home": home, "python": str(python), "site": site, "env": env}


@pytest.fixture(scope="module")
def fake_report(fake_machine: dict[str, Any]) -> dict[str, Any]:
    env, python = fake_machine["env"], fake_machine["python"]
    completed = doctor(env, "--no-smoke", "--json", "--python", python)
    assert completed.returncode == 1, completed.stderr
    return report_of(completed)


@pytest.fixture(scope="module")
def broken_venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A venv whose tensorflow 2.18.1 (dist-info only) gets its __init__.py per test."""
    python, site = _venv(tmp_path_factory.mktemp("broken") / "venv")
    _dist(site, "tensorflow", "2.18.1")
    return python, site


@pytest.fixture
def install_tf(broken_venv: tuple[Path, Path]) -> Iterator[Callable[[str], str]]:
    package = broken_venv[1] / "tensorflow"

    def install(source: str) -> str:
        package.mkdir()
        (package / "__init__.py").write_text(textwrap.dedent(source))
        return str(broken_venv[0])

    yield install
    if package.exists():
        for path in sorted(package.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        package.rmdir()


# --- the real tensorflow-cpu wheel ------------------------------------------------------------

# This machine's own answer to "is there an NVIDIA GPU", from sysfs (no driver needed).
NO_NVIDIA_GPU = read_platform().nvidia_gpu == "absent"
needs_real_tf = pytest.mark.skipif(
    not HAS_TENSORFLOW or HAS_DRIVER or not NO_NVIDIA_GPU,
    reason=f"needs tensorflow importable in {sys.executable} (CI installs tensorflow-cpu) and a "
    "machine without an NVIDIA GPU or driver",
)


@needs_real_tf
def test_real_tensorflow_cpu_on_a_machine_without_an_nvidia_gpu(tmp_path: Path) -> None:
    completed = doctor(clean_env(tmp_path), "--json", "--timeout", "180", timeout=240)
    assert completed.returncode == 0, completed.stderr
    report = report_of(completed)
    assert report["status"] == "ok"
    assert report["verdict"] == "pass"
    assert report["summary"] == "TensorFlow works on the CPU; this machine has no NVIDIA GPU."
    assert codes(report, "error") == []
    no_gpu = finding(report, "no-gpu")
    assert no_gpu["severity"] == "info"
    assert no_gpu["evidence"] and "PCI devices in sysfs" in no_gpu["evidence"][0]
    assert "framework-cpu-only" not in codes(report)  # a CPU build is right for this machine
    assert {c["name"]: c["status"] for c in report["components"]} == {
        "NVIDIA driver": "ok", "GPU": "ok", "TensorFlow": "ok", "CUDA runtime": "ok", "cuDNN": "ok"
    }  # fmt: skip
    smoke = report["smoke_test"]
    assert smoke["status"] == "ok", smoke["describe"]
    assert [(s["name"], s["status"]) for s in smoke["steps"]] == [
        (name, "ok") for name in ("import", "list_gpus", "conv2d", "lstm", "matmul", "xla")
    ]
    assert all("CPU" in s["device"] for s in smoke["steps"][2:])
    assert smoke["gpus"] == []
    # TF's CPU-only log is noise here: nothing about a failed conv2d or smoke test.
    for item in report["findings"]:
        assert not item["code"].startswith("smoke-test"), item
        assert "conv2d" not in json.dumps(item), item
    assert set(codes(report, "warning")) <= {"known-bug"}


@needs_real_tf
def test_real_tensorflow_cpu_no_smoke(tmp_path: Path) -> None:
    completed = doctor(clean_env(tmp_path), "--json", "--no-smoke")
    assert completed.returncode == 0, completed.stderr
    report = report_of(completed)
    assert report["smoke_test"] is None
    assert report["verdict"] == "pass"
    assert report["summary"] == (
        "No problem found; this machine has no NVIDIA GPU, so TensorFlow will run on the CPU."
    )
    assert codes(report, "error") == []
    assert "no-gpu" in codes(report, "info")
    assert "benign-warning" not in codes(report)  # no smoke test, no log


# --- a fake GPU machine -----------------------------------------------------------------------


def test_cudnn_older_than_the_build(fake_report: dict[str, Any]) -> None:
    report = fake_report
    assert set(report) == {"schema", "node", "time", "envcheck_version", "verdict",
                           "fingerprint", "not_checked", "summary", "key_facts",
                           "status", "findings", "components", "facts",
                           "smoke_test", "smoke_tests", "import_orders",
                           "recommendation", "recommendation_installed",
                           "framework_recommendations"}  # fmt: skip
    assert report["verdict"] == "fail"
    assert report["status"] == "error"
    assert report["smoke_test"] is None
    for item in report["findings"]:
        assert set(item) >= {"code", "severity", "message", "evidence", "fix"}
    mismatch = finding(report, "cudnn-version-mismatch")
    assert mismatch["severity"] == "error"
    assert "9.1.0" in mismatch["message"] and "9.3" in mismatch["message"]
    assert any("nvidia/cudnn/lib/libcudnn.so.9" in e for e in mismatch["evidence"])
    assert mismatch["fix"] == 'python -m pip install "tensorflow[and-cuda]==2.18.1"'
    missing = finding(report, "cuda-library-missing")
    assert "libcublas.so.12" in missing["evidence"]
    assert not set(codes(report)) & {"driver-missing", "no-gpu", "driver-too-old"}
    assert report["facts"]["driver"]["version"] == "550.54.14"
    rows = {c["name"]: c for c in report["components"]}
    assert (rows["NVIDIA driver"]["found"], rows["NVIDIA driver"]["status"]) == ("550.54.14", "ok")
    assert rows["GPU"]["found"] == "NVIDIA GeForce RTX 4090 (CC 8.9)"
    assert rows["cuDNN"]["status"] == "error"
    # The exact version comes from the owning wheel's metadata (nvidia-cudnn-cu12 9.1.0.70).
    assert rows["cuDNN"]["found"].startswith("9.1.0.70 at ")


def test_text_report_starts_with_the_verdict(
    fake_machine: dict[str, Any], fake_report: dict[str, Any]
) -> None:
    completed = doctor(fake_machine["env"], "--no-smoke", "--python", fake_machine["python"])
    assert completed.returncode == 1, completed.stderr
    text = completed.stdout
    assert text.splitlines()[0] == fake_report["summary"]
    assert text.splitlines()[0].startswith("TensorFlow will not use the GPU here: ")
    assert "\x1b" not in text  # piped: no colour
    assert "[cudnn-version-mismatch]" in text and "[cuda-library-missing]" in text
    assert completed.stderr == ""


def test_markdown_redacts_home_and_user(fake_machine: dict[str, Any]) -> None:
    home, python = fake_machine["home"], fake_machine["python"]
    completed = doctor(
        fake_machine["env"], "--no-smoke", "--format", "markdown", "--python", python
    )
    assert completed.returncode == 1, completed.stderr
    text = completed.stdout
    assert text.startswith("### envcheck doctor: error\n")
    assert "~/venv/lib/" in text  # the cuDNN path, inside HOME
    assert str(home) not in text
    assert USER not in text
    # HOME elsewhere: the path stays, the user name in it does not.
    env = {**fake_machine["env"], "HOME": str(fake_machine["root"] / "elsewhere")}
    text = doctor(env, "--no-smoke", "--format", "markdown", "--python", python).stdout
    assert "/home/<user>/venv/lib/" in text
    assert USER not in text


def test_facts_file_gives_the_same_findings_without_probing(
    fake_machine: dict[str, Any], fake_report: dict[str, Any], tmp_path: Path
) -> None:
    probed = subprocess.run(
        [sys.executable, "-m", "envcheck", "probe", "--json", "--python", fake_machine["python"]],
        env=fake_machine["env"], capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert probed.returncode == 0, probed.stderr
    facts_file = tmp_path / "facts.json"
    facts_file.write_text(probed.stdout)
    # Another machine: no fake driver on LD_LIBRARY_PATH, no NVML variables.
    elsewhere = clean_env(tmp_path, LD_LIBRARY_PATH=str(tmp_path))
    completed = doctor(elsewhere, "--facts", str(facts_file), "--json")
    assert completed.returncode == 1, completed.stderr
    report = report_of(completed)
    assert report["findings"] == fake_report["findings"]
    assert report["components"] == fake_report["components"]
    assert report["facts"]["driver"]["version"] == "550.54.14"
    assert report["smoke_test"] is None  # a facts file is never smoke-tested


# --- exit codes -------------------------------------------------------------------------------


def test_strict_turns_a_warning_into_exit_1(tmp_path: Path) -> None:
    # A healthy TF 2.18.1 image for RTX 5090s (CC 12.0): the build has sm_60..sm_89 and
    # compute_90, so the first run JIT-compiles from PTX; driver 570.86.10 knows Blackwell.
    facts = write_facts(tmp_path / "build.json", BUILD_MACHINE)
    target = ("--target-driver", "570.86.10", "--target-gpu", "RTX 5090")
    args = ("--facts", str(facts), "--json", *target)
    env = clean_env(tmp_path)
    completed = doctor(env, *args)
    assert completed.returncode == 0, completed.stdout
    report = report_of(completed)
    assert report["status"] == "warning"
    assert codes(report, "error") == []
    jit = finding(report, "compute-capability-unsupported")
    assert jit["severity"] == "warning"
    assert "JIT" in jit["message"] and "12.0" in jit["message"]
    assert report["summary"].startswith("It should work, with ")
    assert report["verdict"] == "warn"
    assert doctor(env, *args, "--strict").returncode == 1
    assert doctor({**env, "ENVCHECK_STRICT": "1"}, *args).returncode == 1


def test_probe_gaps_are_a_warning(tmp_path: Path) -> None:
    # A part of the probe that could not run is a warning: fine, unless --strict.
    facts = write_facts(
        tmp_path / "facts.json", replace(BUILD_MACHINE, errors=("nvml: timed out after 10 s",))
    )
    args = ("--facts", str(facts), "--json", "--target-driver", "550.54.14", "--target-gpu", "A100")
    completed = doctor(clean_env(tmp_path), *args)
    assert completed.returncode == 0, completed.stdout
    report = report_of(completed)
    incomplete = finding(report, "probe-incomplete")
    assert incomplete["severity"] == "warning"
    assert "nvml: timed out after 10 s" in incomplete["message"]
    assert not set(codes(report, "warning")) - {"probe-incomplete", "known-bug"}
    assert doctor(clean_env(tmp_path), *args, "--strict").returncode == 1


# --- the Docker build step --------------------------------------------------------------------


def docker_build_env(home: Path) -> dict[str, str]:
    """`docker build`: no driver library anywhere we point, no TTY, CI=true, a container."""
    return clean_env(home, CI="true", container="docker", TERM="dumb")


def test_docker_build_step_checks_the_target(fake_machine: dict[str, Any], tmp_path: Path) -> None:
    env = docker_build_env(tmp_path)
    python = fake_machine["python"]
    common = ("--no-smoke", "--target-gpu", "A100", "--python", python)
    fleet = doctor(env, *common, "--target-driver", "535.104.05", "--json")
    report = report_of(fleet)
    assert not set(codes(report)) & {"driver-missing", "no-gpu", "driver-too-old"}
    rows = {c["name"]: c for c in report["components"]}
    assert rows["NVIDIA driver"]["found"] == "535.104.05 (target)"
    assert rows["GPU"]["found"] == "A100 (CC 8.0)"
    assert "cudnn-version-mismatch" in codes(report)  # the image itself is still checked
    text = doctor(env, *common, "--target-driver", "535.104.05")
    assert "driver-missing" not in text.stdout and "no-gpu" not in text.stdout
    assert not CONTROL.search(text.stdout + text.stderr)
    old = doctor(env, *common, "--target-driver", "470.82.01", "--json")
    assert old.returncode == 1
    too_old = [f for f in report_of(old)["findings"] if f["code"] == "driver-too-old"]
    assert too_old and all(f["severity"] == "error" for f in too_old)
    assert any("525.60.13" in f["message"] for f in too_old)
    assert "driver-missing" not in codes(report_of(old))
    old_text = doctor(env, *common, "--target-driver", "470.82.01")
    assert old_text.returncode == 1
    assert "[driver-too-old]" in old_text.stdout
    assert not CONTROL.search(old_text.stdout + old_text.stderr)


NOISY_TF = f"import sys\nsys.stderr.write({TF221_NO_GPU_LOG!r})\n" + textwrap.dedent(FULL_FAKE)


@pytest.mark.skipif(HAS_DRIVER, reason="this machine has an NVIDIA driver")
def test_no_driver_log_lines_are_not_extra_findings(
    install_tf: Callable[[str], str], tmp_path: Path
) -> None:
    # TF 2.21's normal output without a driver (cuInit 303 ...) restates what the probe found:
    # here, a machine without an NVIDIA GPU, where it is no problem at all.
    if not NO_NVIDIA_GPU:
        pytest.skip("this machine has an NVIDIA GPU (or sysfs cannot tell)")
    python = install_tf(NOISY_TF)
    completed = doctor(clean_env(tmp_path), "--json", "--timeout", "60", "--python", python)
    assert completed.returncode == 0, completed.stderr
    report = report_of(completed)
    assert report["smoke_test"]["status"] == "ok"
    assert codes(report, "error") == [] and "driver-missing" not in codes(report)
    assert codes(report).count("no-gpu") == 1
    assert not any("cuInit" in json.dumps(f) for f in report["findings"])


def test_docker_build_with_smoke_does_not_report_the_missing_driver(
    install_tf: Callable[[str], str], tmp_path: Path
) -> None:
    python = install_tf(NOISY_TF)
    completed = doctor(
        docker_build_env(tmp_path), "--json", "--timeout", "60", "--python", python,
        "--target-driver", "535.104.05", "--target-gpu", "A100",
    )  # fmt: skip
    report = report_of(completed)
    assert report["smoke_test"]["status"] == "ok"
    assert "driver-missing" not in codes(report)


# --- the smoke test with broken TensorFlows ---------------------------------------------------


def test_segfault_on_import(install_tf: Callable[[str], str], tmp_path: Path) -> None:
    python = install_tf(SEGFAULT_ON_IMPORT)
    completed = doctor(clean_env(tmp_path), "--json", "--timeout", "60", "--python", python)
    assert completed.returncode == 1
    assert completed.stderr == ""
    report = report_of(completed)
    crashed = finding(report, "smoke-test-crashed")
    assert crashed["severity"] == "error"
    assert re.fullmatch(
        r"The TensorFlow smoke test crashed: import crashed with SIGSEGV after \d+\.\d s\.",
        crashed["message"],
    )
    smoke = report["smoke_test"]
    assert (smoke["status"], smoke["signal"], smoke["returncode"]) == ("crashed", "SIGSEGV", -11)
    assert smoke["steps"][0]["status"] == "crashed-here"


def test_crash_evidence_names_the_signal(install_tf: Callable[[str], str], tmp_path: Path) -> None:
    python = install_tf(SEGFAULT_ON_IMPORT)
    report = report_of(doctor(clean_env(tmp_path), "--json", "--python", python))
    assert any("SIGSEGV" in e for e in finding(report, "smoke-test-crashed")["evidence"])


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to see the grandchild die")
def test_hang_on_import_times_out(install_tf: Callable[[str], str], tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    python = install_tf(HANG_ON_IMPORT)
    env = clean_env(tmp_path, FAKE_TF_PIDFILE=str(pidfile))
    started = time.monotonic()
    completed = doctor(env, "--json", "--timeout", "5", "--python", python)
    elapsed = time.monotonic() - started
    assert completed.returncode == 1
    assert completed.stderr == ""
    report = report_of(completed)
    hung = finding(report, "smoke-test-timeout")
    assert hung["severity"] == "error"
    assert hung["message"] == "The TensorFlow smoke test hung: timed out after 5 s during import."
    assert report["smoke_test"]["status"] == "timeout"
    assert 5 <= elapsed < 20
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild)


# --- -o FILE ----------------------------------------------------------------------------------


def test_output_file_is_written_whole(tmp_path: Path) -> None:
    facts = write_facts(tmp_path / "facts.json", BUILD_MACHINE)
    out = tmp_path / "reports"
    out.mkdir()
    target = out / "report.json"
    target.write_text("an older report\n")
    completed = doctor(clean_env(tmp_path), "--facts", str(facts), "--json", "-o", str(target))
    assert completed.returncode == 1  # no driver and no target: driver-missing
    assert completed.stdout == ""
    assert completed.stderr == ""
    assert json.loads(target.read_text())["schema"] == "envcheck.report/1"
    assert sorted(p.name for p in out.iterdir()) == ["report.json"]  # no temporary left over
    # A relative path, markdown.
    completed = doctor(clean_env(tmp_path), "--facts", str(facts), "--format", "markdown",
                       "-o", "report.md", cwd=out)  # fmt: skip
    assert completed.stdout == ""
    assert (out / "report.md").read_text().startswith("### envcheck doctor: error")
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.md"]


def test_output_into_a_missing_directory(tmp_path: Path) -> None:
    facts = write_facts(tmp_path / "facts.json", BUILD_MACHINE)
    target = tmp_path / "no" / "such" / "dir" / "report.json"
    completed = doctor(clean_env(tmp_path), "--facts", str(facts), "-o", str(target))
    assert_usage_error(completed, "does not exist", str(target.parent))
    assert not (tmp_path / "no").exists()


def test_output_onto_a_directory_leaves_no_temporary(tmp_path: Path) -> None:
    facts = write_facts(tmp_path / "facts.json", BUILD_MACHINE)
    out = tmp_path / "out"
    (out / "report.json").mkdir(parents=True)
    completed = doctor(clean_env(tmp_path), "--facts", str(facts), "-o", str(out / "report.json"))
    assert_usage_error(completed, "cannot be written")
    assert sorted(p.name for p in out.iterdir()) == ["report.json"]
    assert (out / "report.json").is_dir()


def test_usage_error_keeps_the_old_report(tmp_path: Path) -> None:
    facts = write_facts(tmp_path / "facts.json", BUILD_MACHINE)
    existing = tmp_path / "existing.json"
    existing.write_text('{"old": true}\n')
    completed = doctor(
        clean_env(tmp_path), "--facts", str(facts), "--format", "bogus", "-o", str(existing)
    )
    assert_usage_error(completed, "'bogus'")
    assert existing.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing.json", "facts.json"]


# --- unusable input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--format", "bogus"), ("--format 'bogus'", "text, json, markdown")),
        (("--python", "/nonexistent/bin/python"), ("'/nonexistent/bin/python'", "does not exist")),
        (("--target-driver", "banana"), ("'banana'",)),
        (("--target-gpu", "Voodoo 9000"), ("'Voodoo 9000'",)),
        (("--facts", "/nonexistent/facts.json"), ("cannot be read",)),
    ],
)
def test_unusable_input_is_one_line(
    tmp_path: Path, args: tuple[str, ...], words: tuple[str, ...]
) -> None:
    assert_usage_error(doctor(clean_env(tmp_path), "--no-smoke", *args), *words)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("this is not JSON {", ("is not JSON",)),
        (
            '{"schema": "envcheck.report/1", "status": "ok"}',
            ("expected schema envcheck.facts/1", "envcheck.report/1"),
        ),
        ("[1, 2, 3]", ("expected schema envcheck.facts/1",)),
        ('{"schema": "envcheck.facts/1"}', ("not a complete envcheck.facts/1 document",)),
    ],
    ids=["not-json", "a-doctor-report", "a-list", "incomplete"],
)
def test_unusable_facts_file(tmp_path: Path, content: str, words: tuple[str, ...]) -> None:
    facts = tmp_path / "facts.json"
    facts.write_text(content)
    assert_usage_error(doctor(clean_env(tmp_path), "--facts", str(facts)), str(facts), *words)


def test_facts_file_with_a_wrongly_typed_field(tmp_path: Path) -> None:
    data = BUILD_MACHINE.to_json()
    data["driver"]["version"] = 550
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps(data))
    assert_usage_error(doctor(clean_env(tmp_path), "--facts", str(facts)), "version")


def test_timeout_below_the_minimum_is_one_line(tmp_path: Path) -> None:
    assert_usage_error(doctor(clean_env(tmp_path), "--timeout", "0"), "--timeout")
