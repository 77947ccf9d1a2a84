"""Mistakes in user code (`usage-pitfall`) and the seed's Windows cuDNN log, through `envcheck explain`.

The signatures come from the project's seed notes (tests/seeds/000, 001 and 003: Chinese prose
whose error lines are English) and from public reports. Every signature's single-line samples are
in tests/test_signatures.py SAMPLES (that file checks each signature matches its lines); the
whole-log excerpts are in tests/logs/pitfalls/ (sources in tests/logs/SOURCES.md). Here: what each
hit means (code, severity, the facts its groups hold), that the seed's own line is a sample where
the seed quotes one and a public report's line always is, that no generic line is claimed, and
what `envcheck explain` answers for the seeds' logs, the Windows one included (the same TensorFlow,
CUDA and cuDNN as `envcheck recommend` and the doctor).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from envcheck.diagnose.doctor import diagnose
from envcheck.explain.explanation import Explanation, explain_lines
from envcheck.explain.matcher import LogHit, match_lines
from envcheck.findings import Finding, Severity
from envcheck.matrix.advisories import load_known_bugs
from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.matrix.signatures import load_signatures
from envcheck.recommend.machine import GpuDescription, MachineDescription
from envcheck.recommend.rank import recommend
from envcheck.report.explanation import render
from envcheck.report.formats import Format
from envcheck.versions import DriverVersion, PythonVersion
from tests.facts_builder import LINUX, driver, gpu, machine, tensorflow
from tests.test_signatures import SAMPLES

ROOT = Path(__file__).resolve().parents[1]
LOGS = Path(__file__).resolve().parent / "logs"
PITFALL_LOGS = LOGS / "pitfalls"
SEEDS = Path(__file__).resolve().parent / "seeds"
SEED_FILES = {
    "000": SEEDS / "000_5466ce01e32d439b.txt",
    "001": SEEDS / "001_91d465a9cf916ffd.txt",
    "003": SEEDS / "003_ffdd21011fc4f8ff.txt",
}
MATRIX = load_matrix(bundled_matrix_dir())
SIGNATURES = load_signatures(MATRIX.directory)
BY_ID = {s.id: s for s in SIGNATURES}
KNOWN_BUGS = load_known_bugs(MATRIX.directory)


@dataclass(frozen=True)
class Pitfall:
    seed: str  # the seed note it comes from
    seed_lines: tuple[int, ...]  # lines of that seed the signature matches; () if it quotes none
    severity: Severity


# A mistake in user code is at most a warning: the environment is fine (finding_codes.py), and
# a log whose cause is not the environment must get no error (tests/corpus/README.md).
PITFALLS: dict[str, Pitfall] = {
    "tf1-graph-mixup": Pitfall("000", (), Severity.WARNING),
    "tf1-variable-already-exists": Pitfall("000", (), Severity.WARNING),
    "grappler-function-type-mismatch": Pitfall("001", (), Severity.WARNING),
    "keras-weights-of-unknown-shape": Pitfall("003", (20,), Severity.WARNING),
    "savedmodel-checkpoint-warnings": Pitfall("003", (), Severity.INFO),
    "fit-epoch-length-unknown": Pitfall("003", (), Severity.INFO),
    "fit-generator-steps-required": Pitfall("003", (), Severity.WARNING),
    "generator-not-thread-safe": Pitfall("003", (), Severity.WARNING),
    "xla-ret-check-device-ordinal": Pitfall("003", (311,), Severity.WARNING),
    "heap-corruption-abort": Pitfall("003", (297,), Severity.WARNING),
}

# Signatures whose only sample is the seed's line, and why: the search for a public copy of the
# line found none (the public reports in [sources] quote only the generic TypeError after it).
NO_PUBLIC_LINE = {
    "keras-weights-of-unknown-shape": "tensorflow/tensorflow#42106 shows only the TypeError; "
    "seed 003 is itself a public blog post",
}

# The seed's Windows machine (tests/seeds/003_ffdd21011fc4f8ff.txt): Windows 11, Python 3.9.7, RTX 3060, CUDA 11.6
# installed (so a driver of at least 511.xx; 511.79 is that era's GeForce release), TF 2.8.0.
SEED_PYTHON, SEED_DRIVER, SEED_GPU = "3.9", "511.79", "RTX 3060"


def explain(lines: list[str]) -> Explanation:
    return explain_lines(lines, SIGNATURES, MATRIX, KNOWN_BUGS)


def log_lines(name: str) -> list[str]:
    return (PITFALL_LOGS / name).read_text(encoding="utf-8").splitlines()


def seed_lines(seed: str) -> list[str]:
    return SEED_FILES[seed].read_text(encoding="utf-8").splitlines()


def hits(line: str) -> list[LogHit]:
    return list(match_lines([line], SIGNATURES))


def hit(line: str, signature_id: str) -> LogHit:
    found = [h for h in hits(line) if h.signature.id == signature_id]
    assert found, f"{signature_id} does not match {line!r}"
    return found[0]


def only(explanation: Explanation, code: str) -> Finding:
    found = [f for f in explanation.findings if f.code == code]
    assert len(found) == 1, [f.code for f in explanation.findings]
    return found[0]


def has_error(explanation: Explanation) -> bool:
    return any(f.severity is Severity.ERROR for f in explanation.findings)


def run_explain(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return subprocess.run(
        [sys.executable, "-m", "envcheck", "explain", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# --- the data -------------------------------------------------------------------------------


@pytest.mark.parametrize("signature_id", sorted(PITFALLS))
def test_each_pitfall_is_a_usage_pitfall_with_its_seed_and_a_public_source(
    signature_id: str,
) -> None:
    signature = BY_ID[signature_id]
    pitfall = PITFALLS[signature_id]
    assert signature.code == "usage-pitfall"
    assert not signature.code_when  # known-bug comes only from known_bugs.toml advisories
    assert signature.severity is pitfall.severity
    assert signature.root_cause and not signature.benign
    assert f"seed-{pitfall.seed}" in signature.sources
    assert [s for s in signature.sources if not s.startswith("seed-")], "no public source"


def test_every_other_usage_pitfall_cites_a_public_source() -> None:
    """The seeds' pitfalls are all rows; a row added from the public corpus (tests/corpus) cites
    its public sources instead of a seed (test_signatures checks it matches the corpus's lines)."""
    pitfalls = {s.id: s for s in SIGNATURES if s.code == "usage-pitfall"}
    assert set(PITFALLS) <= set(pitfalls)
    for signature_id in set(pitfalls) - set(PITFALLS):
        sources = pitfalls[signature_id].sources
        assert sources and not any(s.startswith("seed-") for s in sources), signature_id


@pytest.mark.parametrize("signature_id", sorted(PITFALLS))
def test_samples_hold_the_seed_line_where_there_is_one_and_a_public_line(
    signature_id: str,
) -> None:
    pitfall = PITFALLS[signature_id]
    seed = seed_lines(pitfall.seed)
    for number in pitfall.seed_lines:
        assert seed[number - 1] in SAMPLES[signature_id], (signature_id, number)
    every_seed_line = {line for name in SEED_FILES for line in seed_lines(name)}
    public = [line for line in SAMPLES[signature_id] if line not in every_seed_line]
    assert bool(public) is (signature_id not in NO_PUBLIC_LINE), signature_id


@pytest.mark.parametrize("seed", sorted(SEED_FILES))
def test_the_seed_files_match_exactly_their_own_error_lines(seed: str) -> None:
    # The seeds are Chinese prose with code: only their quoted English error lines may match.
    with SEED_FILES[seed].open(encoding="utf-8") as handle:
        found = {(h.line, h.signature.id) for h in match_lines(handle, SIGNATURES)}
    expected = {
        (number, signature_id)
        for signature_id, pitfall in PITFALLS.items()
        if pitfall.seed == seed
        for number in pitfall.seed_lines
    }
    if seed == "003":
        expected.add((255, "cudnn-library-load-failed-windows"))
    assert found == expected


# --- facts and wording ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "signature_id", "groups"),
    [
        (
            SAMPLES["grappler-function-type-mismatch"][0],
            "grappler-function-type-mismatch",
            {"node": "zeros_like_72", "got": "float", "expected": "variant", "input": "0"},
        ),
        (
            SAMPLES["grappler-function-type-mismatch"][2],
            "grappler-function-type-mismatch",
            {"node": "while/enter/_25", "got": "bool", "expected": "int32"},
        ),
        (
            SAMPLES["tf1-variable-already-exists"][0],
            "tf1-variable-already-exists",
            {"variable": "layer_3/kernel"},
        ),
        (SAMPLES["fit-epoch-length-unknown"][0], "fit-epoch-length-unknown", {"step": "634"}),
        (
            SAMPLES["fit-generator-steps-required"][0],
            "fit-generator-steps-required",
            {"argument": "validation_steps"},
        ),
        (
            SAMPLES["savedmodel-checkpoint-warnings"][1],
            "savedmodel-checkpoint-warnings",
            {"name": "LSTMCell"},
        ),
    ],
)
def test_named_groups_hold_the_facts(line: str, signature_id: str, groups: dict[str, str]) -> None:
    found = hit(line, signature_id)
    for key, value in groups.items():
        assert found.groups.get(key) == value, (key, found.groups)
    assert found.code == "usage-pitfall"


def test_messages_name_what_happened() -> None:
    grappler = hit(SAMPLES["grappler-function-type-mismatch"][0], "grappler-function-type-mismatch")
    assert grappler.message == (
        "Grappler could not optimise a tf.function (node zeros_like_72 got float where variant "
        "was expected); it runs unoptimised, so only speed suffers."
    )
    unknown = hit(SAMPLES["fit-epoch-length-unknown"][0], "fit-epoch-length-unknown")
    assert "step 634 of an unknown total" in unknown.message
    # The fix's literal braces survive the template: the path the seed recommends.
    checkpoint = hit(SAMPLES["savedmodel-checkpoint-warnings"][0], "savedmodel-checkpoint-warnings")
    assert "'./checkpoint/weights.{epoch:02d}.h5'" in checkpoint.fix


@pytest.mark.parametrize(
    ("signature_id", "words"),
    [
        ("tf1-graph-mixup", ("reset_default_graph", "tf.Graph().as_default()", "clear_session")),
        ("tf1-variable-already-exists", ("reset_default_graph", "AUTO_REUSE")),
        ("grappler-function-type-mismatch", ("call()", "inputs", "tf.print")),
        ("keras-weights-of-unknown-shape", ("input_shape=(10, 12)", "model.build()", ".keras")),
        ("savedmodel-checkpoint-warnings", (".h5", ".keras")),
        ("fit-epoch-length-unknown", ("steps_per_epoch=", "validation_steps=", "Sequence")),
        ("fit-generator-steps-required", ("steps_per_epoch=", "validation_steps=", "Sequence")),
        ("generator-not-thread-safe", ("keras.utils.Sequence", "tf.data", "workers=1")),
        ("xla-ret-check-device-ordinal", ("jit_compile=False", "CUDA_VISIBLE_DEVICES")),
        ("heap-corruption-abort", ("jit_compile=False", "PYTHONFAULTHANDLER=1")),
    ],
)
def test_fixes_say_what_to_change_in_the_code(signature_id: str, words: tuple[str, ...]) -> None:
    found = hit(SAMPLES[signature_id][0], signature_id)
    for word in words:
        assert word in found.fix, (signature_id, word)
    assert len(found.message) <= 200, found.message


@pytest.mark.parametrize(
    "line",
    [
        # the TypeError after Keras' fan line is generic Python: never claimed alone (seed 003 l. 21)
        "TypeError: int() argument must be a string, a bytes-like object or a number, not 'NoneType'",
        # another XLA RET_CHECK with another cause (a cuDNN problem, public write-up)
        "RET_CHECK failure (tensorflow/compiler/xla/service/gpu/gpu_compiler.cc:618) dnn != nullptr",
        # Keras progress lines that know their total, and the epoch header
        "Epoch 1/10",
        "582/582 [==============================] - 10s 17ms/step - loss: 0.3153",
        "  1/207 [..............................] - ETA: 31:57 - loss: 108.4210",
        # the user's own prints around the seed's crash (seed 003 lines 293-299)
        "index = 45280",
        # TF1 code in a traceback is no error
        "    with tf.Graph().as_default() as current_graph:",
        "        grads = tape.gradient(loss, model.trainable_variables)",
    ],
)
def test_generic_lines_are_not_claimed(line: str) -> None:
    assert not [h for h in hits(line) if h.code == "usage-pitfall"], line


def test_oom_stays_gpu_out_of_memory_and_its_fix_covers_the_loop() -> None:
    # Seed 001's OOM comes from the encoder running in every step of a GradientTape loop, but the
    # OOM line is the same as plain capacity's and no line shows the loop: gpu-out-of-memory.
    oom = SAMPLES["oom-allocating-tensor"][0]
    lines = [
        "Traceback (most recent call last):",
        "    grads = tape.gradient(loss, model.trainable_variables)",
        oom,
    ]
    explanation = explain(lines)
    assert {f.code for f in explanation.findings} == {"gpu-out-of-memory"}
    finding = only(explanation, "gpu-out-of-memory")
    assert finding.lines == (3,)
    assert "GradientTape" in finding.fix and "outside the per-step Python loop" in finding.fix
    assert "seed-001" in BY_ID["oom-allocating-tensor"].sources


# --- whole logs: the seed's Windows log and the recommendation ---------------------------------


def _seed_recommendation() -> tuple[str, str, str]:
    row = GpuIndex.build(MATRIX.gpus).find(SEED_GPU)
    described = MachineDescription(
        os="windows",
        arch="x86_64",
        python=PythonVersion.parse(SEED_PYTHON),
        driver=DriverVersion.parse(SEED_DRIVER),
        gpus=(GpuDescription(row.name, row.compute_capability),),
        found_via={"driver": "--driver"},
    )
    best = recommend(MATRIX, described).candidates[0]
    assert best.kind == "gpu"
    return str(best.tensorflow), str(best.cuda), str(best.cudnn)


def test_seed_windows_log_points_at_the_recommended_configuration() -> None:
    lines = log_lines("seed003_windows_cudnn_193.log")
    assert lines == [seed_lines("003")[254]]  # the seed's line 255, verbatim
    explanation = explain(lines)
    finding = only(explanation, "library-wrong-architecture")
    assert finding.lines == (1,)
    assert finding.message == "cuDNN could not load cudnn_cnn_infer64_8.dll (Windows error 193)."
    # The line alone does not show its framework (CTranslate2, ONNX Runtime and Paddle print
    # it too): the fix is error 193's own remedy, with no TensorFlow advice (issue 20).
    assert "64-bit" in finding.fix and "TensorFlow" not in finding.fix
    assert explanation.facts.platforms == {"windows"}
    bug = only(explanation, "known-bug")
    assert bug.evidence == ("https://github.com/lightvector/KataGo/issues/828",)
    assert "zlibwapi.dll" in bug.fix and "TensorFlow" not in bug.fix
    # With the TensorFlow version the seed's author ran (its line 11), TensorFlow's answer.
    explanation = explain(["TensorFlow version: 2.8.0", *lines])
    finding = only(explanation, "library-wrong-architecture")
    tf, cuda, cudnn = _seed_recommendation()
    assert (tf, cuda, cudnn) == ("2.10.1", "11.2", "8.1")  # tensorflow.toml: 2.10 is the last
    assert f"TensorFlow {tf} with CUDA {cuda} and cuDNN {cudnn}" in finding.fix
    assert "cuDNN 8.1 is the tested one for TF 2.5-2.10" in finding.fix
    assert "WSL2" in finding.fix and "envcheck recommend --os windows" in finding.fix
    assert "64-bit" in finding.fix  # error 193's own remedy stays
    bug = only(explanation, "known-bug")
    assert f"TensorFlow {tf}" in bug.fix and "CUDA 11.2 with cuDNN 8.1" in bug.fix


def test_seed_windows_log_agrees_with_the_doctor() -> None:
    # The doctor on the seed's machine (Windows, Python 3.9, RTX 3060, TF 2.8.0) recommends the
    # same release and versions as explain's fix names.
    platform = replace(LINUX, os="windows", python="3.9.7", device_nodes=())
    facts = machine(
        platform=platform,
        frameworks=(tensorflow("2.8.0", cuda_version="11.2", cudnn_version="8"),),
        libraries=(),
        wheels=(),
        gpus=(gpu("NVIDIA GeForce RTX 3060", "8.6"),),
        driver=driver(SEED_DRIVER, "11.6"),
    )
    report = diagnose(facts, MATRIX)
    assert report.recommendation is not None
    best = report.recommendation.candidates[0]
    log = ["TensorFlow version: 2.8.0", *log_lines("seed003_windows_cudnn_193.log")]
    fix = only(explain(log), "library-wrong-architecture").fix
    assert f"TensorFlow {best.tensorflow} with CUDA {best.cuda} and cuDNN {best.cudnn}" in fix


def test_seed_windows_log_through_the_cli() -> None:
    completed = run_explain(str(PITFALL_LOGS / "seed003_windows_cudnn_193.log"))
    assert completed.returncode == 1, completed.stderr
    text = completed.stdout
    assert text.startswith("cuDNN could not load cudnn_cnn_infer64_8.dll (Windows error 193).")
    assert "ERROR [library-wrong-architecture] (line 1)" in text
    # The line alone does not show TensorFlow: error 193's remedy, not TensorFlow's set-up.
    assert "zlibwapi.dll with the 64-bit build" in text and "TensorFlow" not in text
    assert "From the log: platform: windows" in text


# --- whole logs: the pitfalls -------------------------------------------------------------------


def test_seed_keras_load_log() -> None:
    lines = log_lines("seed003_keras_load_h5.log")
    assert lines == seed_lines("003")[19:21]
    explanation = explain(lines)
    finding = only(explanation, "usage-pitfall")
    assert (finding.lines, finding.severity) == ((1,), Severity.WARNING)
    assert finding.evidence == ("return int(fan_in), int(fan_out)",)
    assert finding.message.startswith("Keras could not create a layer's weights")
    assert [f.code for f in explanation.findings] == ["usage-pitfall"]


def test_seed_xla_crash_log() -> None:
    lines = log_lines("seed003_xla_double_linked_list.log")
    assert lines == seed_lines("003")[292:299]
    explanation = explain(lines)
    finding = only(explanation, "usage-pitfall")
    assert (finding.lines, finding.severity) == ((5,), Severity.WARNING)
    assert "jit_compile=False" in finding.fix
    # No advisory: no report ties this crash to a TensorFlow version range (known_bugs.toml).
    assert [f.code for f in explanation.findings] == ["usage-pitfall"]
    assert explanation.summary() == finding.message


def test_seed_ret_check_log_is_recognised() -> None:
    # tests/logs/seed003_xla_ret_check.log (seed 003 lines 310-314): the RET_CHECK's condition
    # (line 2) names the device-ordinal check; the RET_CHECK line itself names no cause.
    lines = (LOGS / "seed003_xla_ret_check.log").read_text(encoding="utf-8").splitlines()
    explanation = explain(lines)
    finding = only(explanation, "usage-pitfall")
    assert finding.lines == (2,)
    assert finding.message.startswith("XLA's GPU runtime failed an internal check")
    assert "jit_compile=False" in finding.fix


def test_grappler_lines_of_a_public_log_are_one_warning() -> None:
    explanation = explain(log_lines("tf51818_lstm_two_tapes_grappler.log"))
    finding = only(explanation, "usage-pitfall")
    assert (finding.lines, finding.severity) == ((1, 2, 3), Severity.WARNING)
    assert len(finding.evidence) == 3
    assert not has_error(explanation)


def test_savedmodel_warnings_of_a_public_log_are_information() -> None:
    explanation = explain(log_lines("tf54090_lstm_savedmodel_warnings.log"))
    finding = only(explanation, "usage-pitfall")
    assert (finding.lines, finding.severity) == ((1, 2), Severity.INFO)
    assert ".h5" in finding.fix
    assert not has_error(explanation)


def test_generator_threads_of_a_public_log() -> None:
    explanation = explain(log_lines("maskrcnn495_generator_threads.log"))
    finding = only(explanation, "usage-pitfall")
    assert (finding.lines, finding.severity) == ((9,), Severity.WARNING)
    assert "keras.utils.Sequence" in finding.fix
    text = render(explanation, Format.TEXT)
    assert text.startswith("Several threads read one Python generator at once")


def test_an_unknown_epoch_length_alone_is_no_error() -> None:
    # tensorflow/tensorflow#35422: a finite dataset of unknown size shows x/Unknown in epoch 1.
    explanation = explain(["Epoch 1/10", SAMPLES["fit-epoch-length-unknown"][0]])
    finding = only(explanation, "usage-pitfall")
    assert finding.severity is Severity.INFO and finding.lines == (2,)
    assert not has_error(explanation)


def test_the_whole_seed_003_note() -> None:
    explanation = explain(seed_lines("003"))
    assert only(explanation, "library-wrong-architecture").lines == (255,)
    pitfall_lines = {n for f in explanation.findings if f.code == "usage-pitfall" for n in f.lines}
    assert pitfall_lines == {20, 297, 311}
    assert has_error(explanation)


def test_the_pitfall_logs_are_short_and_have_a_source() -> None:
    sources = (LOGS / "SOURCES.md").read_text(encoding="utf-8")
    logs = sorted(PITFALL_LOGS.glob("*.log"))
    assert len(logs) >= 6
    for path in logs:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert 0 < len(lines) < 40, path.name
        assert f"`pitfalls/{path.name}`" in sources, f"{path.name} has no entry in SOURCES.md"
