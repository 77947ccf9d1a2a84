"""NVIDIA result codes (matrix/error_codes.toml) as data: what each number and string means.

The names, numbers, meanings and descriptions are generated from NVIDIA's wheels by
scripts/error_tables.py; the mapping to an envcheck finding code (code, cause, alternative, fix)
is written by hand in the same file. `load_error_codes` reads it strictly, with the row reader
of `envcheck.matrix.load`: unknown fields are refused, every row cites a source of the file,
numbers and names are unique (per cuDNN major for cuDNN, whose codes were renumbered in 9),
and every `code` is a finding code, so a bad row is a one-line MatrixDataError naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from envcheck.findings import CODES, Severity
from envcheck.matrix.compiled_patterns import compiled, prime
from envcheck.matrix.records import Source
from envcheck.matrix.rows import (
    MatrixDataError,
    Row,
    check_top_level,
    checked_against_toml,
    read_sources,
    read_toml,
)
from envcheck.matrix.signatures import (
    IfUnknown,
    Signature,
    if_unknown_readings,
    literal_template,
)
from envcheck.record import record

FILE = "error_codes.toml"

Family = Literal["cuda_driver", "cuda_runtime", "cudnn_status", "nccl_result", "cublas_status"]
FAMILIES: tuple[Family, ...] = (
    "cuda_driver",
    "cuda_runtime",
    "cudnn_status",
    "nccl_result",
    "cublas_status",
)
# Families whose numbering changed between library majors, so each row says which majors it is.
_WITH_MAJORS: frozenset[Family] = frozenset({"cudnn_status"})


@record
class ErrorCode:
    """One value of one NVIDIA result enum, and what it says about the environment."""

    family: Family
    name: str
    number: int
    meaning: str  # the header's doc comment, first sentence; "" where the header has none
    description: str  # the library's own string (what frameworks print); "" where not callable
    code: str | None  # an envcheck finding code; None for values that name no cause
    cause: str
    alternative: str
    fix: str
    sources: tuple[str, ...]
    alias_of: str = ""  # another name of the same family with the same number
    majors: tuple[int, ...] = ()  # cuDNN majors that have this name with this number
    since: str = ""  # cuDNN 9 header's @since
    # The code inside a container, where this value most often means the container was started
    # without GPU access (no device, no driver library): Signature.code_on.
    in_container: str | None = None
    # The code under WSL 2, where this value most often means a Linux driver's libcuda loaded
    # in place of the one WSL provides (/usr/lib/wsl/lib): Signature.code_on.
    in_wsl: str | None = None
    # Other causes of the same value while the log leaves a fact open ([[FAMILY.if_unknown]],
    # as a signature's): Signature.if_unknown, warnings beside `code`.
    if_unknown: tuple[IfUnknown, ...] = ()


@record
class ErrorCodes:
    """All rows of error_codes.toml, with the lookups `envcheck explain` needs."""

    rows: tuple[ErrorCode, ...]
    sources: Mapping[str, Source]

    def by_name(self, name: str) -> tuple[ErrorCode, ...]:
        """The rows named `name`: one, or one per numbering for a renumbered cuDNN status."""
        return tuple(row for row in self.rows if row.name == name)

    def by_number(self, family: Family, number: int, major: int | None = None) -> ErrorCode | None:
        """The canonical (non-alias) row of `number`; of `major`, else of the newest major."""
        found = [
            row
            for row in self.rows
            if row.family == family
            and row.number == number
            and not row.alias_of
            and (major is None or not row.majors or major in row.majors)
        ]
        if not found:
            return None
        return max(found, key=lambda row: max(row.majors, default=0))

    def by_description(self, text: str) -> tuple[ErrorCode, ...]:
        """The rows whose library string occurs in `text`, the longest (most specific) first."""
        found = [row for row in self.rows if row.description and row.description in text]
        return tuple(sorted(found, key=lambda row: -len(row.description)))


class _ErrorRow(Row):
    """The matrix row reader plus the one field type only this file has (a list of majors)."""

    def integer_list(self, key: str) -> tuple[int, ...]:
        value = self._get(key, required=False)
        if value is None:
            return ()
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(item, int) and not isinstance(item, bool) for item in value)
        ):
            raise self.error(key, "expected a non-empty list of integers")
        if list(value) != sorted(set(value)):
            raise self.error(key, "expected ascending integers without repeats")
        return tuple(value)


def _error_code(row: _ErrorRow, family: Family) -> ErrorCode:
    code = row.optional_string("code")
    if code is not None and code not in CODES:
        raise row.error("code", f"unknown finding code {code!r} (see envcheck/findings.py)")
    cause, alternative, fix = row.text("cause"), row.text("alternative"), row.text("fix")
    if code is not None and not (cause and fix):
        raise MatrixDataError(f"{row.where}: a row with 'code' needs 'cause' and 'fix'")
    if code is None and (cause or alternative or fix):
        raise MatrixDataError(f"{row.where}: 'cause', 'alternative' and 'fix' need a 'code'")
    in_container, in_wsl = (_platform_code(row, code, key) for key in ("in_container", "in_wsl"))
    if_unknown = if_unknown_readings(row, frozenset({code})) if code else ()
    majors = row.integer_list("majors")
    if (family in _WITH_MAJORS) != bool(majors):
        raise MatrixDataError(
            f"{row.where}: 'majors' is required for {family} rows"
            if family in _WITH_MAJORS
            else f"{row.where}: 'majors' belongs to cudnn_status rows only"
        )
    entry = ErrorCode(
        family=family,
        name=row.string("name"),
        number=row.integer("number"),
        meaning=row.text("meaning"),
        description=row.text("description"),
        code=code,
        cause=cause,
        alternative=alternative,
        fix=fix,
        sources=row.sources(),
        alias_of=row.text("alias_of"),
        majors=majors,
        since=row.text("since"),
        in_container=in_container,
        in_wsl=in_wsl,
        if_unknown=if_unknown,
    )
    row.done()
    return entry


def _platform_code(row: _ErrorRow, code: str | None, key: str) -> str | None:
    """A row's code on one platform (in_container, in_wsl): a finding code, beside 'code'."""
    value = row.optional_string(key)
    if value is not None and (code is None or value not in CODES):
        raise row.error(key, f"{value!r} needs a 'code' and must be a finding code")
    return value


def _check_unique(rows: list[tuple[str, ErrorCode]]) -> None:
    """Names and (non-alias) numbers unique per family and major; aliases point at a row."""
    names: dict[tuple[str, str, int | None], str] = {}
    numbers: dict[tuple[str, int, int | None], str] = {}
    for where, row in rows:
        for major in row.majors or (None,):
            name_key = (row.family, row.name, major)
            if name_key in names:
                raise MatrixDataError(
                    f"{where}: duplicate name {row.name!r} (also {names[name_key]})"
                )
            names[name_key] = where
            if row.alias_of:
                continue
            number_key = (row.family, row.number, major)
            if number_key in numbers:
                raise MatrixDataError(
                    f"{where}: duplicate number {row.number} (also {numbers[number_key]})"
                )
            numbers[number_key] = where
    for where, row in rows:
        if not row.alias_of:
            continue
        target = [
            other
            for _, other in rows
            if other.family == row.family
            and other.name == row.alias_of
            and other.number == row.number
            and not other.alias_of
            and set(other.majors) >= set(row.majors)
        ]
        if not target:
            raise MatrixDataError(
                f"{where}: field 'alias_of': no {row.family} row {row.alias_of!r} "
                f"with number {row.number}"
            )


@checked_against_toml
def load_error_codes(directory: Path) -> ErrorCodes:
    """The rows of `directory`/error_codes.toml, in file order."""
    data = read_toml(directory, FILE)
    check_top_level(data, FILE, set(FAMILIES))
    sources = read_sources(data, FILE)
    rows: list[tuple[str, ErrorCode]] = []
    for family in FAMILIES:
        tables = data.get(family, [])
        if not isinstance(tables, list):
            raise MatrixDataError(f"{FILE}: [[{family}]] must be an array of tables")
        for index, table in enumerate(tables, start=1):
            hint = table.get("name") if isinstance(table, dict) else None
            label = f" ({hint})" if isinstance(hint, str) else ""
            where = f"{FILE}: [[{family}]] #{index}{label}"
            rows.append((where, _error_code(_ErrorRow(table, where, sources), family)))
    if not rows:
        raise MatrixDataError(f"{FILE}: no rows in any of {', '.join(FAMILIES)}")
    _check_unique(rows)
    return ErrorCodes(rows=tuple(row for _, row in rows), sources=sources)


# --- as log signatures ----------------------------------------------------------------------

# How logs write a result number: PyTorch "CUDA error 35" (older "cuda runtime error (35)"),
# ONNX Runtime "CUDA failure 100:", llama.cpp "CUDA error 35 at ...", Numba "CUresult 100".
# ... and "CUDA driver error code 100", "CUDA_ERROR (34)", "cudaError 35".
_NUMBER_FORMS = (
    r"(?:CUDA error|CUDA Error|CUDA failure|cuda runtime error|CUresult|cudaError|CUDA_ERROR"
    r"|(?:CUDA|cuda)[\w ]{{0,20}}? error code)[: =]*\(?{number}\)?(?![\d.])"
    # Numba's driver errors name the value only by its number where numba's own table lacks
    # it (numba/cuda/cudadrv/driver.py _check_ctypes_error: CudaAPIError's "[222] Call to
    # cuModuleLoadDataEx results in UNKNOWN_CUDA_ERROR"; at driver init "Call to cuInit
    # results in UNKNOWN_CUDA_ERROR (804)").
    r"|\[{number}\]\s?Call to cu\w{{1,40}} results in\b"
    r"|Call to cu\w{{1,40}} results in \w{{1,40}} \({number}\)"
    # Ollama's GPU discovery (gpu_info_cudart.c, gpu_info_nvcuda.c): "Unable to load cudart
    # library ...: cudart init failure: 35", "... cuda driver library init failure: 802".
    r"|\b(?:cudart|cuda driver library|nvcuda) init failure:\s?{number}(?!\d)"
    # LAMMPS's Geryon library (lib/gpu/geryon): "Cuda driver error 804 in call at file ...".
    # (The \s? keeps the number out of these forms' literals: a literal with a digit is a
    # trigger the big-log scan must pin in every run it passes over, one per value.)
    r"|\bCuda driver error\s?{number} in call\b"
    # TensorRT's builder and runtime: "CUDA initialization failure with error: 35".
    r"|\b(?:CUDA|Cuda) initialization failure with error:?\s?{number}(?!\d)"
)
# A library string shorter than this many words ("out of memory", "unknown error") says too
# little on its own: only the name or number of such a value is looked for, and its string
# where a CUDA error form prints it: PyTorch's "CUDA error: <string>" (c10), THC's
# "cuda runtime error (8) : <string>" and "error=8 : <string>", "CUDA error (8): <string>",
# darknet's "CUDA Error: <string>", Thrust's and Caffe's (below).
# The number there may be another CUDA's (before 10.1 the runtime's values were numbered
# otherwise: invalid device function was 8, now 98); the string has stayed the same.
_SPECIFIC_WORDS = 4
_STRING_FORMS = (
    r"(?:(?:CUDA [Ee]rror(?: \(\d{{1,4}}\))?|cuda runtime error \(\d{{1,4}}\)|\berror=\d{{1,4}}"
    # Thrust's system_error: "function_attributes(): after cudaFuncGetAttributes: <string>".
    r"|\bafter cuda[A-Z]\w{{0,40}}) ?: "
    # Caffe's CUDA_CHECK: "Check failed: error == cudaSuccess (2 vs. 0)  out of memory";
    # PaddlePaddle's enforce: "cuda error(2).out of memory."
    r"|\berror == cudaSuccess \(\d{{1,4}} vs\. \d\) {{1,2}}|\bcuda error\(\d{{1,4}}\)\. ?"
    # dlib's CHECK_CUDA (dlib/cuda/cuda_utils.h): "Error while calling cudaGetDevice(&dev) in
    # file .../gpu_data.cpp:201. code: 999, reason: unknown error".
    r"|:\d{{1,6}}\. code: \d{{1,4}}, reason: "
    # A program's own check of a runtime call, the call named before the string:
    # amazon-dsstne's "cudaGetDeviceCount failed unknown error", "cudaMalloc failed: ...".
    r"|\bcuda[A-Z]\w{{1,40}}(?:\(\))? failed:? "
    # nccl-tests' CUDACHECK "Test CUDA failure common.cu:1045 'unknown error'", NCCL's own
    # "NCCL WARN Cuda failure 'invalid argument'".
    r"|\b(?:Test CUDA|Cuda) failure (?:[\w.-]{{1,80}}:\d{{1,6}} )?'){text}\b"
)


def _camel(name: str) -> str:
    """A cuDNN status as wrappers name its exception class: CUDNN_STATUS_ARCH_MISMATCH ->
    cudnnStatusArchMismatch (hannes-brt/cudnn-python-wrappers' libcudnn.py raises those)."""
    head, *words = name.lower().split("_")
    return head + "".join(word.capitalize() for word in words)


def _pattern_of(row: ErrorCode, numbered: bool) -> str:
    forms = [rf"\b{re.escape(row.name)}\b"]
    if row.family == "cudnn_status":
        forms.append(rf"\b{_camel(row.name)}\b")
    if len(row.description.split()) >= _SPECIFIC_WORDS:
        forms.append(re.escape(row.description))
    elif row.family == "cuda_runtime" and row.description:
        forms.append(_STRING_FORMS.format(text=re.escape(row.description)))
    if numbered:
        forms.append(_NUMBER_FORMS.format(number=row.number))
    return "|".join(forms)


def _signature_of(row: ErrorCode, pattern: str) -> Signature:
    code = row.code or ""
    said = row.description or row.meaning.rstrip(".")
    message = f"{row.name} ({row.number}): {said}. Usually: {row.cause}".rstrip()
    if row.alternative:
        message += f" Otherwise: {row.alternative}"
    return Signature(
        id=f"{row.family.replace('_', '-')}-{row.number}-{_kebab(row.name)}",
        pattern=compiled(pattern),
        code=code,
        severity=Severity.INFO if code == "program-error" else Severity.ERROR,
        message=literal_template(message),
        fix=literal_template(row.fix),
        root_cause=code != "program-error",
        sources=row.sources,
        note="generated from matrix/error_codes.toml",
        code_on=tuple(
            (platform, code, frozenset(), "")
            for platform, code in (("container", row.in_container), ("wsl", row.in_wsl))
            if code
        ),
        if_unknown=row.if_unknown,
    )


def _kebab(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name)
    return re.sub(r"[^a-z0-9]+", "-", spaced.lower()).strip("-")


def error_signatures(codes: ErrorCodes) -> tuple[Signature, ...]:
    """A log signature for every value that names an environment cause (or a program error):
    its name, its library string where that is specific, and for CUDA its number as logs
    print it (a driver-API number only where the runtime does not map the same number)."""
    mapped = [row for row in codes.rows if row.code and not row.alias_of]
    runtime_numbers = {row.number for row in mapped if row.family == "cuda_runtime"}
    patterns = [
        _pattern_of(
            row,
            row.family == "cuda_runtime"
            or (row.family == "cuda_driver" and row.number not in runtime_numbers),
        )
        for row in mapped
    ]
    prime(patterns)
    return tuple(_signature_of(row, pattern) for row, pattern in zip(mapped, patterns))
