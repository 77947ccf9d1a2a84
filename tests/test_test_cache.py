"""The test session keeps envcheck's cache out of the user's (tests/conftest.py, issue 23).

A child pytest runs a test that loads the matrix in-process and through the CLI, with
XDG_CACHE_HOME pointing at a folder that stands for the user's cache. Without the conftest
(`--noconftest`) the run writes there, so this test can fail; with it, the folder stays empty.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# Loads the bundled matrix when imported, and runs `envcheck explain` in a child.
A_TEST = f"{TESTS / 'test_explain.py'}::test_cli_traceback_around_the_importerror"


def _run_tests(user_cache: Path, *extra: str) -> None:
    environ = {
        k: v for k, v in os.environ.items() if k not in ("ENVCHECK_CACHE_DIR", "LOCALAPPDATA")
    }
    environ["XDG_CACHE_HOME"] = str(user_cache)
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, A_TEST],
        env=environ,
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_a_test_run_leaves_the_users_cache_alone(tmp_path: Path) -> None:
    unguarded = tmp_path / "unguarded"
    _run_tests(unguarded, "--noconftest")
    assert list((unguarded / "envcheck").iterdir()), "the child test no longer writes a cache"
    user_cache = tmp_path / "user"
    user_cache.mkdir()
    _run_tests(user_cache)
    assert list(user_cache.iterdir()) == []
