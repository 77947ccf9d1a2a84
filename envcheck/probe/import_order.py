"""Import-order probe: which copy of each CUDA library every framework really gets, per order.

The process-wide loader hands every later request for a soname the copy the first one loaded,
so with TensorFlow, PyTorch and JAX in one environment the first import decides what the others
get. For the frameworks present this answers every import order (every permutation; none for
one framework alone, which the smoke test already shows). The doctor's smoke child of each
framework answers the first order that starts with it after its smoke test (run_from_tail; with
two frameworks that is every order); each other order runs in a child of its own,
`smoke_common.py` + `order_common.py` + `children/import_order.py` in an isolated process of the
target interpreter under a timeout, two at a time (the children mostly wait on the disk). A
child reports what each import mapped (/proc/self/maps on Linux, the loaded-module list on
Windows) and what TensorFlow's own DSO loader opens. This module then says which installed
distribution wrote each mapped file (its RECORD: by size, by hash when sizes tie) and the CUDA
major that copy is built for.

It records facts only (frozen records); diagnose/loaded_copies_rules.py judges them. It never
raises for a child's failure: a crash, a hang or a failed import is a status in the run.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from envcheck.framework_names import FRAMEWORKS  # also their import names and listing order
from envcheck.probe.copy_owners import CopyOwner, copy_owners, library_key
from envcheck.probe.isolation import (
    crash_signal,
    run_concurrently,
    run_streaming_child,
    user_python_path,
)
from envcheck.probe.smoke import OrderTail, SmokeResult, parse_step_lines, smoke_source
from envcheck.record import record

DEFAULT_WORKERS = 2
STDERR_TAIL = 4000


@record
class MappedCopy:
    library: str  # the soname, libcudnn.so.9
    path: str
    after: str  # the step that mapped it first: import:torch, tf_loader


@record
class LoaderAnswer:
    """What TensorFlow's DsoLoader::Get<function>DsoHandle() opened."""

    function: str  # Cudnn, Cublas, CudaRuntime, ...
    opened: bool
    path: str | None


@record
class ImportStep:
    framework: str
    status: str  # ok | failed | crashed-here | not-reached
    seconds: float | None
    detail: str
    cuda: str | None  # the CUDA major the framework says it was built for


@record
class OrderRun:
    order: tuple[str, ...]
    status: str  # ok | failed (an import failed) | crashed | timeout | not-run
    imports: tuple[ImportStep, ...]
    copies: tuple[MappedCopy, ...]  # CUDA-stack files mapped, in the order the steps ran
    tf_loader: tuple[LoaderAnswer, ...]
    tf_loader_detail: str  # why the loader was not asked, when it was not
    signal: str | None
    seconds: float
    stderr_tail: str

    def label(self) -> str:
        return " -> ".join(self.order)

    def copy_for(self, library: str, framework: str) -> str | None:
        """The file `framework` gets for `library` in this run, None when it asked for none.
        TensorFlow links no CUDA library and dlopens each through its DSO loader: when the
        loader was asked (after every import of the order, as TensorFlow loads them at its
        first GPU op) what it opened; otherwise, as for the others, the first copy mapped up to
        and including the framework's own import: a later request for the soname, by name,
        gets that one."""
        if framework == "tensorflow" and self.tf_loader:
            paths = [a.path for a in self.tf_loader if a.path and library_key(a.path) == library]
            return paths[0] if paths else None
        mine = f"import:{framework}"
        steps = [f"import:{name}" for name in self.order]
        until = steps[: steps.index(mine) + 1] if mine in steps else steps
        early = [c for c in self.copies if c.library == library and c.after in until]
        return early[0].path if early else None

    def framework_cuda(self, framework: str) -> str | None:
        return next((s.cuda for s in self.imports if s.framework == framework and s.cuda), None)


@record
class ImportOrderFacts:
    frameworks: tuple[str, ...]
    runs: tuple[OrderRun, ...]
    owners: tuple[CopyOwner, ...]
    seconds: float
    skipped: str = ""  # why no run was made, when none was

    def owner(self, path: str) -> CopyOwner | None:
        return next((o for o in self.owners if o.path == path), None)

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict  # noqa: PLC0415

        return asdict(self)


def import_orders(frameworks: Sequence[str]) -> list[tuple[str, ...]]:
    """Every order of the frameworks present; none for fewer than two."""
    present = [name for name in FRAMEWORKS if name in frameworks]
    if len(present) < 2:
        return []
    return list(itertools.permutations(present))


def run_from_output(
    order: Sequence[str],
    stdout: str,
    stderr: str,
    returncode: int | None,
    timed_out: bool,
    seconds: float,
    windows: bool = sys.platform == "win32",
    stopped: str | None = None,
) -> OrderRun:
    """An OrderRun from the child's lines and how it ended (also on recorded output);
    `stopped` is StreamedChild.stopped, said where a crash's signal goes."""
    events = parse_step_lines(stdout)
    finished: dict[str, dict[str, Any]] = {}
    started: set[str] = set()
    copies: list[MappedCopy] = []
    seen: set[str] = set()
    loader: list[LoaderAnswer] = []
    loader_detail = "" if "tensorflow" in order else "TensorFlow is not in this order"
    for event in events:
        step = event["step"]
        if event.get("status") == "started":
            started.add(step)
            continue
        finished[step] = event
        new = event.get("new_libraries")
        for path in new if isinstance(new, list) else ():
            key = library_key(path) if isinstance(path, str) else None
            if key is not None and path not in seen:
                seen.add(path)
                copies.append(MappedCopy(key, path, step))
        if step == "tf_loader":
            loader_detail = _text(event.get("detail"))
            calls = event.get("calls")
            for name, answer in sorted(calls.items()) if isinstance(calls, dict) else ():
                if isinstance(answer, dict):
                    path = answer.get("path")
                    # TF's loader opens "tensorflow/python/platform/../../../nvidia/..."
                    path = os.path.normpath(path) if isinstance(path, str) else None
                    loader.append(
                        LoaderAnswer(
                            str(name), answer.get("opened") is True,
                            path if isinstance(path, str) else None,
                        )
                    )  # fmt: skip
    crashed_by = None if timed_out else (stopped or crash_signal(returncode, windows))
    imports = [_import_step(name, finished, started, timed_out, crashed_by) for name in order]
    unfinished = any(s.status in ("crashed-here", "not-reached") for s in imports)
    if timed_out and (unfinished or "loaded_libraries" not in finished):
        status = "timeout"
    elif crashed_by is not None or (unfinished and events):
        status = "crashed"
    elif not events:
        status = "not-run"
    elif any(s.status == "failed" for s in imports):
        status = "failed"
    else:
        status = "ok"
    return OrderRun(
        order=tuple(order),
        status=status,
        imports=tuple(imports),
        copies=tuple(copies),
        tf_loader=tuple(loader),
        tf_loader_detail=loader_detail,
        signal=crashed_by,
        seconds=seconds,
        stderr_tail=stderr[-STDERR_TAIL:],
    )


def _import_step(
    name: str,
    finished: Mapping[str, dict[str, Any]],
    started: set[str],
    timed_out: bool,
    crashed_by: str | None,
) -> ImportStep:
    event = finished.get(f"import:{name}")
    if event is not None:
        secs = event.get("seconds")
        cuda = event.get("cuda")
        return ImportStep(
            name, str(event.get("status")),
            float(secs) if isinstance(secs, (int, float)) else None,
            _text(event.get("detail")), cuda if isinstance(cuda, str) else None,
        )  # fmt: skip
    if f"import:{name}" in started:
        why = "timed out here" if timed_out else f"the child died here ({crashed_by})"
        return ImportStep(name, "crashed-here", None, why, None)
    return ImportStep(name, "not-reached", None, "", None)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def run_order(
    order: Sequence[str],
    python: str | None = None,
    timeout: float = 120.0,
    env: Mapping[str, str] | None = None,
    tf_loader: bool = True,
) -> OrderRun:
    """One child importing `order`; never raises for the child."""
    interpreter = python or sys.executable
    argument = {
        "order": list(order),
        "tf_loader": tf_loader,
        "pythonpath": user_python_path(os.environ if env is None else env),
    }
    command = [interpreter, "-I", "-c", smoke_source("import_order"), json.dumps(argument)]
    child = run_streaming_child(command, timeout=timeout, env=env, check="import-orders")
    if child.start_error is not None:
        return run_from_output(order, "", f"could not start {interpreter}: {child.start_error}",
                               None, False, child.seconds)  # fmt: skip
    return run_from_output(
        order, child.stdout, child.stderr, child.returncode, child.timed_out,
        timeout if child.timed_out else child.seconds, stopped=child.stopped,
    )  # fmt: skip


def run_from_tail(tail: OrderTail | None) -> OrderRun | None:
    """The order a smoke child answered after its smoke test (smoke.run_smoke_and_order), or
    None when it gave no answer: it declined (its smoke steps mapped a CUDA library, so a later
    import could get another copy than in an order child), never got there, or the timeout cut
    it short (the order then gets a child and a timeout of its own). A crash or a failed import
    there is an answer, as in an order child."""
    if tail is None or not tail.order:
        return None
    events = parse_step_lines(tail.stdout)
    if not events or events[0]["step"] != "order" or events[0].get("status") != "started":
        return None
    run = run_from_output(tail.order, tail.stdout, tail.stderr, tail.returncode,
                          tail.timed_out, tail.seconds, stopped=tail.stopped)  # fmt: skip
    return None if run.status in ("timeout", "not-run") else run


def first_orders(frameworks: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """For each framework present, the first order that starts with it: the one its smoke child
    can answer (with two frameworks, every order is one of these)."""
    found: dict[str, tuple[str, ...]] = {}
    for order in import_orders(frameworks):
        found.setdefault(order[0], order)
    return found


def probe_import_orders(
    frameworks: Sequence[str],
    python: str | None = None,
    timeout: float = 120.0,
    env: Mapping[str, str] | None = None,
    workers: int = DEFAULT_WORKERS,
    answered: Sequence[OrderRun] = (),
) -> ImportOrderFacts:
    """Run every import order of `frameworks` that `answered` (runs the smoke children made)
    lacks (each child under `timeout`, `workers` at a time: the children take about
    ceil(orders / workers) x the slowest child, at most that many timeouts) and say who wrote
    each file mapped. `seconds` is this probe's own time: not the answered runs'."""
    started = time.monotonic()
    present = tuple(name for name in FRAMEWORKS if name in frameworks)
    orders = import_orders(present)
    if not orders:
        return ImportOrderFacts(present, (), (), 0.0, "fewer than two frameworks installed")
    done = {run.order: run for run in answered}
    missing = [order for order in orders if order not in done]
    answers = run_concurrently(
        lambda order: run_order(order, python, timeout, env), missing, workers, "envcheck-order"
    )
    ran = dict(zip(missing, answers))
    runs = tuple(done.get(order) or ran[order] for order in orders)
    paths = dict.fromkeys(
        [c.path for run in runs for c in run.copies]
        + [a.path for run in runs for a in run.tf_loader if a.path]
    )
    owners = copy_owners(list(paths))
    return ImportOrderFacts(present, runs, owners, time.monotonic() - started)


def run_from_smoke(result: SmokeResult) -> OrderRun:
    """The smoke test as a one-framework order: the copies its child mapped (all after its
    import, as far as the order goes) and the CUDA major the framework reported."""
    cuda = result.build_info.get("cuda_version")
    major = str(cuda).split(".", 1)[0] if isinstance(cuda, (str, int, float)) and cuda else None
    imported = next((s for s in result.steps if s.name == "import"), None)
    step = ImportStep(
        result.framework,
        imported.status if imported else "not-reached",
        imported.seconds if imported else None,
        imported.detail if imported else "",
        major,
    )
    copies = []
    for path in result.loaded_libraries:
        key = library_key(path)
        if key is not None:
            copies.append(MappedCopy(key, path, f"import:{result.framework}"))
    return OrderRun(
        order=(result.framework,),
        status=result.status,
        imports=(step,),
        copies=tuple(copies),
        tf_loader=(),
        tf_loader_detail="the smoke test does not ask TensorFlow's loader",
        signal=result.signal,
        seconds=result.seconds,
        stderr_tail="",
    )


def with_smoke_runs(facts: ImportOrderFacts, results: Sequence[SmokeResult]) -> ImportOrderFacts:
    """`facts` with each framework's smoke test as a run of its own (the copies it gets alone),
    and the writers of the files those mapped."""
    runs = tuple(run_from_smoke(r) for r in results if r.status != "not-run")
    known = {o.path for o in facts.owners}
    paths = dict.fromkeys(c.path for run in runs for c in run.copies if c.path not in known)
    owners = facts.owners + copy_owners(list(paths))
    frameworks = tuple(dict.fromkeys(facts.frameworks + tuple(r.framework for r in results)))
    return ImportOrderFacts(frameworks, runs + facts.runs, owners, facts.seconds, facts.skipped)
