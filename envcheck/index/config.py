"""Where the package index is: --index-url, else pip's own configuration, else pip's default.

Mirrors what `pip download` reads: the PIP_INDEX_URL variable, then `index-url` in the
[download] and [global] sections of pip's configuration files (global, user, site, then
PIP_CONFIG_FILE; a later file wins, a command section beats [global]; PIP_CONFIG_FILE=os.devnull
skips every file), and last pip's built-in default, asked from pip at run time so that no
registry host is written here. Credentials are split off the URL before anything is requested,
and only the redacted form (`user:****@host`) is ever shown. This module requests nothing.
"""

from __future__ import annotations

import configparser
import importlib
import os
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from envcheck.bounded_input import NotRegularFileError, UnsuitableFileError, read_regular_file
from envcheck.errors import InputError
from envcheck.record import record
from envcheck.urls import auth_secrets, redact, split_credentials, with_credentials

# pip's own command whose configuration `envcheck fetch` follows: its [download] section.
MAX_CONFIG_BYTES = 16 * 1024 * 1024  # a pip.conf is a few lines
PIP_COMMAND = "download"


@record
class IndexLocation:
    """The index's simple-API root, without credentials, and how it was found."""

    url: str  # always ends with "/"; never holds user or password
    auth: tuple[str, str] | None  # (user, password) split off the configured URL
    found_via: str  # "--index-url", "PIP_INDEX_URL", "pip configuration FILE [global]", ...
    cert: str | None = None  # pip's `cert` setting (a CA bundle) when configured

    @property
    def display(self) -> str:
        """The URL as it may be printed: `user:****@host` or `****@host` for a bare token."""
        return redact(self.with_credentials)

    @property
    def with_credentials(self) -> str:
        """The URL with its credentials, for a child's environment (never for a message)."""
        return with_credentials(self.url, self.auth)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The strings that must never appear in output (for a last scrub of messages)."""
        return auth_secrets(self.auth)


def pip_config_files(
    environ: Mapping[str, str],
    system: str = sys.platform,
    home: Path | None = None,
    prefix: str = sys.prefix,
) -> list[Path]:
    """pip's configuration files in the order pip reads them (later ones win).

    As pip's `configuration.py` and `utils/appdirs.py` (pip 23-26) locate them: global
    (XDG_CONFIG_DIRS/pip and /etc on Unix), user (~/.pip and the XDG/AppData directory; skipped
    when PIP_CONFIG_FILE names an existing file), site (`sys.prefix`), then PIP_CONFIG_FILE.
    """
    env_file = environ.get("PIP_CONFIG_FILE")
    if env_file == os.devnull:
        return []
    home = Path.home() if home is None else home
    windows, mac = system == "win32", system == "darwin"
    basename = "pip.ini" if windows else "pip.conf"
    if windows:
        global_dirs = [Path(environ.get("PROGRAMDATA", "C:\\ProgramData")) / "pip"]
        user_dirs = [home / "pip", Path(environ.get("APPDATA", str(home))) / "pip"]
    elif mac:
        global_dirs = [Path("/Library/Application Support/pip")]
        library = home / "Library" / "Application Support" / "pip"
        user_dirs = [home / ".pip", library if library.is_dir() else home / ".config" / "pip"]
    else:
        xdg_dirs = environ.get("XDG_CONFIG_DIRS") or "/etc/xdg"
        global_dirs = [Path(d) / "pip" for d in xdg_dirs.split(os.pathsep) if d] + [Path("/etc")]
        config_home = environ.get("XDG_CONFIG_HOME") or str(home / ".config")
        user_dirs = [home / ".pip", Path(config_home) / "pip"]
    files = [d / basename for d in global_dirs]
    if not (env_file and Path(env_file).exists()):
        files += [d / basename for d in user_dirs]
    files.append(Path(prefix) / basename)
    if env_file:
        files.append(Path(env_file))
    return files


@record
class PipSetting:
    value: str
    found_via: str


def _normalize_key(key: str) -> str:
    # pip's configuration._normalize_name: index_url, INDEX-URL and --index-url are one key.
    return key.lower().replace("_", "-").removeprefix("--")


def read_pip_setting(
    key: str, environ: Mapping[str, str], files: Sequence[Path], command: str = PIP_COMMAND
) -> PipSetting | None:
    """One pip setting: PIP_<KEY>, else [command] of any file, else [global]; later files win."""
    variable = "PIP_" + key.upper().replace("-", "_")
    if environ.get(variable, "").strip():
        return PipSetting(environ[variable].strip(), variable)
    found: dict[str, PipSetting] = {}
    for path in files:
        parser = configparser.RawConfigParser()
        parser.optionxform = _normalize_key  # type: ignore[assignment,method-assign]
        try:
            data = read_regular_file(path, MAX_CONFIG_BYTES)
        except UnsuitableFileError as exc:  # a FIFO waits for a writer for ever, a device
            if isinstance(exc, NotRegularFileError) and stat.S_ISDIR(exc.mode):
                continue  # skipped, as pip (and parser.read) skip what open() refuses
            raise InputError(
                f"pip's configuration file {str(path)!r} {exc}; fix it, or pass --index-url"
            ) from None
        except OSError:
            continue  # missing or unreadable: skipped, as pip (and parser.read) skip it
        try:
            parser.read_string(data.decode("utf-8"), source=str(path))
        except (configparser.Error, UnicodeDecodeError) as exc:
            raise InputError(
                f"pip's configuration file {str(path)!r} cannot be read: {exc}; fix it, or "
                "pass --index-url"
            ) from exc
        for section in ("global", command):
            if parser.has_option(section, key):
                found[section] = PipSetting(
                    parser.get(section, key).strip(), f"pip configuration {path} [{section}]"
                )
    setting = found.get(command) or found.get("global")
    return setting if setting is not None and setting.value else None


def pip_default_index() -> str | None:
    """pip's built-in index (its `PyPI.simple_url`), asked from the installed pip."""
    try:
        module = importlib.import_module("pip._internal.models.index")
    except ImportError:
        return None
    url = getattr(getattr(module, "PyPI", None), "simple_url", None)
    return url if isinstance(url, str) else None


def resolve_index(
    explicit: str | None,
    environ: Mapping[str, str] | None = None,
    files: Sequence[Path] | None = None,
    default_index: Callable[[], str | None] = pip_default_index,
    option: str = "--index-url",
) -> IndexLocation:
    """The index to use: `explicit` (given as `option`), else pip's configuration, else pip's
    default."""
    env = os.environ if environ is None else environ
    config_files = pip_config_files(env) if files is None else files
    cert = read_pip_setting("cert", env, config_files)
    if explicit is not None and explicit.strip():
        url, found_via = explicit.strip(), option
    else:
        setting = read_pip_setting("index-url", env, config_files)
        if setting is not None:
            url, found_via = setting.value.split()[0], setting.found_via
        else:
            default = default_index()
            if default is None:
                raise InputError(
                    "no package index is configured and pip is not installed to tell its "
                    "default; pass --index-url URL or set PIP_INDEX_URL"
                )
            url, found_via = default, "pip's default index"
    return _location(url, found_via, cert.value if cert else None)


def check_index_url(url: str, option: str, allow_file: bool = False) -> str:
    """`url` stripped; InputError (the URL redacted) unless it can be an index's root: for a
    URL that is read only later (--torch-index-url) or by an installer (`allow_file`: pip and
    uv also read a file:// index), checked before any work."""
    _location(url.strip(), option, None, allow_file)
    return url.strip()


def _location(
    url: str, found_via: str, cert: str | None, allow_file: bool = False
) -> IndexLocation:
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
    except ValueError as exc:  # an unclosed or invalid IPv6 literal such as http://[::1:80/
        raise InputError(
            f"index URL {redact(url)!r} (from {found_via}) is not a valid URL ({exc}); an IPv6 "
            "address goes in brackets, e.g. http://[::1]:8080/simple/"
        ) from None
    if allow_file and parts.scheme == "file":
        return IndexLocation(url=url, auth=None, found_via=found_via, cert=cert)
    if allow_file and (parts.scheme not in ("http", "https") or not hostname):
        raise InputError(
            f"index URL {redact(url)!r} (from {found_via}) is not an http(s):// or file:// URL "
            "of a package index's simple API (e.g. https://HOST/simple/)"
        )
    if parts.scheme not in ("http", "https") or not hostname:
        raise InputError(
            f"index URL {redact(url)!r} (from {found_via}) is not an http(s) URL; envcheck "
            "fetch reads an index's simple API over HTTP, e.g. http://127.0.0.1:8080/simple/"
        )
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when it is asked for
    except ValueError:
        port = parts.netloc.rpartition(":")[2]
        raise InputError(
            f"index URL {redact(url)!r} (from {found_via}): port {port} is not a port (0-65535)"
        ) from None
    clean, auth = split_credentials(url)
    clean = clean.split("#", 1)[0]
    if not clean.endswith("/"):
        clean += "/"
    return IndexLocation(url=clean, auth=auth, found_via=found_via, cert=cert)
