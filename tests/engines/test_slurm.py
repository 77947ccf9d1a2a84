"""deploy/slurm against a real Slurm: three nodes, one of them broken.

The cluster (tests/engines/slurm_cluster.py) is Debian's slurmctld, slurmd and munged, one slurmd
per node, each node in network, UTS and mount namespaces of its own. Every node runs the same
envcheck (this test's venv, TensorFlow's CPU wheel in it) with the same settings. On gpu002 one
file differs, as on a node whose local copy of the software went bad: TensorFlow's
libtensorflow_framework.so.2 is cut to its first 8 KiB (a copy bound over the real file in that
node's mount namespace only). Nothing about the doctor is mocked: on gpu002 its smoke test
really imports TensorFlow and the import really crashes; on the others it really runs.

Each test sets the cluster up the way it needs (slurm.conf rewritten, `scontrol reconfigure`,
every node resumed), so each can also run alone.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engines.slurm_cluster import (
    Cluster,
    Node,
    install_debian_packages,
    missing_programs,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "slurm" / "envcheck-slurm.sh"
NHC = ROOT / "deploy" / "slurm" / "envcheck.nhc"
BIN = Path(sys.executable).parent
ENVCHECK = BIN / "envcheck"
HEALTHY = ("gpu001", "gpu003")
BROKEN = "gpu002"
NODES = (Node("gpu001", "10.99.0.11"), Node("gpu002", "10.99.0.12"), Node("gpu003", "10.99.0.13"))
# What the doctor says when TensorFlow cannot even be imported.
SMOKE_FAILURES = ("smoke-test-crashed", "smoke-test-failed")

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Slurm in Linux namespaces")


def _tensorflow_library() -> Path | None:
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        return None
    library = Path(next(iter(spec.submodule_search_locations))) / "libtensorflow_framework.so.2"
    return library if library.is_file() else None


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if os.geteuid() != 0:
        pytest.skip("starts Slurm daemons and network namespaces: needs root")
    install_debian_packages()
    if missing_programs():
        pytest.skip(f"not installed: {', '.join(missing_programs())} (see .ci/run)")
    library = _tensorflow_library()
    if library is None:
        pytest.skip("the broken node's breakage is TensorFlow's (the CPU wheel of the test extras)")
    nodes = [Node(n.name, n.address) for n in NODES]
    cluster = Cluster(nodes)
    try:
        truncated = cluster.root / "libtensorflow_framework.so.2"
        with library.open("rb") as whole:
            truncated.write_bytes(whole.read(8192))
        nodes[1].breakage = [(truncated, library)]
        _write_site_files(cluster)
        cluster.client_env["PATH"] = f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        cluster.start({})
        yield cluster
    finally:
        cluster.stop()


def _write_site_files(cluster: Cluster) -> None:
    """What a site installs: the settings file, and HealthCheckProgram/Prolog pointing at the
    script (a two-line wrapper only because this settings file is not in /etc/envcheck)."""
    (cluster.root / "node-reports").mkdir()
    (cluster.root / "envcheck-slurm.conf").write_text(
        f"ENVCHECK_BIN={ENVCHECK}\n"
        "# The smoke test included: on gpu002 TensorFlow's import crashes.\n"
        "DOCTOR_ARGS=()\n"
        f"REPORT_DIR={cluster.root / 'node-reports'}\n"
        f"export SLURM_CONF={cluster.conf}\n"
    )
    wrapper = cluster.root / "envcheck-slurm"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"export ENVCHECK_SLURM_CONFIG={cluster.root / 'envcheck-slurm.conf'}\n"
        f'exec {SCRIPT} "$@"\n'
    )
    wrapper.chmod(0o755)


def _reset(cluster: Cluster, **settings: str) -> None:
    """slurm.conf with `settings`, every node resumed and idle."""
    cluster.reconfigure(settings)
    # A health check or prolog of the previous settings still running would drain a node
    # again after the resume below.
    cluster.wait_for(lambda: not cluster.running("envcheck-slurm"), 120, "the checks to end")
    for name, (state, _) in cluster.node_states().items():
        if "drain" in state or state in ("down", "unknown"):
            cluster.client("scontrol", "update", f"nodename={name}", "state=resume", check=False)
    cluster.wait_for(
        lambda: [s for s, _ in cluster.node_states().values()] == ["idle"] * len(NODES),
        60,
        "every node idle",
    )


def _documented_one_liner() -> str:
    """The `srun` line of docs/clusters.md (the README's before issue 23), exactly as shown."""
    docs = (ROOT / "docs" / "clusters.md").read_text(encoding="utf-8")
    heading = "\n### Every node's report in one directory\n"
    section = docs.split(heading, 1)[1].split("\n### ", 1)[0]
    lines = [line for line in section.splitlines() if "srun --nodes=" in line]
    assert len(lines) == 1, lines
    return lines[0]


def _error_codes(report: dict[str, object]) -> list[str]:
    findings = report.get("findings")
    assert isinstance(findings, list)
    return [f["code"] for f in findings if f.get("severity") == "error"]


def test_the_documented_one_liner_collects_every_nodes_report(cluster: Cluster) -> None:
    _reset(cluster)
    reports = cluster.root / "reports"
    line = _documented_one_liner()
    assert "--nodes=128" in line and "/shared/envcheck/reports" in line
    line = line.replace("--nodes=128", f"--nodes={len(NODES)}")
    line = line.replace("/shared/envcheck/reports", str(reports))

    started = time.monotonic()
    done = cluster.client("bash", "-c", line, timeout=170)
    assert done.returncode == 0, done.stderr

    files = sorted(p.name for p in reports.iterdir())
    assert files == ["gpu001.json", "gpu002.json", "gpu003.json"], files  # no temporary left
    for name in HEALTHY:
        report = json.loads((reports / f"{name}.json").read_text())
        assert (report["node"], report["verdict"]) in ((name, "pass"), (name, "warn"))
        assert _error_codes(report) == [], report["findings"]
    broken = json.loads((reports / f"{BROKEN}.json").read_text())
    assert (broken["node"], broken["verdict"]) == (BROKEN, "fail")
    assert _error_codes(broken)[:1] in ([c] for c in SMOKE_FAILURES), broken["findings"]
    print(f"one-liner on {len(NODES)} nodes: {time.monotonic() - started:.1f} s")

    # The three reports merged: the two healthy nodes one group, the broken one another.
    fleet = subprocess.run(
        [str(ENVCHECK), "fleet", "--format", "json", str(reports)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert fleet.returncode == 1, fleet.stderr  # a group fails
    merged = json.loads(fleet.stdout)
    groups = {g["hostlist"]: (g["nodes"], g["verdict"]) for g in merged["groups"]}
    assert groups == {"gpu002": (1, "fail"), "gpu[001,003]": (2, "pass")}, merged["groups"]
    text = subprocess.run(
        [str(ENVCHECK), "fleet", str(reports)], capture_output=True, text=True, check=False
    ).stdout
    print(text)


def test_the_health_check_drains_the_broken_node_only(cluster: Cluster) -> None:
    _reset(cluster)
    node_reports = cluster.root / "node-reports"
    for old in node_reports.iterdir():
        old.unlink()
    started = time.monotonic()
    cluster.reconfigure(
        {
            "HealthCheckProgram": str(cluster.root / "envcheck-slurm"),
            "HealthCheckInterval": "10",
            "HealthCheckNodeState": "ANY",
        }
    )

    def checked() -> bool:
        # Every node's check has run (its report kept), and the broken node is drained.
        done = {p.stem for p in node_reports.glob("*.json")}
        return done == {n.name for n in NODES} and "drain" in cluster.node_states()[BROKEN][0]

    cluster.wait_for(checked, 120, "a health check on every node, and gpu002 drained")
    elapsed = time.monotonic() - started
    states = cluster.node_states()
    state, reason = states[BROKEN]
    assert state in ("drained", "draining"), states
    assert re.fullmatch(r"envcheck: (smoke-test-crashed|smoke-test-failed): .+", reason), reason
    assert len(reason) <= 100
    report = json.loads((node_reports / f"{BROKEN}.json").read_text())
    assert reason.startswith(f"envcheck: {_error_codes(report)[0]}: ")
    for name in HEALTHY:
        assert states[name] == ("idle", ""), states
    sinfo_r = cluster.client("sinfo", "-R", "-o", "%E|%n").stdout
    print(f"health check: {elapsed:.1f} s until every node was checked\n{sinfo_r}")
    assert f"|{BROKEN}" in sinfo_r and "gpu001" not in sinfo_r and "gpu003" not in sinfo_r
    cluster.reconfigure({})


def test_the_prolog_refuses_a_job_on_the_broken_node(cluster: Cluster) -> None:
    _reset(cluster, Prolog=str(cluster.root / "envcheck-slurm"))

    ran = cluster.client("srun", "-w", "gpu001", "-N1", "hostname", timeout=120)
    assert ran.stdout.strip() == "gpu001"

    refused = cluster.client("srun", "-w", BROKEN, "-N1", "hostname", check=False, timeout=120)
    assert refused.returncode != 0
    assert BROKEN not in refused.stdout  # the job never ran there
    state, reason = cluster.node_states()[BROKEN]
    print(f"srun on {BROKEN}: exit {refused.returncode}\n{refused.stderr}{state}: {reason}")
    assert "drain" in state, (state, reason, refused.stderr, cluster.logs_tail())
    # The envcheck reason, which Slurm's own "Prolog error" does not replace.
    assert reason.startswith(("envcheck: smoke-test-crashed", "envcheck: smoke-test-failed")), (
        reason,
        refused.stderr,
    )


def test_check_mode_and_the_nhc_function_on_every_node(cluster: Cluster) -> None:
    _reset(cluster)
    wrapper = cluster.root / "envcheck-slurm"
    # NHC's own die() and log(), reduced to what they print; the check is the real one.
    nhc = (
        'die() { echo "die $1: $2"; return "$1"; }; log() { echo "log: $*"; }; '
        f"ENVCHECK_SLURM_SCRIPT={wrapper}; . {NHC}; "
        f'out=$({wrapper} check); echo "check: $out exit $?"; check_envcheck || true'
    )
    done = cluster.client(
        "srun", f"--nodes={len(NODES)}", "--ntasks-per-node=1", "--label", "bash", "-c", nhc,
        timeout=170,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    by_task = {n: [line.split(": ", 1)[1] for line in lines if line.startswith(f"{i}: ")]
               for i, n in enumerate(n.name for n in NODES)}  # fmt: skip
    for name in HEALTHY:
        assert by_task[name][0] in ("check: pass exit 0", "check: warn exit 0"), by_task
        assert len(by_task[name]) == 1, by_task  # die() was not called
    check, die = by_task[BROKEN]
    assert re.fullmatch(r"check: fail envcheck: smoke-test-(crashed|failed): .+ exit 1", check)
    assert re.fullmatch(r"die 1: envcheck: smoke-test-(crashed|failed): .+", die), die


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
@pytest.mark.parametrize("script", [SCRIPT, NHC], ids=lambda p: p.name)
def test_the_scripts_pass_shellcheck(script: Path) -> None:
    done = subprocess.run(
        ["shellcheck", "--shell=bash", str(script)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout
