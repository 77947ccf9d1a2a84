"""envcheck/digests.py: SHA-256 from CPython's built-in module, the same digests as hashlib's."""

from __future__ import annotations

import hashlib
import importlib
import subprocess
import sys

import pytest

from envcheck import digests

# (The 1 MB and 64 KB inputs are at or past the size from which OpenSSL's SHA-256 answers.)
INPUTS = [b"", b"abc", b"\x00" * 1000, bytes(range(256)) * 4097, "κ".encode() * 70, b"x" * 65536]


@pytest.mark.parametrize("data", INPUTS, ids=lambda d: f"{len(d)} bytes")
def test_the_digest_is_hashlibs(data: bytes) -> None:
    assert digests.sha256_hex(data) == hashlib.sha256(data).hexdigest()
    fed = digests.sha256()
    for start in range(0, len(data), 1000):
        fed.update(data[start : start + 1000])
    assert fed.digest() == hashlib.sha256(data).digest()


def test_without_a_built_in_module_hashlib_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_built_in(name: str, package: str | None = None) -> object:
        if name in ("_sha2", "_sha256"):
            raise ImportError(name)
        return real(name, package)

    digests._constructor.cache_clear()
    monkeypatch.setattr(importlib, "import_module", no_built_in)
    try:
        assert digests._constructor() is hashlib.sha256
        assert digests.sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()
    finally:
        digests._constructor.cache_clear()  # the next caller finds the built-in one again


def test_openssl_is_not_loaded_for_it() -> None:
    # The point of the module: a fresh interpreter that makes a digest has not loaded hashlib's
    # OpenSSL binding (CPython builds SHA-256 in; this one does).
    code = (
        "import sys\n"
        "from envcheck import digests\n"
        "print(digests.sha256_hex(b'abc'))\n"
        "print('_hashlib' in sys.modules, 'hashlib' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [hashlib.sha256(b"abc").hexdigest(), "False", "False"]
