"""explain reads a log as the framework it shows (issue 20, item 5): every fix names that
framework and its install route, never TensorFlow's for another framework's log; on macOS the
answer is the framework's own (no CUDA there); a log that does not show its framework gets a
neutral fix.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from envcheck.explain.explanation import Explanation, explain_lines
from envcheck.findings import Finding, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.matrix.rows import MatrixDataError
from envcheck.matrix.signatures import FILE, FILES, load_log_frameworks, load_signatures
from tests.corpus_cases import CORPUS, HOLDOUTS, Case, cases, explain_case

MATRIX = load_matrix(bundled_matrix_dir())
TENSORFLOW = re.compile(r"tensorflow", re.IGNORECASE)
# Corpus labels -> LOG_FRAMEWORKS names.
LABELS = {"pytorch": "torch", "jax": "jax", "onnxruntime": "onnxruntime",
          "ctranslate2": "ctranslate2", "paddle": "paddle", "cupy": "cupy"}  # fmt: skip


def explain(lines: list[str]) -> Explanation:
    return explain_lines(lines, MATRIX.signatures, MATRIX, MATRIX.known_bugs)


def only(explanation: Explanation, code: str) -> Finding:
    found = [f for f in explanation.findings if f.code == code]
    assert len(found) == 1, [f.code for f in explanation.findings]
    return found[0]


def no_tensorflow(explanation: Explanation) -> None:
    for finding in explanation.findings:
        assert not TENSORFLOW.search(finding.fix), (finding.code, finding.fix)


# A PyTorch import whose bundled cuDNN is gone (the first example).
TORCH_CUDNN = [
    "Traceback (most recent call last):",
    '  File "train.py", line 1, in <module>',
    "    import torch",
    '  File "/home/u/venv/lib/python3.10/site-packages/torch/__init__.py", line 229, in <module>',
    "    from torch._C import *  # noqa: F403",
    "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory",
]
# ONNX Runtime's provider bridge missing CUDA 11's cuBLASLt (the issue's second example).
ORT_CUBLASLT = [
    "2023-05-01 10:00:00.000 [E:onnxruntime:Default, provider_bridge_ort.cc:1351 "
    "TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc"
    ":1131 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : "
    "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
    "libcublasLt.so.11: cannot open shared object file: No such file or directory",
]
JAX_CPU = [
    "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
    "Falling back to cpu.",
]


def torch_not_compiled(home: str) -> list[str]:
    return [
        "Traceback (most recent call last):",
        f'  File "{home}/x.py", line 3, in <module>',
        "    x = torch.zeros(1).cuda()",
        f'  File "{home}/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 289, '
        "in _lazy_init",
        '    raise AssertionError("Torch not compiled with CUDA enabled")',
        "AssertionError: Torch not compiled with CUDA enabled",
    ]


def test_a_pytorch_log_missing_cudnn_gets_pytorchs_route() -> None:
    explanation = explain(TORCH_CUDNN)
    assert explanation.facts.framework == "torch"
    fix = only(explanation, "cudnn-missing").fix
    assert "PyTorch was built for" in fix
    assert "PyTorch's CUDA 12.6 (cu126) wheel index" in fix
    assert "envcheck recommend --framework torch" in fix
    no_tensorflow(explanation)


def test_an_onnxruntime_log_missing_cublaslt_is_not_told_about_tensorflow() -> None:
    explanation = explain(ORT_CUBLASLT)
    assert explanation.facts.framework == "onnxruntime"
    fix = only(explanation, "cuda-library-missing").fix
    assert "onnxruntime-gpu" in fix
    # The CUDA the library name belongs to, said without TensorFlow's release table.
    assert "libcublasLt.so.11 belongs to CUDA 11" in fix and "ONNX Runtime" in fix
    no_tensorflow(explanation)


def test_a_cpu_only_jaxlib_gets_jaxs_route_and_its_framework_in_data() -> None:
    explanation = explain(JAX_CPU)
    finding = only(explanation, "framework-cpu-only")
    assert finding.data == {"framework": "jax"}
    assert 'pip install -U "jax[cuda12]"' in finding.fix
    assert finding.to_json()["data"] == {"framework": "jax"}
    no_tensorflow(explanation)


def test_a_cpu_only_torch_on_linux_gets_pytorchs_cuda_wheels() -> None:
    explanation = explain(torch_not_compiled("/home/me"))
    assert "macos" not in explanation.facts.platforms
    finding = only(explanation, "framework-cpu-only")
    assert finding.data == {"framework": "torch"}
    assert "PyTorch's CUDA 12.6 (cu126) wheel index" in finding.fix
    assert "envcheck recommend --framework torch" in finding.fix
    no_tensorflow(explanation)


def test_a_cpu_only_torch_on_macos_is_told_mps_or_the_cpu_not_a_cuda_build() -> None:
    explanation = explain(torch_not_compiled("/Users/me"))
    assert "macos" in explanation.facts.platforms
    finding = only(explanation, "framework-cpu-only")
    assert finding.data == {"framework": "torch"}
    assert "no CUDA build for macOS" in finding.fix and "MPS" in finding.fix
    assert "wheel index" not in finding.fix and "cu126" not in finding.fix
    no_tensorflow(explanation)


def test_a_cpu_only_jaxlib_on_macos_is_told_the_cpu_or_jax_metal() -> None:
    explanation = explain(
        ['  File "/opt/homebrew/lib/python3.12/site-packages/jax/_src/xla_bridge.py"', *JAX_CPU]
    )
    fix = only(explanation, "framework-cpu-only").fix
    assert "no CUDA build for macOS" in fix and "jax-metal" in fix and "cuda12" not in fix


def test_a_windows_path_is_not_macos() -> None:
    explanation = explain(['  File "C:/Users/me/x.py", line 3', *torch_not_compiled("C:/Users/me")])
    assert "macos" not in explanation.facts.platforms


def test_a_log_that_does_not_show_its_framework_gets_a_neutral_fix() -> None:
    explanation = explain(
        [
            "Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
            "libcudart.so.11.0: cannot open shared object file"
        ]
    )
    assert explanation.facts.framework == ""
    fix = only(explanation, "cuda-library-missing").fix
    assert "the framework was built for" in fix
    assert "libcudart.so.11.0 belongs to CUDA 11" in fix
    no_tensorflow(explanation)


def test_a_tensorflow_log_keeps_tensorflows_fix() -> None:
    explanation = explain(
        [
            "2021-01-01 00:00:00.000000: W tensorflow/stream_executor/platform/default/"
            "dso_loader.cc:60] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
            "libcudart.so.11.0: cannot open shared object file: No such file or directory",
        ]
    )
    assert explanation.facts.framework == "tensorflow"
    fix = only(explanation, "cuda-library-missing").fix
    assert "tensorflow[and-cuda]" in fix and "The log's TensorFlow asks for CUDA 11" in fix


def test_jaxlibs_vendored_tensorflow_paths_do_not_make_a_tensorflow_log() -> None:
    line = (
        "E0101 external/org_tensorflow/tensorflow/compiler/xla/stream_executor/cuda/"
        "cuda_dnn.cc:1] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
    )
    explanation = explain(["import jax", line])
    assert "tensorflow" not in explanation.facts.frameworks
    assert explanation.facts.framework == "jax"
    no_tensorflow(explanation)
    # Without "import jax": a TensorFlow row's hit on the vendored path speaks for JAX, and the
    # path does not narrow a TensorFlow release (train-za's JAX-on-WSL log).
    numa = (
        "2021-06-10 19:05:08.512862: I external/org_tensorflow/tensorflow/stream_executor/cuda/"
        "cuda_gpu_executor.cc:927] could not open file to read NUMA node: "
        "/sys/bus/pci/devices/0000:01:00.0/numa_node"
    )
    alone = explain([numa])
    assert set(alone.facts.frameworks) == {"jax"} and alone.facts.tensorflow_range is None
    own = explain([numa.replace("external/org_tensorflow/", "")])
    assert "tensorflow" in own.facts.frameworks and own.facts.tensorflow_range is not None


@pytest.mark.parametrize(
    ("case", "framework", "named"),
    [
        (
            "other-frameworks/ort-cuda11-build-libcublaslt11-on-cuda12",
            "onnxruntime",
            "onnxruntime-gpu",
        ),
        ("other-frameworks/ct2-realtimestt-cublas64-12-missing", "ctranslate2", "CTranslate2"),
        ("other-frameworks/jax-cpu-jaxlib-gpax", "jax", "jax[cuda12]"),
        ("pytorch/torch-cudnn-incompat-850-vs-841-gladia", "torch", "PyTorch"),
    ],
)
def test_corpus_logs_of_other_frameworks_get_their_own_route(
    case: str, framework: str, named: str
) -> None:
    (found,) = [c for c in cases() if c.name == case]
    explanation = explain_case(found, MATRIX)
    assert explanation.facts.framework == framework
    assert any(named in f.fix for f in explanation.findings), [f.fix for f in explanation.findings]
    no_tensorflow(explanation)


def _labelled_cases() -> list[Case]:
    # The corpus and the first held-out set; the second is only measured (tests/corpus/README.md).
    return [c for root in (CORPUS, HOLDOUTS[0]) for c in cases(root) if c.framework in LABELS]


@pytest.mark.parametrize("case", _labelled_cases(), ids=lambda c: c.name)
def test_no_fix_says_tensorflow_for_a_log_of_another_framework(case: Case) -> None:
    explanation = explain_case(case, MATRIX)
    # The framework read is the labelled one, or none when the log does not show it; in a log
    # of a shared environment (ONNX Runtime's preload before import torch) the labelled one is
    # at least among those it shows.
    facts = explanation.facts
    labelled = LABELS[case.framework]
    assert facts.framework in ("", labelled) or (
        len(facts.frameworks) > 1 and labelled in facts.frameworks
    ), (facts.framework, facts.frameworks)
    if TENSORFLOW.search(case.log.read_text(encoding="utf-8", errors="replace")):
        return  # the log itself shows TensorFlow (a Keras model beside JAX, a shared stack)
    no_tensorflow(explanation)


# --- the data: fix variants are checked at load ------------------------------------------------


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    for name in FILES:
        shutil.copy(MATRIX.directory / name, tmp_path / name)
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_shared_rows_fix_naming_tensorflow_needs_a_neutral_variant(data_copy: Path) -> None:
    # dlopen-failed is printed by more than TensorFlow: without its "other" variant it fails.
    _edit(data_copy / FILE, '  other = "Install the library by exactly this name', '  torch = "x')
    with pytest.raises(MatrixDataError, match=r"dlopen-failed.*names TensorFlow"):
        load_signatures(data_copy)


def test_a_variant_for_another_framework_may_not_name_tensorflow(data_copy: Path) -> None:
    path = data_copy / FILE
    text = path.read_text(encoding="utf-8")
    old = '  other = "Install ptxas: pip install nvidia-cuda-nvcc-cu12,'
    assert old in text
    path.write_text(text.replace(old, '  other = "Install ptxas: pip install tensorflow,', 1))
    with pytest.raises(MatrixDataError, match="names TensorFlow"):
        load_signatures(data_copy)


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ('  "torch on macos" = ', '  "torch on linux" = ', "not a framework"),
        ('framework = "jax"\n', 'framework = "mxnet"\n', "not one of"),
        (
            'other = "Install ptxas: pip install nvidia-cuda-nvcc-cu12,',
            'other = "Install {nothing}: pip install nvidia-cuda-nvcc-cu12,',
            "nothing",
        ),
    ],
)
def test_bad_variants_are_refused(data_copy: Path, old: str, new: str, error: str) -> None:
    path = data_copy / (FILE if "ptxas" in old else FILES[1])
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(MatrixDataError, match=error):
        load_signatures(data_copy)


def test_every_log_framework_has_an_install_route_citing_a_source() -> None:
    routes = load_log_frameworks(MATRIX.directory)
    assert set(routes) == {
        "tensorflow",
        "torch",
        "jax",
        "onnxruntime",
        "ctranslate2",
        "paddle",
        "cupy",
        "other",
    }
    assert all(route.sources and route.cuda_build for route in routes.values())
    assert "PyTorch's CUDA 12.6 (cu126) wheel index" in routes["torch"].cuda_build
    assert not TENSORFLOW.search(routes["other"].cuda_build)


def capability_warning(capability: str, oldest: str, newest: str) -> list[str]:
    """PyTorch 2.9's capability warning as it prints it, over three lines."""
    return [
        "UserWarning:",
        f"    Found GPU0 NVIDIA GB10 which is of cuda capability {capability}.",
        "    Minimum and Maximum cuda capability supported by this version of PyTorch is",
        f"    ({oldest}) - ({newest}) ",
    ]


def test_a_gpu_one_minor_past_the_builds_newest_is_harmless_over_three_lines() -> None:
    # A DGX Spark (12.1) under a build up to 12.0 (pytorch/pytorch#172629): sm_120 kernels run
    # there. The range two lines below the GPU reads the GPU's own line too (with_leader).
    explanation = explain(capability_warning("12.1", "8.0", "12.0"))
    assert [f.code for f in explanation.findings] == ["benign-warning"]
    assert "runs kernels built for an earlier minor one" in explanation.findings[0].message


def test_a_gpu_of_another_major_than_the_builds_range_is_still_unsupported() -> None:
    explanation = explain(capability_warning("6.1", "7.0", "12.0"))
    finding = only(explanation, "compute-capability-unsupported")
    assert finding.severity is Severity.ERROR
    assert "benign-warning" not in {f.code for f in explanation.findings}
