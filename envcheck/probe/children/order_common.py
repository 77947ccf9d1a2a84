"""Child part shared by the import-order probe and the smoke tests: import frameworks one after
another and record which copy of each CUDA library each import mapped; ask TensorFlow's own DSO
loader what it opens. Never run alone: sent after smoke_common.py and before the framework part
(smoke.py, smoke_torch.py, smoke_jax.py) or import_order.py, as one script.

A smoke child given "then": [names] answers one import order itself after its last smoke line
(answer_order): its framework first, then those. The smoke result is complete and reported
before the second import, so it stays the framework's own; the parent splits the output at
ORDER_MARK. The answer equals a separate import-order child's only while the smoke steps after
the framework's import mapped no CUDA library (the loader gives a later request for a soname the
copy already mapped): on a GPU, TensorFlow's conv2d maps cuDNN, and then the child declines and
the parent runs the order in a child of its own. Standard library and Python 3.7 grammar only.
"""

import ctypes
import mmap
import platform
import sys
import time
from pathlib import Path

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


# A smoke step after the framework's import that mapped a file whose name holds one of these
# may have changed which copy a later import gets. Lower case; every prefix of the parent's
# copy_owners.CUDA_STACK is covered (tests/test_framework_smoke.py checks it), and cuDNN's
# sub-libraries too: declining more often than needed costs only a separate child.
ORDER_AFTER = "import"  # the step after which the framework is as imported as in an order child
CUDA_WORDS = (
    "cudnn", "cublas", "cudart", "nccl", "nvrtc", "cusparse", "cufft", "curand", "cusolver",
    "cupti", "nvjitlink", "nvshmem", "cufile",
)  # fmt: skip
ORDER_MARK = "envcheck: the import order follows"  # the parent's smoke.ORDER_MARK


def finish_order(modules, seen, argument):
    """After the imports of an order: TensorFlow's loader when it was imported, then the last
    line with every library mapped."""
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


def order_blocker(state, ran):
    """Why this smoke child cannot answer an import order, or None when it can."""
    if "module" not in state:
        return "%s did not import" % TITLE
    if ORDER_AFTER not in ran:
        return "the %s step did not run" % ORDER_AFTER
    later = ran[ran.index(ORDER_AFTER) + 1 :]
    if any(state["mapped"].get(name) is None for name in later):
        return "the files the smoke test's steps mapped could not be read"
    mapped = [p for name in later for p in state["mapped"][name]]
    cuda = [p for p in mapped if any(w in p.replace("\\", "/").rsplit("/", 1)[-1].lower()
                                     for w in CUDA_WORDS)]  # fmt: skip
    if cuda:
        return "the smoke test's steps mapped %s after the import" % ", ".join(cuda)
    return None


def answer_order(argument, state, seen, ran):
    """The import order FRAMEWORK, then argument["then"], in this process after its smoke test:
    the lines import_order.py's child would print, after a marker line on both streams."""
    then = [n for n in argument["then"] if isinstance(n, str) and n != FRAMEWORK]
    blocker = order_blocker(state, ran)
    sys.stderr.flush()
    sys.stderr.write(ORDER_MARK + "\n")
    sys.stderr.flush()
    emit({"step": "order", "status": "skipped" if blocker else "started",
          "order": [FRAMEWORK, *then], "detail": blocker or "",
          "seconds": round(time.perf_counter() - STARTED, 6)})  # fmt: skip
    if blocker:
        return
    module = state["module"]
    # The framework's own import, as import_order.py's child reports it: what it (and, for JAX,
    # its backends' start in list_gpus) mapped is everything mapped so far.
    emit({"step": "import:" + FRAMEWORK, "status": "started"})
    emit({"step": "import:" + FRAMEWORK, "status": "ok",
          "detail": "%s %s" % (TITLE, getattr(module, "__version__", "?")),
          "cuda": cuda_major(FRAMEWORK, module), "seconds": state.get("import_seconds"),
          "new_libraries": list(seen)})  # fmt: skip
    modules = {FRAMEWORK: module}
    for name in then:
        run_import(name, modules, seen)
    finish_order(modules, seen, argument)
