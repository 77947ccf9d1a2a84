"""binary_files.defined_symbols: symbols looked up through a real DT_GNU_HASH table.

The shared objects are real: gcc and GNU ld write their hash tables (`--hash-style=gnu`, and
`sysv` for a file without one), and the answer is held to two oracles: the names a scan of the
whole dynamic string table finds, and what the glibc loader itself resolves (dlsym in a child).
The real TensorFlow binary is the last oracle, in tests/test_real_installs.py.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.probe.binary_files import defined_symbols, dynamic_string_matches
from envcheck.probe.libraries import (
    _DSO_LOADER_FUNCTION,
    known_loader_names,
    tensorflow_loader_names,
)
from tests.native_fakes import have_gcc

pytestmark = pytest.mark.skipif(
    not (have_gcc() and sys.platform.startswith("linux")),
    reason="builds ELF shared objects with gcc and asks the glibc loader",
)

TSL = "_ZN3tsl8internal9DsoLoader{n}{f}Ev"
STREAM_EXECUTOR = "_ZN15stream_executor8internal15CachedDsoLoader{n}{f}Ev"


def loader_symbol(template: str, name: str) -> str:
    function = f"Get{name}DsoHandle"
    return template.format(n=len(function), f=function)


def build(tmp_path: Path, defined: list[str], undefined: list[str], hash_style: str) -> Path:
    """A shared object defining `defined` and calling (so importing) `undefined`."""
    lines = [f"void *{name}(void) {{ return 0; }}" for name in defined]
    lines += [f"extern void *{name}(void);" for name in undefined]
    calls = " ".join(f"{name}();" for name in undefined)
    lines.append(f"void uses_the_undefined(void) {{ {calls} }}")
    source = tmp_path / f"lib_{hash_style}.c"
    source.write_text("\n".join(lines) + "\n")
    target = tmp_path / f"lib_{hash_style}.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", f"-Wl,--hash-style={hash_style}", "-o", str(target),
         str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    return target


DLSYM = r"""
import ctypes, json, os, sys
handle = ctypes.CDLL(sys.argv[1], mode=os.RTLD_LAZY | os.RTLD_LOCAL)
dlsym = ctypes.CDLL(None).dlsym
dlsym.restype, dlsym.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p]
print(json.dumps([n for n in sys.argv[2:] if dlsym(handle._handle, n.encode())]))
"""


def loader_resolves(path: Path, names: list[str]) -> set[str]:
    """What the glibc loader itself finds in the object (dlsym on its handle, in a child; the
    undefined functions resolve lazily, so the object loads without them)."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", DLSYM, str(path), *names],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return set(json.loads(done.stdout))


def test_the_lookup_finds_what_the_loader_and_the_scan_find(tmp_path: Path) -> None:
    # Thousands of symbols: many buckets, chains of several symbols each.
    filler = [f"filler_function_{i}" for i in range(3000)]
    loaders = [loader_symbol(TSL, n) for n in ("Cublas", "CudaRuntime", "Cudnn")]
    loaders.append(loader_symbol(STREAM_EXECUTOR, "Cufft"))
    imported = [loader_symbol(TSL, "Cusolver"), "an_imported_function"]
    path = build(tmp_path, [*filler, *loaders], imported, "gnu")
    absent = [loader_symbol(TSL, "Curand"), "nothing_of_this_name", ""]
    asked = [*loaders, *filler[::97], *imported, *absent]
    found = defined_symbols(path, asked)
    assert found is not None
    assert found == set(loaders) | set(filler[::97])
    assert found == loader_resolves(path, [n for n in asked if n])
    # The imported Cusolver function is in the string table (the scan sees it) but not defined.
    scanned = set(dynamic_string_matches(path, _DSO_LOADER_FUNCTION) or ())
    assert scanned == {"Cublas", "CudaRuntime", "Cudnn", "Cufft", "Cusolver"}


def test_tensorflow_loader_names_answer_as_the_scan_does_for_every_name_the_matrix_knows(
    tmp_path: Path,
) -> None:
    matrix = load_matrix(bundled_matrix_dir())
    names = ["Cublas", "CublasLt", "Cudnn", "CudaRuntime", "Cufft", "Nccl", "Hip", "Nvshmem"]
    for style in ("gnu", "sysv"):
        path = build(tmp_path, [loader_symbol(TSL, n) for n in names], [], style)
        scanned = tensorflow_loader_names(path)  # no matrix: the scan alone
        assert scanned == frozenset(names)
        looked_up = tensorflow_loader_names(path, matrix)
        known = known_loader_names(matrix)
        # Only the matrix's names decide what is looked for (wanted_libraries): those agree;
        # without a GNU hash table (sysv) the scan answers, with every name.
        if style == "gnu":
            assert looked_up == scanned & known
            assert {"Hip", "Nvshmem"} - known <= scanned - looked_up
        else:
            assert defined_symbols(path, names) is None
            assert looked_up == scanned


def test_a_binary_with_no_loader_function_is_scanned_and_answers_none(tmp_path: Path) -> None:
    matrix = load_matrix(bundled_matrix_dir())
    path = build(tmp_path, ["something_else"], [], "gnu")
    assert tensorflow_loader_names(path, matrix) is None


def _hash_table_offset(path: Path) -> int:
    """The file offset of .gnu.hash, from readelf's section table."""
    done = subprocess.run(
        ["readelf", "-S", "-W", str(path)], capture_output=True, text=True, check=True
    )
    for line in done.stdout.splitlines():
        if ".gnu.hash" in line:
            fields = line.split("]", 1)[1].split()
            return int(fields[3], 16)
    raise AssertionError("no .gnu.hash section")


@pytest.mark.parametrize("damage", ["no buckets", "huge buckets", "endless chains", "cut short"])
def test_a_damaged_hash_table_gives_no_answer_quickly(tmp_path: Path, damage: str) -> None:
    names = [f"function_{i}" for i in range(200)]
    path = build(tmp_path, names, [], "gnu")
    data = bytearray(path.read_bytes())
    start = _hash_table_offset(path)
    nbuckets, _, bloom_size, _ = struct.unpack_from("<4I", data, start)
    if damage == "no buckets":
        struct.pack_into("<I", data, start, 0)
    elif damage == "huge buckets":
        struct.pack_into("<I", data, start, 0xFFFFFFFF)
    elif damage == "endless chains":
        chains = start + 16 + 8 * bloom_size + 4 * nbuckets
        for i in range(len(names) + 8):  # every chain word even: no chain ever ends
            struct.pack_into("<I", data, chains + 4 * i, 2 * i)
    else:
        data = data[: start + 20]
    path.write_bytes(bytes(data))
    began = time.monotonic()
    found = defined_symbols(path, names)
    assert found is None or found < set(names)
    assert time.monotonic() - began < 5
