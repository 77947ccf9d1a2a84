"""The doctor's outputs for clusters (issue 21, 2): Prometheus text, an NFD feature file and
JUnit XML carry the same verdict as the JSON report, and each is valid for what reads it
(node_exporter's parser is exercised for real in test_node_exporter.py; Kubernetes label
syntax and XML well-formedness are checked here)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.diagnose.node import node_result
from envcheck.diagnose.verdict import NodeResult, no_result
from envcheck.findings import Finding, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.probe.facts import Facts
from envcheck.report import junit, nfd, prometheus
from envcheck.report.doctor import render
from envcheck.report.formats import Format, NodeFormat
from envcheck.report.stamp import Stamp
from tests.facts_builder import driver, jax, machine, torch
from tests.prometheus_text import parse, value

MATRIX = load_matrix(bundled_matrix_dir())
STAMP = Stamp("gpu001", "2026-12-02T10:15:30Z", "0.1.0", 1796292930.0)
# Kubernetes label syntax (apimachinery validation): a name of at most 63 characters after an
# optional DNS-subdomain prefix; a value of at most 63, alphanumeric at both ends, or empty.
LABEL_NAME = re.compile(
    r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")

MACHINES: dict[str, Facts] = {
    "pass": machine(frameworks=(torch(),), libraries=()),
    "fail": machine(driver=driver("450.80.02", "11.0")),
    "three-frameworks": machine(frameworks=(*machine().frameworks, torch(), *jax())),
}


def _result(facts: Facts, not_checked: tuple[str, ...] = ()) -> NodeResult:
    return node_result(diagnose(facts, MATRIX, not_checked=not_checked), smoke_asked=False)


def _verdict_of_every_format(facts: Facts) -> dict[str, str]:
    report = diagnose(facts, MATRIX)
    result = node_result(report, smoke_asked=False)
    samples, _, _ = parse(render(report, result, STAMP, NodeFormat.PROMETHEUS))
    (word,) = [s.labels["verdict"] for s in samples if s.name == "envcheck_verdict" and s.value]
    labels = dict(
        line.split("=", 1) for line in render(report, result, STAMP, NodeFormat.NFD).splitlines()
    )
    suite = ElementTree.fromstring(render(report, result, STAMP, NodeFormat.JUNIT))
    junit_verdict = suite.find("./testsuite/properties/property[@name='verdict']")
    assert junit_verdict is not None
    return {
        "json": json.loads(render(report, result, STAMP, Format.JSON))["verdict"],
        "prometheus": word,
        "nfd": labels["envcheck.dev/verdict"],
        "junit": junit_verdict.attrib["value"],
    }


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_every_format_carries_the_same_verdict(name: str) -> None:
    verdicts = _verdict_of_every_format(MACHINES[name])
    assert len(set(verdicts.values())) == 1, verdicts


def test_the_fail_machine_fails_in_every_format() -> None:
    assert set(_verdict_of_every_format(MACHINES["fail"]).values()) == {"fail"}


# --- NFD --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_nfd_lines_are_valid_kubernetes_labels(name: str) -> None:
    text = nfd.render(_result(MACHINES[name]))
    assert text.endswith("\n")
    for line in text.splitlines():
        key, _, label = line.partition("=")
        assert LABEL_NAME.match(key), key
        assert key.startswith("envcheck.dev/")
        assert len(key.split("/", 1)[1]) <= 63
        assert LABEL_VALUE.match(label) and len(label) <= 63, (key, label)


def test_nfd_names_the_versions_and_readiness() -> None:
    labels = dict(line.split("=", 1) for line in nfd.render(_result(MACHINES["pass"])).splitlines())
    assert labels["envcheck.dev/driver"] == "550.54.14"
    assert labels["envcheck.dev/cuda"] == "12.4"
    assert labels["envcheck.dev/torch"] == "2.14.1"
    assert labels["envcheck.dev/torch.ready"] == ("true" if labels["envcheck.dev/ready"] == "true"
                                                  else "false")  # fmt: skip
    assert len(labels["envcheck.dev/fingerprint"]) == nfd.FINGERPRINT_DIGITS
    failing = dict(
        line.split("=", 1) for line in nfd.render(_result(MACHINES["fail"])).splitlines()
    )
    assert failing["envcheck.dev/ready"] == "false"
    assert failing["envcheck.dev/tensorflow.ready"] == "false"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("580.65.06", "580.65.06"),
        ("2.14.1+cu130", "2.14.1_cu130"),  # a local version: '+' is not allowed
        ("-beta-", "beta"),  # alphanumeric at both ends
        ("x" * 70, "x" * 63),
        ("a" * 62 + "._z", "a" * 62),  # cut to 63, then trimmed again
        ("+++", ""),
        ("", ""),
        ('r450 "beta"\n', "r450__beta"),
    ],
)
def test_label_values_are_made_valid(text: str, label: str) -> None:
    made = nfd.label_value(text)
    assert made == label
    assert LABEL_VALUE.match(made) and len(made) <= 63


def test_an_unknown_value_is_left_out_not_written_empty() -> None:
    labels = nfd.render(no_result("the --deadline passed first")).splitlines()
    assert "envcheck.dev/verdict=unknown" in labels
    assert "envcheck.dev/ready=false" in labels
    assert not [line for line in labels if line.endswith("=")]


# --- Prometheus -------------------------------------------------------------------------------


def test_prometheus_metrics_have_help_and_type_once_and_samples_together() -> None:
    text = prometheus.render(_result(MACHINES["three-frameworks"]), STAMP)
    names = [line.split()[2] for line in text.splitlines() if line.startswith("# HELP")]
    assert len(names) == len(set(names))
    seen: list[str] = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        name = re.split(r"[{ ]", line, maxsplit=1)[0]
        if not seen or seen[-1] != name:
            assert name not in seen, f"{name} samples are not together"
            seen.append(name)
    samples, _, types = parse(text)
    assert set(types.values()) == {"gauge"}
    assert {s.labels["framework"] for s in samples if s.name == "envcheck_framework_ready"} == {
        "tensorflow", "torch", "jax"
    }  # fmt: skip


def test_prometheus_escapes_label_values() -> None:
    odd = 'a "quoted"\\ value\nwith a line feed'
    result = replace(_result(MACHINES["pass"]), driver=odd)
    text = prometheus.render(result, STAMP)
    assert "\n" not in text.split("envcheck_info{", 1)[1].split("}", 1)[0]
    samples, _, _ = parse(text)
    assert value(samples, "envcheck_info", driver=odd) == 1


def test_a_deadline_report_says_unknown_and_what_was_not_checked() -> None:
    result = _result(MACHINES["pass"], not_checked=("driver", "gpu-architecture"))
    samples, _, _ = parse(prometheus.render(result, STAMP))
    assert value(samples, "envcheck_verdict", verdict="unknown") == 1
    assert value(samples, "envcheck_not_checked", check="driver") == 1
    assert value(samples, "envcheck_framework_ready", framework="torch") == 0


# --- JUnit ------------------------------------------------------------------------------------


def test_junit_has_a_case_per_check_with_failures_and_skips() -> None:
    result = _result(MACHINES["fail"], not_checked=())
    root = ElementTree.fromstring(junit.render(result, STAMP))
    cases = {case.attrib["name"]: case for case in root.iter("testcase")}
    assert {"driver", "gpu-architecture", "framework:tensorflow", "cuda-libraries",
            "smoke-test:tensorflow", "co-residency"} <= set(cases)  # fmt: skip
    failure = cases["driver"].find("failure")
    assert failure is not None and failure.attrib["type"] == "driver-too-old"
    skipped = cases["smoke-test:tensorflow"].find("skipped")
    assert skipped is not None and "--no-smoke" in skipped.attrib["message"]
    failed = [name for name, case in cases.items() if case.find("failure") is not None]
    assert root.attrib["failures"] == str(len(failed))
    assert root.attrib["tests"] == str(len(cases))


def test_junit_skips_what_the_deadline_left_undone() -> None:
    result = _result(MACHINES["pass"], not_checked=("driver", "gpu-architecture"))
    root = ElementTree.fromstring(junit.render(result, STAMP))
    driver_case = next(c for c in root.iter("testcase") if c.attrib["name"] == "driver")
    skipped = driver_case.find("skipped")
    assert skipped is not None and "--deadline" in skipped.attrib["message"]


def test_junit_stays_well_formed_with_a_terminal_log_in_a_finding() -> None:
    report = diagnose(
        MACHINES["fail"], MATRIX,
        extra_findings=(Finding("cuda-library-missing", Severity.ERROR,
                                "it said \x1b[31mred\x1b[0m & <tags> \x00", ("\x07bell",),
                                data={"framework": "tensorflow"}),),
    )  # fmt: skip
    text = junit.render(node_result(report, smoke_asked=True), STAMP)
    root = ElementTree.fromstring(text)  # raises on an ill-formed document
    case = next(c for c in root.iter("testcase") if c.attrib["name"] == "cuda-libraries")
    failure = case.find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "it said [31mred[0m & <tags> "
    assert "evidence: bell" in (failure.text or "")


# --- the command line -------------------------------------------------------------------------


def _doctor(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "doctor", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120, check=False,
    )  # fmt: skip


def test_each_format_is_written_to_a_file(tmp_path: Path) -> None:
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps(MACHINES["fail"].to_json()))
    for name in ("prometheus", "nfd", "junit", "json"):
        output = tmp_path / f"out.{name}"
        done = _doctor("--facts", str(facts), "--format", name, "-o", str(output), cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        assert done.stdout == ""
        assert output.read_text().strip()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "facts.json", "out.json", "out.junit", "out.nfd", "out.prometheus"
    ]  # fmt: skip


def test_an_unknown_format_is_a_usage_error_naming_the_formats(tmp_path: Path) -> None:
    done = _doctor("--format", "yaml", "--no-smoke", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "envcheck: error: --format 'yaml' is not one of text, json, markdown, prometheus, nfd, "
        "junit"
    ]


def test_explain_does_not_offer_the_node_formats(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("Could not load dynamic library 'libcudnn.so.8'\n")
    done = subprocess.run(
        [sys.executable, "-m", "envcheck", "explain", str(log), "--format", "prometheus"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "is not one of text, json, markdown" in done.stderr
