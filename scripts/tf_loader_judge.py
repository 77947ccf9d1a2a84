#!/usr/bin/env python3
"""Ask an installed TensorFlow's own DSO loader which copy of each CUDA library it opens.

    /path/to/venv/bin/python scripts/tf_loader_judge.py [Cusolver Cudnn ...] > answer.json

Runs inside the environment to judge: imports tensorflow, then calls the loader functions its
libtensorflow_framework.so.2 exports (tsl::internal::DsoLoader::Get<Name>DsoHandle, found by
name in the file's dynamic strings), exactly the dlopen() TensorFlow makes before it registers
a GPU. No GPU or driver is needed: the functions only load the libraries. For each function it
prints whether a handle came back and the path the loader opened (dlinfo's link map), then
whether TensorFlow's own all-or-nothing check, DsoLoader::TryDlopenCUDALibraries(), passes (the
one behind "Cannot dlopen some GPU libraries"), and every file under an nvidia/ directory that
/proc/self/maps shows mapped afterwards.

The functions return absl::StatusOr<void*>, a class returned through a hidden pointer on
x86-64 and aarch64 Linux: the first word is the status, the second the handle. This script is
envcheck's oracle on real installs (tests/test_real_installs.py); envcheck itself never loads
TensorFlow into its own process.
"""

from __future__ import annotations

import ctypes
import json
import re
import sys
from pathlib import Path

_FUNCTION = re.compile(rb"_ZN[\w]*?(?:Cached)?DsoLoader\d+Get(\w+?)DsoHandleEv")
_RTLD_DI_LINKMAP = 2


class _LinkMap(ctypes.Structure):
    _fields_ = (("l_addr", ctypes.c_void_p), ("l_name", ctypes.c_char_p))


def loader_functions(framework: Path) -> dict[str, str]:
    """Name ("Cusolver") -> mangled symbol, the plain DsoLoader's preferred over the cached."""
    found: dict[str, str] = {}
    for match in _FUNCTION.finditer(framework.read_bytes()):
        symbol, name = match.group(0).decode(), match.group(1).decode()
        if name not in found or "Cached" in found[name]:
            found[name] = symbol
    return found


def opened_path(handle: int) -> str | None:
    libc = ctypes.CDLL(None)
    link_map = ctypes.POINTER(_LinkMap)()
    if libc.dlinfo(ctypes.c_void_p(handle), _RTLD_DI_LINKMAP, ctypes.byref(link_map)) != 0:
        return None
    name = link_map.contents.l_name
    return name.decode(errors="replace") if name else None


def main(wanted: list[str]) -> int:
    import tensorflow as tf  # noqa: PLC0415 - the environment under judgement, loaded last

    framework = Path(tf.__file__).parent / "libtensorflow_framework.so.2"
    library = ctypes.CDLL(str(framework))
    functions = loader_functions(framework)
    answers: dict[str, object] = {}
    for name in wanted or sorted(functions):
        symbol = functions.get(name)
        if symbol is None:
            answers[name] = {"function": None}
            continue
        function = getattr(library, symbol)
        function.restype = None
        function.argtypes = (ctypes.c_void_p,)
        result = (ctypes.c_uint64 * 4)()
        function(ctypes.addressof(result))
        handle = int(result[1])
        answers[name] = {
            "function": symbol,
            "opened": bool(handle),
            "path": opened_path(handle) if handle else None,
        }
    # TensorFlow's own all-or-nothing check before it registers a GPU ("Cannot dlopen some GPU
    # libraries"): it opens the libraries it needs and returns an absl::Status, also through a
    # hidden pointer. OK is an inlined word (0 or 1, by absl version); an error is a pointer
    # to its message.
    check = getattr(library, "_ZN3tsl8internal9DsoLoader22TryDlopenCUDALibrariesEv", None)
    try_dlopen: dict[str, object] | None = None
    if check is not None:
        check.restype = None
        check.argtypes = (ctypes.c_void_p,)
        status = (ctypes.c_uint64 * 2)()
        check(ctypes.addressof(status))
        try_dlopen = {"ok": int(status[0]) in (0, 1)}
    maps = Path("/proc/self/maps").read_text().splitlines()
    mapped = sorted({line.split()[-1] for line in maps if "/nvidia/" in line.split()[-1]})
    result = {
        "tensorflow": tf.__version__,
        "calls": answers,
        "try_dlopen_cuda_libraries": try_dlopen,
        "mapped": mapped,
    }
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
