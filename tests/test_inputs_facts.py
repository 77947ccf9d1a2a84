"""`doctor --facts FILE` with hand-edited facts files: an unknown OS, unknown, missing and wrongly
typed fields. Each is one usage error that names the field by its path, or is read as the
docstring of facts_from_json promises; never a Python message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from envcheck import platforms
from envcheck.probe import facts as facts_module
from envcheck.probe.facts import FactsFileError, facts_from_json
from tests.facts_builder import gpu, tensorflow
from tests.facts_builder import machine as build_machine

# As a file holds it: lists, not the tuples of to_json().
FACTS = json.loads(json.dumps(build_machine(gpus=(gpu(),), frameworks=(tensorflow(),)).to_json()))


def doctor_on(tmp_path: Path, data: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "doctor", "--json", "--facts", str(path)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def edited(**changes: Any) -> dict[str, Any]:
    """FACTS with `changes` applied: {"gpus.0.foo": 1} sets data["gpus"][0]["foo"]."""
    data: dict[str, Any] = json.loads(json.dumps(FACTS))
    for dotted, value in changes.items():
        *path, last = dotted.split(".")
        where: Any = data
        for part in path:
            where = where[int(part)] if part.isdigit() else where[part]
        key: int | str = int(last) if last.isdigit() else last
        if value is DELETE:
            del where[key]
        else:
            where[key] = value
    return data


DELETE = object()


def assert_one_line_usage_error(completed: subprocess.CompletedProcess[str], *words: str) -> None:
    assert completed.returncode == 2, (completed.stdout, completed.stderr)
    assert completed.stdout == ""
    lines = completed.stderr.splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith("envcheck: error: --facts ")
    assert all(word in lines[0] for word in words), lines[0]
    for python_words in ("__init__", "KeyError", "keyword argument", "positional argument"):
        assert python_words not in lines[0]


def test_an_unknown_os_is_a_usage_error_naming_the_field_and_the_accepted_values(
    tmp_path: Path,
) -> None:
    # Before: "internal error: KeyError: 'solaris'", exit 3.
    completed = doctor_on(tmp_path, edited(**{"platform.os": "solaris"}))
    assert_one_line_usage_error(completed, "platform.os", "'solaris'", "linux, windows, wsl, macos")


def test_an_unknown_driver_state_is_a_usage_error(tmp_path: Path) -> None:
    # The rules dispatch on the state; one they do not know would pass as no problem.
    completed = doctor_on(tmp_path, edited(**{"driver.state": "asleep"}))
    assert_one_line_usage_error(completed, "driver.state", "'asleep'", "ok, missing, stub")


@pytest.mark.parametrize("os_name", platforms.OS_NAMES)
def test_every_accepted_os_is_diagnosed(tmp_path: Path, os_name: str) -> None:
    completed = doctor_on(tmp_path, edited(**{"platform.os": os_name}))
    assert completed.returncode in (0, 1), completed.stderr
    assert json.loads(completed.stdout)["facts"]["platform"]["os"] == os_name


def test_a_facts_file_accepts_exactly_the_os_names_the_recommendation_knows(tmp_path: Path) -> None:
    # One list (envcheck/platforms.py) serves both; a name outside it is refused by the reader.
    refused = doctor_on(tmp_path, edited(**{"platform.os": "beos"}))
    for name in platforms.OS_NAMES:
        assert name in refused.stderr


def test_unknown_fields_are_ignored(tmp_path: Path) -> None:
    # Before: "GpuFacts.__init__() got an unexpected keyword argument 'foo'", exit 2.
    newer = edited(**{"gpus.0.foo": 1, "platform.kernel": "6.8", "driver.branch": "R550"})
    newer["new_section"] = {"anything": [1, 2]}
    assert facts_from_json(newer) == facts_from_json(FACTS)
    completed = doctor_on(tmp_path, newer)
    plain = doctor_on(tmp_path, FACTS)
    assert completed.stderr == ""
    assert (completed.returncode, json.loads(completed.stdout)["findings"]) == (
        plain.returncode,
        json.loads(plain.stdout)["findings"],
    )


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"gpus.0.found_via": DELETE}, ("gpus[0].found_via is missing",)),
        # A misspelt field is caught: the field it should have been is missing.
        ({"gpus.0.compute_capability": DELETE, "gpus.0.compute_capabilty": "8.9"},
         ("gpus[0].compute_capability is missing",)),
        ({"frameworks.0.version": DELETE}, ("frameworks[0].version is missing",)),
        ({"driver.steps.0.ok": DELETE}, ("driver.steps[0].ok is missing",)),
        ({"gpus.0.memory_mib": "lots"}, ("gpus[0].memory_mib", "an integer or null", "'lots'")),
        ({"libraries": [{"name": 1}]}, ("libraries[0].name must be a string",)),
        ({"gpus.0": "RTX 4090"}, ("gpus[0] must be an object",)),
        ({"seconds": "fast"}, ("seconds must be a number", "'fast'")),
    ],
)  # fmt: skip
def test_a_bad_field_is_named_by_its_path(
    tmp_path: Path, changes: dict[str, Any], words: tuple[str, ...]
) -> None:
    data = edited(**changes)
    with pytest.raises(FactsFileError):
        facts_from_json(data)
    assert_one_line_usage_error(doctor_on(tmp_path, data), *words)


def test_lists_and_fields_with_defaults_may_be_left_out() -> None:
    data = edited(
        **{
            "platform.device_nodes": DELETE,
            "driver.steps": DELETE,
            "driver.errors": DELETE,
            "frameworks.0.requires": DELETE,
            "frameworks.0.problems": DELETE,
            "frameworks.0.build_found_via": DELETE,
            "seconds": DELETE,
        }
    )
    facts = facts_from_json(data)
    assert facts.platform.device_nodes == () and facts.driver.steps == ()
    assert facts.frameworks[0].requires == ()
    assert facts.frameworks[0].build_found_via is None
    assert facts.seconds == 0.0


def test_the_checked_types_cover_every_field_of_every_record() -> None:
    for kind, record in facts_module._RECORDS.items():
        assert set(facts_module._TYPES[kind]) == {f.name for f in fields(record)}, kind
