"""SIGTERM, SIGHUP and SIGINT end envcheck with 128 + the signal and kill its child processes
(issue 16, 4).

The smoke test runs in its own session, so a signal sent to envcheck never reaches it: `timeout`,
a CI cancel or `docker stop` used to leave TensorFlow running and holding GPU memory. Here a real
`envcheck doctor` runs a stand-in TensorFlow whose import writes its pid and sleeps; the test
signals envcheck and checks that the stand-in is gone.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.faults.processes import ENVCHECK, alive, environment, wait_for_file, wait_until_gone

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to see children die")

HANGING_TENSORFLOW = """\
import os, time
with open(os.environ["FAKE_TF_PIDFILE"], "w") as f:
    f.write(str(os.getpid()))
time.sleep(600)
"""


def _default_dispositions() -> None:
    """In the child: the signals at their defaults, whatever the test runner ignores (a
    background job of a non-interactive shell ignores SIGINT, nohup SIGHUP)."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def fake_site(root: Path) -> Path:
    """A directory for PYTHONPATH holding an installed `tensorflow` whose import hangs."""
    site = root / "site"
    (site / "tensorflow").mkdir(parents=True)
    (site / "tensorflow" / "__init__.py").write_text(HANGING_TENSORFLOW)
    meta = site / "tensorflow-2.15.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text(
        textwrap.dedent("""\
            Metadata-Version: 2.1
            Name: tensorflow
            Version: 2.15.0
            """)
    )
    return site


@pytest.mark.parametrize(
    ("signum", "code", "words"),
    [
        (signal.SIGTERM, 143, "terminated (SIGTERM)"),
        (signal.SIGHUP, 129, "hung up (SIGHUP)"),
        (signal.SIGINT, 130, "interrupted"),
    ],
)
def test_a_signal_kills_the_smoke_test_and_exits_128_plus_it(
    tmp_path: Path, signum: signal.Signals, code: int, words: str
) -> None:
    pidfile = tmp_path / "smoke.pid"
    env = environment(PYTHONPATH=str(fake_site(tmp_path)), FAKE_TF_PIDFILE=str(pidfile))
    doctor = subprocess.Popen(
        [*ENVCHECK, "doctor", "--timeout", "300", "--json"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env, cwd=tmp_path, preexec_fn=_default_dispositions,  # noqa: PLW1509
    )  # fmt: skip
    try:
        smoke = int(wait_for_file(pidfile, 60))
        assert alive(smoke)
        doctor.send_signal(signum)
        stdout, stderr = doctor.communicate(timeout=15)
    finally:
        doctor.kill()
        doctor.wait()
    assert wait_until_gone(smoke, 5), "the smoke test outlived envcheck"
    assert doctor.returncode == code, stderr
    assert stderr == f"envcheck: {words}\n"
    assert stdout == ""


def test_a_signal_during_the_interpreter_check_kills_it(tmp_path: Path) -> None:
    """A child of the probe (here a --python that never answers) dies with envcheck too."""
    pidfile = tmp_path / "python.pid"
    python = tmp_path / "python3"
    python.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 600\n")
    python.chmod(0o755)
    probe = subprocess.Popen(
        [*ENVCHECK, "probe", "--python", str(python), "--timeout", "300"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=environment(), preexec_fn=_default_dispositions,  # noqa: PLW1509
    )  # fmt: skip
    try:
        child = int(wait_for_file(pidfile, 60))
        probe.send_signal(signal.SIGTERM)
        _, stderr = probe.communicate(timeout=15)
    finally:
        probe.kill()
        probe.wait()
    assert wait_until_gone(child, 5), "the --python child outlived envcheck"
    assert probe.returncode == 143, stderr
    assert stderr == "envcheck: terminated (SIGTERM)\n"


def test_an_ignored_hangup_stays_ignored(tmp_path: Path) -> None:
    """`nohup envcheck doctor`: SIGHUP was ignored before envcheck started, and stays so."""
    pidfile = tmp_path / "smoke.pid"
    env = environment(PYTHONPATH=str(fake_site(tmp_path)), FAKE_TF_PIDFILE=str(pidfile))

    def ignore_hangup() -> None:
        _default_dispositions()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    doctor = subprocess.Popen(
        [*ENVCHECK, "doctor", "--timeout", "300", "--json"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env, cwd=tmp_path, preexec_fn=ignore_hangup,  # noqa: PLW1509
    )  # fmt: skip
    try:
        smoke = int(wait_for_file(pidfile, 60))
        doctor.send_signal(signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            doctor.wait(timeout=1)
        doctor.send_signal(signal.SIGTERM)
        _, stderr = doctor.communicate(timeout=15)
    finally:
        doctor.kill()
        doctor.wait()
    assert wait_until_gone(smoke, 5)
    assert doctor.returncode == 143, stderr
