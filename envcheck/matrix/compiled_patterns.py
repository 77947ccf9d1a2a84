"""The log signatures' regular expressions as compiled once: their regex engine code, kept.

`re.compile` parses a pattern and builds its engine code in pure Python: the ~300 patterns of
the log signatures and NVIDIA's result codes took a third of `envcheck explain`'s start-up,
which on a 100 MB log is as long as the scan itself (issue 22, item 3). The code the engine
runs (`_sre.compile`'s arguments) is kept with the parsed matrix files (parsed_cache, in one
entry per set of patterns), and the next run builds each pattern from it, as `re.compile` would
have after parsing: the Pattern is equal to `re.compile`'s (same pattern, flags and code).

The entry's name holds the interpreter's version and its engine's magic number, so another
Python never meets code it did not build; the engine checks code it is given, and anything
that does not build (or a Python without these internals) is compiled by `re.compile`.
"""

from __future__ import annotations

import array
import base64
import importlib
import re
import sys
from collections.abc import Iterable
from typing import Any

from envcheck.matrix import parsed_cache

# The engine's code words as kept: native unsigned 32-bit integers (CODESIZE 4), base64. Read
# back by array in C, it builds 882 patterns in a fifth of the time that splitting a string of
# decimals took (~20 ms of explain's start-up).
_WORD = "I"

try:  # CPython's internals; elsewhere every pattern is compiled by re.compile
    _sre: Any = importlib.import_module("_sre")
    _parser: Any = importlib.import_module(
        "re._parser" if sys.version_info >= (3, 11) else "sre_parse"
    )
    _compiler: Any = importlib.import_module(
        "re._compiler" if sys.version_info >= (3, 11) else "sre_compile"
    )
    _ENGINE = f"{sys.version}\t{_sre.MAGIC}\t{_sre.CODESIZE}\t{_sre.MAXGROUPS}\t{sys.byteorder}"
    if array.array(_WORD).itemsize != _sre.CODESIZE:  # pragma: no cover (no such CPython)
        _ENGINE = ""
except (ImportError, AttributeError):  # pragma: no cover (another interpreter)
    _ENGINE = ""

_FORMAT = "compiled-patterns-2"
_BUILT: dict[str, re.Pattern[str]] = {}


def prime(texts: Iterable[str]) -> None:
    """Build the patterns `texts` (flags 0) from their kept code, or compile them and keep their
    code for the next run; compiled() then answers them."""
    keys = sorted(set(texts) - set(_BUILT))
    if not keys or not _ENGINE:
        return
    content = "\n\0".join([_FORMAT, _ENGINE, *keys]).encode("utf-8", "surrogatepass")
    cached = parsed_cache.load(content)
    entries = cached.get("patterns") if cached is not None else None
    built = _from_entries(keys, entries) if isinstance(entries, list) else None
    if built is None:
        made = [_entry(text) for text in keys]
        parsed_cache.store(content, {"patterns": [entry for entry, _ in made]})
        built = {text: pattern for text, (_, pattern) in zip(keys, made) if pattern is not None}
    _BUILT.update(built)


def compiled(text: str) -> re.Pattern[str]:
    """re.compile(text), built from the kept code where prime() was told of `text`."""
    found = _BUILT.get(text)
    return found if found is not None else re.compile(text)


def _entry(text: str) -> tuple[list[Any], re.Pattern[str] | None]:
    """What is kept of `text` ([] where it does not compile: re.compile then tells why), and
    its Pattern."""
    try:
        parsed = _parser.parse(text, 0)
        # (Kept as one string: the cache's checks walk every item of a JSON list.)
        words = array.array(_WORD, _compiler._code(parsed, 0))
        code = base64.b64encode(words.tobytes()).decode("ascii")
        state = parsed.state
        entry = [int(state.flags), code, state.groups, dict(state.groupdict)]
        pattern = _built(text, entry)
    except (re.error, RecursionError, OverflowError, RuntimeError, TypeError, ValueError):
        return [], None
    return entry, pattern


def _from_entries(keys: list[str], entries: list[Any]) -> dict[str, re.Pattern[str]] | None:
    """The patterns built from kept entries; None unless every entry builds."""
    if len(entries) != len(keys):
        return None
    built = {}
    for text, entry in zip(keys, entries):
        if entry == []:
            continue
        try:
            built[text] = _built(text, entry)
        except (RuntimeError, TypeError, ValueError, OverflowError, IndexError, KeyError):
            return None
    return built


def _built(text: str, entry: list[Any]) -> re.Pattern[str]:
    """The Pattern of `text` from its code, as the compiler makes it (ValueError where the
    entry is not of that shape; the engine raises RuntimeError on code it cannot run)."""
    flags, code, groups, groupindex = entry
    if not (
        isinstance(flags, int)
        and isinstance(groups, int)
        and groups >= 1
        and isinstance(code, str)
        and isinstance(groupindex, dict)
        and all(type(i) is int and 0 < i < groups for i in groupindex.values())
    ):
        raise ValueError(text)
    indexgroup: list[str | None] = [None] * groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # ValueError where it is not base64 of whole words (binascii.Error is one)
    words = array.array(_WORD, base64.b64decode(code, validate=True)).tolist()
    pattern: re.Pattern[str] = _sre.compile(
        text, flags, words, groups - 1, groupindex, tuple(indexgroup)
    )
    return pattern
