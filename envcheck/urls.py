"""Credentials in URLs: the one module that splits them off, puts them back, and masks them.

A URL in a message may come from the user (`--index-url http://u:pw@h/`), from pip's
configuration or from an index page; its userinfo is shown as `user:****@` (or `****@` for a
token given as the user name). An installer's output may also hold the bare password, as given
or percent-decoded: `secret_masker` masks those too. Every layer that shows a URL or relays
another program's output masks through here (install, fetch, the index client, the recipes).
Pure text work, no parse that can fail.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from urllib.parse import quote, unquote, urlsplit, urlunsplit

# Where a URL's authority (and so its userinfo) ends, for `redact`: a path, white space, or
# the quotes and brackets around a URL quoted in a message. `?` and `#` are left out on purpose:
# a password with an unencoded `#` is still a password, and masking a query's `a@b` too is
# harmless. (A URL is found by its "://", a plain find: a scheme pattern searched for would
# take quadratic time on a long run of letters.)
_AUTHORITY_END = re.compile(r"[/\s'\"<>\\]")
# A bare secret (not inside a URL) is masked only when it is long enough not to hit ordinary
# words of an installer's output.
MIN_BARE_SECRET = 3


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


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """`https://u:p@host/x` -> (`https://host/x`, ("u", "p")), user and password
    percent-decoded; URLs without userinfo unchanged. ValueError for a URL urlsplit refuses."""
    parts = urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return url, None
    user, _, password = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=host)), (unquote(user), unquote(password))


def with_credentials(url: str, auth: tuple[str, str] | None) -> str:
    """`url` with `auth` put back as its userinfo (percent-encoded): for a child process's
    environment, never for a message (`redact` it first)."""
    if auth is None:
        return url
    user, password = auth
    userinfo = quote(user, safe="") + (":" + quote(password, safe="") if password else "")
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{userinfo}@{parts.netloc}"))


def auth_secrets(auth: tuple[str, str] | None) -> tuple[str, ...]:
    """The part of split-off credentials that is secret: the password, or the user name when
    there is none (a token)."""
    if auth is None:
        return ()
    user, password = auth
    return (password,) if password else (user,)


def url_secrets(url: str | None) -> tuple[str, ...]:
    """The secret of a URL's userinfo, read as text (a URL urlsplit refuses has one too)."""
    if not url:
        return ()
    text = url.strip()
    mark = text.find("://")
    start = mark + 3 if mark >= 0 else 0
    end_match = _AUTHORITY_END.search(text, start)
    authority = text[start : end_match.start() if end_match else len(text)]
    userinfo, at, _ = authority.rpartition("@")
    if not at:
        return ()
    user, colon, password = userinfo.partition(":")
    return auth_secrets((user, password if colon else ""))


def secret_masker(
    secrets: Iterable[str] = (), urls: Iterable[str | None] = ()
) -> Callable[[str], str]:
    """A function that redacts every URL of a text and masks the given secrets (and those of
    `urls`) wherever they appear on their own: as given, percent-decoded or percent-encoded,
    as installers and servers may echo them. Never raises."""
    found = {s for url in urls for s in url_secrets(url)} | set(secrets)
    forms = {form for s in found for form in (s, unquote(s), quote(s, safe=""))}
    ordered = sorted((s for s in forms if len(s) >= MIN_BARE_SECRET), key=len, reverse=True)

    def mask(text: str) -> str:
        text = redact(text)
        for secret in ordered:
            text = text.replace(secret, "****")
        return text

    return mask
