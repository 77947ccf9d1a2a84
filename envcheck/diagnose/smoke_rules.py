"""Findings from a framework's smoke test (TensorFlow, PyTorch, JAX): how the child ended, and
what the framework said on stderr. Judges a SmokeResult; runs nothing.

The framework's own messages are matched with the log signatures (matrix/log_signatures*.toml),
root causes first; a crash or a hang is a finding of its own with the last step reached, named
for the framework and carrying data {"framework": ...}. For TensorFlow the libraries the child
really loaded are compared with the probe's prediction (a model of TensorFlow's loader).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from envcheck.explain.log_findings import findings_from_log
from envcheck.explain.matcher import match_lines
from envcheck.findings import Finding, Severity
from envcheck.matrix.signatures import Signature
from envcheck.probe.facts import LibraryFacts
from envcheck.probe.smoke import SmokeResult

_TAIL_LINES = 5


# What TensorFlow says about CUDA on a machine without a driver is a consequence of that, and the
# probe's driver-missing finding already names the cause ("Could not find cuda drivers", cuInit
# 303 in TF 2.21's normal CPU-only output, docs/facts.md section 8).
_CONSEQUENCES_OF_NO_DRIVER = frozenset({"driver-missing", "no-gpu", "cuda-library-missing"})


# The probe's problems with a file itself (binary_files.py, libraries.py): a loader that maps
# such a file can die with SIGBUS or SIGSEGV. Another version or a missing dependency makes the
# load fail with an error instead, which the log's own lines name.
_DAMAGE = ("truncated", "malformed", "wrong architecture", "ELF file is not", "PE file is not")


def smoke_findings(
    result: SmokeResult,
    signatures: Sequence[Signature],
    predicted: Sequence[LibraryFacts],
    driver_missing: bool = False,
    gpus_expected: int = 0,
) -> list[Finding]:
    # (The smoke test is a process of its own, never a forked worker: rows that count only
    # where a log shows one place or another, Signature.only_on, do not apply to it.)
    lines = result.stderr.splitlines()
    hits = [h for h in match_lines(lines, signatures) if not h.signature.only_on]
    if not any(h.root_cause and h.severity is Severity.ERROR for h in hits):
        # A failed step's own error (the exception the harness caught: PyTorch's "ImportError:
        # libcudnn.so.9: cannot open shared object file") is a log line too, where stderr
        # names no cause: it held nothing of it.
        details = [
            line
            for step in result.steps
            if step.status == "failed"
            for line in step.detail.splitlines()
        ]
        hits += [h for h in match_lines(details, signatures) if not h.signature.only_on]
    if driver_missing:
        # (Without a driver every GPU message that is a consequence is expected: JAX's CUDA
        # plugin failing to initialise, on a machine without a GPU, is no conflict. The
        # harmless notices stay, as notices.)
        hits = [
            h
            for h in hits
            if h.code not in _CONSEQUENCES_OF_NO_DRIVER and (h.signature.root_cause or h.benign)
        ]
    findings = [_with_framework(f, result) for f in findings_from_log(hits)]
    title, data = result.title, {"framework": result.framework}
    tail = tuple(result.stderr.strip().splitlines()[-_TAIL_LINES:])
    findings = _missed_gpus(findings, result, gpus_expected)
    if result.status == "crashed":
        # A copy the loader picks that the probe found damaged (truncated, wrong architecture)
        # is the likely cause of a crash while loading: the finding names it, not "see above".
        damaged = [
            replace(lib, problems=broken)
            for lib in predicted
            if result.framework == "tensorflow" and lib.selected and lib.path
            for broken in [tuple(p for p in lib.problems if p.startswith(_DAMAGE))]
            if broken
        ]
        cause = (
            f"; the probe found the {damaged[0].file} the loader picks damaged: "
            f"{damaged[0].path} ({damaged[0].problems[0]})"
            if damaged
            else ""
        )
        fix = (
            f"Remove or replace {damaged[0].path} (the loader takes it via "
            f"{damaged[0].found_via}), or put a good copy first; then run the doctor again."
            if damaged
            else "Where no other finding names a cause, run the step alone to see the full log "
            f"(python -c 'import {result.framework}; ...')."
        )
        findings.append(
            Finding(
                "smoke-test-crashed",
                Severity.ERROR,
                f"The {title} smoke test crashed: {result.describe()}{cause}.",
                (
                    f"signal: {result.signal or 'none'} (exit code {result.returncode})",
                    f"last step reached: {result.last_step or 'none'}",
                    *(f"{lib.path}: {'; '.join(lib.problems)}" for lib in damaged),
                    *tail,
                ),
                fix,
                data={**data, "damaged": [lib.path for lib in damaged]} if damaged else data,
            )
        )
    elif result.status == "timeout":
        findings.append(
            Finding(
                "smoke-test-timeout",
                Severity.ERROR,
                f"The {title} smoke test hung: {result.describe()}.",
                tail,
                "A first run on a GPU without native kernels can JIT-compile for many minutes: "
                "retry with a longer --smoke-timeout; otherwise a driver or library hangs.",
                data=data,
            )
        )
    elif result.status == "failed" and not any(f.severity is Severity.ERROR for f in findings):
        failed = [s for s in result.steps if s.status == "failed"]
        step = failed[0].name if failed else "run"
        detail = failed[0].detail.splitlines()[0] if failed and failed[0].detail else ""
        findings.append(
            Finding(
                "smoke-test-failed",
                Severity.ERROR,
                f"The {title} smoke test's {step} step failed: "
                f"{(detail or result.describe()).rstrip('.')}",
                tuple(s.detail for s in failed[1:3]) + tail,
                "See the evidence; `envcheck explain FILE` on the program's full output (FILE) may "
                "recognise more.",
                data=data,
            )
        )
    if result.framework == "tensorflow":  # the prediction models TensorFlow's loader only
        findings.extend(_load_mismatches(result, predicted))
    return findings


def _with_framework(finding: Finding, result: SmokeResult) -> Finding:
    """A finding from the framework's log says whose log it was (unless it says already)."""
    if "framework" in finding.data:
        return finding
    return replace(finding, data={**finding.data, "framework": result.framework})


# How each framework is asked for its GPUs, for the evidence of a silent fall back to the CPU.
_GPU_QUESTION = {
    "tensorflow": "tf.config.list_physical_devices('GPU') returned []",
    "torch": "torch.cuda.is_available() returned False",
    "jax": "jax.devices() listed no GPU",
}


def _missed_gpus(findings: list[Finding], result: SmokeResult, expected: int) -> list[Finding]:
    """The probe found GPUs but TensorFlow listed none: it silently ran on the CPU. The log's
    library findings are then the cause (errors, not warnings); without one, say so plainly."""
    imported = any(s.name == "import" and s.status == "ok" for s in result.steps)
    if expected == 0 or not imported or result.gpus:
        return findings
    causes = {
        "cuda-library-missing",
        "cudnn-missing",
        "cuda-version-mismatch",
        "cudnn-version-mismatch",
    }
    escalated = [replace(f, severity=Severity.ERROR) if f.code in causes else f for f in findings]
    if any(f.code in causes for f in escalated):
        return escalated
    escalated.append(
        Finding(
            "no-gpu",
            Severity.ERROR,
            f"{result.title} listed no GPU although the driver reports {expected}: "
            "it runs on the CPU.",
            (_GPU_QUESTION.get(result.framework, "no GPU listed"),),
            "Run the doctor's findings' fixes above; with TF_CPP_MAX_VLOG_LEVEL=1 TensorFlow "
            "logs which library it could not load."
            if result.framework == "tensorflow"
            else "Run the doctor's findings' fixes above; the smoke test's stderr (--json) "
            "shows what the framework said.",
            data={"framework": result.framework},
        )
    )
    return escalated


def _load_mismatches(result: SmokeResult, predicted: Sequence[LibraryFacts]) -> list[Finding]:
    """library-load-mismatch: the child loaded another copy than the probe said would load."""
    loaded = {_stem(p): os.path.realpath(p) for p in result.loaded_libraries}
    findings = []
    for lib in predicted:
        if not lib.selected or not lib.path:
            continue
        expected = os.path.realpath(lib.path)
        actual = loaded.get(_stem(expected))
        if actual is not None and actual != expected:
            findings.append(
                Finding(
                    "library-load-mismatch",
                    Severity.WARNING,
                    f"TensorFlow loaded {actual}, not the {lib.file} envcheck predicted "
                    f"({lib.path}); something changed the search order (a preloaded copy, "
                    "LD_PRELOAD, or another framework imported first).",
                    (f"predicted: {lib.path} ({lib.found_via})", f"loaded: {actual}"),
                    "Check LD_PRELOAD and imports that load CUDA first; remove the extra copy.",
                )
            )
    return findings


def _stem(path: str) -> str:
    """libcudnn.so.8.9.7 -> libcudnn.so (the library, whatever its version)."""
    return re.sub(r"\.so(\.\d+)*$", ".so", Path(path).name).lower()
