"""The doctor on a machine without an NVIDIA GPU with tensorflow-cpu 2.21.0 installed and its
smoke test passing (issue 23, point 6): one vocabulary, and no advice to install what is there.

The facts are those `envcheck probe --json` writes for such a machine (the test venv's own
tensorflow-cpu==2.21.0, pyproject's test extra): the CPU build's build_info, no driver, sysfs
without an NVIDIA display device.
"""

from __future__ import annotations

from dataclasses import replace

from envcheck.diagnose.doctor import Report, diagnose
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.report.doctor import to_markdown, to_text
from tests.facts_builder import LINUX, driver, machine, tensorflow

MATRIX = load_matrix(bundled_matrix_dir())
NO_GPU = replace(LINUX, device_nodes=(), nvidia_gpu="absent",
                 nvidia_gpu_evidence=("no NVIDIA display device among the 6 PCI devices",))  # fmt: skip
CPU_TF = tensorflow("2.21.0", "tensorflow-cpu", is_cuda_build=False, cuda_version=None,
                    cudnn_version=None)  # fmt: skip
SMOKE = {"status": "ok", "describe": "all 6 steps passed on CPU:0", "gpus": []}


def _report() -> Report:
    facts = machine(platform=NO_GPU, driver=driver(None, None, "missing"), gpus=(), libraries=(),
                    frameworks=(CPU_TF,))  # fmt: skip
    return diagnose(facts, MATRIX, smoke=SMOKE)


def test_the_installed_first_choice_is_not_to_be_installed_again() -> None:
    report = _report()
    text = to_text(report)
    assert "pip install" not in text, text
    assert "tensorflow-cpu 2.21.0 is installed: nothing to install" in text
    assert "tensorflow-cpu 2.21.0 is installed" in to_markdown(report)


def test_an_older_installed_release_still_gets_the_recommendation() -> None:
    older = tensorflow("2.19.1", "tensorflow-cpu", is_cuda_build=False, cuda_version=None,
                       cudnn_version=None)  # fmt: skip
    facts = machine(platform=NO_GPU, driver=driver(None, None, "missing"), gpus=(), libraries=(),
                    frameworks=(older,))  # fmt: skip
    text = to_text(diagnose(facts, MATRIX, smoke=SMOKE))
    assert 'pip install "tensorflow==2.21.0"' in text
    assert "nothing to install" not in text


def test_a_usage_dependent_known_bug_is_counted_not_repeated_on_every_run() -> None:
    report = _report()
    assert any(f.code == "known-bug" for f in report.findings)  # still in the data
    text = to_text(report)
    assert "[known-bug]" not in text
    assert "1 known bug(s) that matter only for some uses" in text


def test_no_nvidia_gpu_is_said_the_same_way_everywhere() -> None:
    report = _report()
    text = to_text(report)
    assert "no NVIDIA GPU" in report.verdict()
    assert "GPU unknown" not in text and "no NVIDIA driver," not in text
    markdown = to_markdown(report)
    assert "driver missing" not in markdown and "CUDA ?" not in markdown
    assert "no NVIDIA GPU, so no driver needed" in markdown
    # The recommendation's own machine and reasons say it too, in JSON as in text.
    assert report.recommendation is not None
    assert report.recommendation.machine.no_nvidia_gpu
    rejected = report.recommendation.rejected[0].reasons
    assert "this machine has no NVIDIA GPU" in rejected, rejected
    assert "no NVIDIA driver found" not in " ".join(rejected)
