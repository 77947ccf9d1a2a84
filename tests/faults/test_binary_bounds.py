"""Library headers are read with bounds on their counts (issue 24, 8).

A PE file with a million import descriptors planted as `libcudnn.so.8` made `probe` take
2 min 16 s and 1.09 GB: pefile keeps an object per descriptor, and the headers are read in
envcheck itself, outside `--timeout`. Now the descriptors are counted first (at most 4,096), as
are the PE sections (1,024), an ELF file's program headers (1,024) and its DT_NEEDED entries
(1,024: each is a loader search and, when missing, a line of the report); past a bound the file
is malformed, a problem of that copy, found in milliseconds.
"""

from __future__ import annotations

import resource
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envcheck.probe.binary_files import read_binary
from tests.faults.processes import ENVCHECK, environment, frameworkless_python

VADDR = 0x10000
MEMORY_LIMIT = 1 << 30


def hostile_pe(descriptors: int, delay: bool = False, sections: int = 1) -> bytes:
    """A 64-bit DLL whose (delay-load) import table holds `descriptors` descriptors, each
    naming a.dll, then the all-zero one; `sections` is what the COFF header claims."""
    width = 32 if delay else 20
    table = (descriptors + 1) * width
    name_rva = 0x1000 + table
    raw = (table + 6 + 0x1FF) // 0x200 * 0x200
    if delay:  # grAttrs, szName, phmod, pIAT, pINT, pBoundIAT, pUnloadIAT, dwTimeStamp
        descriptor = struct.pack("<8I", 1, name_rva, 0, 0, 0, 0, 0, 0)
    else:  # OriginalFirstThunk, TimeDateStamp, ForwarderChain, Name, FirstThunk
        descriptor = struct.pack("<5I", 0, 0, 0, name_rva, 0)
    body = descriptor * descriptors + bytes(width) + b"a.dll\0"
    body += bytes(raw - len(body))
    # Machine x86_64, NumberOfSections, SizeOfOptionalHeader 240, IMAGE_FILE_DLL and friends.
    coff = struct.pack("<HHIIIHH", 0x8664, sections, 0, 0, 0, 240, 0x2022)
    directories = [(0, 0)] * 16
    directories[13 if delay else 1] = (0x1000, table)
    optional = struct.pack(
        "<HBBIIIIIQIIHHHHHHIIIIHHQQQQII", 0x20B, 14, 0, raw, 0, 0, 0x1000, 0x1000,
        0x180000000, 0x1000, 0x200, 6, 0, 0, 0, 6, 0, 0, 0x1000 + raw, 0x200, 0, 3, 0x160,
        0x100000, 0x1000, 0x100000, 0x1000, 0, 16,
    )  # fmt: skip
    optional += b"".join(struct.pack("<II", *entry) for entry in directories)
    section = struct.pack(
        "<8sIIIIIIHHI", b".idata", raw, 0x1000, raw, 0x200, 0, 0, 0, 0, 0xC0000040
    )
    headers = b"MZ" + bytes(0x3A) + struct.pack("<I", 0x40) + b"PE\0\0" + coff + optional + section
    return headers + bytes(0x200 - len(headers)) + body


def hostile_elf(needed: int, extra_program_headers: int = 0) -> bytes:
    """A 64-bit shared object with `needed` DT_NEEDED entries, each a distinct libcuNNNNNN.so
    (a name the probe resolves), and `extra_program_headers` PT_NOTE headers."""
    names = [f"libcu{number:06d}.so".encode() for number in range(needed)]
    strings = b"\0" + b"\0".join(names) + b"\0"
    offsets, at = [], 1
    for name in names:
        offsets.append(at)
        at += len(name) + 1
    count = 2 + extra_program_headers
    strtab = 64 + count * 56
    dynamic_at = (strtab + len(strings) + 7) // 8 * 8
    entries = [(1, offset) for offset in offsets]
    entries += [(5, VADDR + strtab), (10, len(strings)), (0, 0)]
    dynamic = b"".join(struct.pack("<qQ", *entry) for entry in entries)
    size = dynamic_at + len(dynamic)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, count, 64, 0, 0)

    def program_header(kind: int, offset: int, length: int) -> bytes:
        address = VADDR + offset
        return struct.pack("<IIQQQQQQ", kind, 6, offset, address, address, length, length, 8)

    headers = program_header(1, 0, size) + program_header(2, dynamic_at, len(dynamic))
    headers += program_header(4, 0, 0) * extra_program_headers
    padding = bytes(dynamic_at - strtab - len(strings))
    return header + headers + strings + padding + dynamic


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def probe_with(directory: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    result = subprocess.run(
        [*ENVCHECK, "probe", "--python", frameworkless_python(directory)],
        capture_output=True, text=True, env=environment(LD_LIBRARY_PATH=str(directory)),
        timeout=120, check=False, preexec_fn=_limit_memory,
    )  # fmt: skip
    return result, time.monotonic() - started


@pytest.mark.skipif(sys.platform != "linux", reason="ld.so's LD_LIBRARY_PATH")
def test_a_million_import_descriptors_are_a_problem_found_in_seconds(tmp_path: Path) -> None:
    (tmp_path / "libcudnn.so.8").write_bytes(hostile_pe(1_000_000))
    result, seconds = probe_with(tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr == ""
    assert "malformed PE file: its import table has more than 4096 descriptors" in result.stdout
    assert seconds < 60  # the descriptors were walked in 2 minutes per read before


@pytest.mark.skipif(sys.platform != "linux", reason="ld.so's LD_LIBRARY_PATH")
def test_sixty_thousand_dependencies_are_one_problem(tmp_path: Path) -> None:
    (tmp_path / "libcudnn.so.8").write_bytes(hostile_elf(60_000))
    result, seconds = probe_with(tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "malformed ELF file: 60000 DT_NEEDED entries, more than the 1024" in result.stdout
    assert "which the loader cannot find" not in result.stdout  # not 60,000 lines of them
    assert seconds < 60


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        pytest.param(
            hostile_pe(5_000),
            "malformed PE file: its import table has more than 4096 descriptors",
            id="import-descriptors",
        ),
        pytest.param(
            hostile_pe(5_000, delay=True),
            "malformed PE file: its delay-load import table has more than 4096 descriptors",
            id="delay-load-descriptors",
        ),
        pytest.param(
            hostile_pe(3, sections=2_000),
            "malformed PE file: NumberOfSections is 2000, more than the 1024 this reader accepts",
            id="pe-sections",
        ),
        pytest.param(
            hostile_elf(2_000),
            "malformed ELF file: 2000 DT_NEEDED entries, more than the 1024 this reader accepts",
            id="dt-needed",
        ),
        pytest.param(
            hostile_elf(3, extra_program_headers=3_000),
            "malformed ELF file: e_phnum is 3002, more than the 1024 program headers this "
            "reader accepts",
            id="program-headers",
        ),
    ],
)
def test_a_count_past_its_bound_is_a_problem(tmp_path: Path, data: bytes, problem: str) -> None:
    path = tmp_path / "libhostile.so.1"
    path.write_bytes(data)
    started = time.perf_counter()
    info = read_binary(path, exports=False)
    assert time.perf_counter() - started < 2.0
    assert info.problems == (problem,)
    assert info.needed == ()


@pytest.mark.parametrize(
    ("data", "needed"),
    [
        pytest.param(hostile_pe(4_096), 1, id="4096-import-descriptors"),
        pytest.param(hostile_pe(30, delay=True), 0, id="30-delay-load-descriptors"),
        pytest.param(hostile_elf(1_024, 100), 1_024, id="1024-dt-needed"),
    ],
)
def test_counts_within_the_bounds_are_read(tmp_path: Path, data: bytes, needed: int) -> None:
    path = tmp_path / "libbusy.so.1"
    path.write_bytes(data)
    info = read_binary(path, exports=False)
    assert not any(p.startswith("malformed") for p in info.problems), info.problems
    assert len(info.needed) == needed  # (a.dll each time; the delay-load ones name no thunks)
