"""The finding codes: each code a finding can carry, its most severe level and what it means.

The one registry of them (issue 23): `findings.CODES` is derived from it, `docs/finding-codes.md`
is generated from it (scripts/update_finding_codes.py) and tests/test_finding_codes.py holds it,
the doctor's rules and the matrix's signature and error-code rows to each other. A new code is a
row here, then the script. Codes are a public contract (JSON reports, `fleet`, CI checks that
grep them): a code is renamed only with an entry in `findings.RENAMED_CODES`.
"""

from __future__ import annotations

from envcheck.record import record


@record
class FindingCode:
    code: str
    # The most severe level a finding with this code is reported at ("error", "warning",
    # "info"); the doctor and explain may report it lower where it is not what blocks the GPU.
    severity: str
    meaning: str  # one line


CODE_TABLE: tuple[FindingCode, ...] = (
    FindingCode(
        "driver-missing",
        "error",
        "No NVIDIA driver: libcuda / nvcuda.dll cannot be loaded.",
    ),
    FindingCode(
        "driver-too-old",
        "error",
        "The driver is older than the CUDA the framework was built with needs.",
    ),
    FindingCode(
        "driver-library-mismatch",
        "error",
        "The kernel driver and the user-space driver library (libcuda) are of different releases.",
    ),
    FindingCode(
        "no-gpu",
        "error",
        "No NVIDIA GPU is visible (none present, or hidden by CUDA_VISIBLE_DEVICES or the"
        " container).",
    ),
    FindingCode(
        "cuda-library-missing",
        "error",
        "A CUDA library the framework loads (cudart, cuBLAS, cuSOLVER, ...) is not found.",
    ),
    FindingCode(
        "cuda-version-mismatch",
        "error",
        "A CUDA library is found, but of another CUDA version than the framework was built for.",
    ),
    FindingCode(
        "cudnn-missing",
        "error",
        "The cuDNN library the framework loads is not found.",
    ),
    FindingCode(
        "cudnn-version-mismatch",
        "error",
        "The cuDNN found is older than (or of another major than) the one the framework "
        "was built with.",
    ),
    FindingCode(
        "cudnn-sublibrary-missing",
        "error",
        "cuDNN's main library loads but one of its sub-libraries (cudnn_cnn_infer, "
        "cudnn_ops, ...) does not.",
    ),
    FindingCode(
        "library-wrong-architecture",
        "error",
        "A library is built for another CPU architecture or bitness (Windows error 193).",
    ),
    FindingCode(
        "library-dependency-missing",
        "error",
        "A library is found but one of its own dependencies is not (Windows error 126, "
        "e.g. zlibwapi.dll).",
    ),
    FindingCode(
        "library-shadowed",
        "error",
        "Another copy of a library comes first on the search path than the one the "
        "framework needs.",
    ),
    FindingCode(
        "windows-native-gpu-unsupported",
        "error",
        "TensorFlow after 2.10 has no GPU support on native Windows: use WSL2.",
    ),
    FindingCode(
        "compute-capability-unsupported",
        "error",
        "The GPU's compute capability is not one the framework's build has kernels (or PTX) for.",
    ),
    FindingCode(
        "python-unsupported",
        "error",
        "No build of the framework exists for this Python version.",
    ),
    FindingCode(
        "framework-cpu-only",
        "error",
        "The installed framework is a CPU-only build: it cannot use CUDA at all.",
    ),
    FindingCode(
        "framework-missing",
        "error",
        "No deep-learning framework is installed (the doctor: info, nothing to judge), or a log "
        "shows the program could not import one (explain: error).",
    ),
    FindingCode(
        "framework-conflict",
        "error",
        "Frameworks in one environment need different copies of a library: two wheels "
        "write the same files under nvidia/, pins that cannot all hold, or another CUDA "
        "major's copy (its data names the frameworks, library, requirements and what is "
        "installed).",
    ),
    FindingCode(
        "xla-toolchain-missing",
        "error",
        "XLA cannot find its CUDA toolchain (libdevice, ptxas).",
    ),
    FindingCode(
        "gpu-out-of-memory",
        "error",
        "The GPU ran out of memory.",
    ),
    FindingCode(
        "smoke-test-crashed",
        "error",
        "The smoke test's process died (a signal, such as SIGSEGV or SIGBUS).",
    ),
    FindingCode(
        "smoke-test-timeout",
        "error",
        "The smoke test did not finish within its time limit.",
    ),
    FindingCode(
        "smoke-test-failed",
        "error",
        "A step of the smoke test raised an error (the message says which and why).",
    ),
    FindingCode(
        "benign-warning",
        "info",
        "A message known to be harmless: no need to chase it.",
    ),
    FindingCode(
        "known-bug",
        "warning",
        "A known bug of this release or set-up (an advisory with its workaround).",
    ),
    FindingCode(
        "library-load-mismatch",
        "warning",
        "The framework loaded another copy of a library than the probe predicted.",
    ),
    FindingCode(
        "probe-incomplete",
        "warning",
        "A part of the probe could not run; the report says which.",
    ),
    FindingCode(
        "usage-pitfall",
        "warning",
        "A mistake in the user's code, not in the environment (explain): a warning, never an"
        " error, since the environment is fine.",
    ),
    FindingCode(
        "driver-too-new",
        "error",
        "A driver branch that no longer supports the GPU (e.g. a Kepler card under R535).",
    ),
    FindingCode(
        "gpu-unusable",
        "error",
        "The GPU or driver is in a bad state: CUDA's unknown error after a suspend, "
        "devices busy in exclusive mode, Xid, fallen off the bus.",
    ),
    FindingCode(
        "container-gpu-unavailable",
        "error",
        "A container without GPU access, or with a broken NVIDIA Container Toolkit.",
    ),
    FindingCode(
        "platform-unsupported",
        "error",
        "No build for this OS, C library, CPU or architecture.",
    ),
    FindingCode(
        "nccl-error",
        "error",
        "NCCL's multi-GPU communication failed.",
    ),
    FindingCode(
        "program-error",
        "info",
        "The failure is in the program (a shape mismatch, a device-side assert), not in "
        "the environment: a note.",
    ),
)
