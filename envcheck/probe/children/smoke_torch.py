"""Child: PyTorch's smoke test, run after smoke_common.py in one script; one JSON line per event.

Sent as smoke_common.py + this file, `python -I -c SOURCE JSON_ARG`, in the target interpreter
(Python 3.7+ grammar, standard library; torch is the only other import). Steps: import (the
CUDA build, torch.version.cuda, and the cuDNN version torch reports), list_gpus, a conv2d forward
and backward, a matmul; on cuda:0 when torch.cuda.is_available(), on the CPU otherwise. torch's
`__init__` preloads the NVIDIA libraries it links against, so the import step's new_libraries
are the copies it got. It must not exit through interpreter shutdown (finish() does).
"""

import sys

FRAMEWORK = "torch"
TITLE = "PyTorch"
STEPS = ("import", "list_gpus", "conv2d", "matmul")


def torch_device(tensor, fallback):
    """'cuda:0' / 'cpu': where the result really is."""
    device = getattr(tensor, "device", None)
    return str(device) if device is not None else fallback


def step_import(state):
    torch = import_framework(state, FRAMEWORK, TITLE)
    state["device"] = "cpu"
    version = getattr(torch, "__version__", None)
    torch_version = getattr(torch, "version", None)
    extra = {
        "version": str(version) if version is not None else None,
        "file": getattr(torch, "__file__", None),
        "build_info": {
            "cuda_version": getattr(torch_version, "cuda", None),
            "hip_version": getattr(torch_version, "hip", None),
        },
    }
    cudnn = getattr(getattr(torch, "backends", None), "cudnn", None)
    if cudnn is not None:
        try:  # loads nothing new: torch linked cuDNN at import (it returns None without one)
            extra["build_info"]["cudnn_version"] = cudnn.version()
        except Exception as exc:
            extra["build_info"]["cudnn_error"] = error_text(exc)
    return "PyTorch %s (CUDA %s)" % (version, extra["build_info"]["cuda_version"]), None, extra


def step_list_gpus(state):
    torch = state["module"]
    names, details = [], []
    # is_available() is False without a driver, and says nothing more: no exception to report.
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            entry = {"name": "cuda:%d" % index}
            try:
                entry["device_name"] = torch.cuda.get_device_name(index)
                entry["compute_capability"] = "%d.%d" % torch.cuda.get_device_capability(index)
            except Exception as exc:
                entry["error"] = error_text(exc)
            names.append(entry["name"])
            details.append(entry)
    if names:
        state["device"] = "cuda:0"
    return "PyTorch sees %d GPU(s)" % len(names), None, {"gpus": names, "details": details}


def step_conv2d(state):
    torch, device = state["module"], state["device"]
    x = torch.ones((1, 3, 8, 8), device=device, requires_grad=True)
    w = torch.ones((4, 3, 3, 3), device=device, requires_grad=True)
    y = torch.nn.functional.conv2d(x, w, padding=1)
    loss = y.sum()
    loss.backward()
    # All-ones NCHW 8x8x3 with a 4x3x3x3 kernel, padding 1: each sum is 22*22*3*4 = 5808.
    expect("conv2d forward", loss.item(), 5808.0)
    expect("conv2d input gradient", x.grad.sum().item(), 5808.0)
    expect("conv2d filter gradient", w.grad.sum().item(), 5808.0)
    return "1x3x8x8 conv2d forward and backward", torch_device(y, device), {}


def step_matmul(state):
    torch, device = state["module"], state["device"]
    product = torch.ones((64, 64), device=device) @ torch.ones((64, 64), device=device)
    expect("matmul", product.sum().item(), 64.0**3)
    if device != "cpu":
        torch.cuda.synchronize()  # an asynchronous kernel error surfaces here, in this step
    return "64x64 matmul", torch_device(product, device), {}


RUNNERS = {
    "import": step_import,
    "list_gpus": step_list_gpus,
    "conv2d": step_conv2d,
    "matmul": step_matmul,
}


if __name__ == "__main__":
    suppress_crash_dialogs()
    main(sys.argv)
    finish()
