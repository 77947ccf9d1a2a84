"""One module masks credentials (issue 23: the index client, install and fetch each had their
own helper, and each missed a form the others masked): envcheck/urls.py.

The modules that used to mask on their own now call it (the same function objects), no other
module writes the mask, and every form an installer or server may echo a password in (as
given, percent-decoded, percent-encoded) is masked for each of them.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
from packaging.version import Version

from envcheck import urls
from envcheck.acquire.wheelhouse_fetch import TargetPlan, pip_download_command
from envcheck.index.config import resolve_index
from envcheck.index.http import Timeouts
from envcheck.index.wheels import WheelTarget
from envcheck.versions import PythonVersion

PACKAGE = Path(urls.__file__).resolve().parent
PASSWORD = "p@ss/w:rd#42"  # characters a URL must percent-encode
ENCODED = quote(PASSWORD, safe="")
URL = f"https://alice:{ENCODED}@index.invalid/simple/"

# (module, the name it masks with): the three former helpers' modules and their callers.
CALLERS = [
    ("envcheck.index.config", "redact"),
    ("envcheck.acquire.install_run", "secret_masker"),
    ("envcheck.acquire.install_constraints", "redact"),
    ("envcheck.acquire.wheelhouse_fetch", "secret_masker"),
    ("envcheck.cli.commands.fetch", "secret_masker"),
    ("envcheck.cli.commands.install", "secret_masker"),
    ("envcheck.report.install", "secret_masker"),
]


@pytest.mark.parametrize(("module", "name"), CALLERS)
def test_each_former_caller_masks_through_the_one_module(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(urls, name)


def _mask_literals(path: Path) -> list[int]:
    """Lines of string constants (docstrings aside) that write the mask themselves."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and "****" in node.value
        and id(node) not in docstrings
    ]


def test_no_other_module_writes_the_mask() -> None:
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "urls.py" and (lines := _mask_literals(path))
    }
    assert found == {}


@pytest.mark.parametrize(
    "echoed", [PASSWORD, ENCODED, f"GET {URL}"], ids=["as-given", "encoded", "in-a-url"]
)
def test_every_form_of_the_password_is_masked(echoed: str) -> None:
    index = resolve_index(URL, environ={}, files=[])
    maskers: list[Callable[[str], str]] = [
        urls.secret_masker(urls=(URL,)),  # install: the index URL as given
        urls.secret_masker(index.secrets),  # fetch: the credentials split off the URL
    ]
    for mask in maskers:
        shown = mask(f"pip said: {echoed} failed")
        assert PASSWORD not in shown
        assert ENCODED not in shown
        assert "****" in shown


def test_the_index_location_shows_and_hands_on_the_credentials() -> None:
    index = resolve_index(URL, environ={}, files=[])
    assert index.url == "https://index.invalid/simple/"
    assert index.auth == ("alice", PASSWORD)
    assert index.display == "https://alice:****@index.invalid/simple/"
    assert index.with_credentials == URL  # for pip's environment, never printed
    target = WheelTarget.create("win_amd64", PythonVersion(3, 11))
    plan = TargetPlan(target, Version("1"), requirements=(), notes=())
    command = pip_download_command(plan, index, Path("d"), Timeouts(1, 1), ("pip",))
    assert not any(ENCODED in part or PASSWORD in part for part in command)
