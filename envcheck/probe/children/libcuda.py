"""Child: ask the CUDA driver library (libcuda / nvcuda.dll) through ctypes; prints one JSON line.

Standard library only. cuDriverGetVersion works without cuInit, so the driver's CUDA version is
known even when cuInit fails (no device, a container started without GPUs, a stub library).
Runs in a child process: a broken libcuda can hang in cuInit or crash.
"""

import ctypes
import json
import os
import sys
from pathlib import Path

# CUresult values that tell the failures apart (cuda.h).
ERRORS = {
    0: "CUDA_SUCCESS",
    3: "CUDA_ERROR_NOT_INITIALIZED",
    34: "CUDA_ERROR_STUB_LIBRARY",
    35: "CUDA_ERROR_INSUFFICIENT_DRIVER",
    46: "CUDA_ERROR_DEVICES_UNAVAILABLE",
    100: "CUDA_ERROR_NO_DEVICE",
    101: "CUDA_ERROR_INVALID_DEVICE",
    303: "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
    304: "CUDA_ERROR_OPERATING_SYSTEM",
    803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
    804: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
    999: "CUDA_ERROR_UNKNOWN",
}
ATTRIBUTE_CC_MAJOR = 75
ATTRIBUTE_CC_MINOR = 76


def _loaded_path(fragment):
    try:
        with Path("/proc/self/maps").open() as handle:
            for line in handle:
                if fragment in line and "/" in line:
                    return line[line.index("/") :].strip()
    except OSError:
        pass
    return None


def _error_name(lib, code):
    name = ctypes.c_char_p()
    getter = getattr(lib, "cuGetErrorName", None)
    if getter is not None:
        try:
            if getter(code, ctypes.byref(name)) == 0 and name.value:
                return name.value.decode()
        except Exception:  # a broken driver library may fail anywhere
            pass
    return ERRORS.get(code, f"CUresult {code}")


def main(argument):
    names = argument.get("names") or (
        ["nvcuda.dll"] if sys.platform == "win32" else ["libcuda.so.1", "libcuda.so"]
    )
    out = {"tried": [], "gpus": []}
    lib = None
    for name in names:
        try:
            lib = ctypes.CDLL(name)
            out["loaded"] = name
            break
        except OSError as exc:
            out["tried"].append(f"{name}: {exc}")
    if lib is None:
        out["error"] = "no CUDA driver library could be loaded"
        return out
    out["library_path"] = _loaded_path("libcuda") or out["loaded"]
    version = ctypes.c_int()
    try:
        result = lib.cuDriverGetVersion(ctypes.byref(version))
    except AttributeError:
        out["error"] = "the library has no cuDriverGetVersion: not a CUDA driver"
        return out
    if result == 0:
        out["cuda_driver_version"] = version.value
    else:
        out["version_error"] = _error_name(lib, result)
    result = lib.cuInit(0)
    out["cuinit"] = _error_name(lib, result)
    if result != 0:
        return out
    count = ctypes.c_int()
    if lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return out
    for index in range(count.value):
        device = ctypes.c_int()
        if lib.cuDeviceGet(ctypes.byref(device), index) != 0:
            continue
        gpu = {"index": index}
        name = ctypes.create_string_buffer(256)
        if lib.cuDeviceGetName(name, 256, device) == 0:
            gpu["name"] = name.value.decode("utf-8", "replace")
        major, minor = ctypes.c_int(), ctypes.c_int()
        if (
            lib.cuDeviceGetAttribute(ctypes.byref(major), ATTRIBUTE_CC_MAJOR, device) == 0
            and lib.cuDeviceGetAttribute(ctypes.byref(minor), ATTRIBUTE_CC_MINOR, device) == 0
        ):
            gpu["compute_capability"] = f"{major.value}.{minor.value}"
        memory = ctypes.c_size_t()
        total = getattr(lib, "cuDeviceTotalMem_v2", None)
        if total is not None and total(ctypes.byref(memory), device) == 0:
            gpu["memory_mib"] = memory.value // (1024 * 1024)
        out["gpus"].append(gpu)
    return out


ARGUMENT = json.loads(sys.argv[1]) if len(sys.argv) > 1 else None
print(json.dumps(main(ARGUMENT or {})))
sys.stdout.flush()
os._exit(0)  # skip library destructors: a broken driver can crash at exit
