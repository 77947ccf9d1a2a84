"""Write a file so that it is either wholly new or untouched: never half-written, never destroyed.

The text goes to a temporary file beside the target, is flushed to disk and read back, and only
then renamed over the target (atomic on one file system). The file gets the mode a plain open()
would give it (0666 less the umask), or keeps the mode of the file it replaces. A symlink is
followed: its target is replaced and the link kept. What is not a regular file (a device such as
/dev/null, a FIFO, /dev/stdout) is written in place, never replaced. A file envcheck keeps in a
directory of its own (the wheelhouse manifest) is written with `follow_links=False`: a link or
special file at its name is refused instead.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from envcheck.errors import EnvcheckError, InputError

_ATTEMPTS = 100  # temporary names tried before giving up (tempfile tries as many)


def check_writable(target: str, option: str = "-o") -> Path:
    """The path `target` names, checked before the work whose result it will hold (the doctor
    can run for minutes): InputError when it is empty, a directory, or in a directory that is
    missing or cannot take a new file."""
    if not target:
        raise InputError(f"{option} '': no file name given; name the file to write")
    path = Path(target)
    if target.endswith(("/", os.sep)) or path.is_dir():
        raise InputError(f"{option} {target!r} cannot be written: it is a directory")
    if _is_special(path):  # a device or a FIFO is written in place: can it be opened for that?
        if not os.access(path, os.W_OK):
            raise InputError(f"{option} {target!r} cannot be written: permission denied")
        return path
    destination = _destination(path)
    directory = _directory(destination, option)
    handle, temporary = _create_temporary(destination, directory, option)
    os.close(handle)
    temporary.unlink(missing_ok=True)
    return path


def write_atomically(
    path: Path,
    text: str,
    option: str = "-o",
    error: type[EnvcheckError] = InputError,
    follow_links: bool = True,
) -> None:
    """Write `text` to `path`; `error` (InputError: the user named a place that cannot take
    it) naming `option` when the place cannot take it. The one writer of every file envcheck
    writes: reports, constraints files, the wheelhouse manifest. `follow_links` False: a file
    envcheck owns inside a directory (the manifest), where a symlink or a special file at its
    name is refused (InputError naming it), never written through; the rename then replaces
    whatever the name is, never what it points at."""
    if not follow_links:
        _refuse_non_file(path, option)
    if path.is_dir():
        raise error(f"{option} {str(path)!r} cannot be written: it is a directory")
    data = text.encode("utf-8")
    if _is_special(path):
        # /dev/null, /dev/stdout, a FIFO: renaming a file over it would destroy it (as root, a
        # Docker build's `-o /dev/null` made /dev/null a plain file), so it is written in place.
        _write_in_place(path, data, option, error)
        return
    label, path = path, _destination(path)  # a symlink stays; its target is replaced
    directory = _directory(path, option, error)
    handle, temporary = _create_temporary(path, directory, option, error)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if temporary.read_bytes() != data:
            raise error(f"{option} {str(label)!r}: the written file did not read back intact")
        _keep_mode(path, temporary)
        temporary.replace(path)
    except OSError as exc:
        raise error(f"{option} {str(label)!r} cannot be written: {exc.strerror or exc}") from exc
    finally:
        temporary.unlink(missing_ok=True)


def _refuse_non_file(path: Path, option: str) -> None:
    try:
        mode = path.lstat().st_mode
    except OSError:
        return  # missing (to be created), or unreadable: the write says why
    if stat.S_ISREG(mode):
        return
    what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
    raise InputError(
        f"{option} {str(path.parent)!r}: {path.name!r} is {what}, where envcheck keeps a "
        "regular file of its own (writing through it could change a file elsewhere); remove "
        "it and run again"
    )


def _is_special(path: Path) -> bool:
    """Whether `path` (followed through symlinks) exists and is neither a file nor a folder."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _destination(path: Path) -> Path:
    """The file a symlink finally names (replaced atomically, the link kept); else `path`."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _write_in_place(path: Path, data: bytes, option: str, error: type[EnvcheckError]) -> None:
    try:
        with path.open("wb") as stream:
            stream.write(data)
            stream.flush()
    except OSError as exc:
        raise error(f"{option} {str(path)!r} cannot be written: {exc.strerror or exc}") from exc


def _directory(path: Path, option: str, error: type[EnvcheckError] = InputError) -> Path:
    directory = path.parent if str(path.parent) else Path()
    if not directory.is_dir():
        raise error(f"{option} {str(path)!r}: the directory {str(directory)!r} does not exist")
    return directory


def _create_temporary(
    path: Path, directory: Path, option: str, error: type[EnvcheckError] = InputError
) -> tuple[int, Path]:
    """A new, empty, private-named file beside `path`, opened for writing.

    Created with mode 0666 like open() does, so the umask decides the final mode: mkstemp's
    0600 would survive the rename and hide a report that the user's umask shares.
    """
    # O_EXCL alone already refuses any existing name, links included; O_NOFOLLOW says so too,
    # where a link could otherwise be followed.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0)
    for _ in range(_ATTEMPTS):
        temporary = directory / f".{path.name}.{os.urandom(6).hex()}.tmp"
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue
        except OSError as exc:
            raise error(
                f"{option} {str(path)!r}: cannot write in {str(directory)!r}: {exc.strerror or exc}"
            ) from exc
    raise error(f"{option} {str(path)!r}: no free temporary name in {str(directory)!r}")


def _keep_mode(path: Path, temporary: Path) -> None:
    """Give the new file the permission bits of the file it replaces, if there is one."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return  # a new file: the umask has decided
    temporary.chmod(mode)
