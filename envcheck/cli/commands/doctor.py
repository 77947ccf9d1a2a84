"""`envcheck doctor`: will TensorFlow use the GPU here; if not, which link is broken and the fix.

The probe's child processes start first (the framework scan's before this command imports the
probe's own modules), and the diagnosis (rules, matrix, report) loads while they run: most of
the doctor's wall time is waiting for them (bench/run.py measures it).
Under --deadline every child is bounded by it (probe/deadline.py) and a watchdog writes a
report without a verdict if the doctor's own is not out in time (doctor_deadline.py).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from envcheck import __version__
from envcheck.atomic_file import check_writable, write_atomically
from envcheck.cli.exits import handles_errors
from envcheck.cli.report_output import announce_written, requested_format
from envcheck.cli.table import DOCTOR_FORMATS
from envcheck.errors import EnvcheckError, InputError
from envcheck.probe import deadline
from envcheck.probe.isolation import ChildGroup, LaunchedChild, user_python_path
from envcheck.probe.scan_launch import launch_scan
from envcheck.report.formats import Format, NodeFormat, choose_doctor_format
from envcheck.report.stamp import Stamp

if TYPE_CHECKING:
    from envcheck.cli.commands.doctor_deadline import Watchdog
    from envcheck.probe.background import StartedProbe

# A node name as schedulers and DNS write them; no spaces or control characters, which would
# break the text formats (a Prometheus label, a JUnit attribute, a Slurm hostlist).
_NODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,252}")


@handles_errors
def run(args: argparse.Namespace) -> int:
    deadline.start(args.deadline)  # first: the run's time starts now
    asked = requested_format(args.output_format, args.as_json, args.output, DOCTOR_FORMATS)
    chosen = choose_doctor_format(asked, as_json=False)
    stamp = _stamp(args.node)
    if args.python is not None and not Path(args.python).exists():
        raise EnvcheckError(f"--python {args.python!r} does not exist")
    if args.output is not None:
        check_writable(args.output)  # now, not after a smoke test of minutes
    group = ChildGroup()
    scan = None
    if args.facts_file is None:
        # Before the probe's modules load (~50 ms): the scan is the child the doctor waits for.
        scan = launch_scan(args.python, user_python_path(os.environ), group)
    try:
        return _diagnose(args, chosen, stamp, group, scan)
    finally:
        group.cancel()  # after an error (a bad --target-gpu, Ctrl-C): exit now, not after NVML


def _diagnose(
    args: argparse.Namespace,
    chosen: Format | NodeFormat,
    stamp: Stamp,
    group: ChildGroup,
    scan: LaunchedChild | None,
) -> int:
    watchdog = None
    if args.deadline is not None:
        from envcheck.cli.commands.doctor_deadline import Watchdog  # noqa: PLC0415

        watchdog = Watchdog(args.deadline, _no_verdict(args.output, chosen, stamp))
        watchdog.start()
    if args.facts_file is not None:
        return _report(args, chosen, None, stamp, watchdog)
    from envcheck.probe.background import probe_timeout, start_probe  # noqa: PLC0415

    timeout = probe_timeout(args.timeout)
    started = start_probe(python=args.python, timeout=timeout, scan=scan, group=group)
    return _report(args, chosen, started, stamp, watchdog)


def _report(
    args: argparse.Namespace,
    chosen: Format | NodeFormat,
    started: StartedProbe | None,
    stamp: Stamp,
    watchdog: Watchdog | None,
) -> int:
    # Loaded now, while the probe's children run (see the module's docstring).
    from envcheck.cli.commands.doctor_report import report  # noqa: PLC0415

    return report(args, chosen, started, stamp, watchdog)


def _stamp(node: str | None) -> Stamp:
    if node is not None and not _NODE.fullmatch(node):
        raise InputError(
            f"--node {node!r} is not a node name (letters, digits and . _ : @ -, "
            "beginning with a letter or digit, at most 253 characters)"
        )
    now = time.time()
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))  # datetime's import: ~1 ms
    return Stamp(node or _host_name(), when, __version__, now)


def _host_name() -> str:
    # platform.node() is gethostname() (uname's nodename on POSIX, socket on Windows) without
    # importing socket for it.
    name = platform.node()
    return name if _NODE.fullmatch(name) else "unknown"


def _no_verdict(
    output: str | None, chosen: Format | NodeFormat, stamp: Stamp
) -> Callable[[], None]:
    """The watchdog's report (doctor_deadline.py): nothing was decided in time. Its modules
    are imported now, not when it fires: the main thread may then hold the import lock (stuck
    importing from a file system that stopped answering), and the watchdog must not wait on
    it."""
    from envcheck.diagnose.verdict import no_result  # noqa: PLC0415
    from envcheck.report.node import load_renderer, render_node  # noqa: PLC0415

    load_renderer(chosen)

    def write() -> None:
        result = no_result("the --deadline passed before the doctor finished")
        text = render_node(result, stamp, chosen)
        if output is None:
            sys.stdout.write(text)
        else:
            write_atomically(Path(output), text)
            announce_written(output, chosen.value)

    return write
