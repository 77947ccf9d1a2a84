"""A log is a partial facts file (issue 22): explain runs the doctor's own rules over the facts a
log shows, each finding with the lines that gave them, and one rule set serves both commands."""

from __future__ import annotations

import pytest

from envcheck.diagnose import rule_set
from envcheck.diagnose.context import Context
from envcheck.diagnose.doctor import diagnose
from envcheck.diagnose.log_diagnosis import (
    UNKNOWN,
    facts_from_log,
    merge_findings,
    reason_over_log,
)
from envcheck.explain.explanation import Explanation, explain_lines
from envcheck.explain.log_facts import LogFacts
from envcheck.findings import Finding, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.report.explanation import to_text
from tests.facts_builder import gpu, machine

MATRIX = load_matrix(bundled_matrix_dir())

# TensorFlow 1.x on a driver below CUDA 9.0's own (384.81): the error line only says cuDNN
# could not start (the shape of the CUDNN_STATUS_NOT_INITIALIZED threads of 2017-2018).
OLD_DRIVER_LOG = [
    "2018-05-01 10:00:00.1: I tensorflow/stream_executor/dso_loader.cc:139] successfully opened "
    "CUDA library libcudart.so.9.0 locally",
    "2018-05-01 10:00:00.2: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:165] libcuda "
    "reported version is: 384.69.0",
    "2018-05-01 10:00:01.0: E tensorflow/stream_executor/cuda/cuda_dnn.cc:396] could not create "
    "cudnn handle: CUDNN_STATUS_NOT_INITIALIZED",
]
K80_LOG = [
    "TensorFlow version: 2.15.0",
    "2024-01-01 I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device "
    "/job:localhost/replica:0/task:0/device:GPU:0 with 10 MB memory:  -> device: 0, name: Tesla "
    "K80, pci bus id: 0000:00:04.0, compute capability: 3.7",
]


def explained(lines: list[str]) -> Explanation:
    return reason_over_log(explain_lines(lines, MATRIX.signatures, MATRIX), MATRIX)


def codes(explanation: Explanation) -> list[str]:
    return [f.code for f in explanation.findings]


def one(explanation: Explanation, code: str) -> Finding:
    found = [f for f in explanation.findings if f.code == code]
    assert len(found) == 1, codes(explanation)
    return found[0]


def test_the_driver_against_the_cuda_the_runtime_library_names_is_driver_too_old() -> None:
    explanation = explained(OLD_DRIVER_LOG)
    finding = one(explanation, "driver-too-old")
    # The cause the facts imply is read first, before what the cuDNN message likely means.
    assert explanation.findings[0] is finding and explanation.summary() == finding.message
    assert finding.severity is Severity.ERROR
    assert "384.81" in finding.fix  # CUDA 9.0's own driver, from the matrix
    # The lines that gave the two facts compared are its evidence.
    assert finding.lines == (1, 2)
    assert OLD_DRIVER_LOG[0] in finding.evidence and OLD_DRIVER_LOG[1] in finding.evidence


def test_a_driver_new_enough_raises_nothing() -> None:
    log = [OLD_DRIVER_LOG[0], OLD_DRIVER_LOG[1].replace("384.69.0", "390.48.0"), OLD_DRIVER_LOG[2]]
    assert "driver-too-old" not in codes(explained(log))


def test_the_gpu_against_the_build_of_the_release_the_log_shows() -> None:
    finding = one(explained(K80_LOG), "compute-capability-unsupported")
    assert "Tesla K80" in finding.message and "3.7" in finding.message
    assert finding.lines == (1, 2)


def test_libcuda_against_the_kernel_module_is_a_mismatch() -> None:
    log = [
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:158] libcuda reported version is: "
        "384.111.0",
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:162] kernel reported version is: "
        "384.90.0",
    ]
    finding = one(explained(log), "driver-library-mismatch")
    assert finding.lines == (1, 2)
    same = [log[0], log[1].replace("384.90.0", "384.111.0")]
    assert "driver-library-mismatch" not in codes(explained(same))


def test_macos_gets_the_apple_gpu_fix_and_one_finding_for_one_cause() -> None:
    log = [
        '  File "/Users/ada/miniforge3/lib/python3.11/site-packages/torch/cuda/__init__.py", '
        "line 239, in _lazy_init",
        "AssertionError: Torch not compiled with CUDA enabled",
    ]
    read = explain_lines(log, MATRIX.signatures, MATRIX)
    signature = one(read, "framework-cpu-only")
    finding = one(reason_over_log(read, MATRIX), "framework-cpu-only")
    # The signature's fix, then the rule's from the facts (macOS: the Apple GPU, no CUDA).
    assert finding.fix.startswith(signature.fix) and "On Apple silicon" in finding.fix
    assert "On Apple silicon" not in signature.fix
    assert finding.severity is signature.severity  # the graver of the two
    assert set(signature.evidence) <= set(finding.evidence)


def test_native_windows_after_2_10_is_told_from_the_facts() -> None:
    log = [
        "C:\\Users\\ada\\AppData\\Local\\Programs\\Python\\Python310\\lib\\site-packages\\"
        "tensorflow\\python\\framework\\ops.py",
        "TensorFlow version: 2.12.0",
    ]
    finding = one(explained(log), "windows-native-gpu-unsupported")
    assert "2.10.1" in finding.fix
    assert finding.lines == (1, 2)


def test_a_log_that_names_its_release_gets_that_releases_cuda_not_a_range() -> None:
    log = [
        "2021-03-01 10:00:00.1: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] "
        "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot "
        "open shared object file: No such file or directory",
        "tensorflow 2.4.1",
    ]
    ranged = one(explained(log[:1]), "cuda-library-missing")
    assert "TensorFlow 2.4-" in ranged.fix  # the log alone: every release asking for the name
    narrowed = one(explained(log), "cuda-library-missing")
    assert "TensorFlow 2.4-" not in narrowed.fix
    assert "CUDA 11.0" in narrowed.fix and "cudatoolkit=11.0 cudnn=8.0" in narrowed.fix


def test_no_rule_concludes_anything_from_a_silent_log() -> None:
    facts = facts_from_log(LogFacts())
    assert facts.platform.os == UNKNOWN and facts.driver.state == "unknown"
    context = Context(facts, MATRIX, None)
    for rule in rule_set.partial_facts_rules():
        assert rule(context) == [], rule.__name__


@pytest.mark.parametrize(
    "facts",
    [
        LogFacts(driver="384.69.0"),
        LogFacts(gpus={"Tesla K80": "3.7"}),
        LogFacts(frameworks={"tensorflow": 1}),
        LogFacts(platforms={"windows"}, frameworks={"tensorflow": 1}),
        LogFacts(python="3.13", frameworks={"tensorflow": 1}),
    ],
    ids=["driver", "gpu", "framework", "windows", "python"],
)
def test_one_fact_alone_raises_nothing(facts: LogFacts) -> None:
    # A fact with nothing to compare it to: the rest is unknown, never taken for a problem.
    context = Context(facts_from_log(facts), MATRIX, None)
    assert rule_set.rule_findings(context, rule_set.partial_facts_rules()) == []


def test_a_rule_added_once_serves_the_doctor_and_explain(monkeypatch: pytest.MonkeyPatch) -> None:
    def kepler(context: Context) -> list[Finding]:
        """A new concern, written once against the facts model."""
        return [
            Finding(
                "known-bug",
                Severity.WARNING,
                f"{name}: the test rule saw a compute capability 3 GPU.",
                (name,),
            )
            for name, capability in context.capabilities
            if capability is not None and capability.major == 3
        ]

    def fired(findings: tuple[Finding, ...]) -> list[Finding]:
        return [f for f in findings if "the test rule saw" in f.message]

    probed = machine(gpus=(gpu("Tesla K80", "3.7"),))
    log = [K80_LOG[1]]
    assert not fired(diagnose(probed, MATRIX).findings)
    assert not fired(explained(log).findings)
    monkeypatch.setattr(rule_set, "RULES", (*rule_set.RULES, kepler))
    assert fired(diagnose(probed, MATRIX).findings)
    from_log = fired(explained(log).findings)
    assert from_log
    assert from_log[0].lines == (1,) and log[0] in from_log[0].evidence


def test_findings_of_one_code_merge_keeping_both_evidences() -> None:
    signature = Finding("driver-too-old", Severity.WARNING, "the log says", ("line a",), "fix a")
    rule = Finding("driver-too-old", Severity.ERROR, "the facts say", ("line b",), "fix b")
    other = Finding("no-gpu", Severity.ERROR, "another cause", ("line c",))
    merged = merge_findings([signature, other], [rule])
    assert [f.code for f in merged].count("driver-too-old") == 1
    finding = next(f for f in merged if f.code == "driver-too-old")
    assert finding.evidence == ("line a", "line b")
    assert finding.severity is Severity.ERROR and finding.message == "the log says"
    assert finding.fix == "fix a fix b"  # the rule's names the versions the log shows
    again = merge_findings([signature], [Finding("driver-too-old", Severity.ERROR, "m", (), "a")])
    assert again[0].fix == "fix a"  # a fix already said is not said twice


def test_a_pytorch_cuda_tag_against_the_driver_is_driver_too_old() -> None:
    # torch.utils.collect_env's lines: the wheel's tag names its CUDA (cu121: 12.1).
    log = ["PyTorch version: 2.1.0+cu121", "Nvidia driver version: 470.82.01"]
    finding = one(explained(log), "driver-too-old")
    assert "525.60.13" in finding.fix  # the CUDA 12.x floor
    assert finding.data["framework"] == "torch" and finding.lines == (1, 2)
    assert "driver-too-old" not in codes(explained([log[0], "Nvidia driver version: 535.1.1"]))


def test_a_cpu_wheel_beside_a_driver_is_the_cpu_only_build_a_resolver_chose() -> None:
    log = ["PyTorch version: 2.1.0+cpu", "Nvidia driver version: 535.104.05"]
    finding = one(explained(log), "framework-cpu-only")
    assert finding.severity is Severity.ERROR and finding.lines == (1, 2)
    # Without a driver or a GPU in the log, nobody asked for the GPU: worth knowing only.
    assert one(explained(log[:1]), "framework-cpu-only").severity is Severity.INFO


def test_a_requirement_pip_could_not_install_is_not_the_installed_build() -> None:
    log = ["ERROR: No matching distribution found for torch==1.3.1+cpu"]
    assert explain_lines(log, MATRIX.signatures, MATRIX).facts.torch is None


@pytest.mark.parametrize(
    "gpu_line",
    [
        "GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-5a1c6e1b-0f7d-4c1e-9d0e-3a5f6b7c8d9e)",
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090",
        "|   0  NVIDIA GeForce RTX 5090        On  |   00000000:01:00.0  On |                  N/A |",
    ],
    ids=["nvidia-smi -L", "collect_env", "nvidia-smi table"],
)
def test_a_gpu_named_without_its_capability_against_the_builds_kernels(gpu_line: str) -> None:
    # PyTorch 2.8's cu126 wheels ship sm_50-sm_90 (matrix/pytorch.toml); a Blackwell GPU
    # (12.0 by the matrix's GPU table) has neither kernels nor PTX it can use.
    log = ["PyTorch version: 2.8.0+cu126", gpu_line]
    finding = one(explained(log), "compute-capability-unsupported")
    assert "NVIDIA GeForce RTX 5090" in finding.message and finding.lines == (1, 2)
    covered = ["PyTorch version: 2.8.0+cu128", gpu_line]  # its sm_120 kernels
    assert "compute-capability-unsupported" not in codes(explained(covered))


def test_a_name_alone_keeps_the_capability_another_line_gave() -> None:
    log = [K80_LOG[1], "GPU 0: Tesla K80 (UUID: GPU-1)"]
    assert explain_lines(log, MATRIX.signatures, MATRIX).facts.gpus == {"Tesla K80": "3.7"}


@pytest.mark.parametrize(
    ("environment", "framework_line", "floor"),
    [
        # a conda environment's list: the TensorFlow in it is built for its cudatoolkit
        (
            "cudatoolkit               10.2.89              hfd86e86_1",
            "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1555] Found device 0",
            "440.33",
        ),
        # an NVIDIA container's banner: the PyTorch in the image is built for its CUDA
        (
            "CUDA Version 12.2.0",
            '  File "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py", line 298',
            "525.60.13",
        ),
    ],
    ids=["conda", "container"],
)
def test_the_cuda_an_environment_provides_against_the_driver(
    environment: str, framework_line: str, floor: str
) -> None:
    driver_line = "| NVIDIA-SMI 418.39       Driver Version: 418.39       CUDA Version: 10.1     |"
    log = [environment, framework_line, driver_line]
    finding = one(explained(log), "driver-too-old")
    assert floor in finding.fix and finding.lines == (1, 2, 3)
    # nvidia-smi's "CUDA Version: 10.1" is the driver's, not a CUDA the environment provides.
    assert "driver-too-old" not in codes(explained([framework_line, driver_line]))


def test_the_text_report_says_what_the_rules_read() -> None:
    text = to_text(explained([*OLD_DRIVER_LOG, "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1)"]))
    facts_line = text.splitlines()[-1]
    assert facts_line.startswith("From the log: ")
    assert "driver 384.69.0" in facts_line and "NVIDIA GeForce RTX 3090 (CC ?)" in facts_line
