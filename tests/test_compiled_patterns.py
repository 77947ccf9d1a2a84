"""The signatures' regular expressions built from kept engine code
(envcheck.matrix.compiled_patterns): equal to what re.compile makes, read back from the cache on
the next run, and compiled afresh wherever the kept code is wrong or cannot be kept."""

from __future__ import annotations

import array
import base64
import re
from pathlib import Path
from typing import Any

import pytest

from envcheck.matrix import compiled_patterns, parsed_cache
from envcheck.matrix.error_codes import error_signatures, load_error_codes
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.signatures import load_signatures


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVCHECK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(compiled_patterns, "_BUILT", {})


def _same(one: re.Pattern[str], other: re.Pattern[str]) -> bool:
    # (Pattern equality is its text, flags and engine code.)
    return (one, one.groups, one.groupindex) == (other, other.groups, other.groupindex)


def test_the_bundled_signatures_are_built_as_re_compiles_them_from_the_kept_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    matrix = bundled_matrix_dir()
    load_signatures(matrix)  # compiles and keeps the code
    error_signatures(load_error_codes(matrix))
    monkeypatch.setattr(compiled_patterns, "_BUILT", {})

    def no_compiling(*_: Any) -> Any:
        raise AssertionError("compiled again")

    with monkeypatch.context() as patched:
        patched.setattr(compiled_patterns._compiler, "_code", no_compiling)
        signatures = [*load_signatures(matrix), *error_signatures(load_error_codes(matrix))]
    assert len(compiled_patterns._BUILT) > 200
    for signature in signatures:
        assert _same(signature.pattern, re.compile(signature.pattern.pattern)), signature.id
        for _, regex, _ in signature.code_when:
            assert _same(regex, re.compile(regex.pattern))


def kept(*words: int) -> str:
    """Code words as an entry keeps them (native 32-bit words, base64)."""
    return base64.b64encode(array.array("I", words).tobytes()).decode("ascii")


@pytest.mark.parametrize(
    "entry",
    [
        [32, kept(999999, 1, 2), 1, {}],  # code the engine will not run
        [32, "1,x", 1, {}],  # not base64
        [32, "AAA=", 1, {}],  # not whole words
        [32, kept(1), 0, {}],  # no group 0
        ["32", kept(1), 1, {}],
        [32, kept(1), 1, {"name": 5}],  # a group past the count
        [32, kept(1)],
    ],
)
def test_kept_code_that_is_wrong_is_compiled_afresh(
    monkeypatch: pytest.MonkeyPatch, entry: list[Any]
) -> None:
    text = r"libcudnn\.so\.(?P<major>\d+)"
    monkeypatch.setattr(parsed_cache, "load", lambda _: {"patterns": [entry]})
    compiled_patterns.prime([text])
    assert _same(compiled_patterns.compiled(text), re.compile(text))


def test_a_pattern_that_does_not_compile_still_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled_patterns.prime(["(unclosed", "fine"])
    with pytest.raises(re.error):
        compiled_patterns.compiled("(unclosed")
    compiled_patterns._BUILT.clear()
    with monkeypatch.context() as patched:
        patched.setattr(compiled_patterns._compiler, "_code", None)  # from the kept entry now
        compiled_patterns.prime(["(unclosed", "fine"])
    assert _same(compiled_patterns.compiled("fine"), re.compile("fine"))
    with pytest.raises(re.error):
        compiled_patterns.compiled("(unclosed")
