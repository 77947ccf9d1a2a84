"""Run probe code that may crash or hang (foreign libraries, NVML, TensorFlow) in a child process.

The child is a Python script from `envcheck/probe/children/`, run as `python -I [-S] -c SOURCE
ARG` so it needs no envcheck installed in the target interpreter; it prints one JSON object as
its last stdout line. A timeout, a signal (SIGSEGV, SIGABRT) or a non-zero exit becomes a
ChildResult that says so: the parent never hangs and never dies with the child.
"""

from __future__ import annotations

import contextlib
import json
import locale
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

from envcheck.probe import deadline
from envcheck.record import record

T = TypeVar("T")
R = TypeVar("R")
DEFAULT_TIMEOUT_S = 10.0
DRAIN_TIMEOUT_S = 10.0  # reading what is left after killing a child that timed out
ChildStatus = Literal["ok", "timeout", "crashed", "failed", "not-run", "too-large"]
_STDERR_TAIL = 2000
# Bytes of a child's standard output kept. The children print one JSON line (the frameworks
# scan of a 10,000-distribution site-packages: about 2 MB), the smoke test a line per step; a
# `--python` that prints gigabytes must not be read into memory whole (1.5 GB cost 2.9 GB and
# exit 3), so past this the child is stopped. Of stderr only the last OUTPUT_LIMIT bytes are
# kept and the child is not stopped for it: a framework's log lines there are no answer, and
# a noisy one must not turn a working smoke test into a failure.
OUTPUT_LIMIT = 16 * 1024 * 1024
_READ_CHUNK = 64 * 1024

# NTSTATUS codes a crashed Windows process exits with (ntstatus.h); others show as hex.
WINDOWS_EXCEPTIONS = {
    0xC0000005: "STATUS_ACCESS_VIOLATION",
    0xC000001D: "STATUS_ILLEGAL_INSTRUCTION",  # e.g. an AVX build on a CPU without AVX
    0xC00000FD: "STATUS_STACK_OVERFLOW",
    0xC0000135: "STATUS_DLL_NOT_FOUND",
    0xC0000139: "STATUS_ENTRYPOINT_NOT_FOUND",
    0xC0000142: "STATUS_DLL_INIT_FAILED",
    0xC0000374: "STATUS_HEAP_CORRUPTION",
    0xC0000409: "STATUS_STACK_BUFFER_OVERRUN",  # also __fastfail / abort() in the UCRT
}
_WINDOWS_EXCEPTION_FLOOR = 0xC0000000


@record
class ChildResult:
    status: ChildStatus
    data: dict[str, Any] | None
    returncode: int | None
    signal: str | None  # e.g. SIGSEGV when the child was killed by a signal
    stderr_tail: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.data is not None

    def describe(self) -> str:
        """One line for a report: what happened to the child."""
        if self.status == "ok":
            return "ok"
        if self.status == "timeout":
            return f"timed out after {self.seconds:.1f} s"
        if self.status == "crashed":
            return f"crashed ({self.signal or f'exit code {self.returncode}'})"
        if self.status == "not-run":
            return f"not run: {self.stderr_tail.strip()}"
        if self.status == "too-large":
            return too_large_sentence()
        last = self.stderr_tail.strip().splitlines()[-1:] or [""]
        detail = f": {last[0]}" if last[0] else ""
        return f"failed (exit code {self.returncode}){detail}"


_CHILDREN = Path(__file__).resolve().parent / "children"


def child_source(name: str) -> str:
    """The source of a child script shipped in envcheck/probe/children/.

    Read as a file beside this module, not through importlib.resources: that loads zipfile and
    its readers (~15 ms) for packages installed as directories, which envcheck always is (pip
    installs wheels unpacked).
    """
    return (_CHILDREN / f"{name}.py").read_text(encoding="utf-8")


def crash_signal(returncode: int | None, windows: bool = sys.platform == "win32") -> str | None:
    """The signal or Windows exception that ended a process, from its return code; else None."""
    if returncode is None:
        return None
    if windows:
        code = returncode & 0xFFFFFFFF  # GetExitCodeProcess is a DWORD; be safe with signed ints
        if code < _WINDOWS_EXCEPTION_FLOOR:
            return None
        name = WINDOWS_EXCEPTIONS.get(code)
        return f"{name} (0x{code:08X})" if name else f"Windows exception 0x{code:08X}"
    if returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def too_large_sentence() -> str:
    return f"printed more than {OUTPUT_LIMIT >> 20} MiB on standard output and was stopped"


def kill_tree(process: subprocess.Popen[Any]) -> None:
    """Kill the child and what it started (XLA may run ptxas, TF may fork helpers)."""
    if os.name == "posix":
        with contextlib.suppress(OSError):  # start_new_session made it a group leader
            os.killpg(process.pid, signal.SIGKILL)
    else:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(
                ["taskkill", "/F", "/T", "/PID", str(process.pid)],
                capture_output=True,
                timeout=DRAIN_TIMEOUT_S,
                check=False,
            )
    with contextlib.suppress(OSError):
        process.kill()


# Every child process group running now, whichever thread started it: a signal that ends
# envcheck (SIGTERM from `timeout` or `docker stop`) reaches only envcheck, because each child
# runs in its own session, so the command line kills these on its way out (kill_live_children).
_LIVE: set[subprocess.Popen[Any]] = set()
_LIVE_LOCK = threading.Lock()
_ENDING: list[bool] = []  # kill_live_children(ending=True) was called: envcheck is on its way out


def register_child(process: subprocess.Popen[Any]) -> None:
    """Count `process` as live until unregister_child; kill_live_children kills its group.

    Once envcheck is ending, the process is killed at once and ChildCancelledError raised: a
    probe thread that started its child just after the signal's kill would otherwise leave it
    running, and the exit would wait for that thread until the child's timeout.
    """
    with _LIVE_LOCK:
        refused = bool(_ENDING)
        if not refused:
            _LIVE.add(process)
    if refused:
        kill_tree(process)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(DRAIN_TIMEOUT_S)
        args = process.args
        raise ChildCancelledError(str(args[0] if isinstance(args, (list, tuple)) else args))


def accept_children() -> None:
    """Undo kill_live_children(ending=True): for a caller that runs envcheck's main() again in
    the same process."""
    with _LIVE_LOCK:
        _ENDING.clear()


def unregister_child(process: subprocess.Popen[Any]) -> None:
    with _LIVE_LOCK:
        _LIVE.discard(process)


def kill_children_from_signal_handler() -> None:
    """kill_live_children(ending=True) without the lock, for a signal handler: it runs between
    two bytecodes of the main thread, which may hold the lock. Copying the set and polling a
    process are safe there; a child registered meanwhile sees _ENDING and is killed by
    register_child."""
    _ENDING.append(True)
    for process in list(_LIVE):
        if process.poll() is None:
            kill_tree(process)


def kill_live_children(ending: bool = False) -> int:
    """Kill the process group of every registered child still running; how many there were.
    `ending`: envcheck is ending (a signal), so every child registered from now on is killed
    too."""
    with _LIVE_LOCK:
        if ending:
            _ENDING.append(True)
        running = [process for process in _LIVE if process.poll() is None]
    for process in running:
        kill_tree(process)
    return len(running)


def run_concurrently(
    function: Callable[[T], R], items: Sequence[T], workers: int, name: str
) -> list[R]:
    """[function(item) for item in items], `workers` at a time in threads that wait on child
    processes. When this thread is interrupted (Ctrl-C, or a signal that envcheck turns into an
    exception) or a call raises, the registered children are killed first: the threads wait on
    theirs, and leaving the pool waits for the threads, which would hold envcheck up to a whole
    timeout."""
    # Imported here: concurrent.futures loads logging, which a probe that starts its children
    # before the rest of envcheck loads (launch_child) does not need on that path.
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix=name)
    try:
        return list(pool.map(function, items))
    except BaseException:
        kill_live_children()
        raise
    finally:
        pool.shutdown(wait=True)


class _Pipes:
    """A child's stdout and stderr, each read in a thread of its own in chunks (so neither
    pipe fills and blocks the child): stdout up to OUTPUT_LIMIT bytes, after which `over` is set
    and reading stops, and the last OUTPUT_LIMIT bytes of stderr. `settled` is set once both
    pipes are at their end, or stdout is over the limit."""

    def __init__(self, process: subprocess.Popen[bytes], limit: int) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._stdout: list[bytes] = []
        self._stdout_size = 0
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._open = 2
        self.over = False
        self.settled = threading.Event()
        for stream, keep in (
            (process.stdout, self._keep_stdout),
            (process.stderr, self._keep_stderr),
        ):
            # Daemon threads: a grandchild that keeps a pipe open must not keep envcheck alive.
            threading.Thread(target=self._read, args=(stream, keep), daemon=True).start()

    def _read(self, stream: IO[bytes] | None, keep: Callable[[bytes], bool]) -> None:
        try:
            while stream is not None:
                chunk = os.read(stream.fileno(), _READ_CHUNK)
                if not chunk or not keep(chunk):
                    break
        except (OSError, ValueError):  # the pipe was closed under the thread
            pass
        finally:
            if stream is not None:  # this thread's alone: closed where no read can be blocked
                with contextlib.suppress(OSError):
                    stream.close()
            with self._lock:
                self._open -= 1
                if self._open == 0:
                    self.settled.set()

    def _keep_stdout(self, chunk: bytes) -> bool:
        with self._lock:
            room = self._limit - self._stdout_size
            self._stdout.append(chunk[: max(room, 0)])
            self._stdout_size += len(chunk)
            if self._stdout_size > self._limit:
                self.over = True
                self.settled.set()
                return False
        return True

    def _keep_stderr(self, chunk: bytes) -> bool:
        with self._lock:
            self._stderr.append(chunk)
            self._stderr_size += len(chunk)
            while self._stderr and self._stderr_size - len(self._stderr[0]) >= self._limit:
                self._stderr_size -= len(self._stderr.popleft())
        return True

    def text(self, encoding: str) -> tuple[str, str]:
        """(stdout, stderr) as text so far, newlines translated as text mode does."""
        with self._lock:
            raw = (b"".join(self._stdout), b"".join(self._stderr)[-self._limit :])
        return _as_text(raw[0], encoding), _as_text(raw[1], encoding)


def _as_text(data: bytes, encoding: str) -> str:
    return data.decode(encoding, errors="replace").replace("\r\n", "\n").replace("\r", "\n")


@record
class _Ending:
    stdout: str
    stderr: str
    timed_out: bool
    too_large: bool  # stdout passed OUTPUT_LIMIT: the child was killed there


def _read_until_end(
    process: subprocess.Popen[bytes], timeout: float, encoding: str, limit: int
) -> _Ending:
    """Read both pipes until the child ends them and exits, `timeout` passes or stdout passes
    `limit`; in the last two cases kill its process group and read what is left (for at most
    DRAIN_TIMEOUT_S: a grandchild outside the group may hold the pipes). What
    Popen.communicate does, with bounded memory."""
    ends = time.monotonic() + timeout
    try:
        pipes = _Pipes(process, limit)
        timed_out = not pipes.settled.wait(timeout)
        if not timed_out and not pipes.over:
            try:  # the pipes are closed; the child may still be running
                process.wait(max(ends - time.monotonic(), 0))
            except subprocess.TimeoutExpired:
                timed_out = True
        if timed_out or pipes.over:
            kill_tree(process)
            pipes.settled.wait(_drain_time())
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(_drain_time())
    except BaseException:  # interrupted: never leave the group running
        kill_tree(process)
        raise
    stdout, stderr = pipes.text(encoding)
    return _Ending(stdout, stderr, timed_out and not pipes.over, pipes.over)


class ChildOutputTooLargeError(subprocess.SubprocessError):
    """The child printed more than OUTPUT_LIMIT bytes on stdout and was killed."""

    def __init__(self, command: Sequence[str], stdout: str, stderr: str) -> None:
        super().__init__(f"{command[0]} {too_large_sentence()}")
        self.stdout = stdout
        self.stderr = stderr


class ChildGroup:
    """The child processes one probe runs: `cancel()` kills those still running and refuses new
    ones, so a command that fails while its probe runs in the background exits at once instead
    of waiting for a hanging NVML to time out. Shared between the probe's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[Any]] = set()
        self._cancelled = False

    def run(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        check: str = "",
    ) -> subprocess.CompletedProcess[str]:
        """subprocess.run(command, capture_output=True, text=True, timeout=timeout) that
        cancel() can stop, reading at most OUTPUT_LIMIT bytes of stdout; raises
        ChildCancelledError when it was cancelled (or had been, before the start), and
        ChildOutputTooLargeError when stdout passed the limit (the child is killed there).
        The run's --deadline (probe/deadline.py) shortens `timeout`; a child it cuts short or
        refuses is noted as `check` (a TimeoutExpired or a ChildCancelledError as usual)."""
        return self.wait_for(self.launch(command, env=env, check=check), timeout=timeout)

    def launch(
        self, command: Sequence[str], *, env: Mapping[str, str] | None = None, check: str = ""
    ) -> subprocess.Popen[bytes]:
        """Start `command` (the first half of run()); wait_for() reads it to its end. Between
        the two its output waits in the pipes (a full pipe only pauses the child)."""
        with self._lock:
            if self._cancelled:
                raise ChildCancelledError(command[0])
            if deadline.expired():
                deadline.note_cut(check or Path(command[0]).name)
                raise ChildCancelledError(command[0], "the --deadline passed")
            process = subprocess.Popen(
                list(command),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env) if env is not None else None,
                # Its own process group, so a timeout kills what it started too (a wrapper
                # script's python, a driver helper) and no grandchild keeps the pipes open.
                start_new_session=os.name == "posix",
            )
            register_child(process)
            self._running.add(process)
        return process

    def wait_for(
        self, process: subprocess.Popen[bytes], *, timeout: float, check: str = ""
    ) -> subprocess.CompletedProcess[str]:
        """The second half of run(): read the launched `process` to its end, for at most
        `timeout` (shortened by the --deadline) from now."""
        command = process.args if isinstance(process.args, list) else [str(process.args)]
        wait = deadline.bounded(timeout)
        try:
            # text=True's encoding: the locale's (nvidia-smi writes in it).
            ending = _read_until_end(
                process, wait, locale.getpreferredencoding(False), OUTPUT_LIMIT
            )
        finally:
            with self._lock:
                self._running.discard(process)
            unregister_child(process)
        if self._cancelled:
            raise ChildCancelledError(command[0])
        if ending.too_large:
            raise ChildOutputTooLargeError(command, ending.stdout, ending.stderr)
        if ending.timed_out:
            if wait < timeout:
                deadline.note_cut(check or Path(command[0]).name)
            raise subprocess.TimeoutExpired(command, wait, ending.stdout, ending.stderr)
        return subprocess.CompletedProcess(
            command, process.returncode, ending.stdout, ending.stderr
        )

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            for process in self._running:
                kill_tree(process)


class ChildCancelledError(OSError):
    """The child was not run, or was killed, because its probe was cancelled (or the run's
    --deadline had passed)."""

    def __init__(self, program: str, why: str = "cancelled") -> None:
        super().__init__(f"{why} ({program} not run to the end)")


def _drain_time() -> float:
    """How long to read what a killed child left in its pipes: DRAIN_TIMEOUT_S, or under a
    --deadline the time left (at least a moment: the bytes are usually there already)."""
    if not deadline.active():
        return DRAIN_TIMEOUT_S
    return max(0.2, deadline.bounded(DRAIN_TIMEOUT_S))


# The check (a name in the report's `not_checked`) each child script belongs to.
_CHECKS = {
    "nvml": "driver",
    "libcuda": "driver",
    "library_version": "libraries",
    "interpreter": "interpreter",
    "frameworks": "frameworks",
}


def run_child(
    name: str,
    argument: Any = None,
    *,
    python: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    extra_args: Sequence[str] = (),
    site: bool = True,
    group: ChildGroup | None = None,
) -> ChildResult:
    """Run child script `name` with a JSON `argument`; never raises for the child's failures.

    `site=False` starts the interpreter without the site module (-S) for children that need only
    the standard library: a virtual environment's .pth files (editable installs, setuptools'
    distutils hook) otherwise cost each child 10-15 ms before its first line, and run code the
    probe has no business running. Such a child must not read sys.prefix: without site it is
    the base interpreter's, not the virtual environment's. `group` lets a caller cancel it.
    """
    launched = launch_child(
        name, argument, python=python, env=env, extra_args=extra_args, site=site, group=group
    )
    return finish_child(launched, timeout)


@record
class LaunchedChild:
    """A child script launch_child started (or could not start: `process` None, `refusal`
    says why), for finish_child to read to its end."""

    name: str
    group: ChildGroup
    started: float  # time.monotonic() before the start
    process: subprocess.Popen[bytes] | None
    refusal: str = ""


def launch_child(
    name: str,
    argument: Any = None,
    *,
    python: str | None = None,
    env: Mapping[str, str] | None = None,
    extra_args: Sequence[str] = (),
    site: bool = True,
    group: ChildGroup | None = None,
) -> LaunchedChild:
    """The first half of run_child: start child script `name` and return at once. A command
    launches its slowest child before it loads the rest of itself, which then runs meanwhile;
    finish_child must follow (with the group's cancel() for a command that fails between)."""
    flags = ["-I"] if site else ["-I", "-S"]
    command = [python or sys.executable, *flags, *extra_args, "-c", child_source(name)]
    command.append(json.dumps(argument))
    group = group or ChildGroup()
    started = time.monotonic()
    try:
        process = group.launch(command, env=env, check=_CHECKS.get(name, name))
    except OSError as exc:  # not startable, or cancelled
        return LaunchedChild(name, group, started, None, str(exc))
    return LaunchedChild(name, group, started, process)


def finish_child(launched: LaunchedChild, timeout: float = DEFAULT_TIMEOUT_S) -> ChildResult:
    """The second half of run_child: read the launched child to its end, for at most `timeout`
    from now, and say what became of it."""
    started, process = launched.started, launched.process
    if process is None:
        return ChildResult("not-run", None, None, None, launched.refusal, 0.0)
    try:
        completed = launched.group.wait_for(
            process, timeout=timeout, check=_CHECKS.get(launched.name, launched.name)
        )
    except subprocess.TimeoutExpired as exc:
        stderr = decoded(exc.stderr)
        waited = float(exc.timeout)  # the deadline may have cut `timeout` short
        return ChildResult("timeout", None, None, None, stderr[-_STDERR_TAIL:], waited)
    except ChildOutputTooLargeError as exc:
        seconds = time.monotonic() - started
        return ChildResult("too-large", None, None, None, exc.stderr[-_STDERR_TAIL:], seconds)
    except OSError as exc:  # cancelled
        return ChildResult("not-run", None, None, None, str(exc), time.monotonic() - started)
    seconds = time.monotonic() - started
    tail = completed.stderr[-_STDERR_TAIL:]
    crashed_by = crash_signal(completed.returncode)
    if crashed_by is not None:
        return ChildResult("crashed", None, completed.returncode, crashed_by, tail, seconds)
    data = _last_json_line(completed.stdout)
    if completed.returncode != 0 or data is None:
        return ChildResult("failed", data, completed.returncode, None, tail, seconds)
    return ChildResult("ok", data, 0, None, tail, seconds)


def _last_json_line(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        return value if isinstance(value, dict) else None
    return None


def user_python_path(env: Mapping[str, str]) -> list[str]:
    """The PYTHONPATH entries the user's `python` puts on sys.path, as absolute directories.

    Children run with -I, which drops PYTHONPATH along with the current directory; they put
    these entries back where Python puts them (HPC module systems install TensorFlow this way).
    Empty entries, which mean the current directory, stay dropped: a directory the doctor
    happens to run in must not replace the modules it inspects.
    """
    entries = env.get("PYTHONPATH", "").split(os.pathsep)
    return [str(Path(entry).absolute()) for entry in entries if entry]


def child_env(overrides: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """This process's environment with `overrides` applied (None removes a variable)."""
    env = dict(os.environ)
    for key, value in (overrides or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def decoded(value: str | bytes | None) -> str:
    """What a pipe gave, as text (TimeoutExpired holds bytes or str)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value or ""


@record
class StreamedChild:
    """What a child that prints as it goes left behind: everything it wrote, even when it was
    killed at the timeout (run_child keeps only a finished child's last line)."""

    stdout: str
    stderr: str
    returncode: int | None  # None when it never started
    timed_out: bool
    seconds: float
    start_error: str | None = None  # why it could not be started
    # Why envcheck killed it other than for the timeout (its stdout passed OUTPUT_LIMIT), in
    # the words a report puts where a crash's signal goes; None when it did not.
    stopped: str | None = None


def run_streaming_child(
    command: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    check: str = "",
) -> StreamedChild:
    """Run `command` in a process group of its own, registered for the signal handler; on the
    timeout kill the whole group and keep what it printed. Never raises for the child. Under
    the run's --deadline a child it cuts short, or would start too late, is noted as `check`."""
    started = time.monotonic()
    wait = deadline.bounded(timeout)
    if deadline.expired():
        deadline.note_cut(check)
        return StreamedChild("", "", None, False, 0.0, "not started: the --deadline passed")
    try:
        process = subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            start_new_session=os.name == "posix",
        )
    except OSError as exc:
        return StreamedChild("", "", None, False, time.monotonic() - started, str(exc))
    try:
        register_child(process)
    except ChildCancelledError as exc:
        return StreamedChild("", "", None, False, time.monotonic() - started, str(exc))
    try:
        ending = _read_until_end(process, wait, "utf-8", OUTPUT_LIMIT)
        if ending.timed_out and wait < timeout:
            deadline.note_cut(check)
    finally:
        if process.poll() is None:  # interrupted (KeyboardInterrupt): never leave it running
            kill_tree(process)
        unregister_child(process)
    stopped = f"SIGKILL from envcheck: it {too_large_sentence()}" if ending.too_large else None
    return StreamedChild(
        ending.stdout,
        ending.stderr,
        process.returncode,
        ending.timed_out,
        time.monotonic() - started,
        stopped=stopped,
    )
