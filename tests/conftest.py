"""The test session's own cache folder: envcheck keeps each matrix file's parse in the user's
cache (envcheck/matrix/parsed_cache.py), and a test run must neither read the user's entries
(a test would then pass on what an older checkout wrote) nor leave its own there.

Set in pytest_configure, before collection: test modules load the matrix when they are
imported, and every child process a test starts inherits the variables. A test that wants a
cache of its own still sets ENVCHECK_CACHE_DIR or XDG_CACHE_HOME itself.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

# The variables that choose the cache folder (parsed_cache.cache_dir), in the order it reads
# them (LOCALAPPDATA on Windows, XDG_CACHE_HOME elsewhere). HOME is left alone: children (pip, the real venvs) read
# their configuration from it, and with XDG_CACHE_HOME set envcheck never looks there.
_CHOOSERS = (
    "ENVCHECK_CACHE_DIR",
    "LOCALAPPDATA" if sys.platform == "win32" else "",
    "XDG_CACHE_HOME",
)
_SAVED: dict[str, str | None] = {}
_FOLDER: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    del config
    if _FOLDER:  # a nested session in this process (pytester): already redirected
        return
    folder = tempfile.mkdtemp(prefix="envcheck-test-cache-")
    _FOLDER.append(folder)
    for name in filter(None, _CHOOSERS):
        _SAVED[name] = os.environ.pop(name, None)
        if name != "ENVCHECK_CACHE_DIR":
            os.environ[name] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    del config
    if not _FOLDER:
        return
    shutil.rmtree(_FOLDER.pop(), ignore_errors=True)
    for name, value in _SAVED.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _SAVED.clear()
