"""Child: TensorFlow's smoke test, run after smoke_common.py in one script; one JSON line per event.

Sent as smoke_common.py + this file, `python -I -c SOURCE JSON_ARG`, in the target interpreter
(any Python 3.7+: standard library and 3.7 grammar only; TensorFlow is the only other import).
Argument: {"steps": [...] (default: all), "xla": true, "pythonpath": [...]}. The version matrix
predicts; this proves: cuDNN's convolution sub-library, cuBLAS and the XLA toolchain load only at
the first op that needs them (the Windows `Could not load library cudnn_cnn_infer64_8.dll. Error
code 193` appears at the first conv2d). The protocol is smoke_common.py's.
TF_CPP_MIN_LOG_LEVEL=0 is set so TensorFlow's own messages reach stderr, and
TF_FORCE_GPU_ALLOW_GROWTH=true unless the caller set it. Keep this file small: its source
travels on the command line (Windows allows 32767 characters). It must not exit through
interpreter shutdown (finish() does).
"""

import os
import sys

FRAMEWORK = "tensorflow"
TITLE = "TensorFlow"
STEPS = ("import", "list_gpus", "conv2d", "lstm", "matmul", "xla")


def short_device(tensor, requested):
    """'CPU:0' from '/job:localhost/replica:0/task:0/device:CPU:0': where the op really ran."""
    name = getattr(tensor, "device", None)
    if isinstance(name, str) and "device:" in name:
        return name.rsplit("device:", 1)[1]
    return requested


# --- steps ----------------------------------------------------------------------------------


def step_import(state):
    tf = import_framework(state, FRAMEWORK, TITLE)
    state["device"] = "/CPU:0"
    extra = {"version": getattr(tf, "__version__", None), "file": getattr(tf, "__file__", None)}
    get_build_info = getattr(getattr(tf, "sysconfig", None), "get_build_info", None)
    if get_build_info is not None:
        extra["build_info"] = jsonable(dict(get_build_info()))
    return "TensorFlow %s" % extra["version"], None, extra


def step_list_gpus(state):
    tf = state["module"]
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
    tf, device = state["module"], state["device"]
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
    tf, device = state["module"], state["device"]
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
    tf, device = state["module"], state["device"]
    with tf.device(device):
        product = tf.matmul(tf.ones([64, 64]), tf.ones([64, 64]))
        expect("matmul", tf.reduce_sum(product).numpy(), 64.0**3)
    return "64x64 matmul", short_device(product, device[1:]), {}


def step_xla(state):
    tf, device = state["module"], state["device"]
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


if __name__ == "__main__":
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "0"
    # Without it TF maps nearly all GPU memory; on a GPU another process uses that fails the
    # test for a reason unrelated to the setup (an explicit "false" from the caller is kept).
    os.environ.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    suppress_crash_dialogs()
    main(sys.argv)
    finish()
