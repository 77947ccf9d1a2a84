"""Credentials in URLs, masked for messages: the one redactor every layer uses.

A URL in a message may come from the user (`--index-url http://u:pw@h/`), from pip's
configuration or from an index page; its userinfo is shown as `user:****@` (or `****@` for a
token given as the user name). Pure text work, no parse that can fail.
"""

from __future__ import annotations

import re

# Where a URL's authority (and so its userinfo) ends, for `redact`: a path, white space, or
# the quotes and brackets around a URL quoted in a message. `?` and `#` are left out on purpose:
# a password with an unencoded `#` is still a password, and masking a query's `a@b` too is
# harmless. (A URL is found by its "://", a plain find: a scheme pattern searched for would
# take quadratic time on a long run of letters.)
_AUTHORITY_END = re.compile(r"[/\s'\"<>\\]")


def _mask_userinfo(authority: str) -> str:
    userinfo, at, host = authority.rpartition("@")
    if not at:
        return authority
    shown = f"{userinfo.partition(':')[0]}:****" if ":" in userinfo else "****"
    return f"{shown}@{host}"


def redact(text: str) -> str:
    """A URL (or any text holding URLs) with each userinfo replaced: `user:****@` or `****@`.

    Total: it reads the text, not a parse of it, so a URL that urlsplit refuses (a port past
    65535, an unclosed IPv6 bracket) is redacted as well, and it never raises; it runs inside
    error handlers, where an exception would turn a usage error into an internal one. Text
    without a scheme whose first part holds an `@` (`u:pw@host/simple`) is taken as an
    authority too: showing less of a user's own input is the safe way to be wrong.
    """
    pieces: list[str] = []
    position = 0
    while (mark := text.find("://", position)) >= 0:
        start = mark + 3
        end_match = _AUTHORITY_END.search(text, start)
        end = end_match.start() if end_match else len(text)
        pieces += [text[position:start], _mask_userinfo(text[start:end])]
        position = end
    if not pieces:
        end_match = _AUTHORITY_END.search(text)
        end = end_match.start() if end_match else len(text)
        return _mask_userinfo(text[:end]) + text[end:]
    return "".join(pieces) + text[position:]
