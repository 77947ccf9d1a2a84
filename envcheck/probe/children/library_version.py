"""Child: load one library by path and ask its own version function; prints one JSON line.

Standard library only. Loading runs the library's constructors, which can crash or hang, so the
parent runs this in a child process with a timeout and reports what happened.
  cudnn  -> size_t cudnnGetVersion(void)
  cudart -> cudaRuntimeGetVersion(int *)
  cublas -> cublasGetProperty(MAJOR_VERSION=0 / MINOR_VERSION=1 / PATCH_LEVEL=2, int *)
"""

import ctypes
import json
import os
import sys


def main(argument):
    path = argument["path"]
    call = argument["call"]
    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:
        return {"error": str(exc)}
    try:
        if call == "cudnn":
            lib.cudnnGetVersion.restype = ctypes.c_size_t
            return {"value": int(lib.cudnnGetVersion())}
        if call == "cudart":
            value = ctypes.c_int()
            result = lib.cudaRuntimeGetVersion(ctypes.byref(value))
            if result != 0:
                return {"error": f"cudaRuntimeGetVersion returned {result}"}
            return {"value": value.value}
        if call == "cublas":
            parts = []
            for kind in (0, 1, 2):
                value = ctypes.c_int()
                result = lib.cublasGetProperty(kind, ctypes.byref(value))
                if result != 0:
                    return {"error": f"cublasGetProperty returned {result}"}
                parts.append(value.value)
            return {"value": parts[0], "text": ".".join(str(p) for p in parts)}
    except AttributeError as exc:
        return {"error": f"no version function: {exc}"}
    return {"error": f"unknown call {call!r}"}


print(json.dumps(main(json.loads(sys.argv[1]))))
sys.stdout.flush()
os._exit(0)  # skip the library's destructors: a broken one can crash at exit
