"""The public log corpus (tests/corpus): every case well-formed, and `envcheck explain` right on
at least 95% of its curated topics with no error-level finding on a log whose cause is not the
environment; on its training sets (train-*/, collected blind like the held-out sets) at least
TRAINING_TARGET, with only the listed false errors.

The cases are real logs from public threads, labelled from what each thread established
(tests/corpus/README.md); bench/corpus.py prints the accuracy per class and every miss.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from envcheck.findings import CODES
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from tests.corpus_cases import (
    CORPUS,
    FIELDS,
    HOLDOUTS,
    SEALED,
    Case,
    cases,
    is_training,
    judge,
    read_table,
    tables,
)

MATRIX = load_matrix(bundled_matrix_dir())
_EVERY_CASE = list(cases())
CASES = [case for case in _EVERY_CASE if not is_training(case)]
TRAINING = [case for case in _EVERY_CASE if is_training(case)]
TARGET = 0.95
# The training sets' share when they were last read and learned from: a floor at it, so that a
# change that loses what they taught fails. 2026-12-07: the first thirteen 224/275 (81.5%;
# 172/275 on dcc874e, before anything was learned from them); the next session's twelve more
# (209 logs) brought all twenty-five to 396/484 (81.8%; its twelve scored 135/209 on 1f6bc09,
# before they were read); the session after, nine more (142 logs, 81/142 on 2c325a8 before
# they were read) brought all thirty-four to 517/626 (82.6%); the next, six more (97 logs,
# 43/97 on d50e0f2 before they were read, 72/97 after), then two more (22 logs, 19/22 on d50e0f2
# and after) brought all forty-two to 611/745 (82.0%); the period after, ten more (145 logs,
# 84/145 as each arrived, before it was read) brought all fifty-two to 740/890 (83.1%).
TRAINING_TARGET = 0.81
_URL = re.compile(r"https://[^\s/]+/\S+")


def test_the_held_out_logs_are_not_in_the_corpus() -> None:
    seen = {case.url for case in _EVERY_CASE}  # (one corpus thread may give two logs)
    for case in HELD_OUT:
        assert case.url not in seen, case.url
        seen.add(case.url)


_ROOT = CORPUS.parents[1]
# A GitHub thread as a URL or as the short 'owner/repo#N' the matrix's sources use.
_THREAD_URL = re.compile(r"github\.com/([\w.-]+)/([\w.-]+)/(?:issues|pull|discussions)/(\d+)")
_THREAD_SHORT = re.compile(r"(?<![\w./-])([\w.-]+)/([\w.-]+)#(\d+)")


def _threads(text: str) -> set[tuple[str, str, str]]:
    found = {m.groups() for m in _THREAD_URL.finditer(text)}
    found |= {m.groups() for m in _THREAD_SHORT.finditer(text)}
    return {(owner.lower(), repo.lower(), number) for owner, repo, number in found}


def test_no_sealed_thread_is_cited_anywhere_else_in_the_project() -> None:
    # A sealed set measures logs the knowledge was not written from: a thread the matrix, the
    # docs, the code, the tests or a public corpus cites was read (holdout-3 once held
    # openmm/openmm#3598, cited by the matrix before that set was collected).
    if not SEALED:
        pytest.skip("no held-out set is sealed at present")
    sealed = {
        thread for folder in SEALED for case in cases(folder) for thread in _threads(case.url)
    }
    assert sealed  # the URLs parse
    places = [_ROOT / "README.md", *(_ROOT / "docs").rglob("*.md")]
    for name in ("matrix", "envcheck", "bench", "scripts"):
        places += [p for p in (_ROOT / name).rglob("*") if p.suffix in {".toml", ".py", ".md"}]
    places += (_ROOT / "tests").glob("*.py")
    places += tables(CORPUS)
    for held_out in HOLDOUTS:
        if held_out not in SEALED:
            places += tables(held_out)
    for place in places:
        cited = _threads(place.read_text(encoding="utf-8", errors="replace")) & sealed
        assert not cited, (place, sorted(cited))


def test_the_corpus_is_as_large_and_varied_as_issue_15_asks() -> None:
    assert len(CASES) >= 200
    frameworks = Counter(case.framework for case in CASES)
    assert sum(n for name, n in frameworks.items() if name != "tensorflow") >= 30
    assert sum(not case.environment for case in CASES) >= 20


HELD_OUT = [case for folder in HOLDOUTS for case in cases(folder)]


@pytest.mark.parametrize("case", _EVERY_CASE + HELD_OUT, ids=lambda c: c.name)
def test_every_case_is_complete(case: Case) -> None:
    assert case.log.is_file(), case.log
    assert case.log.read_text(encoding="utf-8").strip(), "an empty log"
    assert _URL.fullmatch(case.url), case.url
    assert case.established.strip() and case.where.strip()
    # A program's own mistake that no code names may expect nothing: it is scored on raising no
    # error alone (tests/corpus/README.md).
    assert case.expect or not case.environment, "an environment case expects at least one code"
    assert set(case.expect) <= CODES, set(case.expect) - CODES
    assert "known-bug" not in case.expect  # added by the tool beside a cause, never alone
    if not case.environment:
        assert set(case.expect) <= {"program-error", "usage-pitfall", "benign-warning"}


def test_every_table_lists_exactly_its_logs_and_known_fields() -> None:
    for table in [*tables(CORPUS), *(t for folder in HOLDOUTS for t in tables(folder))]:
        entries = read_table(table)
        for entry in entries:
            assert set(entry) == FIELDS, (table, entry.get("log"), set(entry) ^ FIELDS)
        listed = [entry["log"] for entry in entries]
        assert len(listed) == len(set(listed)), table
        on_disk = sorted(p.name for p in table.parent.glob("*.log"))
        assert sorted(listed) == on_disk, table


# Logs of the training sets (collected blind, tests/corpus/train-*) whose lines cannot tell the
# program's mistake from the environment's: what made them program errors is said only in their
# threads. Each is an error-level finding on a log whose cause is not the environment; the list
# is exact (a new false error fails, and so does one that is no longer false: remove it here).
KNOWN_FALSE_ERRORS = {
    # TensorFlow's "failed call to cuInit: UNKNOWN ERROR (303)" on a CPU-only cluster node: no
    # driver is the truth, harmless for a job meant for the CPU (the thread); the log does not
    # say the job wanted no GPU, and where one was wanted it is the cause.
    "train-zzg/medaka-214-cuinit-on-cpu-node",
    # "Torch not compiled with CUDA enabled" under a ComfyUI node's .cuda() on macOS: the fix
    # (MPS, not .cuda()) is the one explain gives there, but as framework-cpu-only, the code the
    # doctor's rule gives a Mac's CPU-only PyTorch (one finding for one cause); the thread calls
    # it the node's bug.
    "train-zzb/comfyui-facetools-cuda-call-on-macos",
    # One line, "cuda runtime error (38) : no CUDA-capable device is detected": the script chose
    # GPU 1 on a one-GPU machine (the thread), indistinguishable from a machine with no GPU.
    "train-a/pytorch-mc-gan-script-cuda-id-1-on-one-gpu-machine",
    # "Torch not compiled with CUDA enabled" under a README's .to('cuda') on a MacBook: the log
    # shows no Mac, and on Linux or Windows the same lines are a CPU-only torch installed.
    "train-c/pytorch-mtet-macbook-m1-example-to-cuda-not-compiled",
    # One line, "CUBLAS_STATUS_NOT_INITIALIZED when calling cublasCreate(handle)": token ids past
    # the embedding (the thread); the line is most often GPU memory already taken.
    "train-k/pytorch-skywork-cublas-not-initialized-base-model-special-tokens",
    # NGC's "The NVIDIA Driver was not detected" banner: under WSL 2 older NGC images print it
    # although the GPU works (the thread ran nvidia-smi in the same container); the log shows
    # no WSL, and elsewhere the banner is a container started without GPU access.
    "train-o/docker-wsl2-ngc-tensorflow-driver-not-detected-banner-gpu-works",
    # "CUDA out of memory" on a 4 GB GPU: a bug of that ComfyUI release, fixed by updating it
    # (the thread); the log is a real out-of-memory like any other.
    "train-t/pytorch-comfyui-4gb-oom-fixed-by-update",
    # TensorRT's "Version tag does not match" for a TF-TRT engine built on an x86 GPU and loaded
    # on a Jetson: labelled the engine's portability (a usage matter) by its thread, while the
    # line is the one every engine from another TensorRT release gives (cuda-version-mismatch,
    # as the other threads of that line are labelled).
    "train-t/tensorflow-tftrt-x86-converted-engine-jetson-version-tag",
    # One line, "cuda runtime error (100) : no CUDA-capable device is detected": the project's
    # configuration asked for three GPUs (the thread), as a machine without one reads.
    "train-v/pytorch-redn-cuda-devices-three-gpus-configured-error-100",
    # "all CUDA-capable devices are busy or unavailable" on a cluster's exclusive-process GPUs:
    # the program held the GPU in the parent before its workers started (the thread); the line
    # is what a GPU another process holds gives.
    "train-v/pytorch-safe-gpu-ddp-exclusive-process-busy-or-unavailable",
    # vLLM's "max seq len (131072) is larger than the maximum number of tokens that can be stored
    # in KV cache": labelled a usage matter (set max_model_len) by its thread, while two other
    # threads of the line label it GPU memory too small for the context, as the row reads it.
    "train-za/other-vllm-llama31-8b-2x-rtx3090-max-seq-len-larger-than-kv-cache",
    # xmrig-nvidia's runtime-compiled CryptonightR kernel used intrinsics an sm_30 GPU lacks, a
    # bug the maintainer fixed in the miner (the thread); its "device kernel image is invalid"
    # is what a GPU a build has no kernels for gives.
    "train-zm/other-xmrig-nvidia-cryptonightr-funnelshift-undefined",
    # CUDAdrv.jl asked for "libcuda" on Windows, where the driver's library is nvcuda.dll: a
    # package bug (the thread); the line is what a missing driver library gives.
    "train-zm/other-julia-cudadrv-windows-libcuda-name-bug",
    # Dr.Jit's import notice on a machine kept without a GPU on purpose (the thread): "cuInit
    # failed ... no CUDA-capable device is detected" is what a machine without one reads.
    "train-zm/other-drjit-cuinit-failed-no-cuda-device-notice",
    # XLA's "could not retrieve CUDA device count: CUDA_ERROR_NOT_INITIALIZED" in DeepVariant's
    # GPU container, which its FAQ calls harmless there (the thread); elsewhere the line is a
    # driver that could not start.
    "train-zzx/deepvariant-gpu-container-usual-suspects",
    # vLLM refusing bfloat16 on a Tesla P40 (compute capability 6.1): labelled the program's
    # choice of dtype (the thread's fix was dtype=float16); the GPU's lack of bfloat16 reads the
    # same either way.
    "train-zzx/orpheus-tts-bf16-p40",
}


def _share_and_false_errors(chosen: list[Case], target: float) -> set[str]:
    verdicts = [judge(case, MATRIX) for case in chosen]
    misses = [
        f"{v.case.name}: expected {v.case.expect}, found {v.codes}"
        for v in verdicts
        if not v.correct
    ]
    share = 1 - len(misses) / len(verdicts)
    assert share >= target, f"{share:.1%} right; misses:\n" + "\n".join(misses)
    return {v.case.name for v in verdicts if v.false_error}


def test_explain_is_right_on_at_least_95_percent_and_never_blames_the_environment_wrongly() -> None:
    false_errors = _share_and_false_errors(CASES, TARGET)
    assert not false_errors, sorted(false_errors)


def test_the_training_sets_keep_what_they_taught_with_only_the_listed_false_errors() -> None:
    assert len(TRAINING) >= 600
    false_errors = _share_and_false_errors(TRAINING, TRAINING_TARGET)
    assert false_errors == KNOWN_FALSE_ERRORS, (
        f"new: {sorted(false_errors - KNOWN_FALSE_ERRORS)}, "
        f"no longer false: {sorted(KNOWN_FALSE_ERRORS - false_errors)}"
    )


def test_every_class_that_only_a_log_tells_is_recognised_somewhere() -> None:
    """Each failure class issue 15 added is right on at least one real log."""
    right = {code for v in (judge(c, MATRIX) for c in CASES) if v.correct for code in v.case.expect}
    for code in ("gpu-unusable", "container-gpu-unavailable", "platform-unsupported",
                 "nccl-error", "program-error"):  # fmt: skip
        assert code in right, code
