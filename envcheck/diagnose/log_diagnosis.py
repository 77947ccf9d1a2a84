"""A log is a partial facts file: the facts a log shows (explain.log_facts) as the probe's facts
model, anything the log is silent about unknown, and the doctor's own rules run over them.

A rule's finding carries the log lines that gave the facts it read; a signature's finding and
a rule's finding of the same code are one finding with both evidences. Runs once per log, after
the reading: nothing here is per line. Must not hold a rule of its own (rule_set.RULES is the
one rule set) nor read the machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from packaging.version import InvalidVersion, Version

from envcheck.diagnose import rule_set
from envcheck.diagnose.context import Context
from envcheck.diagnose.library_rules import install_fix
from envcheck.errors import InputError
from envcheck.explain.explanation import Explanation
from envcheck.explain.log_facts import LogFacts
from envcheck.explain.log_findings import MAX_EVIDENCE
from envcheck.findings import Finding, ordered
from envcheck.framework_names import FRAMEWORKS, PROGRAM
from envcheck.matrix.model import Matrix
from envcheck.probe.facts import (
    ANOTHER_VERSION,
    DriverFacts,
    Facts,
    FrameworkFacts,
    GpuFacts,
    LibraryFacts,
    PlatformFacts,
)
from envcheck.probe.frameworks import jax_build, normalize_build_info
from envcheck.versions import ComputeCapability, CudaTarget, DriverVersion

FROM_LOG = "log"  # found_via of every fact read from a log
UNKNOWN = "unknown"  # PlatformFacts.os and .arch where the log does not tell them

# The facts each finding's code is about, by key prefix of LogFacts.sources: their lines are
# the finding's evidence. A code not listed shows the lines of every fact read.
_FACTS_OF_CODE: dict[str, tuple[str, ...]] = {
    "driver-too-old": (
        *("driver", "driver_cuda", "cuda", "framework:", "tensorflow", "tensorflow_build"),
        *("torch", "jaxlib", "jax_plugin", "library:", "gpu:"),
    ),
    "driver-too-new": ("driver", "gpu:"),
    "driver-library-mismatch": ("driver", "kernel_module"),
    "compute-capability-unsupported": (
        *("gpu:", "tensorflow", "tensorflow_build", "torch", "jaxlib", "cuda", "library:"),
        "program_archs",
    ),
    "python-unsupported": ("python", "tensorflow"),
    "windows-native-gpu-unsupported": ("platform:windows", "tensorflow"),
    "framework-cpu-only": ("platform:macos", "framework:", "tensorflow", "torch", "driver", "gpu:"),
    "cudnn-version-mismatch": ("cudnn", "tensorflow", "library:"),
    "cuda-version-mismatch": ("failed:", "cuda", "toolkit", "tensorflow", "torch"),
}


# A signature's findings whose fix is installing a TensorFlow release's CUDA libraries.
_INSTALL_CODES = frozenset(
    {"cuda-library-missing", "cuda-version-mismatch", "cudnn-missing", "cudnn-version-mismatch"}
)


def _os(log: LogFacts) -> str:
    """The OS the log ran on; unknown where it shows none. (An unknown OS reads driver floors
    as Linux's, the lower of the two, so it never raises a finding Windows's would not.)"""
    shown = log.platforms
    for name in ("wsl", "windows", "macos"):
        if name in shown:
            return name
    linux = (
        {"colab", "container"} & shown
        or log.kernel_module is not None
        or any(".so" in name for name in log.libraries)
    )
    return "linux" if linux else UNKNOWN


def _lowest_cuda(log: LogFacts) -> str | None:
    """The oldest CUDA x.y the libraries the log asked for belong to (the lowest driver floor
    of the CUDA the build can be), else the CUDA the environment shows."""
    versions = []
    for cudas in log.libraries.values():
        for text in cudas.split("/"):
            try:
                versions.append(Version(text))
            except InvalidVersion:
                continue
    if versions:
        return str(min(versions))
    return log.cuda


def _torch_tag_cuda(version: str) -> str | None:
    """The CUDA a PyTorch wheel's local tag names: +cu117 is 11.7, +cu92 9.2, +cu130 13.0."""
    _, _, tag = version.partition("+cu")
    if len(tag) < 2 or not tag.isdigit():
        return None
    return f"{tag[:-1]}.{tag[-1]}"


def _tensorflow_build(log: LogFacts) -> dict[str, object]:
    """TensorFlow's build facts: tf.sysconfig.get_build_info() where the log prints it (read as
    the probe reads it), else the CUDA the runtime library names it asked for imply, else the
    CUDA the environment shows; none where the log names its release (the matrix has its row)."""
    if log.tensorflow_build:
        raw: dict[str, object] = {}
        for key, text in log.tensorflow_build.items():
            if key == "is_cuda_build":
                raw[key] = text == "True"
            elif key == "cuda_compute_capabilities":
                raw[key] = [part.strip(" '\"") for part in text.split(",") if part.strip(" '\"")]
            else:
                raw[key] = text
        build = normalize_build_info(raw)
        build.pop("raw", None)
        return build
    cuda = None if log.tensorflow else _lowest_cuda(log)
    return {"cuda_version": cuda} if cuda is not None else {}


def _jax_parts(log: LogFacts) -> list[FrameworkFacts]:
    """JAX's distributions the log shows, with their build facts read as the probe reads them
    (a jaxlib's +cudaNN.cudnnMM tag, a jax-cudaNN-plugin's name)."""
    parts = [FrameworkFacts("jax", "jax", UNKNOWN, None)]
    if log.jaxlib:
        build, via = jax_build("jaxlib", log.jaxlib, None)
        parts.append(FrameworkFacts("jaxlib", "jaxlib", log.jaxlib, None, build, via))
    if log.jax_plugin:
        name = f"jax-cuda{log.jax_plugin}-plugin"
        build, via = jax_build(name, UNKNOWN, None)
        parts.append(FrameworkFacts(name, name, UNKNOWN, None, build, via))
    return parts


def _frameworks(log: LogFacts) -> tuple[FrameworkFacts, ...]:
    """The frameworks the log shows, with the version and build CUDA it shows (else unknown:
    an "unknown" version, which no rule reads as one, and no build facts)."""
    shown = {
        "tensorflow": bool(log.tensorflow or log.tensorflow_build),
        "torch": bool(log.torch),
        "jax": bool(log.jaxlib or log.jax_plugin),
    }
    found: list[FrameworkFacts] = []
    for key in FRAMEWORKS:
        if key not in log.frameworks and not shown[key]:
            continue
        build: dict[str, object] = {}
        version = UNKNOWN
        if key == "tensorflow":
            version = log.tensorflow or UNKNOWN
            build = _tensorflow_build(log)
        elif key == "torch":
            version = log.torch or UNKNOWN
            # The wheel's tag, else the CUDA runtime it asked for, else the environment's.
            cuda = _torch_tag_cuda(version) or _lowest_cuda(log)
            if cuda is not None and not version.endswith("+cpu"):
                build["cuda_version"] = cuda
        else:
            found.extend(_jax_parts(log))
            continue
        found.append(FrameworkFacts(key, key, version, None, build, FROM_LOG if build else None))
    return (*found, *_program(log, found))


def _program(log: LogFacts, judged: list[FrameworkFacts]) -> tuple[FrameworkFacts, ...]:
    """Where the log shows no framework the doctor judges, the program it ran (a framework the
    log is read as, such as PaddlePaddle or CuPy, else an unnamed one) with the CUDA it asked
    for or the environment gave it, and the architectures its build lists where it prints them
    (ggml's ARCHS): the facts model's record of an installed program, which
    driver_rules.program_driver compares with the driver and gpu_architecture with the GPU."""
    cuda = _lowest_cuda(log)
    if judged or (cuda is None and log.program_archs is None):
        return ()
    build: dict[str, object] = {"cuda_version": cuda} if cuda is not None else {}
    if log.program_archs is not None:
        build["cuda_compute_capabilities"] = _targets(log.program_archs)
    name = log.framework or PROGRAM
    return (FrameworkFacts(name, name, UNKNOWN, None, build, FROM_LOG),)


def _targets(capabilities: str) -> list[str]:
    """A program's listed architectures ("5.0,6.1,8.6") as build targets, spelled as the probe
    spells TensorFlow's: kernels for each, PTX of the newest at most (ggml's list does not say
    which are real and which virtual; so only a GPU older than all of them is sure to find no
    kernel, and a newer one is JIT-compiled)."""
    listed = sorted({ComputeCapability.parse(c) for c in capabilities.split(",")})
    targets = [*(CudaTarget("sass", c) for c in listed), CudaTarget("ptx", listed[-1])]
    return [str(target) for target in targets]


def _driver(log: LogFacts) -> DriverFacts:
    state = "unknown"
    if log.driver and log.kernel_module:
        try:
            if DriverVersion.parse(log.driver) != DriverVersion.parse(log.kernel_module):
                state = "mismatch"
        except InputError:
            pass
    # The kernel module's release is the driver's where the log shows no other (a
    # /proc/driver/nvidia/version or dmesg line).
    version = log.driver or log.kernel_module
    return DriverFacts(
        version=version,
        cuda=log.driver_cuda,
        found_via=FROM_LOG if version else None,
        state=state,  # type: ignore[arg-type]
        kernel_module=log.kernel_module,
        user_library=log.driver,
        errors=(),
        steps=(),
    )


def _same_runtime(asked: str, present: str) -> bool:
    """Whether a CUDA runtime of version `present` serves a name asked for as CUDA `asked`
    (one of "11.0/11.2/11.8"): the same major from CUDA 11 (the soname carries the major),
    the same major.minor before (libcudart.so.10.1)."""
    try:
        have = Version(present)
        wanted = [Version(text) for text in asked.split("/")]
    except InvalidVersion:
        return True  # (cannot tell: never a mismatch)
    major = have.release[0]
    return any(
        w.release[0] == major and (major >= 11 or w.release[:2] == have.release[:2]) for w in wanted
    )


def _roles(matrix: Matrix) -> dict[str, str]:
    """Library file name (lower case) -> its role (cudart, cublas, ...), from the matrix."""
    roles = {}
    for library_set in matrix.library_sets:
        for library in library_set.libraries:
            for name in (library.linux, library.windows):
                if name:
                    roles[name.lower()] = library.role
    return roles


def _other_versions(log: LogFacts, matrix: Matrix | None) -> tuple[LibraryFacts, ...]:
    """A library the log could not load, where the CUDA the environment installs (conda's,
    the image's, nvcc's) is another version than the one it belongs to: the file that is
    there is of another version, as the probe records a copy found by another version's name
    (found_via ANOTHER_VERSION). Nothing where the environment's CUDA is not shown."""
    present = log.cuda or log.toolkit
    if matrix is None or present is None:
        return ()
    roles = _roles(matrix)
    found = []
    for name, asked in log.failed_libraries.items():
        role = roles.get(name.lower()) or ("cudart" if "cudart" in name.lower() else None)
        if role is None or _same_runtime(asked, present):
            continue
        where = "the environment's CUDA" if log.cuda else "the CUDA toolkit installed (nvcc)"
        problem = f"is CUDA {present}, not the CUDA {asked} that {name} belongs to"
        found.append(
            LibraryFacts(role, name, where, present, None, False, ANOTHER_VERSION, None, (problem,))
        )
    return tuple(found)


def facts_from_log(log: LogFacts, matrix: Matrix | None = None) -> Facts:
    """The probe's facts model filled from what a log shows (with `matrix`, the libraries it
    could not load where the environment has another CUDA version of them)."""
    os_name = _os(log)
    platform = PlatformFacts(
        os=os_name,
        arch=UNKNOWN,
        python=log.python or "",
        python_bits=int(log.python_bits) if log.python_bits else 0,
        python_executable="",
        wsl="wsl2" if os_name == "wsl" else None,
        container="container" if "container" in log.platforms else None,
        device_nodes=(),
        cuda_visible_devices=None,
        nvidia_visible_devices=None,
    )
    gpus = tuple(
        GpuFacts(index, name, capability or None, None, None, FROM_LOG)
        for index, (name, capability) in enumerate(log.gpus.items())
    )
    libraries = _other_versions(log, matrix)
    if log.cudnn is not None:
        libraries += (
            LibraryFacts("cudnn", "libcudnn", FROM_LOG, log.cudnn, None, True, FROM_LOG, None, ()),
        )
    return Facts(platform, _driver(log), gpus, libraries, _frameworks(log), (), (), 0.0)


def _about(key: str, wanted: str) -> bool:
    """Whether a source key is a wanted fact ("gpu:" wants every "gpu:NAME")."""
    return key.startswith(wanted) if wanted.endswith(":") else key == wanted


def _evidence(finding: Finding, log: LogFacts) -> tuple[tuple[int, str], ...]:
    """The lines that gave the facts a finding of this code is about."""
    wanted = _FACTS_OF_CODE.get(finding.code)
    lines = {
        where
        for key, where in log.sources.items()
        if wanted is None or any(_about(key, w) for w in wanted)
    }
    return tuple(sorted(lines))[:MAX_EVIDENCE]


def _with_lines(finding: Finding, log: LogFacts) -> Finding:
    lines = _evidence(finding, log)
    return replace(
        finding,
        # (A rule's evidence names what a probe read; what a log cannot tell is left out.)
        evidence=tuple(
            dict.fromkeys(
                (*(e for e in finding.evidence if e.strip()), *(text for _, text in lines))
            )
        ),
        lines=tuple(sorted({*finding.lines, *(number for number, _ in lines)})),
    )


def _merged(signature: Finding, rule: Finding) -> Finding:
    """One finding for one cause: the log's words (the signature's message), both fixes (the
    signature's, written for the message, then the rule's, which names the versions and the
    platform the log shows), both evidences, the graver severity."""
    if signature.data.get("reading") == "open":
        # The facts decide what the log only left open: the rule's finding is the cause.
        return rule
    severity = min((signature.severity, rule.severity), key=lambda s: s.rank)
    evidence = tuple(dict.fromkeys((*signature.evidence, *rule.evidence)))[:MAX_EVIDENCE]
    lines = tuple(sorted({*signature.lines, *rule.lines}))
    return replace(
        signature,
        severity=severity,
        evidence=evidence,
        fix=signature.fix if rule.fix in signature.fix else f"{signature.fix} {rule.fix}".strip(),
        lines=lines,
        lines_total=max(signature.lines_total or len(signature.lines), len(lines)),
        data={**rule.data, **signature.data},
    )


def log_rule_findings(log: LogFacts, context: Context) -> list[Finding]:
    """The doctor's rules over the facts a log shows (`context` holds them as the probe's
    model), each finding with the lines it read."""
    found = rule_set.rule_findings(context, rule_set.partial_facts_rules())
    return [_with_lines(finding, log) for finding in found]


def _for_release(finding: Finding, context: Context, framework: str) -> Finding:
    """A signature's finding about TensorFlow's CUDA libraries, with the doctor's install fix
    for the release and OS the log shows (that release's CUDA and cuDNN, not a range)."""
    if (
        finding.code not in _INSTALL_CODES
        or framework != "tensorflow"
        or context.release is None
        or context.os not in ("linux", "wsl", "windows")
    ):
        return finding
    fix = install_fix(context)
    if fix in finding.fix:
        return finding
    where = f"For TensorFlow {context.tensorflow_version} on {context.os}: {fix}"
    return replace(finding, fix=f"{finding.fix} {where}".strip())


def merge_findings(signatures: Sequence[Finding], rules: Sequence[Finding]) -> list[Finding]:
    """The signatures' findings with the rules': one finding per code. Within a severity a
    rule's own finding comes first: what the environment's facts imply explains the messages
    (a driver too old for the build's CUDA is why cuDNN could not start), and is certain where
    a message's reading is a likely cause."""
    merged = list(signatures)
    own = []
    for rule in rules:
        at = next((i for i, f in enumerate(merged) if f.code == rule.code), None)
        if at is None:
            own.append(rule)
        else:
            merged[at] = _merged(merged[at], rule)
    return ordered([*own, *merged])


def reason_over_log(explanation: Explanation, matrix: Matrix) -> Explanation:
    """An explanation with what the doctor's rules conclude from its facts, and the fixes its
    facts narrow."""
    log = explanation.facts
    context = Context(facts_from_log(log, matrix), matrix, None)
    rules = log_rule_findings(log, context)
    signatures = [_for_release(f, context, log.framework) for f in explanation.findings]
    if not rules and signatures == list(explanation.findings):
        return explanation
    return replace(explanation, findings=tuple(merge_findings(signatures, rules)))
