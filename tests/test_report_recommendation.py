"""The recommendation as text: what every listed choice shares is said once."""

from __future__ import annotations

from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix
from envcheck.recommend.machine import MachineDescription
from envcheck.recommend.rank import recommend
from envcheck.report.recommendation import to_text
from envcheck.versions import PythonVersion


def test_a_note_every_choice_shares_is_printed_once() -> None:
    matrix = load_matrix(bundled_matrix_dir())
    machine = MachineDescription(
        os="linux", arch="x86_64", python=PythonVersion.parse("3.11"), driver=None, gpus=(),
        searched=("nvml", "libcuda"),
    )  # fmt: skip
    result = recommend(matrix, machine, None)
    shared = "no GPU: no NVIDIA driver found (looked at: nvml, libcuda)"
    assert all(shared in c.notes for c in result.candidates)  # the data keeps it per choice
    text = to_text(result, show_all=True)
    listed = text.split("Rejected:")[0]
    assert listed.count(shared) == 1
    assert f"  (all of them) {shared}" in listed


def test_a_reason_every_rejection_shares_is_printed_once() -> None:
    matrix = load_matrix(bundled_matrix_dir())
    machine = MachineDescription(
        os="linux", arch="x86_64", python=PythonVersion.parse("3.11"), driver=None, gpus=(),
        searched=("nvml",),
    )  # fmt: skip
    result = recommend(matrix, machine, None)
    shared = "no NVIDIA driver found (looked at: nvml)"
    assert len(result.rejected) > 1
    assert all(shared in r.reasons for r in result.rejected)  # the data keeps it per release
    rejected = to_text(result).split("Rejected:")[1]
    assert rejected.count(shared) == 1
    assert f"  (all of them) {shared}" in rejected
    for rejection in result.rejected:  # each release keeps its own reasons
        own = [r for r in rejection.reasons if r != shared]
        assert f"  TensorFlow {rejection.tensorflow}: {'; '.join(own) or 'as above'}" in rejected
