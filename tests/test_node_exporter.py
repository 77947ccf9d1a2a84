"""`doctor --format prometheus` scraped through a real node_exporter (issue 21, 2).

The test starts Debian's prometheus-node-exporter on 127.0.0.1 (a free port) with only the
textfile collector, pointed at a temporary directory; envcheck writes its metrics file there
(-o, atomically); the test fetches /metrics over loopback and reads envcheck's metrics back as
node_exporter serves them, with node_textfile_scrape_error 0 (node_exporter refuses a whole
file it cannot parse, and says so only in that metric). .ci/run installs the package; here it
is installed when missing and this runs as root, else the test is skipped, naming why.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.facts_builder import driver, machine
from tests.prometheus_text import Sample, parse, value

PACKAGE = "prometheus-node-exporter"
NAMES = ("prometheus-node-exporter", "node_exporter")


def _binary() -> str | None:
    return next((found for name in NAMES if (found := shutil.which(name))), None)


def _install() -> str:
    """Install Debian's package (as .ci/run does); why not, when it cannot be."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("apt-get"):
        return "not root with apt-get"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", PACKAGE]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600,
                              check=False)  # fmt: skip
        if done.returncode != 0:
            return f"{' '.join(command)} failed: {done.stderr.strip()[-200:]}"
    return ""


@pytest.fixture(scope="module")
def node_exporter_binary() -> str:
    found = _binary()
    if found is None:
        why = _install()
        found = _binary()
        if found is None:
            pytest.skip(f"{PACKAGE} is not installed and could not be installed ({why})")
    return found


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as answer:
        text: str = answer.read().decode("utf-8")
        return text


class Exporter:
    def __init__(self, directory: Path, port: int, process: subprocess.Popen[str]) -> None:
        self.directory, self.port, self.process = directory, port, process

    def scrape(self) -> list[Sample]:
        samples, _, _ = parse(_get(f"http://127.0.0.1:{self.port}/metrics"))
        return samples


@pytest.fixture
def exporter(node_exporter_binary: str, tmp_path: Path) -> Iterator[Exporter]:
    directory = tmp_path / "textfile"
    directory.mkdir()
    for _attempt in range(3):  # the free port may be taken between the probe and the start
        port = _free_port()
        process = subprocess.Popen(
            [node_exporter_binary, f"--web.listen-address=127.0.0.1:{port}",
             "--collector.disable-defaults", "--collector.textfile",
             f"--collector.textfile.directory={directory}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 15
        while process.poll() is None and time.monotonic() < deadline:
            try:
                _get(f"http://127.0.0.1:{port}/metrics")
                break
            except OSError:
                time.sleep(0.1)
        if process.poll() is None:
            break
    else:
        pytest.fail(
            f"node_exporter did not start: {process.stderr.read() if process.stderr else ''}"
        )
    try:
        yield Exporter(directory, port, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _doctor(
    facts: Path, output: Path, *args: str, output_format: str = "prometheus"
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "doctor", "--facts", str(facts), "--format",
         output_format, "-o", str(output), *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


def test_node_exporter_serves_the_doctors_metrics(exporter: Exporter, tmp_path: Path) -> None:
    # A node whose driver is too old for TensorFlow 2.18's CUDA 12.
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps(machine(driver=driver("450.80.02", "11.0")).to_json()))
    done = _doctor(facts, exporter.directory / "envcheck.prom", "--node", "gpu001")
    assert done.returncode == 1, done.stderr  # a failing finding: exit 1
    assert [p.name for p in exporter.directory.iterdir()] == ["envcheck.prom"], (
        "a temporary file was left beside the metrics"
    )
    samples = exporter.scrape()
    print("\n".join(  # the scrape, for the record (pytest -s shows it)
        f"{s.name}{s.labels} {s.value:g}" for s in samples if s.name.startswith("envcheck_")
    ))  # fmt: skip
    assert value(samples, "node_textfile_scrape_error") == 0
    verdicts = {s.labels["verdict"]: s.value for s in samples if s.name == "envcheck_verdict"}
    assert verdicts == {"fail": 1, "unknown": 0, "warn": 0, "pass": 0}
    _doctor(facts, tmp_path / "report.json", output_format="json")
    findings = json.loads((tmp_path / "report.json").read_text())["findings"]
    too_old = [f for f in findings if f["code"] == "driver-too-old" and f["severity"] == "error"]
    assert too_old
    assert value(samples, "envcheck_finding", code="driver-too-old", severity="error") == len(
        too_old
    )
    assert value(samples, "envcheck_framework_ready", framework="tensorflow") == 0
    assert value(samples, "envcheck_info", node="gpu001", driver="450.80.02", cuda="11.0") == 1
    stamp = value(samples, "envcheck_last_run_timestamp_seconds")
    assert stamp is not None and abs(stamp - time.time()) < 600
    files = [s.labels["file"] for s in samples if s.name == "node_textfile_mtime_seconds"]
    assert [Path(f).name for f in files] == ["envcheck.prom"]


def test_label_values_reach_prometheus_unchanged(exporter: Exporter, tmp_path: Path) -> None:
    # A driver string with what a label value must escape: a quote, a backslash, a line feed
    # cannot be in a driver version the probe reads, but a facts file is the user's.
    odd = 'r450 "beta"\\x'
    broken = machine(driver=driver("450.80.02", "11.0"))
    facts = tmp_path / "odd.json"
    facts.write_text(json.dumps(machine(driver=replace(broken.driver, version=odd)).to_json()))
    done = _doctor(facts, exporter.directory / "envcheck.prom", "--node", "gpu002")
    assert "Traceback" not in done.stderr, done.stderr
    samples = exporter.scrape()
    assert value(samples, "node_textfile_scrape_error") == 0
    info = [s for s in samples if s.name == "envcheck_info"]
    assert len(info) == 1
    assert info[0].labels["driver"] == odd  # escaped by envcheck, read back by node_exporter
