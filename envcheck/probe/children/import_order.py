"""Child: import frameworks in one given order and record which copy of each library got mapped
after which import; for TensorFlow also ask its own DSO loader what it would open.

Sent as smoke_common.py + order_common.py (the import and loader functions, shared with the smoke
children, which can answer one order themselves) + this file, `python -I -c SOURCE JSON_ARG`. Argument: {"order":
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

import sys

STEPS = ()
RUNNERS = {}
TITLE = "the framework"


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
    finish_order(modules, seen, argument)


if __name__ == "__main__":
    import os

    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    os.environ.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    suppress_crash_dialogs()
    order_main(sys.argv)
    finish()
