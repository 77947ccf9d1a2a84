"""`doctor --deadline S` bounds the whole run, whatever hangs (issue 21, 1).

Slurm kills a HealthCheckProgram at 60 s and learns nothing; under --deadline the doctor kills
its own children in time, still writes its report, names the checks it could not do, and
exits 4 (no verdict). Each case here hangs something for real: a `--python` that never
answers, a TensorFlow whose import sleeps (its pid is checked gone), an NVML whose init sleeps
(the gcc-built fake library, tests/fakes/fake_nvml.c), and the watchdog that covers a hang no
child bound reaches.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from envcheck.errors import EXIT_NO_VERDICT
from tests.faults.processes import ENVCHECK, alive, environment
from tests.faults.test_signals import fake_site
from tests.native_fakes import fake_nvml, have_gcc
from tests.report_schema import validated

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="shell scripts, /proc")

# How far past the deadline the report may come: the contract is about a second (Slurm's
# 60 s against a --deadline of 55, say); the slack is for a loaded test machine.
SLACK_S = 1.5


def run_doctor(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    completed = subprocess.run(
        [*ENVCHECK, "doctor", *args], capture_output=True, text=True, cwd=cwd,
        env=env or environment(), stdin=subprocess.DEVNULL, timeout=120, check=False,
    )  # fmt: skip
    return completed, time.monotonic() - started


def unknown_report(completed: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert completed.returncode == EXIT_NO_VERDICT, (completed.returncode, completed.stderr)
    assert "Traceback" not in completed.stderr
    report: dict[str, Any] = validated(json.loads(completed.stdout))
    assert report["verdict"] == "unknown"
    assert report["not_checked"]
    assert report["summary"].startswith("No verdict")
    return report


def test_a_python_that_never_answers_ends_in_no_verdict_on_time(tmp_path: Path) -> None:
    python = tmp_path / "python3"
    python.write_text("#!/bin/sh\nexec sleep 600\n")
    python.chmod(0o755)
    completed, elapsed = run_doctor(
        "--python", str(python), "--deadline", "3", "--timeout", "300", "--format", "json"
    )
    report = unknown_report(completed)
    assert "frameworks" in report["not_checked"]
    assert elapsed < 3 + SLACK_S, f"took {elapsed:.1f} s for a 3 s deadline"


def test_a_hanging_smoke_test_is_killed_at_the_deadline(tmp_path: Path) -> None:
    pidfile = tmp_path / "smoke.pid"
    env = environment(PYTHONPATH=str(fake_site(tmp_path)), FAKE_TF_PIDFILE=str(pidfile))
    completed, elapsed = run_doctor(
        "--deadline", "8", "--timeout", "300", "--json", env=env, cwd=tmp_path
    )
    report = unknown_report(completed)
    assert "smoke-test:tensorflow" in report["not_checked"]
    # The killed child's "it hung" is the deadline's doing, not a finding about the node.
    codes = [f["code"] for f in report["findings"]]
    assert "smoke-test-timeout" not in codes
    assert elapsed < 8 + SLACK_S, f"took {elapsed:.1f} s for an 8 s deadline"
    assert pidfile.exists(), "the stand-in TensorFlow never started: nothing was tested"
    smoke = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while alive(smoke) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(smoke), "the smoke test's process outlived the deadline"


@pytest.mark.skipif(not have_gcc(), reason="gcc builds the fake NVML")
def test_a_hanging_nvml_is_not_checked_and_not_called_missing(tmp_path: Path) -> None:
    nvml = fake_nvml(tmp_path / "driver")
    env = environment(
        LD_LIBRARY_PATH=str(nvml.parent),
        FAKE_NVML_INIT_SLEEP="600",
        FAKE_NVML_GPUS="NVIDIA A100-SXM4-80GB|8.0|81920|GPU-a100",
        PATH=str(Path(sys.executable).parent),  # no nvidia-smi to fall back on
    )
    output = tmp_path / "envcheck.prom"
    completed, elapsed = run_doctor(
        "--no-smoke", "--deadline", "4", "--format", "prometheus", "-o", str(output), env=env
    )
    assert completed.returncode == EXIT_NO_VERDICT, completed.stderr
    assert elapsed < 4 + SLACK_S, f"took {elapsed:.1f} s for a 4 s deadline"
    metrics = output.read_text()
    assert 'envcheck_verdict{verdict="unknown"} 1' in metrics
    assert 'envcheck_not_checked{check="driver"} 1' in metrics
    assert 'code="driver-missing"' not in metrics  # NVML was killed, not found missing


def test_without_a_hang_the_deadline_changes_nothing(tmp_path: Path) -> None:
    completed, _ = run_doctor("--no-smoke", "--deadline", "60", "--json", cwd=tmp_path)
    assert completed.returncode in (0, 1), completed.stderr
    report = validated(json.loads(completed.stdout))
    assert report["not_checked"] == []
    assert report["verdict"] in ("pass", "warn", "fail")


WATCHDOG = """
import sys, time
from envcheck.cli.commands.doctor_deadline import Watchdog
watchdog = Watchdog(float(sys.argv[1]), lambda: print("no verdict", flush=True))
watchdog.start()
if sys.argv[2] == "write":
    with watchdog.writing():
        print("own report", flush=True)
time.sleep(float(sys.argv[3]))
"""


def test_the_watchdog_writes_the_no_verdict_report_when_the_doctor_is_stuck() -> None:
    # A main thread stuck where no child bound reaches (a hung network file system).
    started = time.monotonic()
    completed = subprocess.run(
        [sys.executable, "-c", WATCHDOG, "1", "stuck", "60"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert completed.returncode == EXIT_NO_VERDICT, completed.stderr
    assert completed.stdout == "no verdict\n"
    assert "wrote a report without a verdict" in completed.stderr
    assert elapsed < 1 + SLACK_S + 1  # + the interpreter's start


def test_the_watchdog_stays_quiet_once_the_report_is_out() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", WATCHDOG, "0.2", "write", "1.5"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "own report\n"
