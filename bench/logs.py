"""The logs `envcheck explain` is timed on (bench/run.py, bench/explain_logs.py), generated.

- training: a training run's output, mostly lines no trigger picks (progress bars, epochs,
  TensorFlow's executor notices), with a real problem now and then.
- TensorFlow INFO: a verbose TensorFlow 2.4 run on a GPU restarted again and again (a crash
  loop; issue 22, item 3): most lines are TensorFlow's own INFO lines (dso_loader.cc
  "Successfully opened dynamic library ...", gpu_device.cc "Found device", "Created TensorFlow
  device", ...), in the formats the public logs of tests/logs and tests/corpus show; each
  start-up also warns that TensorRT is missing and that libcusolver.so.10 is (the run's real
  problem: TensorFlow 2.4 asks for CUDA 10's cuSOLVER), and trains two epochs.
- repeated INFO: only the issue's two lines, dso_loader.cc "Successfully opened dynamic library
  libcudart.so.11.0" and gpu_device.cc "Created TensorFlow device ...", in turn. Every line
  holds triggers, so the scan hands every one on.
- distinct numbers: every line holds triggers and no two lines are alike: messages a long run
  repeats with other numbers (a shuffle buffer filling up, the executor's notice about a
  placeholder, an allocation that failed, an op that failed), each with a counter or a size of
  its own (decimal: a hexadecimal address changes letters too, and such lines are read one by
  one, like those of the next log).
- distinct words: every line holds triggers and no two lines are alike even with their numbers
  masked: each names a library, an op or a package of its own (a word made from the line's
  number in letters), so every line is judged afresh.

Every line carries its own timestamp, as TensorFlow writes them, so no two lines of a file are
equal byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

MB = 1024 * 1024
BIG_LOG_BYTES = 100 * MB

# --- training ------------------------------------------------------------------------------

# A training run's output: progress and INFO noise, with a few real problems repeated now and then.
_NOISE = (
    "Epoch {n}/200",
    "{n}/1875 [==============================] - 4s 2ms/step - loss: 0.2961 - accuracy: 0.9137",
    "2024-04-03 16:50:32.{m:06d}: I tensorflow/core/common_runtime/executor.cc:1197] "
    "[/job:localhost/replica:0/task:0/device:GPU:0] (DEBUG INFO) Executor start aborting",
    "2024-04-03 16:50:32.{m:06d}: I tensorflow/stream_executor/cuda/cuda_blas.cc:1614] "
    "TensorFloat-32 will be used for the matrix multiplication. This will only be logged once.",
    "index = {n}",
    "",
)
_PROBLEMS = (
    "2021-11-24 04:51:47.{m:06d}: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded "
    "runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.  CuDNN library needs to "
    "have matching major version and equal or higher minor version.",
    "2022-07-10 15:08:09.{m:06d}: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory",
    "2025-11-30 03:28:13.{m:06d}: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] "
    "TF-TRT Warning: Could not find TensorRT",
)


def _training(start: int) -> list[str]:
    block = []
    for n in range(start, start + 10_000):
        pool = _PROBLEMS if n % 4999 == 0 else _NOISE
        block.append(pool[n % len(pool)].format(n=n, m=n % 1_000_000))
    return block


# --- TensorFlow INFO -----------------------------------------------------------------------

_DSO = "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] "
_OPENED = _DSO + "Successfully opened dynamic library {library}"
_GPU = "I tensorflow/core/common_runtime/gpu/gpu_device.cc"
_CREATED = (
    _GPU + ":1406] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 "
    "with 9613 MB memory) -> physical GPU (device: 0, name: GeForce RTX 2080 Ti, pci bus id: "
    "0000:01:00.0, compute capability: 7.5)"
)
# One start-up of TensorFlow 2.4 on a GPU, as its log shows it: (whether the line starts with
# a timestamp, the rest); the lines without one continue the line before (TensorFlow prints the
# device's properties over three lines).
_STARTUP: tuple[tuple[bool, str], ...] = (
    (True, _OPENED.format(library="libcudart.so.11.0")),
    (True, "I tensorflow/compiler/jit/xla_cpu_device.cc:41] Not creating XLA devices, "
     "tf_xla_enable_xla_devices not set"),
    (True, _OPENED.format(library="libcuda.so.1")),
    (True, _GPU + ":1720] Found device 0 with properties: "),
    (False, "pciBusID: 0000:01:00.0 name: GeForce RTX 2080 Ti computeCapability: 7.5"),
    (False, "coreClock: 1.545GHz coreCount: 68 deviceMemorySize: 10.76GiB "
     "deviceMemoryBandwidth: 573.69GiB/s"),
    (True, _OPENED.format(library="libcudart.so.11.0")),
    (True, _OPENED.format(library="libcublas.so.11")),
    (True, _OPENED.format(library="libcublasLt.so.11")),
    (True, _OPENED.format(library="libcufft.so.10")),
    (True, _OPENED.format(library="libcurand.so.10")),
    (True, _OPENED.format(library="libcusolver.so.10")),
    (True, _OPENED.format(library="libcusparse.so.11")),
    (True, _OPENED.format(library="libcudnn.so.8")),
    (True, _GPU + ":1862] Adding visible gpu devices: 0"),
    (True, "I tensorflow/core/platform/cpu_feature_guard.cc:142] This TensorFlow binary is "
     "optimized with oneAPI Deep Neural Network Library (oneDNN) to use the following CPU "
     "instructions in performance-critical operations:  AVX2 FMA"),
    (True, "I tensorflow/compiler/jit/xla_gpu_device.cc:99] Not creating XLA devices, "
     "tf_xla_enable_xla_devices not set"),
    (True, _GPU + ":1261] Device interconnect StreamExecutor with strength 1 edge matrix:"),
    (True, _GPU + ":1267]      0 "),
    (True, _GPU + ":1280] 0:   N "),
    (True, _CREATED),
    (True, "I tensorflow/compiler/mlir/mlir_graph_optimization_pass.cc:116] None of the MLIR "
     "optimization passes are enabled (registered 2)"),
    (True, "I tensorflow/core/platform/profile_utils/cpu_utils.cc:112] CPU Frequency: "
     "3599995000 Hz"),
    (True, _OPENED.format(library="libcublas.so.11")),
    (True, _OPENED.format(library="libcublasLt.so.11")),
    (True, _OPENED.format(library="libcudnn.so.8")),
    (True, "I tensorflow/stream_executor/cuda/cuda_blas.cc:1838] TensorFloat-32 will be used "
     "for the matrix multiplication. This will only be logged once."),
)  # fmt: skip
# TensorRT is not installed (harmless), once per start-up.
_TENSORRT = (
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic "
    "library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No "
    "such file or directory; LD_LIBRARY_PATH: /usr/local/nvidia/lib:/usr/local/nvidia/lib64"
)
# The run's real problem: TensorFlow 2.4 asks for the libcusolver of CUDA 10.
_CUSOLVER = (
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic "
    "library 'libcusolver.so.10'; dlerror: libcusolver.so.10: cannot open shared object file: "
    "No such file or directory"
)
_PROGRESS = (
    "Epoch {e}/10",
    "1875/1875 [==============================] - 6s 3ms/step"
    " - loss: 0.{l:04d} - accuracy: 0.9{a:03d}",
)


def _stamp(n: int) -> str:
    """TensorFlow's timestamp for line n: a day of microseconds, one line every 37 µs."""
    micros = n * 37
    seconds, micro = divmod(micros, 1_000_000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return f"2021-01-2{hour // 24 % 10} {hour % 24:02d}:{minute:02d}:{second:02d}.{micro:06d}: "


def _tensorflow_info(start: int) -> list[str]:
    """One start-up (a restart of the run) and two epochs of its training output."""
    block = []
    for stamped, text in _STARTUP:
        block.append(_stamp(start + len(block)) + text if stamped else text)
    block.append(_stamp(start + len(block)) + _TENSORRT)
    block.append(_stamp(start + len(block)) + _CUSOLVER)
    for epoch in (1, 2):
        n = start + len(block)
        block.append(_PROGRESS[0].format(e=epoch))
        block.append(_PROGRESS[1].format(l=n % 10_000, a=n % 1000))
    return block


# --- repeated INFO -------------------------------------------------------------------------

_REPEATED = (_OPENED.format(library="libcudart.so.11.0"), _CREATED)


def _repeated_info(start: int) -> list[str]:
    return [_stamp(n) + _REPEATED[n % 2] for n in range(start, start + 10_000)]


# --- distinct numbers ----------------------------------------------------------------------

# Messages a long run prints again and again with other numbers: a counter that grows, a
# tensor's number, a size (a number grows a digit wider now and then, as counters do). Each
# holds a trigger: TensorFlow's source path ("tensorflow"), an alarm word ("failed", "error").
_BY_NUMBERS = (
    "I tensorflow/core/kernels/data/shuffle_dataset_op.cc:177] Filling up shuffle buffer (this "
    "may take a while): {n} of 100000000",
    "I tensorflow/core/common_runtime/executor.cc:1197] [/job:localhost/replica:0/task:0/device:"
    "GPU:0] (DEBUG INFO) Executor start aborting (this does not indicate an error and you can "
    "ignore this message): INVALID_ARGUMENT: You must feed a value for placeholder tensor "
    "'Placeholder/_{n}' with dtype int32",
    "W tensorflow/core/common_runtime/bfc_allocator.cc:479] Allocator (GPU_0_bfc) ran out of "
    "memory trying to allocate {g}.{c:02d}GiB with freed_by_count=0. The caller indicates that "
    "this is not a failure, but may mean that there could be performance gains if more memory "
    "were available.",
    "E tensorflow/core/kernels/conv_ops.cc:1106] conv2d_{n} failed: error 2 at step {n}",
)


def _distinct_numbers(start: int) -> list[str]:
    return [
        _stamp(n) + _BY_NUMBERS[n % len(_BY_NUMBERS)].format(n=n, g=1 + n % 9, c=n * 7 % 100)
        for n in range(start, start + 10_000)
    ]


# --- distinct words ------------------------------------------------------------------------


def _word(n: int) -> str:
    """A name of letters only, different for every n (the letters of n in base 26)."""
    letters = []
    while True:
        n, digit = divmod(n, 26)
        letters.append(chr(ord("a") + digit))
        if n == 0:
            return "".join(letters) + "x"


# Each holds a trigger: a library name (".so."), an alarm word ("error", "failed"), a Python
# path ("/python3."), TensorFlow's own source path ("tensorflow").
_DISTINCT = (
    _DSO + "Successfully opened dynamic library lib{w}.so.{n}",
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic "
    "library 'lib{w}.so.{n}'; dlerror: lib{w}.so.{n}: cannot open shared object file: No such "
    "file or directory",
    "E tensorflow/core/kernels/{w}_op.cc:{n}] {w} failed: error {n} in op {w}",
    '  File "/usr/local/lib/python3.8/dist-packages/{w}/__init__.py", line {n}, in {w}',
)


def _distinct_words(start: int) -> list[str]:
    block = []
    for n in range(start, start + 10_000):
        text = _DISTINCT[n % len(_DISTINCT)].format(w=_word(n), n=n)
        block.append(text if text.startswith(" ") else _stamp(n) + text)
    return block


# --- writing -------------------------------------------------------------------------------

LOGS: dict[str, Callable[[int], list[str]]] = {
    "training": _training,
    "TensorFlow INFO": _tensorflow_info,
    "repeated INFO": _repeated_info,
    "distinct numbers": _distinct_numbers,
    "distinct words": _distinct_words,
}


def _blocks(make: Callable[[int], list[str]]) -> Iterator[list[str]]:
    lines = 0
    while True:
        block = make(lines)
        yield block
        lines += len(block)


def write_log(kind: str, path: Path, size: int = BIG_LOG_BYTES) -> int:
    """Write the log `kind` (a key of LOGS) of about `size` bytes; returns its number of lines."""
    lines = written = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for block in _blocks(LOGS[kind]):
            text = "\n".join(block) + "\n"
            out.write(text)
            written += len(text.encode("utf-8"))
            lines += len(block)
            if written >= size:
                return lines
    raise AssertionError("unreachable")
