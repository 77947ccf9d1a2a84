"""NVIDIA result codes (matrix/error_codes.toml): the bundled table, its loader, its generator.

The examples are the codes people paste (CUDA errors 34, 35, 100, 209, 222, 303, 803, 804) and
the strings frameworks print, which come from libcudart's cudaGetErrorString via the table's
`description`. The loader tests feed it one bad row at a time. The generator's enum reader is
tested on a small header written here; a full regeneration against NVIDIA's wheels runs only
where ENVCHECK_ERROR_WHEELS names a folder of them (see scripts/error_tables.py).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
import tomllib

from envcheck.findings import CODES
from envcheck.matrix.error_codes import (
    FAMILIES,
    ErrorCode,
    ErrorCodes,
    error_signatures,
    load_error_codes,
)
from envcheck.matrix.rows import MatrixDataError

ROOT = Path(__file__).resolve().parents[1]
MATRIX = ROOT / "matrix"
SCRIPT = ROOT / "scripts" / "error_tables.py"
TABLE = load_error_codes(MATRIX)
ARTEFACT_SOURCES = {
    "wheel-cuda-runtime-driver-api",
    "wheel-cuda-runtime",
    "wheel-cudnn-9",
    "wheel-cudnn-8",
    "header-cudnn-7",
    "wheel-nccl",
    "wheel-cublas",
}


def _row(table: ErrorCodes, family: str, number: int, major: int | None = None) -> ErrorCode:
    row = table.by_number(family, number, major)  # type: ignore[arg-type]
    assert row is not None, f"no {family} row {number}"
    return row


# --- the bundled table ---------------------------------------------------------------------


def test_every_family_has_rows() -> None:
    counts = {family: sum(1 for r in TABLE.rows if r.family == family) for family in FAMILIES}
    # CUDA 12.9 has ~100 CUresult and ~130 cudaError values; a parser that stops early fails here.
    assert counts["cuda_driver"] >= 90
    assert counts["cuda_runtime"] >= 120
    assert counts["cudnn_status"] >= 60
    assert counts["nccl_result"] >= 8
    assert counts["cublas_status"] >= 9


@pytest.mark.parametrize(
    ("family", "number", "name", "code"),
    [
        ("cuda_driver", 34, "CUDA_ERROR_STUB_LIBRARY", "library-shadowed"),
        ("cuda_runtime", 34, "cudaErrorStubLibrary", "library-shadowed"),
        ("cuda_runtime", 35, "cudaErrorInsufficientDriver", "driver-too-old"),
        ("cuda_driver", 100, "CUDA_ERROR_NO_DEVICE", "no-gpu"),
        ("cuda_runtime", 100, "cudaErrorNoDevice", "no-gpu"),
        ("cuda_driver", 209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "compute-capability-unsupported"),
        ("cuda_runtime", 209, "cudaErrorNoKernelImageForDevice", "compute-capability-unsupported"),
        ("cuda_runtime", 98, "cudaErrorInvalidDeviceFunction", "compute-capability-unsupported"),
        ("cuda_driver", 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "driver-too-old"),
        ("cuda_runtime", 222, "cudaErrorUnsupportedPtxVersion", "driver-too-old"),
        ("cuda_driver", 303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "driver-missing"),
        ("cuda_driver", 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "driver-library-mismatch"),
        ("cuda_runtime", 803, "cudaErrorSystemDriverMismatch", "driver-library-mismatch"),
        (
            "cuda_driver",
            804,
            "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
            "driver-library-mismatch",
        ),
        ("cuda_runtime", 804, "cudaErrorCompatNotSupportedOnDevice", "driver-library-mismatch"),
        ("cuda_runtime", 2, "cudaErrorMemoryAllocation", "gpu-out-of-memory"),
        ("cuda_runtime", 999, "cudaErrorUnknown", "gpu-unusable"),
        ("cuda_runtime", 46, "cudaErrorDevicesUnavailable", "gpu-unusable"),
        ("cuda_runtime", 710, "cudaErrorAssert", "program-error"),
        ("nccl_result", 2, "ncclSystemError", "nccl-error"),
        ("nccl_result", 4, "ncclInvalidArgument", "program-error"),
        ("cublas_status", 1, "CUBLAS_STATUS_NOT_INITIALIZED", "gpu-out-of-memory"),
    ],
)
def test_known_codes_map_to_findings(family: str, number: int, name: str, code: str) -> None:
    row = _row(TABLE, family, number)
    assert (row.name, row.code) == (name, code)
    assert row.cause and row.fix
    # A mapping is research, so it cites more than the artefact the number was read from.
    assert set(row.sources) - ARTEFACT_SOURCES, row.name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "cudaErrorNoKernelImageForDevice",
        ),
        (
            "cudaGetDevice() failed. Status: CUDA driver version is insufficient for CUDA runtime version",
            "cudaErrorInsufficientDriver",
        ),
        ("CUDA error: no CUDA-capable device is detected", "cudaErrorNoDevice"),
        (
            "Error 804: forward compatibility was attempted on non supported HW",
            "cudaErrorCompatNotSupportedOnDevice",
        ),
        (
            "Error 803: system has unsupported display driver / cuda driver combination",
            "cudaErrorSystemDriverMismatch",
        ),
    ],
)
def test_runtime_descriptions_are_what_frameworks_print(text: str, name: str) -> None:
    found = TABLE.by_description(text)
    assert found, text
    assert found[0].name == name


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # hannes-brt/cudnn-python-wrappers#11: the wrapper raises the status as a class.
        ("libcudnn.cudnnStatusArchMismatch", "compute-capability-unsupported"),
        (
            "E cuda_dnn.cc:371] could not create cudnn handle: CUDNN_STATUS_ARCH_MISMATCH",
            "compute-capability-unsupported",
        ),
    ],
)
def test_cudnn_status_is_read_as_bindings_spell_it(line: str, code: str) -> None:
    found = [s for s in error_signatures(TABLE) if s.pattern.search(line)]
    assert [s.code for s in found] == [code], [s.id for s in found]


@pytest.mark.parametrize(
    ("line", "row"),
    [
        # ageitgey/face_recognition#930 and davisking/dlib#499: dlib's CHECK_CUDA names the
        # value by the runtime's string after its number (38 was CUDA 9's for no device).
        (
            "...\\dlib\\cuda\\gpu_data.cpp:201. code: 999, reason: unknown error",
            "cuda-runtime-999-cuda-error-unknown",
        ),
        (
            "Error while calling cudaGetDevice(&dev) in file /home/r/dlib/dlib/dnn/cuda_dlib.cu:26. "
            "code: 38, reason: no CUDA-capable device is detected",
            "cuda-runtime-100-cuda-error-no-device",
        ),
        # amazon-archives/amazon-dsstne#36: the program names the call it checked.
        ("cudaGetDeviceCount failed unknown error", "cuda-runtime-999-cuda-error-unknown"),
        ("cudaSetDevice() failed: unknown error", "cuda-runtime-999-cuda-error-unknown"),
        # NVIDIA/pyxis#81: nccl-tests' CUDACHECK; NCCL's own warning names the string alone.
        (
            "node-1: Test CUDA failure common.cu:1045 'unknown error'",
            "cuda-runtime-999-cuda-error-unknown",
        ),
        (
            "transport.cc:154 NCCL WARN Cuda failure 'invalid argument'",
            "cuda-runtime-1-cuda-error-invalid-value",
        ),
    ],
)
def test_a_programs_own_check_is_read_by_its_string(line: str, row: str) -> None:
    assert [s.id for s in error_signatures(TABLE) if s.pattern.search(line)] == [row]
    for other in ("code: 999, reason: x", "cudaGetDeviceCount failed", "unknown error"):
        assert not [s for s in error_signatures(TABLE) if s.pattern.search(other)], other


def test_no_device_reads_by_where_it_ran() -> None:
    # In a container the usual cause is no GPU access; under WSL 2 a Linux driver's libcuda
    # loaded in place of WSL's own (NVIDIA/cuml#6218).
    (row,) = [s for s in error_signatures(TABLE) if s.id == "cuda-driver-100-cuda-error-no-device"]
    assert row.code == "no-gpu"
    assert {platform: code for platform, code, _, _ in row.code_on} == {
        "container": "container-gpu-unavailable",
        "wsl": "library-shadowed",
    }


def test_a_status_word_inside_another_name_is_not_read() -> None:
    # (The class name is matched as a word: a longer name that starts with it is another one.)
    assert not [s for s in error_signatures(TABLE) if s.pattern.search("cudnnStatusArchMismatchX")]


def test_cudnn9_sublibrary_codes() -> None:
    version = TABLE.by_name("CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH")
    loading = TABLE.by_name("CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED")
    assert [(r.number, r.majors, r.code) for r in version] == [
        (1002, (9,), "cudnn-version-mismatch")
    ]
    assert [(r.number, r.majors, r.since, r.code) for r in loading] == [
        (1008, (9,), "9.2.0", "cudnn-sublibrary-missing")
    ]


def test_cudnn_renumbering_keeps_one_row_per_numbering() -> None:
    rows = TABLE.by_name("CUDNN_STATUS_NOT_INITIALIZED")
    assert sorted((r.number, r.majors) for r in rows) == [(1, (7, 8)), (1001, (9,))]
    assert {r.code for r in rows} == {"gpu-out-of-memory"}
    assert _row(TABLE, "cudnn_status", 1, major=8).name == "CUDNN_STATUS_NOT_INITIALIZED"
    # cuDNN 8 has VERSION_MISMATCH (14) as its own value; cuDNN 7 did not have it yet.
    assert _row(TABLE, "cudnn_status", 14).majors == (8,)


def test_alias_is_never_the_answer_for_a_number() -> None:
    # In cuDNN 9 ALLOC_FAILED is another name for 4003; the library reports the new name.
    alias = [r for r in TABLE.by_name("CUDNN_STATUS_ALLOC_FAILED") if r.alias_of]
    assert [(r.number, r.alias_of) for r in alias] == [
        (4003, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED")
    ]
    assert _row(TABLE, "cudnn_status", 4003).name == (
        "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED"
    )


def test_every_row_cites_its_artefact_and_codes_are_known() -> None:
    for row in TABLE.rows:
        assert set(row.sources) & ARTEFACT_SOURCES, row.name
        assert row.code is None or row.code in CODES, row.name
    # Rows that name no environment cause stay unmapped rather than guessed.
    assert _row(TABLE, "cuda_runtime", 0).code is None
    assert _row(TABLE, "cuda_runtime", 303).code is None


# --- the loader refuses bad rows -----------------------------------------------------------

GOOD = """\
schema = 1

[sources]
a = "header"
b = "issue thread"

[[cuda_runtime]]
name = "cudaErrorNoDevice"
number = 100
description = "no CUDA-capable device is detected"
code = "no-gpu"
cause = "No GPU is visible."
fix = "Check nvidia-smi."
source = ["a", "b"]

[[cudnn_status]]
name = "CUDNN_STATUS_SUCCESS"
number = 0
majors = [8, 9]
source = "a"
"""


def _load(tmp_path: Path, text: str) -> ErrorCodes:
    (tmp_path / "error_codes.toml").write_text(text)
    return load_error_codes(tmp_path)


def test_small_table_loads(tmp_path: Path) -> None:
    table = _load(tmp_path, GOOD)
    assert [r.name for r in table.rows] == ["cudaErrorNoDevice", "CUDNN_STATUS_SUCCESS"]
    assert table.by_number("cudnn_status", 0, major=9) is not None
    assert table.by_number("cudnn_status", 0, major=7) is None


EXTRA_RUNTIME = """
[[cuda_runtime]]
name = "{name}"
number = {number}
source = "a"
"""


UNKNOWN = """
  [[cuda_runtime.if_unknown]]
  facts = ["gpu"]
  code = "driver-missing"
  message = "Or no {driver}."
  fix = "Install one."
"""


def _with_reading(text: str, reading: str = UNKNOWN) -> str:
    return text.replace('source = ["a", "b"]\n', 'source = ["a", "b"]\n' + reading)


def test_an_unknown_reading_is_a_warning_beside_the_rows_own(tmp_path: Path) -> None:
    row = _load(tmp_path, _with_reading(GOOD)).rows[0]
    assert [(r.facts, r.code) for r in row.if_unknown] == [(frozenset({"gpu"}), "driver-missing")]
    signature = error_signatures(ErrorCodes((row,), {}))[0]
    assert signature.if_unknown == row.if_unknown
    # The table's texts are plain: braces stay braces when the message is formatted.
    assert signature.if_unknown[0].message.format() == "Or no {driver}."


def test_the_generator_keeps_the_if_unknown_tables() -> None:
    script = _script()
    existing = tomllib.loads(_with_reading(GOOD))["cuda_runtime"][0]
    value = script.Value(name="cudaErrorNoDevice", number=100, description=existing["description"])
    text = "\n".join(script._row_lines("cuda_runtime", value, existing, {}))
    assert tomllib.loads(text)["cuda_runtime"][0]["if_unknown"] == existing["if_unknown"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda t: t.replace("number = 100\n", 'number = 100\nseverity = "error"\n'),
            "unknown field(s) severity",
        ),
        (
            lambda t: t + EXTRA_RUNTIME.format(name="cudaErrorOther", number=100),
            "duplicate number 100",
        ),
        (
            lambda t: t + EXTRA_RUNTIME.format(name="cudaErrorNoDevice", number=7),
            "duplicate name 'cudaErrorNoDevice'",
        ),
        (
            lambda t: t.replace('code = "no-gpu"', 'code = "no-such-code"'),
            "unknown finding code 'no-such-code'",
        ),
        (lambda t: t.replace('source = ["a", "b"]\n', ""), "missing field 'source'"),
        (
            lambda t: t.replace('source = ["a", "b"]', 'source = ["a", "zz"]'),
            "unknown source id(s) zz",
        ),
        (lambda t: t.replace('cause = "No GPU is visible."\n', ""), "needs 'cause' and 'fix'"),
        (lambda t: t.replace("majors = [8, 9]\n", ""), "'majors' is required"),
        (
            lambda t: t.replace("number = 100\n", "number = 100\nmajors = [12]\n"),
            "cudnn_status rows only",
        ),
        (
            lambda t: t.replace("number = 100\n", 'number = 100\nalias_of = "cudaErrorX"\n'),
            "field 'alias_of'",
        ),
        (lambda t: t.replace("[[cudnn_status]]", "[[cudnn]]"), "unknown top-level key(s) cudnn"),
        (
            lambda t: t.replace("number = 100\n", 'number = 100\nin_wsl = "no-such-code"\n'),
            "'no-such-code' needs a 'code' and must be a finding code",
        ),
        (
            lambda t: _with_reading(t, UNKNOWN.replace('"gpu"', '"os"')),
            "'os' is not one of build-cuda, driver, gpu, python",
        ),
        (
            lambda t: _with_reading(t, UNKNOWN.replace("driver-missing", "no-gpu")),
            "'no-gpu' is the row's own code",
        ),
        (
            lambda t: _with_reading(t, UNKNOWN.replace('["gpu"]', "[]")),
            "name at least one fact",
        ),
    ],
)
def test_loader_refuses_bad_rows(tmp_path: Path, change: object, message: str) -> None:
    assert callable(change)
    text = change(GOOD)
    assert text != GOOD
    with pytest.raises(MatrixDataError) as caught:
        _load(tmp_path, text)
    error = str(caught.value)
    assert message in error
    assert "\n" not in error
    assert "error_codes.toml" in error


# --- the generator -------------------------------------------------------------------------


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("error_tables", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # dataclasses resolve the module's annotations through sys.modules.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


HEADER = textwrap.dedent(
    """\
    typedef enum {
        /**
         * The API call returned with no errors. More text that is not kept.
         */
        X_SUCCESS = 0,
        /** \\deprecated
         * This is deprecated as of X 5.0. It is no longer an error.
         */
        X_OLD = 0x7,
        X_NEXT, /* plain comment, ignored */
        X_NEW = 1001, /**< Sub-library loading failed. @since cuDNN 9.2.0 */
        X_ALIAS DEPRECATED_ENUM = X_NEW, /**< @deprecated Use X_NEW. */
        X_COUNT = 1002
    } x_status_t;
    """
)


def test_enum_reader_reads_numbers_docs_and_aliases() -> None:
    script = _script()
    table = script.Table(
        family="cudnn_status",
        source_id="t",
        distribution="",
        version_prefix="",
        header="x.h",
        enum_start=r"typedef enum\s*\{",
        enum_end=r"\}\s*x_status_t\s*;",
        include="",
        includes=(),
        skip=("X_COUNT",),
    )
    values = script.parse_enum(HEADER, table)
    read = [(v.name, v.number, v.alias_of, v.meaning, v.since) for v in values]
    assert read == [
        ("X_SUCCESS", 0, "", "The API call returned with no errors.", ""),
        ("X_OLD", 7, "", "This is deprecated as of X 5.0.", ""),
        ("X_NEXT", 8, "", "", ""),
        ("X_NEW", 1001, "", "Sub-library loading failed.", "9.2.0"),
        ("X_ALIAS", 1001, "X_NEW", "Deprecated: Use X_NEW.", ""),
    ]


WHEELS = os.environ.get("ENVCHECK_ERROR_WHEELS", "")


@pytest.mark.skipif(
    not WHEELS or shutil.which("gcc") is None,
    reason="regenerating needs NVIDIA's wheels (~2.5 GB, not in the repository) in a folder named "
    "by ENVCHECK_ERROR_WHEELS, and gcc; see scripts/error_tables.py for the downloads",
)
def test_bundled_table_matches_the_wheels() -> None:
    script = _script()
    argv = ["--wheels", WHEELS, "--check"]
    header = os.environ.get("ENVCHECK_CUDNN7_HEADER")
    if header:
        argv += ["--cudnn7-header", header]
    assert script.main(argv) == 0
