"""LD_LIBRARY_PATH entries the file system refuses to search are facts about those entries, not
internal errors (issue 16, 3).

A name component over 255 bytes (ENAMETOOLONG) made `Path.is_dir()` raise and envcheck exit 3;
an entry under a regular file (ENOTDIR), a symlink loop (ELOOP) and, for an unprivileged user, a
directory without search permission (EACCES) were skipped without a word. The report now says
"not searchable: <reason>" for each. Tests run as root, who may search anything: the permission
case drops to `nobody` with setpriv where the interpreter is reachable for it, else it is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from envcheck.probe.file_system import is_dir, is_file, unsearchable
from tests.faults.processes import ENVCHECK, environment

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="ld.so's LD_LIBRARY_PATH")


def entries(root: Path) -> dict[str, str]:
    """Entry -> the reason the file system gives for not searching it."""
    (root / "plain-file").write_text("not a directory\n")
    (root / "loop-a").symlink_to(root / "loop-b")
    (root / "loop-b").symlink_to(root / "loop-a")
    return {
        str(root / ("x" * 300)): "File name too long",
        str(root / "plain-file" / "lib"): "Not a directory",
        str(root / "loop-a"): "Too many levels of symbolic links",
    }


def probe(env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENVCHECK, "probe", *extra],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip


def test_each_unsearchable_entry_is_reported_with_its_reason(tmp_path: Path) -> None:
    reasons = entries(tmp_path)
    env = environment(LD_LIBRARY_PATH=":".join(reasons))
    result = probe(env)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    for entry, reason in reasons.items():
        assert f"LD_LIBRARY_PATH entry not searchable: {reason}: {entry}" in result.stdout


def test_the_json_facts_and_the_doctor_say_so_too(tmp_path: Path) -> None:
    reasons = entries(tmp_path)
    env = environment(LD_LIBRARY_PATH=":".join(reasons))
    result = probe(env, "--json")
    assert result.returncode == 0, result.stderr
    errors = json.loads(result.stdout)["errors"]
    assert [e for e in errors if "not searchable" in e] == [
        f"LD_LIBRARY_PATH entry not searchable: {reason}: {entry}"
        for entry, reason in reasons.items()
    ]
    doctor = subprocess.run(
        [*ENVCHECK, "doctor", "--no-smoke", "--json"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert doctor.returncode in (0, 1), doctor.stderr
    messages = [f["message"] for f in json.loads(doctor.stdout)["findings"]]
    assert any("not searchable: File name too long" in m for m in messages)


def test_the_file_system_questions_never_raise(tmp_path: Path) -> None:
    reasons = entries(tmp_path)
    for entry, reason in reasons.items():
        assert not is_dir(entry) and not is_file(entry)
        assert not is_dir(Path(entry, "glibc-hwcaps"))
        assert unsearchable(entry) == reason
    assert unsearchable(tmp_path / "missing") is None  # the loader skips it: nothing to say
    assert unsearchable(tmp_path) is None


def _nobody_can_run_python() -> str | None:
    """Why the permission test cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root to drop to nobody"
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return "setpriv is not installed"
    check = subprocess.run(
        [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
         "import envcheck"],
        capture_output=True, check=False, env=environment(),
    )  # fmt: skip
    if check.returncode != 0:
        # (CI's clone lives in a mktemp -d folder, mode 0700: closed to nobody.)
        return f"nobody cannot run {sys.executable} and import envcheck here (a folder on the way is closed to it)"
    return None


@pytest.mark.skipif(_nobody_can_run_python() is not None, reason=str(_nobody_can_run_python()))
def test_a_directory_without_search_permission(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o000)
    result = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *ENVCHECK, "probe"],
        capture_output=True, text=True, timeout=120, check=False,
        env=environment(LD_LIBRARY_PATH=str(closed / "lib"), HOME=str(tmp_path)),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"LD_LIBRARY_PATH entry not searchable: Permission denied: {closed}/lib" in result.stdout
