"""The smoke test on real child processes: fake `tensorflow` packages in a real venv, and the
real tensorflow-cpu wheel when it is installed.

The child runs as `python -I`, which ignores PYTHONPATH, so each fake is a real package in the
site-packages of a venv made for this module; a fixture swaps the package per test.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import json
import os
import re
import resource
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from envcheck.errors import InputError
from envcheck.probe.isolation import crash_signal
from envcheck.probe.smoke import (
    STEPS,
    ChildEnding,
    SmokeResult,
    parse_step_lines,
    result_from_output,
    run_smoke_test,
    smoke_source,
)
from tests.native_fakes import fake_cudnn, have_gcc

# A tensorflow with just the API the smoke child calls. FAKE_TF (comma-separated) picks the
# behaviour: gpu (one GPU, ops "run" on GPU:0), crash-conv2d, hang-matmul, wrong-matmul,
# no-keras; FAKE_TF_LOAD names a shared object to load at import (as TF loads cuDNN).
FULL_FAKE = """
import contextlib
import ctypes
import os
import signal
import time
import types

__version__ = "2.99.0"
MODES = os.environ.get("FAKE_TF", "").split(",")
if os.environ.get("FAKE_TF_LOAD"):
    ctypes.CDLL(os.environ["FAKE_TF_LOAD"])
_placement = ["/CPU:0"]


class Tensor:
    def __init__(self, total, shape=()):
        self.total, self.shape = float(total), tuple(shape)
        self.device = "/job:localhost/replica:0/task:0/device:" + _placement[0][1:]

    def numpy(self):
        return self.total if not self.shape else types.SimpleNamespace(shape=self.shape)

    def __sub__(self, other):
        return Tensor(self.total - other * self.shape[0] * self.shape[1], self.shape)


@contextlib.contextmanager
def device(name):
    _placement.insert(0, name)
    try:
        yield
    finally:
        _placement.pop(0)


def ones(shape):
    total = 1
    for size in shape:
        total *= size
    return Tensor(total, shape)


def reduce_sum(tensor):
    return Tensor(tensor.total)


def matmul(a, b):
    if "hang-matmul" in MODES:
        time.sleep(3600)
    total = 1.0 if "wrong-matmul" in MODES else a.shape[0] * a.shape[1] * b.shape[1]
    return Tensor(total, (a.shape[0], b.shape[1]))


def function(jit_compile=False):
    return lambda fn: fn


class GradientTape:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def watch(self, tensor):
        pass

    def gradient(self, loss, sources):
        return [Tensor(loss.total) for _ in sources]


def _conv2d(x, w, strides, padding):
    if "crash-conv2d" in MODES:
        os.kill(os.getpid(), signal.SIGSEGV)
    return Tensor(5808.0, (1, 8, 8, 4))


class _Device:
    name = "/physical_device:GPU:0"


def _list_physical_devices(kind=None):
    return [_Device()] if "gpu" in MODES and kind == "GPU" else []


def _details(device):
    return {"compute_capability": (8, 6), "device_name": "NVIDIA GeForce RTX 3090"}


def _lstm(units):
    return lambda inputs: Tensor(0.0, (inputs.shape[0], units))


nn = types.SimpleNamespace(conv2d=_conv2d, relu=lambda t: t)
config = types.SimpleNamespace(
    list_physical_devices=_list_physical_devices,
    experimental=types.SimpleNamespace(get_device_details=_details),
)
sysconfig = types.SimpleNamespace(
    get_build_info=lambda: {"is_cuda_build": True, "cuda_version": "12.5.1", "cudnn_version": "9"}
)
if "no-keras" not in MODES:
    keras = types.SimpleNamespace(__version__="3.99.0", layers=types.SimpleNamespace(LSTM=_lstm))


def __getattr__(name):
    if name == "keras":
        raise ModuleNotFoundError("No module named 'keras'", name="keras")
    raise AttributeError(name)
"""

SEGFAULT_ON_IMPORT = """
import ctypes
ctypes.string_at(0)  # a real invalid read: SIGSEGV
"""

# Sleeps in import and starts a grandchild that holds the pipes: the timeout must kill both.
HANG_ON_IMPORT = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
with open(os.environ["FAKE_TF_PIDFILE"], "w") as handle:
    handle.write(str(child.pid))
time.sleep(3600)
"""

# TF <= 2.12 style log lines, then the ImportError a TF 1.x Linux GPU wheel raises at import.
TF_STDERR = (
    "2023-03-01 10:00:00.000001: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open "
    "shared object file: No such file or directory\n"
    "2023-03-01 10:00:00.000002: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore "
    "above cudart dlerror if you do not have a GPU set up on your machine.\n"
)
IMPORT_ERROR = f"""
import sys
sys.stderr.write({TF_STDERR!r})
sys.stderr.flush()
raise ImportError("libcudart.so.11.0: cannot open shared object file: No such file or directory")
"""

MISSING_DEPENDENCY = """
import numpy_that_is_not_installed
"""

FAKE_TIMEOUT = 30.0  # generous: a fake imports in well under a second


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(python, purelib) of a fresh venv without TensorFlow."""
    root = tmp_path_factory.mktemp("smoke")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    return python, Path(purelib)


@pytest.fixture
def install_fake(venv: tuple[Path, Path]) -> Iterator[Callable[[str], str]]:
    """Put tensorflow/__init__.py with the given source into the venv; removed after the test."""
    package = venv[1] / "tensorflow"

    def install(source: str) -> str:
        package.mkdir()
        (package / "__init__.py").write_text(textwrap.dedent(source))
        return str(venv[0])

    yield install
    if package.exists():
        for path in sorted(package.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        package.rmdir()


def fake_env(**variables: str) -> dict[str, str]:
    return {**os.environ, **variables}


def names_and_statuses(result: SmokeResult) -> list[tuple[str, str]]:
    return [(step.name, step.status) for step in result.steps]


# --- fakes ----------------------------------------------------------------------------------


def test_fake_gpu_all_steps_pass(install_fake: Callable[[str], str], tmp_path: Path) -> None:
    load = {}
    if have_gcc():
        load["FAKE_TF_LOAD"] = str(fake_cudnn(tmp_path / "lib", 90300, soname="libcudnn.so.9"))
    python = install_fake(FULL_FAKE)
    result = run_smoke_test(python, FAKE_TIMEOUT, fake_env(FAKE_TF="gpu", **load))
    assert result.status == "ok", result.stderr
    assert names_and_statuses(result) == [(name, "ok") for name in STEPS]
    assert [s.device for s in result.steps] == [None, None, *["GPU:0"] * 4]
    assert result.tensorflow_version == "2.99.0"
    assert result.build_info["cuda_version"] == "12.5.1"
    assert result.gpus == ("/physical_device:GPU:0",)
    assert result.gpu_details == (
        {
            "name": "/physical_device:GPU:0",
            "compute_capability": "8.6",
            "device_name": "NVIDIA GeForce RTX 3090",
        },
    )
    assert result.returncode == 0
    assert result.signal is None
    assert result.last_step == "xla"
    assert all(s.seconds is not None and s.seconds >= 0 for s in result.steps)
    assert result.describe() == "all 6 steps passed on GPU:0"
    if load:
        assert load["FAKE_TF_LOAD"] in [str(Path(p)) for p in result.loaded_libraries]


def test_fake_crash_in_conv2d(install_fake: Callable[[str], str], tmp_path: Path) -> None:
    load = {}
    if have_gcc():
        load["FAKE_TF_LOAD"] = str(fake_cudnn(tmp_path / "lib", 8907, soname="libcudnn.so.8"))
    python = install_fake(FULL_FAKE)
    result = run_smoke_test(python, FAKE_TIMEOUT, fake_env(FAKE_TF="crash-conv2d", **load))
    assert result.status == "crashed"
    assert result.signal == "SIGSEGV"
    assert result.returncode == -11
    assert names_and_statuses(result) == [
        ("import", "ok"),
        ("list_gpus", "ok"),
        ("conv2d", "crashed-here"),
        ("lstm", "not-reached"),
        ("matmul", "not-reached"),
        ("xla", "not-reached"),
    ]
    assert result.steps[2].detail == "the child process died in this step (SIGSEGV)"
    assert result.steps[2].seconds is None
    assert result.last_step == "conv2d"
    assert result.gpus == ()
    assert result.tensorflow_version == "2.99.0"
    assert re.fullmatch(r"conv2d crashed with SIGSEGV after \d+\.\d s", result.describe())
    if load:  # no final line: the libraries come from the steps that finished before the crash
        assert load["FAKE_TF_LOAD"] in [str(Path(p)) for p in result.loaded_libraries]


def test_segfault_on_import(install_fake: Callable[[str], str]) -> None:
    python = install_fake(SEGFAULT_ON_IMPORT)
    result = run_smoke_test(python, FAKE_TIMEOUT)
    assert result.status == "crashed"
    assert result.signal == "SIGSEGV"
    assert names_and_statuses(result) == [("import", "crashed-here")] + [
        (name, "not-reached") for name in STEPS[1:]
    ]
    assert result.last_step == "import"
    assert result.tensorflow_version is None
    assert result.loaded_libraries == ()
    assert re.fullmatch(r"import crashed with SIGSEGV after \d+\.\d s", result.describe())


def test_a_crash_leaves_no_core_file(
    install_fake: Callable[[str], str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Core dumps allowed (as on many desktops) and the kernel's pattern writing `core` into the
    # crashing process's directory: TensorFlow's core is gigabytes, left where the user ran the
    # doctor. The child turns them off for itself; its signal already says what happened.
    if Path("/proc/sys/kernel/core_pattern").read_text().startswith("|"):
        pytest.skip("cores go to a program here, not to a file in the working directory")
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    if hard != resource.RLIM_INFINITY and hard < 1 << 30:
        pytest.skip("core files cannot be allowed here")
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
    try:
        monkeypatch.chdir(tmp_path)
        python = install_fake(SEGFAULT_ON_IMPORT)
        result = run_smoke_test(python, FAKE_TIMEOUT)
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))
    assert result.signal == "SIGSEGV"
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("core")]


def _alive(pid: int) -> bool:
    """Running, not a zombie (a container's PID 1 may never reap the orphan)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to see the grandchild die")
def test_hang_on_import_times_out_and_kills_the_group(
    install_fake: Callable[[str], str], tmp_path: Path
) -> None:
    pidfile = tmp_path / "grandchild.pid"
    python = install_fake(HANG_ON_IMPORT)
    started = time.monotonic()
    result = run_smoke_test(python, 3, fake_env(FAKE_TF_PIDFILE=str(pidfile)))
    elapsed = time.monotonic() - started
    assert result.status == "timeout"
    assert elapsed < 8, "the grandchild holding the pipes must not stall the parent"
    assert names_and_statuses(result) == [("import", "crashed-here")] + [
        (name, "not-reached") for name in STEPS[1:]
    ]
    assert result.steps[0].detail == "still running when the 3 s timeout ended the child"
    assert result.returncode is None
    assert result.signal is None
    assert result.seconds == 3
    assert result.describe() == "timed out after 3 s during import"
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild)


def test_hang_in_matmul_keeps_the_earlier_steps(install_fake: Callable[[str], str]) -> None:
    python = install_fake(FULL_FAKE)
    result = run_smoke_test(python, 3, fake_env(FAKE_TF="hang-matmul"))
    assert result.status == "timeout"
    assert names_and_statuses(result) == [
        ("import", "ok"),
        ("list_gpus", "ok"),
        ("conv2d", "ok"),
        ("lstm", "ok"),
        ("matmul", "crashed-here"),
        ("xla", "not-reached"),
    ]
    assert result.tensorflow_version == "2.99.0"
    assert result.steps[2].device == "CPU:0"
    assert result.describe() == "timed out after 3 s during matmul"


def test_import_error_keeps_tensorflow_stderr(install_fake: Callable[[str], str]) -> None:
    python = install_fake(IMPORT_ERROR)
    result = run_smoke_test(python, FAKE_TIMEOUT)
    assert result.status == "failed"
    assert result.returncode == 0
    assert names_and_statuses(result) == [("import", "failed")] + [
        (name, "skipped") for name in STEPS[1:]
    ]
    assert result.steps[0].detail == (
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
    )
    assert result.steps[1].detail == "not run: TensorFlow did not import"
    assert TF_STDERR in result.stderr
    assert result.last_step == "import"
    assert result.describe() == (
        "import failed: ImportError: libcudart.so.11.0: cannot open shared object file: "
        "No such file or directory"
    )


def test_missing_dependency_is_a_failure_not_a_missing_tensorflow(
    install_fake: Callable[[str], str],
) -> None:
    python = install_fake(MISSING_DEPENDENCY)
    result = run_smoke_test(python, FAKE_TIMEOUT)
    assert result.status == "failed"
    assert result.describe() == (
        "import failed: ModuleNotFoundError: No module named 'numpy_that_is_not_installed'"
    )


def test_no_tensorflow_is_not_run(venv: tuple[Path, Path]) -> None:
    python = str(venv[0])
    result = run_smoke_test(python, FAKE_TIMEOUT)
    assert result.status == "not-run"
    assert result.steps[0].status == "failed"
    assert result.steps[0].detail.startswith(f"TensorFlow is not installed in {python} (")
    assert "No module named 'tensorflow'" in result.steps[0].detail
    assert all(step.status == "skipped" for step in result.steps[1:])
    assert result.describe() == f"not run: {result.steps[0].detail}"
    assert result.describe().startswith("not run: TensorFlow is not installed in ")


def test_keras_missing_fails_only_lstm(install_fake: Callable[[str], str]) -> None:
    python = install_fake(FULL_FAKE)
    result = run_smoke_test(python, FAKE_TIMEOUT, fake_env(FAKE_TF="no-keras"))
    assert result.status == "failed"
    assert [s.name for s in result.steps if s.status != "ok"] == ["lstm"]
    assert result.describe() == (
        "lstm failed: keras import failed: ModuleNotFoundError: No module named 'keras'"
    )


def test_wrong_results_fail_the_step(install_fake: Callable[[str], str]) -> None:
    python = install_fake(FULL_FAKE)
    result = run_smoke_test(python, FAKE_TIMEOUT, fake_env(FAKE_TF="wrong-matmul,no-keras"))
    assert result.status == "failed"
    assert result.describe() == (
        "lstm failed: keras import failed: ModuleNotFoundError: No module named 'keras'"
        " (also failed: matmul, xla)"
    )
    matmul, xla = result.steps[4:]
    assert matmul.detail == "matmul computed 1.0 where 262144.0 was expected: wrong results"
    assert (
        xla.detail == "XLA matmul+relu computed -16383.0 where 16384.0 was expected: wrong results"
    )


def test_steps_subset_always_imports(install_fake: Callable[[str], str]) -> None:
    python = install_fake(FULL_FAKE)
    result = run_smoke_test(python, FAKE_TIMEOUT, fake_env(FAKE_TF="gpu"), steps=["matmul"])
    assert names_and_statuses(result) == [("import", "ok"), ("matmul", "ok")]
    # No list_gpus step: nothing chose the GPU, so the op ran on the CPU.
    assert result.describe() == "all 2 steps passed on CPU:0"


def test_unknown_step_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"'conv3d'.*choose from import, list_gpus"):
        run_smoke_test(steps=["conv3d"])


def test_interpreter_that_does_not_exist(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-python")
    result = run_smoke_test(missing, FAKE_TIMEOUT)
    assert result.status == "not-run"
    assert all(s.status == "not-reached" for s in result.steps)
    assert result.describe().startswith(f"not run: could not start {missing}: ")


def test_program_that_is_not_python(tmp_path: Path) -> None:
    script = tmp_path / "not-python"
    script.write_text("#!/bin/sh\necho 'unknown option -I' >&2\nexit 2\n")
    script.chmod(0o755)
    result = run_smoke_test(str(script), FAKE_TIMEOUT)
    assert result.status == "not-run"
    assert result.returncode == 2
    assert result.describe() == (
        "not run: the child printed no step lines (exit code 2): unknown option -I"
    )


# --- the child script itself ----------------------------------------------------------------

SOURCE = smoke_source("smoke")


def test_child_source_is_python_3_7_grammar() -> None:
    ast.parse(SOURCE, feature_version=(3, 7))


@pytest.mark.skipif(sys.version_info < (3, 10), reason="sys.stdlib_module_names is 3.10+")
def test_child_imports_only_the_standard_library_and_tensorflow() -> None:
    imported: set[str] = set()
    for node in ast.walk(ast.parse(SOURCE)):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported - {"tensorflow"} <= set(sys.stdlib_module_names)


def test_child_fits_a_windows_command_line() -> None:
    """The source travels with -c; CreateProcess allows 32767 characters in all."""
    assert len(SOURCE) + len(json.dumps({"steps": list(STEPS), "xla": True})) < 30000


@pytest.mark.parametrize("argument", ["not json", "[1, 2]", '{"steps": null}'])
def test_child_survives_a_bad_argument(venv: tuple[Path, Path], argument: str) -> None:
    completed = subprocess.run(
        [str(venv[0]), "-I", "-c", SOURCE, argument],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert completed.returncode == 0, completed.stderr
    events = parse_step_lines(completed.stdout)
    assert [e["step"] for e in events if e["status"] != "started"] == [*STEPS, "loaded_libraries"]


# --- pure parts: crash codes, recorded output -----------------------------------------------


@pytest.mark.parametrize(
    ("returncode", "windows", "expected"),
    [
        (-11, False, "SIGSEGV"),
        (-6, False, "SIGABRT"),
        (-4, False, "SIGILL"),
        (0, False, None),
        (1, False, None),
        (None, False, None),
        (0xC0000005, True, "STATUS_ACCESS_VIOLATION (0xC0000005)"),
        (-1073741819, True, "STATUS_ACCESS_VIOLATION (0xC0000005)"),  # the same, signed
        (0xC000001D, True, "STATUS_ILLEGAL_INSTRUCTION (0xC000001D)"),
        (0xC0000409, True, "STATUS_STACK_BUFFER_OVERRUN (0xC0000409)"),
        (0xC0000001, True, "Windows exception 0xC0000001"),
        (3, True, None),  # abort() on Windows exits with 3: not an exception
        (1, True, None),
    ],
)
def test_crash_signal(returncode: int | None, windows: bool, expected: str | None) -> None:
    assert crash_signal(returncode, windows) == expected


RECORDED_UNTIL_CONV2D = "\n".join(
    json.dumps(line)
    for line in (
        {"step": "import", "status": "started"},
        {"step": "import", "status": "ok", "seconds": 9.5, "detail": "TensorFlow 2.10.1",
         "device": None, "version": "2.10.1", "build_info": {"cuda_version": "64_112"}},
        {"step": "list_gpus", "status": "started"},
        {"step": "list_gpus", "status": "ok", "seconds": 1.25, "detail": "TensorFlow sees 1 GPU(s)",
         "device": None, "gpus": ["/physical_device:GPU:0"],
         "details": [{"name": "/physical_device:GPU:0", "compute_capability": "8.6"}],
         "new_libraries": ["C:\\cuda\\bin\\cudnn64_8.dll"]},
        {"step": "conv2d", "status": "started"},
    )
)  # fmt: skip


def test_windows_access_violation_in_conv2d_from_recorded_lines() -> None:
    # cudnn_cnn_infer64_8.dll of the wrong architecture: the process dies with 0xC0000005.
    ending = ChildEnding(0xC0000005, timed_out=False, seconds=12.34, stderr="", windows=True)
    stdout = "Could not load library cudnn_cnn_infer64_8.dll. Error code 193\n"
    result = result_from_output(STEPS, RECORDED_UNTIL_CONV2D + "\n" + stdout, ending, 120)
    assert result.status == "crashed"
    assert result.signal == "STATUS_ACCESS_VIOLATION (0xC0000005)"
    assert result.loaded_libraries == ("C:\\cuda\\bin\\cudnn64_8.dll",)
    assert result.gpu_details[0]["compute_capability"] == "8.6"
    assert result.describe() == (
        "conv2d crashed with STATUS_ACCESS_VIOLATION (0xC0000005) after 12.3 s"
    )


def test_process_that_exits_mid_step_without_a_signal() -> None:
    ending = ChildEnding(1, timed_out=False, seconds=2.0, stderr="", windows=False)
    result = result_from_output(STEPS, RECORDED_UNTIL_CONV2D, ending, 120)
    assert result.status == "crashed"
    assert result.signal is None
    assert result.steps[2].detail == "the child process died in this step (exit code 1)"
    assert result.describe() == "conv2d crashed with exit code 1 after 2.0 s"


def test_hang_after_every_step_reported_keeps_the_verdict() -> None:
    lines: list[dict[str, Any]] = [{"step": "import", "status": "started"}]
    lines += [
        {"step": name, "status": "ok", "seconds": 0.1, "detail": "", "device": "GPU:0"}
        for name in STEPS
    ]
    lines.append({"step": "loaded_libraries", "status": "ok", "libraries": []})
    stdout = "\n".join(json.dumps(line) for line in lines)
    ending = ChildEnding(None, timed_out=True, seconds=120.5, stderr="", windows=False)
    result = result_from_output(STEPS, stdout, ending, 120)
    assert result.status == "ok"
    assert result.returncode is None


def test_parse_step_lines_skips_foreign_output() -> None:
    stdout = (
        "a library printed this\n"
        'no newline from C{"step": "import", "status": "started"}\n'
        '{"step": "import", "status": "ok", "seco\n'  # cut short by the crash
        '["not", "a", "step"]\n'
    )
    assert parse_step_lines(stdout) == [{"step": "import", "status": "started"}]


def test_stderr_keeps_its_last_256_kb() -> None:
    ending = ChildEnding(0, False, 1.0, "x" * 300_000 + "THE END", windows=False)
    result = result_from_output(STEPS, RECORDED_UNTIL_CONV2D, ending, 120)
    assert len(result.stderr) == 256 * 1024
    assert result.stderr.endswith("THE END")


# --- the real tensorflow-cpu wheel ----------------------------------------------------------


def _installed(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


TF_CPU = _installed("tensorflow-cpu")


@pytest.mark.skipif(
    TF_CPU is None or importlib.util.find_spec("tensorflow") is None,
    reason=f"tensorflow-cpu is not installed in {sys.executable} (CI installs tensorflow-cpu)",
)
def test_real_tensorflow_cpu() -> None:
    started = time.monotonic()
    result = run_smoke_test(sys.executable, timeout=180)
    elapsed = time.monotonic() - started
    assert result.status == "ok", (result.describe(), result.stderr[-4000:])
    assert all(step.status == "ok" for step in result.steps)
    assert [s.name for s in result.steps] == list(STEPS)
    for step in result.steps[2:]:
        assert step.device is not None
        assert "CPU" in step.device
    assert result.gpus == ()
    assert result.gpu_details == ()
    assert result.tensorflow_version == TF_CPU  # 2.21.0 in this project's venv
    assert result.build_info["is_cuda_build"] is False
    assert result.describe() == "all 6 steps passed on CPU:0"
    assert any("tensorflow_framework" in path for path in result.loaded_libraries)
    assert "cpu_feature_guard" in result.stderr
    print(f"\nreal TF smoke test: {elapsed:.2f} s; stderr:\n{result.stderr}")
