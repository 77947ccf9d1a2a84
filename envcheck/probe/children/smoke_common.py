"""Child part shared by every smoke test and the import-order probe: the step protocol, and the
libraries this process has really mapped. Never run alone.

The parent sends `smoke_common.py` + `order_common.py` + a framework part (smoke.py for TensorFlow, smoke_torch.py,
smoke_jax.py, import_order.py) as one `python -I -c SOURCE JSON_ARG` script: a child cannot
import a sibling file (it runs from a string, in an interpreter that has no envcheck). The
framework part defines FRAMEWORK (its import name), TITLE (its name for people), STEPS and
RUNNERS, and calls main(). Standard library and Python 3.7 grammar only; it must not import a
framework itself (the framework part does, inside a step) and must not exit the process.

Protocol on stdout, each line flushed at once so that a crash still leaves the earlier lines:
  {"step": name, "status": "started"} before each step, then
  {"step": name, "status": "ok"|"failed"|"skipped", "seconds", "detail", "device", ...extra},
  and last {"step": "loaded_libraries", "status": "ok"|"failed", "libraries": [...]}.
A step that raises is "failed" and the next steps still run; if the import fails the rest are
"skipped".
"""

import json
import os
import sys
import time
from pathlib import Path

# Lower-case fragments of the file names of the libraries worth reporting (Linux and Windows
# spellings: libcudart.so.12 / cudart64_12.dll, libnvidia-ml.so.1 / nvml.dll, ...).
LIBRARY_WORDS = (
    "cuda",
    "cudnn",
    "cublas",
    "cufft",
    "curand",
    "cusolver",
    "cusparse",
    "cupti",
    "nvrtc",
    "nvjitlink",
    "nccl",
    "nvshmem",
    "cufile",
    "nvidia-ml",
    "nvml",
    "nvinfer",
    "tensorflow_framework",
    "_pywrap_tensorflow_internal",
    "libtorch",
    "xla",
)
STARTED = time.perf_counter()  # the smoke part's seconds, when an import order follows it
DETAIL_LIMIT = 2000
MAPS_LINE_LIMIT = 8192  # a maps line is a few hundred bytes; a longer one is not a mapping


class StepError(Exception):
    """A step failed for a reason this script words itself (detail is the message)."""


def emit(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def jsonable(value):
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return repr(value)


def error_text(exc):
    if isinstance(exc, StepError):
        return str(exc)[:DETAIL_LIMIT]
    return ("%s: %s" % (type(exc).__name__, exc))[:DETAIL_LIMIT]


def expect(name, actual, wanted):
    if abs(float(actual) - wanted) > 1e-3 * abs(wanted):
        raise StepError(
            "%s computed %r where %r was expected: wrong results" % (name, actual, wanted)
        )


# --- loaded libraries -----------------------------------------------------------------------


def maps_paths(lines):
    """The files mapped, each once, in address order (not load order), from /proc/self/maps lines (proc(5)): address,
    perms, offset, dev, inode, then the path, which may hold spaces and ends " (deleted)" when
    the file was removed after it was mapped."""
    paths = []
    seen = set()
    for line in lines:
        if len(line) > MAPS_LINE_LIMIT:
            continue
        fields = line.rstrip("\n").split(None, 5)
        if len(fields) != 6 or not fields[5].startswith("/"):
            continue  # anonymous, [heap], [stack], [vdso]
        path = fields[5]
        if path.endswith(" (deleted)"):
            path = path[: -len(" (deleted)")]
        if path not in seen:
            seen.add(path)
            paths.append(path)
    return paths


def linux_libraries():
    with Path("/proc/self/maps").open() as handle:
        return maps_paths(handle)


def windows_libraries():
    """The loaded modules, through EnumProcessModules and GetModuleFileNameW (psapi)."""
    import ctypes
    from ctypes import wintypes

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.GetCurrentProcess.restype = wintypes.HANDLE
    kernel32.GetCurrentProcess.argtypes = []
    try:  # Windows 7+ exports it from kernel32 as K32EnumProcessModules; older ones from psapi
        enum_modules = kernel32.K32EnumProcessModules
    except AttributeError:
        enum_modules = ctypes.WinDLL("psapi", use_last_error=True).EnumProcessModules
    enum_modules.argtypes = [
        wintypes.HANDLE,
        ctypes.POINTER(wintypes.HMODULE),
        wintypes.DWORD,
        ctypes.POINTER(wintypes.DWORD),
    ]
    enum_modules.restype = wintypes.BOOL
    file_name = kernel32.GetModuleFileNameW
    file_name.argtypes = [wintypes.HMODULE, wintypes.LPWSTR, wintypes.DWORD]
    file_name.restype = wintypes.DWORD
    process = kernel32.GetCurrentProcess()
    count = 512
    while True:
        modules = (wintypes.HMODULE * count)()
        needed = wintypes.DWORD(0)
        if not enum_modules(process, modules, ctypes.sizeof(modules), ctypes.byref(needed)):
            raise ctypes.WinError(ctypes.get_last_error())
        if needed.value <= ctypes.sizeof(modules):
            break
        count = needed.value // ctypes.sizeof(wintypes.HMODULE) + 64  # more loaded meanwhile
    buffer = ctypes.create_unicode_buffer(32768)
    paths = []
    for index in range(needed.value // ctypes.sizeof(wintypes.HMODULE)):
        if not modules[index]:
            continue
        length = file_name(modules[index], buffer, len(buffer))
        if length:
            paths.append(buffer.value[:length])
    return paths


def macos_libraries():
    import ctypes

    libc = ctypes.CDLL(None)
    libc._dyld_image_count.restype = ctypes.c_uint32
    libc._dyld_get_image_name.restype = ctypes.c_char_p
    libc._dyld_get_image_name.argtypes = [ctypes.c_uint32]
    names = (libc._dyld_get_image_name(i) for i in range(libc._dyld_image_count()))
    return [n.decode("utf-8", "replace") for n in names if n]


def loaded_libraries():
    if sys.platform == "win32":
        paths = windows_libraries()
    elif sys.platform == "darwin":
        paths = macos_libraries()
    else:
        paths = linux_libraries()
    found = []
    for path in paths:
        base = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
        if any(word in base for word in LIBRARY_WORDS) and path not in found:
            found.append(path)
    return found


# --- the step loop --------------------------------------------------------------------------


def import_framework(state, name, title):
    """Import `name`; a missing package itself (not one of its dependencies) is not_installed."""
    import importlib

    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            state["not_installed"] = True
            raise StepError(
                "%s is not installed in %s (%s)" % (title, sys.executable, error_text(exc))
            ) from exc
        raise
    state["module"] = module
    return module


def run_step(name, state, seen):
    record = {"step": name, "status": "skipped", "seconds": 0.0, "detail": "", "device": None}
    if "module" not in state and name != "import":
        record["detail"] = "not run: %s did not import" % TITLE
        emit(record)
        return
    emit({"step": name, "status": "started"})
    started = time.perf_counter()
    try:
        result = RUNNERS[name](state)
        if result is None:
            record["detail"] = "not run: disabled by the caller"
        else:
            record["detail"], record["device"], extra = result
            record["status"] = "ok"
            record.update(extra)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: report, do not die
        record["status"] = "failed"
        record["detail"] = error_text(exc)
        record["error_type"] = type(exc).__name__
        if state.get("not_installed"):
            record["not_installed"] = True
    record["seconds"] = round(time.perf_counter() - started, 6)
    try:  # libraries this step loaded: evidence that survives a crash in a later step
        now = loaded_libraries()
        record["new_libraries"] = [p for p in now if p not in seen]
        seen.extend(record["new_libraries"])
        state["mapped"][name] = record["new_libraries"]  # answer_order's check
    except Exception:
        state["mapped"][name] = None  # unknown: answer_order declines
    if name == "import":
        state["import_seconds"] = record["seconds"]
    emit(record)


def suppress_crash_dialogs():
    """On Windows a crash or a missing DLL would open a dialog and hang until the timeout. On
    POSIX a crash would leave a core file (gigabytes, for a framework) in the user's current
    directory: the child's crash is reported by its signal, so no core is written."""
    if sys.platform != "win32":
        try:
            import resource

            resource.setrlimit(
                resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1])
            )
        except (ImportError, ValueError, OSError):
            pass
        return
    try:
        import ctypes

        # SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX
        ctypes.windll.kernel32.SetErrorMode(0x0001 | 0x0002 | 0x8000)
    except Exception:
        pass


def read_argument(argv):
    """The JSON argument (a dict, else {}), with the user's PYTHONPATH put back on sys.path."""
    try:
        argument = json.loads(argv[1]) if len(argv) > 1 else {}
    except ValueError:
        argument = {}
    if not isinstance(argument, dict):
        argument = {}
    pythonpath = argument.get("pythonpath")
    if isinstance(pythonpath, list):
        # The user's PYTHONPATH, which -I dropped, where Python puts it: before the stdlib.
        sys.path[0:0] = [p for p in pythonpath if isinstance(p, str) and p not in sys.path]
    return argument


def main(argv):
    argument = read_argument(argv)
    wanted = argument.get("steps")
    if not isinstance(wanted, list) or not wanted:
        wanted = STEPS
    state = {"device": None, "xla": argument.get("xla", True) is not False, "mapped": {}}
    seen, ran = [], []
    for name in STEPS:
        if name == "import" or name in wanted:
            run_step(name, state, seen)
            ran.append(name)
    try:
        emit({"step": "loaded_libraries", "status": "ok", "libraries": loaded_libraries()})
    except Exception as exc:
        emit(
            {
                "step": "loaded_libraries",
                "status": "failed",
                "libraries": seen,
                "detail": error_text(exc),
            }
        )
    if isinstance(argument.get("then"), list) and argument["then"]:
        answer_order(argument, state, seen, ran)  # order_common.py; after the smoke's last line


def finish():
    """Leave without interpreter shutdown: a framework can crash in its atexit handlers after the
    last line is written, and that would turn a good run into a "crashed" child."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
