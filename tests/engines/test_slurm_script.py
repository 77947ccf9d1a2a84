"""deploy/slurm/envcheck-slurm.sh's decisions, one at a time, without a cluster.

tests/engines/test_slurm.py runs the script on a real Slurm with the real doctor; the cases
here are the ones a real machine does not produce on demand: reports of either contract (a
one-word verdict, or none and the exit code), no verdict, a message with quotes, new lines and
300 characters, a node an administrator drained, an envcheck without --deadline. `envcheck` is a
stand-in that prints a given report and exits with a given code, and `scontrol` one that
records its arguments (and describes the node as told); both are first on PATH.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a Slurm node's script")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "slurm" / "envcheck-slurm.sh"

NEW_HELP = "  --deadline SECONDS  Bound the whole run.\n  --node NAME  The node's name.\n"
OLD_HELP = "  --timeout SECONDS  Time limit of the smoke test.\n"


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


class Node:
    """A temporary node: the stand-ins, the settings file, and running the script."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.bin.mkdir()
        self.config = root / "envcheck-slurm.conf"
        self.calls = root / "scontrol.calls"
        self.doctor_args = root / "doctor.args"
        self.show_node = "NodeName=gpu042 State=IDLE Partitions=main"
        self.settings = [f"ENVCHECK_BIN={self.bin / 'envcheck'}"]

    def doctor(self, report: object, exit_code: int, help_text: str = NEW_HELP) -> None:
        (self.root / "report.json").write_text(json.dumps(report) if report is not None else "")
        (self.root / "help.txt").write_text(help_text)
        _executable(
            self.bin / "envcheck",
            "#!/bin/sh\n"
            f'if [ "$2" = --help ]; then cat {self.root / "help.txt"}; exit 0; fi\n'
            f'printf "%s\\n" "$@" > {self.doctor_args}\n'
            # -o FILE: the report goes there, as envcheck's own -o does.
            'while [ $# -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done\n'
            f'[ -s {self.root / "report.json"} ] && cp {self.root / "report.json"} "$out"\n'
            f"exit {exit_code}\n",
        )

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        self.config.write_text("\n".join(self.settings) + "\n")
        _executable(
            self.bin / "scontrol",
            "#!/bin/sh\n"
            f'if [ "$1" = show ]; then echo "{self.show_node}"; exit 0; fi\n'
            f'printf "%s|" "$@" >> {self.calls}; echo >> {self.calls}\n',
        )
        return subprocess.run(
            [str(SCRIPT), *args],
            env={
                "PATH": f"{self.bin}:/usr/bin:/bin",
                "ENVCHECK_SLURM_CONFIG": str(self.config),
                "SLURMD_NODENAME": "gpu042",
                "TMPDIR": str(self.root),
                **env,
            },
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )

    def scontrol_calls(self) -> list[list[str]]:
        if not self.calls.exists():
            return []
        return [line.split("|")[:-1] for line in self.calls.read_text().splitlines()]

    def drains(self) -> list[str]:
        """The reasons of the drains asked for."""
        return [
            call[3].removeprefix("reason=")
            for call in self.scontrol_calls()
            if call[:1] == ["update"] and "state=drain" in call
        ]


@pytest.fixture
def node(tmp_path: Path) -> Node:
    return Node(tmp_path)


def _report(verdict: str | None, *findings: tuple[str, str, str], **extra: object) -> object:
    report: dict[str, object] = {
        "findings": [{"code": c, "severity": s, "message": m} for c, s, m in findings],
        **extra,
    }
    if verdict is not None:
        report["verdict"] = verdict
    return report


def test_a_failing_verdict_drains_with_the_first_error_as_the_reason(node: Node) -> None:
    node.doctor(
        _report(
            "fail",
            ("known-bug", "info", "Known bug."),
            ("driver-too-old", "error", "The NVIDIA driver is too old."),
            ("cudnn-missing", "error", "cuDNN is missing."),
        ),
        1,
    )
    done = node.run("health")
    assert done.returncode == 1
    assert node.drains() == ["envcheck: driver-too-old: The NVIDIA driver is too old."]
    assert node.scontrol_calls()[0][:2] == ["update", "nodename=gpu042"]
    # --deadline and --node where envcheck has them.
    args = node.doctor_args.read_text().split()
    assert args[:3] == ["doctor", "--format", "json"]
    assert "--deadline" in args and "--timeout" not in args
    assert args[args.index("--node") + 1] == "gpu042"


def test_the_reason_is_one_short_line_without_quotes(node: Node) -> None:
    message = 'A "quoted" \\ back`slash`\nand a new line, ' + "then a long tail " * 20
    node.doctor(_report("fail", ("smoke-test-failed", "error", message)), 1)
    assert node.run("health").returncode == 1
    (reason,) = node.drains()
    assert len(reason) <= 100 and reason.endswith("...")
    assert reason.startswith("envcheck: smoke-test-failed: A quoted  backslash and a new line")
    assert not set(reason) & set("\"'\\`\n")


@pytest.mark.parametrize("mode", ["health", "prolog"])
def test_pass_and_warn_drain_nothing(node: Node, mode: str) -> None:
    for verdict, exit_code in (("pass", 0), ("warn", 0)):
        node.doctor(_report(verdict, ("known-bug", "warning", "A warning.")), exit_code)
        assert node.run(mode, SLURM_JOB_ID="7").returncode == 0
    assert node.scontrol_calls() == []


def test_without_the_report_contract_the_exit_code_decides(node: Node) -> None:
    # Today's envcheck: `verdict` is a sentence, no --deadline (so --timeout), no --node.
    sentence = "TensorFlow will not use the GPU here: cuDNN is missing."
    node.doctor(_report(sentence, ("cudnn-missing", "error", "cuDNN is missing.")), 1, OLD_HELP)
    done = node.run("check")
    assert (done.returncode, done.stdout) == (
        1,
        "fail envcheck: cudnn-missing: cuDNN is missing.\n",
    )
    args = node.doctor_args.read_text().split()
    assert "--timeout" in args and "--deadline" not in args and "--node" not in args

    node.doctor(_report("No problem found.", ("known-bug", "warning", "A warning.")), 0, OLD_HELP)
    assert node.run("check").stdout == "warn\n"


def test_no_verdict_drains_nothing_by_default(node: Node) -> None:
    node.doctor(_report("unknown", not_checked=["smoke-test", "driver"]), 4)
    health = node.run("health")
    assert health.returncode == 0
    assert node.scontrol_calls() == []
    assert "no verdict" in health.stderr
    check = node.run("check")
    assert check.returncode == 4
    assert check.stdout == "unknown envcheck: no verdict (not checked: smoke-test, driver)\n"


def test_no_verdict_drains_when_the_settings_say_so(node: Node) -> None:
    node.settings.append("ON_UNKNOWN=drain")
    node.doctor(None, 3)  # envcheck failed: no report at all
    assert node.run("health").returncode == 0
    (reason,) = node.drains()
    assert reason.startswith("envcheck: no verdict (no report (exit 3)")
    assert node.run("prolog", SLURM_JOB_ID="7").returncode == 1


def test_a_missing_envcheck_is_no_verdict(node: Node) -> None:
    node.settings = [f"ENVCHECK_BIN={node.root / 'nowhere' / 'envcheck'}"]
    done = node.run("check")
    assert done.returncode == 4, done.stderr
    assert done.stdout.startswith("unknown envcheck: no verdict (no report")


def test_a_node_drained_for_another_reason_keeps_it(node: Node) -> None:
    node.show_node = "NodeName=gpu042 State=IDLE+DRAIN Partitions=main Reason=bad DIMM [root@1]"
    node.doctor(_report("fail", ("no-gpu", "error", "No usable GPU is visible.")), 1)
    done = node.run("health")
    assert done.returncode == 1
    assert node.drains() == []
    assert "already drained for another reason (bad DIMM [root@1])" in done.stderr


def test_a_node_drained_by_envcheck_gets_the_new_reason(node: Node) -> None:
    node.show_node = "NodeName=gpu042 State=IDLE+DRAIN Reason=envcheck: no-gpu: old [root@1]"
    node.doctor(_report("fail", ("driver-missing", "error", "No NVIDIA driver.")), 1)
    assert node.run("health").returncode == 1
    assert node.drains() == ["envcheck: driver-missing: No NVIDIA driver."]


def test_the_prolog_refuses_the_job_and_says_why_on_the_job(node: Node) -> None:
    node.doctor(_report("fail", ("no-gpu", "error", "No usable GPU is visible.")), 1)
    done = node.run(SLURM_JOB_ID="4711")  # no mode: a Prolog, from Slurm's environment
    assert done.returncode == 1
    assert "refusing job 4711" in done.stderr
    calls = node.scontrol_calls()
    assert node.drains() == ["envcheck: no-gpu: No usable GPU is visible."]
    assert [
        "update",
        "jobid=4711",
        "admincomment=envcheck: no-gpu: No usable GPU is visible. (node gpu042)",
    ] in calls


def test_report_dir_keeps_the_latest_report_whole(node: Node) -> None:
    reports = node.root / "reports"
    reports.mkdir()
    node.settings.append(f"REPORT_DIR={reports}")
    node.doctor(_report("pass"), 0)
    assert node.run("health").returncode == 0
    assert [p.name for p in reports.iterdir()] == ["gpu042.json"]
    assert json.loads((reports / "gpu042.json").read_text())["verdict"] == "pass"


def test_an_unknown_mode_is_a_usage_error(node: Node) -> None:
    done = node.run("drain-everything")
    assert done.returncode == 2 and "usage" in done.stderr
    assert os.access(SCRIPT, os.X_OK)
