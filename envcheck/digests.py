"""SHA-256, from CPython's own built-in implementation where the interpreter has one.

Every digest envcheck makes itself is SHA-256: the parsed-matrix cache's keys, a verdict's
fingerprint, a wheel RECORD's file hash. `hashlib` loads OpenSSL's libcrypto to offer every
algorithm, ~3 ms of a doctor that answers in ~0.15 s; CPython also builds SHA-256 in (`_sha2`
from 3.12, `_sha256` before), the module hashlib itself falls back on without OpenSSL. The same
algorithm gives the same digests (tests/test_digests.py holds them to hashlib's); an interpreter
built without it gets hashlib's. An input of 64 KB or more goes to hashlib all the same:
OpenSSL's SHA-256 is several times faster where the CPU has SHA instructions, and then pays for
its loading. Downloads check whatever algorithm an index names, through hashlib (envcheck/index/).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Protocol


class Hasher(Protocol):
    def update(self, data: bytes, /) -> None: ...

    def digest(self) -> bytes: ...

    def hexdigest(self) -> str: ...


_BUILT_IN = ("_sha2", "_sha256")  # CPython's module names, newest first


@functools.cache
def _constructor() -> Callable[[bytes], Hasher]:
    for name in _BUILT_IN:
        try:
            made: Callable[[bytes], Hasher] = importlib.import_module(name).sha256
            return made
        except (ImportError, AttributeError):
            continue
    import hashlib  # noqa: PLC0415 - only where CPython has no SHA-256 of its own

    return hashlib.sha256


def sha256(data: bytes = b"") -> Hasher:
    """A SHA-256 hasher, fed `data` so far."""
    return _constructor()(data)


# From this size on, hashlib's SHA-256 (OpenSSL's, with the CPU's SHA instructions where it has
# them) is used: the parsed-matrix cache's keys on every explain hash 3.7 MB of matrix files and
# cache entries (up to ~580 KB each), 11 ms built in against 2 ms in OpenSSL plus 2.5 ms to
# import hashlib once; the small inputs (a verdict's fingerprint) never load it.
_OPENSSL_FROM = 64 * 1024


@functools.cache
def _openssl() -> Callable[[bytes], Hasher]:
    import hashlib  # noqa: PLC0415 - loaded only when a big input pays for it

    return hashlib.sha256


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data`, in lowercase hex (the same digest whichever module makes it)."""
    if len(data) >= _OPENSSL_FROM:
        return _openssl()(data).hexdigest()
    return sha256(data).hexdigest()
