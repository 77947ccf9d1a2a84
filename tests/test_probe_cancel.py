"""A command that fails while its probe runs in the background exits at once (ChildGroup).

The hanging driver is a gcc-built fake libcuda whose cuInit never returns (tests/fakes); the
checks bound how long envcheck may take with a subprocess timeout well under the probe's own
10 s limit, so a regression shows as a timeout, not as a slow pass.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from envcheck.probe.isolation import (
    ChildCancelledError,
    ChildGroup,
    accept_children,
    finish_child,
    kill_live_children,
    launch_child,
    run_child,
    run_streaming_child,
)
from tests.native_fakes import fake_libcuda, have_gcc

SLEEP_FOREVER = [sys.executable, "-c", "import time; time.sleep(600)"]


def test_cancel_kills_a_running_child_and_refuses_new_ones() -> None:
    group = ChildGroup()
    raised: list[BaseException] = []

    def wait_for_the_child() -> None:
        try:
            group.run(SLEEP_FOREVER, timeout=600)
        except BaseException as exc:
            raised.append(exc)

    worker = threading.Thread(target=wait_for_the_child)
    worker.start()
    while not group._running:  # the child has started
        worker.join(0.01)
    group.cancel()
    worker.join(10)
    assert not worker.is_alive()
    assert [type(e) for e in raised] == [ChildCancelledError]
    with pytest.raises(ChildCancelledError):
        group.run([sys.executable, "-c", "pass"], timeout=10)
    # run_child turns the refusal into a fact, not an exception.
    result = run_child("interpreter", None, group=group)
    assert result.status == "not-run"
    assert result.describe().startswith("not run: cancelled")


def test_a_child_started_after_the_ending_kill_is_killed_at_once() -> None:
    # A signal kills the live children; a probe thread starting one just after must not leave
    # it running (the exit then waited for that thread until the child's timeout).
    kill_live_children(ending=True)
    try:
        with pytest.raises(ChildCancelledError):
            ChildGroup().run(SLEEP_FOREVER, timeout=600)
        assert run_child("interpreter", timeout=600).status == "not-run"
        assert run_streaming_child(SLEEP_FOREVER, timeout=600).start_error is not None
    finally:
        accept_children()
    assert run_child("interpreter", timeout=600).ok


def test_a_child_launched_first_and_read_later_answers_as_run_child_does() -> None:
    # The doctor launches the framework scan before it loads the probe, and reads it later.
    launched = launch_child("interpreter", None)
    assert launched.process is not None
    launched.process.wait(30)  # its answer waits in the pipe until it is read
    late = finish_child(launched, timeout=30)
    now = run_child("interpreter", None, timeout=30)
    assert late.status == now.status == "ok"
    assert late.data == now.data


def test_cancel_between_launch_and_read_kills_the_launched_child() -> None:
    # A doctor that fails after launching its scan (a bad flag) cancels the group: the
    # launched child must die then, not run on to its timeout, and reading it says so.
    group = ChildGroup()
    process = group.launch(SLEEP_FOREVER)
    group.cancel()
    assert process.wait(10) != 0
    with pytest.raises(ChildCancelledError):
        group.wait_for(process, timeout=600)
    launched = launch_child("interpreter", None, group=group)  # refused: it was cancelled
    assert launched.process is None
    assert finish_child(launched).status == "not-run"


def test_a_timeout_still_kills_the_child() -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        ChildGroup().run(SLEEP_FOREVER, timeout=0.5)


@pytest.mark.skipif(not have_gcc(), reason="gcc is needed to build the fake libcuda")
@pytest.mark.parametrize(
    "args",
    [
        ("doctor", "--no-smoke", "--target-gpu", "NoSuchGPU 9000"),
        ("doctor", "--no-smoke", "--matrix", "/nonexistent/matrix"),
        ("probe", "--matrix", "/nonexistent/matrix"),
    ],
)
def test_a_failing_command_does_not_wait_for_a_hanging_driver(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    libcuda = fake_libcuda(tmp_path / "cuda", release="550.54.14").parent
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": str(libcuda), "FAKE_CUINIT": "hang"}
    result = subprocess.run(
        [sys.executable, "-m", "envcheck", *args],
        capture_output=True, text=True, env=env, timeout=6, check=False,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("envcheck: error: ")
    assert result.stderr.count("\n") == 1
