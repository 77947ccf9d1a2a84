"""`envcheck explain` on the cases of a user test: newer XLA/PTX wordings, a GPU skipped because
of a missing library, TensorFlow silently on the CPU, empty and binary input, harmless lines with
their own labels, and a cuDNN fix taken from the matrix.

Log lines are real wording; each names where it was published (the signatures' sources in
matrix/log_signatures.toml cite the same reports).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from envcheck.explain.explanation import EmptyLogError, Explanation, explain_lines
from envcheck.explain.log_facts import decode_cudnn
from envcheck.explain.matcher import FOLLOW_WINDOW
from envcheck.explain.reader import read_chunks
from envcheck.explain.scanner import MAX_LINE, ChunkScanner
from envcheck.explain.triggers import Trigger, folded_scan
from envcheck.findings import Finding, Severity
from envcheck.matrix.advisories import load_known_bugs
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.matrix.signatures import load_signatures
from envcheck.report.explanation import render
from envcheck.report.formats import Format
from tests.test_explain import run_cli

LOGS = Path(__file__).resolve().parent / "logs"
MATRIX = load_matrix(bundled_matrix_dir())
SIGNATURES = load_signatures(MATRIX.directory)
KNOWN_BUGS = load_known_bugs(MATRIX.directory)

# openxla/xla nvptx_compiler.cc's 2024+ wording, from a public AlphaFold 3 run log
PTX_COMPILER = (
    "2025-03-04 12:55:32.285132: W external/xla/xla/service/gpu/nvptx_compiler.cc:930] The NVIDIA "
    "driver's CUDA version is 12.4 which is older than the PTX compiler version 12.6.77. Because "
    "the driver is older than the PTX compiler version, XLA is disabling parallel compilation, "
    "which may slow down compilation. You should update your NVIDIA driver or use the "
    "NVIDIA-provided CUDA forward compatibility packages."
)
# TF 2.18.0 on a Tesla T4, CY-CHENYUE/ComfyUI-Molmo#26
UNSUPPORTED_PTX = (
    "2025-02-01 13:44:34.523685: W tensorflow/compiler/mlir/tools/kernel_gen/"
    "tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, data)' failed with "
    "'CUDA_ERROR_UNSUPPORTED_PTX_VERSION'"
)
# TensorFlow's own install check (tensorflow/docs pip.md), as run in tensorflow/tensorflow#64881
GPU_CHECK = (
    """python3 -c "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\""""
)
# tensorflow/tensorflow#60646 (TF 2.12): what that check printed
SKIPPED = [
    "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1956] Cannot dlopen some GPU libraries. "
    "Please make sure the missing libraries mentioned above are installed properly if you would "
    "like to use GPU. Follow the guide at https://www.tensorflow.org/install/gpu for how to "
    "download and setup the required libraries for your platform.",
    "Skipping registering GPU devices...",
    "[]",
]
# A TF 2.8 NGC container run log in a public notes file: the CPU notice and the cuDNN 8.4 line
CPU_NOTICE = (
    "2022-05-11 16:57:28.511029: I tensorflow/core/platform/cpu_feature_guard.cc:152] This "
    "TensorFlow binary is optimized with oneAPI Deep Neural Network Library (oneDNN) to use the "
    "following CPU instructions in performance-critical operations:  SSE3 SSE4.1 SSE4.2 AVX"
)
CUDNN_8400 = (
    "2022-05-11 16:57:36.287518: I tensorflow/stream_executor/cuda/cuda_dnn.cc:379] "
    "Loaded cuDNN version 8400"
)
# tests/seeds/003_ffdd21011fc4f8ff.txt line 255 (TF 2.8, cuDNN 8.4, Windows 11)
ERROR_193 = "Could not load library cudnn_cnn_infer64_8.dll. Error code 193"


def explain(lines: list[str]) -> Explanation:
    return explain_lines(lines, SIGNATURES, MATRIX, KNOWN_BUGS)


def log_lines(name: str) -> list[str]:
    return (LOGS / name).read_text(encoding="utf-8").splitlines()


def only(explanation: Explanation, code: str) -> Finding:
    found = [f for f in explanation.findings if f.code == code]
    assert len(found) == 1, [f.code for f in explanation.findings]
    return found[0]


# --- 1. newer XLA / PTX wordings ----------------------------------------------------------------


def test_ptx_compiler_wording_is_the_driver_older_than_ptxas_warning() -> None:
    finding = only(explain([PTX_COMPILER]), "driver-too-old")
    assert finding.severity is Severity.WARNING  # XLA still compiles, one module at a time
    assert "CUDA 12.4" in finding.message and "CUDA 12.6.77" in finding.message


def test_unsupported_ptx_version_is_an_old_driver_error() -> None:
    bare = "the provided PTX was compiled with an unsupported toolchain."
    for line in (UNSUPPORTED_PTX, bare):
        finding = only(explain([line]), "driver-too-old")
        assert finding.severity is Severity.ERROR
    # UNSUPPORTED_PTX's path is TensorFlow's (tensorflow/compiler/...): TensorFlow's fix.
    assert "envcheck recommend --driver" in only(explain([UNSUPPORTED_PTX]), "driver-too-old").fix
    # The bare line does not show its framework: a neutral fix (issue 20), TensorFlow's once the
    # log shows TensorFlow.
    neutral = only(explain([bare]), "driver-too-old").fix
    assert "the framework" in neutral and "TensorFlow" not in neutral
    with_tf = only(explain(["import tensorflow as tf", bare]), "driver-too-old").fix
    assert "envcheck recommend --driver" in with_tf


def test_unsupported_ptx_fix_names_the_driver_of_the_builds_cuda() -> None:
    # 2.18 is built with CUDA 12.5.1, whose own driver is 555.42.06 (matrix/cuda_drivers.toml)
    release = MATRIX.release_for(MATRIX.releases_matching("2.18")[0].latest)
    assert release is not None and release.cuda is not None
    toolkit = MATRIX.toolkit(release.cuda)
    assert toolkit is not None
    finding = only(explain(["tensorflow==2.18.0", UNSUPPORTED_PTX]), "driver-too-old")
    assert f"CUDA {release.cuda}, whose own driver is {toolkit.linux_driver}" in finding.fix


# --- 2. a GPU skipped for a missing library; known bugs by the log's TF version ---------------------


def test_missing_libcudnn_and_a_skipped_gpu_is_an_error_and_exit_1() -> None:
    completed = run_cli(str(LOGS / "tf2_linux_cudnn8_missing.log"))
    assert completed.returncode == 1, completed.stdout.decode()
    assert b"ERROR [cuda-library-missing]" in completed.stdout


def test_a_tf_2_16_bug_is_not_attached_to_a_stream_executor_log() -> None:
    explanation = explain(log_lines("tf2_linux_cudnn8_missing.log"))
    assert explanation.facts.tensorflow_range == "<2.11"
    assert "known-bug" not in {f.code for f in explanation.findings}


def test_the_tf_2_16_bug_still_attaches_when_the_log_can_be_2_16() -> None:
    lines = log_lines("tf2_linux_cudnn8_missing.log")
    stated = explain(["tensorflow==2.16.1", *(line.split("] ", 1)[-1] for line in lines)])
    assert only(stated, "known-bug").evidence == (
        "https://github.com/tensorflow/tensorflow/issues/63362",
    )
    unknown = explain([line.split("] ", 1)[-1] for line in lines])  # no paths: can be 2.16
    assert "known-bug" in {f.code for f in unknown.findings}


# --- 3. TensorFlow silently on the CPU -------------------------------------------------------------


def test_num_gpus_available_0_is_an_error_pointing_to_the_doctor() -> None:
    explanation = explain(log_lines("tf213_num_gpus_available_0.log"))
    finding = only(explanation, "no-gpu")
    assert finding.severity is Severity.ERROR and finding.lines == (8,)
    assert explanation.summary() == finding.message
    for cause in ("envcheck doctor", "tensorflow-cpu", "native Windows", "tensorflow[and-cuda]"):
        assert cause in finding.fix


def test_an_empty_gpu_list_after_the_check_is_an_error() -> None:
    explanation = explain([GPU_CHECK, *SKIPPED])
    finding = only(explanation, "no-gpu")
    assert finding.severity is Severity.ERROR and finding.evidence[0] == "[]"
    assert finding.lines == (2, 3, 4)  # with the lines that say why
    assert run_cli("-", stdin="\n".join([GPU_CHECK, "[]"]).encode()).returncode == 1


def test_an_empty_list_is_only_read_after_the_gpu_check() -> None:
    assert not explain(["[]"]).findings
    late = explain([GPU_CHECK, *(["step done"] * FOLLOW_WINDOW), "[]"])
    assert "no-gpu" not in {f.code for f in late.findings}
    listed = explain(
        [GPU_CHECK, "[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]"]
    )
    assert listed.only_benign


# --- 4. empty and binary input ------------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"", b"\n\r\n  \n"], ids=["empty", "blank"])
def test_empty_input_is_exit_2_in_one_line(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "empty.log"
    path.write_bytes(data)
    for args, stdin in (((str(path),), None), (("-",), data)):
        completed = run_cli(*args, stdin=stdin)
        assert completed.returncode == 2
        assert completed.stdout == b""
        stderr = completed.stderr.decode()
        assert len(stderr.strip().splitlines()) == 1 and "the log is empty" in stderr
    with pytest.raises(EmptyLogError):
        explain([])


def test_binary_input_is_exit_2_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(Path(sys.executable).read_bytes()[:20000])  # an ELF/PE: NULs in its header
    completed = run_cli(str(path))
    assert completed.returncode == 2 and completed.stdout == b""
    stderr = completed.stderr.decode()
    assert len(stderr.strip().splitlines()) == 1 and "not a text log" in stderr


def test_a_utf16_log_from_powershell_is_read() -> None:
    data = (LOGS / "colab_cudnn_runtime_older.log").read_text(encoding="utf-8")
    completed = run_cli("-", stdin=data.replace("\n", "\r\n").encode("utf-16"))
    assert completed.returncode == 1
    assert b"ERROR [cudnn-version-mismatch] (lines 1, 2)" in completed.stdout


# --- 5. harmless lines keep their own labels; cuDNN's encoded version ------------------------------


def test_each_kind_of_harmless_line_keeps_its_own_label() -> None:
    explanation = explain(log_lines("tf221_cpu_only_import.log"))
    text = render(explanation, Format.TEXT)
    assert "(lines 1, 5) Abseil logging notice" in text
    assert "(lines 3, 4) TensorFlow notes which CPU instructions it uses" in text


def test_loaded_cudnn_8400_is_cudnn_8_4_0_not_cpu_instructions() -> None:
    explanation = explain([CPU_NOTICE, CUDNN_8400, ERROR_193])
    labels = {f.lines: f.message for f in explanation.findings if f.code == "benign-warning"}
    assert labels[(1,)].startswith("TensorFlow notes which CPU instructions")
    assert labels[(2,)].startswith("TensorFlow loaded cuDNN 8400")
    assert explanation.facts.cudnn == "8.4.0"
    assert "loaded cuDNN 8.4.0" in render(explanation, Format.TEXT)


@pytest.mark.parametrize(
    ("number", "version"), [("8400", "8.4.0"), ("8902", "8.9.2"), ("90300", "9.3.0"), ("7", None)]
)
def test_cudnn_version_numbers_decode_by_the_matrix(number: str, version: str | None) -> None:
    assert decode_cudnn(number, MATRIX) == version


# --- 6. a cuDNN fix from the matrix ---------------------------------------------------------------------


def test_cudnn_8_1_fix_is_the_tf_2_5_to_2_11_setup_not_an_impossible_wheel() -> None:
    finding = only(explain(log_lines("colab_cudnn_runtime_older.log")), "cudnn-version-mismatch")
    built = [r for r in MATRIX.releases if r.cudnn is not None and str(r.cudnn) == "8.1"]
    assert built and not any(r.and_cuda for r in built)
    assert "TensorFlow 2.5-2.11 (CUDA 11.2): " + "; ".join(built[0].cuda_setup) in finding.fix
    assert "nvidia-cudnn-cu11" not in finding.fix and "and-cuda" not in finding.fix


def test_cudnn_9_3_fix_is_the_and_cuda_extra() -> None:
    finding = only(
        explain(log_lines("tf218_cudnn9_mismatch_dnn_init.log")), "cudnn-version-mismatch"
    )
    assert 'TensorFlow 2.18-2.21: python -m pip install "tensorflow[and-cuda]==' in finding.fix


def test_the_end_of_a_huge_line_is_still_read(tmp_path: Path) -> None:
    # A 5 MB line (a JSON dump, a progress bar without line ends) whose end holds the message:
    # its first and last halves of MAX_LINE are read, with a marker for what was skipped.
    message = (
        " E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.5 "
        "but source was compiled with: 8.1.0.  CuDNN library needs to have matching major "
        "version and equal or higher minor version."
    )
    log = tmp_path / "huge.log"
    log.write_bytes(b"x" * 5_000_000 + message.encode() + b"\nnext\n")
    # Every line, read by the scanner explain uses (a trigger that never occurs, all lines asked).
    scanner = ChunkScanner(folded_scan([Trigger("\x00never\x00")]), read_chunks(str(log)))
    scanner.read_through(10)
    first, second = (text for _, text in scanner)
    assert first.endswith(message)
    assert f"[... {5_000_000 + len(message) - MAX_LINE} bytes not read ...]" in first
    assert second == "next"
