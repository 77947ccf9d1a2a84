"""Child: import TensorFlow in this interpreter and run tiny ops; one JSON line per event.

Runs as `python -I -c SOURCE JSON_ARG` in the target interpreter (any Python 3.7+: standard
library and 3.7 grammar only; TensorFlow is the only other import). Argument: {"steps": [...]
(default: all), "xla": true}. The version matrix predicts; this proves: cuDNN's convolution
sub-library, cuBLAS and the XLA toolchain load only at the first op that needs them (the Windows
`Could not load library cudnn_cnn_infer64_8.dll. Error code 193` appears at the first conv2d).

Protocol on stdout, each line flushed at once so that a crash still leaves the earlier lines:
  {"step": name, "status": "started"} before each step, then
  {"step": name, "status": "ok"|"failed"|"skipped", "seconds", "detail", "device", ...extra},
  and last {"step": "loaded_libraries", "status": "ok"|"failed", "libraries": [...]}.
A step that raises is "failed" and the next steps still run; if the import fails the rest are
"skipped". TF_CPP_MIN_LOG_LEVEL=0 is set so TensorFlow's own messages reach stderr, and
TF_FORCE_GPU_ALLOW_GROWTH=true unless the caller set it. Keep this file small: its source
travels on the command line (Windows allows 32767 characters).
"""

import json
import os
import sys
import time
from pathlib import Path

STEPS = ("import", "list_gpus", "conv2d", "lstm", "matmul", "xla")
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
    "nvidia-ml",
    "nvml",
    "nvinfer",
    "tensorflow_framework",
    "_pywrap_tensorflow_internal",
)
DETAIL_LIMIT = 2000


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


def short_device(tensor, requested):
    """'CPU:0' from '/job:localhost/replica:0/task:0/device:CPU:0': where the op really ran."""
    name = getattr(tensor, "device", None)
    if isinstance(name, str) and "device:" in name:
        return name.rsplit("device:", 1)[1]
    return requested


def expect(name, actual, wanted):
    if abs(float(actual) - wanted) > 1e-3 * abs(wanted):
        raise StepError(
            "%s computed %r where %r was expected: wrong results" % (name, actual, wanted)
        )


# --- loaded libraries -----------------------------------------------------------------------


def linux_libraries():
    paths = []
    with Path("/proc/self/maps").open() as handle:
        for line in handle:
            fields = line.split(None, 5)
            if len(fields) == 6 and fields[5].startswith("/"):
                paths.append(fields[5].rstrip("\n"))
    return paths


def windows_libraries():
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


# --- steps ----------------------------------------------------------------------------------


def step_import(state):
    try:
        import tensorflow as tf
    except ModuleNotFoundError as exc:
        if exc.name == "tensorflow":  # the package itself, not one of its dependencies
            state["not_installed"] = True
            raise StepError(
                "TensorFlow is not installed in %s (%s)" % (sys.executable, error_text(exc))
            ) from exc
        raise
    state["tf"] = tf
    extra = {"version": getattr(tf, "__version__", None), "file": getattr(tf, "__file__", None)}
    get_build_info = getattr(getattr(tf, "sysconfig", None), "get_build_info", None)
    if get_build_info is not None:
        extra["build_info"] = jsonable(dict(get_build_info()))
    return "TensorFlow %s" % extra["version"], None, extra


def step_list_gpus(state):
    tf = state["tf"]
    gpus = tf.config.list_physical_devices("GPU")
    names = [getattr(gpu, "name", str(gpu)) for gpu in gpus]
    details = []
    get_details = getattr(getattr(tf.config, "experimental", None), "get_device_details", None)
    for gpu, name in zip(gpus, names):
        entry = {"name": name}
        if get_details is not None:
            try:
                found = dict(get_details(gpu))
            except Exception as exc:
                entry["error"] = error_text(exc)
            else:
                capability = found.get("compute_capability")
                if isinstance(capability, (tuple, list)) and len(capability) == 2:
                    found["compute_capability"] = "%s.%s" % tuple(capability)
                entry.update(jsonable(found))
        details.append(entry)
    if names:
        state["device"] = "/GPU:0"
    return "TensorFlow sees %d GPU(s)" % len(names), None, {"gpus": names, "details": details}


def step_conv2d(state):
    tf, device = state["tf"], state["device"]
    with tf.device(device):
        x = tf.ones([1, 8, 8, 3])
        w = tf.ones([3, 3, 3, 4])
        with tf.GradientTape() as tape:
            tape.watch(x)
            tape.watch(w)
            y = tf.nn.conv2d(x, w, strides=1, padding="SAME")
            loss = tf.reduce_sum(y)
        grad_x, grad_w = tape.gradient(loss, [x, w])
        # All-ones NHWC 8x8x3 with a 3x3x3x4 kernel, SAME: each sum is 22*22*3*4 = 5808.
        expect("conv2d forward", loss.numpy(), 5808.0)
        expect("conv2d input gradient", tf.reduce_sum(grad_x).numpy(), 5808.0)
        expect("conv2d filter gradient", tf.reduce_sum(grad_w).numpy(), 5808.0)
    return "1x8x8x3 conv2d forward and backward", short_device(y, device[1:]), {}


def step_lstm(state):
    tf, device = state["tf"], state["device"]
    try:
        layers = tf.keras.layers
    except Exception as exc:
        raise StepError("keras import failed: %s" % error_text(exc)) from exc
    with tf.device(device):
        # Default activations, no recurrent dropout, unroll=False: the cuDNN kernel on a GPU.
        layer = layers.LSTM(4)
        out = layer(tf.ones([2, 5, 3]))
        shape = tuple(out.numpy().shape)
    if shape != (2, 4):
        raise StepError("LSTM output has shape %r, expected (2, 4)" % (shape,))
    keras = getattr(tf.keras, "__version__", None)
    return "LSTM(4) on a 2x5x3 batch", short_device(out, device[1:]), {"keras_version": keras}


def step_matmul(state):
    tf, device = state["tf"], state["device"]
    with tf.device(device):
        product = tf.matmul(tf.ones([64, 64]), tf.ones([64, 64]))
        expect("matmul", tf.reduce_sum(product).numpy(), 64.0**3)
    return "64x64 matmul", short_device(product, device[1:]), {}


def step_xla(state):
    tf, device = state["tf"], state["device"]
    if not state["xla"]:
        return None

    @tf.function(jit_compile=True)
    def dense(a, b):
        return tf.nn.relu(tf.matmul(a, b) - 16.0)

    with tf.device(device):
        out = dense(tf.ones([32, 32]), tf.ones([32, 32]))
        expect("XLA matmul+relu", tf.reduce_sum(out).numpy(), 16.0 * 32 * 32)
    return "tf.function(jit_compile=True) matmul+relu", short_device(out, device[1:]), {}


RUNNERS = {
    "import": step_import,
    "list_gpus": step_list_gpus,
    "conv2d": step_conv2d,
    "lstm": step_lstm,
    "matmul": step_matmul,
    "xla": step_xla,
}


def run_step(name, state, seen):
    record = {"step": name, "status": "skipped", "seconds": 0.0, "detail": "", "device": None}
    if "tf" not in state and name != "import":
        record["detail"] = "not run: TensorFlow did not import"
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
    except Exception:
        pass
    emit(record)


def suppress_crash_dialogs():
    """On Windows a crash or a missing DLL would open a dialog and hang until the timeout."""
    if sys.platform != "win32":
        return
    try:
        import ctypes

        # SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX
        ctypes.windll.kernel32.SetErrorMode(0x0001 | 0x0002 | 0x8000)
    except Exception:
        pass


def main(argv):
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
    wanted = argument.get("steps")
    if not isinstance(wanted, list) or not wanted:
        wanted = STEPS
    state = {"device": "/CPU:0", "xla": argument.get("xla", True) is not False}
    seen = []
    for name in STEPS:
        if name == "import" or name in wanted:
            run_step(name, state, seen)
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


if __name__ == "__main__":
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "0"
    # Without it TF maps nearly all GPU memory; on a GPU another process uses that fails the
    # test for a reason unrelated to the setup (an explicit "false" from the caller is kept).
    os.environ.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    suppress_crash_dialogs()
    main(sys.argv)
    sys.stderr.flush()
    # Skip interpreter shutdown: TensorFlow can crash in its atexit handlers after the last line
    # is written, and that would turn a good run into a "crashed" child.
    os._exit(0)
