"""Every `envcheck ...` command the doctor's output tells a user to run runs as printed and does
what the text around it promises (issue 23, point 3).

The commands are collected from real reports: the doctor's rules and renderers over a range of
described machines (tests/facts_builder.py), in text and Markdown, never by reading the source.
Each is run in a child process with the machine it was printed for described through the
ENVCHECK_* variables (its driver and GPU, as the user on that machine would have them), its
placeholders (NAME, VER, FILE) given real values, and its output checked against the phrase
that follows it.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from envcheck.diagnose.context import Target
from envcheck.diagnose.doctor import Report, diagnose
from envcheck.explain.explain import explain_lines
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.probe.facts import Facts
from envcheck.recommend.machine import GpuDescription, MachineDescription
from envcheck.recommend.rank import recommend
from envcheck.report.doctor import to_markdown, to_text
from envcheck.report.explanation import to_text as explanation_text
from envcheck.report.recommendation import to_text as recommendation_text
from envcheck.versions import ComputeCapability, DriverVersion, PythonVersion
from tests.facts_builder import LINUX, driver, gpu, machine, tensorflow, torch

MATRIX = load_matrix(bundled_matrix_dir())
NO_GPU = replace(LINUX, device_nodes=(), nvidia_gpu="absent",
                 nvidia_gpu_evidence=("no NVIDIA display device among 6 PCI devices",))  # fmt: skip
SUBCOMMANDS = ("recommend", "doctor", "probe", "install", "fetch", "explain", "matrix", "fleet")
LOG = Path(__file__).parent / "logs" / "tf2_linux_cudnn8_missing.log"
# Placeholders as the text names them, and the realistic value a user puts there.
PLACEHOLDERS = {"NAME": "'RTX 4090'", "VER": "550.54.14", "FILE": str(LOG)}


def _machines() -> dict[str, tuple[Facts, Target | None]]:
    cpu_tf = tensorflow("2.21.0", "tensorflow-cpu", is_cuda_build=False, cuda_version=None,
                        cudnn_version=None)  # fmt: skip
    return {
        "healthy GPU": (machine(), None),
        "no GPU, tensorflow-cpu": (
            machine(
                platform=NO_GPU,
                driver=driver(None, None, "missing"),
                gpus=(),
                libraries=(),
                frameworks=(cpu_tf,),
            ),
            None,
        ),
        "no GPU, tensorflow 2.19": (
            machine(
                platform=NO_GPU,
                driver=driver(None, None, "missing"),
                gpus=(),
                libraries=(),
                frameworks=(tensorflow("2.19.1", is_cuda_build=False),),
            ),
            None,
        ),
        "GPU, tensorflow-cpu": (machine(frameworks=(cpu_tf,)), None),
        "GPU, no driver, tensorflow-cpu": (
            machine(driver=driver(None, None, "missing"), frameworks=(cpu_tf,), gpus=()),
            None,
        ),
        "driver too old": (machine(driver=driver("470.82.01", "11.4")), None),
        "Kepler past its last driver": (
            machine(gpus=(gpu("Tesla K80", "3.7"),), frameworks=(tensorflow("2.10.1"),)),
            None,
        ),
        "torch on an old driver": (
            machine(driver=driver("525.60.13", "12.0"), frameworks=(torch(),)),
            None,
        ),
        "torch CPU on a GPU": (machine(frameworks=(torch(cuda=None),)), None),
        "Docker build for A100": (
            machine(driver=driver(None, None, "missing"), gpus=()),
            Target(DriverVersion.parse("570.133.07"), (ComputeCapability.parse("8.0"),), ("A100",)),
        ),
    }


def _reports() -> list[tuple[str, Facts, Report]]:
    reports = []
    for name, (facts, target) in _machines().items():
        reports.append((name, facts, diagnose(facts, MATRIX, target)))
    return reports


BACKTICKED = re.compile(r"`(envcheck [^`]+)`(?P<after>[^`.;)]*)")
BARE = re.compile(rf"(?<!`)envcheck (?:{'|'.join(SUBCOMMANDS)})\b")


def _texts(report: Report) -> list[str]:
    return [to_text(report), to_markdown(report)]


# `envcheck recommend`'s own text for machines described by flags, as a user gets it: the
# advice it adds (WSL2 on Windows) and its footers.
RECOMMEND_MACHINES = {
    "Windows, Python 3.11, RTX 4090": MachineDescription(
        "windows", "x86_64", PythonVersion(3, 11), DriverVersion.parse("551.61"),
        (GpuDescription("NVIDIA GeForce RTX 4090", ComputeCapability.parse("8.9")),),
    ),
    "Linux, no driver": MachineDescription("linux", "x86_64", PythonVersion(3, 11), None, ()),
}  # fmt: skip


def _recommend_texts() -> list[tuple[str, Facts, str]]:
    texts = []
    for name, described in RECOMMEND_MACHINES.items():
        facts = machine(driver=driver(str(described.driver) if described.driver else None, None))
        texts.append((name, facts, recommendation_text(recommend(MATRIX, described))))
    return texts


LOGS = sorted((Path(__file__).parent / "logs").rglob("*.log"))


def _explain_texts() -> list[tuple[str, Facts, str]]:
    """`envcheck explain` on every log under tests/logs: its fixes come from the signatures'
    and known bugs' data. The machine is one with a GPU and a driver, as the logs' were."""
    texts = []
    for log in LOGS:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        explanation = explain_lines(lines, MATRIX.signatures, MATRIX, MATRIX.known_bugs)
        texts.append((f"explain {log.name}", machine(), explanation_text(explanation)))
    return texts


def _sources() -> list[tuple[str, Facts, str]]:
    doctor = [(n, f, t) for n, f, r in _reports() for t in _texts(r)]
    return doctor + _recommend_texts() + _explain_texts()


def _advice() -> list[tuple[str, Facts, str, str]]:
    """(machine, facts, command, what the text says it does), once each."""
    seen: dict[tuple[str, str], tuple[str, Facts, str, str]] = {}
    for name, facts, text in _sources():
        for match in BACKTICKED.finditer(text):
            command, after = match.group(1), match.group("after").strip()
            seen.setdefault((command, after), (name, facts, command, after))
    return list(seen.values())


def test_the_reports_name_commands_only_as_commands_to_run() -> None:
    # Every envcheck command in a report is marked as one (backticks), so this test runs it;
    # and no option is offered without its command (doctor has no --all).
    for name, _, text in _sources():
        prose = "\n".join(
            line for line in text.splitlines() if not line.startswith(("### ", "```"))
        )
        unmarked = BARE.findall(re.sub(r"`[^`]*`", "", prose))
        assert unmarked == [], f"{name}: {unmarked}\n{text}"
        assert not re.search(r"\(--(all|json)\b", text), f"{name}:\n{text}"


def test_the_range_of_machines_prints_the_advice_under_test() -> None:
    commands = {command for _, _, command, _ in _advice()}
    assert any("--framework torch" in c for c in commands), commands
    assert any(c.endswith("--all") for c in commands), commands
    assert any("--gpu NAME --driver VER" in c for c in commands), commands
    assert any("--os wsl --arch x86_64" in c for c in commands), commands
    assert len(commands) >= 8, commands


def _candidate_lines(out: str) -> int:
    return len(re.findall(r"^\s+\d+\. ", out, re.MULTILINE))


# What the words after a command promise, and how to tell its output keeps the promise.
PROMISES: dict[str, Callable[[int, str], bool]] = {
    "lists them": lambda rc, out: rc in (0, 1) and _candidate_lines(out) > 3,
    "says why": lambda rc, out: rc in (0, 1) and "Rejected:" in out,
    "shows what to install there": lambda rc, out: rc == 0 and "can use the GPU here" in out,
    "names the GPU build for it": lambda rc, out: rc == 0 and "can use the GPU here" in out,
    "shows the details": lambda rc, out: rc == 0 and "can use the GPU here" in out,
    "names it": lambda rc, out: rc == 0 and "can use the GPU here" in out,
    "names one": lambda rc, out: rc in (0, 1) and _candidate_lines(out) >= 1,
    "names": lambda rc, out: rc in (0, 1) and _candidate_lines(out) >= 1,
    "on the program's full output": lambda rc, out: rc in (0, 1) and "[" in out,
}
# `envcheck matrix` "lists them": the rows; told apart from recommend's by the command.
MATRIX_PROMISE: Callable[[int, str], bool] = lambda rc, out: rc == 0 and "2.21" in out  # noqa: E731


# `envcheck doctor` "names it" / "names the cause": a report with its verdict and its table,
# the answer yes (0) or no (1). Judged on this machine: what it names is this machine's.
def DOCTOR_PROMISE(rc: int, out: str) -> bool:  # noqa: N802
    return rc in (0, 1) and "component" in out and "status" in out


def _environment(facts: Facts) -> dict[str, str]:
    """The machine the advice was printed for, as the user on it has it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env["ENVCHECK_DRIVER_VERSION"] = facts.driver.version or "none"
    if facts.gpus and facts.gpus[0].compute_capability:
        env["ENVCHECK_COMPUTE_CAPABILITY"] = facts.gpus[0].compute_capability
    env["ENVCHECK_PYTHON_VERSION"] = ".".join(facts.platform.python.split(".")[:2])
    env["ENVCHECK_NO_SMOKE"] = "1"  # the doctor's smoke test is no part of what its text says
    return env


@pytest.mark.parametrize(
    ("machine_name", "facts", "command", "promise"),
    _advice(),
    ids=[f"{a[0]}: {a[2]}" for a in _advice()],
)
def test_each_command_runs_as_printed_and_does_what_the_text_says(
    machine_name: str, facts: Facts, command: str, promise: str
) -> None:
    words = shlex.split(command)
    # Placeholders get values; a flag given a value here stops the variable from also saying
    # it (--gpu NAME and ENVCHECK_COMPUTE_CAPABILITY for another GPU would contradict).
    env = _environment(facts)
    if "--gpu" in words or "--compute-capability" in words:
        env.pop("ENVCHECK_COMPUTE_CAPABILITY", None)
    line = " ".join(shlex.quote(w) if w not in PLACEHOLDERS else PLACEHOLDERS[w] for w in words)
    argv = shlex.split(line)
    completed = subprocess.run(
        [sys.executable, "-m", "envcheck", *argv[1:]],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    shown = (
        f"{machine_name}: {line} -> {completed.returncode}\n{completed.stdout}{completed.stderr}"
    )
    assert "Traceback" not in completed.stderr, shown
    assert completed.returncode in (0, 1), shown  # the documented answers: yes / no
    by_command = {"matrix": MATRIX_PROMISE, "doctor": DOCTOR_PROMISE}
    check = by_command.get(argv[1]) or PROMISES.get(promise.split(" (", maxsplit=1)[0])
    assert check is not None, f"no check for what {command!r} promises: {promise!r}"
    assert check(completed.returncode, completed.stdout), shown
