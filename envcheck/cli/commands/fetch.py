"""`envcheck fetch`: the wheels a target machine needs, downloaded into a wheelhouse; or a check
of a wheelhouse against its manifest (`--verify DIR`).

Like every command: data to stdout (text or --json), progress to stderr and only on a terminal,
an error as one line on stderr, every option also an ENVCHECK_* variable. Exit codes (errors.py):
0 done (or the wheelhouse verified, or a dry run), 1 a download or the verification failed (with
a one-line hint) or nothing fits the target, 2 a usage error, 130 interrupted (docs/acquire.md).
Credentials in an index URL are never printed: the index is shown redacted and every message is
masked once more (envcheck.urls).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from envcheck.cli import signals
from envcheck.cli.commands.flags import build_choice, framework_choice, target_python
from envcheck.cli.exits import EXIT_INTERRUPTED, EXIT_NEGATIVE, EXIT_OK, CommandExit, fail
from envcheck.record import record

if TYPE_CHECKING:  # the download stack (requests, urllib3) loads only when fetch runs
    from envcheck.acquire.wheelhouse_fetch import FetchReport

from envcheck.errors import EnvcheckError, InputError
from envcheck.index.config import (
    IndexLocation,
    check_index_url,
    resolve_index,
)
from envcheck.matrix.load import matrix_dir
from envcheck.matrix.model import load_matrix, tensorflow_specifier
from envcheck.report import fetch as fetch_report
from envcheck.report.terminal_text import VALUE_LIMIT, shown, unfiltered
from envcheck.urls import secret_masker, url_secrets

CONNECT_TIMEOUT_S = 10.0
# An error line's length past which it is cut: a list of failed downloads fits, an echoed
# multi-megabyte value does not.
MESSAGE_LIMIT = VALUE_LIMIT * 8
_MB = 1_000_000


def run(args: argparse.Namespace) -> int:
    """Download the wheels a target machine needs (any platform and Python) into a wheelhouse."""
    dest: str | None = args.dest
    verify: str | None = args.verify
    index_url: str | None = args.index_url
    as_json: bool = args.as_json
    secrets = url_secrets(index_url) + url_secrets(args.torch_index_url)
    try:
        if verify is not None:
            if dest is not None:
                raise InputError("give either --dest DIR (to fetch) or --verify DIR (to check)")
            return _verify(Path(verify), as_json)
        if dest is None:
            raise InputError("--dest DIR is missing: the wheelhouse directory to fetch into")
        framework = framework_choice(args.framework) or "tensorflow"
        spec = _spec(args, framework)
        index = resolve_index(index_url)
        if args.torch_index_url is not None:  # read only once a plan needs it: check it now
            check_index_url(args.torch_index_url, "--torch-index-url")
        secrets += index.secrets
        report = _fetch(
            Path(dest),
            index,
            spec,
            args.platform or [],
            target_python(args.python, args.python_version)[0],
            args.with_deps,
            args.timeout,
            args.deadline,
            args.matrix_option,
            _Framework(
                framework,
                args.driver,
                args.torch_index_url,
                build_choice(args.cpu_build, args.gpu_build),
            ),
            dry_run=args.dry_run_only,
        )
    except EnvcheckError as exc:  # bad input exits 2, a failed download 1 (its class says)
        raise _fail(str(exc), exc.exit_code, secrets) from None
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP (cli/signals.py)
        # The exit code is the signal's (signals.exit_code); the words say which it was, so a
        # CI log shows a cancel as `terminated (SIGTERM)`, not as someone's Ctrl-C.
        raise _fail(
            f"{signals.words(exc)}; unfinished downloads are kept as hidden .part files in the "
            "wheelhouse and the next run resumes them",
            EXIT_INTERRUPTED,
            secrets,
        ) from None
    if as_json:
        print(json.dumps(fetch_report.report_to_json(report), indent=2))
    else:
        sys.stdout.write(fetch_report.report_to_text(report))
    return EXIT_OK


@record
class _Framework:
    """What --framework torch or jax adds: the targets' driver and PyTorch's index base."""

    name: str
    driver: str | None
    torch_index_url: str | None
    build: str | None  # --cpu or --gpu: "cpu", "gpu"; None: the target's driver decides


def _spec(args: argparse.Namespace, framework: str) -> str | None:
    """The version SPEC of the chosen framework; the other framework's option is an error."""
    if framework == "tensorflow" and args.framework_version is not None:
        raise InputError(
            "--framework-version applies to --framework torch or jax; use --tensorflow"
        )
    if framework != "tensorflow" and args.tensorflow is not None:
        raise InputError("--tensorflow applies to --framework tensorflow; use --framework-version")
    spec: str | None = args.tensorflow if framework == "tensorflow" else args.framework_version
    if spec is not None:
        tensorflow_specifier(spec)  # a bad SPEC is an input error before any work
    return spec


def _fail(message: str, code: int, secrets: tuple[str, ...]) -> CommandExit:
    message = secret_masker(secrets)(message)
    # A message may quote what a manifest or an index holds (a 5 MB entry, a name with escape
    # sequences): it passes the one output filter, cut long after any message envcheck writes.
    return fail(shown(" ".join(message.split()), MESSAGE_LIMIT), code)


def _fetch(
    dest: Path,
    index: IndexLocation,
    tensorflow: str | None,
    platforms: list[str],
    python: str | None,
    with_deps: bool,
    timeout: float,
    deadline: float | None,
    matrix_option: str | None,
    framework: _Framework,
    dry_run: bool = False,
) -> FetchReport:
    from envcheck.acquire.wheelhouse_fetch import fetch_wheelhouse  # noqa: PLC0415 - see TYPE_CHECKING above
    from envcheck.index.http import Timeouts  # noqa: PLC0415
    from envcheck.index.limits import DownloadLimits  # noqa: PLC0415

    matrix = load_matrix(matrix_dir(matrix_option))
    # Its own numbers and a carriage return: past the filter that escapes the \r.
    progress = TerminalProgress(unfiltered(sys.stderr)) if sys.stderr.isatty() else None
    try:
        return fetch_wheelhouse(
            matrix,
            dest,
            index,
            spec=tensorflow,
            platforms=platforms,
            python=python,
            with_deps=with_deps,
            timeouts=Timeouts(connect=min(CONNECT_TIMEOUT_S, timeout), read=timeout),
            progress=progress,
            limits=DownloadLimits(deadline=deadline),
            on_wait=_say_waiting,
            framework=framework.name,
            driver=framework.driver,
            torch_index_base=framework.torch_index_url,
            build=framework.build,
            dry_run=dry_run,
        )
    finally:
        if progress is not None:
            progress.close()


def _say_waiting(dest: Path) -> None:
    print(
        f"envcheck: waiting for another envcheck fetch into {str(dest)!r} to finish",
        file=sys.stderr,
        flush=True,
    )


def _verify(directory: Path, as_json: bool) -> int:
    from envcheck.acquire.manifest import verify_wheelhouse  # noqa: PLC0415

    result = verify_wheelhouse(directory)
    if as_json:
        print(json.dumps(fetch_report.verification_to_json(result), indent=2))
    else:
        sys.stdout.write(fetch_report.verification_to_text(result))
    hint = fetch_report.verification_hint(result)
    if hint is not None:  # exit 1, as every failed verification (docs/acquire.md)
        raise _fail(hint, EXIT_NEGATIVE, ())
    return EXIT_OK


class TerminalProgress:
    """One self-rewriting line on a terminal: files done, bytes, rate. Thread-safe."""

    def __init__(self, stream: TextIO, interval: float = 0.1) -> None:
        self._stream = stream
        self._interval = interval
        self._lock = threading.Lock()
        self._started = self._finished = 0
        self._done = self._total = 0
        self._t0 = time.monotonic()
        self._last = 0.0
        self._shown = False

    def start(self, name: str, total: int | None) -> None:  # noqa: ARG002 - Progress protocol
        with self._lock:
            self._started += 1
            self._total += total or 0
            self._render(force=False)

    def advance(self, name: str, nbytes: int) -> None:  # noqa: ARG002 - Progress protocol
        with self._lock:
            self._done += nbytes
            self._render(force=False)

    def finish(self, name: str) -> None:  # noqa: ARG002 - Progress protocol
        with self._lock:
            self._finished += 1
            self._render(force=True)

    def close(self) -> None:
        with self._lock:
            if self._shown:
                self._stream.write("\n")
                self._stream.flush()

    def _render(self, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._last < self._interval:
            return
        self._last = now
        rate = self._done / max(now - self._t0, 1e-6)
        total = f"/{self._total / _MB:.1f}" if self._total >= self._done else ""
        self._stream.write(
            f"\rfetching: {self._finished}/{self._started} files, "
            f"{self._done / _MB:.1f}{total} MB, {rate / _MB:.1f} MB/s   "
        )
        self._stream.flush()
        self._shown = True
