"""Smoke test: import a framework (TensorFlow, PyTorch, JAX) in the target interpreter and run
tiny ops in a child process.

The version matrix predicts whether a setup works; the smoke test proves it. cuDNN's convolution
sub-library, cuBLAS and the XLA toolchain load only at the first op that needs them, so only a
real conv2d shows `Could not load library cudnn_cnn_infer64_8.dll. Error code 193`. The child is
envcheck/probe/children/smoke_common.py followed by the framework's part (smoke.py for
TensorFlow, smoke_torch.py, smoke_jax.py), run as `python -I -c SOURCE JSON` in an isolated
process of the target interpreter; it prints one JSON line per step as soon as the step ends.

With `then` (run_smoke_and_order) the child goes on, after its last smoke line, to import those
frameworks too and report which copies got mapped: one import order answered without a process
of its own (children/order_common.py). What it prints from then on is split off at a marker
line on each stream, so the smoke result, its stderr and its exit are the smoke part's alone.

This module starts the child with isolation.run_streaming_child rather than run_child: on a
timeout the step lines that already arrived say which step hung, and run_child would lose them.
That kills the child's whole process group on a timeout; this module parses whatever arrived,
and turns a crash or a timeout into data (the running step is "crashed-here", the later ones
"not-reached"). It never raises for the child's failures and makes no findings: rules read
the SmokeResult.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import field, replace
from typing import Any

from envcheck.errors import InputError
from envcheck.framework_names import label
from envcheck.probe.isolation import (
    child_source,
    crash_signal,
    run_streaming_child,
    user_python_path,
)
from envcheck.record import record

STEPS = ("import", "list_gpus", "conv2d", "lstm", "matmul", "xla")  # TensorFlow's


@record
class SmokeFramework:
    """A framework the smoke test knows: its import name, its name for people, its child part."""

    name: str  # the import name: tensorflow, torch, jax
    child: str  # its part in envcheck/probe/children/, sent after smoke_common
    steps: tuple[str, ...]

    @property
    def title(self) -> str:
        return label(self.name)  # TensorFlow, PyTorch, JAX


SMOKE_FRAMEWORKS: Mapping[str, SmokeFramework] = {
    "tensorflow": SmokeFramework("tensorflow", "smoke", STEPS),
    "torch": SmokeFramework("torch", "smoke_torch", ("import", "list_gpus", "conv2d", "matmul")),
    "jax": SmokeFramework("jax", "smoke_jax", ("import", "list_gpus", "conv2d", "matmul")),
}


def smoke_framework(name: str) -> SmokeFramework:
    """The framework `name` (tensorflow, torch, jax); InputError for another."""
    known = SMOKE_FRAMEWORKS.get(name)
    if known is None:
        raise InputError(f"no smoke test for {name!r}; choose from {', '.join(SMOKE_FRAMEWORKS)}")
    return known


def smoke_source(part: str) -> str:
    """The child script: the shared step machinery and import-order functions, then the
    framework's (or the import-order probe's) part."""
    return "\n\n".join(child_source(name) for name in ("smoke_common", "order_common", part))


# The line a smoke child writes on stderr before it answers an import order (children/
# order_common.py's ORDER_MARK); on stdout a {"step": "order"} line marks the same point.
ORDER_MARK = "envcheck: the import order follows"

DEFAULT_TIMEOUT_S = 120.0
STDERR_LIMIT = 256 * 1024  # characters of the child's stderr kept (its end)
_DETAIL_IN_DESCRIBE = 200


@record
class SmokeStep:
    name: str  # import, list_gpus, conv2d, lstm, matmul, xla
    status: str  # ok | failed | skipped | not-reached | crashed-here
    seconds: float | None
    detail: str
    device: str | None  # where the op ran, e.g. "GPU:0" or "CPU:0"; None for import/list_gpus


@record
class SmokeResult:
    status: str  # ok | failed (a step failed) | crashed | timeout | not-run (no start / no TF)
    steps: tuple[SmokeStep, ...]
    tensorflow_version: str | None
    build_info: dict[str, Any]
    gpus: tuple[str, ...]  # physical GPU device names TF listed
    gpu_details: tuple[dict[str, Any], ...]
    loaded_libraries: tuple[str, ...]
    stderr: str  # the child's stderr, last 256 KB
    returncode: int | None  # None when the child never started or was killed on a timeout
    signal: str | None  # e.g. SIGSEGV, or a Windows exception such as STATUS_ACCESS_VIOLATION
    seconds: float  # wall time of the child; the timeout itself for a timeout
    framework: str = "tensorflow"  # the import name: tensorflow, torch, jax
    version: str | None = None  # the framework's __version__ (tensorflow_version for TF too)

    @property
    def title(self) -> str:
        """The framework's name for people: TensorFlow, PyTorch, JAX."""
        known = SMOKE_FRAMEWORKS.get(self.framework)
        return known.title if known else self.framework

    @property
    def last_step(self) -> str | None:
        """The last step that started (finished or not)."""
        started = [s.name for s in self.steps if s.status in ("ok", "failed", "crashed-here")]
        return started[-1] if started else None

    def describe(self) -> str:
        """One line for a report: what the smoke test showed."""
        if self.status == "ok":
            devices = list(dict.fromkeys(s.device for s in self.steps if s.device))
            count = len(self.steps)
            text = f"all {count} steps passed" if count != 1 else "the 1 step passed"
            return f"{text} on {' and '.join(devices)}" if devices else text
        if self.status == "timeout":
            where = f"during {self.last_step}" if self.last_step else "before the first step"
            return f"timed out after {self.seconds:g} s {where}"
        if self.status == "crashed":
            how = self.signal or (
                f"exit code {self.returncode}" if self.returncode is not None else "no exit code"
            )
            here = [s.name for s in self.steps if s.status == "crashed-here"]
            if here:
                return f"{here[0]} crashed with {how} after {self.seconds:.1f} s"
            return f"crashed with {how} before the first step, after {self.seconds:.1f} s"
        if self.status == "failed":
            failed = [s for s in self.steps if s.status == "failed"]
            if not failed:
                return "failed"
            first = failed[0]
            lines = first.detail.strip().splitlines()
            reason = lines[0] if lines else "no detail"
            if len(reason) > _DETAIL_IN_DESCRIBE:
                reason = reason[: _DETAIL_IN_DESCRIBE - 3] + "..."
            also = f" (also failed: {', '.join(s.name for s in failed[1:])})" if failed[1:] else ""
            return f"{first.name} failed: {reason}{also}"
        reason = next((s.detail for s in self.steps if s.detail), "")
        return f"not run: {reason}" if reason else "not run"


def requested_steps(steps: Sequence[str] | None, framework: str = "tensorflow") -> tuple[str, ...]:
    """The steps to run in their fixed order; "import" always runs (every step needs it)."""
    known = smoke_framework(framework).steps
    if steps is None:
        return known
    unknown = [s for s in steps if s not in known]
    if unknown:
        raise InputError(
            f"unknown smoke test step(s) {', '.join(map(repr, unknown))}; "
            f"choose from {', '.join(known)}"
        )
    return tuple(s for s in known if s == "import" or s in steps)


def parse_step_lines(stdout: str) -> list[dict[str, Any]]:
    """The child's JSON step lines, in order; other output (a library printing) is skipped."""
    events: list[dict[str, Any]] = []
    for raw in stdout.splitlines():
        # A C library may have written to fd 1 without a newline before the JSON line.
        at = raw.find('{"step"')
        if at < 0:
            continue
        try:
            value = json.loads(raw[at:])
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("step"), str):
            events.append(value)
    return events


@record
class ChildEnding:
    """How the child process ended, as run_smoke_test saw it."""

    returncode: int | None
    timed_out: bool
    seconds: float
    stderr: str
    windows: bool = field(default=sys.platform == "win32")
    stopped: str | None = None  # StreamedChild.stopped: killed by envcheck for its output

    @property
    def exit_text(self) -> str:
        return f"exit code {self.returncode}"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _optional_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def result_from_output(
    wanted: Sequence[str],
    stdout: str,
    ending: ChildEnding,
    timeout: float,
    framework: str = "tensorflow",
) -> SmokeResult:
    """Assemble a SmokeResult from the step lines that arrived and how the child ended."""
    events = parse_step_lines(stdout)
    started: set[str] = set()
    finished: dict[str, dict[str, Any]] = {}
    libraries_line: dict[str, Any] | None = None
    for event in events:
        name, status = event["step"], event.get("status")
        if name == "loaded_libraries":
            libraries_line = event
        elif status == "started":
            started.add(name)
        elif status in ("ok", "failed", "skipped"):
            finished[name] = event
    crashed_by = (
        None
        if ending.timed_out
        else (ending.stopped or crash_signal(ending.returncode, ending.windows))
    )
    if ending.timed_out:
        why_here = f"still running when the {timeout:g} s timeout ended the child"
    else:
        why_here = f"the child process died in this step ({crashed_by or ending.exit_text})"
    steps = [_step(name, finished.get(name), name in started, why_here) for name in wanted]
    imported = finished.get("import") or {}
    listed = finished.get("list_gpus") or {}
    if libraries_line is not None:
        libraries = _strings(libraries_line.get("libraries"))
    else:  # the child died: the libraries each finished step reported loading
        libraries = tuple(
            dict.fromkeys(p for e in finished.values() for p in _strings(e.get("new_libraries")))
        )
    build_info = imported.get("build_info")
    details = listed.get("details")
    status = _status(steps, events, imported, ending, crashed_by)
    if status == "not-run" and not events:
        steps[0] = SmokeStep(steps[0].name, "not-reached", None, _silent_child(ending), None)
    return SmokeResult(
        status=status,
        steps=tuple(steps),
        tensorflow_version=(
            _optional_text(imported.get("version")) if framework == "tensorflow" else None
        ),
        build_info=dict(build_info) if isinstance(build_info, dict) else {},
        gpus=_strings(listed.get("gpus")),
        gpu_details=tuple(d for d in details if isinstance(d, dict))
        if isinstance(details, list)
        else (),
        loaded_libraries=libraries,
        stderr=ending.stderr[-STDERR_LIMIT:],
        returncode=None if ending.timed_out else ending.returncode,
        signal=crashed_by,
        seconds=timeout if ending.timed_out else ending.seconds,
        framework=framework,
        version=_optional_text(imported.get("version")),
    )


def _step(name: str, event: dict[str, Any] | None, started: bool, why_here: str) -> SmokeStep:
    if event is not None:
        seconds = event.get("seconds")
        return SmokeStep(
            name,
            str(event.get("status")),
            float(seconds) if isinstance(seconds, (int, float)) else None,
            _text(event.get("detail")),
            _optional_text(event.get("device")),
        )
    if started:
        return SmokeStep(name, "crashed-here", None, why_here, None)
    return SmokeStep(name, "not-reached", None, "", None)


def _status(
    steps: Sequence[SmokeStep],
    events: Sequence[dict[str, Any]],
    imported: dict[str, Any],
    ending: ChildEnding,
    crashed_by: str | None,
) -> str:
    unfinished = any(s.status in ("crashed-here", "not-reached") for s in steps)
    if ending.timed_out and (unfinished or not events):
        return "timeout"  # (every step reported, then it hung on exit: the steps' verdict holds)
    if not events and crashed_by is None:
        return "not-run"  # not a Python that could run the script, or it printed nothing
    if unfinished:
        return "crashed"  # the process ended before every step reported
    if imported.get("not_installed") is True:
        return "not-run"
    if any(s.status == "failed" for s in steps):
        return "failed"
    return "ok"


def _silent_child(ending: ChildEnding) -> str:
    lines = ending.stderr.strip().splitlines()
    last = f": {lines[-1].strip()}" if lines else ""
    return f"the child printed no step lines ({ending.exit_text}){last}"


@record
class OrderTail:
    """What a smoke child printed after its smoke test, answering an import order (or saying
    why it could not, in its {"step": "order", "status": "skipped"} line), and how it ended."""

    order: tuple[str, ...]
    stdout: str  # from the {"step": "order"} line on
    stderr: str  # after ORDER_MARK
    returncode: int | None
    timed_out: bool
    seconds: float  # the child's wall time after the smoke part
    stopped: str | None = None  # StreamedChild.stopped


def split_order_tail(stdout: str, stderr: str) -> tuple[str, str, dict[str, Any] | None, str, str]:
    """(smoke stdout, smoke stderr, the order line or None, order stdout, order stderr): the
    smoke part is what came before the child's {"step": "order"} line and ORDER_MARK."""
    lines = stdout.splitlines(keepends=True)
    for index, line in enumerate(lines):
        events = parse_step_lines(line)
        if events and events[0]["step"] == "order":
            head, mark, tail = stderr.partition(ORDER_MARK + "\n")
            smoke_err, order_err = (head, tail) if mark else (stderr, "")
            return ("".join(lines[:index]), smoke_err, events[0], "".join(lines[index:]),
                    order_err)  # fmt: skip
    return stdout, stderr, None, "", ""


def results_from_child(
    wanted: Sequence[str],
    stdout: str,
    ending: ChildEnding,
    timeout: float,
    framework: str = "tensorflow",
) -> tuple[SmokeResult, OrderTail | None]:
    """The smoke result and the order part (None without one) of a smoke child's output."""
    stdout, stderr, marker, order_out, order_err = split_order_tail(stdout, ending.stderr)
    if marker is None:
        ending = replace(ending, stderr=stderr)
        return result_from_output(wanted, stdout, ending, timeout, framework), None
    # The smoke part ended with its last line: it ended as a child that exits then would.
    seconds = marker.get("seconds")
    smoke_seconds = (
        min(float(seconds), ending.seconds) if isinstance(seconds, (int, float)) else 0.0
    )
    smoke_ending = ChildEnding(0, False, smoke_seconds, stderr, ending.windows)
    result = result_from_output(wanted, stdout, smoke_ending, timeout, framework)
    tail = OrderTail(
        _strings(marker.get("order")), order_out, order_err,
        None if ending.timed_out else ending.returncode, ending.timed_out,
        ending.seconds - smoke_seconds, ending.stopped,
    )  # fmt: skip
    return result, tail


def run_smoke_test(
    python: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    steps: Sequence[str] | None = None,
    framework: str = "tensorflow",
) -> SmokeResult:
    """Run `framework`'s smoke test in `python` (default: this interpreter); never raises for
    the child.

    Raises InputError only for an unknown framework or unknown step names in `steps`.
    """
    return run_smoke_and_order(python, timeout, env, steps, framework)[0]


def run_smoke_and_order(
    python: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
    steps: Sequence[str] | None = None,
    framework: str = "tensorflow",
    then: Sequence[str] = (),
) -> tuple[SmokeResult, OrderTail | None]:
    """run_smoke_test; with `then`, the same child afterwards imports those frameworks too and
    reports which copies got mapped: the import order (framework, *then), answered without a
    process of its own (import_order.run_from_tail reads it). The smoke result is only what
    came before that part: a crash or a hang in it is the order's, never the smoke test's.
    `timeout` bounds the whole child, so an order part cut short by it is no answer (None from
    run_from_tail: the caller runs the order in a child of its own, under a timeout of its own).
    The OrderTail is None when the child never got to the order part."""
    known = smoke_framework(framework)
    wanted = requested_steps(steps, framework)
    interpreter = python or sys.executable
    command = [interpreter, "-I", "-c", smoke_source(known.child)]
    pythonpath = user_python_path(os.environ if env is None else env)
    argument: dict[str, Any] = {"steps": list(wanted), "xla": "xla" in wanted,
                                "pythonpath": pythonpath}  # fmt: skip
    if then:
        argument["then"] = list(then)
    command.append(json.dumps(argument))
    child = run_streaming_child(command, timeout=timeout, env=env, check=f"smoke-test:{framework}")
    if child.start_error is not None:
        reason = f"could not start {interpreter}: {child.start_error}"
        return SmokeResult(
            status="not-run",
            steps=tuple(
                SmokeStep(name, "not-reached", None, reason if i == 0 else "", None)
                for i, name in enumerate(wanted)
            ),
            tensorflow_version=None,
            build_info={},
            gpus=(),
            gpu_details=(),
            loaded_libraries=(),
            stderr="",
            returncode=None,
            signal=None,
            seconds=child.seconds,
            framework=framework,
        ), None
    ending = ChildEnding(
        child.returncode, child.timed_out, child.seconds, child.stderr, stopped=child.stopped
    )
    return results_from_child(wanted, child.stdout, ending, timeout, framework)
