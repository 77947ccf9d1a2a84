"""Numbers too big to mean anything: a usage error in one line, never a crash (issue 24, 12 and 15).

`--platform manylinux_2_999999999_x86_64` was expanded into one tag per glibc release below it
(MemoryError after 23 s, exit 3); a version of more than 4,300 digits (`--python-version`,
`--driver`, `--tensorflow`, or what a `--python` interpreter reports) hit Python's limit on
reading digits as an int (ValueError, exit 3). Each is now exit 2 with one line on stderr.
The children run under a memory limit, so the old behaviour fails fast instead of filling the
machine's memory.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envcheck.errors import InputError
from envcheck.index.wheels import expand_platform, normalize_platform_tag
from envcheck.versions import MAX_DIGITS, DriverVersion, PythonVersion
from tests.faults.processes import ENVCHECK, environment

HUGE = "9" * 5000
MEMORY = 1 << 30  # bytes of address space a child may map: envcheck needs a fraction


def _limited() -> None:  # pragma: no cover - runs in the child before exec
    import resource  # noqa: PLC0415 - POSIX only, and only in the child

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENVCHECK, *args], capture_output=True, text=True, env=environment(),
        stdin=subprocess.DEVNULL, timeout=120, check=False,
        preexec_fn=_limited if sys.platform != "win32" else None,
    )  # fmt: skip


def assert_usage_error(completed: subprocess.CompletedProcess[str], *words: str) -> str:
    assert completed.returncode == 2, completed.stderr[-2000:]
    lines = completed.stderr.splitlines()
    assert len(lines) == 1, completed.stderr[-2000:]
    line = lines[0]
    assert line.startswith("envcheck: error: "), line
    assert len(line) < 400, line  # the value is quoted cut, not whole
    for word in words:
        assert word in line, line
    return line


# --- item 12: platform tags ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tag", "names"),
    [
        ("manylinux_2_999999999_x86_64", "glibc 2.999999999"),
        ("musllinux_1_999999999_aarch64", "musl 1.999999999"),
        ("macosx_999999999_0_arm64", "macOS 999999999.0"),
        ("macosx_10_999999999_x86_64", "macOS 10.999999999"),
    ],
)
def test_a_platform_tag_of_an_endless_release_is_a_usage_error(
    tmp_path: Path, tag: str, names: str
) -> None:
    completed = run(
        "fetch", "--platform", tag, "--python-version", "3.11", "--dest", str(tmp_path / "w"),
        "--index-url", "http://127.0.0.1:9/simple",
    )  # fmt: skip
    assert_usage_error(completed, "--platform", names)


def test_a_platform_tag_with_a_5000_digit_number_is_a_usage_error(tmp_path: Path) -> None:
    completed = run(
        "fetch", "--platform", f"manylinux_2_{HUGE}_x86_64", "--python-version", "3.11",
        "--dest", str(tmp_path / "w"), "--index-url", "http://127.0.0.1:9/simple",
    )  # fmt: skip
    assert_usage_error(completed, "--platform", f"more than {MAX_DIGITS} digits")


def test_the_bound_is_far_above_every_real_release() -> None:
    newest = expand_platform(normalize_platform_tag("manylinux_2_99_x86_64"))
    assert newest[0] == "manylinux_2_99_x86_64" and newest[-1] == "manylinux1_x86_64"
    assert "macosx_10_9_x86_64" in expand_platform(normalize_platform_tag("macosx_99_0_x86_64"))
    assert len(expand_platform("musllinux_1_99_x86_64")) == 100
    for tag in ("manylinux_2_100_x86_64", "macosx_100_0_arm64", "musllinux_1_100_x86_64"):
        with pytest.raises(InputError, match="does not exist"):
            normalize_platform_tag(tag)
        with pytest.raises(InputError, match="does not exist"):
            expand_platform(tag)


# --- item 15: versions of thousands of digits ------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("recommend", "--python-version", f"3.{HUGE}"),
        ("recommend", "--driver", f"535.{HUGE}"),
        ("recommend", "--tensorflow", f"2.{HUGE}"),
        ("recommend", "--tensorflow", f">=2.{HUGE}"),
        ("recommend", "--framework", "torch", "--framework-version", f"==2.{HUGE}"),
        ("recommend", "--compute-capability", f"{HUGE}.0"),
        ("fetch", "--python-version", f"3.{HUGE}", "--dest", "unused"),
    ],
    ids=lambda args: " ".join(a for a in args if HUGE not in a),
)
def test_a_version_of_5000_digits_is_a_usage_error(args: tuple[str, ...]) -> None:
    assert_usage_error(run(*args), f"more than {MAX_DIGITS} digits")


def test_versions_parse_as_before_below_the_bound() -> None:
    assert PythonVersion.parse("3.12") == PythonVersion(3, 12)
    assert str(DriverVersion.parse("580.65.06")) == "580.65.06"
    DriverVersion.parse("1." + "9" * MAX_DIGITS)
    with pytest.raises(InputError, match="digits"):
        DriverVersion.parse("1." + "9" * (MAX_DIGITS + 1))


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the interpreter")
@pytest.mark.parametrize("command", [("probe", "--json"), ("doctor", "--no-smoke"), ("recommend",)])
def test_an_interpreter_that_reports_a_5000_digit_version_is_refused(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """What the interpreter child prints, with a version no Python has (a wrapper script, a
    hostile PATH): the error every unusable --python gets."""
    answer = {"python": f"3.{HUGE}.1", "bits": 64, "executable": "/x", "machine": "x86_64"}
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\necho '{json.dumps(answer)}'\n")
    python.chmod(0o755)
    line = assert_usage_error(run(*command, "--python", str(python)))
    assert "is not a runnable Python 3 interpreter: it reports the version '3.999" in line
