"""Child: import frameworks in one given order and record which copy of each library got mapped
after which import; for TensorFlow also ask its own DSO loader what it would open.

Sent as smoke_common.py + this file, `python -I -c SOURCE JSON_ARG`. Argument: {"order":
["torch", "tensorflow"], "tf_loader": true, "pythonpath": [...]}. One JSON line per event, the
smoke protocol's: {"step": "import:NAME", "status": "started"}, then its result with
new_libraries (what that import mapped) and "cuda" (the CUDA major version the framework was
built for, as it says itself); then {"step": "tf_loader", ...} with calls {Name: {"opened",
"path"}}; last {"step": "loaded_libraries", ...}.

The process-wide loader gives every later request for a soname the copy the first one loaded,
so the order of imports decides which file a framework gets. TensorFlow dlopens its CUDA
libraries only when it needs them (its DsoLoader), so without a GPU its import alone shows
little: tsl::internal::DsoLoader::Get<Name>DsoHandle are called as scripts/tf_loader_judge.py
does (absl::StatusOr<void*> returned through a hidden pointer on x86-64 and aarch64 Linux:
first word the status, second the handle; only there). JAX loads its CUDA plugin's libraries
when the backends initialise, so its "import" also calls jax.devices(). Standard library and
Python 3.7 grammar only; it must not exit through interpreter shutdown (finish() does).
"""

import ctypes
import mmap
import platform
import sys
import time
from pathlib import Path

STEPS = ()
RUNNERS = {}
TITLE = "the framework"
TITLES = {"tensorflow": "TensorFlow", "torch": "PyTorch", "jax": "JAX"}
_RTLD_DI_LINKMAP = 2
_SYMBOL_TAIL = b"DsoHandleEv"
_SYMBOL_LIMIT = 200  # a mangled DsoLoader getter name is ~60 bytes
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def cuda_major(name, module):
    """The CUDA major version `module` was built for, in its own words; None when it says none."""
    try:
        if name == "torch":
            value = getattr(getattr(module, "version", None), "cuda", None)
        elif name == "tensorflow":
            value = dict(module.sysconfig.get_build_info()).get("cuda_version")
        elif name == "jax":
            plugins = [m for m in sys.modules if m.startswith("jax_plugins.xla_cuda")]
            value = plugins[0][len("jax_plugins.xla_cuda") :] if plugins else None
        else:
            value = None
    except Exception:
        return None
    return str(value).split(".")[0] if value else None


def import_one(name):
    import importlib

    module = importlib.import_module(name)
    detail = "%s %s" % (TITLES.get(name, name), getattr(module, "__version__", "?"))
    if name == "jax":
        try:  # initialise the backends: the CUDA plugin loads its libraries only now
            detail += "; devices: %s" % ", ".join(str(d) for d in module.devices())
        except Exception as exc:
            detail += "; devices: %s" % error_text(exc)
    return module, detail


def loader_functions(framework):
    """Name ("Cudnn") -> mangled DsoLoader getter, found in the file's bytes (the plain loader's
    preferred over the cached one's). mmap: the file is ~160 MB, never read into memory."""
    found = {}
    with Path(framework).open("rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            at = data.find(_SYMBOL_TAIL)
            while at >= 0:
                start = at
                while start > 0 and at - start < _SYMBOL_LIMIT and data[start - 1] in _WORD:
                    start -= 1
                symbol = data[start : at + len(_SYMBOL_TAIL)].decode("ascii", "replace")
                if symbol.startswith("_ZN") and "DsoLoader" in symbol:
                    tail = symbol[: -len("DsoHandleEv")]
                    name = tail[tail.rfind("Get") + 3 :] if "Get" in tail else ""
                    if name and (name not in found or "Cached" in found[name]):
                        found[name] = symbol
                at = data.find(_SYMBOL_TAIL, at + 1)
        finally:
            data.close()
    return found


def opened_path(handle):
    class LinkMap(ctypes.Structure):
        _fields_ = (("l_addr", ctypes.c_void_p), ("l_name", ctypes.c_char_p))

    libc = ctypes.CDLL(None)
    link_map = ctypes.POINTER(LinkMap)()
    if libc.dlinfo(ctypes.c_void_p(handle), _RTLD_DI_LINKMAP, ctypes.byref(link_map)) != 0:
        return None
    name = link_map.contents.l_name
    return name.decode("utf-8", "replace") if name else None


def ask_tf_loader(tf):
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "aarch64"):
        raise StepError("TensorFlow's DSO loader is only called on x86-64 and aarch64 Linux")
    framework = str(Path(tf.__file__).parent / "libtensorflow_framework.so.2")
    library = ctypes.CDLL(framework)
    calls = {}
    for name, symbol in sorted(loader_functions(framework).items()):
        function = getattr(library, symbol)
        function.restype = None
        function.argtypes = (ctypes.c_void_p,)
        result = (ctypes.c_uint64 * 4)()
        function(ctypes.addressof(result))
        handle = int(result[1])
        calls[name] = {"opened": bool(handle), "path": opened_path(handle) if handle else None}
    return calls


def run_import(name, modules, seen):
    step = "import:" + name
    emit({"step": step, "status": "started"})
    record = {"step": step, "status": "ok", "detail": "", "cuda": None}
    started = time.perf_counter()
    try:
        modules[name], record["detail"] = import_one(name)
        record["cuda"] = cuda_major(name, modules[name])
    except BaseException as exc:  # SystemExit too: report, do not die
        record["status"] = "failed"
        record["detail"] = error_text(exc)
    record["seconds"] = round(time.perf_counter() - started, 6)
    record["new_libraries"] = new_libraries(seen)
    emit(record)


def new_libraries(seen):
    try:
        now = loaded_libraries()
    except Exception:
        return []
    fresh = [p for p in now if p not in seen]
    seen.extend(fresh)
    return fresh


def order_main(argv):
    argument = read_argument(argv)
    order = argument.get("order")
    if not isinstance(order, list):
        order = []
    modules, seen = {}, []
    new_libraries(seen)  # what the interpreter itself mapped belongs to no framework
    for name in order:
        if isinstance(name, str):
            run_import(name, modules, seen)
    if "tensorflow" in modules and argument.get("tf_loader", True) is not False:
        emit({"step": "tf_loader", "status": "started"})
        record = {"step": "tf_loader", "status": "ok", "calls": {}}
        started = time.perf_counter()
        try:
            record["calls"] = ask_tf_loader(modules["tensorflow"])
        except BaseException as exc:
            record["status"] = "failed"
            record["detail"] = error_text(exc)
        record["seconds"] = round(time.perf_counter() - started, 6)
        record["new_libraries"] = new_libraries(seen)
        emit(record)
    try:
        emit({"step": "loaded_libraries", "status": "ok", "libraries": loaded_libraries()})
    except Exception as exc:
        emit({"step": "loaded_libraries", "status": "failed", "libraries": seen,
              "detail": error_text(exc)})  # fmt: skip


if __name__ == "__main__":
    import os

    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    os.environ.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    suppress_crash_dialogs()
    order_main(sys.argv)
    finish()
