"""The doctor's reasoning reaches the facts real logs print in their many shapes (issue 22).

Each log here is written as the program that prints it writes it (pip list's columns, conda
list's build strings, nvidia-smi's table, PyTorch's and TensorFlow's device lines, an NGC
container's banner, PaddlePaddle's device line), and each finding is checked against a twin
log that differs in the one fact the reasoning hangs on, so that a test fails when a fact is
not read, or read where it is not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.diagnose.facts_file import read_facts
from envcheck.diagnose.log_diagnosis import reason_over_log
from envcheck.explain.explanation import Explanation, explain_lines
from envcheck.findings import Finding, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.probe.facts import ANOTHER_VERSION, FrameworkFacts
from tests.facts_builder import driver, gpu, machine

MATRIX = load_matrix(bundled_matrix_dir())
SMI_470 = "| NVIDIA-SMI 470.199.02   Driver Version: 470.199.02   CUDA Version: 11.4     |"
SMI_535 = "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |"


def explained(lines: list[str]) -> Explanation:
    return reason_over_log(explain_lines(lines, MATRIX.signatures, MATRIX), MATRIX)


def codes(lines: list[str]) -> list[str]:
    return [f.code for f in explained(lines).findings]


def one(lines: list[str], code: str) -> Finding:
    found = [f for f in explained(lines).findings if f.code == code]
    assert len(found) == 1, codes(lines)
    return found[0]


# --- two facts compared: the driver against the CUDA the build needs --------------------------


@pytest.mark.parametrize(
    ("build_lines", "floor"),
    [
        # pip list's columns: the wheel's tag names its CUDA
        (["Package                  Version", "torch                    2.1.0+cu121"], "525.60.13"),
        # pip's answer when it is already installed
        (
            [
                "Requirement already satisfied: torch in /usr/local/lib/python3.10/dist-packages "
                "(2.1.0+cu121)"
            ],
            "525.60.13",
        ),
        # a print of torch.__version__, a line of its own
        ([">>> print(torch.__version__)", "2.1.0+cu121"], "525.60.13"),
        # conda list's pytorch package: its build string names the CUDA
        (
            ["pytorch                   1.10.0          py3.9_cuda11.3_cudnn8.2.0_0    pytorch"],
            "450.80.02",
        ),
        # PyTorch's image tag
        (["docker run --gpus all -it pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime"], "525.60.13"),
        # jaxlib's local tag, as pip list writes it
        (["jax                       0.4.23", "jaxlib  0.4.23+cuda12.cudnn89"], "525.60.13"),
        # TensorFlow's printed build info (tf.sysconfig.get_build_info())
        (
            [
                "OrderedDict([('cpu_compiler', '/dt9/usr/bin/gcc'), ('cuda_compute_capabilities', "
                "['sm_35', 'sm_50', 'sm_60', 'sm_70', 'sm_75', 'compute_80']), ('cuda_version', "
                "'11.2'), ('cudnn_version', '8'), ('is_cuda_build', True)])"
            ],
            "450.80.02",
        ),
    ],
    ids=[
        "pip-list",
        "pip-satisfied",
        "version-print",
        "conda-list",
        "image-tag",
        "jaxlib",
        "tf-build",
    ],
)
def test_the_driver_against_the_cuda_a_build_shows_in_any_shape(
    build_lines: list[str], floor: str
) -> None:
    old = [
        *build_lines,
        "| NVIDIA-SMI 418.87.00    Driver Version: 418.87.00    CUDA Version: 10.1 |",
    ]
    finding = one(old, "driver-too-old")
    assert floor in finding.fix and finding.severity is Severity.ERROR
    # The line that told the build's CUDA is evidence beside the driver's.
    assert {build_lines[-1], old[-1]} <= set(finding.evidence)
    new = [
        *build_lines,
        "| NVIDIA-SMI 580.65.06    Driver Version: 580.65.06    CUDA Version: 13.0 |",
    ]
    assert "driver-too-old" not in codes(new)


def test_a_cuda_image_on_an_old_host_driver_is_driver_too_old_without_a_framework() -> None:
    log = ["Step 1/8 : FROM nvidia/cuda:12.2.0-devel-ubuntu22.04", SMI_470]
    finding = one(log, "driver-too-old")
    assert "525.60.13" in finding.fix and "program" in finding.message
    assert "driver-too-old" not in codes([log[0], SMI_535])


def test_an_ngc_containers_driver_check_gives_the_host_driver() -> None:
    log = [
        "CUDA Version 12.1.1",
        "ERROR: This container was built for NVIDIA Driver Release 530.30 or later, but",
        "       version 470.161.03 was detected and compatibility mode is UNAVAILABLE.",
    ]
    assert explained(log).facts.driver == "470.161.03"
    assert "driver-too-old" in codes(log)


def test_paddles_driver_api_version_against_its_runtime() -> None:
    line = (
        "W0601 11:00:00.000000  1234 device_context.cc:252] Please NOTE: device: 0, CUDA "
        "Capability: 75, Driver API Version: {}, Runtime API Version: 10.2"
    )
    finding = one([line.format("10.1")], "driver-too-old")
    # Before CUDA 11 each release needs its own driver: 10.1's does not run 10.2.
    assert "needs CUDA 10.2" in finding.message
    assert "driver-too-old" not in codes([line.format("10.2")])


def test_paddles_gpu_against_the_cuda_its_build_was_made_with() -> None:
    # Paddle prints the GPU's capability and its CUDA runtime, never the GPU's name: an RTX 30xx
    # (CC 8.6) under a CUDA 10.2 build has no native kernels (its nvcc stops at 7.5).
    line = (
        "W0617 18:00:22.433677 19572 device_context.cc:404] Please NOTE: device: 0, GPU Compute "
        "Capability: {}, Driver API Version: 11.2, Runtime API Version: {}"
    )
    finding = one([line.format("8.6", "10.2")], "compute-capability-unsupported")
    assert finding.severity is Severity.WARNING and "CUDA 11.1" in finding.fix
    assert "GPU 0 (compute capability 8.6)" in finding.message
    assert "compute-capability-unsupported" not in codes([line.format("8.6", "11.2")])
    # Older than every target: no kernel at all (CUDA 12 dropped CC 3.5), in the older form.
    old = (
        "W0404 16:40:48.365986 14840 device_context.cc:237] Please NOTE: device: 0, CUDA "
        "Capability: 35, Driver API Version: 12.2, Runtime API Version: 12.0"
    )
    kepler = one([old], "compute-capability-unsupported")
    assert kepler.severity is Severity.ERROR and "3.5" in kepler.message
    # The capability is the GPU's fact, without a name (Paddle prints none).
    assert explained([old]).facts.gpus == {"": "3.5"}


def test_libcuda_against_the_kernel_module_from_proc_and_nvml() -> None:
    log = [
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.82.01  Wed Oct 27 04:34:29 UTC 2021",
        "NVML library version: 470.141",
    ]
    facts = explained(log).facts
    assert (facts.kernel_module, facts.driver) == ("470.82.01", "470.141")
    assert "driver-library-mismatch" in codes(log)
    same = [log[0], "NVML library version: 470.82.01"]
    assert "driver-library-mismatch" not in codes(same)


# --- the CUDA a program asks for against the one installed --------------------------------------

TF24_MISSING = (
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic "
    "library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No "
    "such file or directory"
)


def test_a_runtime_tensorflow_cannot_load_beside_another_cuda_is_a_version_mismatch() -> None:
    log = [
        "cudatoolkit               10.1.243             h6bb024c_0",
        "tensorflow 2.4.1",
        TF24_MISSING,
    ]
    finding = one(log, "cuda-version-mismatch")
    assert "CUDA 11.0" in finding.message and log[0] in finding.evidence
    # The same CUDA major installed: the library is only missing.
    same = ["cudatoolkit               11.0.221             h6bb024c_0", *log[1:]]
    assert "cuda-version-mismatch" not in codes(same)
    # Loaded after all: another cudatoolkit in the list is no mismatch.
    loaded = [
        log[0],
        log[1],
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened "
        "dynamic library libcudart.so.11.0",
    ]
    assert "cuda-version-mismatch" not in codes(loaded)


def test_an_extension_built_for_another_cuda_than_nvccs() -> None:
    log = [
        "Cuda compilation tools, release 12.1, V12.1.105",
        "ImportError: libcudart.so.10.1: cannot open shared object file: No such file or directory",
    ]
    finding = one(log, "cuda-version-mismatch")
    assert "12.1" in finding.message
    same = ["Cuda compilation tools, release 10.1, V10.1.243", log[1]]
    assert "cuda-version-mismatch" not in codes(same)


def test_the_probes_copies_of_other_cuda_versions_are_no_failed_load() -> None:
    # The probe records a copy of another version for each CUDA release's soname it looks for
    # (libcudart.so.10.0 to .12 beside the cu13 wheel's libcudart.so.13): no program asked for
    # them, so a PyTorch-only environment gets no cuda-version-mismatch from them (this sample,
    # a real probe's, got one while the rule read every such copy as a failed load).
    sample = Path(__file__).resolve().parents[1] / "docs/samples/torch-old-driver.facts.json"
    facts = read_facts(str(sample))
    assert any(lib.found_via == ANOTHER_VERSION for lib in facts.libraries)
    found = {f.code for f in diagnose(facts, MATRIX).findings}
    assert "driver-too-old" in found
    assert "cuda-version-mismatch" not in found


# --- the GPU against the build ------------------------------------------------------------------


@pytest.mark.parametrize(
    "gpu_line",
    [
        "|   0  GeForce RTX 3090    On   | 00000000:01:00.0 Off |                  N/A |",
        "|   0  NVIDIA GeForce RTX 3090      WDDM  |   00000000:01:00.0  On |                  N/A |",
        "    Product Name                          : NVIDIA GeForce RTX 3090",
    ],
    ids=["smi-row-spaced", "smi-row-windows", "smi-q"],
)
def test_an_ampere_gpu_under_a_cuda_10_build_has_no_kernels(gpu_line: str) -> None:
    # A CUDA 10 container: whatever the PyTorch release, nvcc 10.2 compiles nothing for CC 8.6.
    framework = '  File "/opt/conda/lib/python3.6/site-packages/torch/nn/functional.py", line 1676'
    log = ["CUDA Version 10.2.89", gpu_line, framework]
    finding = one(log, "compute-capability-unsupported")
    assert finding.severity is Severity.ERROR and "8.6" in finding.message
    assert any("built with CUDA 10.2" in e for e in finding.evidence)
    assert "compute-capability-unsupported" not in codes(
        ["CUDA Version 11.3.1", gpu_line, framework]
    )


def test_tensorflows_own_device_line_against_the_cuda_it_loads() -> None:
    device = (
        "2020-10-01 I tensorflow/core/common_runtime/gpu/gpu_device.cc:1716] Found device 0 with "
        "properties: pciBusID: 0000:01:00.0 name: GeForce RTX 3090 computeCapability: 8.6"
    )
    loaded = (
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:48] Successfully opened "
        "dynamic library libcudart.so.{}"
    )
    assert explained([device]).facts.gpus == {"GeForce RTX 3090": "8.6"}
    # TensorFlow ships PTX of its newest target: JIT, slow but running, is a warning.
    finding = one([loaded.format("10.1"), device], "compute-capability-unsupported")
    assert finding.severity is Severity.WARNING
    assert "compute-capability-unsupported" not in codes([loaded.format("11.0"), device])


def test_a_gpu_newer_than_the_build_is_told_the_first_cuda_for_it() -> None:
    # An RTX 5090 (CC 12.0, Blackwell) under a cu126 wheel: nvcc 12.6 compiles up to CC 9.0, so
    # the fix names CUDA 12.8, the first toolkit for CC 12.0, and PyTorch's cu128 builds; not
    # the CUDA the failing build has.
    log = [
        "'2.7.0+cu126'",
        "'NVIDIA GeForce RTX 5090'",
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    ]
    finding = one(log, "compute-capability-unsupported")
    assert "CUDA 12.8 or newer" in finding.fix and "cu128" in finding.fix
    # An older GPU than the build's targets has no such floor to name.
    old = one(
        ["torch                    2.1.0+cu121", "GPU 0: Tesla K80 (UUID: GPU-1)", SMI_470],
        "compute-capability-unsupported",
    )
    assert "or newer, the first CUDA" not in old.fix


def test_a_kepler_gpu_under_a_cuda_12_wheel() -> None:
    log = ["torch                    2.1.0+cu121", "GPU 0: Tesla K80 (UUID: GPU-1)", SMI_470]
    finding = one(log, "compute-capability-unsupported")
    assert "Tesla K80" in finding.message and "3.7" in finding.message
    assert "compute-capability-unsupported" not in codes(
        ["torch                    1.12.1+cu113", *log[1:]]
    )


@pytest.mark.parametrize(
    ("line", "gpus"),
    [
        (
            "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
            "PyTorch installation.",
            {"NVIDIA GeForce RTX 5090": "12.0"},
        ),
        (
            "    Found GPU0 Tesla K80 which is of cuda capability 3.7.",
            {"Tesla K80": "3.7"},
        ),
        (
            "  CUDA Capability Major/Minor version number:    1.1",
            {"": "1.1"},
        ),
    ],
    ids=["torch-sm", "torch-too-old", "devicequery"],
)
def test_gpu_lines_give_their_capability(line: str, gpus: dict[str, str]) -> None:
    assert explained([line]).facts.gpus == gpus


# --- the platform changes the answer -------------------------------------------------------------


def test_tensorflow_on_native_windows_from_pips_own_words() -> None:
    log = [
        "Requirement already satisfied: tensorflow in c:\\users\\ada\\appdata\\local\\programs\\"
        "python\\python310\\lib\\site-packages (2.13.0)",
        "Requirement already satisfied: tensorflow-intel==2.13.0 in c:\\users\\ada\\appdata\\local"
        "\\programs\\python\\python310\\lib\\site-packages (from tensorflow) (2.13.0)",
    ]
    facts = explained(log).facts
    assert facts.tensorflow == "2.13.0" and "windows" in facts.platforms
    assert "windows-native-gpu-unsupported" in codes(log)
    older = [line.replace("2.13.0", "2.10.1") for line in log]
    assert "windows-native-gpu-unsupported" not in codes(older)


@pytest.mark.parametrize(
    ("line", "platform"),
    [
        ("Python 3.11.4 (v3.11.4:d2340ef257, Jun  6 2023) [Clang 13.0.0 ] on darwin", "macos"),
        ("OS: macOS 14.1 (arm64)", "macos"),
        ("OS: Microsoft Windows 11 Pro", "windows"),
        ("Linux DESKTOP-1 5.15.90.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux", "wsl"),
        ("FROM nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04", "container"),
    ],
)
def test_where_the_log_ran(line: str, platform: str) -> None:
    assert explained([line]).facts.platforms == {platform}


def test_a_cuda_wheel_on_macos_is_told_the_apple_route() -> None:
    log = [
        "OS: macOS 14.1 (arm64)",
        "PyTorch version: 2.1.0",
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx",
    ]
    finding = one(log, "framework-cpu-only")
    assert "MPS" in finding.fix


def test_no_nccl_in_pytorch_on_windows() -> None:
    log = [
        '  File "C:\\Users\\bob\\anaconda3\\lib\\site-packages\\torch\\distributed\\'
        'distributed_c10d.py", line 895, in init_process_group',
        "RuntimeError: Distributed package doesn't have NCCL built in",
    ]
    assert "gloo" in one(log, "nccl-error").fix.lower()


def test_paddles_cudnn_check_is_a_version_mismatch() -> None:
    log = [
        "WARNING: device: 0. The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in "
        "your machine is 7.3, which may cause serious incompatible bug."
    ]
    assert "7.6" in one(log, "cudnn-version-mismatch").message


# --- one rule set: what these logs reach, the doctor reaches from a probe -----------------------


def test_the_toolkit_bound_serves_the_doctor() -> None:
    # A PyTorch the matrix has no row for (1.7), built with CUDA 10.2, on an RTX 3090.
    old_torch = FrameworkFacts("torch", "torch", "1.7.0", None, {"cuda_version": "10.2"}, "test")
    probed = machine(
        frameworks=(old_torch,), gpus=(gpu("NVIDIA GeForce RTX 3090", "8.6"),), libraries=()
    )
    found = [f.code for f in diagnose(probed, MATRIX).findings]
    assert "compute-capability-unsupported" in found
    newer = FrameworkFacts("torch", "torch", "1.7.0", None, {"cuda_version": "11.1"}, "test")
    found = [
        f.code for f in diagnose(machine(frameworks=(newer,), gpus=probed.gpus), MATRIX).findings
    ]
    assert "compute-capability-unsupported" not in found


def test_a_program_the_doctor_does_not_judge_is_compared_with_the_driver() -> None:
    # A facts file whose only program is PaddlePaddle built with CUDA 11.2, on a 440 driver.
    paddle = FrameworkFacts("paddle", "paddlepaddle-gpu", "2.4.2", None, {"cuda_version": "11.2"})
    probed = machine(frameworks=(paddle,), driver=driver("440.33.01", "10.2"), libraries=())
    finding = next(f for f in diagnose(probed, MATRIX).findings if f.code == "driver-too-old")
    assert "PaddlePaddle" in finding.message and "450.80.02" in finding.fix


# --- more shapes of the same facts ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "gpus"),
    [
        (
            "name: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.582",
            {"GeForce GTX 1080 Ti": "6.1"},
        ),
        (
            "00:04.0 3D controller: NVIDIA Corporation GK210GL [Tesla K80] (rev a1)",
            {"Tesla K80": ""},
        ),
        ("'NVIDIA GeForce RTX 4090'", {"NVIDIA GeForce RTX 4090": ""}),
    ],
    ids=["tf1-device", "lspci", "get-device-name"],
)
def test_more_gpu_lines(line: str, gpus: dict[str, str]) -> None:
    assert explained([line]).facts.gpus == gpus


def test_a_package_named_for_its_cuda_against_dpkgs_driver() -> None:
    log = [
        "Successfully installed mxnet-cu101-1.5.0",
        "ii  nvidia-driver-396   396.54-0ubuntu0~gpu18.04.1   amd64   NVIDIA driver metapackage",
    ]
    assert "418.39" in one(log, "driver-too-old").fix  # CUDA 10.1's own driver
    newer = [log[0], log[1].replace("396.54", "418.87.01").replace("-396 ", "-418 ")]
    assert "driver-too-old" not in codes(newer)


def test_the_kernel_modules_release_is_the_driver_where_no_other_is_shown() -> None:
    proc = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  {}  Sun Jul 19 20:02:18 UTC 2020"
    assert "driver-too-old" in codes([proc.format("450.51.06"), "torch 2.1.0+cu118"])
    assert "driver-too-old" not in codes([proc.format("450.80.02"), "torch 2.1.0+cu118"])


@pytest.mark.parametrize(
    ("line", "platform"),
    [
        ("(venv) ada@PC:/mnt/c/Users/ada/project$ python train.py", "wsl"),
        ('root@3f2a1b4c5d6e:/workspace# python -c "import torch"', "container"),
    ],
)
def test_a_shell_prompt_tells_where_it_ran(line: str, platform: str) -> None:
    assert explained([line]).facts.platforms == {platform}


# --- a program's own list of architectures against the GPU (ggml's system_info) ------------------

# As llama.cpp's ggml prints them (tests/corpus-holdout-15's llama-box log, on two Tesla M60s).
GGML_DEVICE = "0.00.026.212 I   Device 0: {gpu}, compute capability {cc}, VMM: yes"
GGML_ARCHS = (
    "system_info: CUDA : ARCHS = {archs} | F16 = 1 | USE_GRAPHS = 1 | PEER_MAX_BATCH_SIZE = 128 "
    "| CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | LLAMAFILE = 1 |"
)
ARCHS_FROM_60 = "600,610,700,750,800,860,890,900"


def test_ggmls_device_line_and_architecture_list_are_facts() -> None:
    facts = explained(
        [GGML_DEVICE.format(gpu="Tesla M60", cc="5.2"), GGML_ARCHS.format(archs="500,610,1200")]
    ).facts
    assert facts.gpus == {"Tesla M60": "5.2"}
    assert facts.program_archs == "5.0,6.1,12.0"


def test_a_gpu_older_than_every_architecture_a_program_lists_is_unsupported() -> None:
    log = [GGML_DEVICE.format(gpu="Tesla M60", cc="5.2"), GGML_ARCHS.format(archs=ARCHS_FROM_60)]
    finding = one(log, "compute-capability-unsupported")
    assert finding.severity is Severity.ERROR
    assert "Tesla M60 (compute capability 5.2)" in finding.message and "6.0" in finding.message
    # The lines that gave both facts are its evidence.
    assert set(log) <= set(finding.evidence)
    # The twin: a build that lists the GPU's architecture has kernels for it.
    covered = [log[0], GGML_ARCHS.format(archs="520," + ARCHS_FROM_60)]
    assert "compute-capability-unsupported" not in codes(covered)
    # Without the list, nothing is known of the build.
    assert "compute-capability-unsupported" not in codes(log[:1])


def test_a_gpu_newer_than_a_programs_list_is_only_jit_compiled() -> None:
    log = [
        GGML_DEVICE.format(gpu="NVIDIA GeForce RTX 5090", cc="12.0"),
        GGML_ARCHS.format(archs=ARCHS_FROM_60),
    ]
    finding = one(log, "compute-capability-unsupported")
    assert finding.severity is Severity.WARNING and "PTX" in finding.message
