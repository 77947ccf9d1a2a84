"""How the doctor's probe starts its children (probe/background.py, probe/scan_launch.py): the
framework scan launched first, and the question of which Python it is answered by the scan's own
child, with the interpreter child as the fallback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from envcheck.errors import InputError
from envcheck.probe import background, deadline
from envcheck.probe.interpreter import Interpreter, describe_interpreter
from envcheck.probe.isolation import ChildGroup, user_python_path
from envcheck.probe.scan_launch import launch_scan


def _no_interpreter_child(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []

    def refuse(python: str, *_args: object, **_kwargs: object) -> Interpreter:
        asked.append(python)
        raise AssertionError("the interpreter child ran")

    monkeypatch.setattr(background, "describe_interpreter", refuse)
    return asked


def test_the_scan_answers_which_python_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = describe_interpreter(sys.executable, 30)
    asked = _no_interpreter_child(monkeypatch)
    started = background.start_probe(python=sys.executable, timeout=30)
    assert started.interpreter is not None
    assert started.interpreter.result() == expected
    assert asked == []


def test_a_launched_scan_is_the_one_the_probe_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    group = ChildGroup()
    scan = launch_scan(sys.executable, user_python_path({}), group)
    _no_interpreter_child(monkeypatch)
    started = background.start_probe(python=sys.executable, timeout=30, scan=scan, group=group)
    assert started.interpreter is not None
    alone = background.start_probe(python=sys.executable, timeout=30)
    assert alone.interpreter is not None
    assert started.frameworks.result().frameworks == alone.frameworks.result().frameworks
    assert started.interpreter.result().executable == alone.interpreter.result().executable


def test_without_the_scans_answer_the_interpreter_child_says_what_is_wrong(
    tmp_path: Path,
) -> None:
    # A --python that is no Python: the scan gives nothing, and the error is the interpreter
    # child's, as it was when that child always ran.
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho not a python >&2\nexit 3\n")
    fake.chmod(0o755)
    started = background.start_probe(python=str(fake), timeout=30)
    assert started.interpreter is not None
    with pytest.raises(InputError) as caught:
        started.interpreter.result()
    with pytest.raises(InputError) as alone:
        describe_interpreter(str(fake), 30)
    assert str(caught.value) == str(alone.value)


def test_under_a_deadline_the_interpreter_child_is_asked_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = _no_interpreter_child(monkeypatch)
    deadline.start(60.0)
    try:
        started = background.start_probe(python=sys.executable, timeout=30)
        assert started.interpreter is not None
        with pytest.raises(AssertionError):
            started.interpreter.result()
    finally:
        deadline.start(None)
    assert asked == [sys.executable]
