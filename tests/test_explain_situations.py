"""explain reads known situations, not only messages (issue 22): a line whose cause depends on
where it ran or what else the log shows (matrix/log_signatures_situations.toml).

CUDA used in a forked worker is the program's pitfall, never a missing driver; XLA's
out-of-memory gets the allocator advice of the framework the log shows; ptxas older than the
PTX, nvidia-* wheels and NCCL on platforms without them, and CPU-only builds a resolver chose
are named as such. The rows' two fields, `replaces` and `only_on`, are checked at load.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from envcheck.diagnose.log_diagnosis import merge_findings, reason_over_log
from envcheck.explain.explanation import Explanation, explain_lines, python_tag_fits
from envcheck.explain.matcher import clean_line
from envcheck.findings import Finding, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.matrix.rows import MatrixDataError
from envcheck.matrix.signatures import FILES, load_signatures

MATRIX = load_matrix(bundled_matrix_dir())
SITUATIONS = FILES[2]


def explain(lines: list[str]) -> Explanation:
    return explain_lines(lines, MATRIX.signatures, MATRIX, MATRIX.known_bugs)


def codes(explanation: Explanation) -> set[str]:
    return {f.code for f in explanation.findings}


def only(explanation: Explanation, code: str) -> Finding:
    found = [f for f in explanation.findings if f.code == code]
    assert len(found) == 1, [(f.code, f.message) for f in explanation.findings]
    return found[0]


def no_errors(explanation: Explanation) -> None:
    errors = [f.code for f in explanation.findings if f.severity is Severity.ERROR]
    assert not errors, errors


# --- no device under WSL 2 ----------------------------------------------------------------------

# NVIDIA/cuml#6218 (the traceback's last lines, the project under Windows' C: drive)
WSL_NO_DEVICE = [
    '  File "/mnt/c/Users/Hongb/Documents/Git/hongbomiao.com/machine-learning/hm-cuml/.venv/lib/'
    'python3.12/site-packages/numba_cuda/numba/cuda/cudadrv/driver.py", line 258, in '
    "ensure_initialized",
    '    raise CudaSupportError(f"Error at driver init: {description}")',
    "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in "
    "CUDA_ERROR_NO_DEVICE (100)",
]


def test_no_device_under_wsl_is_the_wrong_libcuda_and_elsewhere_no_gpu() -> None:
    finding = only(explain(WSL_NO_DEVICE), "library-shadowed")
    assert "/usr/lib/wsl/lib" in finding.fix
    assert "no-gpu" in codes(explain(WSL_NO_DEVICE[2:]))


# --- a device node missing: on the host, or in a cluster job's container -------------------------

# NVIDIA/pyxis#47 (the srun command and the first line of its output)
PYXIS_JOB = (
    "\u279c  ~ srun -p gpu --container-name=cuda-11.2.2 --container-image=cuda-11.2.2 --pty "
    "--gres=gpu:A100:1 ls -l /dev/nvidia{0..7}  "
)
NO_NODE = "/usr/bin/ls: cannot access '/dev/nvidia0': No such file or directory"


def test_a_missing_device_node_is_the_driver_on_a_host_and_the_handover_in_a_job_container() -> (
    None
):
    assert "driver-missing" in codes(explain([NO_NODE]))
    in_container = explain([PYXIS_JOB, NO_NODE])
    assert "container-gpu-unavailable" in codes(in_container)
    assert "driver-missing" not in codes(in_container)


# --- CUDA in a forked worker ------------------------------------------------------------------

XLA_CONTEXT = (
    "2022-09-27 13:45:15.709933: F tensorflow/compiler/xla/stream_executor/cuda/"
    "cuda_driver.cc:148] Failed setting context: CUDA_ERROR_NOT_INITIALIZED: initialization error"
)
NOT_INITIALIZED = "RuntimeError: cuInit returned CUDA_ERROR_NOT_INITIALIZED"
WORKER = [
    "Traceback (most recent call last):",
    '  File "/env/lib/python3.10/site-packages/torch/utils/data/_utils/worker.py", line 308, '
    "in _worker_loop",
    "    data = fetcher.fetch(index)",
]


def test_a_forked_childs_lost_context_is_a_pitfall_not_a_missing_driver() -> None:
    explanation = explain([XLA_CONTEXT])
    assert codes(explanation) == {"usage-pitfall"}
    finding = only(explanation, "usage-pitfall")
    assert finding.severity is Severity.WARNING
    assert "spawn" in finding.fix and "driver" not in finding.fix.lower()


def test_not_initialized_alone_still_reads_as_the_driver() -> None:
    # Without a forked worker in the log the generic reading stands (only_on).
    explanation = explain([NOT_INITIALIZED])
    assert "driver-missing" in codes(explanation)
    assert "usage-pitfall" not in codes(explanation)


@pytest.mark.parametrize("worker_first", [True, False])
def test_not_initialized_in_a_forked_worker_is_a_pitfall_wherever_the_worker_shows(
    worker_first: bool,
) -> None:
    lines = [*WORKER, NOT_INITIALIZED] if worker_first else [NOT_INITIALIZED, *WORKER]
    explanation = explain(lines)
    assert codes(explanation) == {"usage-pitfall"}
    no_errors(explanation)
    assert "forked-worker" in explanation.facts.platforms


def test_dlibs_initialization_error_raised_from_a_pool_worker_is_a_pitfall() -> None:
    # davisking/dlib#617: a Pool's worker (forked) raised it; pool.py re-raises it in the parent.
    dlib = (
        "RuntimeError: Error while calling cudaGetDevice(&the_device_id) in file "
        "/home/u/src/dlib-19.4/dlib/dnn/gpu_data.cpp:178. code: 3, reason: initialization error"
    )
    pool = '  File "/usr/lib/python3.5/multiprocessing/pool.py", line 695, in next'
    assert codes(explain([dlib])) == {"driver-missing"}
    explanation = explain([pool, dlib])
    assert codes(explanation) == {"usage-pitfall"}
    no_errors(explanation)


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: CUDA error: initialization error",
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=50 error=3 : "
        "initialization error",
        "RuntimeError: cuda runtime error (3) : initialization error at /pytorch/aten/src/THC/"
        "THCGeneral.cpp:50",
        "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
        "multiprocessing, you must use the 'spawn' start method",
    ],
)
def test_pytorchs_initialization_errors_point_at_workers_not_the_driver(line: str) -> None:
    explanation = explain([line])
    assert codes(explanation) == {"usage-pitfall"}, [f.code for f in explanation.findings]
    no_errors(explanation)
    assert "spawn" in only(explanation, "usage-pitfall").fix


def test_jax_fork_warning_from_a_worker_is_a_pitfall_and_from_pty_harmless() -> None:
    warning = (
        ": RuntimeWarning: os.fork() was called. os.fork() is incompatible with multithreaded "
        "code, and JAX is multithreaded, so this will likely lead to a deadlock."
    )
    worker = explain(["/usr/lib/python3.12/multiprocessing/popen_fork.py:66" + warning])
    assert codes(worker) == {"usage-pitfall"}
    shell = explain(["/opt/conda/lib/python3.11/pty.py:89" + warning])
    assert shell.only_benign, [f.code for f in shell.findings]


# --- GPU memory: the framework's allocator ----------------------------------------------------

OOM = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 7406166528 bytes."


def test_xla_out_of_memory_in_a_jax_log_names_jaxs_preallocation_never_tensorflow() -> None:
    jax_log = ['  File "/env/lib/python3.11/site-packages/jax/_src/dispatch.py", line 1', OOM]
    finding = only(explain(jax_log), "gpu-out-of-memory")
    assert "XLA_PYTHON_CLIENT_PREALLOCATE" in finding.fix
    assert not re.search(r"tensorflow|\bTF\b", finding.fix, re.IGNORECASE), finding.fix


def test_xla_out_of_memory_in_a_tensorflow_log_names_tensorflows_allocator() -> None:
    tf_log = [
        '  File "/env/lib/python3.10/site-packages/tensorflow/python/eager/execute.py", line 52',
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: RESOURCE_EXHAUSTED: "
        "Out of memory while trying to allocate 1073741824 bytes.",
    ]
    finding = only(explain(tf_log), "gpu-out-of-memory")
    assert "TF_FORCE_GPU_ALLOW_GROWTH" in finding.fix
    assert "XLA_PYTHON_CLIENT_PREALLOCATE" not in finding.fix


def test_a_failed_convolution_autotuning_is_memory_first() -> None:
    finding = only(
        explain(
            ["RuntimeError: UNKNOWN: Failed to determine best cudnn convolution algorithm for:"]
        ),
        "gpu-out-of-memory",
    )
    assert "cuDNN" in finding.message


# --- The CUDA toolchain ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "told"),
    [
        (
            "ptxas /tmp/tempfile-x, line 5; fatal   : Unsupported .version 8.4; current version is"
            " '8.2'",
            "8.2",
        ),
        (
            "2021-05-20 10:09:06.617783: E external/org_tensorflow/tensorflow/stream_executor/gpu/"
            "asm_compiler.cc:93] You are using ptxas 8.x, but TF requires ptxas 9.x (and strongly "
            "prefers >= 9.2.88).  Compilation of XLA kernels below will likely fail.",
            "8.x",
        ),
        (
            "W external/xla/xla/stream_executor/gpu/asm_compiler.cc:231] Falling back to the CUDA "
            "driver for PTX compilation; ptxas does not support CC 9.0",
            "9.0",
        ),
        (
            "E0103 16:41:38.489316 2217885 ptx_compiler_helpers.cc:87] *** WARNING *** Invoking "
            "ptxas with version 12.1.66, which corresponds to a CUDA version <=12.6.2. CUDA version",
            "12.1.66",
        ),
    ],
)
def test_a_ptxas_older_than_the_ptx_or_the_gpu_is_the_toolchain(line: str, told: str) -> None:
    finding = only(explain([line]), "xla-toolchain-missing")
    assert told in finding.message
    assert "PATH" in finding.fix


# --- Platforms without NVIDIA's wheels or NCCL ------------------------------------------------

PLACEHOLDER = (
    "ERROR: Could not find a version that satisfies the requirement nvidia-cudnn-cu12==9.1.0.70 "
    "(from versions: 0.0.1.dev5)"
)


def test_nvidia_wheels_offered_only_as_the_placeholder_are_the_platform_not_the_python() -> None:
    explanation = explain([PLACEHOLDER])
    assert "platform-unsupported" in codes(explanation)
    assert "python-unsupported" not in codes(explanation)


def test_on_macos_the_placeholder_fix_installs_no_cuda() -> None:
    mac = ["/Users/ann/venv/bin/pip install -r requirements.txt", PLACEHOLDER]
    explanation = explain(mac)
    assert "macos" in explanation.facts.platforms
    fix = only(explanation, "platform-unsupported").fix
    assert "macOS has no CUDA" in fix
    assert not re.search(r"pip install nvidia|cu12 wheel index|--index-url", fix), fix


def test_a_pure_python_tag_wheel_refused_is_its_platform_and_a_cp_wheel_still_the_python() -> None:
    linux_only = explain(
        [
            "ERROR: nvidia_nccl_cu12-2.21.5-py3-none-manylinux2014_x86_64.whl is not a supported "
            "wheel on this platform."
        ]
    )
    assert codes(linux_only) == {"platform-unsupported"}
    cp35 = explain(
        ["tensorflow-1.2.0-cp35-cp35m-linux_x86_64.whl is not a supported wheel on this platform."]
    )
    assert "python-unsupported" in codes(cp35)
    assert "platform-unsupported" not in codes(cp35)


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: Distributed package doesn't have NCCL built in",
        'raise RuntimeError("Distributed package doesn\'t have NCCL " "built in")',
    ],
)
def test_pytorch_without_nccl_is_the_platform_with_gloo_as_the_answer(line: str) -> None:
    finding = only(explain([line]), "platform-unsupported")
    assert "gloo" in finding.fix and "WSL2" in finding.fix


def test_conda_without_nccl_is_the_platform() -> None:
    assert "platform-unsupported" in codes(explain(["ResolvePackageNotFound: - nccl=2.12.12.1"]))


# --- CPU-only builds a resolver chose ----------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "pytorch                   1.4.0               py3.7_cpu_0  [cpuonly]  pytorch",
        "  pytorch-nightly    pytorch/linux-64::pytorch-nightly-1.2.0.dev20190805+cpu-py3.7_cpu_0",
        "  pytorch            conda-forge/linux-64::pytorch-2.1.0-cpu_generic_py311h5b6d6f1_0",
        "  cpuonly            pytorch/noarch::cpuonly-2.0-0",
        "    jaxlib-0.4.27              |cpu_py312h17e8b90_0        51.3 MB  conda-forge",
        "['AzureExecutionProvider', 'CPUExecutionProvider']",
    ],
)
def test_a_cpu_only_build_the_resolver_chose_is_named(line: str) -> None:
    assert "framework-cpu-only" in codes(explain([line]))


@pytest.mark.parametrize(
    "line",
    [
        "  pytorch            conda-forge/linux-64::pytorch-2.1.0-cuda118_py311h5b6d6f1_300",
        "pytorch                   2.1.0           py3.11_cuda12.1_cudnn8.9.2_0    pytorch",
        "['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider']",
        "['CoreMLExecutionProvider', 'AzureExecutionProvider', 'CPUExecutionProvider']",
    ],
)
def test_a_cuda_build_or_a_gpu_provider_list_is_not_read_as_cpu_only(line: str) -> None:
    assert "framework-cpu-only" not in codes(explain([line]))


# --- The two fields are checked at load ---------------------------------------------------------


def _matrix_copy(tmp_path: Path) -> Path:
    for name in FILES:
        shutil.copy(MATRIX.directory / name, tmp_path / name)
    return tmp_path


@pytest.mark.parametrize(
    ("old", "new", "complaint"),
    [
        (
            'replaces = ["python-unsupported"]\nsource = ["nvidia-wheels"]',
            'replaces = ["platform-unsupported"]\nsource = ["nvidia-wheels"]',
            "own code",
        ),
        (
            'only_on = "forked-worker"\nmessage',
            'only_on = "threads"\nmessage',
            "'threads' is not one of",
        ),
        ('replaces = ["driver-missing"]', 'replaces = ["no-such-code"]', "unknown finding code"),
    ],
)
def test_bad_replaces_or_only_on_is_refused_at_load(
    tmp_path: Path, old: str, new: str, complaint: str
) -> None:
    directory = _matrix_copy(tmp_path)
    path = directory / SITUATIONS
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(MatrixDataError, match=re.escape(complaint)):
        load_signatures(directory)


def test_the_smoke_test_is_no_forked_worker_so_only_on_rows_stay_out_of_it() -> None:
    # A smoke test's stderr that names a DataLoader worker is still the smoke child itself:
    # its CUDA_ERROR_NOT_INITIALIZED keeps the driver reading.
    from envcheck.diagnose.smoke_rules import smoke_findings  # noqa: PLC0415
    from tests.test_smoke_rules import IMPORT_AND_LIST, recorded  # noqa: PLC0415

    result = recorded(IMPORT_AND_LIST, stderr="\n".join([*WORKER, NOT_INITIALIZED]), returncode=1)
    found = {f.code for f in smoke_findings(result, MATRIX.signatures, ())}
    assert "usage-pitfall" not in found
    assert "driver-missing" in found


# --- A refused wheel whose Python tag fits the log's Python ----------------------------------

REFUSED = "{wheel} is not a supported wheel on this platform."
PIP_PATH = (
    '  File "/usr/local/lib/python{version}/dist-packages/pip/req.py", line 167, in from_line'
)


@pytest.mark.parametrize(
    ("tag", "python", "fits"),
    [
        ("cp27", "2.7", True),
        ("cp35", "2.7", False),
        ("cp310", "3.10", True),
        ("cp310", "3.1", False),
        ("cp31", "3.10", False),
        ("py3", "3.12", True),
        ("py2.py3", "3.8", True),
        ("py2", "3.8", False),
        ("cp36.cp37", "3.7", True),
        ("abi3", "3.7", False),
        ("", "3.7", False),
    ],
)
def test_a_wheels_python_tag_fits_a_python(tag: str, python: str, fits: bool) -> None:
    assert python_tag_fits(tag, python) is fits


def test_a_refused_wheel_whose_tag_fits_the_logs_python_is_the_platforms() -> None:
    """tensorflow/tensorflow#33: a cp27 wheel refused by pip running on Python 2.7 (its paths
    say so) on 32-bit Ubuntu: the platform tag, not the Python one."""
    wheel = "tensorflow-0.5.0-cp27-none-linux_x86_64.whl"
    explanation = explain([REFUSED.format(wheel=wheel), PIP_PATH.format(version="2.7")])
    finding = only(explanation, "platform-unsupported")
    assert "python-unsupported" not in codes(explanation)
    assert "fits the log's Python 2.7" in finding.message
    assert "linux_x86_64" in finding.message
    assert finding.lines == (1, 2)  # the refusal and the line that showed the Python
    assert PIP_PATH.format(version="2.7").strip() in " ".join(finding.evidence)


@pytest.mark.parametrize(
    "shown",
    [
        [PIP_PATH.format(version="2.7")],  # cp35 on Python 2.7: the Python tag is the cause
        [],  # no Python in the log: the usual reading
        ["Python 3.6.8 (default, Nov 16 2020)"],
    ],
)
def test_a_refused_wheel_whose_tag_does_not_fit_or_is_alone_is_the_pythons(
    shown: list[str],
) -> None:
    wheel = "tensorflow-1.2.0-cp35-cp35m-win_amd64.whl"
    explanation = explain([REFUSED.format(wheel=wheel), *shown])
    finding = only(explanation, "python-unsupported")
    assert "platform-unsupported" not in codes(explanation)
    assert "most often the Python version" in finding.message


def test_python_2_is_a_fact_of_the_log() -> None:
    explanation = explain(["Python 2.7.18 (default, Jul  1 2022, 10:30:50)"])
    assert explanation.facts.python == "2.7"


@pytest.mark.parametrize(
    ("edits", "complaint"),
    [
        (
            [
                (
                    'if_python_fits]\ncode = "platform-unsupported"',
                    'if_python_fits]\ncode = "no-code"',
                )
            ],
            "unknown finding code",
        ),
        (
            [("fits the log's Python {log_python}", "fits {nothing}")],
            "{nothing} is not a named group",
        ),
        (
            # A row whose pattern has no python group cannot be read by the log's Python.
            [
                ("(?P<python>[\\w.]+)-(?P<abi>", "(?P<py>[\\w.]+)-(?P<abi>"),
                ("(Python {python}, ABI", "(Python {py}, ABI"),
                ("its Python tag {python} fits", "its Python tag {py} fits"),
            ],
            "needs a group named python",
        ),
    ],
)
def test_bad_if_python_fits_is_refused_at_load(
    tmp_path: Path, edits: list[tuple[str, str]], complaint: str
) -> None:
    directory = _matrix_copy(tmp_path)
    path = directory / FILES[0]
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MatrixDataError, match=re.escape(complaint)):
        load_signatures(directory)


# --- A Keras module of another release --------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "installed"),
    [("keras.src.legacy", "Keras 3"), ("keras.src", "2.13"), ("keras.engine", "2.12")],
)
def test_a_keras_module_of_another_release_is_a_framework_conflict(
    module: str, installed: str
) -> None:
    explanation = explain([f"ModuleNotFoundError: No module named '{module}'"])
    finding = only(explanation, "framework-conflict")
    assert module in finding.message and installed in finding.message
    assert "TF_USE_LEGACY_KERAS" in finding.fix


@pytest.mark.parametrize(
    "line",
    [
        "ModuleNotFoundError: No module named 'keras'",  # no Keras at all: another cause
        "ModuleNotFoundError: No module named 'keras_cv'",
        "ModuleNotFoundError: No module named 'tf_keras.src'",
    ],
)
def test_other_missing_modules_are_no_keras_release_conflict(line: str) -> None:
    assert "framework-conflict" not in codes(explain([line]))


# --- Rows learned from the held-out sets 3 and 6: where they stop -------------------------------


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # a driver API symbol (cu + capital) missing from libcuda: the driver is older
        ("t-rex: symbol lookup error: t-rex: undefined symbol: cuCtxCreate_v3", "driver-too-old"),
        # exit status 128 + SIGILL, as runners and Docker print it
        (
            "Process finished with exit code 132 (interrupted by signal 4: SIGILL)",
            "platform-unsupported",
        ),
        ("my-trainer exited with code 132", "platform-unsupported"),
    ],
)
def test_learned_rows_read_these_lines(line: str, code: str) -> None:
    assert code in codes(explain([line]))


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # the runtime's and the libraries' symbols are not the driver's
        (
            "ImportError: libtorch_cuda.so: undefined symbol: cudaGraphInstantiateWithFlags",
            "driver-too-old",
        ),
        ("ImportError: libcudnn_ops.so.9: undefined symbol: cudnnGetLibConfig", "driver-too-old"),
        # a stub libcuda missing a symbol is the stub's row, not an old driver
        (
            "python: symbol lookup error: /usr/local/cuda/lib64/stubs/libcuda.so: undefined symbol: cuGetProcAddress_v2",
            "driver-too-old",
        ),
        # other exit codes, and 132 as part of a longer number
        ("container exited with code 1320", "platform-unsupported"),
        ("Process finished with exit code 137", "platform-unsupported"),
        # the runtime library is not the driver's libcuda
        ("Could not open libcudart.so.11.0", "driver-missing"),
        # a real ptxas 9.x warning is not TensorFlow's comparison bug
        (
            "*** WARNING *** You are using ptxas 9.1.108, which is older than 9.2.88",
            "benign-warning",
        ),
        # another type in the same CuPy message is not the NumPy row's case
        ("TypeError: Unsupported type <class 'torch.Tensor'>", "program-error"),
        # FFmpeg's driver floor is unknown where it could not load the encode library at all:
        # that load failure (a container without the video capability) is the cause
        (
            "[h264_nvenc @ 0x55d0] The minimum required Nvidia driver for nvenc is (unknown) or newer",
            "driver-too-old",
        ),
    ],
)
def test_learned_rows_leave_these_lines_alone(line: str, code: str) -> None:
    assert code not in codes(explain([line]))


def test_a_warning_split_at_the_threads_line_break_is_read_whole() -> None:
    # ma-gilles/recovar#64 prints the plugin warning on two lines.
    explanation = explain(
        [
            "RuntimeWarning: JAX plugin jax_cuda12_plugin version 0.9.2 is installed, ",
            "but it is not compatible with the installed jaxlib version 0.9.0.1",
        ]
    )
    finding = only(explanation, "framework-conflict")
    assert "0.9.2" in finding.message and "0.9.0.1" in finding.message


def test_conda_names_the_python_it_found() -> None:
    finding = only(explain(["Your python: python=3.7"]), "python-unsupported")
    assert "3.7" in finding.message


@pytest.mark.parametrize("answer", ["[]", "Num GPUs Available:  0"])
def test_tensorflow_without_a_gpu_on_macos_is_a_cpu_only_install(answer: str) -> None:
    # macOS has no CUDA: TensorFlow finds Apple's GPU only through tensorflow-metal, so an empty
    # answer there is the CPU-only framework alone, not a GPU gone (holdout-8's Apple Silicon
    # case, whose log did not show macOS, asked for exactly this). Elsewhere it stays no-gpu.
    call = ">>> tf.config.list_physical_devices('GPU')"
    mac = (
        "/Users/me/miniforge3/lib/python3.11/site-packages/tensorflow/__init__.py:1: UserWarning: x"
    )
    linux = "/home/me/venv/lib/python3.11/site-packages/tensorflow/__init__.py:1: UserWarning: x"
    on_mac = explain([mac, call, answer])
    finding = only(on_mac, "framework-cpu-only")
    assert "tensorflow-metal" in finding.fix
    assert "no-gpu" not in codes(on_mac)
    on_linux = explain([linux, call, answer])
    assert "no-gpu" in codes(on_linux) and "framework-cpu-only" not in codes(on_linux)


@pytest.mark.parametrize("answer", ["[]", "Num GPUs Available:  0"])
def test_tensorflow_without_a_gpu_on_native_windows_is_past_its_last_gpu_build(answer: str) -> None:
    # Native Windows: TensorFlow's GPU builds ended with 2.10, so a release the log cannot date
    # (or a later one) listing no GPU is that; a log that shows 2.10 or older (its version, or
    # the CUDA 11.0 runtime it asked for) stays no-gpu, and so does Linux.
    call = "C:\\Users\\me>python -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\""
    on_windows = explain([call, answer])
    finding = only(on_windows, "windows-native-gpu-unsupported")
    assert "WSL2" in finding.fix and "no-gpu" not in codes(on_windows)
    cudart = (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic "
        "library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    )
    for older in (["tensorflow==2.10.1", call, answer], [call, cudart, answer]):
        assert "windows-native-gpu-unsupported" not in codes(explain(older)), older
        assert "no-gpu" in codes(explain(older))
    linux = "/home/me/venv/lib/python3.11/site-packages/tensorflow/__init__.py:1: UserWarning: x"
    assert "windows-native-gpu-unsupported" not in codes(
        explain([linux, call.split(">")[1], answer])
    )


def test_jax_without_cuda_on_windows_or_macos_is_the_platform() -> None:
    # JAX's CUDA builds are Linux-only (the index's jax-cuda12-plugin wheels are manylinux
    # only; ZhengYinan-AIR/FISOR#3's maintainer: no CUDA JAX on Windows).
    windows = "(venv) PS C:\\Users\\me\\proj> python train.py"
    mac = "/Users/me/proj/.venv/lib/python3.11/site-packages/jax/__init__.py:1: UserWarning: x"
    cpu_only = (
        "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
        "installed. Falling back to cpu."
    )
    on_windows = explain([windows, cpu_only])
    assert "WSL2" in only(on_windows, "platform-unsupported").fix
    assert "framework-cpu-only" in codes(explain(["/home/me/proj$ python train.py", cpu_only]))
    pin = (
        "ERROR: Could not find a version that satisfies the requirement "
        "jaxlib==0.4.9+cuda12.cudnn88 (from versions: 0.4.13, 0.4.14, 0.4.16)"
    )
    assert "platform-unsupported" in codes(explain([windows, pin]))
    # The list pip offered starts at 0.4.13, jaxlib's first release with Windows wheels
    # (wheel_platforms.toml): the platform, not a missing index, even where no path says so.
    assert codes(explain([pin])) == {"platform-unsupported"}
    linux_list = pin.replace("(from versions: 0.4.13,", "(from versions: 0.4.6, 0.4.7, 0.4.13,")
    assert codes(explain([linux_list])) == {"usage-pitfall"}
    plugin = "ERROR: No matching distribution found for jax-cuda12-pjrt"
    assert "platform-unsupported" in codes(explain([mac, plugin]))
    assert codes(explain([plugin])) == {"python-unsupported"}


def test_a_code_on_route_with_a_bad_tensorflow_specifier_is_refused(tmp_path: Path) -> None:
    directory = _matrix_copy(tmp_path)
    path = directory / "log_signatures.toml"
    text = path.read_text(encoding="utf-8")
    assert 'tensorflow = ">=2.11"' in text
    path.write_text(text.replace('tensorflow = ">=2.11"', 'tensorflow = "2.11 or later"', 1))
    with pytest.raises(MatrixDataError, match="not a version specifier"):
        load_signatures(directory)


# Yankai96/IBISAgent#2: the end of pip's output as it failed to build flash-attn (verbatim).
_PIP_BUILD_WITHOUT_TORCH = (
    "      ModuleNotFoundError: No module named 'torch'",
    "      [end of output]",
    "  note: This error originates from a subprocess, and is likely not a problem with pip.",
    "ERROR: Failed to build 'flash-attn' when getting requirements to build wheel",
)


def test_a_framework_python_cannot_import_is_missing_from_that_interpreter() -> None:
    found = explain(["ModuleNotFoundError: No module named 'tensorflow'"]).findings
    assert [(f.code, f.severity.value) for f in found] == [("framework-missing", "error")]
    assert "sys.executable" in found[0].fix


def test_a_framework_missing_only_in_pips_isolated_build_is_the_isolation() -> None:
    explanation = explain(list(_PIP_BUILD_WITHOUT_TORCH))
    assert "pip-build" in explanation.facts.platforms
    assert codes(explanation) == {"usage-pitfall"}
    assert "--no-build-isolation" in explanation.findings[0].fix
    # A source build that succeeded before the program ran is no build that failed.
    installed_then_ran = [
        "  Getting requirements to build wheel ... done",
        "  Preparing metadata (pyproject.toml) ... done",
        "Successfully installed einops-0.8.0",
        "ModuleNotFoundError: No module named 'torch'",
    ]
    assert codes(explain(installed_then_ran)) == {"framework-missing"}


@pytest.mark.parametrize(
    "line",
    [
        "ModuleNotFoundError: No module named 'torch_scatter'",
        "ModuleNotFoundError: No module named 'tensorflow.contrib'",
        "ModuleNotFoundError: No module named 'torch._C'",
        "ModuleNotFoundError: No module named 'jax_cuda12_plugin'",
    ],
)
def test_a_frameworks_submodule_or_add_on_is_no_missing_framework(line: str) -> None:
    assert "framework-missing" not in codes(explain([line]))


def test_a_log_whose_quotes_an_editor_curled_reads_as_the_program_printed_it() -> None:
    # microsoft/onnxruntime#26996, as pasted: U+2018/U+2019 for the provider's quotes. The
    # scan finds the line by a quote-free piece of its trigger, and clean_line makes the
    # quotes plain for the patterns.
    curled = (
        "Specified provider \u2018CUDAExecutionProvider\u2019 is not in available provider "
        "names. Available providers: \u2018AzureExecutionProvider, CPUExecutionProvider\u2019"
    )
    assert clean_line(curled) == curled.replace("\u2018", "'").replace("\u2019", "'")
    assert "framework-cpu-only" in codes(explain([curled]))


# --- nvcc's release decides what an unknown architecture means ----------------------------------

# Verbatim from tests/corpus/train-zf/other-roshambo2-cuda13-compute60-dropped-arch-list.log and
# tests/corpus/train-z/other-kawpowminer-cuda75-nvcc-compute-60-unsupported.log.
NVCC_ARCH = "nvcc fatal   : Unsupported gpu architecture '{arch}'"
NVCC_ARCH_VALUE = "nvcc fatal   : Value '{arch}' is not defined for option 'gpu-architecture'"
NVCC_RELEASE = "Cuda compilation tools, release {release}, V{release}.88"


@pytest.mark.parametrize("error", [NVCC_ARCH, NVCC_ARCH_VALUE])
@pytest.mark.parametrize(
    ("arch", "release", "code", "said"),
    [
        # CUDA 13 dropped Maxwell to Volta: the build's list is older than the toolkit.
        ("compute_60", "13.0", "cuda-version-mismatch", "no longer builds for compute_60"),
        ("sm_30", "11.2", "cuda-version-mismatch", "targets compute capabilities 3.5 to 8.6"),
        # A toolkit older than the GPU, whatever the architecture's digits look like.
        ("compute_89", "11.7", "compute-capability-unsupported", "cannot build for compute_89"),
        ("sm_120", "12.6", "compute-capability-unsupported", "5.0 to 9.0"),
    ],
)
def test_nvccs_release_decides_an_unknown_architecture(
    error: str, arch: str, release: str, code: str, said: str
) -> None:
    explanation = explain([error.format(arch=arch), NVCC_RELEASE.format(release=release)])
    finding = only(explanation, code)
    assert said in finding.message and f"CUDA {release}'s nvcc" in finding.message
    # The release line is evidence of the reading.
    assert NVCC_RELEASE.format(release=release) in finding.evidence
    others = {"cuda-version-mismatch", "compute-capability-unsupported"} - {code}
    assert not others & codes(explanation)


@pytest.mark.parametrize(
    ("lines", "code"),
    [
        # No release in the log: the row's own code and its route for the 2x/3x architectures.
        ([NVCC_ARCH.format(arch="compute_60")], "compute-capability-unsupported"),
        ([NVCC_ARCH.format(arch="compute_35")], "cuda-version-mismatch"),
        # A release the architecture table does not reach (before CUDA 8): no reading from it.
        (
            [NVCC_ARCH.format(arch="compute_60"), NVCC_RELEASE.format(release="7.5")],
            "compute-capability-unsupported",
        ),
    ],
)
def test_without_a_known_release_the_row_reads_as_before(lines: list[str], code: str) -> None:
    finding = only(explain(lines), code)
    assert finding.message.startswith("This CUDA toolkit's nvcc")  # the row's own words


def test_bad_by_toolkit_is_refused_at_load(tmp_path: Path) -> None:
    directory = _matrix_copy(tmp_path)
    path = directory / FILES[0]
    text = path.read_text(encoding="utf-8")
    old = 'by_toolkit]\n  group = "arch"'
    assert old in text
    path.write_text(text.replace(old, 'by_toolkit]\n  group = "architecture"', 1), "utf-8")
    with pytest.raises(MatrixDataError, match="'architecture' is not a named group"):
        load_signatures(directory)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # The driver's own compiler (open-mmlab/OpenPCDet#934, Theano/Theano#6503): the driver.
        (
            "ptxas application ptx input, line 9; fatal   : Unsupported .version 7.3; current "
            "version is '7.2'",
            "driver-too-old",
        ),
        # A ptxas given a .ptx file (QwenLM/Qwen2.5-Omni#247): the toolchain on PATH.
        (
            "ptxas C:\\Users\\ai\\AppData\\Local\\Temp\\tmpkoko0xtp.ptx, line 5; fatal   : "
            "Unsupported .version 8.8; current version is '8.7'",
            "xla-toolchain-missing",
        ),
    ],
)
def test_which_ptxas_refused_the_ptx_decides_the_cause(line: str, code: str) -> None:
    explanation = explain([line])
    assert only(explanation, code)
    assert not {"driver-too-old", "xla-toolchain-missing"} - {code} & codes(explanation)


# --- the same message under an old driver and under none: both stay open ----------------------
# The CUDA runtime answers cudaErrorInsufficientDriver with no driver library at all, as with an
# old one (measured, tests/test_real_installs.py): a log that shows no driver release cannot tell
# them apart, so the missing driver and the container without GPU access are warnings beside the
# old driver (Signature.if_unknown).
INSUFFICIENT = "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version"  # fmt: skip


def severities(explanation: Explanation) -> dict[str, Severity]:
    return {f.code: f.severity for f in explanation.findings}


def test_insufficient_driver_without_a_driver_release_keeps_the_missing_driver_open() -> None:
    explanation = explain([INSUFFICIENT])
    assert severities(explanation) == {
        "driver-too-old": Severity.ERROR,
        "driver-missing": Severity.WARNING,
        "container-gpu-unavailable": Severity.WARNING,
    }
    assert explanation.findings[0].code == "driver-too-old"  # the row's own reading leads
    assert "no driver library" in only(explanation, "driver-missing").message
    assert "--gpus all" in only(explanation, "container-gpu-unavailable").fix


@pytest.mark.parametrize(
    "driver_line",
    [
        "| NVIDIA-SMI 390.87                 Driver Version: 390.87                    |",
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:186] libcuda reported version is: 384.69.0",
    ],
)
def test_a_driver_release_in_the_log_closes_the_other_readings(driver_line: str) -> None:
    explanation = explain([driver_line, INSUFFICIENT])
    assert "driver-too-old" in codes(explanation)
    assert not codes(explanation) & {"driver-missing", "container-gpu-unavailable"}


def test_on_windows_the_container_reading_stays_closed() -> None:
    path = (
        '  File "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python310\\lib\\site.py", line 1'
    )
    explanation = explain([path, INSUFFICIENT])
    assert "windows" in explanation.facts.platforms
    assert severities(explanation) == {
        "driver-too-old": Severity.ERROR,
        "driver-missing": Severity.WARNING,
    }


def test_every_fact_a_reading_may_wait_on_is_one_a_log_can_show() -> None:
    from envcheck.explain.log_facts import LogFacts  # noqa: PLC0415
    from envcheck.matrix.signatures import UNKNOWN_FACTS  # noqa: PLC0415

    empty = LogFacts(kernel_module="384.111")  # (the module alone is not the driver shown)
    full = LogFacts(driver="535.104.05", gpus={"Tesla T4": "7.5"}, python="3.11", cuda="12.1")
    for fact in UNKNOWN_FACTS:
        assert not empty.shows(fact)
        assert full.shows(fact)
    with pytest.raises(ValueError, match="not a fact"):
        empty.shows("kernel")


# huan/docker-wechat#173: the toolkit loads the host driver's NVML, so a host without a driver
# fails as a broken toolkit does; nvidia-smi's table (the host's, pasted before) closes it.
CONTAINER_CLI_NO_NVML = (
    "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot "
    "open shared object file: no such file or directory: unknown."
)


def test_the_toolkit_without_the_host_drivers_library_keeps_the_missing_driver_open() -> None:
    assert severities(explain([CONTAINER_CLI_NO_NVML])) == {
        "container-gpu-unavailable": Severity.ERROR,
        "driver-missing": Severity.WARNING,
    }
    shown = explain(
        ["| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |", CONTAINER_CLI_NO_NVML]
    )  # fmt: skip
    assert severities(shown) == {"container-gpu-unavailable": Severity.ERROR}


def test_a_cause_the_log_names_outright_is_not_said_again_as_another_reading() -> None:
    # The missing libcuda is the log's own line: its finding keeps its own words, at error.
    libcuda = "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory"
    explanation = explain([INSUFFICIENT, libcuda])
    missing = only(explanation, "driver-missing")
    assert missing.severity is Severity.ERROR and not missing.message.startswith("Or ")
    assert severities(explanation)["container-gpu-unavailable"] is Severity.WARNING


def test_the_readings_of_a_replaced_hit_go_with_it() -> None:
    # triton-inference-server/server#7022: Triton's own row reads the line (a warning); the
    # runtime's old-driver reading it replaces brings no "Or no driver" of its own.
    line = (
        "W1208 10:00:00.000000 1 pinned_memory_manager.cc:236] Unable to allocate pinned system "
        "memory, pinned memory pool will not be available: CUDA driver version is insufficient "
        "for CUDA runtime version"
    )
    assert severities(explain([line])) == {"container-gpu-unavailable": Severity.WARNING}


def test_under_wsl_the_toolkit_row_does_not_send_the_person_to_install_a_linux_driver() -> None:
    wsl = '  File "/mnt/c/Users/me/train.py", line 1, in <module>'
    assert severities(explain([wsl, CONTAINER_CLI_NO_NVML])) == {
        "container-gpu-unavailable": Severity.ERROR
    }


# zzhang1987/Factor-Graph-Neural-Network#4: cuDNN's execution failure, whose other cause is a
# build older than the GPU; the GPU alone cannot tell, the GPU and the build's CUDA can.
EXECUTION_FAILED = "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"
RTX_3080 = "GPU 0: NVIDIA GeForce RTX 3080"


def test_cudnns_execution_failure_keeps_the_build_older_than_the_gpu_open() -> None:
    for lines in ([EXECUTION_FAILED], [RTX_3080, EXECUTION_FAILED]):
        assert severities(explain(lines)) == {
            "gpu-out-of-memory": Severity.ERROR,
            "compute-capability-unsupported": Severity.WARNING,
        }
    assert only(explain([EXECUTION_FAILED]), "compute-capability-unsupported").data == {
        "reading": "open"
    }
    # With the build's CUDA too, the doctor's own rule decides: CUDA 10.2 has no kernels for 8.6.
    shown = explain(["PyTorch version: 1.9.0+cu102", RTX_3080, EXECUTION_FAILED])
    assert "compute-capability-unsupported" not in codes(shown)  # closed
    decided = reason_over_log(shown, MATRIX)
    assert severities(decided)["compute-capability-unsupported"] is Severity.ERROR


def test_a_rule_that_decides_an_open_reading_speaks_for_it() -> None:
    # The open reading says "Or ..."; where the doctor's rule finds the same cause from the
    # facts, the rule's finding is the one kept, not the open reading's words at error.
    rule = Finding("compute-capability-unsupported", Severity.ERROR, "The GPU is newer.", ("GPU",))
    shown = explain([EXECUTION_FAILED])
    merged = {f.code: f for f in merge_findings(shown.findings, [rule])}
    assert merged["compute-capability-unsupported"] == rule


# pytorch/pytorch#631, ageitgey/face_recognition#930: the runtime's unknown error at the first
# call is also a driver that is not installed or did not load; davisking/dlib#499: "no
# CUDA-capable device" is also a GPU too old for the driver this CUDA needs. Each stays open
# until the log shows the deciding fact.
UNKNOWN_ERROR = "RuntimeError: CUDA error: unknown error"
NO_DEVICE = "RuntimeError: CUDA error: no CUDA-capable device is detected"


def test_an_unknown_error_keeps_the_missing_driver_open_until_a_driver_is_shown() -> None:
    assert severities(explain([UNKNOWN_ERROR])) == {
        "gpu-unusable": Severity.ERROR,
        "driver-missing": Severity.WARNING,
    }
    smi = "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |"
    assert severities(explain([smi, UNKNOWN_ERROR])) == {"gpu-unusable": Severity.ERROR}


def test_no_device_keeps_a_gpu_too_old_open_until_the_gpu_is_shown() -> None:
    assert severities(explain([NO_DEVICE])) == {
        "no-gpu": Severity.ERROR,
        "compute-capability-unsupported": Severity.WARNING,
    }
    assert severities(explain([RTX_3080, NO_DEVICE])) == {"no-gpu": Severity.ERROR}


# Lilypad-Tech/lilypad#548: the loader's missing libcuda.so.1 is no driver on a host, and a
# container started without GPU access inside one.
NO_LIBCUDA = "/usr/local/bin/app: error while loading shared libraries: libcuda.so.1: cannot open shared object file"  # fmt: skip


def test_the_loaders_missing_libcuda_keeps_the_container_open_until_the_place_is_shown() -> None:
    alone = explain([NO_LIBCUDA])
    assert severities(alone) == {
        "driver-missing": Severity.ERROR,
        "container-gpu-unavailable": Severity.WARNING,
    }
    assert "install the NVIDIA driver" in only(alone, "driver-missing").fix
    assert "package" not in only(alone, "driver-missing").fix  # not a CUDA library to install
    compose = "Creating app_worker_1 ... done"
    assert severities(explain([compose, NO_LIBCUDA])) == {
        "container-gpu-unavailable": Severity.ERROR
    }
    windows = '  File "C:\\Users\\me\\app.py", line 1'
    assert severities(explain([windows, NO_LIBCUDA])) == {"driver-missing": Severity.ERROR}


def test_an_unknown_error_where_modprobe_finds_no_modules_is_a_container_without_the_gpu() -> None:
    # amazon-archives/amazon-dsstne#36: modprobe in an image has no /lib/modules of the host's
    # kernel; the CUDA runtime's unknown error there is the container's missing GPU access.
    moddep = (
        "modprobe: ERROR: ../libkmod/libkmod.c:556 kmod_search_moddep() could not open moddep "
        "file '/lib/modules/3.13.0-83-generic/modules.dep.bin'"
    )
    explanation = explain([moddep, "cudaGetDeviceCount failed unknown error"])
    assert "container" in explanation.facts.platforms
    assert severities(explanation)["container-gpu-unavailable"] is Severity.ERROR
    assert "gpu-unusable" not in codes(explanation)


# invoke-ai/InvokeAI#25: cuDNN's handle fails under a driver older than the build's CUDA too; the
# driver and the CUDA the build loads, both in the log, let the doctor's rule decide.
NO_HANDLE = "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED"  # fmt: skip


def test_cudnns_handle_keeps_an_old_driver_open_until_the_driver_and_the_cuda_are_shown() -> None:
    assert severities(explain([NO_HANDLE]))["driver-too-old"] is Severity.WARNING
    driver = "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:186] libcuda reported version is: 384.69.0"  # fmt: skip
    cudart = "I tensorflow/stream_executor/dso_loader.cc:139] successfully opened CUDA library libcudart.so.9.0 locally"  # fmt: skip
    shown = explain([driver, cudart, NO_HANDLE])
    assert "driver-too-old" not in codes(shown)  # closed: the facts decide
    decided = reason_over_log(shown, MATRIX)
    assert severities(decided)["driver-too-old"] is Severity.ERROR  # 384.69 < CUDA 9.0's 384.81
    new_enough = driver.replace("384.69.0", "390.48.0")
    assert "driver-too-old" not in codes(
        reason_over_log(explain([new_enough, cudart, NO_HANDLE]), MATRIX)
    )


def test_a_compose_services_output_shows_a_container() -> None:
    # weaviate/weaviate#1736: Compose prefixes each line of a service's output with its name.
    line = "qna-transformers_1  | RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx"  # fmt: skip
    explanation = explain([line])
    assert "container" in explanation.facts.platforms
    assert severities(explanation) == {"container-gpu-unavailable": Severity.ERROR}
    bare = line.split("| ", 1)[1]
    assert severities(explain([bare])) == {
        "driver-missing": Severity.ERROR,
        "container-gpu-unavailable": Severity.WARNING,
    }
    for not_compose in ("| 0  Tesla T4  On | 00000000:00:04.0 Off |", "loss_1 = 0.25 | acc 0.9"):
        assert "container" not in explain([not_compose]).facts.platforms, not_compose
