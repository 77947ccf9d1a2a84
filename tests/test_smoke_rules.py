"""The smoke test's findings (envcheck.diagnose.smoke_rules) on recorded child output.

Pure: each SmokeResult is built from recorded step lines (smoke.result_from_output) or directly,
and its stderr holds real TensorFlow log lines, quoted verbatim with where each comes from:
"§7 row N" is docs/facts.md section 7, "TF 2.21 no-GPU log" is TF 2.21's output on a host
without a GPU (docs/facts.md section 8). The real child processes are exercised in
test_smoke.py and, through the CLI, in test_doctor_cli.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.diagnose.smoke_rules import smoke_findings
from envcheck.findings import CODES, Finding, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.matrix.signatures import Signature, load_signatures
from envcheck.probe.facts import LibraryFacts
from envcheck.probe.smoke import STEPS, ChildEnding, SmokeResult, SmokeStep, result_from_output
from tests.corpus_cases import cases as corpus_cases
from tests.facts_builder import healthy_libraries, lib, machine

SIGNATURES: tuple[Signature, ...] = load_signatures(bundled_matrix_dir())

# §7 row 1, the TF <= 2.12 LOG(WARNING) form (template filled with libcudnn.so.8 and the dlerror
# glibc prints for a missing file), then §7 row 3 verbatim (both lines).
DLOPEN_CUDNN_8 = (
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open "
    "shared object file: No such file or directory"
)
CANNOT_DLOPEN = (
    "Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above "
    "are installed properly if you would like to use GPU. Follow the guide at "
    "https://www.tensorflow.org/install/gpu for how to download and setup the required "
    "libraries for your platform."
)
SKIPPING = "Skipping registering GPU devices..."

# The README's example line, the §7 row 6 wording with 8.0.5 / 8.1.0, then row 6's follow-up
# line and row 8 (the first conv's consequence).
CUDNN_MISMATCH = (
    "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN library "
    "needs to have matching major version and equal or higher minor version. If using a binary "
    "install, upgrade your CuDNN library.  If building from sources, make sure the library "
    "loaded at runtime is compatible with the version specified during compile configuration."
)
DNN_INIT_FAILED = "DNN library initialization failed. Look at the errors above for more details."
CONV_ALGORITHM = (
    "Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, "
    "so try looking to see if a warning log message was printed above."
)

# §7 row 17, verbatim.
LIBDEVICE = "libdevice not found at ./libdevice.10.bc"

# §7 row 23 names the message (`CUDA_ERROR_OUT_OF_MEMORY` / `failed to allocate …`); the full
# line is a public TF 2.x log (as in test_signatures.py). The ResourceExhaustedError line is a
# public TF traceback (test_signatures.py, "oom-allocating-tensor"); no reference quotes it.
CUDA_OOM = (
    "2021-07-14 08:08:53.663124: I tensorflow/stream_executor/cuda/cuda_driver.cc:775] failed "
    "to allocate 256.00M (268435456 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory"
)
TENSOR_OOM = (
    "ResourceExhaustedError: OOM when allocating tensor with shape[200,75,75,64] and type float "
    "on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"
)

# TF 2.21 no-GPU log, verbatim: the import, the first device use, then the lines that
# TF_CPP_MAX_VLOG_LEVEL=1 adds around the cuInit failure ("…" and "<hostname>" as quoted).
TF221_NO_GPU_LOG = """\
WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
I0000 00:00:1796003927.553652    7803 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
I0000 00:00:1796003927.626963    7803 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
I0000 00:00:1796003931.756857    7803 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
E0000 00:00:1796003932.146744    7803 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
I0000 … cuda_memory_allocator.cc:70] Registering collective allocator factory for NCCL
I0000 … cuda_memory_allocator.cc:70] Registering collective allocator factory for NVSHMEM
I0000 … dso_loader.cc:144] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory
E0000 … cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
I0000 … cuda_diagnostics.cc:145] kernel driver does not appear to be running on this host (<hostname>): /proc/driver/nvidia/version does not exist
I0000 … xla_gpu_device.cc:53] Not creating XLA devices, tf_xla_enable_xla_devices not set and XLA devices creation not required
I0000 … xla_gpu_device.cc:83] Not creating XLA devices, tf_xla_enable_xla_devices not set
"""

# Harmless lines: §7 row 21 (py_utils.cc:38 form), §7 row 24 (public TF 2.16+ log line, as in
# test_signatures.py), the cpu_feature_guard line of the TF 2.21 no-GPU log.
BENIGN = (
    "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
    "E0000 00:00:1739486925.821562  176814 cuda_dnn.cc:8310] Unable to register cuDNN factory: "
    "Attempting to register factory for plugin cuDNN when one has already been registered",
    "I0000 00:00:1796003927.626963    7803 cpu_feature_guard.cc:227] This TensorFlow binary is "
    "optimized to use available CPU instructions in performance-critical operations.",
)

# §7 row 32 with the placeholders filled (a Quadro P400 in a multi-GPU box).
CORE_COUNT = (
    "Ignoring visible gpu device (device: 1, name: Quadro P400, pci bus id: 0000:02:00.0, "
    "compute capability: 6.1) with core count: 2. The minimum required count is 8. You can "
    "adjust this requirement with the env var TF_MIN_GPU_MULTIPROCESSOR_COUNT."
)


def ran_on_cpu(stderr: str = "", loaded: tuple[str, ...] = ()) -> SmokeResult:
    """Every step passed, the ops on CPU:0 (what a machine where TF skipped the GPU shows)."""
    steps = tuple(
        SmokeStep(name, "ok", 0.1, "", "CPU:0" if name not in ("import", "list_gpus") else None)
        for name in STEPS
    )
    return SmokeResult("ok", steps, "2.18.1", {}, (), (), loaded, stderr, 0, None, 4.2)


def recorded(
    events: list[dict[str, Any]],
    stderr: str = "",
    returncode: int | None = 0,
    timed_out: bool = False,
    seconds: float = 7.25,
) -> SmokeResult:
    """A SmokeResult from the child's step lines as they arrived on stdout (Linux)."""
    stdout = "\n".join(json.dumps(event) for event in events) + "\n"
    ending = ChildEnding(returncode, timed_out, seconds, stderr, windows=False)
    return result_from_output(STEPS, stdout, ending, 120)


IMPORT_AND_LIST: list[dict[str, Any]] = [
    {"step": "import", "status": "started"},
    {"step": "import", "status": "ok", "seconds": 3.5, "detail": "TensorFlow 2.18.1",
     "device": None, "version": "2.18.1", "build_info": {"cuda_version": "12.5.1"},
     "new_libraries": ["/venv/site-packages/nvidia/cudnn/lib/libcudnn.so.9"]},
    {"step": "list_gpus", "status": "started"},
    {"step": "list_gpus", "status": "ok", "seconds": 0.5, "detail": "TensorFlow sees 1 GPU(s)",
     "device": None, "gpus": ["/physical_device:GPU:0"]},
    {"step": "conv2d", "status": "started"},
]  # fmt: skip


def findings(result: SmokeResult, predicted: tuple[LibraryFacts, ...] = (),
             driver_missing: bool = False) -> list[Finding]:  # fmt: skip
    return smoke_findings(result, SIGNATURES, predicted, driver_missing=driver_missing)


def one(found: list[Finding], code: str) -> Finding:
    matching = [f for f in found if f.code == code]
    assert len(matching) == 1, [(f.code, f.message) for f in found]
    return matching[0]


# --- TensorFlow's log -------------------------------------------------------------------------


def test_missing_cudnn_is_one_finding_with_its_consequences_as_evidence() -> None:
    stderr = "\n".join((DLOPEN_CUDNN_8, CANNOT_DLOPEN, SKIPPING)) + "\n"
    found = findings(ran_on_cpu(stderr))
    # The dlopen line is the root cause; "Cannot dlopen ..." and "Skipping ..." (their own code
    # is cuda-library-missing, as consequences) join it instead of standing alone.
    assert [f.code for f in found] == ["cudnn-missing"]
    finding = found[0]
    assert "libcudnn.so.8" in finding.message
    assert finding.evidence == (DLOPEN_CUDNN_8, CANNOT_DLOPEN, SKIPPING)
    assert finding.lines == (1, 2, 3)
    assert "tensorflow[and-cuda]" in finding.fix


def test_consequence_alone_is_a_finding_of_its_own() -> None:
    found = findings(ran_on_cpu(CANNOT_DLOPEN + "\n"))
    assert [(f.code, f.severity) for f in found] == [("cuda-library-missing", Severity.WARNING)]
    assert found[0].evidence == (CANNOT_DLOPEN,)


def test_cudnn_version_mismatch_names_both_versions() -> None:
    stderr = "\n".join((CUDNN_MISMATCH, DNN_INIT_FAILED, CONV_ALGORITHM)) + "\n"
    failed_conv = [
        *IMPORT_AND_LIST,
        {"step": "conv2d", "status": "failed", "seconds": 0.2, "device": "GPU:0",
         "detail": "UnknownError: " + CONV_ALGORITHM},
    ]  # fmt: skip
    found = findings(recorded(failed_conv, stderr))
    finding = one(found, "cudnn-version-mismatch")
    assert finding.severity is Severity.ERROR
    assert "8.0.5" in finding.message and "8.1.0" in finding.message
    assert "8.1.0" in finding.fix
    assert finding.evidence == (CUDNN_MISMATCH, DNN_INIT_FAILED, CONV_ALGORITHM)
    # The log explains the failed step: no second, vaguer smoke-test-failed.
    assert "smoke-test-failed" not in {f.code for f in found}


@pytest.mark.parametrize(
    ("line", "code", "words"),
    [
        (LIBDEVICE, "xla-toolchain-missing", ("./libdevice.10.bc",)),
        (CUDA_OOM, "gpu-out-of-memory", ("CUDA_ERROR_OUT_OF_MEMORY",)),
        (TENSOR_OOM, "gpu-out-of-memory", ("200,75,75,64",)),
        (CORE_COUNT, "usage-pitfall", ("Quadro P400", "TF_MIN_GPU_MULTIPROCESSOR_COUNT=2")),
    ],
)
def test_log_line_becomes_its_finding(line: str, code: str, words: tuple[str, ...]) -> None:
    found = findings(ran_on_cpu(f"some earlier output\n{line}\n"))
    finding = one(found, code)
    assert finding.evidence == (line,)
    assert finding.lines == (2,)
    assert all(word in finding.message + " " + finding.fix for word in words)
    assert len(found) == 1


def test_tf221_cpu_only_log_without_a_driver_is_only_benign() -> None:
    # The probe's driver-missing finding names the cause; the log's cuInit 303, "Could not find
    # cuda drivers" and the libcuda dlopen failure are its consequences.
    found = findings(ran_on_cpu(TF221_NO_GPU_LOG), driver_missing=True)
    assert found, "the benign lines are still reported"
    assert {f.code for f in found} == {"benign-warning"}
    assert all(f.severity is Severity.INFO for f in found)


def test_tf221_cpu_only_log_with_a_driver_present_is_a_problem() -> None:
    found = findings(ran_on_cpu(TF221_NO_GPU_LOG), driver_missing=False)
    codes = {f.code for f in found}
    assert {"driver-missing", "cuda-library-missing", "benign-warning"} <= codes
    driver = one(found, "driver-missing")
    assert driver.severity is Severity.ERROR
    # The cuInit failure is a consequence: it joins the cause's finding as evidence.
    assert any("UNKNOWN ERROR (303)" in e for e in driver.evidence)
    assert any("kernel driver does not appear to be running" in e for e in driver.evidence)


def test_benign_lines_are_one_info_finding() -> None:
    found = findings(ran_on_cpu("\n".join(BENIGN) + "\n"))
    assert [(f.code, f.severity) for f in found] == [("benign-warning", Severity.INFO)]
    assert found[0].evidence == BENIGN


# --- how the child ended ----------------------------------------------------------------------


def test_crash_names_the_step_and_the_signal() -> None:
    stderr = "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent call first):\n"
    result = recorded(IMPORT_AND_LIST, stderr, returncode=-11)
    assert result.status == "crashed"
    finding = one(findings(result), "smoke-test-crashed")
    assert finding.severity is Severity.ERROR
    assert re.fullmatch(
        r"The TensorFlow smoke test crashed: conv2d crashed with SIGSEGV after 7\.2 s\.",
        finding.message,
    ), finding.message
    assert finding.evidence[:2] == ("signal: SIGSEGV (exit code -11)", "last step reached: conv2d")
    assert "Fatal Python error: Segmentation fault" in finding.evidence


def test_crash_without_a_signal_gives_the_exit_code() -> None:
    result = recorded(IMPORT_AND_LIST, "", returncode=1)
    finding = one(findings(result), "smoke-test-crashed")
    assert "conv2d crashed with exit code 1" in finding.message


def test_timeout_names_the_step_it_hung_in() -> None:
    result = recorded(IMPORT_AND_LIST, LIBDEVICE + "\n", returncode=None, timed_out=True)
    assert result.status == "timeout"
    found = findings(result)
    finding = one(found, "smoke-test-timeout")
    assert finding.severity is Severity.ERROR
    assert finding.message == "The TensorFlow smoke test hung: timed out after 120 s during conv2d."
    assert "--smoke-timeout" in finding.fix
    assert finding.evidence == (LIBDEVICE,)
    assert "smoke-test-crashed" not in {f.code for f in found}
    # What the log said before the hang is still a finding of its own.
    assert "xla-toolchain-missing" in {f.code for f in found}


def test_failed_step_without_a_known_log_line() -> None:
    events = [
        *IMPORT_AND_LIST,
        {"step": "conv2d", "status": "failed", "seconds": 0.3, "device": "GPU:0",
         "detail": "InternalError: cudaSetDevice() on GPU:0 failed. Status: an illegal memory access was encountered\nTraceback ..."},
        {"step": "lstm", "status": "failed", "seconds": 0.1, "device": "GPU:0",
         "detail": "InternalError: lstm went wrong"},
        {"step": "matmul", "status": "ok", "seconds": 0.1, "device": "GPU:0", "detail": ""},
        {"step": "xla", "status": "ok", "seconds": 0.1, "device": "GPU:0", "detail": ""},
        {"step": "loaded_libraries", "status": "ok", "libraries": []},
    ]  # fmt: skip
    result = recorded(events, "an unrecognised line\n")
    assert result.status == "failed"
    finding = one(findings(result), "smoke-test-failed")
    assert finding.severity is Severity.ERROR
    assert finding.message == (
        "The TensorFlow smoke test's conv2d step failed: InternalError: cudaSetDevice() on GPU:0 failed. "
        "Status: an illegal memory access was encountered"
    )
    assert "InternalError: lstm went wrong" in finding.evidence
    assert "an unrecognised line" in finding.evidence


def test_a_passing_run_without_log_lines_has_no_findings() -> None:
    assert findings(ran_on_cpu("")) == []


# --- the libraries the child loaded against the probe's prediction ----------------------------

SITE = "/home/ada/venv/lib/python3.11/site-packages/nvidia"


def test_another_copy_loaded_than_predicted() -> None:
    predicted = healthy_libraries()
    other = "/opt/old-cudnn/lib/libcudnn.so.9.1.0"
    loaded = (f"{SITE}/cublas/lib/libcublas.so.12", other)
    finding = one(findings(ran_on_cpu("", loaded), predicted), "library-load-mismatch")
    assert finding.severity is Severity.WARNING
    assert other in finding.message
    assert f"{SITE}/cudnn/lib/libcudnn.so.9" in finding.message
    assert finding.evidence == (
        f"predicted: {SITE}/cudnn/lib/libcudnn.so.9 (RUNPATH of libtensorflow_framework.so.2)",
        f"loaded: {other}",
    )


def test_the_same_file_through_a_symlink_is_no_mismatch(tmp_path: Path) -> None:
    real = tmp_path / "nvidia" / "cudnn" / "lib" / "libcudnn.so.9.3.0"
    real.parent.mkdir(parents=True)
    real.write_bytes(b"\x7fELF")
    (real.parent / "libcudnn.so.9").symlink_to(real.name)
    alias = tmp_path / "alias"
    alias.symlink_to(real.parent)  # e.g. a venv reached through a symlinked directory
    predicted = (lib("cudnn", "libcudnn.so.9", str(real.parent / "libcudnn.so.9"), "9.3.0"),)
    for path in (real, alias / "libcudnn.so.9", alias / "libcudnn.so.9.3.0"):
        assert findings(ran_on_cpu("", (str(path),)), predicted) == [], path
    # ... while a copy with the same name elsewhere is one.
    copy = tmp_path / "copy" / "libcudnn.so.9"
    copy.parent.mkdir()
    copy.write_bytes(b"\x7fELF")
    assert [f.code for f in findings(ran_on_cpu("", (str(copy),)), predicted)] == [
        "library-load-mismatch"
    ]


def test_unselected_or_unfound_predictions_are_not_compared() -> None:
    predicted = (
        lib("cudnn", "libcudnn.so.9", "/opt/a/libcudnn.so.9", "9.3.0", selected=False),
        lib("cudart", "libcudart.so.12"),  # not found: no path
    )
    loaded = ("/opt/b/libcudnn.so.9", "/opt/b/libcudart.so.12")
    assert findings(ran_on_cpu("", loaded), predicted) == []


# --- the report that comes of it ---------------------------------------------------------------


def test_gpu_machine_where_tensorflow_skipped_the_gpu_is_an_error() -> None:
    matrix = load_matrix(bundled_matrix_dir())
    facts = machine()
    result = ran_on_cpu(CANNOT_DLOPEN + "\n" + SKIPPING + "\n")
    # run_doctor passes how many GPUs the probe found, so the rules can see TF missed them.
    extra = smoke_findings(result, SIGNATURES, facts.libraries, gpus_expected=len(facts.gpus))
    report = diagnose(facts, matrix, None, extra, {"status": "ok", "gpus": []})
    assert report.status == "error", (report.verdict(), [f.code for f in report.findings])


# --- every finding code is produced somewhere --------------------------------------------------

TESTS = Path(__file__).parent
SCENARIO_FILES = (
    "test_doctor_rules.py",
    "test_smoke_rules.py",
    "test_doctor_cli.py",
    "test_driver_branches.py",
)
NOT_REQUIRED = {"known-bug", "usage-pitfall", "probe-incomplete"}
# Failure classes only a log tells: each must be expected by some case of the public corpus
# (tests/corpus), which tests/test_corpus.py explains.
FROM_LOGS_ONLY = {
    "gpu-unusable", "container-gpu-unavailable", "platform-unsupported", "nccl-error",
    "program-error",
}  # fmt: skip


def test_every_code_is_produced_by_some_scenario() -> None:
    text = "\n".join((TESTS / name).read_text(encoding="utf-8") for name in SCENARIO_FILES)
    missing = {
        code
        for code in CODES - NOT_REQUIRED - FROM_LOGS_ONLY
        if f'"{code}"' not in text and f"'{code}'" not in text
    }
    assert missing == set()
    expected = {code for case in corpus_cases() for code in case.expect}
    assert expected >= FROM_LOGS_ONLY, FROM_LOGS_ONLY - expected


def test_jax_cuda_plugin_failing_without_a_driver_is_its_consequence() -> None:
    # The jax venv of tests/test_real_installs.py on a machine without a driver: the plugin's
    # initialize() fails because cuInit finds no libcuda (303); no conflict of versions.
    stderr = (
        "Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda12.initialize()\n"
        "RuntimeError: jaxlib/cuda/versions_helpers.cc:135: operation cuInit(0) failed: Unknown "
        "CUDA error 303; cuGetErrorName failed. This probably means that JAX was unable to load "
        "the CUDA libraries.\n"
    )
    assert findings(ran_on_cpu(stderr), driver_missing=True) == []
    assert "framework-conflict" in {f.code for f in findings(ran_on_cpu(stderr))}


def test_a_failed_steps_own_error_is_read_like_a_log_line() -> None:
    # PyTorch 2.14.1 with its nvidia-cudnn-cu13 wheel uninstalled (a real install): the harness
    # caught the ImportError, and stderr held nothing that names it.
    events: list[dict[str, Any]] = [
        {"step": "import", "status": "started"},
        {"step": "import", "status": "failed", "seconds": 0.4, "device": None,
         "detail": "ImportError: libcudnn.so.9: cannot open shared object file: No such file "
                   "or directory"},
        *({"step": name, "status": "skipped", "seconds": None, "device": None,
           "detail": "the import failed"} for name in STEPS if name != "import"),
    ]  # fmt: skip
    result = recorded(events, "")
    assert result.status == "failed"
    found = findings(result)
    missing = one(found, "cudnn-missing")
    assert missing.severity is Severity.ERROR
    assert "libcudnn.so.9" in missing.message
    # The cause is named, so the generic "the step failed" finding is not added.
    assert "smoke-test-failed" not in {f.code for f in found}
