"""`envcheck fetch` against real indexes on 127.0.0.1: pypiserver (PEP 503 HTML) and a small
PEP 691 JSON server with faults (tests/index_server.py). No request is mocked."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.tags import Tag
from packaging.utils import canonicalize_name

from envcheck.acquire.wheelhouse_fetch import (
    fetch_wheelhouse,
    host_platform_tag,
    pip_download_command,
    plan_target,
)
from envcheck.cli.commands.fetch import TerminalProgress
from envcheck.errors import InputError
from envcheck.index.config import IndexLocation, pip_config_files, resolve_index
from envcheck.index.errors import DownloadsFailedError, NoMatchingWheelError
from envcheck.index.http import RetryPolicy, Timeouts, exponential_backoff
from envcheck.index.simple_api import IndexFile, ProjectPage, parse_html_page
from envcheck.index.wheels import WheelTarget, expand_platform, select_file
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.versions import PythonVersion
from tests.in_process import Result, run_envcheck
from tests.index_server import (
    FaultyIndex,
    PypiServer,
    ServedFile,
    build_wheel,
    faulty_index,
    pypiserver,
    sha256_of,
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
TF = "2.15.1"
WIN_CP310 = f"tensorflow-{TF}-cp310-cp310-win_amd64.whl"
LINUX_TAG = "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64"
TF_TAGS = (
    LINUX_TAG,
    "cp310-cp310-win_amd64",
    "cp311-cp311-win_amd64",
    "cp311-cp311-macosx_12_0_arm64",
)
SECRET = "s3cr3t-pass"


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory, matrix: Matrix) -> Path:
    """Fake TensorFlow wheels for several platforms, and one wheel per and-cuda pin of the
    matrix's 2.15 row (so the Linux target's requirements come from the data itself)."""
    directory = tmp_path_factory.mktemp("packages")
    for tag in TF_TAGS:
        build_wheel(directory, "tensorflow", TF, tag, ["envcheck-testdep>=1"], payload=64_000)
    build_wheel(directory, "envcheck-testdep", "1.0", "py3-none-any")
    release = matrix.releases_matching(TF)[0]
    for pin in release.and_cuda:
        requirement = Requirement(pin)
        version = next(iter(requirement.specifier)).version
        build_wheel(directory, requirement.name, version, "py3-none-manylinux1_x86_64")
    return directory


@pytest.fixture(scope="module")
def pypi(packages: Path) -> Iterator[PypiServer]:
    with pypiserver(packages) as server:
        yield server


@pytest.fixture
def faulty() -> Iterator[FaultyIndex]:
    with faulty_index() as index:
        yield index


def run_cli(*args: str) -> Result:
    """`envcheck fetch ARGS` in-process, with no ENVCHECK_*/PIP_* settings of this machine."""
    return run_envcheck(["fetch", *args])


def fetch_win_cp310(dest: Path, index_url: str, *extra: str) -> Result:
    """`envcheck fetch` of TensorFlow TF for win_amd64 and Python 3.10, the tests' usual target."""
    return run_cli(
        "--dest", str(dest), "--tensorflow", TF, "--platform", "win_amd64", "--python-version", "3.10",
        "--index-url", index_url, *extra,
    )  # fmt: skip


def _json(result: Result) -> dict[str, Any]:
    assert result.exit_code == EXIT_OK, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _blob(size: int, seed: str = "x") -> bytes:
    return b"".join(hashlib.sha256(f"{seed}{i}".encode()).digest() for i in range(size // 32 + 1))[
        :size
    ]


def _windows_files(index: FaultyIndex, size: int = 300_000, **faults: Any) -> ServedFile:
    """The win_amd64 cp310 wheel (faults applied) among decoys for other targets."""
    for tag in ("cp311-cp311-win_amd64", LINUX_TAG):
        index.add(ServedFile(f"tensorflow-{TF}-{tag}.whl", _blob(1000, tag)))
    return index.add(ServedFile(WIN_CP310, _blob(size), **faults))


def _index(url: str) -> IndexLocation:
    return resolve_index(url, environ={}, files=[])


def _fetch_windows(
    matrix: Matrix,
    dest: Path,
    index: FaultyIndex,
    retry: RetryPolicy | None = None,
    timeouts: Timeouts | None = None,
) -> Any:
    return fetch_wheelhouse(
        matrix,
        dest,
        _index(index.url),
        spec=TF,
        platforms=["win_amd64"],
        python="3.10",
        retry=retry or RetryPolicy(attempts=3, sleep=lambda _: None),
        timeouts=timeouts or Timeouts(connect=2, read=5),
    )


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


# --- wheel tags: another platform and Python -------------------------------------------------


def _page(*filenames: str) -> ProjectPage:
    files = tuple(
        IndexFile(name, f"http://127.0.0.1/{name}", (("sha256", "0" * 64),)) for name in filenames
    )
    return ProjectPage("tensorflow", "http://127.0.0.1/simple/tensorflow/", "json", files)


ALL_TF = _page(*(f"tensorflow-{TF}-{tag}.whl" for tag in TF_TAGS), f"tensorflow-{TF}.tar.gz")


@pytest.mark.parametrize(
    ("platform", "python", "expected"),
    [
        ("win_amd64", "3.10", WIN_CP310),
        ("manylinux_2_28_x86_64", "3.11", f"tensorflow-{TF}-{LINUX_TAG}.whl"),
        ("manylinux2014_x86_64", "3.11", f"tensorflow-{TF}-{LINUX_TAG}.whl"),
        ("macosx_14_0_arm64", "3.11", f"tensorflow-{TF}-cp311-cp311-macosx_12_0_arm64.whl"),
    ],
)
def test_selects_the_wheel_of_another_platform_and_python(
    platform: str, python: str, expected: str
) -> None:
    target = WheelTarget.create(platform, PythonVersion.parse(python))
    choice = select_file(ALL_TF, Requirement(f"tensorflow=={TF}"), target)
    assert choice.file.filename == expected


def test_target_tags_are_cpython_of_the_target_not_this_interpreter() -> None:
    tags = WheelTarget.create("win_amd64", PythonVersion(3, 10)).tags
    assert tags[0] == Tag("cp310", "cp310", "win_amd64")
    assert Tag("py3", "none", "any") in tags
    assert not any(t.platform.startswith("manylinux") or t.interpreter == "cp311" for t in tags)


def test_manylinux_and_macos_targets_accept_older_tags() -> None:
    x86 = expand_platform("manylinux_2_17_x86_64")
    assert x86[:2] == ("manylinux_2_17_x86_64", "manylinux2014_x86_64")
    assert "manylinux1_x86_64" in x86
    assert "manylinux_2_28_x86_64" not in x86
    assert expand_platform("manylinux_2_28_aarch64")[-2:] == (
        "manylinux_2_17_aarch64",
        "manylinux2014_aarch64",
    )
    assert "macosx_11_0_arm64" in expand_platform("macosx_12_0_arm64")
    assert expand_platform("win_amd64") == ("win_amd64",)


def test_this_machine_defaults_to_its_published_platform_tag() -> None:
    local_first = ["linux_x86_64", "manylinux_2_36_x86_64", "manylinux_2_35_x86_64"]
    assert host_platform_tag(local_first) == "manylinux_2_36_x86_64"
    assert host_platform_tag(["win_amd64"]) == "win_amd64"


def test_no_fitting_wheel_says_what_the_index_has() -> None:
    target = WheelTarget.create("win_amd64", PythonVersion(3, 12))
    with pytest.raises(NoMatchingWheelError, match=r"Python 3\.12 on win_amd64.*cp310-cp310"):
        select_file(ALL_TF, Requirement(f"tensorflow=={TF}"), target)


def test_yanked_and_requires_python_as_pip_treats_them() -> None:
    page = ProjectPage(
        "envcheck-testdep",
        "http://127.0.0.1/simple/envcheck-testdep/",
        "html",
        (
            IndexFile("envcheck_testdep-1.0-py3-none-any.whl", "http://h/1", ()),
            IndexFile("envcheck_testdep-2.0-py3-none-any.whl", "http://h/2", (), yanked=True),
            IndexFile("envcheck_testdep-1.5-py3-none-any.whl", "http://h/3", (), ">=3.12"),
        ),
    )
    target = WheelTarget.create("win_amd64", PythonVersion(3, 10))
    assert select_file(page, Requirement("envcheck-testdep"), target).file.url == "http://h/1"
    pinned = select_file(page, Requirement("envcheck-testdep==2.0"), target)
    assert pinned.file.url == "http://h/2"


def test_linux_target_gets_the_and_cuda_pins_windows_only_tensorflow(matrix: Matrix) -> None:
    release = matrix.releases_matching(TF)[0]
    # The GPU build, as asked (--gpu): without it this host's driver decides, as for recommend.
    linux = plan_target(
        matrix, TF, WheelTarget.create("manylinux_2_17_x86_64", PythonVersion(3, 11)), build="gpu"
    )
    assert [str(r) for r in linux.requirements] == [
        f"tensorflow=={TF}",
        *release.and_cuda,
        *release.install_pins,
    ]
    windows = plan_target(matrix, TF, WheelTarget.create("win_amd64", PythonVersion(3, 10)))
    assert [str(r) for r in windows.requirements] == [f"tensorflow=={TF}"]
    assert "CPU only" in windows.notes[0]


# --- the HTML path: pypiserver ---------------------------------------------------------------


def test_fetch_for_windows_from_linux_through_pypiserver(pypi: PypiServer, tmp_path: Path) -> None:
    dest = tmp_path / "wheelhouse"
    result = fetch_win_cp310(dest, pypi.url, "--json")
    report = _json(result)
    assert [f["file"] for f in report["files"]] == [WIN_CP310]
    assert result.stderr == ""  # quiet when not on a terminal
    assert _leftovers(dest) == sorted([WIN_CP310, "wheelhouse.json"])
    manifest = json.loads((dest / "wheelhouse.json").read_text())
    assert manifest["schema"] == "envcheck.wheelhouse/2"
    assert manifest["files"] == [
        {
            "file": WIN_CP310,
            "sha256": sha256_of(dest / WIN_CP310),
            "size": (dest / WIN_CP310).stat().st_size,
            "url": pypi.url.replace("/simple/", f"/packages/{WIN_CP310}"),
            "platform": "win_amd64",
            "python": "3.10",
            "status": "downloaded",
        }
    ]


def test_each_platform_is_one_target(pypi: PypiServer, tmp_path: Path) -> None:
    report = _json(
        run_cli(
            "--dest", str(tmp_path), "--tensorflow", TF, "--platform", "win_amd64",
            "--platform", "macosx-14.0-arm64", "--python-version", "3.11", "--index-url", pypi.url, "--json",
        )
    )  # fmt: skip
    manifest = json.loads((tmp_path / "wheelhouse.json").read_text())
    assert [(f["file"], f["platform"]) for f in manifest["files"]] == [
        (f"tensorflow-{TF}-cp311-cp311-macosx_12_0_arm64.whl", "macosx_14_0_arm64"),
        (f"tensorflow-{TF}-cp311-cp311-win_amd64.whl", "win_amd64"),
    ]
    assert [t["platform"] for t in report["targets"]] == ["win_amd64", "macosx_14_0_arm64"]


def test_linux_wheelhouse_holds_tensorflow_and_every_and_cuda_wheel(
    pypi: PypiServer, tmp_path: Path, matrix: Matrix
) -> None:
    report = _json(
        run_cli(
            "--dest",
            str(tmp_path),
            "--tensorflow",
            "2.15",
            "--platform",
            "manylinux_2_17_x86_64",
            "--python-version",
            "3.11",
            "--index-url",
            pypi.url,
            "--gpu",
            "--json",
        )
    )
    names = {canonicalize_name(f["file"].split("-")[0]) for f in report["files"]}
    release = matrix.releases_matching(TF)[0]
    assert names == {"tensorflow"} | {
        canonicalize_name(Requirement(p).name) for p in release.and_cuda
    }
    assert report["targets"][0]["tensorflow"] == TF
    assert run_cli("--verify", str(tmp_path)).exit_code == EXIT_OK


def test_with_deps_delegates_the_closure_to_pip_download(pypi: PypiServer, tmp_path: Path) -> None:
    report = _json(fetch_win_cp310(tmp_path, pypi.url, "--with-deps", "--json"))
    files = {f["file"]: f for f in report["files"]}
    assert set(files) == {WIN_CP310, "envcheck_testdep-1.0-py3-none-any.whl"}
    assert all(
        f["url"].startswith(pypi.url.replace("/simple/", "/packages/")) for f in files.values()
    )
    assert _leftovers(tmp_path) == sorted([*files, "wheelhouse.json"])  # no pip temp dir left
    assert run_cli("--verify", str(tmp_path)).exit_code == EXIT_OK


def test_pip_download_command_keeps_credentials_off_the_argv(
    matrix: Matrix, tmp_path: Path
) -> None:
    index = _index(f"https://alice:{SECRET}@127.0.0.1:9/simple/")
    plan = plan_target(
        matrix, TF, WheelTarget.create("manylinux_2_17_x86_64", PythonVersion(3, 11))
    )
    command = pip_download_command(plan, index, tmp_path, Timeouts(), ["python", "-m", "pip"])
    assert SECRET not in " ".join(command)
    assert "--only-binary=:all:" in command
    assert command[command.index("--python-version") + 1] == "3.11"
    assert "manylinux2014_x86_64" in command  # the expanded platform list


# --- the JSON path and the faults ------------------------------------------------------------


def test_json_api_by_content_negotiation(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    served = _windows_files(faulty)
    report = _fetch_windows(matrix, tmp_path, faulty)
    assert [f.file for f in report.files] == [WIN_CP310]
    page_request = next(r for r in faulty.requests if r.path == "/simple/tensorflow/")
    assert page_request.headers["Accept"].startswith("application/vnd.pypi.simple.v1+json")
    assert (tmp_path / WIN_CP310).read_bytes() == served.data
    # Only the chosen file was downloaded; the page's relative URLs resolved.
    assert [r.path for r in faulty.requests if r.path.startswith("/files/")] == [
        f"/files/{WIN_CP310}"
    ]


def test_html_when_the_server_has_no_json(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    faulty.json_enabled = False
    _windows_files(faulty)
    report = _fetch_windows(matrix, tmp_path, faulty)
    assert [f.status for f in report.files] == ["downloaded"]


def test_hash_mismatch_is_rejected_and_leaves_nothing(faulty: FaultyIndex, tmp_path: Path) -> None:
    _windows_files(faulty, listed_sha256="0" * 64)
    dest = tmp_path / "wheelhouse"
    result = fetch_win_cp310(dest, faulty.url)
    assert result.exit_code == EXIT_FAILED
    assert "does not match the index's 0000" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert _leftovers(dest) == ["wheelhouse.json"]  # no wheel, no .part file
    assert [f["status"] for f in json.loads((dest / "wheelhouse.json").read_text())["files"]] == [
        "failed"
    ]


def test_connection_cut_mid_file_resumes_with_range(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    served = _windows_files(faulty, cut_after=100_000)
    _fetch_windows(matrix, tmp_path, faulty)
    first, second = faulty.file_requests(WIN_CP310)
    assert "Range" not in first.headers
    offset = int(second.headers["Range"].removeprefix("bytes=").rstrip("-"))
    assert 0 < offset < len(served.data)
    assert second.status == 206
    assert second.headers["If-Range"]  # the ETag of the first answer
    assert (tmp_path / WIN_CP310).read_bytes() == served.data


def test_without_range_support_the_download_starts_over(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    faulty.range_supported = False
    served = _windows_files(faulty, cut_after=100_000)
    _fetch_windows(matrix, tmp_path, faulty)
    _first, second = faulty.file_requests(WIN_CP310)
    assert "Range" in second.headers
    assert second.status == 200  # the server sent the whole file again
    assert (tmp_path / WIN_CP310).read_bytes() == served.data


def test_http_500_then_success_after_backoff(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    served = _windows_files(faulty, fail_first=2)
    waits: list[float] = []
    retry = RetryPolicy(attempts=4, backoff=exponential_backoff, sleep=waits.append)
    _fetch_windows(matrix, tmp_path, faulty, retry=retry)
    assert [r.status for r in faulty.file_requests(WIN_CP310)] == [500, 500, 200]
    assert waits == [0.5, 1.0]
    assert sha256_of(tmp_path / WIN_CP310) == served.sha256


def test_404_for_the_project_is_a_clear_error(faulty: FaultyIndex, tmp_path: Path) -> None:
    result = fetch_win_cp310(tmp_path, faulty.url)
    assert result.exit_code == EXIT_FAILED
    assert "the index has no project 'tensorflow': HTTP 404" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_404_for_a_listed_file(faulty: FaultyIndex, tmp_path: Path, matrix: Matrix) -> None:
    _windows_files(faulty, status=404)
    with pytest.raises(DownloadsFailedError, match=r"HTTP 404 .*does not serve it"):
        _fetch_windows(matrix, tmp_path, faulty)
    assert len(faulty.file_requests(WIN_CP310)) == 1  # a 404 is not retried
    assert _leftovers(tmp_path) == ["wheelhouse.json"]  # which records the failure


def test_slow_server_times_out_after_the_retries(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    _windows_files(faulty, delay=1.0)
    started = time.monotonic()
    with pytest.raises(DownloadsFailedError, match=r"timed out .*read 0\.2 s.*tried 3 time"):
        _fetch_windows(matrix, tmp_path, faulty, timeouts=Timeouts(connect=1, read=0.2))
    assert time.monotonic() - started < 3
    assert len(faulty.file_requests(WIN_CP310)) == 3
    assert _leftovers(tmp_path) == ["wheelhouse.json"]  # no empty .part


@pytest.mark.parametrize("json_enabled", [True, False], ids=["json", "html"])
def test_malicious_file_name_is_refused(
    faulty: FaultyIndex, tmp_path: Path, json_enabled: bool
) -> None:
    faulty.json_enabled = json_enabled
    _windows_files(faulty)
    faulty.add(ServedFile("../../evil.whl", b"evil", project="tensorflow"))
    dest = tmp_path / "a" / "b" / "wheelhouse"
    result = fetch_win_cp310(dest, faulty.url)
    assert result.exit_code == EXIT_FAILED
    assert "'../../evil.whl'" in result.stderr and "not a plain file name" in result.stderr
    assert not list(tmp_path.rglob("evil.whl"))
    assert _leftovers(dest) == []


def test_html_directory_links_are_not_files() -> None:
    digest = "ab" * 32
    page = parse_html_page(
        f'<a href="../">../</a><a href="x-1.0-py3-none-any.whl#sha256={digest}">x</a>',
        "http://127.0.0.1/simple/x/",
        "x",
    )
    assert [(f.filename, f.hashes) for f in page.files] == [
        ("x-1.0-py3-none-any.whl", (("sha256", digest),))
    ]


def test_a_verified_file_is_not_downloaded_again(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    _windows_files(faulty)
    _fetch_windows(matrix, tmp_path, faulty)
    second = _fetch_windows(matrix, tmp_path, faulty)
    assert [f.status for f in second.files] == ["present"]
    assert len(faulty.file_requests(WIN_CP310)) == 1


# --- verify, credentials, usage ---------------------------------------------------------------


def test_verify_reports_tampered_missing_and_extra_files(
    faulty: FaultyIndex, tmp_path: Path, matrix: Matrix
) -> None:
    _windows_files(faulty)
    faulty.add(ServedFile("tensorflow-2.15.1-py3-none-any.whl", _blob(5000, "any")))
    _fetch_windows(matrix, tmp_path, faulty)
    assert run_cli("--verify", str(tmp_path)).exit_code == EXIT_OK

    with (tmp_path / WIN_CP310).open("r+b") as stream:
        stream.seek(1000)
        stream.write(b"tampered")
    (tmp_path / "stray.whl").write_bytes(b"x")
    result = run_cli("--verify", str(tmp_path), "--json")
    assert result.exit_code == EXIT_FAILED
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert [m["file"] for m in data["mismatched"]] == [WIN_CP310]
    assert data["extra"] == ["stray.whl"]

    (tmp_path / WIN_CP310).unlink()
    text = run_cli("--verify", str(tmp_path))
    assert text.exit_code == EXIT_FAILED
    assert f"MISSING     {WIN_CP310}" in text.stdout


def test_credentials_in_the_index_url_are_used_but_never_printed(
    faulty: FaultyIndex, tmp_path: Path
) -> None:
    _windows_files(faulty)
    url = faulty.url.replace("http://", f"http://alice:{SECRET}@")
    ok = fetch_win_cp310(tmp_path, url)
    assert ok.exit_code == EXIT_OK, ok.stderr
    assert "alice:****@127.0.0.1" in ok.stdout
    sent = base64.b64encode(f"alice:{SECRET}".encode()).decode()
    assert all(r.headers.get("Authorization") == f"Basic {sent}" for r in faulty.requests)
    failed = fetch_win_cp310(tmp_path, url.replace("/simple/", "/nothing/"))
    assert failed.exit_code == EXIT_FAILED
    for result in (ok, failed):
        assert SECRET not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--python-version", "three"], "not of the form X.Y"),
        (["--platform", "win amd64!"], "not a wheel platform tag"),
        (["--tensorflow", "banana"], "neither a version"),
        (["--index-url", "ftp://bob:hunter2@127.0.0.1/"], "is not an http(s) URL"),
        (["--verify", "."], "either --dest DIR"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    tmp_path: Path, args: Sequence[str], message: str
) -> None:
    result = run_cli(
        "--dest", str(tmp_path / "w"), "--index-url", "http://127.0.0.1:9/simple/", *args
    )
    assert result.exit_code == EXIT_USAGE
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "hunter2" not in result.stderr


def test_no_dest_and_a_missing_manifest_are_usage_errors(tmp_path: Path) -> None:
    assert run_cli().exit_code == EXIT_USAGE
    missing = run_cli("--verify", str(tmp_path))
    assert missing.exit_code == EXIT_USAGE
    assert "wheelhouse.json does not exist" in missing.stderr


def test_nothing_fits_the_target_exits_1(tmp_path: Path) -> None:
    result = run_cli(
        "--dest",
        str(tmp_path),
        "--tensorflow",
        "2.15",
        "--python-version",
        "3.13",
        "--platform",
        "win_amd64",
        "--index-url",
        "http://127.0.0.1:9/simple/",
    )
    assert result.exit_code == EXIT_FAILED
    assert "Python 3.13 is too new" in result.stderr


# --- where the index comes from -------------------------------------------------------------


def test_index_url_follows_pip_configuration(tmp_path: Path) -> None:
    global_file, user_file = tmp_path / "global.conf", tmp_path / "user.conf"
    global_file.write_text("[download]\nindex_url = http://127.0.0.1:1/dl/\n")
    user_file.write_text("[global]\nindex-url = https://tok@127.0.0.1:2/user/\n")
    files = [global_file, user_file]

    def default() -> str:
        return "http://127.0.0.1:3/default/"

    # A command section beats [global] even from an earlier file, as pip does.
    assert resolve_index(None, {}, files, default).url == "http://127.0.0.1:1/dl/"
    only_user = resolve_index(None, {}, [user_file], default)
    assert only_user.display == "https://****@127.0.0.1:2/user/"
    assert only_user.auth == ("tok", "")
    env = {"PIP_INDEX_URL": "http://127.0.0.1:4/env"}
    assert resolve_index(None, env, files, default).url == "http://127.0.0.1:4/env/"
    assert resolve_index("http://127.0.0.1:5/x/", env, files, default).found_via == "--index-url"
    fallback = resolve_index(None, {}, [], default)
    assert (fallback.url, fallback.found_via) == (
        "http://127.0.0.1:3/default/",
        "pip's default index",
    )


def test_pip_config_file_locations_follow_pip(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_DIRS": "/a:/b", "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    files = pip_config_files(env, "linux", home=tmp_path, prefix="/venv")
    assert files == [
        Path("/a/pip/pip.conf"),
        Path("/b/pip/pip.conf"),
        Path("/etc/pip.conf"),
        tmp_path / ".pip" / "pip.conf",
        tmp_path / "cfg" / "pip" / "pip.conf",
        Path("/venv/pip.conf"),
    ]
    assert pip_config_files({"PIP_CONFIG_FILE": os.devnull}, "linux", home=tmp_path) == []
    with pytest.raises(InputError):
        resolve_index(None, {}, [], lambda: None)


def test_progress_line_on_a_terminal() -> None:
    stream = io.StringIO()
    progress = TerminalProgress(stream, interval=0)
    progress.start("a.whl", 2_000_000)
    progress.advance("a.whl", 1_000_000)
    progress.finish("a.whl")
    progress.close()
    assert stream.getvalue().startswith("\rfetching: 0/1 files, 0.0/2.0 MB")
    assert "1/1 files, 1.0/2.0 MB" in stream.getvalue()
    assert stream.getvalue().endswith("\n")


def test_fetch_help_offers_python_version_and_an_interpreter() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "envcheck", "fetch", "--help"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert completed.returncode == 0
    assert "--python-version X.Y" in completed.stdout and "--python PATH" in completed.stdout
    assert "ENVCHECK_PYTHON_VERSION" in completed.stdout


def test_fetch_for_an_interpreter_takes_its_python_version(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "envcheck", "fetch", "--dest", str(tmp_path / "w"),
         "--python", str(tmp_path / "no-such-python"), "--platform", "win_amd64"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert completed.returncode == 2
    assert "is not a runnable Python 3 interpreter" in completed.stderr
