"""Child: ask NVML (through nvidia-ml-py) for the driver and the GPUs; prints one JSON line.

Runs in envcheck's own interpreter (it needs nvidia-ml-py), in a child process because a broken
driver can hang or crash NVML. Every call is paired: nvmlInit with nvmlShutdown in finally.
"""

import contextlib
import json
import sys
from pathlib import Path


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _loaded_path(fragment):
    """Where the loader found a library, from /proc/self/maps (Linux only)."""
    try:
        with Path("/proc/self/maps").open() as handle:
            for line in handle:
                if fragment in line and "/" in line:
                    return line[line.index("/") :].strip()
    except OSError:
        pass
    return None


def _gpu_calls(pynvml, handle):
    """(field, call) pairs for one GPU; each call may fail on its own."""
    return (
        ("name", lambda: _text(pynvml.nvmlDeviceGetName(handle))),
        ("uuid", lambda: _text(pynvml.nvmlDeviceGetUUID(handle))),
        (
            "compute_capability",
            lambda: "{}.{}".format(*pynvml.nvmlDeviceGetCudaComputeCapability(handle)),
        ),
        ("memory_mib", lambda: pynvml.nvmlDeviceGetMemoryInfo(handle).total // (1024 * 1024)),
    )


def main():
    out = {"gpus": [], "field_errors": []}
    argument = json.loads(sys.argv[1]) if len(sys.argv) > 1 else None
    # Started without the site module: the parent says where nvidia-ml-py lives. Appended, as
    # site would, so nothing there shadows the standard library (an old enum34, say).
    if isinstance(argument, dict) and argument.get("pynvml_dir"):
        sys.path.append(argument["pynvml_dir"])
    try:
        import pynvml
    except ImportError as exc:
        out["error"] = f"nvidia-ml-py is not installed: {exc}"
        return out
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        out["error"] = str(exc)
        out["error_code"] = getattr(exc, "value", None)
        out["library_path"] = _loaded_path("libnvidia-ml")
        return out
    out["library_path"] = _loaded_path("libnvidia-ml")
    try:
        out["driver_version"] = _text(pynvml.nvmlSystemGetDriverVersion())
        for getter in ("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"):
            try:
                out["cuda_driver_version"] = getattr(pynvml, getter)()
                break
            except pynvml.NVMLError as exc:
                out["field_errors"].append(f"{getter}: {exc}")
        try:
            out["nvml_version"] = _text(pynvml.nvmlSystemGetNVMLVersion())
        except pynvml.NVMLError as exc:
            out["field_errors"].append(f"nvmlSystemGetNVMLVersion: {exc}")
        count = pynvml.nvmlDeviceGetCount()
        for index in range(count):
            gpu = {"index": index}
            try:
                handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            except pynvml.NVMLError as exc:
                out["field_errors"].append(f"GPU {index}: {exc}")
                continue
            for key, call in _gpu_calls(pynvml, handle):
                try:
                    gpu[key] = call()
                except pynvml.NVMLError as exc:
                    out["field_errors"].append(f"GPU {index} {key}: {exc}")
            out["gpus"].append(gpu)
    except pynvml.NVMLError as exc:
        out["error"] = str(exc)
        out["error_code"] = getattr(exc, "value", None)
    finally:
        with contextlib.suppress(pynvml.NVMLError):
            pynvml.nvmlShutdown()
    return out


print(json.dumps(main()))
sys.stdout.flush()
