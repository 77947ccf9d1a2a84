"""`envcheck fleet` (issue 21, 5): node reports merged into groups of nodes alike, the worst
first, one fix per group; what cannot be merged listed apart without stopping the merge.

The reports are real doctor reports: rendered by the doctor's own code from described
machines (tests/facts_builder.py) with a node name and a time each, and, end to end, written
by `envcheck doctor --facts` itself.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.diagnose.node import node_result
from envcheck.diagnose.verdict import fingerprint
from envcheck.errors import InputError
from envcheck.fleet.ages import parse_duration
from envcheck.fleet.merge import merge
from envcheck.fleet.reader import head
from envcheck.fleet.sources import documents
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.probe.facts import Facts
from envcheck.report.doctor import to_json
from envcheck.report.stamp import Stamp
from tests.facts_builder import LINUX, driver, gpu, machine, torch

MATRIX = load_matrix(bundled_matrix_dir())
NOW = time.time()

HEALTHY = machine(frameworks=(torch(),), libraries=(), driver=driver("580.65.06", "13.0"),
                  gpus=(gpu("NVIDIA H100 80GB HBM3", "9.0"),))  # fmt: skip
OLD_DRIVER = replace(HEALTHY, driver=driver("535.104.05", "12.2"))


def report_text(facts: Facts, node: str, age_s: float = 60.0, **options: Any) -> str:
    """The JSON a node's `envcheck doctor --format json` writes, `age_s` seconds ago."""
    moment = NOW - age_s
    stamp = Stamp(
        node,
        datetime.fromtimestamp(moment, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "0.1.0",
        moment,
    )
    report = diagnose(facts, MATRIX, **options)
    return json.dumps(to_json(report, node_result(report, smoke_asked=False), stamp), indent=2)


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def fleet(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "fleet", *args], input=stdin, capture_output=True,
        text=True, env=env, cwd=cwd, timeout=120, check=False,
    )  # fmt: skip


@pytest.fixture
def cluster(tmp_path: Path) -> Path:
    """gpu[001-004,006] healthy, gpu005 and gpu007 with a driver too old for CUDA 13, and
    gpu008 whose doctor ran out of time (no verdict)."""
    reports = tmp_path / "reports"
    for number in (1, 2, 3, 4, 6):
        write(reports, f"gpu{number:03d}.json", report_text(HEALTHY, f"gpu{number:03d}"))
    for number in (5, 7):
        write(reports, f"gpu{number:03d}.json", report_text(OLD_DRIVER, f"gpu{number:03d}"))
    unknown = report_text(HEALTHY, "gpu008", not_checked=("driver", "gpu-architecture"))
    write(reports, "gpu008.json", unknown)
    return reports


def test_nodes_alike_form_one_group_worst_first(cluster: Path) -> None:
    done = fleet(str(cluster), "--format", "json")
    assert done.returncode == 1, done.stderr  # a group fails
    result = json.loads(done.stdout)
    assert [(g["verdict"], g["nodes"], g["hostlist"]) for g in result["groups"]] == [
        ("fail", 2, "gpu[005,007]"),
        ("unknown", 1, "gpu008"),
        ("pass", 5, "gpu[001-004,006]"),
    ]
    failing = result["groups"][0]
    assert failing["finding"].startswith("driver-too-old: ")
    assert "580.65.06" in failing["fix"]
    assert failing["driver"] == "driver 535.104.05 (CUDA 12.2)"
    assert result["groups"][1]["finding"] == "not checked: driver, gpu-architecture"
    assert result["groups"][2]["fix"] == ""
    assert result["apart"] == []
    assert result["nodes"] == 8 and result["reports"] == 8


def test_no_failing_group_exits_0(tmp_path: Path) -> None:
    write(tmp_path, "a.json", report_text(HEALTHY, "n1"))
    write(tmp_path, "b.json", report_text(HEALTHY, "n2"))
    done = fleet(str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "2 node(s) in 1 group(s) (2 pass)."
    assert "n[1-2]" in done.stdout


def test_what_cannot_be_merged_is_listed_apart_and_the_rest_merges(cluster: Path) -> None:
    good = (cluster / "gpu001.json").read_text()
    write(cluster, "cut.json", good[: len(good) // 2])  # a report cut short
    write(cluster, "future.json", good.replace("envcheck.report/1", "envcheck.report/2", 1))
    data = json.loads(good)
    data["key_facts"]["driver"]["version"] = "999.99.99"  # edited by hand
    write(cluster, "edited.json", json.dumps(data))
    write(cluster, "binary.json", "").write_bytes(b"\xff\xfe\x00garbage")
    write(cluster, "list.json", "[1, 2, 3]")
    write(cluster, "stale.json", report_text(HEALTHY, "gpu099", age_s=3 * 86400))
    os.mkfifo(cluster / "fifo.json")  # must be refused on sight, never waited on
    with (cluster / "huge.json").open("wb") as handle:
        handle.truncate(17 * 1024 * 1024)  # sparse: over the 16 MiB bound
    write(cluster, ".gpu001.json.1a2b.tmp", "{")  # a writer's temporary file: not a report
    write(cluster, "notes.txt", "not a report")  # not *.json: not read
    done = fleet(str(cluster), "--format", "json", "--max-age", "24h")
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert [g["nodes"] for g in result["groups"]] == [2, 1, 5]  # the merge went on
    reasons = {Path(a["source"]).name: (a["kind"], a["reason"]) for a in result["apart"]}
    assert set(reasons) == {"cut.json", "future.json", "edited.json", "binary.json", "list.json",
                            "stale.json", "fifo.json", "huge.json"}  # fmt: skip
    assert reasons["cut.json"][0] == "malformed"
    assert "cut short" in reasons["cut.json"][1]
    assert reasons["future.json"] == (
        "schema",
        "has schema 'envcheck.report/2', not envcheck.report/1",
    )
    assert reasons["edited.json"] == (
        "malformed", "has a fingerprint that is not its key facts' (edited or damaged)"
    )  # fmt: skip
    assert reasons["binary.json"] == ("unreadable", "is not UTF-8 text")
    assert reasons["list.json"] == (
        "malformed",
        "is not a JSON report (it does not begin with '{')",
    )
    assert reasons["stale.json"][0] == "stale"
    assert reasons["fifo.json"] == ("unreadable", "cannot be read: is a FIFO, not a regular file")
    assert reasons["huge.json"] == ("unreadable", "cannot be read: is larger than 16 MiB")


def test_key_facts_nested_too_deep_are_set_apart_not_followed(tmp_path: Path) -> None:
    # Consistent fingerprints, but key facts nested past what a report has (3 levels): one a
    # renderer could still follow, one past the JSON parser's own recursion.
    for name, depth in (("deep.json", 20), ("deeper.json", 100_000)):
        data = json.loads(report_text(HEALTHY, name.split(".")[0]))
        text = json.dumps(data)
        extra = '"extra": ' + "[" * depth + "1" + "]" * depth + ", "
        text = text.replace('"key_facts": {', '"key_facts": {' + extra, 1)
        if depth == 20:  # its fingerprint made to match, so the depth alone is what is wrong
            facts = json.loads(text)["key_facts"]
            text = text.replace(data["fingerprint"], fingerprint(facts), 1)
        write(tmp_path, name, text)
    write(tmp_path, "ok.json", report_text(HEALTHY, "gpu002"))
    done = fleet(str(tmp_path), "--format", "json")
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [g["hostlist"] for g in result["groups"]] == ["gpu002"]
    apart = {Path(a["source"]).name: a["reason"] for a in result["apart"]}
    assert apart == {
        "deep.json": "has unusable key facts",
        "deeper.json": "is not a JSON report (nested too deeply)",
    }


def test_a_node_read_twice_keeps_its_newest_report(tmp_path: Path) -> None:
    # The newer one broken, read first; then an older healthy one: the newer wins either way.
    write(tmp_path, "a-new.json", report_text(OLD_DRIVER, "gpu001", age_s=10))
    write(tmp_path, "b-old.json", report_text(HEALTHY, "gpu001", age_s=3600))
    write(tmp_path, "c.json", report_text(HEALTHY, "gpu002", age_s=3600))
    write(tmp_path, "d-newest.json", report_text(HEALTHY, "gpu002", age_s=5))
    write(tmp_path, "e-older.json", report_text(OLD_DRIVER, "gpu002", age_s=7200))
    result = json.loads(fleet(str(tmp_path), "--format", "json").stdout)
    assert [(g["verdict"], g["hostlist"]) for g in result["groups"]] == [
        ("fail", "gpu001"), ("pass", "gpu002")
    ]  # fmt: skip
    apart = sorted((Path(a["source"]).name, a["kind"], a["node"]) for a in result["apart"])
    assert apart == [("b-old.json", "duplicate", "gpu001"), ("c.json", "duplicate", "gpu002"),
                     ("e-older.json", "duplicate", "gpu002")]  # fmt: skip


def test_standard_input_takes_reports_one_after_another(cluster: Path) -> None:
    texts = [p.read_text() for p in sorted(cluster.glob("*.json"))]
    done = fleet("-", "--format", "json", stdin="\n".join(texts) + "\n{broken")
    result = json.loads(done.stdout)
    assert done.returncode == 1
    assert [g["nodes"] for g in result["groups"]] == [2, 1, 5]
    assert [(a["source"], a["kind"]) for a in result["apart"]] == [("-#9", "malformed")]


def test_fields_in_another_order_are_still_read(tmp_path: Path) -> None:
    # jq -S, or any tool that rewrites the report, sorts the keys: the contract fields are then
    # not first, and the reader walks the whole object instead.
    data = json.loads(report_text(OLD_DRIVER, "gpu001"))
    write(tmp_path, "sorted.json", json.dumps(data, sort_keys=True))
    result = json.loads(fleet(str(tmp_path), "--format", "json").stdout)
    assert [(g["verdict"], g["hostlist"]) for g in result["groups"]] == [("fail", "gpu001")]


def test_the_head_reader_stops_after_the_contract_fields() -> None:
    text = report_text(HEALTHY, "gpu001")
    data = json.loads(text)
    # Everything after the findings may be anything at all: it is never decoded.
    cut = text.index('"status"')
    damaged = text[:cut] + '"status": [[[[' + "x" * 1000 + "\n}"
    assert head(damaged) == {key: data[key] for key in head(text)}
    assert set(head(text)) >= {"schema", "node", "verdict", "fingerprint", "key_facts"}


def test_csv_markdown_and_text_say_the_same(cluster: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(fleet(str(cluster), "--format", "csv").stdout)))
    assert [(r["verdict"], r["nodes"], r["hostlist"]) for r in rows] == [
        ("fail", "2", "gpu[005,007]"), ("unknown", "1", "gpu008"), ("pass", "5", "gpu[001-004,006]")
    ]  # fmt: skip
    markdown = fleet(str(cluster), "--format", "markdown").stdout
    assert "| fail | 2 | `gpu[005,007]` |" in markdown
    text = fleet(str(cluster)).stdout
    assert text.splitlines()[0] == ("8 node(s) in 3 group(s) (2 fail, 1 unknown, 5 pass).")


def test_usage_errors_exit_2_in_one_line(tmp_path: Path) -> None:
    for args, words in (
        ((), "name the node reports"),
        ((str(tmp_path / "missing"),), "does not exist"),
        ((str(tmp_path), "--max-age", "soon"), "is not a duration"),
        ((str(tmp_path), "--format", "yaml"), "is not one of text, json, markdown, csv"),
        (("-", "-"), "can be read once"),
    ):
        done = fleet(*args, stdin="")
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and words in done.stderr, done.stderr


def test_nothing_to_merge_is_not_a_healthy_fleet(tmp_path: Path) -> None:
    write(tmp_path, "broken.json", "{")
    done = fleet(str(tmp_path))
    assert done.returncode == 1
    assert done.stdout.startswith("0 node(s) in 0 group(s); 1 report(s) set apart.")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("24h", 86400), ("30m", 1800), ("90s", 90), ("2d", 172800), ("3600", 3600)],
)
def test_max_age_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "h", "-5m", "0", "1y", "400d", "5 hours"])
def test_max_age_refuses_what_is_no_duration(text: str) -> None:
    with pytest.raises(InputError):
        parse_duration(text)


def test_merge_keeps_nothing_per_report(tmp_path: Path) -> None:
    # Memory flat in the number of reports: 300 reports of one group leave one group holding
    # one report's facts and 300 names (bench/fleet.py measures 10,000).
    text = report_text(HEALTHY, "gpu001")
    paths = []
    for number in range(300):
        name = f"gpu{number:03d}"
        paths.append(str(write(tmp_path, f"{name}.json", text.replace('"gpu001"', f'"{name}"', 1))))
    result = merge(documents(paths, sys.stdin.buffer), NOW)
    (group,) = result.groups
    assert len(group.nodes) == 300 and group.hostlist == "gpu[000-299]"
    assert result.reports == 300 and not result.apart


def test_real_doctor_reports_merge(tmp_path: Path) -> None:
    """End to end: each node's report written by `envcheck doctor --facts ... -o`."""
    facts_dir = tmp_path / "facts"
    facts_dir.mkdir()
    machines = {"ok": HEALTHY, "old": OLD_DRIVER,
                "cpu": replace(HEALTHY, driver=driver(None, None, "missing"), gpus=(),
                               platform=replace(LINUX, nvidia_gpu="absent", device_nodes=()))}  # fmt: skip
    nodes = {"node1": "ok", "node2": "ok", "node3": "old", "node10": "cpu"}
    reports = tmp_path / "reports"
    reports.mkdir()
    for name, facts in machines.items():
        (facts_dir / f"{name}.json").write_text(json.dumps(facts.to_json()))
    for node, kind in nodes.items():
        done = subprocess.run(
            [sys.executable, "-m", "envcheck", "doctor", "--facts", str(facts_dir / f"{kind}.json"),
             "--format", "json", "--node", node, "-o", str(reports / f"{node}.json")],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode in (0, 1), done.stderr
    result = json.loads(fleet(str(reports), "--format", "json").stdout)
    assert [(g["verdict"], g["hostlist"]) for g in result["groups"]] == [
        ("fail", "node3"), ("pass", "node[1-2]"), ("pass", "node10")
    ]  # fmt: skip
