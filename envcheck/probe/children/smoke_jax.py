"""Child: JAX's smoke test, run after smoke_common.py in one script; one JSON line per event.

Sent as smoke_common.py + this file, `python -I -c SOURCE JSON_ARG`, in the target interpreter
(Python 3.7+ grammar, standard library; jax is the only other import). Steps: import, list_gpus
(jax.devices(): this initialises the backends, and with them the CUDA plugin, which is when JAX
loads its CUDA libraries), a conv forward and backward (jax.grad), a matmul; on the first GPU
when JAX lists one, on the CPU otherwise. XLA_PYTHON_CLIENT_PREALLOCATE=false unless the caller
set it: JAX otherwise takes 75% of GPU memory for a test that needs kilobytes. It must not exit
through interpreter shutdown (finish() does).
"""

import os
import sys

FRAMEWORK = "jax"
TITLE = "JAX"
STEPS = ("import", "list_gpus", "conv2d", "matmul")
ORDER_AFTER = "list_gpus"  # jax.devices() there: an import-order child's import:jax calls it too


def jax_device(array, fallback):
    """'cuda:0' / 'TFRT_CPU_0': where the result really is."""
    try:
        devices = array.devices()
        return str(sorted(devices, key=str)[0])
    except Exception:
        return fallback


def step_import(state):
    jax = import_framework(state, FRAMEWORK, TITLE)
    extra = {"version": getattr(jax, "__version__", None), "file": getattr(jax, "__file__", None)}
    try:
        import jaxlib

        extra["build_info"] = {"jaxlib_version": getattr(jaxlib, "__version__", None)}
    except Exception as exc:
        extra["build_info"] = {"jaxlib_error": error_text(exc)}
    return "JAX %s" % extra["version"], None, extra


def step_list_gpus(state):
    jax = state["module"]
    devices = jax.devices()  # the default backend's: a GPU one when the CUDA plugin works
    state["cpu"] = jax.devices("cpu")[0]
    gpus = [d for d in devices if getattr(d, "platform", "") in ("gpu", "cuda")]
    details = [
        {"name": str(d), "device_kind": getattr(d, "device_kind", None),
         "compute_capability": getattr(d, "compute_capability", None)}
        for d in gpus
    ]  # fmt: skip
    state["device"] = gpus[0] if gpus else state["cpu"]
    backend = None
    try:
        backend = jax.default_backend()
    except Exception:
        pass
    extra = {"gpus": [str(d) for d in gpus], "details": details, "backend": backend}
    return "JAX sees %d GPU(s) (default backend %s)" % (len(gpus), backend), None, extra


def placed(state, value):
    jax = state["module"]
    device = state["device"] or jax.devices()[0]
    return jax.device_put(value, device), str(device)


def step_conv2d(state):
    jax = state["module"]
    import jax.numpy as jnp

    x, where = placed(state, jnp.ones((1, 3, 8, 8)))
    w, _ = placed(state, jnp.ones((4, 3, 3, 3)))

    def loss(a, b):
        return jax.lax.conv_general_dilated(a, b, (1, 1), "SAME").sum()

    value = loss(x, w)
    grad_x, grad_w = jax.grad(loss, argnums=(0, 1))(x, w)
    # All-ones NCHW 8x8x3 with a 4x3x3x3 kernel, SAME: each sum is 22*22*3*4 = 5808.
    expect("conv forward", float(value), 5808.0)
    expect("conv input gradient", float(grad_x.sum()), 5808.0)
    expect("conv filter gradient", float(grad_w.sum()), 5808.0)
    return "1x3x8x8 conv forward and backward", jax_device(grad_w, where), {}


def step_matmul(state):
    import jax.numpy as jnp

    a, where = placed(state, jnp.ones((64, 64)))
    product = a @ a
    expect("matmul", float(product.sum()), 64.0**3)
    return "64x64 matmul", jax_device(product, where), {}


RUNNERS = {
    "import": step_import,
    "list_gpus": step_list_gpus,
    "conv2d": step_conv2d,
    "matmul": step_matmul,
}


if __name__ == "__main__":
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    suppress_crash_dialogs()
    main(sys.argv)
    finish()
