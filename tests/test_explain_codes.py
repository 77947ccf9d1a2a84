"""NVIDIA's result codes in logs (issue 15, item 1): every form a log writes a code in -- its
name (CUDA_ERROR_X, cudaErrorX, CUDNN_STATUS_X, ncclX), its number after the words frameworks
print before it, or the runtime's own string -- gives the code of the failure class it usually
means, with the alternative named where the usual cause is not the literal meaning.

The forms are those of real logs: PyTorch's "CUDA error: <string>" and older "cuda runtime error
(N) : <string>", ONNX Runtime's "CUDA failure N: <string>", llama.cpp's "CUDA error N at ...",
CuPy's "cudaErrorX: <string>", JAX's "CUDA_ERROR_X: <string>", Numba's "CUresult N".
"""

from __future__ import annotations

import pytest

from envcheck.explain.explanation import explain_lines, scan_triggers
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix

MATRIX = load_matrix(bundled_matrix_dir())


def codes(line: str) -> set[str]:
    explanation = explain_lines([line], MATRIX.signatures, MATRIX, MATRIX.known_bugs)
    return {f.code for f in explanation.findings}


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # 34: the toolkit's stub libcuda found before the driver's
        ("RuntimeError: CUDA error 34: CUDA driver is a stub library", "library-shadowed"),
        ("cuInit failed: CUDA_ERROR_STUB_LIBRARY", "library-shadowed"),
        # 35: the driver older than the runtime
        (
            "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
            "driver-too-old",
        ),
        (
            "RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at /pytorch/aten/src/THC/THCGeneral.cpp:50",
            "driver-too-old",
        ),
        ("CUDA error 35 at ggml-cuda.cu:493", "driver-too-old"),
        # 100: no device
        (
            "[ONNXRuntimeError] : 1 : FAIL : CUDA failure 100: no CUDA-capable device is detected ; GPU=0",
            "no-gpu",
        ),
        ("Call to cuInit results in CUDA_ERROR_NO_DEVICE (100)", "no-gpu"),
        # 209: no kernels for this GPU
        (
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "compute-capability-unsupported",
        ),
        ("CUDA_ERROR_NO_BINARY_FOR_GPU", "compute-capability-unsupported"),
        # 222: PTX newer than the driver
        (
            "'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_UNSUPPORTED_PTX_VERSION'",
            "driver-too-old",
        ),
        (
            "CUDA error 222: the provided PTX was compiled with an unsupported toolchain.",
            "driver-too-old",
        ),
        # numba's table lacks the value: its number alone (numba's driver.py
        # _check_ctypes_error); public notes quote these lines (a linker error on a cluster
        # whose driver is older than the toolkit's PTX, a README's troubleshooting section, a
        # kernel's out-of-bounds copy)
        (
            "numba.cuda.cudadrv.driver.LinkerError: [222] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR",
            "driver-too-old",
        ),
        (
            "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in UNKNOWN_CUDA_ERROR (804)",
            "driver-library-mismatch",
        ),
        (
            "numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuMemcpyDtoH results in UNKNOWN_CUDA_ERROR",
            "program-error",
        ),
        # Ollama's discovery: cudart's value (35 in a container started without the GPU,
        # ollama/ollama#3417) and the driver API's (802 on an NVSwitch server,
        # ollama/ollama#12173)
        (
            'time=2024-03-30T15:05:41.304Z level=INFO source=gpu.go:340 msg="Unable to load cudart CUDA management library /tmp/ollama4102197452/runners/cuda_v11/libcudart.so.11.0: cudart init failure: 35"',
            "driver-too-old",
        ),
        (
            "Unable to load cudart library /usr/lib/x86_64-linux-gnu/libcuda.so.570.169: cuda driver library init failure: 802",
            "gpu-unusable",
        ),
        # LAMMPS's GPU package (lammps/lammps#4849 on an RTX 5080; lammps/lammps#2981 as its
        # reporter quotes it)
        ("Cuda driver error 804 in call at file", "driver-library-mismatch"),
        (
            "Cuda driver error 100 in call at file \u2018/data/sourcecode/lammps/lammps-stable_29Sep2021/lib/gpu/geryon/nvd_device.h\u2019 in line 323",
            "no-gpu",
        ),
        # TensorRT's builder and runtime (NVIDIA-AI-IOT/trt_pose#100: 222; NVIDIA/TensorRT#2879: 35)
        (
            "[TensorRT] ERROR: CUDA initialization failure with error 222. Please check your CUDA installation:  http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html",
            "driver-too-old",
        ),
        (
            "[04/15/2023-04:37:46] [W] [TRT] CUDA initialization failure with error: 35. Please check your CUDA installation:  http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html",
            "driver-too-old",
        ),
        # 303: libcuda not loadable
        ("failed call to cuInit: CUresult(303)", "driver-missing"),
        # 803 / 804
        (
            "CUDA error: system has unsupported display driver / cuda driver combination",
            "driver-library-mismatch",
        ),
        (
            "cudaErrorCompatNotSupportedOnDevice: forward compatibility was attempted on non supported HW",
            "driver-library-mismatch",
        ),
        ("CUDA driver error code 804", "driver-library-mismatch"),
        # cuDNN 9's sub-library codes
        ("CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", "cudnn-version-mismatch"),
        ("cudnnCreate failed: CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED", "cudnn-sublibrary-missing"),
        # NCCL
        (
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:121, ncclSystemError",
            "nccl-error",
        ),
        # a device-side assert is the program's
        ("RuntimeError: CUDA error: device-side assert triggered", "program-error"),
    ],
)
def test_a_code_in_any_form_gives_its_class(line: str, code: str) -> None:
    assert code in codes(line), (line, codes(line))


def test_a_device_side_assert_is_never_an_error() -> None:
    explanation = explain_lines(
        ["RuntimeError: CUDA error: device-side assert triggered"],
        MATRIX.signatures,
        MATRIX,
        MATRIX.known_bugs,
    )
    assert explanation.findings
    assert all(f.severity.value != "error" for f in explanation.findings)


def test_the_usual_cause_comes_with_the_alternative() -> None:
    explanation = explain_lines(
        [
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
        ],
        MATRIX.signatures,
        MATRIX,
        MATRIX.known_bugs,
    )
    finding = next(f for f in explanation.findings if f.code == "gpu-out-of-memory")
    assert "cuDNN" in finding.message or "cuDNN" in finding.fix


def test_a_number_alone_or_in_another_context_is_not_read_as_a_cuda_code() -> None:
    assert not codes("Epoch 35/100 - loss: 0.35")
    assert not codes("HTTP error code 100 from the proxy")
    # (a number in brackets is numba's only before its "Call to cu...")
    assert not codes("[222] Call to the support line results in a ticket")


# A CUDA runtime string too short to mean anything alone is read where a CUDA error form prints
# it, whatever number that form carries (before CUDA 10.1 the runtime numbered its values
# otherwise: invalid device function was 8, now 98). Forms: c10's, THC's two, PyTorch 0.3's.
@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: CUDA error: invalid device function",
        "THCudaCheck FAIL file=/src/THC/generic/THCTensorMath.cu line=247 error=8 : "
        "invalid device function",
        "RuntimeError: cuda runtime error (8) : invalid device function at /src/THC.cu:247",
        "RuntimeError: CUDA error (8): invalid device function",
    ],
)
def test_a_short_cuda_string_is_read_in_a_cuda_error_form(line: str) -> None:
    assert codes(line) == {"compute-capability-unsupported"}


@pytest.mark.parametrize(
    "line",
    [
        "the linker said: invalid device function",  # no CUDA error form
        "RuntimeError: CUDA error: invalid device functions table",  # another word
    ],
)
def test_a_short_cuda_string_alone_is_not_read(line: str) -> None:
    assert "compute-capability-unsupported" not in codes(line)


def test_the_numbered_forms_add_no_trigger_with_a_digit() -> None:
    # A trigger text holding a digit is pinned in every run of repeated lines the big-log scan
    # passes over (envcheck.explain.cycles): the numbered forms once added one per value
    # ("init failure: 35", "Cuda driver error 804 in call"), 70 in all, and a training log
    # read 15% slower. Their literals stop before the number.
    scan = scan_triggers(MATRIX.signatures)
    assert scan is not None
    forms = (b"init failure", b"Cuda driver error", b"Call to cu", b"initialization failure with")
    assert [t for t in scan.digit_texts if any(form in t for form in forms)] == []
