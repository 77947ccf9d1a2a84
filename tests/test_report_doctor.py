"""The doctor's Markdown report (for bug reports) carries what the text report does."""

from __future__ import annotations

from envcheck.diagnose.doctor import diagnose
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.report.doctor import to_markdown, to_text
from tests.facts_builder import machine

SMOKE = {"status": "ok", "describe": "ok: conv2d, lstm, matmul, xla on GPU:0", "gpus": ["GPU:0"]}


def test_markdown_has_the_smoke_test_and_the_recommendation() -> None:
    report = diagnose(machine(), load_matrix(bundled_matrix_dir()), smoke=SMOKE)
    markdown = to_markdown(report, home="/home/ada", user="ada")
    assert "Smoke test: ok: conv2d, lstm, matmul, xla on GPU:0" in markdown
    assert "<summary>recommendation for this machine</summary>" in markdown
    assert report.recommendation is not None and report.recommendation.candidates
    best = report.recommendation.candidates[0]
    # The same best choice and command as the terminal report shows.
    assert f"TensorFlow {best.tensorflow}" in markdown and best.commands[0] in markdown
    assert best.commands[0] in to_text(report)
    assert "/home/ada" not in markdown
