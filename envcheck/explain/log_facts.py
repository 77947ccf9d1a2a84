"""Facts a log reveals beyond its error messages: which CUDA and cuDNN the TensorFlow that wrote
it expected (from the library names it asked for, via the matrix), versions it printed (cuDNN's
encoded "Loaded cuDNN version 8400" decoded by the matrix), the TensorFlow releases its source
paths imply, GPUs, and the platform (Windows paths, WSL, Colab, a container). Pure: takes lines
and hits."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from packaging.specifiers import SpecifierSet

from envcheck.explain.digits import DigitReader, digit_places, masked
from envcheck.explain.matcher import LogHit
from envcheck.matrix.model import Matrix

# Each pattern with the texts (as logs write them) one of which a line must hold for the pattern
# to be tried: a cheap gate, and the triggers of the big-log scan (envcheck.explain.scanner), so
# both see the same lines.
_PLATFORM_MARKERS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (
        re.compile(r"[A-Za-z]:\\\\?(?:Users|Program Files|Windows|ProgramData)", re.IGNORECASE),
        ("\\Users", "\\users", "\\Program Files", "\\Windows", "\\windows", "\\ProgramData"),
        "windows",
    ),
    (re.compile(r"\.dll\b", re.IGNORECASE), (".dll", ".DLL"), "windows"),
    (
        re.compile(r"/usr/lib/wsl/lib|microsoft-standard-WSL2", re.IGNORECASE),
        ("/usr/lib/wsl/lib", "microsoft-standard-WSL2"),
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
            r"|^(?:Creating|Starting|Recreating) \S+ \.\.\. done",
            re.IGNORECASE,
        ),
        ("docker", "Docker", "--gpus", "nvidia-container", " ... done"),
        "container",
    ),
    # A process forked from a Python program: PyTorch's DataLoader workers, multiprocessing's
    # fork start method (popen_fork, its process.py), PyTorch's own refusal.
    (
        re.compile(
            r"\b_worker_loop\b|DataLoader worker process|popen_fork\.py|forked subprocess"
            r"|multiprocessing[/\\]process\.py"
        ),
        ("_worker_loop", "DataLoader worker", "popen_fork", "forked subprocess", "process.py"),
        "forked-worker",
    ),
    # macOS: a home directory (/Users/NAME/, not C:/Users/), Homebrew's prefix, the
    # python.org framework build, a macOS wheel tag, a dynamic library's suffix, uname.
    (
        re.compile(
            r"(?<![A-Za-z]:)/Users/[^/\s]+/|/opt/homebrew/|/Library/Frameworks/Python\.framework"
            r"|macosx_\d+_\d+_|\.dylib\b|\bDarwin\b"
        ),
        ("/Users/", "/opt/homebrew/", "Python.framework", "macosx_", ".dylib", "Darwin"),
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
_FRAMEWORK_MARKERS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (
        re.compile(
            r"(?<!org_tensorflow/)\btensorflow[/\\](?:core|python|stream_executor|compiler|tsl)\b"
            r"|external/local_(?:xla|tsl)/|\bTensorFlow\b|\bimport tensorflow\b"
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
)
_GPU_GATES = ("compute capability",)
# A GPU named without its compute capability (the matrix's GPU table gives it): nvidia-smi -L
# and collect_env ("GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-...)", "GPU models and
# configuration: GPU 0: NVIDIA GeForce RTX 3090"), and nvidia-smi's table ("|   0  NVIDIA
# GeForce RTX 3090     Off  | 00000000:01:00.0 Off |"; "GeForce GTX 1080" before the 2020
# drivers). A name is a brand's and at most 60 characters.
_BRANDS = r"(?:NVIDIA |Tesla |Quadro |GeForce |TITAN )"
_GPU_NAME = re.compile(
    r"\bGPU \d{1,2}: (?P<name>" + _BRANDS + r"[^()|,]{1,60}?)\s*(?:\(UUID|$)"
    r"|^\|\s{1,6}\d{1,2}\s{1,4}(?P<row>" + _BRANDS + r"[^|]{1,60}?)\s{2,}(?:On|Off)\s{1,6}\|"
)
_GPU_NAME_GATES = (
    *(f": {brand}" for brand in ("NVIDIA ", "Tesla ", "Quadro ", "GeForce ", "TITAN ")),
    "On  |",
    "Off  |",
)
# "tensorflow 2.15.0", "TensorFlow version: 2.15", "tensorflow==2.15.1", "tensorflow-2.15.0-cp311"
_TF_VERSION = re.compile(
    r"(?:tensorflow|TensorFlow)(?: version:?)?[ =_-]{1,3}v?(?P<version>[12]\.\d{1,2}\.\d{1,2})\b"
)
_TF_VERSION_GATES = (*(f"tensorflow{sep}" for sep in " =_-"), "TensorFlow ")
# (torch.utils.collect_env says "Nvidia driver version: 470.82.01".)
_DRIVER = re.compile(
    r"(?:libcuda reported version is|Driver Version|Nvidia driver version):?\s+"
    r"(?P<version>\d{3}\.\d{1,3}(?:\.\d{1,3})?)"
)
_DRIVER_GATES = ("libcuda reported version is", "Driver Version", "Nvidia driver version")
# TensorFlow's driver check prints the kernel module's release beside libcuda's.
_KERNEL = re.compile(r"kernel reported version is:?\s+(?P<version>\d{3}\.\d{1,3}(?:\.\d{1,3})?)")
_KERNEL_GATES = ("kernel reported version is",)
# The CUDA an environment provides for the framework it runs: a conda cudatoolkit package
# ("cudatoolkit 10.2.89 hfd86e86_1", "cudatoolkit-10.2.89-"), an NVIDIA container's banner
# ("CUDA Version 12.2.0", without the colon of nvidia-smi's driver CUDA), collect_env's "CUDA
# used to build PyTorch: 11.7". (nvcc's release is not one: the framework may not use it.)
_CUDA = re.compile(
    r"\bcudatoolkit(?:\s{1,40}|-|==?)(?P<conda>\d{1,2}\.\d{1,2})\b"
    r"|\bCUDA Version (?P<banner>\d{1,2}\.\d{1,2})\.\d"
    r"|CUDA used to build PyTorch: (?P<torch>\d{1,2}\.\d{1,2})\b"
)
_CUDA_GATES = ("cudatoolkit", "CUDA Version ", "CUDA used to build PyTorch")
# The PyTorch installed, as collect_env and a wheel's file name (pip installing it) write it;
# not a requirement (torch==1.3.1+cpu), which may be one pip could not install.
_TORCH_VERSION = re.compile(
    r"(?:PyTorch version: |\btorch(?:-| version:? ))(?P<version>\d\.\d{1,2}(?:\.\d{1,2})?"
    r"(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,8}))?)(?![\w.])"
)
_TORCH_VERSION_GATES = ("PyTorch version: ", "torch-", "torch version")
# The interpreter that ran: its banner ("Python 3.12.1 (tags/...) [MSC v.1937 64 bit (AMD64)]"),
# "Python 3.13.0" in pip's or a report's output, or its library path (".../python3.10/site-").
_PYTHON = re.compile(
    r"\bPython (?P<version>3\.\d{1,2})(?:\.\d{1,2})?\b|/python(?P<path>3\.\d{1,2})/(?:site|dist)-"
)
_PYTHON_GATES = ("Python 3.", "/python3.")
_BITS = re.compile(r"\b(?P<bits>32|64) bit \((?:Intel|AMD64|ARM64)\)")
_BITS_GATES = (" bit (",)
# A name starts where a run of its characters starts: tried from inside the run too, the
# pattern ran over the rest of it from every place (a 65 kB "libcudart.so.aaaa..." line took
# 40 s; issue 24). The leftmost match never starts inside a run, so findall finds the same.
_LIBRARY = re.compile(r"(?<![\w.+-])[\w.+-]+\.(?:so(?:\.\d+)+|dll)")
# One-value facts: (LogFacts attribute, pattern, gates, keep the first value seen or the last).
_VALUES: tuple[tuple[str, re.Pattern[str], tuple[str, ...], bool], ...] = (
    ("tensorflow", _TF_VERSION, _TF_VERSION_GATES, True),
    ("driver", _DRIVER, _DRIVER_GATES, False),
    ("kernel_module", _KERNEL, _KERNEL_GATES, False),
    ("cuda", _CUDA, _CUDA_GATES, True),
    ("torch", _TORCH_VERSION, _TORCH_VERSION_GATES, True),
    ("python", _PYTHON, _PYTHON_GATES, True),
    ("python_bits", _BITS, _BITS_GATES, True),
)
_LIBRARY_GATES = (".so.", ".dll", ".DLL")
# Every regex the collector applies to a line: each must take time linear in the line
# (tests/faults/test_linear_patterns.py runs them on lines built to make them backtrack).
PATTERNS = (
    *(pattern for pattern, _, _ in _PLATFORM_MARKERS),
    *(pattern for pattern, _, _ in _FRAMEWORK_MARKERS),
    _GPU,
    _GPU_NAME,
    *(pattern for _, pattern, _, _ in _VALUES),
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
        | {*_GPU_GATES, *_TF_VERSION_GATES, *_DRIVER_GATES, *_LIBRARY_GATES, *_PYTHON_GATES}
        | {*_KERNEL_GATES, *_CUDA_GATES, *_TORCH_VERSION_GATES, *_GPU_NAME_GATES}
        | set(_BITS_GATES)
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
    cuda: str | None = None  # X.Y of the CUDA the environment provides (conda, a container)
    torch: str | None = None  # the PyTorch version the log shows, with its local tag
    python: str | None = None  # X.Y of the interpreter the log shows
    python_bits: str | None = None  # "32" or "64", from the interpreter's banner
    # framework (LOG_FRAMEWORKS) -> lines that show it, in the order first seen; a hit of a
    # signature that is one framework's own message counts as such a line
    frameworks: dict[str, int] = field(default_factory=dict)
    # Which line told each fact: the fact's key (an attribute, "platform:NAME", "gpu:NAME",
    # "library:NAME", "framework:NAME", a signature's "ID.GROUP") -> (line number, text) of the
    # line that first gave its value, or changed it. The evidence of the rules' findings.
    sources: dict[str, tuple[int, str]] = field(default_factory=dict)

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
            "cuda": self.cuda,
            "torch": self.torch,
            "python": self.python,
            "python_bits": self.python_bits,
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


@dataclass(frozen=True)
class LineFacts:
    """What one line shows (LogFactCollector.judge), to be added to a log's facts (apply)."""

    platforms: tuple[str, ...] = ()
    frameworks: tuple[str, ...] = ()  # in _FRAMEWORK_MARKERS order
    gpu: tuple[str, str] | None = None  # (name, compute capability)
    values: tuple[tuple[str, str], ...] = ()  # (LogFacts attribute, value), in _VALUES order
    libraries: tuple[tuple[str, str], ...] = ()  # (name as written, CUDA), as found


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
    text: str, mask: bytes
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, tuple[int, ...]], ...]]:
    """The one-value facts `text` shows, and by value the digits that decided it."""
    values = []
    value_pins = []
    for attribute, pattern, value_gates, _ in _VALUES:
        # ("Python 3." is a gate: whether it passes hangs on the digits where it is.)
        own = _digit_gate_places(text, mask, value_gates)
        if _gate(text, value_gates):
            own += _READERS[id(pattern)].pins(text)
            found = pattern.search(text)
            if found:
                # The first named group that took part is the value.
                name = next(n for n, v in found.groupdict().items() if v is not None)
                values.append((attribute, found.group(name)))
                own += digit_places(text, *found.span(name))
        if own:
            value_pins.append((attribute, tuple(own)))
    return tuple(values), tuple(value_pins)


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
        pins: list[int] = []
        platforms = _markers(text, mask, _PLATFORM_MARKERS, pins)
        frameworks = _markers(text, mask, _FRAMEWORK_MARKERS, pins)
        gpu = None
        if _gate(text, _GPU_GATES):
            found = _GPU.search(text)
            if found:
                gpu = (found.group("name").strip(), found.group("cc"))
                pins += digit_places(text, *found.span("name"))
                pins += digit_places(text, *found.span("cc"))
        if gpu is None and _gate(text, _GPU_NAME_GATES):
            pins += _READERS[id(_GPU_NAME)].pins(text)
            found = _GPU_NAME.search(text)
            if found:
                group = "name" if found.group("name") is not None else "row"
                gpu = (found.group(group).strip(), "")  # "": the capability is not shown
                pins += digit_places(text, *found.span(group))
        values, value_pins = _values(text, mask)
        libraries = []
        if _gate(text, _LIBRARY_GATES):
            for found in _LIBRARY.finditer(text):
                name = found.group()
                if masked(name.lower()) in self._masked_libraries:
                    # (A name no library of the index has under its mask means nothing,
                    # whatever its digits.)
                    pins += digit_places(text, *found.span())
                cuda = self._libraries.get(name.lower())
                if cuda:
                    libraries.append((name, cuda))
        facts = LineFacts(platforms, frameworks, gpu, values, tuple(libraries))
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
        for name, cuda in shown.libraries:
            if facts.libraries.get(name) != cuda:
                facts.libraries[name] = cuda
                sources[f"library:{name}"] = (number, text)
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
            if hit.signature.framework and self._shows(hit.signature.framework):
                # A message only this framework prints: the line speaks for it.
                sources[f"framework:{hit.signature.framework}"] = where
                changed = True
            encoded = hit.groups.get("cudnn")
            if encoded and encoded.isdigit() and facts.cudnn is None:
                facts.cudnn = decode_cudnn(encoded, self._matrix)
                if facts.cudnn is not None:
                    sources["cudnn"] = where
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
