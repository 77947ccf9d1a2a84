"""--format and -o on every command that writes a report, one meaning of each timeout, and the
progress lines a person at a terminal sees (issue 23, points 7 and 8).

The commands run as a user runs them (subprocesses); the terminal is a real pseudo-terminal
(the pty module), since "is stderr a terminal" is the question the code asks.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from envcheck.cli.main import parser
from envcheck.cli.options import parse
from envcheck.cli.report_output import progress
from envcheck.explain.reader import _chunks
from tests.facts_builder import LINUX, driver, machine
from tests.test_probe_cli import _dist
from tests.test_smoke import FULL_FAKE

LOGS = Path(__file__).resolve().parent / "logs"
LOG = str(LOGS / "colab_cudnn_runtime_older.log")
EXIT_USAGE = 2
REPORT_MD, PLAN_MD = "report.md", "plan.md"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envcheck", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _facts_file(tmp_path: Path) -> Path:
    # A Docker build's facts: no driver, no GPU (tests/facts_builder.py).
    facts = machine(
        driver=driver(None, None, "missing", errors=("nvml: NVML Shared Library Not Found",)),
        gpus=(),
        platform=replace(LINUX, device_nodes=(), container="docker"),
    )
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(facts.to_json()), encoding="utf-8")
    return path


# --- -o FILE: the suffix picks the format, --format wins, one line says where it went ---------


def test_doctor_o_report_md_writes_markdown_and_says_so(tmp_path: Path) -> None:
    facts = str(_facts_file(tmp_path))
    stdout, shown = _run_on_terminal(
        ["doctor", "--facts", facts, "-o", str(tmp_path / REPORT_MD)], stdin_tty=False
    )
    assert stdout == ""
    assert shown == f"envcheck: wrote {tmp_path / REPORT_MD} (markdown)\n"
    done = _run("doctor", "--facts", facts, "-o", REPORT_MD, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert done.stdout == done.stderr == ""  # a script's stderr holds only problems
    written = (tmp_path / REPORT_MD).read_text(encoding="utf-8")
    by_format = _run("doctor", "--facts", facts, "--format", "markdown", cwd=tmp_path).stdout
    assert written.splitlines()[1:] != [] and written.startswith(by_format.splitlines()[0])
    # --format says otherwise: the name does not decide.
    _, shown = _run_on_terminal(
        ["doctor", "--facts", facts, "--format", "text", "-o", str(tmp_path / REPORT_MD)],
        stdin_tty=False,
    )
    assert shown == f"envcheck: wrote {tmp_path / REPORT_MD} (text)\n"
    text = _run("doctor", "--facts", facts, cwd=tmp_path).stdout
    assert (tmp_path / REPORT_MD).read_text(encoding="utf-8").splitlines()[0] == (
        text.splitlines()[0]
    )


@pytest.mark.parametrize(
    ("suffix", "format_name", "check"),
    [
        (".json", "json", lambda text: json.loads(text)["schema"].startswith("envcheck.")),
        (".xml", "junit", lambda text: text.startswith("<?xml")),
        (".prom", "prometheus", lambda text: "# TYPE envcheck_" in text),
        (".log", "text", lambda text: not text.startswith(("{", "<", "#"))),
    ],
)
def test_doctor_suffixes(tmp_path: Path, suffix: str, format_name: str, check: object) -> None:
    target = str(tmp_path / f"report{suffix}")
    _, shown = _run_on_terminal(
        ["doctor", "--facts", str(_facts_file(tmp_path)), "-o", target], stdin_tty=False
    )
    assert shown == f"envcheck: wrote {target} ({format_name})\n"
    assert callable(check) and check(Path(target).read_text(encoding="utf-8"))


REPORT_COMMANDS = {
    "explain": [LOG],
    "recommend": ["--driver", "535.104.05", "--gpu", "RTX 3060"],
    "fleet": [],  # sources added in the test
    "doctor": [],  # --facts added in the test
    "probe": [],
}


@pytest.mark.parametrize("command", sorted(REPORT_COMMANDS))
def test_every_report_command_has_format_and_o_alike(tmp_path: Path, command: str) -> None:
    page = _run(command, "--help", cwd=tmp_path).stdout
    assert "\n  --format " in page and "\n  -o, --output FILE " in page, page
    args = list(REPORT_COMMANDS[command])
    if command == "doctor":
        args = ["--facts", str(_facts_file(tmp_path))]
    if command == "fleet":
        report = _run("doctor", "--facts", str(_facts_file(tmp_path)), "--json", cwd=tmp_path)
        (tmp_path / "node.json").write_text(report.stdout, encoding="utf-8")
        args = [str(tmp_path / "node.json")]
    target = str(tmp_path / "out.json")
    stdout, shown = _run_on_terminal([command, *args, "-o", target], stdin_tty=False)
    assert stdout == "" and shown == f"envcheck: wrote {target} (json)\n"
    as_json = _run(command, *args, "--format", "json", cwd=tmp_path).stdout
    written = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert written.keys() == json.loads(as_json).keys()


def test_a_suffix_naming_a_format_the_command_lacks_is_a_usage_error(tmp_path: Path) -> None:
    done = _run("recommend", "--driver", "535.104.05", "-o", PLAN_MD, cwd=tmp_path)
    assert done.returncode == EXIT_USAGE
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert "markdown" in done.stderr and "--format" in done.stderr
    assert not (tmp_path / PLAN_MD).exists()


# --- timeouts: one name each, the old spelling still accepted --------------------------------


@pytest.mark.parametrize(
    ("command", "name"),
    [("doctor", "--smoke-timeout"), ("probe", "--step-timeout"), ("fetch", "--read-timeout")],
)
def test_each_timeout_is_named_for_what_it_bounds(command: str, name: str) -> None:
    built = parser()
    new = parse(built, [command, name, "7"], environ={}).values
    old = parse(built, [command, "--timeout", "7"], environ={}).values
    assert new.timeout == old.timeout == 7.0
    page = subprocess.run(
        [sys.executable, "-m", "envcheck", command, "--help"],
        capture_output=True,
        text=True,
        env={**_env(), "COLUMNS": "100"},
        check=True,
    ).stdout
    assert f"\n  {name} SECONDS" in page
    assert "\n  --timeout" not in page  # listed only as the old name
    assert "--timeout" in " ".join(page.split())


# --- progress on a terminal -----------------------------------------------------------------


def _run_on_terminal(
    args: list[str], stdin_tty: bool, feed: bytes = b"", limit: float = 300
) -> tuple[str, str]:
    """Run envcheck with stderr (and, if asked, stdin) on a pseudo-terminal; (stdout, what
    the terminal showed). `feed` is typed at the terminal after the prompt, then one Ctrl-D.
    A child still running after `limit` seconds is killed (stdout is then what it wrote)."""
    master, slave = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "envcheck", *args],
        stdin=slave if stdin_tty else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=_env(),
    )
    os.close(slave)
    shown = b""
    fed = not stdin_tty
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        if not fed and b"Ctrl-D" in shown and shown.endswith(b"\n"):
            os.write(master, feed + b"\x04")
            fed = True
        if child.poll() is not None and not ready:
            break
    os.close(master)
    if child.poll() is None:
        child.kill()
    assert child.stdout is not None
    stdout = child.stdout.read().decode()
    child.wait(timeout=60)
    return stdout, shown.decode(errors="replace").replace("\r\n", "\n")


def test_explain_on_a_terminal_asks_for_the_paste() -> None:
    log = (LOGS / "colab_cudnn_runtime_older.log").read_bytes()
    stdout, shown = _run_on_terminal(["explain"], stdin_tty=True, feed=log, limit=60)
    assert "envcheck: paste the log, then Ctrl-D" in shown
    # One Ctrl-D ends the paste (a second read of the terminal used to wait for another).
    assert "cudnn-version-mismatch" in stdout


def test_explain_reading_a_pipe_or_a_file_asks_nothing() -> None:
    _, shown = _run_on_terminal(["explain", LOG], stdin_tty=True)
    assert "paste" not in shown
    piped = subprocess.run(
        [sys.executable, "-m", "envcheck", "explain"],
        input=(LOGS / "colab_cudnn_runtime_older.log").read_bytes(),
        capture_output=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert piped.stderr == b""


@pytest.fixture(scope="module")
def fake_tensorflow(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The python of a venv whose TensorFlow 2.18.1 is tests/test_smoke.py's fake: its smoke
    test passes in a second."""
    root = tmp_path_factory.mktemp("fake-tf")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    _dist(Path(site), "tensorflow", "2.18.1")
    (Path(site) / "tensorflow").mkdir()
    (Path(site) / "tensorflow" / "__init__.py").write_text(textwrap.dedent(FULL_FAKE))
    return str(python)


def test_the_smoke_test_says_it_runs_on_a_terminal_only(fake_tensorflow: str) -> None:
    args = ["doctor", "--python", fake_tensorflow]
    stdout, shown = _run_on_terminal(args, stdin_tty=False)
    assert "envcheck: running the TensorFlow smoke test…" in shown
    assert "TensorFlow" in stdout
    piped = subprocess.run(
        [sys.executable, "-m", "envcheck", *args],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
        check=False,
    )
    assert "smoke test…" not in piped.stderr
    assert "TensorFlow" in piped.stdout


def test_probe_import_frameworks_says_so_on_a_terminal(fake_tensorflow: str) -> None:
    args = ["probe", "--python", fake_tensorflow, "--import-frameworks"]
    stdout, shown = _run_on_terminal(args, stdin_tty=False)
    assert "envcheck: importing the frameworks" in shown
    assert "Platform" in stdout or "platform" in stdout.lower()
    _, quiet = _run_on_terminal([*args, "--json"], stdin_tty=False)
    assert "importing" not in quiet


def test_no_progress_for_machine_formats_even_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    master, slave = pty.openpty()
    try:
        with os.fdopen(os.dup(slave), "w") as terminal:
            monkeypatch.setattr(sys, "stderr", terminal)
            assert progress("text") is not None and progress("markdown") is not None
            assert all(progress(f) is None for f in ("json", "prometheus", "junit", "csv"))
        with Path(os.devnull).open("w") as null:
            monkeypatch.setattr(sys, "stderr", null)
            assert progress("text") is None
    finally:
        os.close(master)
        os.close(slave)


def test_one_ctrl_d_ends_a_log_read_from_a_terminal() -> None:
    # A buffered read that hit the end returned, and the next read waited for another Ctrl-D.
    master, slave = pty.openpty()
    chunks: list[bytes] = []
    with os.fdopen(slave, "rb") as terminal:
        reader = threading.Thread(
            target=lambda: chunks.extend(_chunks(terminal, "standard input", 1 << 16)),
            daemon=True,
        )
        reader.start()
        os.write(master, b"line one\nline two\n\x04")
        reader.join(timeout=20)
        finished = not reader.is_alive()
        if not finished:
            os.write(master, b"\x04")  # let the thread end
            reader.join(timeout=20)
    os.close(master)
    assert finished
    assert b"".join(chunks) == b"line one\nline two\n"


def test_a_variable_exported_for_the_doctor_does_not_redirect_other_commands(
    tmp_path: Path,
) -> None:
    """ENVCHECK_OUTPUT/ENVCHECK_FORMAT set for `doctor` (a Docker build's ENV) must not send
    `recommend`'s output over the doctor's file, nor make it refuse the doctor's format."""
    doctor_file = tmp_path / "doctor.prom"
    doctor_file.write_text("the doctor's report\n")
    env = {**_env(), "ENVCHECK_OUTPUT": str(doctor_file), "ENVCHECK_FORMAT": "prometheus"}
    args = ["recommend", "--driver", "535.104.05", "--gpu", "RTX 3060", "--os", "linux"]
    done = subprocess.run(
        [sys.executable, "-m", "envcheck", *args, "--arch", "x86_64", "--python-version", "3.11"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "TensorFlow 2.21.0" in done.stdout
    assert doctor_file.read_text() == "the doctor's report\n"
