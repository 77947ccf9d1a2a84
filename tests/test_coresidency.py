"""Frameworks sharing one environment (issue 20): the files under nvidia/ that two wheels write,
as the frameworks child reads them from RECORDs, and the framework-conflict findings about them
and about pins on one wheel.

The child is run for real (a subprocess over a site directory written here); the rules are run
on facts. tests/layouts/*-records.json are snapshots of real environments
(scripts/snapshot_layout.py --records): they are rebuilt here as dist-info directories and sparse
files of the real sizes, so the ordinary suite reproduces what the doctor says about them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import runpy
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from envcheck.diagnose.context import Context
from envcheck.diagnose.coresidency_rules import overwritten_files, pin_conflicts
from envcheck.diagnose.doctor import diagnose
from envcheck.diagnose.pins import marker_environment, pins
from envcheck.findings import Finding, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.probe.copy_owners import site_claims
from envcheck.probe.facts import (
    Facts,
    FactsFileError,
    FileOwner,
    FrameworkFacts,
    SharedFileFacts,
    WheelFacts,
    facts_from_json,
)
from envcheck.probe.frameworks import EnvironmentScan, claims_from_child, probe_environment
from tests.facts_builder import machine, tensorflow

LAYOUTS = Path(__file__).parent / "layouts"
CHILD = Path(__file__).resolve().parents[1] / "envcheck" / "probe" / "children" / "frameworks.py"
SITE = "/venv/lib/python3.11/site-packages"
CUDNN = "nvidia/cudnn/lib/libcudnn.so.9"


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


@pytest.fixture(scope="module")
def child() -> dict[str, Any]:
    """The child's functions, for the parts that are pure (it runs as a script elsewhere)."""
    return runpy.run_path(str(CHILD), run_name="frameworks_child")


def digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_dist(
    site: Path,
    name: str,
    version: str,
    rows: Sequence[str] = (),
    requires: Sequence[str] = (),
) -> None:
    """A dist-info directory: METADATA with Requires-Dist lines, RECORD with `rows`."""
    dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(parents=True)
    headers = [f"Name: {name}", f"Version: {version}", *(f"Requires-Dist: {r}" for r in requires)]
    (dist_info / "METADATA").write_text("\n".join(["Metadata-Version: 2.1", *headers]) + "\n")
    own = f"{dist_info.name}/METADATA,,"
    (dist_info / "RECORD").write_text("\n".join([*rows, own]) + "\n")


def row(path: str, data: bytes) -> str:
    return f"{path},{digest(data)},{len(data)}"


def put(site: Path, path: str, data: bytes) -> None:
    target = site / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def scan(site: Path) -> EnvironmentScan:
    return probe_environment(paths=[str(site)])


def only(scan_result: EnvironmentScan) -> SharedFileFacts:
    assert len(scan_result.shared_files) == 1, scan_result.shared_files
    return scan_result.shared_files[0]


def matches(shared: SharedFileFacts) -> dict[str, bool | None]:
    return {owner.distribution: owner.matches for owner in shared.owners}


# --- the child: RECORDs and the files on disk ---------------------------------------------------


def test_two_wheels_one_file_different_sizes_are_told_by_size(tmp_path: Path) -> None:
    cu12, cu13 = b"cudnn for CUDA 12, longer", b"cudnn for CUDA 13"
    write_dist(tmp_path, "nvidia-cudnn-cu13", "9.24.0.43", [row(CUDNN, cu13)])
    write_dist(tmp_path, "nvidia-cudnn-cu12", "9.28.0.42", [row(CUDNN, cu12)])
    put(tmp_path, CUDNN, cu12)
    result = scan(tmp_path)
    shared = only(result)
    assert (shared.path, shared.location, shared.size) == (CUDNN, str(tmp_path), len(cu12))
    assert shared.compared == "size"
    assert matches(shared) == {"nvidia-cudnn-cu12": True, "nvidia-cudnn-cu13": False}
    assert [o.size for o in shared.owners] == [len(cu12), len(cu13)]
    assert result.errors == ()


def test_same_size_copies_are_told_by_hash(tmp_path: Path) -> None:
    ours, theirs = b"A" * 64, b"B" * 64
    write_dist(tmp_path, "nvidia-nccl-cu12", "2.32.3", [row("nvidia/nccl/lib/libnccl.so.2", ours)])
    write_dist(
        tmp_path, "nvidia-nccl-cu13", "2.30.7", [row("nvidia/nccl/lib/libnccl.so.2", theirs)]
    )
    put(tmp_path, "nvidia/nccl/lib/libnccl.so.2", theirs)
    shared = only(scan(tmp_path))
    assert shared.compared == "hash"
    assert matches(shared) == {"nvidia-nccl-cu12": False, "nvidia-nccl-cu13": True}


def test_identical_bytes_match_both_owners(tmp_path: Path) -> None:
    header = b"#define CUDNN_MAJOR 9\n"
    for name in ("nvidia-cudnn-cu12", "nvidia-cudnn-cu13"):
        write_dist(tmp_path, name, "9.0", [row("nvidia/cudnn/include/cudnn_version.h", header)])
    put(tmp_path, "nvidia/cudnn/include/cudnn_version.h", header)
    shared = only(scan(tmp_path))
    assert (shared.compared, set(matches(shared).values())) == ("hash", {True})


def test_one_owner_intact_is_not_listed_and_a_changed_size_is(tmp_path: Path) -> None:
    good, bad = b"intact", b"was this"
    write_dist(
        tmp_path,
        "nvidia-cublas-cu12",
        "12.9.3.13",
        [
            row("nvidia/cublas/lib/libcublas.so.12", good),
            row("nvidia/cublas/lib/libcublasLt.so.12", bad),
        ],
    )
    put(tmp_path, "nvidia/cublas/lib/libcublas.so.12", good)
    put(tmp_path, "nvidia/cublas/lib/libcublasLt.so.12", b"now something longer")
    shared = only(scan(tmp_path))
    assert shared.path == "nvidia/cublas/lib/libcublasLt.so.12"
    assert (shared.compared, matches(shared)) == ("size", {"nvidia-cublas-cu12": False})


def test_missing_file_of_two_owners(tmp_path: Path) -> None:
    # pip uninstall of one owner removes the file the other still lists.
    for name, data in (("nvidia-cudnn-cu12", b"12"), ("nvidia-cudnn-cu13", b"13")):
        write_dist(tmp_path, name, "9.0", [row(CUDNN, data)])
    (tmp_path / "nvidia").mkdir()
    shared = only(scan(tmp_path))
    assert (shared.compared, shared.size) == ("missing", None)
    assert set(matches(shared).values()) == {False}


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_a_symlink_at_the_path_is_not_followed(tmp_path: Path) -> None:
    data = b"the real bytes"
    write_dist(tmp_path, "nvidia-cudnn-cu12", "9.0", [row(CUDNN, data)])
    write_dist(tmp_path, "nvidia-cudnn-cu13", "9.0", [row(CUDNN, data)])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(data)
    (tmp_path / CUDNN).parent.mkdir(parents=True)
    (tmp_path / CUDNN).symlink_to(elsewhere)
    shared = only(scan(tmp_path))
    assert (shared.compared, shared.size) == ("not a regular file", None)
    assert set(matches(shared).values()) == {False}


def test_a_site_without_nvidia_is_not_read(tmp_path: Path) -> None:
    write_dist(tmp_path, "nvidia-cudnn-cu12", "9.0", [row(CUDNN, b"x")])
    write_dist(tmp_path, "nvidia-cudnn-cu13", "9.0", [row(CUDNN, b"y")])
    assert scan(tmp_path).shared_files == ()  # no nvidia/ folder: no file of theirs is there


def test_bad_record_rows_are_errors_and_the_good_ones_count(tmp_path: Path) -> None:
    data = b"library"
    bad_rows = [
        "nvidia/../../../etc/passwd,sha256=abc,10",  # leaves site-packages
        "nvidia/cudnn/lib/x.so,sha256=abc,ten",  # size not a number
        "nvidia/cudnn/lib/y.so,shake_128=abc,3",  # not a fixed-length hash
        "nvidia/cudnn/lib/\0.so,sha256=abc,3",  # a NUL in the name
        "nvidia/cudnn/lib/w.so,sha256=abc",  # two fields
        "nvidia//double.so,,",
    ]
    write_dist(tmp_path, "nvidia-cudnn-cu12", "9.0", [*bad_rows, row(CUDNN, data)])
    write_dist(tmp_path, "nvidia-cudnn-cu13", "9.0", [row(CUDNN, b"other, longer bytes")])
    put(tmp_path, CUDNN, data)
    result = scan(tmp_path)
    assert matches(only(result)) == {"nvidia-cudnn-cu12": True, "nvidia-cudnn-cu13": False}
    record_errors = [e for e in result.errors if "RECORD" in e]
    assert len(record_errors) == 4  # three shown, then the count of the rest
    assert record_errors[-1].endswith(": 3 more bad rows")


def test_record_rows_parse(child: dict[str, Any]) -> None:
    errors: list[str] = []
    text = "\n".join(
        [
            "nvidia/a.so,sha256=AAAA==,12",
            "nvidia/b.h,,",
            "torch/lib/c.so,sha256=BBBB,3",  # not under nvidia/: not read at all
            "nvidia/\\d.so,sha256=CCCC,1",
            "nvidia/e.so,sha256=DDDD,\uff11\uff12",  # fullwidth digits are not a size
        ]
    )
    rows = child["record_rows"](text, "RECORD", errors)
    assert rows == [("nvidia/a.so", "sha256", "AAAA", 12), ("nvidia/b.h", "", "", None)]
    assert len(errors) == 2 and all(e.startswith("RECORD: row ") for e in errors)


@pytest.mark.parametrize(
    ("line", "row"),
    [
        ("nvidia/a.so,sha256=AAAA,12", ("nvidia/a.so", "sha256", "AAAA", 12)),
        ("nvidia/a.so,,", ("nvidia/a.so", "", "", None)),
        ("nvidia/a.so,sha256=AAAA,12,extra", None),  # four fields
        ("nvidia/a.so", None),
        ("nvidia/a,b.so,sha256=AAAA,1", None),  # the comma splits the name, as csv does
        ('nvidia/"a,b.so",sha256=AAAA,1', None),  # a quote inside a field is no quoting
        ('nvidia/a.so,"sha256=AAAA",1', ("nvidia/a.so", "sha256", "AAAA", 1)),  # quoted
        ('nvidia/a.so,"sha256=A,B",1', ("nvidia/a.so", "sha256", "A,B", 1)),
        ("nvidia/a.so, sha256=AAAA,1", None),  # " sha256" is no hash name
        ("nvidia/a.so,sha256=AAAA,1,", None),
    ],
)
def test_record_rows_split_as_csv_does(
    child: dict[str, Any], line: str, row: tuple[str, str, str, int | None] | None
) -> None:
    # Rows without quotes are split by hand (a RECORD has ~1,000 rows under nvidia/); what csv
    # makes of each row is the answer either way.
    assert child["record_rows"](line, "RECORD", []) == ([row] if row else [])


@pytest.mark.parametrize(
    "text",
    [
        "a,1\nneedle,2\nb,3\n",
        "needle,1\r\nx\r\nneedle again,2",
        "x\rneedle\ry",
        "no match here\n",
        "a\x0bneedle\x0cb\nneedle\u2028c\n",  # line breaks only splitlines knows
        "needle",
        "\nneedle\n\nneedleneedle\n",
    ],
)
def test_record_lines_are_splitlines_lines(child: dict[str, Any], text: str) -> None:
    expected = [line for line in text.splitlines() if "needle" in line]
    assert child["lines_containing"](text, "needle") == expected


def test_hashing_stays_within_its_budget(child: dict[str, Any], tmp_path: Path) -> None:
    data = b"C" * 100
    owners = [
        ("nvidia-a", "1", CUDNN, "sha256", digest(data)[7:], 100),
        ("nvidia-b", "1", CUDNN, "sha256", digest(b"D" * 100)[7:], 100),
    ]
    put(tmp_path, CUDNN, data)
    budget = [99]
    over = child["check_file"](tmp_path / CUDNN, owners, budget)
    assert over["compared"].startswith("unknown: over the")
    assert [o["matches"] for o in over["owners"]] == [None, None]
    assert budget == [99]
    budget = [100]
    within = child["check_file"](tmp_path / CUDNN, owners, budget)
    assert within["compared"] == "hash" and budget == [0]
    assert [o["matches"] for o in within["owners"]] == [True, False]


# --- the child's claims: who lists each file under nvidia/ (for the doctor's copy owners) ------


def claim_site(site: Path) -> None:
    """Two cuDNN wheels claiming one file, quoted and odd rows, a CRLF RECORD, a RECORD without
    rows under nvidia/, and one past the 4 MiB the doctor reads of a RECORD."""
    write_dist(site, "nvidia-cudnn-cu13", "9.24.0.43", [row(CUDNN, b"13"), '"nvidia/x,y.h",,'])
    write_dist(site, "nvidia-cudnn-cu12", "9.28.0.42", [row(CUDNN, b"12"), "nvidia/a.so,md5=x,7"])
    write_dist(site, "tensorflow", "2.21.0", ["tensorflow/x.py,,"])
    crlf = site / "nvidia_nccl_cu12-2.32.3.dist-info"
    crlf.mkdir()
    (crlf / "RECORD").write_bytes(b"nvidia/nccl/lib/libnccl.so.2,sha256=abc,12\r\nz,,\r\n")
    big = site / "nvidia_big-1.0.dist-info"
    big.mkdir()
    filler = b"nvidia/big/f,sha256=d,1\n" * (5 * 1024 * 1024 // 24)
    (big / "RECORD").write_bytes(filler + b"nvidia/big/past_the_limit.so,,\n")
    put(site, CUDNN, b"12")


def test_the_scan_child_sends_the_claims_the_doctor_would_read(tmp_path: Path) -> None:
    # The doctor takes who lists each file under nvidia/ from the scan child instead of reading
    # every RECORD again: the child's answer must be what site_claims reads, row for row.
    claim_site(tmp_path)
    claims = scan(tmp_path).claims[str(tmp_path)]
    assert claims == site_claims(str(tmp_path))
    assert [c[0] for c in claims[CUDNN]] == [
        "nvidia-cudnn-cu12 9.28.0.42",
        "nvidia-cudnn-cu13 9.24.0.43",
    ]
    assert "nvidia/big/past_the_limit.so" not in claims  # past 4 MiB, as the doctor reads


@pytest.mark.parametrize("odd", ["hidden dist-info", "linked RECORD", "RECORD a directory"])
def test_a_site_the_child_cannot_read_as_the_doctor_does_is_left_to_the_doctor(
    tmp_path: Path, odd: str
) -> None:
    claim_site(tmp_path)
    if odd == "hidden dist-info":  # fnmatch's *.dist-info lists it; the scan skips it
        write_dist(tmp_path / "h", "nvidia-hidden", "1.0", [row("nvidia/h.so", b"h")])
        (tmp_path / "h" / "nvidia_hidden-1.0.dist-info").rename(tmp_path / ".hidden-1.0.dist-info")
    elif odd == "linked RECORD":  # the scan never follows a link; the doctor's read does
        write_dist(tmp_path / "l", "nvidia-linked", "1.0", [row("nvidia/l.so", b"l")])
        linked = tmp_path / "nvidia_linked-1.0.dist-info"
        linked.mkdir()
        (linked / "RECORD").symlink_to(tmp_path / "l" / "nvidia_linked-1.0.dist-info" / "RECORD")
    else:
        (tmp_path / "nvidia_dir-1.0.dist-info" / "RECORD").mkdir(parents=True)
    result = scan(tmp_path)
    assert str(tmp_path) not in result.claims
    if odd != "RECORD a directory":
        assert any(
            path.startswith(("nvidia/h.so", "nvidia/l.so")) for path in site_claims(str(tmp_path))
        )


def test_malformed_claims_from_a_child_leave_that_site_to_the_doctor() -> None:
    good = {
        "nvidia_a-1.dist-info": ["nvidia/a.so,sha256=d,3"],
        "nvidia_b-2.dist-info": ["nvidia/a.so,,", "nvidia/b.so"],
    }
    sites = {"/good": good, "/rows": {"x.dist-info": [3]}, "/odd": [], "/int": {"x": ["n,,\u00b2"]}}
    assert claims_from_child({"nvidia_claims": sites}) == {
        "/good": {
            "nvidia/a.so": [("nvidia-a 1", "d", 3), ("nvidia-b 2", "", None)],
            "nvidia/b.so": [("nvidia-b 2", "", None)],
        }
    }


# Opt-in: a folder of real virtual environments (each with bin/python), such as the ones
# bench/frameworks.py measures.
REAL_VENVS = os.environ.get("ENVCHECK_REAL_VENVS")


@pytest.mark.skipif(not REAL_VENVS, reason="opt-in: ENVCHECK_REAL_VENVS=a folder of venvs")
def test_claims_on_real_installs_are_site_claims() -> None:
    pythons = sorted(Path(REAL_VENVS or "").glob("*/bin/python"))
    assert pythons
    for python in pythons:
        result = probe_environment(str(python))
        for site, claims in result.claims.items():
            assert claims == site_claims(site), site


# --- the facts file ------------------------------------------------------------------------------


def shared(
    path: str = CUDNN,
    owners: Sequence[tuple[str, str, bool | None]] = (
        ("nvidia-cudnn-cu12", "9.28.0.42", True),
        ("nvidia-cudnn-cu13", "9.24.0.43", False),
    ),
    location: str = SITE,
) -> SharedFileFacts:
    return SharedFileFacts(
        location, path, 137432, "size", tuple(FileOwner(n, v, 1, m) for n, v, m in owners)
    )


def test_shared_files_round_trip_through_a_facts_file() -> None:
    facts = machine(shared_files=(shared(),))
    data = json.loads(json.dumps(facts.to_json()))
    assert facts_from_json(data) == facts


def test_a_facts_file_from_before_shared_files_still_loads() -> None:
    data = json.loads(json.dumps(machine().to_json()))
    del data["shared_files"]
    for wheel in data["wheels"]:
        del wheel["requires"]
    facts = facts_from_json(data)
    assert facts.shared_files == () and facts.wheels[0].requires == ()


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda f: f["owners"][0].update(matches="yes"), "shared_files[0].owners[0].matches"),
        (lambda f: f.update(size="big"), "shared_files[0].size"),
        (lambda f: f.update(owners=[1]), "shared_files[0].owners"),
        (lambda f: f.pop("path"), "shared_files[0].path"),
    ],
)
def test_shared_files_are_type_checked(change: Any, where: str) -> None:
    data = json.loads(json.dumps(machine(shared_files=(shared(),)).to_json()))
    change(data["shared_files"][0])
    with pytest.raises(FactsFileError, match=re.escape(where)):
        facts_from_json(data)


# --- the rules -----------------------------------------------------------------------------------

TF = replace(
    tensorflow("2.21.0"),
    requires=(
        'nvidia-cudnn-cu12<10.0,>=9.3.0.75; extra == "and-cuda"',
        'nvidia-nccl-cu12<3.0,>=2.27.7; extra == "and-cuda"',
    ),
)
TORCH = FrameworkFacts(
    "torch",
    "torch",
    "2.14.1",
    SITE,
    {"cuda_version": "13.0"},
    requires=(
        'cuda-toolkit[cublas,cudart]==13.0.3; platform_system == "Linux"',
        'nvidia-cudnn-cu13==9.24.0.43; platform_system == "Linux"',
    ),
)
ANY = "(sys_platform == 'linux' or sys_platform == 'win32')"
TOOLKIT = WheelFacts(
    "cuda-toolkit",
    "13.0.3.0",
    SITE,
    (
        f"nvidia-cublas==13.1.1.3.*; {ANY} and extra == 'cublas'",
        f"nvidia-cuda-runtime==13.0.96.*; {ANY} and extra == 'cudart'",
        f"nvidia-npp==13.0.1.2.*; {ANY} and extra == 'npp'",
        "nvidia-cufile==1.15.1.6.*; sys_platform == 'win32' and extra == 'cublas'",
    ),
)
TF_TORCH_WHEELS = (
    WheelFacts("nvidia-cudnn-cu12", "9.28.0.42", SITE),
    WheelFacts("nvidia-cudnn-cu13", "9.24.0.43", SITE),
    WheelFacts("nvidia-cublas", "13.1.1.3", SITE),
    WheelFacts("nvidia-npp", "13.0.1.2", SITE),
    WheelFacts("nvidia-cufile", "1.15.1.6", SITE),
    TOOLKIT,
)


def test_pins_follow_cuda_toolkit_extras_and_markers() -> None:
    facts = machine(frameworks=(TF, TORCH), wheels=TF_TORCH_WHEELS)
    found = {name: [p.text() for p in wanted] for name, wanted in pins(facts).items()}
    assert found == {
        "nvidia-cudnn-cu12": ["tensorflow 2.21.0 requires nvidia-cudnn-cu12<10.0,>=9.3.0.75"],
        "cuda-toolkit": ["torch 2.14.1 requires cuda-toolkit[cublas,cudart]==13.0.3"],
        # npp: an extra torch did not ask for; cufile: a Windows-only marker; cuda-runtime: not
        # installed.
        "nvidia-cublas": [
            "torch 2.14.1 requires cuda-toolkit[cublas,cudart]==13.0.3, which requires "
            "nvidia-cublas==13.1.1.3.*"
        ],
        "nvidia-cudnn-cu13": ["torch 2.14.1 requires nvidia-cudnn-cu13==9.24.0.43"],
    }


def test_marker_environment_is_the_probed_machines() -> None:
    windows = machine()
    windows = replace(windows, platform=replace(windows.platform, os="windows", python="3.12.1"))
    environment = marker_environment(windows)
    assert environment["sys_platform"] == "win32" and environment["platform_machine"] == "AMD64"
    assert environment["python_version"] == "3.12"


def test_tensorflow_and_torch_overwriting_cudnn(matrix: Matrix) -> None:
    facts = machine(frameworks=(TF, TORCH), wheels=TF_TORCH_WHEELS, shared_files=(shared(),))
    (finding,) = overwritten_files(Context(facts, matrix, None))
    assert finding.severity is Severity.ERROR
    assert "nvidia-cudnn-cu12 9.28.0.42 (TensorFlow 2.21.0's)" in finding.message
    assert "nvidia-cudnn-cu13 9.24.0.43 (PyTorch 2.14.1's)" in finding.message
    assert "the bytes there are nvidia-cudnn-cu12 9.28.0.42's" in finding.message
    assert "so PyTorch 2.14.1 runs on cuDNN" in finding.message
    assert dict(finding.data) == {
        "frameworks": ["tensorflow", "torch"],
        "library": "libcudnn.so.9",
        "requirements": [
            "tensorflow 2.21.0 requires nvidia-cudnn-cu12<10.0,>=9.3.0.75",
            "torch 2.14.1 requires nvidia-cudnn-cu13==9.24.0.43",
        ],
        "installed": "nvidia-cudnn-cu12 9.28.0.42",
        "overwritten": ["nvidia-cudnn-cu13 9.24.0.43"],
        "files": [CUDNN],
        "constraints": [],
    }
    assert finding.fix.startswith("Keep TensorFlow and PyTorch in separate virtual environments")
    assert "nvidia-cudnn-cu13 (CUDA 13 wheels)" in finding.fix
    assert '.venv-torch/bin/python -m pip install "torch==2.14.1"' in finding.fix
    assert '"tensorflow[and-cuda]==2.21.0"' in finding.fix


def test_the_overwritten_owner_only_a_leftover_is_a_warning_with_a_working_order(
    matrix: Matrix,
) -> None:
    # Only TensorFlow: the cu13 wheel is a leftover no framework pins, and lost its files.
    facts = machine(frameworks=(TF,), wheels=TF_TORCH_WHEELS, shared_files=(shared(),))
    (finding,) = overwritten_files(Context(facts, matrix, None))
    assert finding.severity is Severity.WARNING
    # Uninstalling the leftover removes the shared files too: the reinstall must come after.
    assert finding.fix == (
        "python -m pip uninstall -y nvidia-cudnn-cu13 && python -m pip install "
        '--force-reinstall --no-deps "nvidia-cudnn-cu12==9.28.0.42"'
    )
    assert finding.data["constraints"] == ["nvidia-cudnn-cu12==9.28.0.42"]


def test_the_needed_owner_overwritten_by_a_leftover_is_an_error(matrix: Matrix) -> None:
    owners = (("nvidia-cudnn-cu12", "9.28.0.42", False), ("nvidia-cudnn-cu13", "9.24.0.43", True))
    facts = machine(frameworks=(TF,), wheels=TF_TORCH_WHEELS, shared_files=(shared(owners=owners),))
    (finding,) = overwritten_files(Context(facts, matrix, None))
    assert finding.severity is Severity.ERROR
    assert "so TensorFlow 2.21.0 runs on cuDNN" in finding.message
    assert finding.fix.startswith("python -m pip uninstall -y nvidia-cudnn-cu13 && ")


def test_identical_bytes_are_no_finding(matrix: Matrix) -> None:
    same = (("nvidia-cudnn-cu12", "9.28.0.42", True), ("nvidia-cudnn-cu13", "9.24.0.43", True))
    facts = machine(
        frameworks=(TF, TORCH), wheels=TF_TORCH_WHEELS, shared_files=(shared(owners=same),)
    )
    assert overwritten_files(Context(facts, matrix, None)) == []


def test_one_owner_changed_file(matrix: Matrix) -> None:
    lone = shared(owners=(("nvidia-cudnn-cu13", "9.24.0.43", False),))
    facts = machine(frameworks=(TORCH,), wheels=TF_TORCH_WHEELS, shared_files=(lone,))
    (finding,) = overwritten_files(Context(facts, matrix, None))
    assert finding.message.startswith(
        f"{CUDNN} (cuDNN) is not the copy nvidia-cudnn-cu13 9.24.0.43 (PyTorch 2.14.1's) installed"
    )
    assert finding.severity is Severity.ERROR
    assert finding.fix == (
        'python -m pip install --force-reinstall --no-deps "nvidia-cudnn-cu13==9.24.0.43"'
    )


def test_files_removed_by_uninstalling_the_other_owner(matrix: Matrix) -> None:
    # pip uninstall -y nvidia-cudnn-cu13 removes every file its RECORD lists: cu12's too.
    gone = replace(
        shared(owners=(("nvidia-cudnn-cu12", "9.28.0.42", False),)), size=None, compared="missing"
    )
    facts = machine(frameworks=(TF,), wheels=TF_TORCH_WHEELS[:1], shared_files=(gone,))
    (finding,) = overwritten_files(Context(facts, matrix, None))
    assert finding.message == (
        f"{CUDNN} (cuDNN), installed by nvidia-cudnn-cu12 9.28.0.42 (TensorFlow 2.21.0's), is "
        "missing, so TensorFlow 2.21.0 cannot load cuDNN from there."
    )
    assert finding.evidence[1].startswith(f"{CUDNN}: missing on disk; nvidia-cudnn-cu12")
    # No file is there to be anyone's copy: the line says what was recorded, no more.
    assert "its copy" not in finding.evidence[1]
    assert finding.fix == (
        'python -m pip install --force-reinstall --no-deps "nvidia-cudnn-cu12==9.28.0.42"'
    )


def _pinning(tf_pin: str, torch_pin: str, installed: str) -> Facts:
    tf = replace(TF, requires=(f'{tf_pin}; extra == "and-cuda"',))
    torch = replace(TORCH, requires=(torch_pin,))
    return machine(
        frameworks=(tf, torch), wheels=(WheelFacts("nvidia-cudnn-cu12", installed, SITE),)
    )


def test_exact_pins_that_cannot_both_hold(matrix: Matrix) -> None:
    facts = _pinning("nvidia-cudnn-cu12==9.3.0.75", "nvidia-cudnn-cu12==9.1.0.70", "9.1.0.70")
    (finding,) = pin_conflicts(Context(facts, matrix, None))
    assert finding.message == (
        "nvidia-cudnn-cu12 9.1.0.70 meets the pins of PyTorch 2.14.1 but not of TensorFlow 2.21.0"
        "; the pins cannot both hold: TensorFlow 2.21.0 needs exactly 9.3.0.75, which PyTorch "
        "2.14.1's ==9.1.0.70 excludes."
    )
    assert finding.data["constraints"] == []
    assert "separate virtual environments" in finding.fix


def test_an_exact_pin_inside_the_other_range_is_the_version_set(matrix: Matrix) -> None:
    facts = _pinning("nvidia-cudnn-cu12<10,>=9.3", "nvidia-cudnn-cu12==9.5.1.17", "9.10.2.21")
    (finding,) = pin_conflicts(Context(facts, matrix, None))
    assert finding.severity is Severity.ERROR
    assert "nvidia-cudnn-cu12==9.5.1.17 meets every framework's pin" in finding.message
    assert finding.data["constraints"] == ["nvidia-cudnn-cu12==9.5.1.17"]
    assert finding.fix.startswith('python -m pip install "nvidia-cudnn-cu12==9.5.1.17"')


def test_ranges_without_a_named_version_claim_nothing(matrix: Matrix) -> None:
    facts = _pinning("nvidia-cudnn-cu12<9.5,>=9.3", "nvidia-cudnn-cu12>=9.4", "9.3.0.75")
    (finding,) = pin_conflicts(Context(facts, matrix, None))
    assert "only the index can tell" in finding.message
    assert finding.data["constraints"] == []
    assert 'python -m pip install "nvidia-cudnn-cu12<9.5,>=9.3,>=9.4"' in finding.fix


def test_pins_the_installed_version_meets_are_no_finding(matrix: Matrix) -> None:
    facts = _pinning("nvidia-cudnn-cu12<10,>=9.3", "nvidia-cudnn-cu12==9.5.1.17", "9.5.1.17")
    assert pin_conflicts(Context(facts, matrix, None)) == []


# --- real environments, rebuilt --------------------------------------------------------------------


def rebuild_records(snapshot: Mapping[str, Any], site: Path) -> None:
    """The snapshot's dist-info directories, and its files under nvidia/ as sparse files of the
    real sizes. Where the real comparison needed hashes (two owners record the size on disk),
    the file gets made-up bytes and the owners whose bytes it really had get their digest, so
    the same owners match as in the real environment."""
    disk: Mapping[str, Any] = snapshot["disk"]
    recorded: dict[str, list[list[str]]] = {}
    for dist in snapshot["distributions"]:
        for entry in dist["record"]:
            recorded.setdefault(entry[0], []).append([dist["name"], *entry])
    for path, listed in recorded.items():
        target = site / path
        target.parent.mkdir(parents=True, exist_ok=True)
        real = disk.get(path)
        size = int(listed[0][3] or 0) if real is None else real["size"]
        if size is None:
            continue
        same_size = [entry for entry in listed if entry[3] == str(size)]
        if real is not None and len(same_size) > 1:
            data = path.encode() * (size // len(path) + 1)
            target.write_bytes(data[:size])
            for entry in same_size:
                if entry[0] in real["same_bytes_as"]:
                    entry[2] = digest(data[:size])
        else:
            with target.open("wb") as stream:
                stream.truncate(size)
    rows: dict[str, list[str]] = {}
    for listed in recorded.values():
        for name, *entry in listed:
            rows.setdefault(name, []).append(",".join(entry))
    for dist in snapshot["distributions"]:
        write_dist(
            site, dist["name"], dist["version"], rows.get(dist["name"], []), dist["requires"]
        )


def snapshot_facts(name: str, tmp_path: Path) -> Facts:
    snapshot = json.loads((LAYOUTS / name).read_text())
    rebuild_records(snapshot, tmp_path)
    result = scan(tmp_path)
    assert not [e for e in result.errors if "RECORD" in e], result.errors
    return machine(
        frameworks=result.frameworks, wheels=result.wheels, shared_files=result.shared_files
    )


def test_tf_2_21_0_with_torch_2_14_1_real_records(matrix: Matrix, tmp_path: Path) -> None:
    facts = snapshot_facts("tf-2.21.0-and-cuda-torch-2.14.1-records.json", tmp_path)
    assert {w.name for w in facts.wheels} >= {
        "cuda-toolkit",
        "nvidia-cudnn-cu13",
        "nvidia-nccl-cu12",
    }
    found = [f for f in diagnose(facts, matrix).findings if f.code == "framework-conflict"]
    by_library = {f.data["library"]: f for f in found}
    assert set(by_library) == {"libcudnn.so.9", "libnccl.so.2"}
    for library, cu12, cu13 in (
        ("libcudnn.so.9", "nvidia-cudnn-cu12 9.28.0.42", "nvidia-cudnn-cu13 9.24.0.43"),
        ("libnccl.so.2", "nvidia-nccl-cu12 2.32.3", "nvidia-nccl-cu13 2.30.7"),
    ):
        finding = by_library[library]
        assert finding.severity is Severity.ERROR
        assert finding.data["installed"] == cu12 and finding.data["overwritten"] == [cu13]
        assert finding.data["frameworks"] == ["tensorflow", "torch"]
        assert "so PyTorch 2.14.1 runs on" in finding.message
        assert "separate virtual environments" in finding.fix
    cudnn_files = by_library["libcudnn.so.9"].data["files"]
    # Ten libraries and the headers whose bytes differ; the four identical headers are fine.
    assert sum(p.startswith("nvidia/cudnn/lib/") for p in cudnn_files) == 10
    assert "nvidia/cudnn/include/cudnn_backend.h" not in cudnn_files
    assert "nvidia/cudnn/include/cudnn_cnn.h" in cudnn_files  # same size: told by hash
    # torch's cuBLAS comes through cuda-toolkit's extras and is no conflict (nvidia/cu13/).
    cublas = [p.text() for p in pins(facts)["nvidia-cublas"]]
    assert cublas == [
        "torch 2.14.1 requires cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,"
        "cusparse,nvjitlink,nvrtc,nvtx]==13.0.3, which requires nvidia-cublas==13.1.1.3.*",
        "torch 2.14.1 requires nvidia-cudnn-cu13==9.24.0.43, which requires nvidia-cublas",
    ]


def test_a_loaded_copy_of_an_overwritten_file_is_told_in_the_overwrite_finding(
    matrix: Matrix, tmp_path: Path
) -> None:
    # The children measured which libcudnn.so.9 each framework got: the overwritten file, the
    # overwrite finding's cause. One finding, its lines as evidence. A copy elsewhere (cuRAND
    # from nvidia/curand/lib) is a cause of its own and stays a finding.
    facts = snapshot_facts("tf-2.21.0-and-cuda-torch-2.14.1-records.json", tmp_path)
    site = facts.shared_files[0].location.rstrip("/")
    cudnn = f"{site}/nvidia/cudnn/lib/libcudnn.so.9"
    curand = f"{site}/nvidia/curand/lib/libcurand.so.10"

    def loaded(library: str, path: str) -> Finding:
        copies = {"torch": {"torch": path}, "tensorflow -> torch": {"torch": path}}
        evidence = tuple(f"{order}: torch gets {path}" for order in copies)
        return Finding(
            "framework-conflict",
            Severity.WARNING,
            f"PyTorch gets the CUDA 12 build of {library}.",
            evidence,
            "fix",
            data={"library": library, "copies": copies},
        )

    found = diagnose(
        facts, matrix, None, [loaded("libcudnn.so.9", cudnn), loaded("libcurand.so.10", curand)]
    ).findings
    conflicts = [f for f in found if f.code == "framework-conflict"]
    by_library: dict[str, list[Finding]] = {}
    for finding in conflicts:
        by_library.setdefault(finding.data["library"], []).append(finding)
    (cudnn_finding,) = by_library["libcudnn.so.9"]
    assert cudnn_finding.severity is Severity.ERROR and "overwritten" in cudnn_finding.data
    assert f"loaded: tensorflow -> torch: torch gets {cudnn}" in cudnn_finding.evidence
    assert cudnn_finding.data["copies"]["torch"] == {"torch": cudnn}
    (curand_finding,) = by_library["libcurand.so.10"]
    assert curand_finding.severity is Severity.WARNING


def test_torch_2_14_1_alone_real_records(matrix: Matrix, tmp_path: Path) -> None:
    # No file under nvidia/ that two wheels list (the snapshot keeps the rows of none), and
    # torch's own metadata pins its CUDA 13 wheels, some through cuda-toolkit's extras.
    facts = snapshot_facts("torch-2.14.1-records.json", tmp_path)
    assert facts.shared_files == ()
    pinned = {name: [p.text() for p in wanted] for name, wanted in pins(facts).items()}
    assert pinned["nvidia-cudnn-cu13"] == ["torch 2.14.1 requires nvidia-cudnn-cu13==9.24.0.43"]
    assert pinned["nvidia-cuda-runtime"][0].endswith(
        "which requires nvidia-cuda-runtime==13.0.96.*"
    )
    assert "framework-conflict" not in {f.code for f in diagnose(facts, matrix).findings}


def test_tf_2_21_0_with_jax_0_10_2_real_records(matrix: Matrix, tmp_path: Path) -> None:
    # Both on the CUDA 12 wheels: one set of nvidia-*-cu12 wheels meets every pin.
    facts = snapshot_facts("tf-2.21.0-and-cuda-jax-0.10.2-cuda12-records.json", tmp_path)
    assert {f.name for f in facts.frameworks} >= {"tensorflow", "jax", "jax-cuda12-plugin"}
    cudnn = [p.text() for p in pins(facts)["nvidia-cudnn-cu12"]]
    assert len(cudnn) == 2 and any(t.startswith("jax-cuda12-plugin 0.10.2") for t in cudnn)
    # The wheels share only nvidia/__init__.py, with the same bytes (and its .pyc).
    assert {s.path for s in facts.shared_files} == {
        "nvidia/__init__.py",
        "nvidia/__pycache__/__init__.cpython-311.pyc",
    }
    assert "framework-conflict" not in {f.code for f in diagnose(facts, matrix).findings}
