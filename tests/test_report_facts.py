"""The probe's text report (envcheck.report.facts): what a person reads after `envcheck probe`."""

from __future__ import annotations

from dataclasses import replace

from envcheck.probe.facts import ANOTHER_VERSION, LibraryFacts
from envcheck.report.facts import to_text
from tests.facts_builder import LINUX, driver, lib, machine

CUDA13 = "/usr/local/cuda-13.0/lib/libcudart.so.13"


def _another(file: str, path: str = CUDA13) -> LibraryFacts:
    problem = f"libcudart.so.13 is another version: the loader is asked for {file}"
    return lib("cudart", file, path, "13.0.48", selected=False, found_via=ANOTHER_VERSION,
               problems=(problem,))  # fmt: skip


def test_a_file_of_another_version_is_one_row_for_all_the_names_it_stands_beside() -> None:
    # Without a TensorFlow to narrow the search, every CUDA line's libcudart is wanted, and one
    # CUDA 13 libcudart is "another version" of each: one row and one warning, not four.
    names = ("libcudart.so.10.0", "libcudart.so.11.0", "libcudart.so.12")
    facts = machine(
        libraries=(
            *(_another(name) for name in names),
            lib("cudnn", "libcudnn.so.9", "/opt/cudnn/libcudnn.so.9", "9.3.0"),
        )
    )
    text = to_text(facts)
    rows = [line for line in text.splitlines() if CUDA13 in line]
    assert len(rows) == 2, text
    table_row, warning = rows
    assert table_row.split()[:3] == ["libcudart.so.13", "13.0.48", "x86_64"]
    assert table_row.endswith(
        "another version of libcudart.so.10.0, libcudart.so.11.0 or libcudart.so.12"
    )
    assert warning.strip() == (
        f"! {CUDA13} is another version: the loader is asked for libcudart.so.10.0, "
        "libcudart.so.11.0 or libcudart.so.12, never for this file"
    )
    # The library that was found keeps its own row, marked as the loader's choice.
    assert any(line.split()[:2] == ["*", "libcudnn.so.9"] for line in text.splitlines())


def test_only_other_versions_is_not_none_found() -> None:
    text = to_text(machine(libraries=(_another("libcudart.so.12"),)))
    assert "none of the CUDA or cuDNN libraries was found" not in text
    assert f"! {CUDA13} is another version: the loader is asked for libcudart.so.12," in text


def test_a_machine_without_an_nvidia_gpu_is_not_missing_a_driver() -> None:
    facts = machine(
        platform=replace(LINUX, device_nodes=(), nvidia_gpu="absent",
                         nvidia_gpu_evidence=("no NVIDIA display device among 6 PCI devices",)),
        driver=driver(None, None, "missing"), gpus=(),
    )  # fmt: skip
    (line,) = [line for line in to_text(facts).splitlines() if line.startswith("Driver:")]
    assert "missing" not in line
    assert "no NVIDIA GPU" in line
    # With an NVIDIA GPU (or none known), a driver that is not found is missing.
    gpu_machine = machine(driver=driver(None, None, "missing"))
    assert "[missing]" in to_text(gpu_machine)
