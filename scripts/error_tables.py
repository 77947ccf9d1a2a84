#!/usr/bin/env python3
"""Regenerate matrix/error_codes.toml from NVIDIA's own wheels.

    pip download --no-deps -d DIR nvidia-cuda-runtime-cu12==12.9.79
    pip download --no-deps -d DIR nvidia-cuda-nvcc-cu12==12.9.86
    pip download --no-deps -d DIR nvidia-cudnn-cu12==9.28.0.42
    pip download --no-deps -d DIR nvidia-cudnn-cu12==8.9.7.29
    pip download --no-deps -d DIR nvidia-nccl-cu12==2.32.3
    pip download --no-deps -d DIR nvidia-cublas-cu12==12.9.3.13
    git -C MIRROR show 5b28b689a75e625bf72d1986c609b0b6d8457b6f:include/cudnn.h > cudnn7.h
    python scripts/error_tables.py --wheels DIR --cudnn7-header cudnn7.h [--write | --check]

(MIRROR: a clone of the public repository cv-or-not-cv/psenet_cpp, which carries NVIDIA's
cudnn.h of cuDNN 7.2.1; NVIDIA publishes no cuDNN 7 wheel to read instead.)

What comes from where:
  * names and numbers: the enum in the wheel's header, then checked by a gcc-built program that
    prints `(int)NAME` for every name, so a parsing slip cannot pass silently;
  * `meaning`: the header's doc comment of the value, first sentence (cuda.h, driver_types.h,
    cuDNN 9's cudnn_graph.h; cuDNN 8, NCCL and cuBLAS headers carry none);
  * `description`: what the library itself returns for the value (cudaGetErrorString,
    cudnnGetErrorString, ncclGetErrorString, cublasGetStatusString), called by the same program
    on this host, with no GPU and no driver; the driver API's own strings live in the driver's
    libcuda, which no wheel ships, so CUresult rows have none.

The hand-written part of each row (code, cause, alternative, fix and the sources they cite)
lives only in the TOML: the script reads it back from the existing file and keeps it, so a
regeneration changes only what the artefacts say. Without --write or --check it prints a
unified diff. Output is deterministic: rows sorted by number, fields in a fixed order.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import tomllib
from packaging.version import Version

from envcheck.atomic_file import write_atomically
from envcheck.errors import EnvcheckError

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "matrix" / "error_codes.toml"
FAMILIES = ("cuda_driver", "cuda_runtime", "cudnn_status", "nccl_result", "cublas_status")
CURATED = ("code", "cause", "alternative", "fix", "in_container", "in_wsl")
# The curated tables of a row, written after its source ids as [[FAMILY.KEY]] tables.
CURATED_TABLES = ("if_unknown",)
COMMAND = "python scripts/error_tables.py --wheels DIR --cudnn7-header cudnn7.h --write"


@dataclass(frozen=True)
class Table:
    """One enum of one artefact, and the library calls that name its values."""

    family: str
    source_id: str
    distribution: str  # wheel file name prefix, e.g. nvidia_cudnn_cu12
    version_prefix: str  # "" for any version; "9." picks cuDNN 9 among several cuDNN wheels
    header: str  # member path inside the wheel
    enum_start: str  # regex locating the opening brace of the enum
    enum_end: str  # regex closing it
    include: str  # what the C program includes
    includes: tuple[str, ...]  # member folders to put on the include path
    libraries: tuple[str, ...] = ()  # members to extract; the first is linked against
    name_function: str = ""  # returns the value's name
    string_function: str = ""  # returns the value's description
    major: int | None = None  # cuDNN only
    skip: tuple[str, ...] = ()  # enum members that are sentinels, not results
    defines: tuple[str, ...] = ()  # -D macros for the compile


# cuda_fp16.h and cuda_bf16.h include CCCL's <nv/target>, which none of these wheels ships; the
# status enums do not depend on them, so their include guards are set to skip them.
_SKIP_HALF_TYPES = ("__CUDA_FP16_H__", "__CUDA_BF16_H__", "__CUDA_FP8_H__")


_RUNTIME_INCLUDE = "nvidia/cuda_runtime/include"

TABLES = (
    Table(
        family="cuda_driver",
        source_id="wheel-cuda-runtime-driver-api",
        distribution="nvidia_cuda_runtime_cu12",
        version_prefix="",
        header="nvidia/cuda_runtime/include/cuda.h",
        enum_start=r"typedef enum cudaError_enum\s*\{",
        enum_end=r"\}\s*CUresult\s*;",
        include="cuda.h",
        includes=(_RUNTIME_INCLUDE,),
    ),
    Table(
        family="cuda_runtime",
        source_id="wheel-cuda-runtime",
        distribution="nvidia_cuda_runtime_cu12",
        version_prefix="",
        header="nvidia/cuda_runtime/include/driver_types.h",
        enum_start=r"enum __device_builtin__ cudaError\s*\{",
        enum_end=r"\}\s*;",
        include="cuda_runtime_api.h",
        includes=(_RUNTIME_INCLUDE,),
        libraries=("nvidia/cuda_runtime/lib/libcudart.so.12",),
        name_function="cudaGetErrorName",
        string_function="cudaGetErrorString",
    ),
    Table(
        family="cudnn_status",
        source_id="wheel-cudnn-9",
        distribution="nvidia_cudnn_cu12",
        version_prefix="9.",
        header="nvidia/cudnn/include/cudnn_graph.h",
        enum_start=r"typedef enum\s*\{(?=\s*CUDNN_STATUS_SUCCESS)",
        enum_end=r"\}\s*cudnnStatus_t\s*;",
        include="cudnn.h",
        includes=("nvidia/cudnn/include", _RUNTIME_INCLUDE),
        libraries=("nvidia/cudnn/lib/libcudnn.so.9", "nvidia/cudnn/lib/libcudnn_graph.so.9"),
        string_function="cudnnGetErrorString",
        major=9,
    ),
    Table(
        family="cudnn_status",
        source_id="wheel-cudnn-8",
        distribution="nvidia_cudnn_cu12",
        version_prefix="8.",
        header="nvidia/cudnn/include/cudnn_ops_infer.h",
        enum_start=r"typedef enum\s*\{(?=\s*CUDNN_STATUS_SUCCESS)",
        enum_end=r"\}\s*cudnnStatus_t\s*;",
        include="cudnn.h",
        includes=("nvidia/cudnn/include", _RUNTIME_INCLUDE),
        libraries=("nvidia/cudnn/lib/libcudnn.so.8", "nvidia/cudnn/lib/libcudnn_ops_infer.so.8"),
        string_function="cudnnGetErrorString",
        major=8,
    ),
    Table(
        family="nccl_result",
        source_id="wheel-nccl",
        distribution="nvidia_nccl_cu12",
        version_prefix="",
        header="nvidia/nccl/include/nccl.h",
        enum_start=r"typedef enum\s*\{(?=\s*ncclSuccess)",
        enum_end=r"\}\s*ncclResult_t\s*;",
        include="nccl.h",
        includes=("nvidia/nccl/include", _RUNTIME_INCLUDE),
        libraries=("nvidia/nccl/lib/libnccl.so.2",),
        string_function="ncclGetErrorString",
        skip=("ncclNumResults",),
        defines=_SKIP_HALF_TYPES,
    ),
    Table(
        family="cublas_status",
        source_id="wheel-cublas",
        distribution="nvidia_cublas_cu12",
        version_prefix="",
        header="nvidia/cublas/include/cublas_api.h",
        enum_start=r"typedef enum\s*\{(?=\s*CUBLAS_STATUS_SUCCESS)",
        enum_end=r"\}\s*cublasStatus_t\s*;",
        include="cublas_v2.h",
        includes=("nvidia/cublas/include", _RUNTIME_INCLUDE),
        libraries=("nvidia/cublas/lib/libcublas.so.12", "nvidia/cublas/lib/libcublasLt.so.12"),
        name_function="cublasGetStatusName",
        string_function="cublasGetStatusString",
        # cuBLAS prototypes name the half types; any 16-bit stand-in parses, none is called.
        defines=(*_SKIP_HALF_TYPES, "__half=short", "__nv_bfloat16=short"),
    ),
)

# The runtime wheel's headers include crt/host_defines.h, which only the nvcc wheel ships; every
# compile needs it, and its wheel is read for nothing else.
TOOLCHAIN = Table(
    family="",
    source_id="",
    distribution="nvidia_cuda_nvcc_cu12",
    version_prefix="",
    header="nvidia/cuda_nvcc/include/crt/host_defines.h",
    enum_start="",
    enum_end="",
    include="",
    includes=("nvidia/cuda_nvcc/include",),
)
CUDNN7_SOURCE_ID = "header-cudnn-7"
CUDNN7_TABLE = Table(
    family="cudnn_status",
    source_id=CUDNN7_SOURCE_ID,
    distribution="",
    version_prefix="",
    header="include/cudnn.h",
    enum_start=r"typedef enum\s*\{(?=\s*CUDNN_STATUS_SUCCESS)",
    enum_end=r"\}\s*cudnnStatus_t\s*;",
    include="",
    includes=(),
    major=7,
)


class ArtefactError(Exception):
    """An artefact is missing or does not read as expected."""


@dataclass
class Value:
    """One enum member as read from one artefact."""

    name: str
    number: int
    alias_of: str = ""
    meaning: str = ""
    since: str = ""
    description: str = ""
    majors: set[int] = field(default_factory=set)
    sources: list[str] = field(default_factory=list)


# --- reading headers -----------------------------------------------------------------------

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _doc_text(comment: str) -> str:
    body = comment[3:-2].lstrip("<")
    lines = [re.sub(r"^\s*\*?\s?", "", line) for line in body.splitlines()]
    text = " ".join(line.strip() for line in lines if line.strip())
    text = re.sub(r"\\(?:deprecated|p|e|ref)\s*", "", text)
    return re.sub(r"::(?=\w)", "", text).strip()


def _first_sentence(text: str) -> str:
    text = re.sub(r"^@deprecated\s*", "Deprecated: ", text)
    text = re.split(r"\s@", text, maxsplit=1)[0].strip()
    match = re.match(r"(.+?[.!?])(?:\s+(?=[A-Z])|$)", text)
    return (match.group(1) if match else text).strip()


def _entry(raw: str, doc: str, values: list[Value], table: Table) -> None:
    """Append the member written as `raw` (`NAME [ATTR...] [= VALUE]`) with its leading doc."""
    raw = raw.strip()
    if not raw:
        return
    left, _, right = raw.partition("=")
    names = _IDENT.findall(left)
    if not names:
        raise ArtefactError(f"{table.header}: cannot read enum entry {raw!r}")
    right = right.strip()
    earlier = {value.name: value for value in values}
    alias = ""
    if not right:
        number = values[-1].number + 1 if values else 0
    elif right in earlier:
        alias, number = right, earlier[right].number
    else:
        number = int(right, 0)
    since = re.search(r"@since cuDNN ([\d.]+)", doc)
    values.append(
        Value(
            name=names[0],
            number=number,
            alias_of=alias,
            meaning=_first_sentence(doc) if doc else "",
            since=since.group(1) if since else "",
        )
    )


def _attach_trailing(value: Value, comment: str) -> None:
    """A trailing doc comment (cuDNN 9 style, after the comma) belongs to the entry it follows."""
    text = _doc_text(comment)
    value.meaning = _first_sentence(text)
    since = re.search(r"@since cuDNN ([\d.]+)", text)
    value.since = since.group(1) if since else ""


def parse_enum(text: str, table: Table) -> list[Value]:
    """The members of `table`'s enum in `text`, in header order, with their doc comments."""
    start = re.search(table.enum_start, text)
    if start is None:
        raise ArtefactError(f"{table.header}: enum start {table.enum_start!r} not found")
    end = re.compile(table.enum_end).search(text, start.end())
    if end is None:
        raise ArtefactError(f"{table.header}: enum end {table.enum_end!r} not found")
    body = text[start.end() : end.start()]
    values: list[Value] = []
    pending_doc = ""
    entry = ""
    position = 0
    for match in [*_COMMENT.finditer(body), None]:
        code = body[position : match.start() if match else len(body)]
        pieces = code.split(",")
        for piece in pieces[:-1]:
            _entry(entry + piece, pending_doc, values, table)
            entry, pending_doc = "", ""
        entry += pieces[-1]
        if match is None:
            _entry(entry, pending_doc, values, table)
            break
        position = match.end()
        comment = match.group(0)
        if comment.startswith("/**<") and not entry.strip() and values:
            _attach_trailing(values[-1], comment)
        elif comment.startswith("/**"):
            pending_doc = _doc_text(comment)
    return [value for value in values if value.name not in table.skip]


# --- finding and unpacking wheels ----------------------------------------------------------


def find_wheel(directory: Path, table: Table) -> tuple[Path, str]:
    """The newest wheel of `table`'s distribution (and version prefix) in `directory`."""
    found: list[tuple[Version, Path]] = []
    for path in directory.glob(f"{table.distribution}-*.whl"):
        version = path.name.split("-")[1]
        if version.startswith(table.version_prefix):
            found.append((Version(version), path))
    if not found:
        wanted = table.distribution.replace("_", "-") + (
            f"=={table.version_prefix}*" if table.version_prefix else ""
        )
        raise ArtefactError(f"no {wanted} wheel in {directory} (pip download --no-deps {wanted})")
    newest, wheel = max(found)
    return wheel, str(newest)


def unpack(wheel: Path, table: Table, into: Path) -> Path:
    """Extract the header folders and libraries `table` needs; returns the extraction root."""
    root = into / wheel.stem
    with zipfile.ZipFile(wheel) as archive:
        members = [
            name
            for name in archive.namelist()
            if name in table.libraries
            or name == table.header
            or any(name.startswith(folder + "/") for folder in table.includes)
        ]
        for name in members:
            if not (root / name).exists():
                archive.extract(name, root)
    return root


# --- calling the libraries -----------------------------------------------------------------

_SEPARATOR = "\x1f"


def _c_program(table: Table, values: list[Value]) -> str:
    lines = [
        "#include <stdio.h>",
        f"#include <{table.include}>",
        "",
        'static const char *or_empty(const char *text) { return text ? text : ""; }',
        "",
        "int main(void) {",
    ]
    for value in values:
        name_call = (
            f"or_empty({table.name_function}({value.name}))" if table.name_function else '""'
        )
        text_call = (
            f"or_empty({table.string_function}({value.name}))" if table.string_function else '""'
        )
        lines.append(
            f'    printf("%s\\x1f%d\\x1f%s\\x1f%s\\n", "{value.name}", (int){value.name}, '
            f"{name_call}, {text_call});"
        )
    lines += ["    return 0;", "}", ""]
    return "\n".join(lines)


def call_library(table: Table, values: list[Value], roots: list[Path], work: Path) -> None:
    """Check every parsed number with the compiler and fill `description` from the library."""
    source = work / f"{table.source_id}.c"
    binary = work / table.source_id
    source.write_text(_c_program(table, values))
    command = ["gcc", "-w", "-o", str(binary), str(source)]
    command += [f"-D{macro}" for macro in table.defines]
    for folder in table.includes + TOOLCHAIN.includes:
        command += [f"-I{root / folder}" for root in roots if (root / folder).is_dir()]
    environment = dict(os.environ)
    if table.libraries:
        library = roots[0] / table.libraries[0]
        command += [
            f"-L{library.parent}",
            f"-l:{library.name}",
            f"-Wl,-rpath,{library.parent}",
        ]
        # The host may carry another copy of the library (a system CUDA); the wheel's must win.
        environment["LD_LIBRARY_PATH"] = str(library.parent)
    subprocess.run(command, check=True, capture_output=True, text=True)
    output = subprocess.run(
        [str(binary)], check=True, capture_output=True, text=True, env=environment
    ).stdout
    by_name = {value.name: value for value in values}
    seen = set()
    for line in output.splitlines():
        name, number, reported_name, text = line.split(_SEPARATOR)
        value = by_name[name]
        seen.add(name)
        if int(number) != value.number:
            raise ArtefactError(
                f"{table.header}: {name} parsed as {value.number}, compiled as {number}"
            )
        if table.name_function and not value.alias_of and reported_name != name:
            raise ArtefactError(f"{table.name_function}({name}) returned {reported_name!r}")
        value.description = text
    if seen != set(by_name):
        raise ArtefactError(f"{table.source_id}: no output for {sorted(set(by_name) - seen)}")


# --- assembling the file -------------------------------------------------------------------


def _citation(table: Table, wheel: Path, version: str) -> str:
    called = (
        f"; {', '.join(f for f in (table.name_function, table.string_function) if f)} "
        f"from {table.libraries[0]} called by a gcc-built program on a host without a GPU or "
        f"driver (-> description)"
        if table.libraries
        else ""
    )
    described = (
        "doc comments -> meaning"
        if table.family in ("cuda_driver", "cuda_runtime") or table.major == 9
        else "no doc comments"
    )
    return (
        f"{table.distribution.replace('_', '-')} {version} wheel ({wheel.name}): "
        f"enum in {table.header} ({described}){called}. Reproduce: {COMMAND}"
    )


def _cudnn7_citation(path: Path, origin: str) -> str:
    text = path.read_text(errors="replace")
    parts = [
        re.search(rf"#define CUDNN_{k}\s+(\d+)", text) for k in ("MAJOR", "MINOR", "PATCHLEVEL")
    ]
    version = ".".join(p.group(1) for p in parts if p) or "7"
    return (
        f"cuDNN {version} cudnn.h (NVIDIA's header, public copy {origin}): enum cudnnStatus_t, "
        f"names and numbers only (no wheel of cuDNN 7 exists to call). Reproduce: {COMMAND}"
    )


def read_artefacts(
    wheels: Path, cudnn7: Path | None, cudnn7_origin: str, work: Path
) -> tuple[dict[str, list[Value]], dict[str, str]]:
    families: dict[str, dict[tuple[str, int], Value]] = {name: {} for name in FAMILIES}
    citations: dict[str, str] = {}
    toolchain_wheel, _ = find_wheel(wheels, TOOLCHAIN)
    toolchain_root = unpack(toolchain_wheel, TOOLCHAIN, work)
    runtime_root: Path | None = None
    tables: list[tuple[Table, Path | None]] = [(table, None) for table in TABLES]
    if cudnn7 is not None:
        tables.append((CUDNN7_TABLE, cudnn7))
    for table, header in tables:
        if header is None:
            wheel, version = find_wheel(wheels, table)
            root = unpack(wheel, table, work)
            if table.distribution == "nvidia_cuda_runtime_cu12":
                runtime_root = root
            citations[table.source_id] = _citation(table, wheel, version)
            values = parse_enum((root / table.header).read_text(errors="replace"), table)
            extra = [runtime_root] if runtime_root and runtime_root != root else []
            roots = [root, *extra, toolchain_root]
            call_library(table, values, roots, work)
        else:
            citations[table.source_id] = _cudnn7_citation(header, cudnn7_origin)
            values = parse_enum(header.read_text(errors="replace"), table)
        merged = families[table.family]
        for value in values:
            key = (value.name, value.number)
            row = merged.setdefault(key, value)
            if row is not value:
                # Same name and number in an older major: one row, the newer reading kept.
                row.meaning = row.meaning or value.meaning
                row.description = row.description or value.description
            if table.major is not None:
                row.majors.add(table.major)
            if table.source_id not in row.sources:
                row.sources.append(table.source_id)
    ordered = {
        family: sorted(rows.values(), key=lambda v: (v.number, v.alias_of != "", v.name))
        for family, rows in families.items()
    }
    return ordered, citations


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


HEADER = f"""\
# CUDA driver (CUresult), CUDA runtime (cudaError_t), cuDNN (cudnnStatus_t), NCCL
# (ncclResult_t) and cuBLAS (cublasStatus_t) result codes, read from NVIDIA's wheels by
# scripts/error_tables.py (see its docstring for the download commands). Regenerate with
#   {COMMAND}
# The script rewrites name, number, alias_of, majors, since, meaning, description and the
# artefact source ids; it keeps code, cause, alternative, fix, in_container, in_wsl, the
# if_unknown tables and the other source ids of each row, and the [sources] entries it does not
# generate. Edit only those.
#
# Fields: name, number (as the library returns it), alias_of (another name with the same
# number), majors (cuDNN majors that have this name with this number), since (cuDNN 9
# header's @since), meaning (header doc comment, first sentence), description (the
# library's own string, what frameworks print), code (an envcheck finding code, only for
# rows that name a cause in the environment or the program), cause, alternative, fix,
# in_container (the code inside a container, where the value most often means no GPU access),
# in_wsl (the code under WSL 2, where it most often means the wrong libcuda),
# source (ids into [sources]), and [[FAMILY.if_unknown]] tables (facts, not_on, code, message,
# fix: another cause of the same value, a warning beside code until the log shows the facts,
# as a log signature's if_unknown).
schema = 1
"""


def _row_lines(
    family: str, value: Value, old: dict[str, object], citations: dict[str, str]
) -> list[str]:
    generated = {
        "alias_of": value.alias_of,
        "majors": value.majors,
        "since": value.since,
        "meaning": value.meaning,
        "description": value.description,
    }
    lines = ["", f"[[{family}]]", f"name = {_string(value.name)}", f"number = {value.number}"]
    for key, field_value in generated.items():
        if isinstance(field_value, set) and field_value:
            lines.append(f"{key} = [{', '.join(str(m) for m in sorted(field_value))}]")
        elif isinstance(field_value, str) and field_value:
            lines.append(f"{key} = {_string(field_value)}")
    lines += [f"{key} = {_string(str(old[key]))}" for key in CURATED if key in old]
    old_sources = old.get("source", [])
    extra = [old_sources] if isinstance(old_sources, str) else list(old_sources)  # type: ignore[call-overload]
    ids = value.sources + [str(s) for s in extra if s not in citations]
    lines.append(f"source = [{', '.join(_string(s) for s in ids)}]")
    for key in CURATED_TABLES:
        tables = old.get(key, [])
        assert isinstance(tables, list)
        for table in tables:
            lines += ["", f"  [[{family}.{key}]]"]
            lines += [f"  {name} = {_value(value)}" for name, value in table.items()]
    return lines


def _value(value: object) -> str:
    """A curated table's value (a string or a list of strings) as TOML."""
    if isinstance(value, list):
        return f"[{', '.join(_string(str(item)) for item in value)}]"
    return _string(str(value))


def render(
    families: dict[str, list[Value]], citations: dict[str, str], existing: dict[str, object]
) -> str:
    """The TOML text: generated facts, with the curated fields of `existing` carried over."""
    kept_sources = existing.get("sources", {})
    assert isinstance(kept_sources, dict)
    curated: dict[tuple[str, str, int], dict[str, object]] = {}
    for family in FAMILIES:
        rows = existing.get(family, [])
        assert isinstance(rows, list)
        for row in rows:
            curated[(family, row["name"], row["number"])] = row
    generated = {(f, value.name, value.number) for f in FAMILIES for value in families[f]}
    missing = set(curated) - generated
    if missing:
        raise ArtefactError(
            "curated rows no longer in the artefacts (move their mapping by hand): "
            + ", ".join(f"{f}/{n}={num}" for f, n, num in sorted(missing))
        )
    sources = dict(sorted(citations.items()))
    sources.update({k: v for k, v in sorted(kept_sources.items()) if k not in citations})
    out = [HEADER, "[sources]"] + [f"{key} = {_string(text)}" for key, text in sources.items()]
    for family in FAMILIES:
        for value in families[family]:
            old = curated.get((family, value.name, value.number), {})
            out += _row_lines(family, value, old, citations)
    return "\n".join(out) + "\n"


def generate(wheels: Path, cudnn7: Path | None, cudnn7_origin: str, existing_path: Path) -> str:
    existing: dict[str, object] = {}
    if existing_path.exists():
        existing = tomllib.loads(existing_path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="error-tables-") as work:
        families, citations = read_artefacts(wheels, cudnn7, cudnn7_origin, Path(work))
    return render(families, citations, existing)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheels", type=Path, required=True, help="folder of downloaded wheels")
    parser.add_argument("--cudnn7-header", type=Path, help="cuDNN 7's cudnn.h (see docstring)")
    parser.add_argument(
        "--cudnn7-origin",
        default="cv-or-not-cv/psenet_cpp include/cudnn.h at "
        "5b28b689a75e625bf72d1986c609b0b6d8457b6f",
        help="where the cuDNN 7 header was taken from (repo, path, commit)",
    )
    parser.add_argument("--output", type=Path, default=TARGET)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="replace the file (atomically)")
    action.add_argument("--check", action="store_true", help="exit 1 when the file differs")
    args = parser.parse_args(argv)
    try:
        text = generate(args.wheels, args.cudnn7_header, args.cudnn7_origin, args.output)
    except (ArtefactError, EnvcheckError, OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or ""
        print(f"error_tables: {exc} {detail}".strip(), file=sys.stderr)
        return 2
    current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
    if args.write:
        write_atomically(args.output, text, option="--output")
        return 0
    diff = list(
        difflib.unified_diff(
            current.splitlines(keepends=True),
            text.splitlines(keepends=True),
            str(args.output),
            "regenerated",
        )
    )
    if not args.check:
        sys.stdout.writelines(diff)
    return 1 if (args.check and diff) else 0


if __name__ == "__main__":
    sys.exit(main())
