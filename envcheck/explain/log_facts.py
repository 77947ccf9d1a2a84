"""Facts a log reveals beyond its error messages: which CUDA and cuDNN the TensorFlow that wrote
it expected (from the library names it asked for, via the matrix), versions it printed (cuDNN's
encoded "Loaded cuDNN version 8400" decoded by the matrix), the TensorFlow releases its source
paths imply, GPUs, and the platform (Windows paths, WSL, Colab, a container). Pure: takes lines
and hits."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from packaging.specifiers import SpecifierSet

from envcheck.explain.digits import DigitReader, digit_places, masked
from envcheck.explain.matcher import LogHit
from envcheck.explain.presence import Deferred, Presence, presence
from envcheck.matrix.model import Matrix
from envcheck.record import record

# Each pattern with the texts (as logs write them) one of which a line must hold for the pattern
# to be tried: a cheap gate, and the triggers of the big-log scan (envcheck.explain.scanner), so
# both see the same lines.
_PLATFORM_MARKERS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (
        # (A user profile's AppData folder: a path cut before its drive still shows it.)
        re.compile(
            r"[A-Za-z]:\\\\?(?:Users|Program Files|Windows|ProgramData)"
            r"|\\AppData\\(?:Local|Roaming)\\",
            re.IGNORECASE,
        ),
        (
            "\\Users",
            "\\users",
            "\\Program Files",
            "\\Windows",
            "\\windows",
            "\\ProgramData",
            "\\AppData\\",
        ),
        "windows",
    ),
    (re.compile(r"\.dll\b", re.IGNORECASE), (".dll", ".DLL"), "windows"),
    # collect_env's and platform.platform()'s OS, the interpreter's banner ("on win32"), a
    # Windows wheel tag, and tensorflow-intel: the distribution TensorFlow 2.11-2.18 installs
    # on Windows only.
    (
        re.compile(r"Microsoft Windows|\bWindows-1[01]-|\bwin_amd64\b|\bwin32\b|tensorflow-intel"),
        ("Microsoft Windows", "Windows-1", "win_amd64", "win32", "tensorflow-intel"),
        "windows",
    ),
    (
        # (/mnt/c/: Windows' drive as WSL mounts it)
        re.compile(r"/usr/lib/wsl/lib|microsoft-standard-WSL2|\bWSL2\b|(?<![\w/])/mnt/[c-f]/"),
        (
            "/usr/lib/wsl/lib",
            "microsoft-standard-WSL2",
            "WSL2",
            "/mnt/c/",
            "/mnt/d/",
            "/mnt/e/",
            "/mnt/f/",
        ),
        "wsl",
    ),
    # Colab is told by its own package; /usr/local/lib/python3.X/dist-packages is every
    # Debian/Ubuntu system pip and the TensorFlow Docker images too.
    (re.compile(r"google[./]colab"), ("google.colab", "google/colab"), "colab"),
    (
        # A container's cgroup, `docker run --gpus`, `docker compose`/`docker-compose`,
        # `docker exec`, nvidia-docker and the NVIDIA Container Toolkit's own messages.
        # Compose (v1) also says "Creating NAME ... done" as it starts a service's container.
        re.compile(
            # (docker after a /proc/1/cgroup, never past the next one: a run of them is
            # searched once, not once from each; issue 24)
            r"/proc/1/cgroup(?:(?!/proc/1/cgroup).)*docker|--gpus|nvidia-container|nvidia-docker"
            r"|\bdocker(?:-compose| compose| run| exec)\b"
            r"|^(?:Creating|Starting|Recreating) \S+ \.\.\. done"
            # A framework's or NVIDIA's image by its tag (FROM, docker pull, a compose file).
            r"|\b(?:nvidia/cuda|pytorch/pytorch|tensorflow/tensorflow):\d|\bnvcr\.io/"
            # a shell in a container: root at a hostname of Docker's 12 hex digits; a Kubernetes
            # GPU request
            r"|\broot@[0-9a-f]{12}:|\bnvidia\.com/gpu\b"
            # Slurm's pyxis plugin running a job in an enroot container
            r"|--container-image[= ]"
            # modprobe where the running kernel's modules are not on disk, as in an image
            # (amazon-archives/amazon-dsstne#36: CUDA tried to load nvidia in a container)
            r"|\bcould not open moddep file '/lib/modules/"
            # Docker Compose's prefix of a service's output: "web_1  | " (v1), "web-1  | " (v2)
            r"|^[a-z0-9][\w.-]{0,60}[_-]\d{1,3} {1,40}\| ",
            re.IGNORECASE,
        ),
        (
            "docker",
            "Docker",
            "--gpus",
            "nvidia-container",
            " ... done",
            "nvidia/cuda:",
            "pytorch/pytorch:",
            "tensorflow/tensorflow:",
            "nvcr.io/",
            "root@",
            "nvidia.com/gpu",
            "--container-image",
            "moddep",
            " | ",
        ),
        "container",
    ),
    # A process forked from a Python program: PyTorch's DataLoader workers, multiprocessing's
    # fork start method (popen_fork, its process.py; a Pool's pool.py, which raises a worker's
    # exception in the parent), PyTorch's own refusal.
    (
        re.compile(
            r"\b_worker_loop\b|DataLoader worker process|popen_fork\.py|forked subprocess"
            r"|multiprocessing[/\\](?:process|pool)\.py"
        ),
        (
            "_worker_loop",
            "DataLoader worker",
            "popen_fork",
            "forked subprocess",
            "process.py",
            "pool.py",
        ),
        "forked-worker",
    ),
    # PTX compiled by the driver itself (its JIT linker, as numba calls it), not by a ptxas:
    # the driver's compiler names its input "application ptx input" where a ptxas names the
    # .ptx file it was given.
    (
        re.compile(
            r"\bCall to cuLink\w{1,30} results in|\bcuLinkAddData(?:_v2)?\b"
            r"|\bptxas application ptx input\b"
        ),
        ("Call to cuLink", "cuLinkAddData", "ptxas application ptx input"),
        "driver-jit",
    ),
    # pip building a package from source in its isolated build environment (PEP 517), where
    # it failed: its temporary prefix and its build hooks in a traceback, or its report of a
    # failed step (not the step's "... done" of every successful source install). There the
    # program's own packages (an installed torch) are not importable.
    (
        re.compile(
            r"pip-build-env-|\b(?:get_requires_for_build_(?:wheel|editable)"
            r"|prepare_metadata_for_build_(?:wheel|editable))\b"
            r"|(?:[Gg]etting requirements to build (?:wheel|editable)|Preparing metadata"
            r" \(pyproject\.toml\))(?: \.\.\. error| did not run successfully)"
            r"|when getting requirements to build (?:wheel|editable)"
            # uv's hint after a build failed in its isolated environment: "... depends on
            # `torch`, but doesn't declare it as a build dependency".
            r"|doesn't declare it as a build dependency"
        ),
        (
            "declare it as a build dependency",
            "pip-build-env-",
            "get_requires_for_build_",
            "prepare_metadata_for_build_",
            "requirements to build",
            "Preparing metadata (pyproject.toml)",
        ),
        "pip-build",
    ),
    # macOS: a home directory (/Users/NAME/, not C:/Users/), Homebrew's prefix, the
    # python.org framework build, a macOS wheel tag, a dynamic library's suffix, uname. (Not
    # Windows' C:/Users/ nor WSL's /mnt/c/Users/.)
    (
        re.compile(
            r"(?<![A-Za-z]:)(?<!/mnt/[a-z])/Users/[^/\s]+/|/opt/homebrew/|/Library/Frameworks/Python\.framework"
            r"|macosx_\d+_\d+_|\.dylib\b|\bDarwin\b"
            # collect_env's "OS: macOS 14.4 (arm64)", platform.platform()'s "macOS-14.4-arm64",
            # the Apple toolchain's target triple.
            r"|\bmacOS[ -]\d|\bMac OS X\b|-apple-darwin|\] on darwin\b"
            # conda's platform ("Platform: osx-arm64", its osx-64 channel subdirectories)
            r"|\bosx-(?:arm)?64\b"
        ),
        (
            "/Users/",
            "/opt/homebrew/",
            "Python.framework",
            "macosx_",
            ".dylib",
            "Darwin",
            "macOS",
            "Mac OS X",
            "-apple-darwin",
            "on darwin",
            "osx-",
        ),
        "macos",
    ),
)
# Which framework wrote the log: its package's paths in a traceback (site-packages/torch/,
# ...\\torch\\), its import, pip naming its package, its own name in its messages. Each
# pattern with its gates, as the platform markers; a line counts once per framework, and the
# framework with most lines is the log's (LogFacts.framework). TensorFlow's own source paths
# in its log prefixes count (tensorflow/core/..., external/local_xla/ of TF 2.16+), but not
# another project's vendored copy (jaxlib's external/org_tensorflow/) nor JAX's own advice to
# set TF_CPP_MIN_LOG_LEVEL.
_PACKAGE_PATH = r"[/\\](?:site|dist)-packages[/\\]"
# jaxlib's copy of TensorFlow's sources (before XLA left TensorFlow) logs from this path: a
# TensorFlow message there was printed by JAX and says nothing of a TensorFlow release (the
# TensorFlow marker below leaves it out the same way).
_VENDORED_TENSORFLOW = "external/org_tensorflow/"
_FRAMEWORK_MARKERS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (
        re.compile(
            r"(?<!org_tensorflow/)\btensorflow[/\\](?:core|python|stream_executor|compiler|tsl)\b"
            # (TensorBoard's "TensorFlow installation not found" is a log without TensorFlow.)
            r"|external/local_(?:xla|tsl)/|\bTensorFlow\b(?! installation not found)"
            r"|\bimport tensorflow\b"
            r"|\btensorflow(?:-gpu|-cpu|-macos|\[and-cuda\])?(?:==| \(from|-\d)"
            r"|requirement tensorflow\b|\btf\.(?:config|keras|test|data)\b"
        ),
        ("tensorflow", "TensorFlow", "local_xla/", "local_tsl/", "tf."),
        "tensorflow",
    ),
    (
        re.compile(
            _PACKAGE_PATH
            + r"torch[/\\]|\b(?:import|from) torch\b|\btorch\.(?:cuda|_C|nn|version)\b"
            r"|\bPyTorch\b|\bTorch not compiled\b|\btorch(?:==|-\d| \(from)|requirement torch\b"
        ),
        ("torch", "PyTorch", "Torch "),
        "torch",
    ),
    (
        re.compile(
            _PACKAGE_PATH + r"jax(?:lib)?[/\\]|\bjaxlib\b|\b(?:import|from) jax\b"
            r"|\bjax\.(?:devices|numpy|random|lib)\b|\bjax\[cuda|\bJAX\b|requirement jax\b"
        ),
        ("jax", "JAX"),
        "jax",
    ),
    (
        re.compile(r"onnxruntime|ONNXRuntime|ONNX Runtime", re.IGNORECASE),
        ("onnxruntime", "ONNXRuntime", "ONNX Runtime", "OnnxRuntime", "Onnxruntime"),
        "onnxruntime",
    ),
    (
        re.compile(r"ctranslate2|faster[_-]whisper", re.IGNORECASE),
        ("ctranslate2", "CTranslate2", "faster_whisper", "faster-whisper"),
        "ctranslate2",
    ),
    (
        re.compile(
            _PACKAGE_PATH + r"paddle[/\\]|\bpaddlepaddle|\bPaddlePaddle\b|\bPaddle\b"
            r"|\b(?:import|from) paddle\b"
        ),
        ("paddle", "Paddle"),
        "paddle",
    ),
    (
        re.compile(r"\bcupy(?:_backends)?\b|\bCuPy\b|\bcupy-cuda"),
        ("cupy", "CuPy"),
        "cupy",
    ),
)
# (Bounded runs: "name: " repeated on one long line without a comma made every one of them
# run to the end of the line, quadratic time; a GPU's name and bus id are short.)
_GPU = re.compile(
    r"name: (?P<name>[^,]{1,300}), pci bus id: [^,]{1,300}, compute capability: (?P<cc>\d+\.\d+)"
    # TensorFlow 2.x's "Found device 0 with properties: pciBusID: 0000:01:00.0 name: GeForce
    # RTX 3090 computeCapability: 8.6"
    r"|name: (?P<name2>[^,:]{1,80}?) computeCapability: (?P<cc2>\d{1,2}\.\d)"
    # PyTorch's "Found GPU0 Tesla K80 which is of cuda capability 3.7."
    r"|Found GPU\d{1,2} (?P<name3>[^,]{1,80}?) which is of cuda capability (?P<cc3>\d{1,2}\.\d)"
    # deviceQuery's "CUDA Capability Major/Minor version number:    1.1" (the name is on
    # another line)
    r"|CUDA Capability Major/Minor version number:\s{1,40}(?P<cc4>\d{1,2}\.\d)"
    # TensorFlow 1.x's "name: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.582"
    r"|name: (?P<name4>[^:,]{1,80}?) major: (?P<major>\d{1,2}) minor: (?P<minor>\d)\b"
    # PaddlePaddle's device notice: "device: 0, GPU Compute Capability: 8.6, Driver API
    # Version: 11.2, Runtime API Version: 10.2", before 2.2 "CUDA Capability: 75" (the name
    # is not printed)
    r"|device: \d{1,2}, GPU Compute Capability: (?P<cc5>\d{1,2}\.\d)\b"
    r"|device: \d{1,2}, CUDA Capability: (?P<sm>\d{2,3}),"
    # ggml's (llama.cpp, Ollama, whisper.cpp) device list: "  Device 0: Tesla M60, compute
    # capability 5.2, VMM: yes"
    r"|Device \d{1,2}: (?P<name5>[^,]{1,80}), compute capability (?P<cc6>\d{1,2}\.\d)\b"
)
_GPU_GATES = (
    "compute capability",
    "computeCapability",
    "which is of cuda capability",
    "CUDA Capability Major/Minor",
    " major: ",
    "GPU Compute Capability: ",
    ", CUDA Capability: ",
)
# PyTorch's "NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the
# current PyTorch installation": the capability as sm_XY (sm_120: 12.0). The name starts the
# line or follows "UserWarning: ".
_GPU_SM = re.compile(
    r"(?:^\s{0,8}|Warning: )(?P<name>[^\s:][^:]{0,59}?) with CUDA capability sm_(?P<sm>\d{2,3})\b"
)
_GPU_SM_GATES = ("with CUDA capability sm_",)
# A GPU named without its compute capability (the matrix's GPU table gives it): nvidia-smi -L
# and collect_env ("GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-...)", "GPU models and
# configuration: GPU 0: NVIDIA GeForce RTX 3090"), nvidia-smi's table ("|   0  NVIDIA
# GeForce RTX 3090     Off  | 00000000:01:00.0 Off |"; "GeForce GTX 1080" before the 2020
# drivers; WDDM or TCC in its place on Windows) and nvidia-smi -q's "Product Name : Tesla
# K80". A name is a brand's and at most 60 characters.
_BRANDS = r"(?:NVIDIA |Tesla |Quadro |GeForce |TITAN )"
_GPU_NAME = re.compile(
    r"\bGPU \d{1,2}: (?P<name>" + _BRANDS + r"[^()|,]{1,60}?)\s*(?:\(UUID|$)"
    r"|^\|\s{1,6}\d{1,2}\s{1,4}(?P<row>" + _BRANDS + r"[^|]{1,60}?)\s{1,40}(?:On|Off|WDDM|TCC)"
    r"\s{1,6}\|"
    r"|Product Name\s{0,40}: (?P<product>" + _BRANDS + r"[^|,]{1,60}?)\s*$"
    # lspci's "3D controller: NVIDIA Corporation GK210GL [Tesla K80] (rev a1)"
    r"|NVIDIA Corporation [\w ]{1,40}\[(?P<lspci>(?:GeForce|Tesla|Quadro|TITAN|RTX|[AHL]\d)"
    r"[^\]]{0,60})\]"
    # a print of torch.cuda.get_device_name(): "'NVIDIA GeForce RTX 3090'", a line of its own
    r"|^'(?P<bare>" + _BRANDS + r"[^']{1,60})'$"
)
_GPU_NAME_GATES = (
    *(f"{lead}{brand}" for lead in (": ", "  ") for brand in _BRANDS[3:-1].split("|")),
    "On  |",
    "Off  |",
    "NVIDIA Corporation ",
    *(f"'{brand}" for brand in _BRANDS[3:-1].split("|")),
)
# Each GPU pattern with its gates, and how it gives (name, capability): tried in this order,
# the first that matches tells the line's GPU.
_GPU_PATTERNS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (_GPU, _GPU_GATES),
    (_GPU_SM, _GPU_SM_GATES),
    (_GPU_NAME, _GPU_NAME_GATES),
)
# "tensorflow 2.15.0", "TensorFlow version: 2.15", "tensorflow==2.15.1", "tensorflow-2.15.0-cp311",
# "Tensor Flow Version: 2.12.0", pip list's and conda list's columns ("tensorflow-gpu    2.4.1"),
# an image tag ("tensorflow/tensorflow:2.4.1-gpu") and pip's "Requirement already satisfied:
# tensorflow in c:\...\site-packages (2.13.0)".
_TF_PACKAGE = r"(?:tensorflow|TensorFlow|Tensor Flow)(?:-gpu|-intel|-cpu|-macos)?"
_TF_VERSION = re.compile(
    _TF_PACKAGE + r"(?: [Vv]ersion:?)?[ \t=_:-]{1,40}v?(?P<version>[12]\.\d{1,2}\.\d{1,2})\b"
    r"|Requirement already satisfied: " + _TF_PACKAGE + r" in [^()]{1,300}?"
    r"\((?P<satisfied>[12]\.\d{1,2}\.\d{1,2})\)"
)
_TF_VERSION_GATES = (
    *(f"tensorflow{sep}" for sep in " =_-:\t"),
    "TensorFlow ",
    "Tensor Flow ",
)
# tf.sysconfig.get_build_info() as a dict or an OrderedDict: what the TensorFlow that ran was
# built with, as the probe reads it (probe/frameworks.normalize_build_info).
_TF_BUILD = re.compile(
    r"'cuda_version'(?::|,) '(?P<cuda_version>[\d._]{1,12})'"
    r"|'cudnn_version'(?::|,) '(?P<cudnn_version>[\d._]{1,12})'"
    r"|'is_cuda_build'(?::|,) (?P<is_cuda_build>True|False)\b"
    r"|'cuda_compute_capabilities'(?::|,) \[(?P<cuda_compute_capabilities>[^\]]{1,300})\]"
)
_TF_BUILD_GATES = (
    "'cuda_version'",
    "'cudnn_version'",
    "'is_cuda_build'",
    "'cuda_compute_capabilities'",
)
# (torch.utils.collect_env says "Nvidia driver version: 470.82.01"; nvidia-smi, when the
# kernel module differs, "NVML library version: 470.141".)
_DRIVER = re.compile(
    r"(?:libcuda reported version is|Driver Version|Nvidia driver version|NVML library version)"
    r":?\s+(?P<version>\d{3}\.\d{1,3}(?:\.\d{1,3})?)"
    # an NGC container's start-up check: "This container was built for NVIDIA Driver Release
    # 530.30 or later, but" and, on the next line, "version 470.161.03 was detected"
    r"|\bversion (?P<ngc>\d{3}\.\d{1,3}(?:\.\d{1,3})?) was detected"
    # dpkg -l's installed driver package: "ii  nvidia-driver-465   465.19.01-0ubuntu1"
    r"|\bnvidia-driver-\d{3}(?:-server|-open)?[ \t]{1,40}(?P<dpkg>\d{3}\.\d{1,3}(?:\.\d{1,3})?)-"
)
_DRIVER_GATES = (
    "libcuda reported version is",
    "Driver Version",
    "Nvidia driver version",
    "NVML library version",
    "was detected",
    "nvidia-driver-",
)
# TensorFlow's driver check prints the kernel module's release beside libcuda's;
# /proc/driver/nvidia/version (and dmesg) "NVRM version: NVIDIA UNIX x86_64 Kernel Module
# 470.82.01 ...".
_KERNEL = re.compile(
    r"(?:kernel reported version is:?|Kernel Module)\s{1,10}"
    r"(?P<version>\d{3}\.\d{1,3}(?:\.\d{1,3})?)"
)
_KERNEL_GATES = ("kernel reported version is", "Kernel Module")
# The CUDA an environment provides for the framework it runs: a conda cudatoolkit package
# ("cudatoolkit 10.2.89 hfd86e86_1", "cudatoolkit-10.2.89-"; conda-forge's cuda-version and
# cuda-cudart since CUDA 12), an NVIDIA container's banner ("CUDA Version 12.2.0", without the
# colon of nvidia-smi's driver CUDA), its image tag ("nvidia/cuda:11.8.0-cudnn8-runtime") or
# its environment (CUDA_VERSION=11.8.0), collect_env's "CUDA used to build PyTorch: 11.7", the
# CUDA runtime wheel pip lists ("nvidia-cuda-runtime-cu12 12.1.105"). (nvcc's release is not
# one: the framework may not use it.)
_CUDA = re.compile(
    r"\bcudatoolkit(?:\s{1,40}|-|==?)(?P<conda>\d{1,2}\.\d{1,2})\b"
    r"|\bCUDA Version (?P<banner>\d{1,2}\.\d{1,2})\.\d"
    r"|CUDA used to build PyTorch: (?P<torch>\d{1,2}\.\d{1,2})\b"
    r"|\bnvidia/cuda:(?P<image>\d{1,2}\.\d{1,2})\b"
    r"|\bCUDA_VERSION=(?P<env>\d{1,2}\.\d{1,2})\b"
    r"|\bcuda-(?:version|cudart)(?:\s{1,40}|-|==?)(?P<conda12>\d{2}\.\d{1,2})\b"
    r"|\bnvidia-cuda-runtime-cu\d{2}(?:\s{1,40}|-|==)(?P<wheel>\d{2}\.\d{1,2})\b"
    # PaddlePaddle's device line: "Driver API Version: 10.1, Runtime API Version: 10.2"
    r"|Runtime API Version: (?P<runtime>\d{1,2}\.\d{1,2})\b"
    # conda's cudnn built for one CUDA: "cudnn 7.6.5 cuda10.1_0"
    r"|\bcudnn[ \t]{1,40}\d\.\d{1,2}\.\d{1,2}[ \t]{1,40}cuda(?P<conda_cudnn>\d{1,2}\.\d)_"
    # a package built for one CUDA by its name: mxnet-cu101, cupy-cuda102, paddlepaddle-gpu
    # 2.4.2.post117 (CUDA 11.7)
    r"|\b(?:mxnet|cupy)-cu(?:da)?(?P<package>\d{2,3})\b"
    r"|\bpaddlepaddle-gpu(?:==|[ \t]{1,40})\d\.\d{1,2}\.\d{1,2}\.post(?P<post>\d{2,3})\b"
)
_CUDA_GATES = (
    "cudatoolkit",
    "CUDA Version ",
    "CUDA used to build PyTorch",
    "nvidia/cuda:",
    "CUDA_VERSION=",
    "cuda-version",
    "cuda-cudart",
    "nvidia-cuda-runtime-cu",
    "Runtime API Version: ",
    "cudnn ",
    "cudnn\t",
    "mxnet-cu",
    "cupy-cu",
    "paddlepaddle-gpu",
)
# The CUDA toolkit installed on the machine, which the framework may not use (so no build is
# read from it): nvcc's "Cuda compilation tools, release 11.8, V11.8.89", collect_env's "CUDA
# runtime version: 11.8.89" (the nvcc it found). A program that asks for another CUDA's runtime
# and cannot load it was built for another CUDA than the one installed.
_TOOLKIT = re.compile(
    r"Cuda compilation tools, release (?P<nvcc>\d{1,2}\.\d{1,2})\b"
    r"|CUDA runtime version: (?P<collect>\d{1,2}\.\d{1,2})\.\d"
)
_TOOLKIT_GATES = ("Cuda compilation tools, release ", "CUDA runtime version: ")
# The CUDA the driver supports where the log shows it without the driver's release:
# PaddlePaddle's "Driver API Version: 10.1". (nvidia-smi's "CUDA Version: 12.2" comes with the
# release, which the rules compare instead.)
_DRIVER_CUDA = re.compile(r"Driver API Version: (?P<version>\d{1,2}\.\d{1,2})\b")
_DRIVER_CUDA_GATES = ("Driver API Version: ",)
# The PyTorch installed, as collect_env and a wheel's file name (pip installing it) write it,
# pip list's column ("torch    2.1.0+cu121"), pip's "Requirement already satisfied: torch in
# ... (2.1.0)", a print of torch.__version__ ("'2.1.0+cu121'", a line of its own: the local tag
# is PyTorch's), conda's pytorch package with its build string ("pytorch 1.10.0
# py3.9_cuda11.3_cudnn8.2.0_0": CUDA 11.3, written as the wheel tag +cu113) and PyTorch's image
# tag ("pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime"); not a requirement (torch==1.3.1+cpu),
# which may be one pip could not install.
_TORCH_TAG = r"(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,8}))"
_TORCH_VERSION = re.compile(
    r"(?:PyTorch version: |\btorch(?:-| version:? |[ \t]{1,40}))"
    r"(?P<version>\d\.\d{1,2}(?:\.\d{1,2})?" + _TORCH_TAG + r"?)(?![\w.])"
    r"|^'?(?P<bare>[12]\.\d{1,2}\.\d{1,2}\+(?:cu\d{2,3}|cpu))'?(?:\s|$)"
    r"|Requirement already satisfied: torch in [^()]{1,300}?\((?P<satisfied>\d\.\d{1,2}\.\d{1,2}"
    + _TORCH_TAG
    + r"?)\)"
    r"|\bpytorch[ \t]{1,40}(?P<conda>\d\.\d{1,2}\.\d{1,2}[ \t]{1,40}\S{1,60})"
    r"|\bpytorch/pytorch:(?P<image>\d\.\d{1,2}\.\d{1,2}-cuda\d{1,2}\.\d)\b"
)
_TORCH_VERSION_GATES = (
    "PyTorch version: ",
    "torch-",
    "torch version",
    "torch ",
    "torch\t",
    "+cu",
    "+cpu",
    "pytorch ",
    "pytorch\t",
    "pytorch/pytorch:",
)
# jaxlib as pip list, jax.print_environment_info() ("jaxlib: 0.4.23") and a wheel's file name
# write it, with the local tag of the releases before 0.4.26 that carried CUDA
# ("0.4.7+cuda11.cudnn86"); a CUDA plugin by its distribution's name ("jax-cuda12-plugin").
_JAXLIB = re.compile(
    r"\bjaxlib(?::?[ \t]{1,40}|-)"
    r"(?P<version>0\.\d{1,2}\.\d{1,3}(?:\+cuda\d{2,3}(?:\.cudnn\d{2,3})?)?)(?![\w.])"
)
_JAXLIB_GATES = ("jaxlib",)
_JAX_PLUGIN = re.compile(r"\bjax-cuda(?P<major>\d{2})-(?:plugin|pjrt)\b")
_JAX_PLUGIN_GATES = ("jax-cuda",)
# The interpreter that ran: its banner ("Python 3.12.1 (tags/...) [MSC v.1937 64 bit (AMD64)]"),
# "Python 3.13.0" in pip's or a report's output, or its library path (".../python3.10/site-");
# Python 2.7 too, which old logs show (a wheel of its tag refused: the platform is the cause).
_PYTHON = re.compile(
    r"\bPython (?P<version>[23]\.\d{1,2})(?:\.\d{1,2})?\b"
    r"|/python(?P<path>[23]\.\d{1,2})/(?:site|dist)-"
)
_PYTHON_GATES = ("Python 3.", "/python3.", "Python 2.", "/python2.")
_BITS = re.compile(r"\b(?P<bits>32|64) bit \((?:Intel|AMD64|ARM64)\)")
_BITS_GATES = (" bit (",)
# A name starts where a run of its characters starts: tried from inside the run too, the
# pattern ran over the rest of it from every place (a 65 kB "libcudart.so.aaaa..." line took
# 40 s; issue 24). The leftmost match never starts inside a run, so findall finds the same.
_LIBRARY = re.compile(r"(?<![\w.+-])[\w.+-]+\.(?:so(?:\.\d+)+|dll)")
# The CUDA architectures a program was built for, where it prints them: ggml's system_info
# (llama.cpp, Ollama, whisper.cpp) "CUDA : ARCHS = 500,610,700,750,800,860,890 | ...", the
# __CUDA_ARCH_LIST__ values (610 is compute capability 6.1).
_ARCHS = re.compile(r"\bCUDA : ARCHS = (?P<ggml>\d{3,4}(?:,\d{3,4}){0,40})\b")
_ARCHS_GATES = ("CUDA : ARCHS = ",)
# One-value facts: (LogFacts attribute, pattern, gates, keep the first value seen or the last).
_VALUES: tuple[tuple[str, re.Pattern[str], tuple[str, ...], bool], ...] = (
    ("tensorflow", _TF_VERSION, _TF_VERSION_GATES, True),
    ("driver", _DRIVER, _DRIVER_GATES, False),
    ("kernel_module", _KERNEL, _KERNEL_GATES, False),
    ("driver_cuda", _DRIVER_CUDA, _DRIVER_CUDA_GATES, False),
    ("toolkit", _TOOLKIT, _TOOLKIT_GATES, True),
    ("cuda", _CUDA, _CUDA_GATES, True),
    ("torch", _TORCH_VERSION, _TORCH_VERSION_GATES, True),
    ("jaxlib", _JAXLIB, _JAXLIB_GATES, True),
    ("jax_plugin", _JAX_PLUGIN, _JAX_PLUGIN_GATES, True),
    ("python", _PYTHON, _PYTHON_GATES, True),
    ("python_bits", _BITS, _BITS_GATES, True),
    ("program_archs", _ARCHS, _ARCHS_GATES, True),
)
_LIBRARY_GATES = (".so.", ".dll", ".DLL")
# Every regex the collector applies to a line: each must take time linear in the line
# (tests/faults/test_linear_patterns.py runs them on lines built to make them backtrack).
PATTERNS = (
    *(pattern for pattern, _, _ in _PLATFORM_MARKERS),
    *(pattern for pattern, _, _ in _FRAMEWORK_MARKERS),
    *(pattern for pattern, _ in _GPU_PATTERNS),
    *(pattern for _, pattern, _, _ in _VALUES),
    _TF_BUILD,
    _LIBRARY,
)


# TensorFlow's source paths in its log prefixes moved with its refactors, so a path bounds the
# release that wrote the line (docs/facts.md sections 5.1 and 7: stream_executor
# under tensorflow/ until 2.10, under tensorflow/compiler/xla/ in 2.11-2.15, tensorflow/tsl/ in
# 2.13-2.15, external/local_tsl/ in the 2.16/2.17 wheels, external/local_xla/ from 2.16).
# Looked for on the lines a signature matched only, so it costs nothing on the other lines.
_TF_PATH_RANGES = (
    ("tensorflow/stream_executor/", "<2.11"),
    ("tensorflow/compiler/xla/stream_executor/", ">=2.11,<2.16"),
    ("tensorflow/tsl/", ">=2.13,<2.16"),
    ("external/local_tsl/", ">=2.16,<2.18"),
    ("external/local_xla/", ">=2.16"),
)


# Every gate, for the big-log scan: a line that passes none of them teaches the collector nothing.
FACT_GATES = tuple(
    sorted(
        {gate for _, gates, _ in _PLATFORM_MARKERS for gate in gates}
        | {gate for _, gates in _GPU_PATTERNS for gate in gates}
        | {*_TF_VERSION_GATES, *_DRIVER_GATES, *_LIBRARY_GATES, *_PYTHON_GATES}
        | {gate for _, _, gates, _ in _VALUES for gate in gates}
        | set(_BITS_GATES)
        | set(_TF_BUILD_GATES)
        | {gate for _, gates, _ in _FRAMEWORK_MARKERS for gate in gates}
    )
)


def _gate(text: str, gates: tuple[str, ...]) -> bool:
    # (map over the bound method runs in C: a generator cost a third of judging a line.)
    return any(map(text.__contains__, gates))


@dataclass
class LogFacts:
    """Everything learned from one log; filled line by line."""

    libraries: dict[str, str] = field(default_factory=dict)  # asked-for library -> CUDA x.y
    versions: dict[str, str] = field(default_factory=dict)  # e.g. cudnn_runtime, cudnn_compiled
    gpus: dict[str, str] = field(default_factory=dict)  # name -> compute capability
    platforms: set[str] = field(default_factory=set)
    tensorflow: str | None = None
    tensorflow_range: str | None = None  # PEP 440 specifier the log's source paths imply
    cudnn: str | None = None  # the cuDNN TensorFlow loaded, decoded (8400 -> 8.4.0)
    driver: str | None = None  # the driver release (libcuda's, nvidia-smi's)
    kernel_module: str | None = None  # the kernel module's release, as TensorFlow reports it
    driver_cuda: str | None = None  # X.Y of the CUDA the driver supports, where only it is shown
    toolkit: str | None = None  # X.Y of the CUDA toolkit installed (nvcc's), not a build's
    # library name -> its CUDA, for the libraries a signature says could not be loaded
    failed_libraries: dict[str, str] = field(default_factory=dict)
    cuda: str | None = None  # X.Y of the CUDA the environment provides (conda, a container)
    torch: str | None = None  # the PyTorch version the log shows, with its local tag
    jaxlib: str | None = None  # the jaxlib version the log shows, with its local tag
    jax_plugin: str | None = None  # the CUDA major of a jax-cudaNN-plugin the log shows
    # tf.sysconfig.get_build_info()'s keys the log prints (cuda_version, cudnn_version,
    # is_cuda_build, cuda_compute_capabilities), as printed
    tensorflow_build: dict[str, str] = field(default_factory=dict)
    python: str | None = None  # X.Y of the interpreter the log shows
    python_bits: str | None = None  # "32" or "64", from the interpreter's banner
    # The compute capabilities a program's build lists its kernels for ("5.0,6.1,8.6"), as ggml
    # prints them; a framework's own list is tensorflow_build's
    program_archs: str | None = None
    # framework (LOG_FRAMEWORKS) -> lines that show it, in the order first seen; a hit of a
    # signature that is one framework's own message counts as such a line
    frameworks: dict[str, int] = field(default_factory=dict)
    # Which line told each fact: the fact's key (an attribute, "platform:NAME", "gpu:NAME",
    # "library:NAME", "framework:NAME", a signature's "ID.GROUP") -> (line number, text) of the
    # line that first gave its value, or changed it. The evidence of the rules' findings.
    sources: dict[str, tuple[int, str]] = field(default_factory=dict)

    def shows(self, fact: str) -> bool:
        """Whether the log shows `fact` (signatures.UNKNOWN_FACTS): what an if_unknown reading
        waits on."""
        if fact == "driver":
            # (Not the kernel module's release: TensorFlow reports it where libcuda itself could
            # not be found, the very case the readings keep open.)
            return self.driver is not None or self.driver_cuda is not None
        if fact == "gpu":
            return bool(self.gpus)
        if fact == "build-cuda":
            # A TensorFlow wheel is built for one CUDA; a torch version says it in its local
            # tag (+cu118); the environment's own CUDA, a build's printed cuda_version; the
            # CUDA libraries it asks for by name (libcudart.so.9.0), as the rules read them.
            return (
                self.cuda is not None
                or bool(self.libraries)
                or self.tensorflow is not None
                or "cuda_version" in self.tensorflow_build
                or "+cu" in (self.torch or "")
                or self.jax_plugin is not None
            )
        if fact == "python":
            return self.python is not None
        raise ValueError(f"not a fact a log may leave open: {fact!r}")

    @property
    def framework(self) -> str:
        """The framework the log is read as: the one most lines show (the first seen of a tie;
        a ctranslate2 traceback also passes through torch's paths less often); "" when none."""
        if not self.frameworks:
            return ""
        most = max(self.frameworks.values())
        return next(name for name, count in self.frameworks.items() if count == most)

    def to_json(self) -> dict[str, Any]:
        return {
            "libraries": dict(self.libraries),
            "expected_cuda": sorted(set(self.libraries.values())),
            "versions": dict(self.versions),
            "gpus": [{"name": n, "compute_capability": c} for n, c in self.gpus.items()],
            "platforms": sorted(self.platforms),
            "tensorflow": self.tensorflow,
            "tensorflow_range": self.tensorflow_range,
            "cudnn": self.cudnn,
            "driver": self.driver,
            "kernel_module": self.kernel_module,
            "driver_cuda": self.driver_cuda,
            "toolkit": self.toolkit,
            "failed_libraries": dict(self.failed_libraries),
            "cuda": self.cuda,
            "torch": self.torch,
            "jaxlib": self.jaxlib,
            "jax_plugin": self.jax_plugin,
            "tensorflow_build": dict(self.tensorflow_build),
            "python": self.python,
            "python_bits": self.python_bits,
            "program_archs": self.program_archs,
            "frameworks": dict(self.frameworks),
            "framework": self.framework or None,
        }


def decode_cudnn(number: str, matrix: Matrix) -> str | None:
    """cudnnGetVersion()'s number as X.Y.Z, by the encoding of the major it decodes to
    (matrix/cudnn.toml version_multiplier: 8400 is 8.4.0, 90300 is 9.3.0); None if none fits."""
    value = int(number)
    for row in matrix.cudnn_majors:
        if value // row.version_multiplier == row.major:
            rest = value % row.version_multiplier
            return f"{row.major}.{rest // 100}.{rest % 100}"
    return None


def library_index(matrix: Matrix) -> dict[str, str]:
    """Library file name -> the CUDA version(s) whose TensorFlow builds ask for it, and the
    CUDA runtime of every toolkit before CUDA 11, whose names carry its major.minor
    (libcudart.so.9.0, cudart64_90.dll: what any framework built with it loads)."""
    index: dict[str, set[str]] = {}
    for library_set in matrix.library_sets:
        versions = {f"{v.release[0]}.{v.release[1]}" for v in library_set.cuda}
        for lib in library_set.libraries:
            for name in (lib.linux, lib.windows):
                if name:
                    index.setdefault(name.lower(), set()).update(versions)
    for toolkit in matrix.toolkits:
        major, minor = toolkit.version.release[:2]
        if major < 11:
            for name in (f"libcudart.so.{major}.{minor}", f"cudart64_{major}{minor}.dll"):
                index.setdefault(name, set()).add(f"{major}.{minor}")
    return {name: "/".join(sorted(v)) for name, v in index.items()}


@record
class LineFacts:
    """What one line shows (LogFactCollector.judge), to be added to a log's facts (apply)."""

    platforms: tuple[str, ...] = ()
    frameworks: tuple[str, ...] = ()  # in _FRAMEWORK_MARKERS order
    gpu: tuple[str, str] | None = None  # (name, compute capability)
    values: tuple[tuple[str, str], ...] = ()  # (LogFacts attribute, value), in _VALUES order
    libraries: tuple[tuple[str, str], ...] = ()  # (name as written, CUDA), as found
    build: tuple[tuple[str, str], ...] = ()  # (get_build_info key, value as printed)


_CONDA_CUDA = re.compile(r"cuda(?P<major>\d{1,2})\.?(?P<minor>\d)(?!\d)|(?P<cpu>cpu)")


def _torch_from_conda(text: str) -> str:
    """conda's "1.10.0   py3.9_cuda11.3_cudnn8.2.0_0" (conda-forge: "cuda112py38h...",
    "cpu_py310h...") as the wheel would name that build: 1.10.0+cu113, +cpu."""
    version, _, build = text.partition(" ")
    version = version.split("\t")[0]
    found = _CONDA_CUDA.search(build)
    if found is None:
        return version
    if found.group("cpu"):
        return f"{version}+cpu"
    return f"{version}+cu{found.group('major')}{found.group('minor')}"


def _torch_from_image(text: str) -> str:
    """PyTorch's image tag "2.1.0-cuda12.1" as the wheel names that build: 2.1.0+cu121."""
    version, _, cuda = text.partition("-cuda")
    return f"{version}+cu{cuda.replace('.', '')}"


def _cuda_from_digits(digits: str) -> str:
    """A package name's CUDA digits as X.Y: 101 is 10.1, 92 is 9.2, 117 is 11.7."""
    return f"{digits[:-1]}.{digits[-1]}"


def _capabilities_from_arch_list(listed: str) -> str:
    """__CUDA_ARCH_LIST__ values as compute capabilities: "500,610,1200" is "5.0,6.1,12.0"."""
    return ",".join(f"{int(v) // 100}.{int(v) % 100 // 10}" for v in listed.split(","))


# Values a line writes otherwise than the facts keep them: (attribute, group) -> the spelling.
_SPELLED = {
    ("cuda", "package"): _cuda_from_digits,
    ("cuda", "post"): _cuda_from_digits,
    ("torch", "conda"): _torch_from_conda,
    ("torch", "image"): _torch_from_image,
    ("program_archs", "ggml"): _capabilities_from_arch_list,
}
# The codes of signatures whose "library" group names a library that could not be loaded.
_NOT_LOADED = frozenset({"cuda-library-missing"})
_KEEP_FIRST = {attribute: keep_first for attribute, _, _, keep_first in _VALUES}


def _digit_gate_places(text: str, mask: bytes, gates: tuple[str, ...]) -> list[int]:
    """The places of the digits of every gate with a digit ("Python 3.", "ctranslate2") that
    the line could hold under its mask: whether such a gate passes hangs on them."""
    shapes = _DIGIT_GATES.get(gates)
    if shapes is None:
        shapes = _DIGIT_GATES[gates] = tuple(
            masked(gate) for gate in gates if any(c.isdigit() for c in gate)
        )
    places: list[int] = []
    for shape in shapes:
        at = mask.find(shape)
        while at != -1:
            if not mask.isascii():
                # (Places in the text, not in its UTF-8: every digit, to be safe.)
                return digit_places(text)
            places += [at + i for i, byte in enumerate(shape) if byte == 0x30]
            at = mask.find(shape, at + 1)
    return places


_DIGIT_GATES: dict[tuple[str, ...], tuple[bytes, ...]] = {}


# Lines judged before the gate screen is built (matcher.LITERAL_SCREEN_AFTER's reason).
LIVE_GATES_AFTER = 64


class _GateScreen:
    """Which groups of gates a line's mask holds a gate of, in one pass (presence.py): a
    group none of whose gates the mask holds passes no gate and pins no digit, so the judge
    skips it; a line of TensorFlow's passed none of some 60 groups, tested one by one."""

    def __init__(self, finder: Presence, groups: list[tuple[tuple[str, ...], ...]]) -> None:
        self._held = finder.held
        self._groups = groups  # by the finder's literal: the groups that gate holds

    @classmethod
    def of(cls) -> _GateScreen | None:
        """The screen of every group of gates; None without google-re2."""
        groups = {
            *(gates for _, gates, _ in _PLATFORM_MARKERS),
            *(gates for _, gates, _ in _FRAMEWORK_MARKERS),
            *(gates for _, gates in _GPU_PATTERNS),
            *(gates for _, _, gates, _ in _VALUES),
            _LIBRARY_GATES,
            _TF_BUILD_GATES,
        }
        owners: dict[str, list[tuple[str, ...]]] = {}
        for group in sorted(groups):
            for gate in group:
                owners.setdefault(gate, []).append(group)
        finder = presence([(gate, False) for gate in owners])
        if finder is None:
            return None
        return cls(finder, [tuple(owned) for owned in owners.values()])

    def live(self, mask: bytes) -> frozenset[tuple[str, ...]] | None:
        """The groups of gates `mask` holds a gate of; None: every group is to be tested."""
        held = self._held(mask)
        if held is None:
            return None
        live: set[tuple[str, ...]] = set()
        for entry in held:
            live.update(self._groups[entry])
        return frozenset(live)


_LIVE_GATES: Deferred[_GateScreen] = Deferred(LIVE_GATES_AFTER, _GateScreen.of)


def live_gates(mask: bytes) -> frozenset[tuple[str, ...]] | None:
    """The groups of gates a line of `mask` holds a gate of (None: test every group)."""
    screen = _LIVE_GATES.get()
    return None if screen is None else screen.live(mask)


T = TypeVar("T", bound=tuple[Any, ...])


def _live_entries(table: tuple[T, ...], at: int, live: frozenset[tuple[str, ...]]) -> tuple[T, ...]:
    """The entries of `table` (whose gates are entry[at]) whose group is live, in order."""
    return tuple(entry for entry in table if entry[at] in live)


@record
class _Plan:
    """What judge() tests on a line whose live groups of gates are known: a line holds the
    gates of a few groups, and asking each of some 35 entries whether its group was one cost
    a tenth of judging a line, so the entries are picked once per set of live groups."""

    platforms: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...]
    frameworks: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...]
    gpus: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]
    values: tuple[tuple[str, re.Pattern[str], tuple[str, ...], bool], ...]
    libraries: bool
    build: bool

    @classmethod
    def of(cls, live: frozenset[tuple[str, ...]] | None) -> _Plan:
        if live is None:
            return _EVERY_GROUP
        plan = _PLANS.get(live)
        if plan is None:
            if len(_PLANS) >= PLANS_KEPT:
                _PLANS.clear()
            plan = _PLANS[live] = cls(
                _live_entries(_PLATFORM_MARKERS, 1, live),
                _live_entries(_FRAMEWORK_MARKERS, 1, live),
                _live_entries(_GPU_PATTERNS, 1, live),
                _live_entries(_VALUES, 2, live),
                _LIBRARY_GATES in live,
                _TF_BUILD_GATES in live,
            )
        return plan


# (Sets of live groups seen in one log are few; the bound keeps a hostile log's memory flat.)
PLANS_KEPT = 1024
_PLANS: dict[frozenset[tuple[str, ...]], _Plan] = {}
_EVERY_GROUP = _Plan(_PLATFORM_MARKERS, _FRAMEWORK_MARKERS, _GPU_PATTERNS, _VALUES, True, True)


class _Readers(dict[int, DigitReader]):
    """How each fact pattern's search depends on a line's digits (envcheck.explain.digits),
    by id(pattern), worked out when first asked for: parsing the patterns cost a tenth of
    explain's start."""

    def __missing__(self, key: int) -> DigitReader:
        pattern = next(p for p in PATTERNS if id(p) == key)
        reader = self[key] = DigitReader(pattern)
        return reader


_READERS = _Readers()


def _markers(
    text: str,
    mask: bytes,
    markers: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...],
    pins: list[int],
) -> tuple[str, ...]:
    """The names of the markers `text` shows; the digits that decided it go to `pins`."""
    shown = []
    for pattern, gates, name in markers:
        pins += _digit_gate_places(text, mask, gates)
        if _gate(text, gates):
            pins += _READERS[id(pattern)].pins(text)
            if pattern.search(text):
                shown.append(name)
    return tuple(shown)


def _values(
    text: str, mask: bytes, entries: tuple[tuple[str, re.Pattern[str], tuple[str, ...], bool], ...]
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, tuple[int, ...]], ...]]:
    """The one-value facts `text` shows, and by value the digits that decided it."""
    values = []
    value_pins = []
    for attribute, pattern, value_gates, _ in entries:
        # ("Python 3." is a gate: whether it passes hangs on the digits where it is.)
        own = _digit_gate_places(text, mask, value_gates)
        if _gate(text, value_gates):
            own += _READERS[id(pattern)].pins(text)
            found = pattern.search(text)
            if found:
                # The first named group that took part is the value, written as the facts
                # keep it where the line writes it otherwise (_SPELLED).
                name = next(n for n, v in found.groupdict().items() if v is not None)
                spell = _SPELLED.get((attribute, name))
                values.append((attribute, spell(found.group(name)) if spell else found.group(name)))
                own += digit_places(text, *found.span(name))
        if own:
            value_pins.append((attribute, tuple(own)))
    return tuple(values), tuple(value_pins)


def _gpu_of(found: re.Match[str]) -> tuple[str, str]:
    """(name, compute capability) from a GPU pattern's groups; "" for what the line does not
    show (a capability the matrix's GPU table gives by the name, a name on another line)."""
    groups = {key: value for key, value in found.groupdict().items() if value is not None}
    names = ("name", "name2", "name3", "name4", "name5", "row", "product", "lspci", "bare")
    name = next((groups[key] for key in names if key in groups), "")
    capabilities = ("cc", "cc2", "cc3", "cc4", "cc5", "cc6")
    capability = next((groups[k] for k in capabilities if k in groups), "")
    if "major" in groups:
        capability = f"{groups['major']}.{groups['minor']}"
    if "sm" in groups:
        capability = f"{groups['sm'][:-1]}.{groups['sm'][-1]}"
    return name.strip(), capability


def _printed_by(hit: LogHit) -> str:
    """The framework a hit's message speaks for: its row's, but JAX for TensorFlow's words
    from jaxlib's vendored copy."""
    framework = hit.signature.framework
    if framework == "tensorflow" and _VENDORED_TENSORFLOW in hit.text:
        return "jax"
    return framework


class LogFactCollector:
    """The facts of one log, line by line: judge() reads what a line shows (a pure function of
    the line, which explain remembers per mask), apply() adds it to the log's facts.

    `steps`, when given, gets one entry per count that grows (a line showing a framework), so
    a run of repeated lines can add the same counts again (envcheck.explain.cycles)."""

    def __init__(self, matrix: Matrix, steps: list[tuple[str, str]] | None = None) -> None:
        self.facts = LogFacts()
        self._matrix = matrix
        self._libraries = library_index(matrix)
        self._masked_libraries = frozenset(masked(name) for name in self._libraries)
        self._range: SpecifierSet | None = None
        self._paths: set[str] = set()  # the _TF_PATH_RANGES applied so far
        self._steps = steps

    def line(self, text: str, number: int = 0) -> None:
        self.apply(self.judge(text)[0], number, text)

    def judge(
        self, text: str, mask: bytes | None = None
    ) -> tuple[LineFacts, list[int], tuple[tuple[str, tuple[int, ...]], ...]]:
        """What `text` shows; the places of the digits that decided it (`mask`: the line's mask,
        digits.masked) but for a value's; and those that decided a value (attribute, places):
        a value kept from the first line that shows it no longer hangs on them once it is
        known. Every pattern is searched whatever the log showed before, so the result holds
        for any log."""
        mask = masked(text) if mask is None else mask
        plan = _Plan.of(live_gates(mask))
        pins: list[int] = []
        platforms = _markers(text, mask, plan.platforms, pins)
        frameworks = _markers(text, mask, plan.frameworks, pins)
        gpu = None
        for pattern, gates in plan.gpus:
            if not _gate(text, gates):
                continue
            pins += _READERS[id(pattern)].pins(text)
            found = pattern.search(text)
            if found:
                gpu = _gpu_of(found)
                for group, value in found.groupdict().items():
                    if value is not None:
                        pins += digit_places(text, *found.span(group))
                break
        values, value_pins = _values(text, mask, plan.values)
        libraries = []
        if plan.libraries and _gate(text, _LIBRARY_GATES):
            for found in _LIBRARY.finditer(text):
                name = found.group()
                if masked(name.lower()) in self._masked_libraries:
                    # (A name no library of the index has under its mask means nothing,
                    # whatever its digits.)
                    pins += digit_places(text, *found.span())
                cuda = self._libraries.get(name.lower())
                if cuda:
                    libraries.append((name, cuda))
        build = []
        if plan.build and _gate(text, _TF_BUILD_GATES):
            pins += _READERS[id(_TF_BUILD)].pins(text)
            for found in _TF_BUILD.finditer(text):
                key = found.lastgroup or ""
                build.append((key, found.group(key)))
                pins += digit_places(text, *found.span(key))
        facts = LineFacts(platforms, frameworks, gpu, values, tuple(libraries), tuple(build))
        return facts, pins, value_pins

    def settled(self, attribute: str) -> bool:
        """Whether no later line can change the value `attribute` (kept from the first line
        that shows it, and known)."""
        return _KEEP_FIRST[attribute] and getattr(self.facts, attribute) is not None

    def apply(self, shown: LineFacts, number: int = 0, text: str = "") -> bool:
        """Add what line `number` (`text`) shows to the log's facts; whether anything but a
        count changed. Only a change records its line (LogFacts.sources), so a line that
        teaches nothing new costs nothing more."""
        facts = self.facts
        sources = facts.sources
        changed = False
        for platform in shown.platforms:
            if platform not in facts.platforms:
                facts.platforms.add(platform)
                sources[f"platform:{platform}"] = (number, text)
                changed = True
        for framework in shown.frameworks:
            if self._shows(framework):
                sources[f"framework:{framework}"] = (number, text)
                changed = True
        if shown.gpu is not None:
            name, capability = shown.gpu
            # (A name alone never forgets the capability another line gave it.)
            if facts.gpus.get(name) != capability and not (not capability and name in facts.gpus):
                facts.gpus[name] = capability
                sources[f"gpu:{name}"] = (number, text)
                changed = True
        for attribute, value in shown.values:
            current = getattr(facts, attribute)
            if _KEEP_FIRST[attribute] and current is not None:
                continue
            if current != value:
                setattr(facts, attribute, value)
                sources[attribute] = (number, text)
                changed = True
        changed = self._build(shown.build, number, text) or changed
        for name, cuda in shown.libraries:
            if facts.libraries.get(name) != cuda:
                facts.libraries[name] = cuda
                sources[f"library:{name}"] = (number, text)
                changed = True
        return changed

    def _build(self, build: tuple[tuple[str, str], ...], number: int, text: str) -> bool:
        changed = False
        for key, value in build:
            if self.facts.tensorflow_build.get(key) != value:
                self.facts.tensorflow_build[key] = value
                self.facts.sources["tensorflow_build"] = (number, text)
                changed = True
        return changed

    def _shows(self, framework: str) -> bool:
        """Count a line (or hit) showing `framework`; whether the framework is new."""
        seen = self.facts.frameworks.get(framework, 0)
        self.facts.frameworks[framework] = seen + 1
        if self._steps is not None:
            self._steps.append(("framework", framework))
        return seen == 0

    def hits(self, hits: Iterable[LogHit]) -> bool:
        """Add what these hits tell; whether anything but a count changed."""
        facts = self.facts
        changed = False
        sources = facts.sources
        for hit in hits:
            where = (hit.line, hit.text)
            framework = _printed_by(hit)
            if framework and self._shows(framework):
                # A message only this framework prints: the line speaks for it.
                sources[f"framework:{framework}"] = where
                changed = True
            encoded = hit.groups.get("cudnn")
            if encoded and encoded.isdigit() and facts.cudnn is None:
                facts.cudnn = decode_cudnn(encoded, self._matrix)
                if facts.cudnn is not None:
                    sources["cudnn"] = where
                    changed = True
            failed = hit.groups.get("library", "") if hit.code in _NOT_LOADED else ""
            cuda = self._libraries.get(failed.lower())
            if cuda and facts.failed_libraries.get(failed) != cuda:
                facts.failed_libraries[failed] = cuda
                sources[f"failed:{failed}"] = where
                changed = True
            if self._tensorflow_path(hit.text):
                sources["tensorflow_range"] = where
                changed = True
            for key in ("runtime", "compiled", "capability", "minimum", "driver", "kernel", "dso"):
                value = hit.groups.get(key)
                if value and facts.versions.get(f"{hit.signature.id}.{key}") != value:
                    facts.versions[f"{hit.signature.id}.{key}"] = value
                    sources[f"{hit.signature.id}.{key}"] = where
                    changed = True
        return changed

    def _tensorflow_path(self, text: str) -> bool:
        if _VENDORED_TENSORFLOW in text:
            return False  # jaxlib's copy: no TensorFlow release
        changed = False
        for path, specifier in _TF_PATH_RANGES:
            if path in text and path not in self._paths:
                # (Narrowing by the same range again changes nothing: each is applied once.)
                self._paths.add(path)
                implied = SpecifierSet(specifier)
                self._range = implied if self._range is None else self._range & implied
                changed = changed or self.facts.tensorflow_range != str(self._range)
                self.facts.tensorflow_range = str(self._range)
        return changed
