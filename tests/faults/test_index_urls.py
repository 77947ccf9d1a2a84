"""A malformed index URL with credentials is a usage error, and its password is never shown
(issue 24, 14).

`install --index-url http://u:pw@h:99999/` (or `http://u:pw@[::1/`) ended with exit 3: the
redactor called urlsplit, which raised inside the error handler. The redactor reads text now and
never raises; every command that takes an index URL checks it before any work and says which
URL is wrong, redacted, in one line with exit 2.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from envcheck.urls import redact, secret_masker
from tests.faults.processes import ENVCHECK, environment

EXIT_USAGE = 2
PASSWORD = "pw-s3cret"
BAD_URLS = {
    "port": (f"http://u:{PASSWORD}@h:99999/", "http://u:****@h:99999/", "port 99999"),
    "ipv6": (f"http://u:{PASSWORD}@[::1/", "http://u:****@[::1/", "is not a valid URL"),
}


def _envcheck(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENVCHECK, *args],
        capture_output=True,
        text=True,
        env=environment(PIP_CONFIG_FILE="/dev/null"),
        cwd=cwd,
        timeout=120,
        check=False,
    )


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    return lines[0]


@pytest.mark.parametrize("kind", sorted(BAD_URLS))
@pytest.mark.parametrize(
    "command",
    [
        ("install", "--dry-run", "--index-url"),
        ("install", "--dry-run", "--framework", "torch", "--torch-index-url"),
        ("fetch", "--dest", "wheelhouse", "--index-url"),
        (
            "fetch", "--dest", "wheelhouse", "--framework", "torch", "--driver", "570.133.07",
            "--platform", "manylinux_2_28_x86_64", "--python-version", "3.11",
            "--torch-index-url",
        ),
    ],
    ids=["install", "install-torch", "fetch", "fetch-torch"],
)  # fmt: skip
def test_a_malformed_index_url_with_credentials_is_one_redacted_usage_error(
    tmp_path: Path, command: tuple[str, ...], kind: str
) -> None:
    url, shown, reason = BAD_URLS[kind]
    result = _envcheck(*command, url, cwd=tmp_path)
    assert result.returncode == EXIT_USAGE, result.stderr
    line = _one_line(result)
    assert shown in line and reason in line
    assert command[-1] in line  # which option it came from
    assert PASSWORD not in result.stdout + result.stderr
    assert not (tmp_path / "wheelhouse").exists()  # refused before any work


def test_recommend_shows_a_malformed_torch_index_url_redacted(tmp_path: Path) -> None:
    """recommend only prints the URL (in the pip command a person types), so it need not
    refuse it; but printing it must not crash or show the password."""
    result = _envcheck(
        "recommend", "--framework", "torch", "--torch-index-url", BAD_URLS["ipv6"][0],
        "--driver", "570.133.07", "--os", "linux", "--arch", "x86_64", "--python-version", "3.11",
        cwd=tmp_path,
    )  # fmt: skip
    assert "internal error" not in result.stderr, result.stderr
    assert result.returncode in (0, 1)
    assert "--index-url http://u:****@[::1/cu" in result.stdout
    assert PASSWORD not in result.stdout + result.stderr


HOSTILE = [
    f"http://u:{PASSWORD}@h:99999/",
    f"http://u:{PASSWORD}@[::1/",
    f"http://u:{PASSWORD}@[zz]:80/x",
    f"https://{PASSWORD}@h/simple/",
    f"http://u:{PASSWORD}@h:-1/",
    f"http://u:{PASSWORD}@h:80:80/",
    f"u:{PASSWORD}@h/simple/",  # no scheme
    f"http://u:pw#{PASSWORD}@h/",  # an unencoded '#' in the password
    f"see http://u:{PASSWORD}@h/ and http://v:{PASSWORD}@[::1/",
    f"http://u:{PASSWORD}@\x00\x1b[2J/",
    f"http://u:{PASSWORD}@" + "[" * 10_000,
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_the_redactor_never_raises_and_never_shows_the_password(text: str) -> None:
    shown = redact(text)
    assert PASSWORD not in shown
    assert "****@" in shown
    if " " not in text:  # an index URL, as install's masker is given one
        assert PASSWORD not in secret_masker(urls=(text,))(f"pip said: GET {text} failed")


def test_the_redactor_leaves_urls_without_credentials_alone() -> None:
    for text in ("http://h/simple/", "http://h/a@b", "https://[::1]:8080/simple/", "plain"):
        assert redact(text) == text
    assert redact("https://alice:pw@h:8080/s/") == "https://alice:****@h:8080/s/"


def test_the_redactor_takes_linear_time() -> None:
    """It runs on any text a message quotes: a long run of scheme characters must not make a
    search for `scheme://` quadratic (issue 24, 1's lesson)."""
    for text in ("a" * 1_000_000, "http://" + "a" * 1_000_000, "://" * 300_000):
        began = time.monotonic()
        redact(text)
        assert time.monotonic() - began < 2
