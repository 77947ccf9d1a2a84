"""pip's list of offered versions read as a fact (envcheck/explain/pip_offers.py, issue 22).

The lines are pip's own, copied from public threads (each names its thread); the wheel spans are
matrix/wheel_platforms.toml's, and TensorFlow's Pythons are tensorflow.toml's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.explain.explanation import explain_lines
from envcheck.findings import Finding
from envcheck.matrix.checks import check_matrix
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.matrix.rows import MatrixDataError
from envcheck.matrix.signatures import load_signatures
from envcheck.matrix.wheel_platforms import FILE, load_wheel_platforms
from tests.test_matrix_validate import _copy, _edit

MATRIX = load_matrix(bundled_matrix_dir())
ROW = "pip-pin-not-offered"

# pytorch/pytorch#127870 (an Intel Mac; a maintainer: expected, macOS x86 builds ended at 2.2)
TORCH_INTEL_MAC = (
    "ERROR: Could not find a version that satisfies the requirement torch==2.3.0 (from versions: "
    "1.7.1, 1.8.0, 1.8.1, 1.9.0, 1.9.1, 1.10.0, 1.10.1, 1.10.2, 1.11.0, 1.12.0, 1.12.1, 1.13.0, "
    "1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2)"
)
# pytorch/pytorch#131766 (the same, with a pin of two numbers)
TORCH_INTEL_MAC_24 = (
    "ERROR: Could not find a version that satisfies the requirement torch==2.4 (from versions: "
    "1.11.0, 1.12.0, 1.12.1, 1.13.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, "
    "2.2.2)"
)
# tensorflow/tensorflow#60202 (Windows, Python 3.9: no Windows wheel after 0.31.0)
TF_IO_WINDOWS = (
    "ERROR: Could not find a version that satisfies the requirement "
    "tensorflow-io-gcs-filesystem==0.32.0 (from versions: 0.23.1, 0.24.0, 0.25.0, 0.26.0, "
    "0.27.0, 0.28.0, 0.29.0, 0.30.0, 0.31.0)"
)
# tensorflow/io#1965 (Ubuntu, Python 3.8): the list ends where no platform's wheels do
TF_IO_PYTHON_38 = (
    "ERROR: Could not find a version that satisfies the requirement "
    "tensorflow-io-gcs-filesystem==0.36.0 (from versions: 0.18.0, 0.19.0, 0.19.1, 0.20.0, "
    "0.21.0, 0.22.0, 0.23.0, 0.23.1, 0.24.0, 0.25.0, 0.26.0, 0.27.0, 0.28.0, 0.29.0, 0.30.0, "
    "0.31.0, 0.32.0, 0.33.0, 0.34.0)"
)
CORPUS = Path(__file__).parent


def _corpus_line(relative: str, needle: str) -> str:
    lines = (CORPUS / relative).read_text(encoding="utf-8").splitlines()
    return next(line for line in lines if needle in line)


def _findings(*lines: str, matrix: Matrix = MATRIX) -> list[Finding]:
    return list(explain_lines(list(lines), matrix.signatures, matrix, matrix.known_bugs).findings)


def _offer_finding(*lines: str) -> Finding:
    found = [
        f for f in _findings(*lines) if f.code in ("python-unsupported", "platform-unsupported")
    ]
    assert found, lines
    return found[0]


@pytest.mark.parametrize(
    ("line", "platform", "fix"),
    [
        (TORCH_INTEL_MAC, "macOS on Intel (x86_64) end (up to 2.2.2)", "torch 2.2.2 or older"),
        (TORCH_INTEL_MAC_24, "macOS on Intel (x86_64) end (up to 2.2.2)", "torch 2.2.2 or older"),
        (TF_IO_WINDOWS, "native Windows end (up to 0.31.0)", "0.31.0"),
        (
            _corpus_line(
                "corpus-holdout-7/pip-alphageometry-jaxlib-046-windows-oldest-0413.log",
                "jaxlib==0.4.6",
            ),
            "native Windows begin (from 0.4.13 on)",
            "jaxlib 0.4.13 or later",
        ),
        (
            _corpus_line("corpus/stack/pip-tensorflow-old-pin-mac-m1.log", "from versions"),
            "macOS on Apple Silicon (arm64) begin (from 2.13.0 on)",
            "TensorFlow 2.13 or later",
        ),
    ],
)
def test_a_list_that_starts_or_ends_where_a_platforms_wheels_do_is_that_platform(
    line: str, platform: str, fix: str
) -> None:
    finding = _offer_finding(line)
    assert finding.code == "platform-unsupported"
    assert f"its wheels for {platform}" in finding.message
    assert fix in finding.fix


def test_a_list_that_starts_after_a_tensorflow_pin_names_the_python_it_points_to() -> None:
    # A Colab of Python 3.12 asked for TensorFlow 2.13: pip offered 2.16 on, the first
    # TensorFlow for 3.12; 2.13 was built for 3.8 to 3.11 (tensorflow.toml).
    line = _corpus_line(
        "corpus-holdout-3/pip-colab-py312-tensorflow-213-no-wheel.log", "from versions"
    )
    finding = _offer_finding(line)
    assert finding.code == "python-unsupported"
    assert "pip offers tensorflow from 2.16.0rc0 to" in finding.message
    assert "2.13.0 is older than all of them" in finding.message
    assert "TensorFlow's first wheels for Python 3.12 are 2.16" in finding.message
    assert "2.13.0 was built for Python 3.8, 3.9, 3.10, 3.11" in finding.message


def test_a_list_that_ends_before_the_pin_elsewhere_is_the_python_version() -> None:
    finding = _offer_finding(TF_IO_PYTHON_38)
    assert finding.code == "python-unsupported"
    assert "0.36.0 is newer than all of them" in finding.message
    assert "TensorFlow's first wheels" not in finding.message  # no Python table for this package


def test_a_pin_inside_the_lists_range_is_not_read_as_a_python_or_platform() -> None:
    # The shape of pip's line around a release that was never published (TensorFlow 2.16.0:
    # 2.16.1 was the first final release): neither the Python nor the platform is why.
    line = (
        "ERROR: Could not find a version that satisfies the requirement tensorflow==2.16.0 "
        "(from versions: 2.16.0rc0, 2.16.1, 2.16.2, 2.17.0)"
    )
    codes = [f.code for f in _findings(line)]
    assert "python-unsupported" not in codes and "platform-unsupported" not in codes


def test_a_span_row_of_another_package_or_a_pin_inside_it_changes_nothing() -> None:
    # jaxlib 0.4.20 lies inside Windows' span: a list starting at 0.4.13 is then no reason.
    line = (
        "ERROR: Could not find a version that satisfies the requirement jaxlib==0.4.20a0 "
        "(from versions: 0.4.13, 0.4.14, 0.4.16)"
    )
    codes = [f.code for f in _findings(line)]
    assert "platform-unsupported" not in codes


def test_project_names_compare_as_the_index_compares_them() -> None:
    # pip prints the name as the requirement spelled it; the spans are kept normalised.
    spelled = TF_IO_WINDOWS.replace(
        "tensorflow-io-gcs-filesystem==", "TensorFlow_IO.GCS-filesystem=="
    )
    finding = _offer_finding(spelled)
    assert finding.code == "platform-unsupported"
    assert "its wheels for native Windows end (up to 0.31.0)" in finding.message


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ('first = "0.4.13"', 'first = "0.4.13"\nlast = "0.4.20"', "give first, last or never"),
        ('last = "2.2.2"\n', "", "give first, last or never"),
        ('first = "0.4.13"', 'first = "0.4.13"\nnever = true', "give first, last or never"),
        (
            'package = "jaxlib"\nkey = "windows-x86_64"',
            'package = "JAXlib"\nkey = "windows-x86_64"',
            "as the index compares names: 'jaxlib'",
        ),
        (
            'package = "torch"\nkey = "macos-x86_64"',
            'package = "torch"\nkey = "mac"',
            "'mac' is not",
        ),
        ('first = "0.4.13"', 'first = "zero"', "'zero' is not a version"),
        ('pythons_from = "3.9"', 'pythons_from = "three"', "'three' is not a version"),
        (
            'key = "macos-x86_64"\nplatform = "macOS"\nnever = true',
            'key = "macos-x86_64"\nplatform = "macOS"\nnever = true\npythons_from = "3.9"',
            "has no Python",
        ),
    ],
)
def test_bad_span_rows_are_refused(tmp_path: Path, old: str, new: str, error: str) -> None:
    directory = _copy(tmp_path)
    _edit(directory / FILE, old, new)
    with pytest.raises(MatrixDataError, match=error):
        load_wheel_platforms(directory)


def test_a_tensorflow_span_must_agree_with_tensorflow_toml(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    assert not [p for p in check_matrix(load_matrix(directory)) if p.file == FILE]
    _edit(directory / FILE, 'first = "2.13.0"', 'first = "2.12.0"')
    problems = [p.message for p in check_matrix(load_matrix(directory)) if p.file == FILE]
    assert problems == [
        "tensorflow on macos-arm64: first 2.12.0, but tensorflow.toml's first release with it "
        "is 2.13.0"
    ]


def test_the_spans_are_read_by_the_explanation_not_hard_coded(tmp_path: Path) -> None:
    # Move torch's Intel-Mac span to 2.1.2: the same line is then the Python's question.
    directory = _copy(tmp_path)
    _edit(directory / FILE, 'last = "2.2.2"', 'last = "2.1.2"')
    moved = load_matrix(directory)
    codes = [f.code for f in _findings(TORCH_INTEL_MAC, matrix=moved)]
    assert "python-unsupported" in codes and "platform-unsupported" not in codes


# --- pip's empty list, read by the platform the log shows -----------------------------------------

# Verbatim: jax-ml/jax#507 (native Windows, 2019: jaxlib had no Windows wheels), and from
# tests/corpus/train-zj: stephansturges/WALDO#15 (an M2 Mac), HumanCompatibleAI/imitation#240.
JAXLIB_NONE = "  Could not find a version that satisfies the requirement jaxlib (from versions: )"
JAXLIB_PIN_NONE = (
    "ERROR: Could not find a version that satisfies the requirement jaxlib~=0.1.47 (from "
    "imitation==0.1.1a0) (from versions: none)"
)
WIN32_BANNER = (
    "Python 3.6.8 |Anaconda, Inc.| (default, Feb 21 2019, 18:30:04) [MSC v.1916 64 bit (AMD64)] "
    "on win32"
)
WIN32_BANNER_310 = WIN32_BANNER.replace("3.6.8", "3.10.11")
ORT_GPU_NONE = (
    "ERROR: Could not find a version that satisfies the requirement onnxruntime_gpu==1.15.1 "
    "(from versions: none)"
)
MAC_PATH = '  File "/Users/ada/miniconda3/envs/py310/lib/python3.10/site-packages/pip/__main__.py"'


def _one(*lines: str, matrix: Matrix = MATRIX) -> Finding:
    found = [f for f in _findings(*lines, matrix=matrix) if f.code.endswith("-unsupported")]
    assert len(found) == 1, [(f.code, f.message) for f in found]
    return found[0]


@pytest.mark.parametrize(
    ("lines", "platform", "span"),
    [
        ((WIN32_BANNER, JAXLIB_PIN_NONE), "native Windows", "begin with 0.4.13"),
        ((MAC_PATH, ORT_GPU_NONE), "macOS", "do not exist"),
        # Unpinned, but Python 3.6: jaxlib's Windows wheels are all for Python 3.9 and later.
        ((WIN32_BANNER, JAXLIB_NONE), "native Windows", "begin with 0.4.13, for Python 3.9"),
    ],
)
def test_an_empty_list_where_the_platform_has_no_wheel_is_the_platform(
    lines: tuple[str, ...], platform: str, span: str
) -> None:
    finding = _one(*lines)
    assert finding.code == "platform-unsupported"
    assert f"ran on {platform}" in finding.message and span in finding.message
    # The line that showed the platform is evidence of the reading.
    assert lines[0] in finding.evidence


@pytest.mark.parametrize(
    "lines",
    [
        (WIN32_BANNER_310, JAXLIB_PIN_NONE.replace("~=0.1.47", ">=0.4.20")),  # Windows has those
        # unpinned: it reaches jaxlib's Windows wheels (0.4.13 on), and Python 3.10 has them
        (JAXLIB_NONE, WIN32_BANNER_310),
        (WIN32_BANNER, ORT_GPU_NONE),  # onnxruntime-gpu has Windows wheels
        (MAC_PATH, JAXLIB_PIN_NONE),  # jaxlib has macOS wheels
    ],
)
def test_an_empty_list_elsewhere_is_still_the_python(lines: tuple[str, ...]) -> None:
    assert _one(*lines).code == "python-unsupported"


def test_an_empty_list_that_shows_no_platform_gives_the_platforms_lacking_as_warnings() -> None:
    # No platform and no Python shown: the Python stays the reading, and Windows, where jaxlib
    # 0.1.x has no wheel, is the other, as a warning that names it.
    findings = [f for f in _findings(JAXLIB_PIN_NONE) if f.code.endswith("-unsupported")]
    assert [(f.code, f.severity.value) for f in findings] == [
        ("python-unsupported", "error"),
        ("platform-unsupported", "warning"),
    ]
    other = findings[1]
    assert other.message.startswith("If this ran on native Windows: jaxlib's wheels there begin")
    assert other.fix.startswith("On native Windows, use jaxlib 0.4.13 or later")
    # onnxruntime-gpu: macOS, where it has no wheel at all.
    codes = [(f.code, f.message[:26]) for f in _findings(ORT_GPU_NONE)]
    assert ("platform-unsupported", "If this ran on macOS: onnx") in codes


# bytedance/LatentSync#55 (Windows, Python 3.10): triton has Linux wheels only.
TRITON_NONE = "ERROR: Could not find a version that satisfies the requirement triton (from versions: none)"  # fmt: skip


def test_platforms_lacking_alike_are_one_warning_naming_each() -> None:
    # Windows and macOS both have no triton at all: one warning names both (two warnings of
    # one code would be one finding, and the second platform lost), each advice by its place.
    findings = [f for f in _findings(TRITON_NONE) if f.code == "platform-unsupported"]
    assert len(findings) == 1 and findings[0].severity.value == "warning"
    message, fix = findings[0].message, findings[0].fix
    assert "native Windows" in message and "macOS" in message and "do not exist" in message
    assert "On native Windows, use the triton-windows package" in fix
    assert "On macOS (Intel or Apple Silicon), use a Linux machine" in fix
    # A log that shows Windows reads the platform as the error, with Windows' advice alone.
    shown = _one(WIN32_BANNER_310, TRITON_NONE)
    assert shown.code == "platform-unsupported" and shown.severity.value == "error"
    assert "triton-windows" in shown.fix and "a Linux machine" not in shown.fix


@pytest.mark.parametrize(
    "lines",
    [
        (WIN32_BANNER_310, JAXLIB_PIN_NONE),  # the platform is shown: Windows, as above
        (MAC_PATH, JAXLIB_PIN_NONE),  # the Python is shown (3.10), and macOS has jaxlib
        # a requirement that reaches jaxlib's Windows wheels
        (JAXLIB_PIN_NONE.replace("~=0.1.47", ">=0.4.20"),),
    ],
)
def test_no_platform_warning_where_the_log_narrows_it(lines: tuple[str, ...]) -> None:
    findings = [f for f in _findings(*lines) if f.code.endswith("-unsupported")]
    assert len(findings) == 1, [(f.code, f.message) for f in findings]


def test_the_empty_list_reading_follows_the_spans(tmp_path: Path) -> None:
    # Without onnxruntime-gpu's macOS rows, the same lines are the Python's question again.
    directory = _copy(tmp_path)
    text = (directory / FILE).read_text(encoding="utf-8")
    text = text.replace('package = "onnxruntime-gpu"', 'package = "onnxruntime-gpu-other"')
    (directory / FILE).write_text(text, encoding="utf-8")
    moved = load_matrix(directory)
    assert _one(MAC_PATH, ORT_GPU_NONE, matrix=moved).code == "python-unsupported"


def test_a_row_read_by_the_platform_needs_its_package_and_spec(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    _edit(directory / "log_signatures.toml", "(?P<spec>(?:[^", "(?P<spc>(?:[^")
    with pytest.raises(MatrixDataError, match="needs groups named package and spec"):
        load_signatures(directory)
