"""`envcheck explain` on whole logs: real public logs in, findings, facts and exit codes out.

tests/test_signatures.py checks each signature on single lines; these tests feed whole logs
(tests/logs/*.log, each one's public source in tests/logs/SOURCES.md) through `explain_lines`
and the real CLI: which causes a log shows, the versions and platform it reveals, the line
numbers, one finding per cause, robustness to pasted input (stdin, CRLF, ANSI colours, Markdown
fences and quotes, tracebacks, broken UTF-8), random input, and a 200,000-line log.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from envcheck.explain.explanation import (
    HITS_KEPT_PER_SIGNATURE,
    RELEVANT_LINES,
    EmptyLogError,
    Explanation,
    explain_lines,
)
from envcheck.explain.explanation import explain_log as explain_chunks
from envcheck.explain.log_findings import MAX_EVIDENCE
from envcheck.explain.reader import SNIFF, NotTextError, read_chunks
from envcheck.findings import Finding, Severity
from envcheck.matrix.advisories import load_known_bugs
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.matrix.signatures import load_signatures
from envcheck.report.explanation import SCHEMA, render
from envcheck.report.formats import Format

LOGS = Path(__file__).resolve().parent / "logs"
MATRIX = load_matrix(bundled_matrix_dir())
SIGNATURES = load_signatures(MATRIX.directory)
KNOWN_BUGS = load_known_bugs(MATRIX.directory)
EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE = 0, 1, 2
NO_PROBLEM = "No known problem recognised in this log."
ONLY_HARMLESS = "The log shows no real problem: only messages known to be harmless."


def explain(lines: Any) -> Explanation:
    """What the CLI computes, in-process: the bundled signatures, matrix and known bugs."""
    return explain_lines(lines, SIGNATURES, MATRIX, KNOWN_BUGS)


def log_lines(name: str) -> list[str]:
    """The log's lines as an editor numbers them (blank lines included)."""
    return (LOGS / name).read_text(encoding="utf-8").splitlines()


def explain_log(name: str) -> Explanation:
    return explain(log_lines(name))


def causes(explanation: Explanation) -> dict[str, tuple[int, ...]]:
    """code -> lines of every finding that is neither harmless noise nor a known-bug advisory."""
    return {
        f.code: f.lines
        for f in explanation.findings
        if f.code not in ("benign-warning", "known-bug")
    }


def only(explanation: Explanation, code: str) -> Finding:
    found = [f for f in explanation.findings if f.code == code]
    assert len(found) == 1, [f.code for f in explanation.findings]
    return found[0]


def has_error(explanation: Explanation) -> bool:
    return any(f.severity is Severity.ERROR for f in explanation.findings)


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "explain", *args],
        input=stdin,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )


def cli_json(*args: str, stdin: bytes | None = None) -> tuple[int, dict[str, Any]]:
    completed = run_cli(*args, "--json", stdin=stdin)
    assert completed.returncode in (EXIT_OK, EXIT_NEGATIVE), completed.stderr
    return completed.returncode, json.loads(completed.stdout)


def json_causes(report: dict[str, Any]) -> dict[str, list[int]]:
    return {
        f["code"]: f["lines"]
        for f in report["findings"]
        if f["code"] not in ("benign-warning", "known-bug")
    }


# --- the collection --------------------------------------------------------------------------


def test_every_log_is_short_real_text_and_has_a_source() -> None:
    sources = (LOGS / "SOURCES.md").read_text(encoding="utf-8")
    logs = sorted(LOGS.glob("*.log"))
    assert 8 <= len(logs) <= 20
    for path in logs:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert 0 < len(lines) < 40, path.name
        assert not lines[0].startswith("#"), f"{path.name} starts with a comment"
        assert f"`{path.name}`" in sources, f"{path.name} has no entry in SOURCES.md"


# --- each real log: causes, line numbers, facts ------------------------------------------------


@dataclass(frozen=True)
class Expected:
    causes: dict[str, tuple[int, ...]]  # code -> line numbers, in the file's own numbering
    error: bool  # an error finding, so the CLI exits 1
    benign: tuple[int, ...] = ()  # lines of the harmless-noise finding
    facts: dict[str, Any] = field(default_factory=dict)  # a subset of facts.to_json()


EXPECTED: dict[str, Expected] = {
    "tf1_linux_kernel_dso_mismatch.log": Expected(
        # The cuInit failure (line 2) is the mismatch's consequence: one finding, both lines.
        {"driver-library-mismatch": (2, 10)},
        error=True,
        facts={
            "versions": {
                "kernel-dso-version-mismatch.kernel": "352.63.0",
                "kernel-dso-version-mismatch.dso": "361.93.2",
            },
            "driver": "361.93.2",
        },
    ),
    "tf1_linux_importerror_libcublas.log": Expected(
        {"cuda-library-missing": (12,)},
        error=True,
        facts={"libraries": {"libcublas.so.10.0": "10.0"}, "expected_cuda": ["10.0"]},
    ),
    "tf1_container_compute_capability.log": Expected(
        {"compute-capability-unsupported": (5,)},
        error=True,
        facts={
            "versions": {
                "gpu-ignored-compute-capability.capability": "3.0",
                "gpu-ignored-compute-capability.minimum": "3.5",
            },
            "gpus": [{"name": "GeForce GT 750M", "compute_capability": "3.0"}],
        },
    ),
    "tf2_linux_cudnn8_missing.log": Expected(
        # the first missing library is the cause the consequences join
        {"cuda-library-missing": (1, 3, 4), "cudnn-missing": (2,)},
        error=True,  # TensorFlow carries on, but without the GPU ("Skipping registering GPU")
        facts={
            "libraries": {"libcusolver.so.11": "11.2/11.8/12.2/12.3/12.5"},
            "tensorflow_range": "<2.11",  # tensorflow/stream_executor/ paths
        },
    ),
    "tf22_windows_cudart64_101.log": Expected(
        {"cuda-library-missing": (1, 2, 7, 8)},
        error=False,
        facts={
            "libraries": {"cudart64_101.dll": "10.1", "cublas64_10.dll": "10.1"},
            "expected_cuda": ["10.1"],
            "platforms": ["windows"],
        },
    ),
    "tf2_windows_cudnn_error_193.log": Expected(
        {"library-wrong-architecture": (3,)},
        error=True,
        benign=(2,),
        facts={"platforms": ["windows"], "cudnn": "8.5.0"},  # "Loaded cuDNN version 8500"
    ),
    "colab_cudnn_runtime_older.log": Expected(
        {"cudnn-version-mismatch": (1, 2)},
        error=True,
        facts={
            "versions": {
                "cudnn-runtime-compiled-mismatch.runtime": "8.0.5",
                "cudnn-runtime-compiled-mismatch.compiled": "8.1.0",
            }
        },
    ),
    "tf218_cudnn9_mismatch_dnn_init.log": Expected(
        {"cudnn-version-mismatch": (1, 2, 3)},
        error=True,
        facts={
            "versions": {
                "cudnn-runtime-compiled-mismatch.runtime": "9.1.0",
                "cudnn-runtime-compiled-mismatch.compiled": "9.3.0",
            }
        },
    ),
    "tf2_container_no_device.log": Expected(
        # cuInit NO_DEVICE (line 3) follows from the missing kernel driver (line 4): one finding.
        {"driver-missing": (3, 4)},
        error=True,
        benign=(5,),
        facts={"libraries": {"libcudart.so.10.1": "10.1"}, "expected_cuda": ["10.1"]},
    ),
    "tf218_xla_libdevice.log": Expected({"xla-toolchain-missing": (1, 13)}, error=True),
    "tf213_cuda_drivers_not_found.log": Expected(
        # line 7 is "Cannot dlopen some GPU libraries" cut before its "Skipping registering GPU
        # devices..." line: a warning alone
        {"cuda-library-missing": (1, 2, 7)},
        error=False,
        benign=(3, 4, 5, 6),
    ),
    "tf213_num_gpus_available_0.log": Expected(
        {"no-gpu": (8,), "cuda-library-missing": (2, 3)}, error=True, benign=(1, 4, 5, 6)
    ),
    "wsl_cudnn_cnn_infer_libcuda.log": Expected({"library-dependency-missing": (2,)}, error=True),
    "harmless_only.log": Expected({}, error=False, benign=(1, 2, 3, 4, 5, 6)),
    "tf221_cpu_only_import.log": Expected(
        {"cuda-library-missing": (2, 6)}, error=False, benign=(1, 3, 4, 5)
    ),
    # Issue 8: the seed's XLA RET_CHECK crash is a known pitfall (jit_compile), no longer unknown.
    "seed003_xla_ret_check.log": Expected({"usage-pitfall": (2,)}, error=False),
    "unknown_app_error.log": Expected({}, error=False),
}


def _log_params() -> list[Any]:
    return [
        pytest.param(
            name,
            id=name.removesuffix(".log"),
            marks=[],
        )
        for name in sorted(EXPECTED)
    ]


def test_the_table_covers_every_log() -> None:
    assert sorted(EXPECTED) == sorted(p.name for p in LOGS.glob("*.log"))


@pytest.mark.parametrize("name", _log_params())
def test_real_log_causes_lines_and_facts(name: str) -> None:
    expected = EXPECTED[name]
    explanation = explain_log(name)
    assert causes(explanation) == expected.causes
    assert has_error(explanation) is expected.error
    benign = [f.lines for f in explanation.findings if f.code == "benign-warning"]
    assert sorted(n for lines in benign for n in lines) == list(expected.benign)
    facts = explanation.facts.to_json()
    for key, value in expected.facts.items():
        assert facts[key] == value, key
    assert explanation.lines_read == len(log_lines(name))
    lines = log_lines(name)
    for finding in explanation.findings:
        if finding.code == "known-bug":
            continue
        # every line number points at a line that is part of the evidence, in order
        assert list(finding.lines) == sorted(set(finding.lines))
        for number in finding.lines:
            assert lines[number - 1].rstrip() in finding.evidence


def test_cudnn_loaded_older_than_compiled_colab() -> None:
    explanation = explain_log("colab_cudnn_runtime_older.log")
    finding = only(explanation, "cudnn-version-mismatch")
    assert finding.severity is Severity.ERROR
    assert "built with cuDNN 8.1.0 but loaded cuDNN 8.0.5" in finding.message
    assert "Install cuDNN 8.1.0" in finding.fix
    assert len(finding.evidence) == 2  # two timestamps: two lines of evidence, one finding
    assert explanation.summary() == finding.message


def test_cudnn9_mismatch_takes_its_consequence_as_evidence() -> None:
    lines = log_lines("tf218_cudnn9_mismatch_dnn_init.log")
    explanation = explain(lines)
    finding = only(explanation, "cudnn-version-mismatch")
    assert finding.evidence == tuple(lines)  # the two mismatch lines first, then the consequence
    assert "DNN library initialization failed" in finding.evidence[-1]


def test_windows_cudart64_101_expects_cuda_10_1_and_tf_2_1_to_2_3() -> None:
    explanation = explain_log("tf22_windows_cudart64_101.log")
    finding = only(explanation, "cuda-library-missing")
    assert (
        finding.message == "TensorFlow could not load cudart64_101.dll: cudart64_101.dll not found."
    )
    assert "asks for CUDA 10.1 libraries (cublas64_10.dll, cudart64_101.dll)" in finding.fix
    assert "(TensorFlow 2.1-2.3)" in finding.fix
    assert explanation.facts.platforms == {"windows"}
    assert explanation.summary() == finding.message


def test_tf1_importerror_inside_a_traceback_names_cuda_10_0() -> None:
    explanation = explain_log("tf1_linux_importerror_libcublas.log")
    finding = only(explanation, "cuda-library-missing")
    assert finding.lines == (12,)
    assert finding.evidence == (
        "ImportError: libcublas.so.10.0: cannot open shared object file: No such file or directory",
    )
    assert "Python could not load libcublas.so.10.0" in finding.message
    assert "CUDA 10.0" in finding.fix and "(TensorFlow 1.13-" in finding.fix


def test_windows_cudnn_error_193_is_the_wrong_architecture_and_a_known_bug() -> None:
    explanation = explain_log("tf2_windows_cudnn_error_193.log")
    finding = only(explanation, "library-wrong-architecture")
    assert finding.message == "cuDNN could not load cudnn_cnn_infer64_8.dll (Windows error 193)."
    assert "64-bit" in finding.fix
    bug = only(explanation, "known-bug")
    assert bug.lines == (3,)
    assert bug.evidence == ("https://github.com/lightvector/KataGo/issues/828",)
    assert only(explanation, "benign-warning").message.startswith("TensorFlow loaded cuDNN 8500")


def test_wsl_cudnn_sublibrary_needing_libcuda() -> None:
    finding = only(explain_log("wsl_cudnn_cnn_infer_libcuda.log"), "library-dependency-missing")
    assert finding.lines == (2,)
    assert "/usr/lib/wsl/lib" in finding.fix


def test_container_without_gpu_names_the_host_and_the_no_device_error() -> None:
    explanation = explain_log("tf2_container_no_device.log")
    driver = only(explanation, "driver-missing")
    assert explanation.summary() == driver.message
    assert "16c54693e7f2" in driver.message
    assert "--gpus all" in driver.fix
    assert any("CUDA_ERROR_NO_DEVICE" in line for line in driver.evidence)


def test_kernel_dso_mismatch_versions() -> None:
    finding = only(explain_log("tf1_linux_kernel_dso_mismatch.log"), "driver-library-mismatch")
    assert "(352.63.0)" in finding.message and "(361.93.2)" in finding.message
    assert finding.lines == (2, 10)


def test_kernel_dso_mismatch_is_the_summary_not_the_cuinit_failure_it_causes() -> None:
    explanation = explain_log("tf1_linux_kernel_dso_mismatch.log")
    assert explanation.summary().startswith("The loaded NVIDIA kernel module (352.63.0)")


def test_one_finding_for_missing_libcudnn_and_its_consequences() -> None:
    # lines 2-4 of tf2_linux_cudnn8_missing.log, then what list_physical_devices('GPU') prints
    lines = [*log_lines("tf2_linux_cudnn8_missing.log")[1:], "[]"]
    explanation = explain(lines)
    assert causes(explanation) == {"cudnn-missing": (1, 2, 3)}
    finding = only(explanation, "cudnn-missing")
    assert finding.evidence[0] == lines[0]  # the root cause first
    assert "Cannot dlopen some GPU libraries" in finding.evidence[1]
    assert finding.evidence[2] == "Skipping registering GPU devices..."
    assert finding.message.startswith("TensorFlow could not load libcudnn.so.8")
    assert explanation.summary() == finding.message


def test_xla_libdevice_lines_are_one_cause_with_the_path() -> None:
    explanation = explain_log("tf218_xla_libdevice.log")
    assert causes(explanation) == {"xla-toolchain-missing": (1, 13)}
    finding = only(explanation, "xla-toolchain-missing")
    assert "XLA_FLAGS=--xla_gpu_cuda_data_dir" in finding.fix


def test_an_error_is_not_hidden_under_a_warning_of_the_same_code() -> None:
    explanation = explain_log("tf218_xla_libdevice.log")
    assert only(explanation, "xla-toolchain-missing").severity is Severity.ERROR
    assert has_error(explanation)


# --- harmless and unknown logs ----------------------------------------------------------------


def test_tf221_cpu_only_import_is_no_error() -> None:
    # TF 2.21's stderr at `import tensorflow` on a host without a GPU (docs/facts.md section 8)
    lines = log_lines("tf221_cpu_only_import.log")
    explanation = explain(lines)
    assert not has_error(explanation)
    for finding in explanation.findings:
        if finding.code == "benign-warning":
            assert finding.severity is Severity.INFO
        else:  # only the cudart_stub line, which is normal on a CPU-only host
            assert finding.severity is not Severity.ERROR
            assert all("Could not find cuda drivers" in lines[n - 1] for n in finding.lines)
    assert only(explanation, "cuda-library-missing").lines == (2, 6)


def test_only_harmless_messages() -> None:
    explanation = explain_log("harmless_only.log")
    assert explanation.only_benign
    assert explanation.summary() == ONLY_HARMLESS
    assert {f.severity for f in explanation.findings} == {Severity.INFO}
    text = render(explanation, Format.TEXT)
    assert text.startswith(ONLY_HARMLESS)
    assert "Harmless (no need to chase these):" in text
    assert "ERROR" not in text and "WARNING" not in text


def test_unknown_log_lists_the_relevant_lines_error_first() -> None:
    lines = log_lines("unknown_app_error.log")
    explanation = explain(lines)
    assert not explanation.recognised
    assert explanation.summary() == NO_PROBLEM
    assert explanation.relevant[0] == (1, lines[0])
    assert "OP_REQUIRES failed" in lines[0]
    # Line 1 (an error, 'failed') and line 5 (the ValueError's 'could not' is not telling... ):
    # only lines with telling words are listed, the traceback frames are not.
    numbers = [n for n, _ in explanation.relevant]
    assert numbers[0] == 1
    assert 3 not in numbers and 4 not in numbers
    text = render(explanation, Format.TEXT)
    assert text.startswith(NO_PROBLEM)
    assert f"Lines that looked most relevant:\n  1: {lines[0]}" in text


def test_relevant_lines_are_few_and_the_most_telling() -> None:
    # An alarm word ("failed") makes a line a candidate; telling words rank it.
    lines = [f"step {i}: kernel launch failed" for i in range(40)]  # one telling word each
    lines[25] = "E external/local_xla/xla/service/gpu/gpu_compiler.cc:1] Fatal error: CUDA failed"
    lines[30] = "step 30: cuda kernel launched, nothing went wrong"  # telling, but no alarm word
    explanation = explain(lines)
    numbers = [n for n, _ in explanation.relevant]
    assert len(numbers) == RELEVANT_LINES
    assert 26 in numbers
    assert 31 not in numbers
    assert numbers == sorted(numbers)


# --- the command: exit codes, formats, input robustness ----------------------------------------


def test_cli_file_exit_codes_and_summaries() -> None:
    code, report = cli_json(str(LOGS / "colab_cudnn_runtime_older.log"))
    assert code == EXIT_NEGATIVE
    assert json_causes(report) == {"cudnn-version-mismatch": [1, 2]}
    code, report = cli_json(str(LOGS / "harmless_only.log"))
    assert (code, report["summary"]) == (EXIT_OK, ONLY_HARMLESS)
    code, report = cli_json(str(LOGS / "unknown_app_error.log"))
    assert (code, report["summary"], report["findings"]) == (EXIT_OK, NO_PROBLEM, [])
    assert report["relevant_lines"][0]["line"] == 1
    assert "OP_REQUIRES failed" in report["relevant_lines"][0]["text"]


def test_cli_json_shape() -> None:
    code, report = cli_json(str(LOGS / "tf22_windows_cudart64_101.log"))
    assert code == EXIT_OK  # warnings only
    assert set(report) == {"schema", "summary", "findings", "facts", "relevant_lines", "lines_read"}
    assert report["schema"] == SCHEMA == "envcheck.explain/1"
    assert report["lines_read"] == 8
    assert report["relevant_lines"] == []  # only listed when nothing was recognised
    for finding in report["findings"]:
        assert set(finding) == {
            "code",
            "severity",
            "message",
            "evidence",
            "fix",
            "lines",
            "lines_total",
        }
        assert finding["lines_total"] >= len(finding["lines"])
        assert finding["severity"] in ("error", "warning", "info")
        assert finding["evidence"] and all(isinstance(n, int) for n in finding["lines"])
    assert set(report["facts"]) == {
        "libraries",
        "expected_cuda",
        "versions",
        "gpus",
        "platforms",
        "tensorflow",
        "tensorflow_range",
        "cudnn",
        "driver",
        "kernel_module",
        "driver_cuda",
        "toolkit",
        "failed_libraries",
        "cuda",
        "torch",
        "jaxlib",
        "jax_plugin",
        "tensorflow_build",
        "python",
        "python_bits",
        "program_archs",
        "frameworks",
        "framework",
    }
    assert report["facts"]["expected_cuda"] == ["10.1"]
    assert report["facts"]["platforms"] == ["windows"]


def test_cli_markdown_and_text_formats() -> None:
    path = str(LOGS / "colab_cudnn_runtime_older.log")
    markdown = run_cli(path, "--format", "markdown")
    assert markdown.returncode == EXIT_NEGATIVE
    text = markdown.stdout.decode()
    assert text.startswith(
        "### envcheck explain\n\nThis build (TensorFlow, or JAX through the same XLA code) was built with cuDNN 8.1.0"
    )
    assert "- **error** `cudnn-version-mismatch` (lines 1, 2): " in text
    assert "  - fix: Install cuDNN 8.1.0" in text
    plain = run_cli(path).stdout.decode()
    assert "ERROR [cudnn-version-mismatch] (lines 1, 2)" in plain
    assert (
        "  > 2021-11-24 04:51:47.954507: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362]"
        in plain
    )
    bad = run_cli(path, "--format", "yaml")
    assert bad.returncode == EXIT_USAGE
    assert bad.stdout == b"" and len(bad.stderr.decode().strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["tf2_linux_cudnn8_missing.log", "tf22_windows_cudart64_101.log"])
def test_markdown_quotes_the_evidence_the_text_quotes(name: str) -> None:
    # Issue 23: the Markdown report dropped the log lines the text report quotes.
    explanation = explain_log(name)
    text = render(explanation, Format.TEXT)
    markdown = render(explanation, Format.MARKDOWN)
    quoted = [line[4:] for line in text.splitlines() if line.startswith("  > ")]
    assert quoted
    for line in quoted:
        assert f"  - evidence: `{line}`" in markdown.splitlines()


def test_markdown_evidence_with_backticks_stays_one_code_span() -> None:
    finding = Finding(
        "cuda-library-missing", Severity.ERROR, "m.", evidence=("a `b` and ``c``",), lines=(1,)
    )
    explanation = replace(explain_log("harmless_only.log"), findings=(finding,))
    assert "  - evidence: ``` a `b` and ``c`` ```" in render(explanation, Format.MARKDOWN)


def test_the_cudnn_fix_names_no_cuda_library_it_is_not_about() -> None:
    # tf2_linux_cudnn8_missing.log: libcusolver.so.11 (line 1) and libcudnn.so.8 (line 2) are
    # missing. The cuDNN finding's fix repeated what the log's CUDA libraries imply.
    explanation = explain_log("tf2_linux_cudnn8_missing.log")
    cusolver = only(explanation, "cuda-library-missing")
    cudnn = only(explanation, "cudnn-missing")
    assert "libcusolver.so.11" in cusolver.fix and "CUDA 11.2" in cusolver.fix
    assert "libcusolver" not in cudnn.fix
    assert "asks for CUDA" not in cudnn.fix


def test_cli_reads_stdin() -> None:
    data = (LOGS / "tf1_container_compute_capability.log").read_bytes()
    code, report = cli_json("-", stdin=data)
    assert code == EXIT_NEGATIVE
    assert json_causes(report) == {"compute-capability-unsupported": [5]}
    code, report = cli_json(stdin=data)  # '-' is the default
    assert json_causes(report) == {"compute-capability-unsupported": [5]}


def test_cli_crlf_line_ends() -> None:
    data = (LOGS / "tf22_windows_cudart64_101.log").read_bytes()
    _, lf = cli_json("-", stdin=data)
    code, crlf = cli_json("-", stdin=data.replace(b"\n", b"\r\n"))
    assert code == EXIT_OK
    assert crlf["findings"] == lf["findings"]
    assert json_causes(crlf) == {"cuda-library-missing": [1, 2, 7, 8]}
    assert not any("\r" in e for f in crlf["findings"] for e in f["evidence"])


def test_cli_ansi_colours_around_the_key_line() -> None:
    lines = log_lines("colab_cudnn_runtime_older.log")
    data = f"\x1b[0;32mINFO\x1b[0m starting\n\x1b[1;31m{lines[0]}\x1b[0m\x1b[K\n".encode()
    code, report = cli_json("-", stdin=data)
    assert code == EXIT_NEGATIVE
    finding = report["findings"][0]
    assert (finding["code"], finding["lines"], finding["evidence"]) == (
        "cudnn-version-mismatch",
        [2],
        [lines[0]],
    )


def test_cli_log_pasted_in_a_markdown_fence_and_as_a_quote() -> None:
    lines = log_lines("tf2_linux_cudnn8_missing.log")
    fenced = ["I get this when I import tensorflow:", "```text", *lines, "```", "Any idea?"]
    quoted = ["Quoting the original report:", *(f"> {line}" for line in lines), "> > [] ```"]
    for pasted in (fenced, quoted):
        code, report = cli_json("-", stdin="\n".join(pasted).encode() + b"\n")
        assert code == EXIT_NEGATIVE  # "Skipping registering GPU devices": no GPU
        first = pasted.index(next(p for p in pasted if lines[0] in p)) + 1
        assert json_causes(report) == {
            "cuda-library-missing": [first, first + 2, first + 3],
            "cudnn-missing": [first + 1],
        }
        cudnn = next(f for f in report["findings"] if f["code"] == "cudnn-missing")
        assert cudnn["evidence"] == [lines[1]]  # the markers are stripped


def test_cli_traceback_around_the_importerror() -> None:
    code, report = cli_json(str(LOGS / "tf1_linux_importerror_libcublas.log"))
    assert code == EXIT_NEGATIVE
    assert json_causes(report) == {"cuda-library-missing": [12]}
    assert report["facts"]["expected_cuda"] == ["10.0"]


def test_cli_invalid_utf8_next_to_a_real_message() -> None:
    line = log_lines("tf2_windows_cudnn_error_193.log")[2].encode()
    data = b"\xff\xfe" + b"garbage \xc3\x28 \xa0\xa1\n" + b"\xff\xfe" + line + b"\xff\n\xfe\n"
    code, report = cli_json("-", stdin=data)
    assert code == EXIT_NEGATIVE
    assert json_causes(report) == {"library-wrong-architecture": [2]}
    assert report["findings"][0]["evidence"][0].endswith("Error code 193\ufffd")


def test_cli_unreadable_input_is_exit_2_in_one_line(tmp_path: Path) -> None:
    for target, words in ((tmp_path / "missing.log", "does not exist"), (tmp_path, "directory")):
        completed = run_cli(str(target))
        assert completed.returncode == EXIT_USAGE
        assert completed.stdout == b""
        stderr = completed.stderr.decode()
        assert len(stderr.strip().splitlines()) == 1, stderr
        assert stderr.startswith("envcheck: error: ") and words in stderr
        assert "Traceback" not in stderr


def test_line_numbers_count_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "pasted.log"
    path.write_bytes((LOGS / "tf218_xla_libdevice.log").read_bytes())
    explanation = explain_chunks(read_chunks(str(path)), SIGNATURES, MATRIX, KNOWN_BUGS)
    assert only(explanation, "xla-toolchain-missing").lines == (1, 13)
    assert explanation.lines_read == 13
    _, report = cli_json(
        "-", stdin=b"first\n\r\n\n" + (LOGS / "colab_cudnn_runtime_older.log").read_bytes()
    )
    assert json_causes(report) == {"cudnn-version-mismatch": [4, 5]}
    assert report["lines_read"] == 5


# --- facts: platform and known bugs -----------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["tf1_linux_importerror_libcublas.log", "tf2_linux_cudnn8_missing.log"]
)
def test_a_system_dist_packages_path_is_not_colab(name: str) -> None:
    assert "colab" not in explain_log(name).facts.platforms


def test_a_linux_tf216_bug_is_not_reported_for_a_windows_cuda_10_1_log() -> None:
    explanation = explain_log("tf22_windows_cudart64_101.log")
    assert "known-bug" not in {f.code for f in explanation.findings}


def test_no_facts_are_invented() -> None:
    facts = explain_log("harmless_only.log").facts.to_json()
    assert facts == {
        "libraries": {},
        "expected_cuda": [],
        "versions": {},
        "gpus": [],
        "platforms": [],
        "tensorflow": None,
        "tensorflow_range": ">=2.16",  # real: its lines come from external/local_xla/ paths
        "cudnn": None,
        "driver": None,
        "kernel_module": None,
        "driver_cuda": None,
        "toolkit": None,
        "failed_libraries": {},
        "cuda": None,
        "torch": None,
        "jaxlib": None,
        "jax_plugin": None,
        "tensorflow_build": {},
        "python": None,
        "python_bits": None,
        "program_archs": None,
        # real: its seven lines are TensorFlow's (external/local_xla/, "TensorFlow binary")
        "frameworks": {"tensorflow": 7},
        "framework": "tensorflow",
    }


# --- random input -----------------------------------------------------------------------------


def _all_log_lines() -> list[str]:
    return [line for path in sorted(LOGS.glob("*.log")) for line in log_lines(path.name)]


def _check_renders(explanation: Explanation) -> None:
    for output in Format:
        assert render(explanation, output)
    json.loads(render(explanation, Format.JSON))
    for finding in explanation.findings:
        assert all(1 <= n <= explanation.lines_read for n in finding.lines)
        assert len(finding.evidence) <= MAX_EVIDENCE


def _explain_or_refuse(data: bytes) -> Explanation | None:
    """explain of stdin, or None where the input is refused as unusable, which must be exactly
    the binary (a NUL in the first block, no UTF-16 BOM) and the empty (no line with text)."""
    binary = b"\x00" in data[:SNIFF] and not data.startswith((b"\xff\xfe", b"\xfe\xff"))
    try:
        explanation = explain_chunks(read_chunks("-"), SIGNATURES, MATRIX, KNOWN_BUGS)
    except NotTextError:
        assert binary
        return None
    except EmptyLogError:
        assert not binary
        return None
    assert not binary
    return explanation


def test_random_bytes_never_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(20261130)
    started = time.perf_counter()
    for case in range(300):
        data = rng.randbytes(rng.randrange(0, 4097))
        if case % 3 == 0:  # printable-ish noise with escape sequences and quote/fence markers
            data = bytes(rng.choice(b"\x1b[]0123456789;mK>`~ \t\r\nabcdefE:") for _ in data)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        one = time.perf_counter()
        explanation = _explain_or_refuse(data)
        assert time.perf_counter() - one < 2.0, f"case {case} took too long"
        if explanation is not None:
            _check_renders(explanation)
    print(f"300 random byte logs: {time.perf_counter() - started:.2f} s")


def test_real_lines_mixed_with_garbage_are_still_found() -> None:
    rng = random.Random(7)
    real = _all_log_lines()
    hit_alone = {line for line in real if line.strip() and explain([line]).findings}
    for _ in range(100):
        mixed: list[str] = []
        real_positions: list[int] = []
        for _ in range(rng.randrange(1, 60)):
            if rng.random() < 0.5:
                line = rng.choice(real)
                if line in hit_alone:
                    real_positions.append(len(mixed) + 1)
            else:
                garbage = (
                    rng.randbytes(rng.randrange(0, 300)).replace(b"\n", b"").replace(b"\r", b"")
                )
                line = garbage.decode("utf-8", errors="replace")
            mixed.append(line)
        if not any(line.strip() for line in mixed):
            with pytest.raises(EmptyLogError):
                explain(mixed)
            continue
        explanation = explain(mixed)
        _check_renders(explanation)
        assert explanation.lines_read == len(mixed)
        found = {n for f in explanation.findings for n in f.lines}
        missing = set(real_positions) - found
        assert not missing, [mixed[n - 1] for n in sorted(missing)]


def test_real_logs_in_random_byte_soup_never_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    real = [path.read_bytes() for path in sorted(LOGS.glob("*.log"))]
    for _ in range(60):
        parts = [
            rng.choice(real) if rng.random() < 0.4 else rng.randbytes(rng.randrange(0, 512))
            for _ in range(8)
        ]
        data = b"".join(parts)
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        explanation = _explain_or_refuse(data)
        if explanation is not None:
            _check_renders(explanation)


# --- a large log ------------------------------------------------------------------------------

MISMATCH = (
    "2021-11-24 04:51:47.{n:06d}: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime "
    "CuDNN library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN library needs to have matching "
    "major version and equal or higher minor version."
)
CUDNN_MISSING = (
    "2022-07-10 15:08:09.{n:06d}: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory"
)
KERNEL_DSO = (
    "E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:296] kernel version 352.63.0 does not "
    "match DSO version 361.93.2 -- cannot find working devices in this configuration"
)
NOISE = (
    "Epoch {n}/200",
    "{n}/1875 [==============================] - 4s 2ms/step - loss: 0.2961 - accuracy: 0.9137",
    "index = {n}",
    "2024-04-03 16:50:32.{n:06d}: I tensorflow/core/common_runtime/executor.cc:1197] step {n} done",
    "",
    "    at org.example.Trainer.run(Trainer.java:{n})",
)


def test_200000_line_log_streams_and_caps_evidence() -> None:
    total = 200_000
    mismatch_at = [n for n in range(1, total + 1) if n % 997 == 0]  # 200 repeats
    missing_at = [n for n in range(1, total + 1) if n % 5003 == 0]  # 39 repeats
    pulled = 0

    def log() -> Iterator[str]:
        nonlocal pulled
        for n in range(1, total + 1):
            pulled += 1
            if n % 997 == 0:
                yield MISMATCH.format(n=n % 1_000_000)
            elif n % 5003 == 0:
                yield CUDNN_MISSING.format(n=n)
            elif n == 150_001:
                yield KERNEL_DSO
            else:
                yield NOISE[n % len(NOISE)].format(n=n)

    started = time.perf_counter()
    explanation = explain(log())
    seconds = time.perf_counter() - started
    print(f"explain_lines, {total:,} lines: {seconds:.2f} s ({total / seconds:,.0f} lines/s)")
    assert pulled == total
    assert explanation.lines_read == total
    mismatch = only(explanation, "cudnn-version-mismatch")
    assert mismatch.lines == tuple(mismatch_at[:HITS_KEPT_PER_SIGNATURE])
    assert len(mismatch.evidence) == MAX_EVIDENCE
    assert mismatch.evidence[0] == MISMATCH.format(n=997)
    assert only(explanation, "cudnn-missing").lines == tuple(missing_at)
    assert only(explanation, "driver-library-mismatch").lines == (150_001,)
    assert explanation.summary() == mismatch.message
    assert len(render(explanation, Format.JSON)) < 100_000  # the report stays small


def test_a_repeated_message_keeps_its_first_hits_only() -> None:
    explanation = explain(MISMATCH.format(n=n) for n in range(1, 81))
    finding = only(explanation, "cudnn-version-mismatch")
    assert finding.lines == tuple(range(1, HITS_KEPT_PER_SIGNATURE + 1))
    assert finding.evidence == tuple(MISMATCH.format(n=n) for n in range(1, MAX_EVIDENCE + 1))
    assert explanation.lines_read == 80
