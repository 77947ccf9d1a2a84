"""PyTorch's and JAX's smoke tests and the import-order probe: the maps parser and the result
parsing on recorded output, the rules on built facts, fake framework packages that crash or hang
in a real venv, and (ENVCHECK_REAL_INSTALLS=1, the opt-in tier of tests/test_real_installs.py)
the real children on the real torch and tf-torch installs."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from envcheck.diagnose.loaded_copies_rules import loaded_copy_findings
from envcheck.diagnose.smoke_rules import smoke_findings
from envcheck.probe import isolation
from envcheck.probe.copy_owners import (
    _WINDOWS_STACK,
    CUDA_STACK,
    CopyOwner,
    copy_owner,
    copy_owners,
    library_key,
)
from envcheck.probe.import_order import (
    ImportOrderFacts,
    ImportStep,
    LoaderAnswer,
    MappedCopy,
    OrderRun,
    first_orders,
    import_orders,
    probe_import_orders,
    run_from_output,
    run_from_tail,
)
from envcheck.probe.isolation import StreamedChild, run_concurrently, run_streaming_child
from envcheck.probe.smoke import (
    ORDER_MARK,
    ChildEnding,
    result_from_output,
    results_from_child,
    run_smoke_and_order,
    run_smoke_test,
    smoke_source,
)
from tests.test_real_installs import ENABLED as REAL_INSTALLS
from tests.test_real_installs import environment

SITE = "/venv/lib/python3.11/site-packages"

# --- the maps parser (the child's own function, run here) -----------------------------------


def child_namespace() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "not_main"}
    exec(compile(smoke_source("smoke_torch"), "<child>", "exec"), namespace)
    return namespace


MAPS = [
    "55d0c0a00000-55d0c0a2b000 r--p 00000000 fd:01 1311 /usr/bin/python3.11\n",
    "7f1c2a000000-7f1c2a021000 rw-p 00000000 00:00 0 \n",
    f"7f1c2b000000-7f1c2b020000 r--p 00000000 fd:01 42 {SITE}/nvidia/cudnn/lib/libcudnn.so.9\n",
    f"7f1c2b020000-7f1c2b030000 r-xp 00020000 fd:01 42 {SITE}/nvidia/cudnn/lib/libcudnn.so.9\n",
    "7f1c2c000000-7f1c2c001000 r--p 00000000 fd:01 7 /tmp/a dir/libcublas.so.12 (deleted)\n",
    "7ffd4e5f0000-7ffd4e611000 rw-p 00000000 00:00 0                          [stack]\n",
    "7ffd4e7d1000-7ffd4e7d3000 r-xp 00000000 00:00 0                          [vdso]\n",
    "x" * 9000 + "\n",
]


def test_maps_parser_keeps_each_file_once_with_spaces_and_without_deleted() -> None:
    paths = child_namespace()["maps_paths"](MAPS)
    assert paths == [
        "/usr/bin/python3.11",
        f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9",
        "/tmp/a dir/libcublas.so.12",
    ]


@pytest.mark.parametrize("part", ["smoke", "smoke_torch", "smoke_jax", "import_order"])
def test_child_sources_are_python_3_7_and_stdlib_only(part: str) -> None:
    source = smoke_source(part)
    tree = ast.parse(source, feature_version=(3, 7))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    frameworks = {"tensorflow", "torch", "jax", "jaxlib"}  # imported inside a step only
    if sys.version_info >= (3, 10):
        outside = imported - frameworks - set(sys.stdlib_module_names)
        assert not outside, outside
    assert len(source) < 30000  # Windows' command line


@pytest.mark.parametrize(
    ("path", "key"),
    [
        (f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9", "libcudnn.so.9"),
        ("/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0", "libcudnn.so.9"),
        (f"{SITE}/nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.9", "libnvrtc-builtins.so.12"),
        (f"{SITE}/nvidia/cublas/lib/libcublasLt.so.12", "libcublasLt.so.12"),
        (f"{SITE}/nvidia/cudnn/lib/libcudnn_graph.so.9", None),
        (f"{SITE}/torch/lib/libtorch_cuda.so", None),
        ("C:\\CUDA\\bin\\cudnn64_9.dll", "cudnn64_9.dll"),
        ("C:\\Windows\\System32\\kernel32.dll", None),
    ],
)
def test_library_key(path: str, key: str | None) -> None:
    assert library_key(path) == key


def test_import_orders() -> None:
    assert import_orders(["torch"]) == []
    assert import_orders(["torch", "tensorflow"]) == [
        ("tensorflow", "torch"),
        ("torch", "tensorflow"),
    ]
    assert len(import_orders(["jax", "torch", "tensorflow"])) == 6


# --- result parsing on recorded output (tf-torch venv, torch first; cut down) ---------------

RECORDED = "\n".join(
    [
        '{"step": "import:torch", "status": "started"}',
        '{"step": "import:torch", "status": "ok", "detail": "PyTorch 2.14.1+cu130", "cuda": "13",'
        ' "seconds": 7.27, "new_libraries": ['
        f'"{SITE}/nvidia/cu13/lib/libcublas.so.13", "{SITE}/torch/lib/libtorch_cuda.so",'
        f' "{SITE}/nvidia/cudnn/lib/libcudnn.so.9", "{SITE}/nvidia/cu13/lib/libcudart.so.13"]}}',
        '{"step": "import:tensorflow", "status": "started"}',
        'some C library wrote this{"step": "import:tensorflow", "status": "ok", "detail": '
        '"TensorFlow 2.21.0", "cuda": "12", "seconds": 11.4, "new_libraries": ['
        f'"{SITE}/tensorflow/libtensorflow_framework.so.2"]}}',
        '{"step": "tf_loader", "status": "started"}',
        '{"step": "tf_loader", "status": "ok", "calls": {"Cudnn": {"opened": true, "path": '
        f'"{SITE}/nvidia/cudnn/lib/libcudnn.so.9"}}, "CudaRuntime": {{"opened": true, "path": '
        f'"{SITE}/tensorflow/python/platform/../../../nvidia/cuda_runtime/lib/libcudart.so.12"}},'
        ' "Hip": {"opened": false, "path": null}}, "seconds": 0.1, "new_libraries": []}',
        '{"step": "loaded_libraries", "status": "ok", "libraries": []}',
    ]
)


def test_recorded_order_run() -> None:
    run = run_from_output(("torch", "tensorflow"), RECORDED, "", 0, False, 19.2)
    assert run.status == "ok"
    assert [(s.framework, s.status, s.cuda) for s in run.imports] == [
        ("torch", "ok", "13"),
        ("tensorflow", "ok", "12"),
    ]
    assert [(c.library, c.after) for c in run.copies] == [
        ("libcublas.so.13", "import:torch"),
        ("libcudnn.so.9", "import:torch"),
        ("libcudart.so.13", "import:torch"),
    ]
    cudart = f"{SITE}/nvidia/cuda_runtime/lib/libcudart.so.12"
    assert LoaderAnswer("CudaRuntime", True, cudart) in run.tf_loader
    assert LoaderAnswer("Hip", False, None) in run.tf_loader
    assert run.copy_for("libcudnn.so.9", "torch") == f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9"
    assert run.copy_for("libcudart.so.12", "tensorflow") == cudart
    assert run.copy_for("libcudart.so.13", "tensorflow") is None  # its loader asked for 12


def test_crash_in_the_second_import() -> None:
    stdout = "\n".join(RECORDED.splitlines()[:3])
    run = run_from_output(("torch", "tensorflow"), stdout, "Segmentation fault", -11, False, 3.0)
    assert run.status == "crashed"
    assert run.signal == "SIGSEGV"
    assert [s.status for s in run.imports] == ["ok", "crashed-here"]


def test_timeout_in_the_first_import() -> None:
    run = run_from_output(("jax", "torch"), RECORDED.splitlines()[0].replace("torch", "jax"),
                          "", None, True, 5.0)  # fmt: skip
    assert run.status == "timeout"
    assert [s.status for s in run.imports] == ["crashed-here", "not-reached"]


# --- an order answered by a smoke child after its smoke test (recorded, torch first) ---------

TORCH_STEPS = ("import", "list_gpus", "conv2d", "matmul")
CUDNN_COPY = f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9"
TORCH_LIBRARIES = (
    f'"{SITE}/nvidia/cu13/lib/libcublas.so.13", "{SITE}/torch/lib/libtorch_cuda.so",'
    f' "{SITE}/nvidia/cudnn/lib/libcudnn.so.9", "{SITE}/nvidia/cu13/lib/libcudart.so.13"'
)
SMOKE_LINES = "\n".join(
    [
        '{"step": "import", "status": "started"}',
        '{"step": "import", "status": "ok", "seconds": 7.27, "detail": "PyTorch 2.14.1+cu130",'
        ' "device": null, "version": "2.14.1+cu130", "build_info": {"cuda_version": "13.0"},'
        f' "new_libraries": [{TORCH_LIBRARIES}]}}',
        *(
            line
            for step in TORCH_STEPS[1:]
            for line in (
                f'{{"step": "{step}", "status": "started"}}',
                f'{{"step": "{step}", "status": "ok", "seconds": 0.1, "detail": "", "device":'
                ' "cpu", "new_libraries": []}',
            )
        ),
        f'{{"step": "loaded_libraries", "status": "ok", "libraries": [{TORCH_LIBRARIES}]}}',
    ]
)
ORDER_LINE = (
    '{"step": "order", "status": "started", "order": ["torch", "tensorflow"], "detail": "",'
    ' "seconds": 7.9}'
)
SMOKE_STDERR = "torch: a warning of its own\n"
ORDER_STDERR = "dso_loader.cc:144] Could not load dynamic library 'libnvinfer.so.10'\n"


def smoke_child(stdout: str, returncode: int | None = 0, timed_out: bool = False) -> Any:
    stderr = f"{SMOKE_STDERR}{ORDER_MARK}\n{ORDER_STDERR}"
    ending = ChildEnding(returncode, timed_out, 20.0, stderr, windows=False)
    return results_from_child(TORCH_STEPS, stdout, ending, 60.0, "torch")


def test_an_order_answered_after_the_smoke_test_is_the_order_childs_answer() -> None:
    """The same lines after the smoke part give the run a separate order child gives."""
    result, tail = smoke_child(f"{SMOKE_LINES}\n{ORDER_LINE}\n{RECORDED}\n")
    answered = run_from_tail(tail)
    assert answered is not None
    separate = run_from_output(("torch", "tensorflow"), RECORDED, ORDER_STDERR, 0, False, 12.1)
    assert answered == separate
    # The smoke result is the smoke lines' alone, as if the child had exited after them.
    alone = ChildEnding(0, False, 7.9, SMOKE_STDERR, windows=False)
    assert result == result_from_output(TORCH_STEPS, SMOKE_LINES, alone, 60.0, "torch")
    assert result.status == "ok"
    assert "libnvinfer" not in result.stderr  # TensorFlow's lines are the order's, not torch's


def test_a_crash_after_the_smoke_test_is_the_orders_not_the_smoke_tests() -> None:
    stdout = f"{SMOKE_LINES}\n{ORDER_LINE}\n" + "\n".join(RECORDED.splitlines()[:3])
    result, tail = smoke_child(stdout, returncode=-11)
    assert (result.status, result.signal, result.returncode) == ("ok", None, 0)
    answered = run_from_tail(tail)
    assert answered is not None
    assert (answered.status, answered.signal) == ("crashed", "SIGSEGV")
    assert [s.status for s in answered.imports] == ["ok", "crashed-here"]


def test_no_answer_when_the_timeout_cut_the_order_short_or_the_child_declined() -> None:
    """Then the order gets a child (and a timeout) of its own."""
    stdout = f"{SMOKE_LINES}\n{ORDER_LINE}\n" + "\n".join(RECORDED.splitlines()[:3])
    result, tail = smoke_child(stdout, returncode=None, timed_out=True)
    assert result.status == "ok"
    assert tail is not None and tail.timed_out
    assert run_from_tail(tail) is None
    declined = ORDER_LINE.replace('"started"', '"skipped"')
    result, tail = smoke_child(f"{SMOKE_LINES}\n{declined}\n")
    assert result.status == "ok"
    assert tail is not None and run_from_tail(tail) is None


def test_a_smoke_child_that_died_in_its_smoke_test_answers_no_order() -> None:
    stdout = "\n".join(SMOKE_LINES.splitlines()[:3])
    result, tail = smoke_child(stdout, returncode=-11)
    assert (result.status, result.signal) == ("crashed", "SIGSEGV")
    assert tail is None


def test_first_orders_name_an_order_per_framework() -> None:
    assert first_orders(["torch", "tensorflow"]) == {
        "tensorflow": ("tensorflow", "torch"),
        "torch": ("torch", "tensorflow"),
    }
    three = first_orders(["jax", "torch", "tensorflow"])
    assert [order[0] for order in three.values()] == ["tensorflow", "torch", "jax"]
    assert first_orders(["jax"]) == {}


def test_the_childs_words_cover_every_cuda_library_the_parent_compares() -> None:
    """A smoke child answers an order only when its steps mapped no file with these words:
    a library the parent compares (CUDA_STACK) that they missed could make a wrong answer."""
    words = child_namespace()["CUDA_WORDS"]
    assert all(any(w in prefix.lower() for w in words) for prefix in CUDA_STACK)
    assert all(any(w in name for w in words) for name in _WINDOWS_STACK)
    assert child_namespace()["ORDER_MARK"] == ORDER_MARK


@pytest.mark.parametrize(
    ("part", "ran", "mapped", "declines"),
    [
        ("smoke_torch", ["import", "conv2d"], {"import": [CUDNN_COPY], "conv2d": []}, False),
        ("smoke_torch", ["import", "conv2d"],
         {"import": [], "conv2d": [f"{SITE}/nvidia/cudnn/lib/libcudnn_cnn.so.9"]}, True),
        ("smoke_torch", ["import", "conv2d"], {"import": [], "conv2d": None}, True),
        ("smoke_torch", ["list_gpus"], {"list_gpus": []}, True),  # no import step ran
        # JAX's backends start in list_gpus, as in an order child's import:jax: that is its
        # import's part; a CUDA library its conv maps is not.
        ("smoke_jax", ["import", "list_gpus", "conv2d"],
         {"import": [], "list_gpus": [CUDNN_COPY], "conv2d": []}, False),
        ("smoke_jax", ["import", "list_gpus", "conv2d"],
         {"import": [], "list_gpus": [], "conv2d": [CUDNN_COPY]}, True),
        ("smoke_jax", ["import", "conv2d"], {"import": [], "conv2d": []}, True),
    ],
)  # fmt: skip
def test_a_smoke_child_declines_an_order_its_steps_could_change(
    part: str, ran: list[str], mapped: dict[str, Any], declines: bool
) -> None:
    namespace: dict[str, Any] = {"__name__": "not_main"}
    exec(compile(smoke_source(part), "<child>", "exec"), namespace)
    blocker = namespace["order_blocker"]({"module": object(), "mapped": mapped}, ran)
    assert (blocker is not None) == declines, blocker


# --- the rules ------------------------------------------------------------------------------

CUDNN = f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9"
OTHER_CUDNN = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0"


def order_run(order: tuple[str, ...], copies: list[MappedCopy], **cuda: str) -> OrderRun:
    imports = tuple(ImportStep(n, "ok", 1.0, "", cuda.get(n)) for n in order)
    return OrderRun(order, "ok", imports, tuple(copies), (), "", None, 1.0, "")


def test_cuda_13_torch_getting_the_cuda_12_cudnn_is_a_conflict() -> None:
    runs = (order_run(("torch",), [MappedCopy("libcudnn.so.9", CUDNN, "import:torch")],
                      torch="13"),)  # fmt: skip
    owners = (CopyOwner(CUDNN, "nvidia-cudnn-cu12 9.28.0.42", "12", "RECORD (size)"),)
    findings = loaded_copy_findings(ImportOrderFacts(("torch",), runs, owners, 1.0))
    assert len(findings) == 1
    finding = findings[0]
    assert finding.code == "framework-conflict"
    assert finding.message.startswith("PyTorch (built for CUDA 13) gets the CUDA 12 build of")
    assert finding.data["library"] == "libcudnn.so.9"
    assert finding.data["frameworks"] == ["torch"]
    assert "nvidia-cudnn-cu12 9.28.0.42, CUDA 12" in finding.evidence[0]


def test_matching_copy_in_every_order_is_no_finding() -> None:
    owners = (CopyOwner(CUDNN, "nvidia-cudnn-cu12 9.28.0.42", "12", "RECORD"),)
    runs = tuple(
        order_run(order, [MappedCopy("libcudnn.so.9", CUDNN, f"import:{order[0]}")],
                  jax="12", torch="12")
        for order in (("torch", "jax"), ("jax", "torch"))
    )  # fmt: skip
    assert loaded_copy_findings(ImportOrderFacts(("torch", "jax"), runs, owners, 1.0)) == []


def test_another_majors_soname_is_not_judged() -> None:
    """torch's __init__ preloads nvidia/cuda_runtime/lib/libcudart.so.12 when it is there; a
    CUDA 13 torch asks for libcudart.so.13, so that copy is not one it gets."""
    cudart12 = f"{SITE}/nvidia/cuda_runtime/lib/libcudart.so.12"
    runs = (order_run(("torch",), [MappedCopy("libcudart.so.12", cudart12, "import:torch")],
                      torch="13"),)  # fmt: skip
    owners = (CopyOwner(cudart12, "nvidia-cuda-runtime-cu12 12.9.79", "12", "RECORD"),)
    assert loaded_copy_findings(ImportOrderFacts(("torch",), runs, owners, 1.0)) == []


def test_copy_depending_on_the_import_order() -> None:
    runs = (
        order_run(("torch", "jax"), [MappedCopy("libcudnn.so.9", CUDNN, "import:torch")],
                  torch="12", jax="12"),
        order_run(("jax", "torch"), [MappedCopy("libcudnn.so.9", OTHER_CUDNN, "import:jax")],
                  torch="12", jax="12"),
    )  # fmt: skip
    findings = loaded_copy_findings(ImportOrderFacts(("torch", "jax"), runs, (), 1.0))
    assert [f.code for f in findings] == ["framework-conflict"]
    assert findings[0].data["order_dependent"] is True
    assert findings[0].data["frameworks"] == ["jax", "torch"]
    assert findings[0].data["copies"]["torch -> jax"] == {"torch": CUDNN, "jax": CUDNN}
    assert findings[0].data["copies"]["jax -> torch"]["torch"] == OTHER_CUDNN


def test_a_crashed_order_is_a_finding_naming_it() -> None:
    run = run_from_output(("torch", "tensorflow"), "\n".join(RECORDED.splitlines()[:3]),
                          "Segmentation fault", -11, False, 3.0)  # fmt: skip
    findings = loaded_copy_findings(ImportOrderFacts(("tensorflow", "torch"), (run,), (), 3.0))
    crashed = [f for f in findings if f.code == "smoke-test-crashed"]
    assert len(crashed) == 1
    assert crashed[0].message == (
        "Importing PyTorch then TensorFlow in one process crashed (SIGSEGV) importing TensorFlow."
    )
    assert crashed[0].data["order"] == ["torch", "tensorflow"]


# --- who wrote a file -----------------------------------------------------------------------


def wheel_site(tmp_path: Path, content: bytes, claims: list[tuple[str, str, int]]) -> str:
    lib = tmp_path / "nvidia" / "cudnn" / "lib"
    lib.mkdir(parents=True)
    (lib / "libcudnn.so.9").write_bytes(content)
    for dist, digest, size in claims:
        info = tmp_path / f"{dist}.dist-info"
        info.mkdir()
        (info / "RECORD").write_text(f"nvidia/cudnn/lib/libcudnn.so.9,sha256={digest},{size}\n")
    return str(lib / "libcudnn.so.9")


def test_owner_by_size(tmp_path: Path) -> None:
    path = wheel_site(tmp_path, b"12345", [("nvidia_cudnn_cu12-9.28.0.42", "x", 5),
                                           ("nvidia_cudnn_cu13-9.24.0.43", "y", 7)])  # fmt: skip
    owner = copy_owner(path)
    assert (owner.distribution, owner.cuda, owner.via) == (
        "nvidia-cudnn-cu12 9.28.0.42", "12", "RECORD (size)")  # fmt: skip


def test_owner_by_hash_when_sizes_tie(tmp_path: Path) -> None:
    # sha256(b"12345"), urlsafe base64 without padding, as a RECORD writes it
    digest = "WZRHGrsBESr8wYFZ9sx0tPURuZgG2lmzyvWpwXPKz8U"
    path = wheel_site(tmp_path, b"12345", [("nvidia_cudnn_cu12-9.28.0.42", "other", 5),
                                           ("nvidia_cudnn_cu13-9.24.0.43", digest, 5)])  # fmt: skip
    owner = copy_owner(path)
    assert (owner.distribution, owner.cuda, owner.via) == (
        "nvidia-cudnn-cu13 9.24.0.43", "13", "RECORD (sha256)")  # fmt: skip


def test_owners_of_many_files_read_each_record_once_and_answer_as_one_by_one(
    tmp_path: Path,
) -> None:
    path = wheel_site(tmp_path, b"12345", [("nvidia_cudnn_cu12-9.28.0.42", "x", 5),
                                           ("nvidia_cudnn_cu13-9.24.0.43", "y", 7)])  # fmt: skip
    cublas = tmp_path / "nvidia" / "cublas" / "lib" / "libcublas.so.12"
    cublas.parent.mkdir(parents=True)
    cublas.write_bytes(b"1")
    info = tmp_path / "nvidia_cublas_cu12-12.9.3.13.dist-info"
    info.mkdir()
    (info / "RECORD").write_text("nvidia/cublas/lib/libcublas.so.12,sha256=z,1\n")
    stray = str(tmp_path / "nvidia" / "cufft" / "lib" / "libcufft.so.11")  # in no RECORD
    paths = [path, str(cublas), stray, "/usr/local/cuda-12.4/lib64/libcudart.so.12"]
    owners = copy_owners(paths)
    assert [(o.distribution, o.via) for o in owners] == [
        ("nvidia-cudnn-cu12 9.28.0.42", "RECORD (size)"),
        ("nvidia-cublas-cu12 12.9.3.13", "RECORD"),
        (None, "unknown: in no RECORD"),
        (None, "path"),
    ]
    assert owners == tuple(copy_owner(p) for p in paths)


def test_owner_from_the_path_outside_wheels() -> None:
    owner = copy_owner("/usr/local/cuda-12.4/lib64/libcudart.so.12")
    assert (owner.distribution, owner.cuda, owner.via) == (None, "12", "path")


# --- fake frameworks in a real venv: crash and hang per framework ---------------------------


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("framework-smoke")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    return python, Path(purelib)


@pytest.fixture
def install_fake(venv: tuple[Path, Path]) -> Iterator[Callable[[str, str], str]]:
    made: list[Path] = []

    def install(name: str, source: str) -> str:
        package = venv[1] / name
        package.mkdir()
        (package / "__init__.py").write_text(textwrap.dedent(source))
        made.append(package)
        return str(venv[0])

    yield install
    for package in made:
        for path in sorted(package.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        package.rmdir()


SEGFAULT = "import ctypes\nctypes.string_at(0)\n"
HANG = "import time\ntime.sleep(600)\n"


@pytest.mark.skipif(os.name != "posix", reason="signals")
@pytest.mark.parametrize(("framework", "title"), [("torch", "PyTorch"), ("jax", "JAX")])
def test_segfault_on_import_per_framework(
    install_fake: Callable[[str, str], str], framework: str, title: str
) -> None:
    python = install_fake(framework, SEGFAULT)
    result = run_smoke_test(python, 30, framework=framework)
    assert (result.status, result.signal, result.framework) == ("crashed", "SIGSEGV", framework)
    assert result.steps[0].status == "crashed-here"
    findings = smoke_findings(result, (), ())
    crashed = [f for f in findings if f.code == "smoke-test-crashed"]
    assert crashed[0].message.startswith(f"The {title} smoke test crashed: import crashed")
    assert crashed[0].data == {"framework": framework}


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_hang_on_import_times_out(install_fake: Callable[[str, str], str]) -> None:
    python = install_fake("torch", HANG)
    result = run_smoke_test(python, 3, framework="torch")
    assert result.status == "timeout"
    assert result.seconds == 3
    finding = next(f for f in smoke_findings(result, (), ()) if f.code == "smoke-test-timeout")
    assert finding.message == "The PyTorch smoke test hung: timed out after 3 s during import."


def test_not_installed_is_not_run(venv: tuple[Path, Path]) -> None:
    result = run_smoke_test(str(venv[0]), 30, framework="jax")
    assert result.status == "not-run"
    assert "JAX is not installed" in result.steps[0].detail


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_import_order_probe_with_a_crashing_second_import(
    install_fake: Callable[[str, str], str],
) -> None:
    install_fake("torch", "VERSION = 1\n")
    python = install_fake("jax", SEGFAULT)
    facts = probe_import_orders(["torch", "jax"], python, timeout=30)
    by_order = {run.order: run for run in facts.runs}
    assert by_order[("torch", "jax")].status == "crashed"
    assert [s.status for s in by_order[("torch", "jax")].imports] == ["ok", "crashed-here"]
    assert by_order[("jax", "torch")].imports[0].status == "crashed-here"
    assert by_order[("jax", "torch")].imports[1].status == "not-reached"


def fake_cuda_library(venv: tuple[Path, Path]) -> str:
    """A loadable file at a CUDA-stack library's path in the venv (a copy of the C library's
    zlib: the loader maps it like any other), so that what an import maps is not empty."""
    target = venv[1] / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12"
    if not target.exists():
        target.parent.mkdir(parents=True)
        source = next(p for p in ("/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/libz.so.1",
                                  "/lib64/libz.so.1", "/usr/lib64/libz.so.1") if Path(p).exists())  # fmt: skip
        target.write_bytes(Path(source).read_bytes())
    return str(target)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/maps")
def test_a_real_smoke_child_answers_its_order_as_an_order_child_does(
    install_fake: Callable[[str, str], str], venv: tuple[Path, Path]
) -> None:
    library = fake_cuda_library(venv)
    install_fake("torch", "__version__ = '0.fake'\n")
    python = install_fake(
        "jax", f"import ctypes\n__version__ = '0.fake'\nctypes.CDLL({library!r})\n"
    )
    result, tail = run_smoke_and_order(python, 30, framework="torch", then=("jax",))
    assert result.status == "failed"  # the fake torch has no torch.cuda: its own verdict
    assert not any(library in p for p in result.loaded_libraries)  # jax came after the smoke
    answered = run_from_tail(tail)
    assert answered is not None
    separate = probe_import_orders(["torch", "jax"], python, timeout=30).runs[0]
    assert separate.order == answered.order == ("torch", "jax")

    def facts(run: OrderRun) -> Any:
        imports = [(s.framework, s.status, s.cuda) for s in run.imports]
        return run.status, imports, run.copies, run.tf_loader, run.signal

    assert facts(answered) == facts(separate)
    assert [(c.library, c.after) for c in answered.copies] == [("libcudart.so.12", "import:jax")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/maps")
def test_a_real_smoke_child_declines_when_its_steps_mapped_a_cuda_library(
    install_fake: Callable[[str, str], str], venv: tuple[Path, Path]
) -> None:
    """torch.cuda.is_available() here maps a CUDA library, as a GPU's first op would: a later
    import in this process could get that copy where an order child's would not."""
    library = fake_cuda_library(venv)
    torch = (
        "import ctypes\n__version__ = '0.fake'\n"
        f"class cuda:\n    is_available = staticmethod(lambda: bool(ctypes.CDLL({library!r})) and False)\n"
    )
    install_fake("torch", torch)
    python = install_fake("jax", "__version__ = '0.fake'\n")
    result, tail = run_smoke_and_order(python, 30, framework="torch", then=("jax",))
    assert result.steps[1].status == "ok"  # list_gpus ran, and mapped the library
    assert tail is not None and "libcudart.so.12" in tail.stdout
    assert run_from_tail(tail) is None


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_a_crash_in_the_order_part_leaves_the_smoke_result_whole(
    install_fake: Callable[[str, str], str],
) -> None:
    install_fake("torch", "__version__ = '0.fake'\n")
    python = install_fake("jax", SEGFAULT)
    result, tail = run_smoke_and_order(python, 30, framework="torch", then=("jax",))
    assert (result.status, result.signal, result.returncode) == ("failed", None, 0)
    answered = run_from_tail(tail)
    assert answered is not None and (answered.status, answered.signal) == ("crashed", "SIGSEGV")


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_a_hang_in_the_order_part_is_bounded_and_gets_a_child_of_its_own(
    install_fake: Callable[[str, str], str],
) -> None:
    install_fake("torch", "__version__ = '0.fake'\n")
    python = install_fake("jax", HANG)
    result, tail = run_smoke_and_order(python, 3, framework="torch", then=("jax",))
    assert result.status == "failed" and result.returncode == 0
    assert tail is not None and tail.timed_out
    assert run_from_tail(tail) is None
    # The doctor then runs the order alone, under a timeout of its own.
    facts = probe_import_orders(["torch", "jax"], python, timeout=3, answered=[])
    assert [run.status for run in facts.runs] == ["timeout", "timeout"]


def test_answered_orders_get_no_child(install_fake: Callable[[str, str], str]) -> None:
    install_fake("torch", "__version__ = '0.fake'\n")
    python = install_fake("jax", "__version__ = '0.fake'\n")
    answered = order_run(("torch", "jax"), [])  # a run no child of these fakes would give
    facts = probe_import_orders(["torch", "jax"], python, timeout=30, answered=[answered])
    assert facts.runs[0] is answered
    assert facts.runs[1].order == ("jax", "torch") and facts.runs[1].status == "ok"


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_a_failure_while_children_run_in_threads_kills_them_instead_of_waiting() -> None:
    """Leaving the thread pool waits for its threads, and they wait on their children: an
    interrupt (or an error) in the caller must end those first, or envcheck hangs till the
    timeout."""
    ended: list[StreamedChild] = []

    def work(item: str) -> None:
        if item == "hang":
            ended.append(run_streaming_child([sys.executable, "-c", HANG], timeout=600))
            return
        deadline = time.monotonic() + 60
        while not isolation._LIVE and time.monotonic() < deadline:  # the hanging child started
            time.sleep(0.01)
        raise KeyboardInterrupt  # as a Ctrl-C in the caller would

    with pytest.raises(KeyboardInterrupt):
        run_concurrently(work, ["interrupt", "hang"], 2, "test")
    assert len(ended) == 1
    assert (ended[0].returncode, ended[0].timed_out) == (-signal.SIGKILL, False)


# --- real installs --------------------------------------------------------------------------

# The opt-in tier's venvs (tests/test_real_installs.py: ENVCHECK_REAL_INSTALLS=1, built once
# from the package index under ENVCHECK_REAL_INSTALLS_DIR).
real = pytest.mark.skipif(not REAL_INSTALLS, reason="opt-in: set ENVCHECK_REAL_INSTALLS=1")


@real
def test_real_torch_smoke_on_the_cpu() -> None:
    result = run_smoke_test(str(environment("torch") / "bin/python"), 300, framework="torch")
    assert result.status == "ok", result.describe()
    assert result.build_info["cuda_version"] == "13.0"
    assert any(p.endswith("nvidia/cu13/lib/libcudart.so.13") for p in result.loaded_libraries)


@real
def test_real_tf_torch_smoke_children_answer_the_orders_as_order_children_do() -> None:
    python = str(environment("tf-torch") / "bin/python")
    separate = probe_import_orders(["tensorflow", "torch"], python, 300)
    for run in separate.runs:
        result, tail = run_smoke_and_order(python, 300, framework=run.order[0],
                                           then=run.order[1:])  # fmt: skip
        assert result.status == "ok", result.describe()
        answered = run_from_tail(tail)
        assert answered is not None
        assert (answered.order, answered.status) == (run.order, run.status)
        # /proc/self/maps lists files by address, which differs between processes.
        assert set(answered.copies) == set(run.copies)
        assert answered.tf_loader == run.tf_loader
        assert [(s.framework, s.cuda) for s in answered.imports] == [
            (s.framework, s.cuda) for s in run.imports
        ]


@real
def test_real_tf_torch_orders_give_torch_the_cuda_12_cudnn() -> None:
    facts = probe_import_orders(
        ["tensorflow", "torch"], str(environment("tf-torch") / "bin/python"), 300
    )
    assert [run.status for run in facts.runs] == ["ok", "ok"]
    for run in facts.runs:
        for framework in run.order:
            path = run.copy_for("libcudnn.so.9", framework)
            assert path is not None and path.endswith("nvidia/cudnn/lib/libcudnn.so.9")
            owner = facts.owner(path)
            assert owner is not None and owner.cuda == "12"
    findings = loaded_copy_findings(facts)
    cudnn = [f for f in findings if f.data.get("library") == "libcudnn.so.9"]
    assert cudnn and "torch" in cudnn[0].data["frameworks"]
