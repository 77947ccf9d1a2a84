"""`envcheck explain` on partial input (issue 15, item 5): a message a terminal or a copy wrapped
over two lines, a line cut short, facts the log reveals (the Python that ran, its bitness) used in
the fix, and known bugs scoped by the TensorFlow version the log shows.

The lines are real wording from public logs (the corpus, tests/corpus, and tests/logs); the wraps
are made here, at the places a console of a given width would make them.
"""

from __future__ import annotations

from envcheck.explain.explanation import Explanation, explain_lines
from envcheck.explain.triggers import wrapped
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix

MATRIX = load_matrix(bundled_matrix_dir())

# tensorflow/tensorflow#44869-style dso_loader line (TF 2.3/2.4 wording)
DLOPEN = (
    "2020-11-14 09:40:02.123456: W tensorflow/stream_executor/platform/default/dso_loader.cc:59] "
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory"
)
# TF 2.16.1's dso_loader wording (external/local_tsl), as in tensorflow/tensorflow#63362
DLOPEN_216 = (
    "2024-03-09 19:15:45.018171: W external/local_tsl/tsl/platform/default/dso_loader.cc:67] "
    "Could not load dynamic library 'libcudart.so.12'; dlerror: libcudart.so.12: cannot open "
    "shared object file: No such file or directory"
)
PIP_NONE = (
    "ERROR: Could not find a version that satisfies the requirement tensorflow (from versions: "
    "none)"
)


def explain(lines: list[str]) -> Explanation:
    return explain_lines(lines, MATRIX.signatures, MATRIX, MATRIX.known_bugs)


def codes(explanation: Explanation) -> set[str]:
    return {f.code for f in explanation.findings}


def test_a_message_hard_wrapped_by_a_console_is_still_read() -> None:
    whole = explain([DLOPEN])
    assert "cudnn-missing" in codes(whole)
    for width in (80, 100, 120, 160):
        # A console copies a long line as rows of its width: cut at every `width` characters.
        rows = [DLOPEN[i : i + width] for i in range(0, len(DLOPEN), width)]
        wrapped = explain(rows)
        assert codes(wrapped) >= {"cudnn-missing"}, width


def test_a_message_broken_at_a_space_is_still_read() -> None:
    cut = DLOPEN.index(" cannot open")
    wrapped = explain([DLOPEN[:cut], DLOPEN[cut + 1 :]])
    assert "cudnn-missing" in codes(wrapped)
    (finding,) = [f for f in wrapped.findings if f.code == "cudnn-missing"]
    assert finding.lines == (1,)  # the message starts on line 1


def test_a_line_that_opens_a_record_of_its_own_is_not_read_as_the_tail_of_the_last() -> None:
    # A timestamped logging line, absl's "I0301 ..." header or a traceback's frame begins a
    # record: the line before does not go on there. Read joined, a `docker run` without
    # --gpus and the next record's "cuda" made a container without GPU access.
    command = "$ docker run --rm -it myimage python train.py"
    code = "container-gpu-unavailable"
    assert code in codes(explain(["$ docker run --rm -it", "nvidia/cuda:12.2.0-base nvidia-smi"]))
    for record in (
        "2021-03-01 10:00:00.123456: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:941]"
        " successful NUMA node read from SysFS had negative value (-1)",
        "I0301 10:00:00.123456  1234 cuda_executor.cc:1015] successful NUMA node read",
        '  File "/usr/local/lib/python3.8/dist-packages/cupy/__init__.py", line 3, in <module>',
    ):
        assert code not in codes(explain([command, record])), record


def test_an_indented_continuation_is_joined_without_its_indent() -> None:
    # uv (and pip) indent the rest of a message they wrap; read at a space, the indent goes.
    lines = [
        "  ╰─▶ Because mlx==0.19.3 has no wheels with a matching Python ",
        "      ABI tag and mlx>=0.11.1,<=0.19.0 has no",
    ]
    explanation = explain(lines)
    assert "python-unsupported" in codes(explanation)
    (finding,) = [f for f in explanation.findings if f.code == "python-unsupported"]
    assert finding.lines == (1,)


def test_a_message_wrapped_inside_its_trigger_is_still_read() -> None:
    # Dao-AILab/flash-attention#950 as pasted: the wrap falls at the first space of "undefined
    # symbol: ", so neither line holds that trigger; the scan finds its rest on the second.
    lines = [
        "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined",
        " symbol: _ZN3c104impl3cow11cow_deleterEPv",
    ]
    assert wrapped("undefined symbol: ") == "symbol: "
    assert "framework-conflict" in codes(explain(lines))
    # A bare word after the first space is on too many lines to look for alone.
    assert wrapped("Torch version") == "" and wrapped("CUDA error") == ""


def test_two_unrelated_lines_are_not_joined_into_a_message() -> None:
    explanation = explain(["Traceback (most recent call last):", '  File "train.py", line 3'])
    assert not explanation.findings


def test_the_python_the_log_shows_names_the_releases_for_it() -> None:
    banner = "Python 3.13.0 (main, Oct  7 2024, 05:02:14) [MSC v.1941 64 bit (AMD64)] on win32"
    explanation = explain([banner, PIP_NONE])
    assert explanation.facts.python == "3.13" and explanation.facts.python_bits == "64"
    (finding,) = [f for f in explanation.findings if f.code == "python-unsupported"]
    assert "Python 3.13" in finding.fix
    releases = [r.series for r in MATRIX.releases if any(str(p) == "3.13" for p in r.python)]
    assert releases and f"TensorFlow {releases[0]}" in finding.fix


def test_a_32_bit_python_is_named_in_the_fix() -> None:
    banner = (
        "Python 3.8.10 (tags/v3.8.10:3d8993a, May  3 2021, 11:34:34) [MSC v.1928 32 bit (Intel)]"
    )
    explanation = explain([banner, PIP_NONE])
    (finding,) = [f for f in explanation.findings if f.code == "python-unsupported"]
    assert "32-bit" in finding.fix


def test_a_python_too_new_for_every_release_gets_the_supported_ones() -> None:
    explanation = explain(["Python 3.99.0 (main)", PIP_NONE])
    (finding,) = [f for f in explanation.findings if f.code == "python-unsupported"]
    assert "no TensorFlow release has wheels" in finding.fix


def test_a_known_bug_is_scoped_by_the_version_the_log_shows() -> None:
    bug = "tf-2-16-runpath-misses-pip-cuda"
    url = next(b.url for b in MATRIX.known_bugs if b.id == bug)
    in_range = explain(["tensorflow version: 2.16.1", DLOPEN_216])
    assert url in {e for f in in_range.findings if f.code == "known-bug" for e in f.evidence}
    for version in ("2.21.0", "2.15.1"):
        outside = explain([f"tensorflow version: {version}", DLOPEN_216])
        assert url not in {e for f in outside.findings for e in f.evidence}, version


def test_a_line_cut_mid_sentence_is_still_read() -> None:
    cut = DLOPEN[: DLOPEN.index("dlerror") + 4]  # the public copy ends in "...; dler"
    assert "cudnn-missing" in codes(explain([cut]))


# tensorflow/tensorflow#44869's cuInit line (TF 2.3/2.4 in a container)
CUINIT_NO_DEVICE = (
    "2020-11-16 10:27:31.447431: E tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed "
    "call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
)


def test_no_device_inside_a_container_is_a_container_without_gpu_access() -> None:
    bare = explain([CUINIT_NO_DEVICE])
    assert "container-gpu-unavailable" not in codes(bare)
    for marker in (
        "$ docker run --rm -it tensorflow/tensorflow:latest-gpu python",
        "docker-compose up",
    ):
        inside = explain([marker, CUINIT_NO_DEVICE])
        assert "container" in inside.facts.platforms, marker
        assert "container-gpu-unavailable" in codes(inside), marker
