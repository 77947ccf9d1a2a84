"""Read ELF (.so) and PE (.dll) shared libraries as data: bitness, machine, soname, dependencies,
RUNPATH/RPATH and exported names.

This is how envcheck explains loader errors without triggering them: a 32-bit DLL in a 64-bit
Python (Windows error 193), a dependency the search path lacks (error 126, e.g. the cuDNN 8.3+
sub-libraries importing zlibwapi.dll), or the $ORIGIN-relative RUNPATH through which TensorFlow
2.14+ finds the pip nvidia-* wheels (docs/facts.md sections 5.3 and 6).

It must never load the file it reads: no ctypes, dlopen or LoadLibrary, no executable mapping.
A library's constructors must not run and a broken file must not crash or hang the probe. Bad
files are facts, not errors: `read_binary` never raises for them; `problems` says what is wrong.

ELF files are read by hand with `struct`, the way ld.so reads them: the ELF header, the program
headers, the PT_DYNAMIC entries and their strings through DT_STRTAB, with bounded reads only. That
is for speed: `envcheck doctor` must take a fraction of `import tensorflow`, and pyelftools costs
30-60 ms to import plus about 15 ms per read of TensorFlow's 65 MB libtensorflow_framework.so.2
(it walks every section header to find .dynstr), where this reader needs about 0.1 ms. The
exported-symbol list (`exports=True`) is still pyelftools' work, imported only then: the dynamic
symbol table is a bigger job. PE files are parsed by pefile; this module only picks the few
structures it needs.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import importlib
import mmap
import os
import platform
import re
import stat
import struct
import sys
import sysconfig
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Union

from envcheck.probe import file_system
from envcheck.record import record

FORMAT_ELF = "elf"
FORMAT_PE = "pe"
FORMAT_UNKNOWN = "unknown"

_ELF_MAGIC = b"\x7fELF"
_PE_DOS_MAGIC = b"MZ"

# PE IMAGE_FILE_HEADER.Machine values (winnt.h; docs/facts.md section 6.4).
_PE_MACHINES = {
    0x014C: "i386",
    0x8664: "x86_64",
    0xAA64: "arm64",
    0x0200: "ia64",
    0x01C0: "arm",  # IMAGE_FILE_MACHINE_ARM
    0x01C4: "arm",  # IMAGE_FILE_MACHINE_ARMNT (Thumb-2, what 32-bit Windows on ARM uses)
}
# PE optional-header Magic: PE32 and PE32+ (docs/facts.md section 6.4).
_PE_MAGIC_BITS = {0x10B: 32, 0x20B: 64}
# The same architecture under its ELF name and its PE / macOS name.
_SAME_ARCH = {"arm64": "aarch64"}

# Symbol types counted as exports. Value 10 is STT_GNU_IFUNC on GNU systems; pyelftools calls it
# STT_LOOS. glibc exports memcpy, strlen and friends as IFUNCs, so leaving them out would hide
# real functions.
_EXPORTED_SYMBOL_TYPES = frozenset({"STT_FUNC", "STT_OBJECT", "STT_GNU_IFUNC", "STT_LOOS"})
_DOS_HEADER_SIZE = 64
_PE_E_LFANEW_OFFSET = 0x3C
_PE_COFF_HEADER_SIZE = 20
_PE_SECTION_HEADER_SIZE = 40
_PE_COFF_SYMBOL_SIZE = 18
_PE_SECURITY_DIRECTORY = 4  # IMAGE_DIRECTORY_ENTRY_SECURITY: its address is a file offset
# Counts far above what a linker writes (cuDNN's DLLs import about ten DLLs, from seven
# sections), checked before pefile walks them: it keeps an object per descriptor, and a million
# import descriptors took 2 minutes and 1 GB (issue 24, 8). Past a limit the file is malformed.
_PE_MAX_SECTIONS = 1024
_PE_MAX_IMPORT_DESCRIPTORS = 4096
# (data directory index, descriptor size, name) of IMAGE_IMPORT_DESCRIPTOR and
# IMAGE_DELAYLOAD_DESCRIPTOR; each array ends with an all-zero descriptor.
_PE_IMPORT_TABLES = ((1, 20, "import"), (13, 32, "delay-load import"))
_NOT_BINARY_SAMPLE = 64
# ERROR_CANT_RESOLVE_FILENAME: Windows' answer for a symlink loop, where Linux says ELOOP.
_WINERROR_CANT_RESOLVE = 1921
# Tab, newline, carriage return, printable ASCII and the bytes of UTF-8 multi-byte characters.
_TEXT_BYTES = frozenset({0x09, 0x0A, 0x0D, *range(0x20, 0x7F), *range(0x80, 0x100)})

# $ORIGIN or ${ORIGIN}; ld.so takes "$ORIGIN" only when no name character follows it.
_ORIGIN = re.compile(r"\$(?:ORIGIN(?![A-Za-z0-9_])|\{ORIGIN\})")
_SO_VERSION = re.compile(r"\.so\.(\d+(?:\.\d+)*)$")

_Buffer = Union[bytes, mmap.mmap]


@record
class BinaryInfo:
    """What the headers of one file say, read without loading it.

    `format` is "unknown" when the file could not be read or is neither ELF nor PE; `problems`
    then says why. Facts that were not found are None or empty, never guessed.
    """

    path: str
    format: str  # "elf" | "pe" | "unknown"
    bits: int | None  # 32 or 64
    # "x86_64", "i386", "aarch64", "arm", "arm64" (PE 0xAA64), "ia64" or "unknown(0x...)"
    machine: str | None
    soname: str | None  # ELF DT_SONAME; None for PE
    # ELF DT_NEEDED in order; PE imported DLL names (normal, then delay-load), original case
    needed: tuple[str, ...]
    runpath: tuple[str, ...]  # ELF DT_RUNPATH split on ':' as written ($ORIGIN unexpanded)
    rpath: tuple[str, ...]  # ELF DT_RPATH likewise
    # ELF: dynamic symbols defined in the file (functions, objects, IFUNCs); PE: export names
    exports: tuple[str, ...]
    problems: tuple[str, ...]  # human sentences; empty when the file read cleanly


# (path as given, exports) -> what read_binary found, while read_once() is active in this
# thread: the library search, the libraries' probe and the frameworks' loader model read the
# same ~70 files 125 times on a TensorFlow + torch environment.
_READ_ONCE: contextvars.ContextVar[dict[tuple[str, bool], BinaryInfo] | None] = (
    contextvars.ContextVar("envcheck_binaries_read_once", default=None)
)


@contextlib.contextmanager
def read_once() -> Iterator[None]:
    """Within the block, read_binary reads each file once (in this thread); a probe that asks
    about the same files from several places wraps itself in it, so no file changed later
    (a test rewriting a binary, a long-lived process) is ever answered from a stale read."""
    token = _READ_ONCE.set({})
    try:
        with file_system.resolved_once():  # the same files' paths are resolved as often
            yield
    finally:
        _READ_ONCE.reset(token)


def read_binary(path: str | os.PathLike[str], *, exports: bool = True) -> BinaryInfo:
    """Read the headers of the ELF or PE file at `path` (once per file inside read_once());
    never raises for a bad file. See _read_binary."""
    memo = _READ_ONCE.get()
    if memo is None:
        return _read_binary(path, exports=exports)
    key = (os.fspath(path), exports)
    if key not in memo:
        memo[key] = _read_binary(path, exports=exports)
    return memo[key]


def _read_binary(path: str | os.PathLike[str], *, exports: bool = True) -> BinaryInfo:
    """Read the headers of the ELF or PE file at `path`; never raises for a bad file.

    Symlinks are followed; `path` is kept as given. Only the header, the dynamic segment and the
    dynamic symbol table (ELF), or the headers and the import, delay-import and export
    directories (PE) are read. `exports=False` skips the symbol table, the one slow part on
    large C++ libraries (about 1.2 s for libLLVM's 46k symbols, 25 us each in pyelftools);
    `exports` is then empty, and for ELF files pyelftools is not even imported.
    """
    name = os.fspath(path)
    problem = _not_a_readable_file(name)
    if problem is not None:
        return _unknown(name, problem)
    try:
        with Path(name).open("rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            head = stream.read(_NOT_BINARY_SAMPLE)
            if not head:
                return _unknown(name, "file is empty")
            if head.startswith(_ELF_MAGIC):
                return _read_elf(name, stream, size, exports)
            if head.startswith(_PE_DOS_MAGIC):
                return _read_pe(name, stream, size, exports)
    except OSError as exc:
        return _unknown(name, f"cannot be read: {exc.strerror or exc}")
    return _unknown(name, _not_binary_sentence(head))


def expand_origin(entries: Sequence[str], origin_dir: str) -> tuple[str, ...]:
    """RUNPATH/RPATH entries with $ORIGIN and ${ORIGIN} replaced by `origin_dir`, normalized.

    `origin_dir` is the directory of the object that carries the entries (ld.so's meaning). Like
    ld.so, "$ORIGINX" is not $ORIGIN. $LIB and $PLATFORM are left as written: their values
    depend on the dynamic loader's build (lib, lib64, lib/x86_64-linux-gnu ...), which a file
    cannot tell. An empty entry becomes "." (ld.so reads it as the current directory).
    """
    return tuple(
        os.path.normpath(_ORIGIN.sub(lambda _match: origin_dir, entry)) for entry in entries
    )


def version_from_file_name(name: str) -> str | None:
    """The version in a Linux library file name: libcudnn.so.8.9.7 -> "8.9.7", libcudnn.so.8 -> "8".

    Only the numbers after ".so." count. A soname link such as libcudnn.so.8 gives only the
    major. The meaning is the library's own: libnvidia-ml.so.535.104.05 carries the driver
    release, libcuda.so.1 only an ABI number. Windows names give None: the digits in
    cudart64_110.dll, cublas64_12.dll or cudnn64_8.dll are an ABI tag whose meaning differs per
    library (cudart64_110 covers all of CUDA 11.x, cublas64_11 is cuBLAS 11), so they are mapped
    through the matrix's library-name table, not read as versions.
    """
    base = re.split(r"[\\/]", name)[-1]
    match = _SO_VERSION.search(base)
    return match.group(1) if match else None


def machine_from_platform(raw: str, bits: int) -> str:
    """Normalize a platform or sysconfig machine name ("AMD64", "win32", "armv7l" ...) to the
    names BinaryInfo.machine uses, for an interpreter of `bits` bits.

    A 32-bit Python on 64-bit hardware is i386 or arm, whatever the OS reports.
    """
    value = raw.strip().lower()
    value = value[len("win-") :] if value.startswith("win-") else value
    if value in {"x86_64", "amd64", "x64"}:
        return "x86_64" if bits == 64 else "i386"
    if value in {"win32", "x86", "i386", "i486", "i586", "i686"}:
        return "i386"
    if value in {"aarch64", "aarch64_be", "arm64"}:
        if bits == 32:
            return "arm"
        return "aarch64" if value.startswith("aarch64") else "arm64"
    if value.startswith("arm"):
        return "arm"
    return value


def python_machine() -> tuple[str, int]:
    """This interpreter's (machine, bits) in BinaryInfo.machine's names, e.g. ("x86_64", 64).

    On Windows the interpreter's build platform (sysconfig: win32, win-amd64, win-arm64) is used,
    not the OS's architecture: a 32-bit Python on 64-bit Windows can load only 32-bit DLLs.
    """
    bits = struct.calcsize("P") * 8
    raw = sysconfig.get_platform() if sys.platform == "win32" else platform.machine()
    return machine_from_platform(raw, bits), bits


def compatible_with(info: BinaryInfo, machine: str, bits: int) -> bool:
    """False when the file's bits or machine differ from the given ones; True otherwise.

    True means "no mismatch found", also when the file's machine or bits are unknown: callers
    that need a verdict check `info.format` and `info.problems` first. aarch64 (ELF) and arm64
    (PE, macOS) are the same architecture here.
    """
    if info.bits is not None and info.bits != bits:
        return False
    if info.machine is None or not _is_known_machine(info.machine):
        return True
    if not _is_known_machine(machine):
        return True
    return _SAME_ARCH.get(info.machine, info.machine) == _SAME_ARCH.get(machine, machine)


def _is_known_machine(machine: str) -> bool:
    return bool(machine) and not machine.startswith("unknown(")


def _not_a_readable_file(name: str) -> str | None:
    """The problem sentence when `name` is not a regular file that can be opened, else None."""
    file = Path(name)
    try:
        status = file.stat()
    except FileNotFoundError:
        if file_system.is_symlink(file):
            return f"dangling symlink to {file_system.link_target(file) or '?'}"
        return "does not exist"
    except OSError as exc:
        if exc.errno == errno.ELOOP or getattr(exc, "winerror", None) == _WINERROR_CANT_RESOLVE:
            return "symlink loop"
        return f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISDIR(status.st_mode):
        return "is a directory"
    if not stat.S_ISREG(status.st_mode):
        # Opening a FIFO would block until a writer comes; devices are not libraries either.
        return "is not a regular file (a device, socket or FIFO)"
    if status.st_size == 0:
        return "file is empty"
    return None


def _unknown(name: str, problem: str) -> BinaryInfo:
    return BinaryInfo(
        path=name,
        format=FORMAT_UNKNOWN,
        bits=None,
        machine=None,
        soname=None,
        needed=(),
        runpath=(),
        rpath=(),
        exports=(),
        problems=(problem,),
    )


def _looks_like_text(head: bytes) -> bool:
    if any(byte not in _TEXT_BYTES for byte in head):
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # The sample may end inside a multi-byte character; anything else is not UTF-8 text.
        return exc.reason == "unexpected end of data"
    return True


def _not_binary_sentence(head: bytes) -> str:
    if _looks_like_text(head):
        first_line = head.decode("utf-8", errors="replace").strip().splitlines()[0][:40]
        # A text file with a library name is usually a GNU ld script (/usr/lib/.../libc.so) or
        # a placeholder left by a broken download or package.
        return f"not an ELF or PE file: it is text beginning {first_line!r}"
    return f"not an ELF or PE file: it begins with the bytes {head[:8].hex(' ')}"


def _truncated(size: int, needed: int, what: str) -> str:
    return f"truncated: the file is {size} bytes but its {what} need {needed} bytes"


def _import_parser(module: str) -> Any:
    """Import pyelftools or pefile when a file is first read, typed as Any.

    Lazily, because they cost 30-60 ms to import and most envcheck commands read no binary. As
    Any, because neither is usefully typed across the versions envcheck accepts (pefile has no
    stubs; pyelftools 0.31/0.32 ship py.typed without annotations, 0.33 is annotated but needs
    Python 3.10): mypy --strict gives the same verdict whichever is installed, and no Any leaves
    this module because every value is converted to str/int/tuple where it is read.
    """
    return importlib.import_module(module)


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


# ---------------------------------------------------------------------------------------- ELF


class _ElfError(Exception):
    """Stops reading an ELF file; its message is the sentence for BinaryInfo.problems."""


@record
class _ElfLayout:
    """The structures of one ELF class in one byte order, with padding over unread fields."""

    bits: int
    header: struct.Struct  # e_type, e_machine, e_phoff, e_shoff, e_phentsize..e_shnum
    program_header: struct.Struct  # p_type, p_offset, p_vaddr, p_filesz
    dynamic_entry: struct.Struct  # d_tag, d_val


def _elf_layout(bits: int, order: str) -> _ElfLayout:
    if bits == 32:
        # Elf32_Phdr puts p_flags after p_memsz, Elf64_Phdr right after p_type.
        return _ElfLayout(
            bits,
            struct.Struct(order + "16xHH8xII6xHHHH2x"),
            struct.Struct(order + "III4xI12x"),
            struct.Struct(order + "iI"),
        )
    return _ElfLayout(
        bits,
        struct.Struct(order + "16xHH12xQQ6xHHHH2x"),
        struct.Struct(order + "I4xQQ8xQ16x"),
        struct.Struct(order + "qQ"),
    )


# e_ident[EI_CLASS] and e_ident[EI_DATA] (ELFCLASS32/64, ELFDATA2LSB/MSB).
_ELF_CLASSES = {1: 32, 2: 64}
_ELF_BYTE_ORDERS = {1: "<", 2: ">"}
_ELF_LAYOUTS = {
    (bits, order): _elf_layout(bits, order)
    for bits in _ELF_CLASSES.values()
    for order in _ELF_BYTE_ORDERS.values()
}
_EI_CLASS = 4
_EI_DATA = 5
_EI_NIDENT = 16
_ELF64_HEADER_SIZE = 64  # read for both classes: the 52-byte ELF32 header is a prefix of it
_ELF_MACHINES = {62: "x86_64", 3: "i386", 183: "aarch64", 40: "arm", 50: "ia64"}  # EM_*
_ELF_TYPES = {0: "ET_NONE", 1: "ET_REL", 2: "ET_EXEC", 3: "ET_DYN", 4: "ET_CORE"}
_ET_DYN = 3
_PT_LOAD = 1
_PT_DYNAMIC = 2
_DT_NULL = 0
_DT_NEEDED = 1
_DT_STRTAB = 5
_DT_STRSZ = 10
_DT_SONAME = 14
_DT_RPATH = 15
_DT_RUNPATH = 29
_DT_SYMTAB = 6
_DT_GNU_HASH = 0x6FFFFEF5
_DT_STRING_TAGS = {
    _DT_NEEDED: "DT_NEEDED",
    _DT_SONAME: "DT_SONAME",
    _DT_RPATH: "DT_RPATH",
    _DT_RUNPATH: "DT_RUNPATH",
}
# Limits far above what a linker writes (a few hundred dynamic entries, RUNPATHs of a few hundred
# bytes), so that a hostile file costs milliseconds and a megabyte, not its own size.
_MAX_DYNAMIC_ENTRIES = 1 << 16
# All strings of the dynamic entries together, counting repeats (65,536 entries naming one long
# string would otherwise be gigabytes of names from a small file), and so also the longest one.
# ld.so reads a RUNPATH of any length: one of 15,000 directories (400 KB; the limit here was
# 64 KiB per string) was dropped, and the libraries found through it reported missing. A file
# past this bound gets a problem (read_binary's `problems`), which the probe reports.
_MAX_STRING_BYTES = 1 << 20
_DYNAMIC_CHUNK = 4096
# Counts a linker never comes near (a shared library has about ten program headers and a few
# dozen DT_NEEDED entries): each dependency is a loader search of its own and a line in the
# report when it is missing, so 60,000 of them cost seconds per read and a page of noise.
_MAX_PROGRAM_HEADERS = 1024
_MAX_NEEDED = 1024
# A GNU hash table has about one bucket per four symbols, and chains of a few symbols.
_MAX_HASH_BUCKETS = 1 << 24
_MAX_HASH_CHAIN = 1 << 16
_STRING_CHUNK = 256  # the first read of a string; a longer one is read in growing chunks
_STRING_CHUNK_MAX = 1 << 16


@record
class _ElfReader:
    """Reads byte ranges the file's own numbers name, only after checking they lie inside it."""

    stream: IO[bytes]
    size: int

    def read(self, offset: int, length: int, what: str) -> bytes:
        if offset < 0 or length < 0 or offset + length > self.size:
            raise _ElfError(_truncated(self.size, offset + length, what))
        self.stream.seek(offset)
        data = self.stream.read(length)
        if len(data) != length:  # the file shrank since it was measured
            raise _ElfError(_truncated(offset + len(data), offset + length, what))
        return data


@record
class _ElfHeader:
    layout: _ElfLayout
    type: int
    machine: int
    phoff: int
    shoff: int
    phentsize: int
    phnum: int
    shentsize: int
    shnum: int


@record
class _Segment:
    type: int
    offset: int
    vaddr: int
    filesz: int


@record
class _ElfTags:
    soname: str | None = None
    needed: tuple[str, ...] = ()
    runpath: tuple[str, ...] = ()
    rpath: tuple[str, ...] = ()


@record
class _StringTable:
    offset: int  # in the file
    size: int  # DT_STRSZ, cut to the bytes its PT_LOAD segment has in the file


def _read_elf(name: str, stream: IO[bytes], size: int, want_exports: bool) -> BinaryInfo:
    reader = _ElfReader(stream, size)
    try:
        header = _elf_header(reader)
    except _ElfError as exc:
        return _partial(name, FORMAT_ELF, None, None, (str(exc),))

    bits = header.layout.bits
    machine = _ELF_MACHINES.get(header.machine, f"unknown(0x{header.machine:x})")
    problems: list[str] = []
    if header.type != _ET_DYN:
        elf_type = _ELF_TYPES.get(header.type, f"unknown(0x{header.type:x})")
        problems.append(f"ELF file is not a shared library (type {elf_type})")
    try:
        tags = _elf_tags(reader, header)
        exports = _elf_exports(stream) if want_exports else ()
    except _ElfError as exc:
        problems.append(str(exc))
        return _partial(name, FORMAT_ELF, bits, machine, tuple(problems))

    return BinaryInfo(
        path=name,
        format=FORMAT_ELF,
        bits=bits,
        machine=machine,
        soname=tags.soname,
        needed=tags.needed,
        runpath=tags.runpath,
        rpath=tags.rpath,
        exports=exports,
        problems=tuple(problems),
    )


def dynamic_string_matches(
    path: str | os.PathLike[str], pattern: re.Pattern[bytes]
) -> tuple[str, ...] | None:
    """Group 1 of each match of `pattern` in an ELF file's dynamic string table, in order.

    The dynamic string table holds every name the loader sees (symbols defined and imported,
    sonames), so this asks "which of these functions does the binary have" without loading it
    or parsing its symbol table: TensorFlow's DSO loader names the libraries it can open as
    functions (`DsoLoader::GetCusolverDsoHandle`). The table is mapped read-only and scanned
    where it lies; nothing is executed. None when the file is not a readable ELF file with a
    string table.
    """
    try:
        with Path(os.fspath(path)).open("rb") as stream:
            dynamic = _dynamic_of(stream)
            if dynamic is None or _DT_STRTAB not in dynamic.values:
                return None
            values, segments = dynamic.values, dynamic.segments
            table = _string_table(segments, values[_DT_STRTAB], values.get(_DT_STRSZ))
            with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as view:
                end = table.offset + table.size
                found = pattern.finditer(view, table.offset, end)
                return _unique(_text(match.group(1)) for match in found)
    except (OSError, ValueError, _ElfError):
        return None


def defined_symbols(path: str | os.PathLike[str], names: Iterable[str]) -> frozenset[str] | None:
    """Which of `names` the ELF file at `path` defines as dynamic symbols (a symbol with a
    section: what ld.so would bind a reference to), looked up as ld.so looks them up, through
    the file's DT_GNU_HASH table: a few small reads a name, where dynamic_string_matches reads
    the whole string table (15 MB, ~10 ms, in TensorFlow's libtensorflow_framework.so.2).
    None when the file is not a readable ELF file or has no GNU hash table (then the caller
    scans)."""
    try:
        with Path(os.fspath(path)).open("rb") as stream:
            dynamic = _dynamic_of(stream)
            if (
                dynamic is None
                or not {_DT_GNU_HASH, _DT_SYMTAB, _DT_STRTAB} <= dynamic.values.keys()
            ):
                return None
            table = _GnuHash.read(dynamic)
            return frozenset(name for name in names if table.defines(name))
    except (OSError, ValueError, _ElfError):
        return None


@record
class _Dynamic:
    """An open ELF file's reader, layout, segments and dynamic entries (tag -> value, the last
    of a repeated tag winning, as in ld.so)."""

    reader: _ElfReader
    layout: _ElfLayout
    segments: list[_Segment]
    values: dict[int, int]


def _dynamic_of(stream: IO[bytes]) -> _Dynamic | None:
    """The dynamic entries of the ELF file open in `stream`, found by its program headers; None
    when it is no ELF file or has no dynamic segment. Raises _ElfError for a malformed one."""
    size = os.fstat(stream.fileno()).st_size
    if stream.read(len(_ELF_MAGIC)) != _ELF_MAGIC:
        return None
    reader = _ElfReader(stream, size)
    header = _elf_header(reader)
    segments = _elf_segments(reader, header)
    dynamic = next((seg for seg in segments if seg.type == _PT_DYNAMIC), None)
    if dynamic is None:
        return None
    values = dict(_dynamic_entries(reader, dynamic, header.layout))
    return _Dynamic(reader, header.layout, segments, values)


def _gnu_hash(name: bytes) -> int:
    """The GNU hash of a symbol name (dl_new_hash: h * 33 + c from 5381, in 32 bits)."""
    value = 5381
    for byte in name:
        value = (value * 33 + byte) & 0xFFFFFFFF
    return value


@record
class _GnuHash:
    """A DT_GNU_HASH table with the symbol and string tables it indexes (Drepper's layout:
    nbuckets, symoffset, bloom_size, bloom_shift, the bloom words, the buckets, then one chain
    word per symbol from symoffset on, the last of a chain with its low bit set)."""

    reader: _ElfReader
    order: str  # "<" or ">"
    buckets: int  # offset of the buckets in the file
    nbuckets: int
    chains: int  # offset of the chain word of symbol `symoffset`
    symoffset: int
    symbols: int  # offset of DT_SYMTAB
    symbol_size: int
    shndx_at: int  # where st_shndx lies in a symbol entry
    strings: _StringTable

    @classmethod
    def read(cls, dynamic: _Dynamic) -> _GnuHash:
        order, bits = dynamic.layout.dynamic_entry.format[0], dynamic.layout.bits
        segments, values = dynamic.segments, dynamic.values
        start = _file_offset(segments, values[_DT_GNU_HASH], "DT_GNU_HASH")
        nbuckets, symoffset, bloom_size, _ = struct.unpack(
            order + "4I", dynamic.reader.read(start, 16, "GNU hash table")
        )
        if nbuckets == 0 or nbuckets > _MAX_HASH_BUCKETS or bloom_size > _MAX_HASH_BUCKETS:
            raise _ElfError(f"malformed ELF file: a GNU hash table of {nbuckets} buckets")
        buckets = start + 16 + bloom_size * (bits // 8)
        symbol_size, shndx_at = (24, 6) if bits == 64 else (16, 14)
        return cls(
            dynamic.reader,
            order,
            buckets,
            nbuckets,
            buckets + 4 * nbuckets,
            symoffset,
            _file_offset(segments, values[_DT_SYMTAB], "DT_SYMTAB"),
            symbol_size,
            shndx_at,
            _string_table(segments, values[_DT_STRTAB], values.get(_DT_STRSZ)),
        )

    def _word(self, offset: int, what: str) -> int:
        (value,) = struct.unpack(self.order + "I", self.reader.read(offset, 4, what))
        return int(value)

    def defines(self, name: str) -> bool:
        wanted = name.encode("utf-8")
        value = _gnu_hash(wanted)
        index = self._word(self.buckets + 4 * (value % self.nbuckets), "GNU hash buckets")
        if index < self.symoffset:
            return False  # an empty bucket (0), or one that points below the hashed symbols
        for _ in range(_MAX_HASH_CHAIN):
            chain = self._word(self.chains + 4 * (index - self.symoffset), "GNU hash chains")
            if (chain | 1) == (value | 1) and self._is(index, wanted):
                return True
            if chain & 1:
                return False
            index += 1
        raise _ElfError(f"malformed ELF file: a GNU hash chain longer than {_MAX_HASH_CHAIN}")

    def _is(self, index: int, wanted: bytes) -> bool:
        """Whether symbol `index` is `wanted`, defined (st_shndx is not SHN_UNDEF)."""
        entry = self.reader.read(
            self.symbols + index * self.symbol_size, self.symbol_size, "symbols"
        )
        (name,) = struct.unpack_from(self.order + "I", entry)
        (section,) = struct.unpack_from(self.order + "H", entry, self.shndx_at)
        if name + len(wanted) >= self.strings.size:
            return False
        text = self.reader.read(self.strings.offset + name, len(wanted) + 1, "string table")
        return text == wanted + b"\0" and section != 0


def _file_offset(segments: Sequence[_Segment], address: int, tag: str) -> int:
    """Where the virtual address `address` (of `tag`) lies in the file."""
    segment = _load_segment(segments, address, tag)
    return address - segment.vaddr + segment.offset


def _elf_header(reader: _ElfReader) -> _ElfHeader:
    data = reader.read(0, min(reader.size, _ELF64_HEADER_SIZE), "ELF header")
    if len(data) < _EI_NIDENT:
        raise _ElfError(f"truncated: the file is {reader.size} bytes, shorter than an ELF header")
    bits = _ELF_CLASSES.get(data[_EI_CLASS])
    order = _ELF_BYTE_ORDERS.get(data[_EI_DATA])
    if bits is None or order is None:
        raise _ElfError(
            f"malformed ELF header: EI_CLASS is {data[_EI_CLASS]} and EI_DATA is "
            f"{data[_EI_DATA]}, where each must be 1 or 2"
        )
    layout = _ELF_LAYOUTS[bits, order]
    if len(data) < layout.header.size:
        raise _ElfError(f"truncated: the file is {reader.size} bytes, shorter than an ELF header")
    header = _ElfHeader(layout, *layout.header.unpack_from(data))
    # ld.so refuses any other entry size too; it also keeps a hostile e_phnum's table small.
    if header.phnum and header.phentsize != layout.program_header.size:
        raise _ElfError(
            f"malformed ELF header: e_phentsize is {header.phentsize}, "
            f"not the {layout.program_header.size} bytes of an ELF{bits} program header"
        )
    return header


def _elf_tags(reader: _ElfReader, header: _ElfHeader) -> _ElfTags:
    """The string-valued dynamic entries, found the way ld.so finds them: by program headers.

    Section headers are not read (pyelftools walks all of them to find .dynstr); they only
    count towards the size a complete file must have, as they sit at its end.
    """
    # e_phnum is taken as written, as ld.so does: PN_XNUM (0xffff, the count moved to section
    # 0) is for core files with more segments than a shared library ever has.
    header_end = max(
        header.phoff + header.phnum * header.phentsize,
        header.shoff + header.shnum * header.shentsize,
    )
    if reader.size < header_end:
        raise _ElfError(_truncated(reader.size, header_end, "ELF headers"))
    if header.phnum > _MAX_PROGRAM_HEADERS:
        raise _ElfError(
            f"malformed ELF file: e_phnum is {header.phnum}, more than the "
            f"{_MAX_PROGRAM_HEADERS} program headers this reader accepts"
        )
    segments = _elf_segments(reader, header)
    data_end = max((seg.offset + seg.filesz for seg in segments), default=0)
    if reader.size < data_end:
        raise _ElfError(_truncated(reader.size, data_end, "segments"))
    dynamic = next((seg for seg in segments if seg.type == _PT_DYNAMIC), None)
    if dynamic is None:
        return _ElfTags()
    entries = _dynamic_entries(reader, dynamic, header.layout)
    needed = sum(1 for tag, _ in entries if tag == _DT_NEEDED)
    if needed > _MAX_NEEDED:
        raise _ElfError(
            f"malformed ELF file: {needed} DT_NEEDED entries, more than the {_MAX_NEEDED} "
            "this reader accepts"
        )
    return _resolve_tags(reader, segments, entries)


def _elf_segments(reader: _ElfReader, header: _ElfHeader) -> list[_Segment]:
    table = reader.read(header.phoff, header.phnum * header.phentsize, "program headers")
    return [_Segment(*fields) for fields in header.layout.program_header.iter_unpack(table)]


def _dynamic_entries(
    reader: _ElfReader, dynamic: _Segment, layout: _ElfLayout
) -> list[tuple[int, int]]:
    """The (d_tag, d_val) pairs before DT_NULL, read a chunk at a time: DT_NULL, not the
    segment's size, ends the array for ld.so, and linkers pad the segment after it."""
    entry = layout.dynamic_entry
    count = min(dynamic.filesz // entry.size, _MAX_DYNAMIC_ENTRIES)
    per_chunk = _DYNAMIC_CHUNK // entry.size
    entries: list[tuple[int, int]] = []
    for first in range(0, count, per_chunk):
        chunk = min(per_chunk, count - first)
        data = reader.read(dynamic.offset + first * entry.size, chunk * entry.size, "segments")
        for tag, value in entry.iter_unpack(data):
            if tag == _DT_NULL:
                return entries
            entries.append((tag, value))
    raise _ElfError(
        f"malformed ELF file: the dynamic segment has no DT_NULL in its first {count} entries"
    )


def _resolve_tags(
    reader: _ElfReader, segments: Sequence[_Segment], entries: Sequence[tuple[int, int]]
) -> _ElfTags:
    values = dict(entries)  # the last of a repeated tag wins, as in ld.so
    wanted = [(tag, value) for tag, value in entries if tag in _DT_STRING_TAGS]
    if not wanted:
        return _ElfTags()
    if _DT_STRTAB not in values:
        raise _ElfError(
            f"malformed ELF file: it has {_DT_STRING_TAGS[wanted[0][0]]} but no DT_STRTAB"
        )
    table = _string_table(segments, values[_DT_STRTAB], values.get(_DT_STRSZ))
    soname: str | None = None
    needed: list[str] = []
    runpath: list[str] = []
    rpath: list[str] = []
    strings: dict[int, str] = {}  # a string named by several entries is read once
    budget = _MAX_STRING_BYTES
    for tag, value in wanted:
        if value not in strings:
            strings[value] = _elf_string(reader, table, value, _DT_STRING_TAGS[tag])
        text = strings[value]
        budget -= len(text) + 1
        if budget < 0:
            raise _ElfError(
                f"malformed ELF file: its dynamic entries name more than {_MAX_STRING_BYTES} "
                "bytes of strings"
            )
        if tag == _DT_NEEDED:
            needed.append(text)
        elif tag == _DT_SONAME:
            soname = text
        elif tag == _DT_RUNPATH:
            runpath.extend(text.split(":"))
        else:
            rpath.extend(text.split(":"))
    return _ElfTags(soname, tuple(needed), tuple(runpath), tuple(rpath))


def _string_table(segments: Sequence[_Segment], address: int, size: int | None) -> _StringTable:
    """Where DT_STRTAB, a virtual address, lies in the file: in the PT_LOAD segment holding it.

    A missing DT_STRSZ (ld.so does not need it) leaves the segment's end as the bound.
    """
    segment = _load_segment(segments, address, "DT_STRTAB")
    offset = address - segment.vaddr + segment.offset
    in_file = segment.offset + segment.filesz - offset
    return _StringTable(offset, in_file if size is None else min(size, in_file))


def _load_segment(segments: Sequence[_Segment], address: int, tag: str) -> _Segment:
    """The PT_LOAD segment whose file data holds the virtual address `address` (of `tag`)."""
    for segment in segments:
        if segment.type == _PT_LOAD and segment.vaddr <= address < segment.vaddr + segment.filesz:
            return segment
    raise _ElfError(
        f"malformed ELF file: {tag} 0x{address:x} is outside the file data of every PT_LOAD segment"
    )


def _elf_string(reader: _ElfReader, table: _StringTable, index: int, tag: str) -> str:
    if index >= table.size:
        raise _ElfError(
            f"malformed ELF file: {tag} names string offset {index}, "
            f"outside the {table.size}-byte string table"
        )
    end = min(table.offset + table.size, table.offset + index + _MAX_STRING_BYTES)
    position = table.offset + index
    pieces: list[bytes] = []
    chunk = _STRING_CHUNK
    while position < end:
        data = reader.read(position, min(chunk, end - position), "string table")
        nul = data.find(b"\0")
        if nul >= 0:
            pieces.append(data[:nul])
            return _text(b"".join(pieces))
        pieces.append(data)
        position += len(data)
        chunk = min(2 * chunk, _STRING_CHUNK_MAX)
    raise _ElfError(
        f"malformed ELF file: the {tag} string at offset {index} has no terminating NUL "
        f"within the string table or {_MAX_STRING_BYTES} bytes"
    )


def _elf_exports(stream: IO[bytes]) -> tuple[str, ...]:
    """The exported names, read by pyelftools: the symbol table is a bigger job than the rest."""
    elffile = _import_parser("elftools.elf.elffile")
    stream.seek(0)
    # pyelftools raises its own errors, construct's, struct's or ValueError on bad bytes; all of
    # them mean the same thing here, and read_binary promises not to raise for a bad file.
    try:
        elf = elffile.ELFFile(stream)
        dynamic = next((seg for seg in elf.iter_segments() if seg["p_type"] == "PT_DYNAMIC"), None)
        return _elf_symbol_names(elf, dynamic)
    except Exception as exc:
        raise _ElfError(f"malformed ELF file: {exc}") from exc


def _elf_symbol_names(elf: Any, dynamic: Any) -> tuple[str, ...]:
    """Names of the dynamic symbols the file defines.

    The .dynsym section is read when section headers exist (about three times faster in
    pyelftools); files stripped of them are read through the dynamic segment's DT_SYMTAB.
    """
    symbols: Any = next(
        (sec for sec in elf.iter_sections() if sec["sh_type"] == "SHT_DYNSYM"), None
    )
    if symbols is None:
        if dynamic is None or not any(True for _ in dynamic.iter_tags("DT_SYMTAB")):
            return ()
        symbols = dynamic
    names = []
    for symbol in symbols.iter_symbols():
        info = symbol["st_info"]
        if (
            symbol["st_shndx"] != "SHN_UNDEF"
            and info["type"] in _EXPORTED_SYMBOL_TYPES
            and info["bind"] != "STB_LOCAL"
            and symbol.name
        ):
            names.append(_text(symbol.name))
    # Versioned symbols (memcpy@GLIBC_2.2.5 and memcpy@@GLIBC_2.14) share one name.
    return _unique(names)


def _partial(
    name: str, fmt: str, bits: int | None, machine: str | None, problems: tuple[str, ...]
) -> BinaryInfo:
    return BinaryInfo(
        path=name,
        format=fmt,
        bits=bits,
        machine=machine,
        soname=None,
        needed=(),
        runpath=(),
        rpath=(),
        exports=(),
        problems=problems,
    )


# ----------------------------------------------------------------------------------------- PE


def _read_pe(name: str, stream: IO[bytes], size: int, want_exports: bool) -> BinaryInfo:
    # Mapped read-only for pefile's random access; a 600 MB cuDNN DLL is then not copied into
    # memory. The mapping is data only: nothing in it is ever executed.
    try:
        view: _Buffer = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # file systems that cannot map: read it instead
        stream.seek(0)
        view = stream.read()
    try:
        return _read_pe_buffer(name, view, size, want_exports)
    finally:
        if isinstance(view, mmap.mmap):
            view.close()


def _read_pe_buffer(name: str, data: _Buffer, size: int, want_exports: bool) -> BinaryInfo:
    pefile = _import_parser("pefile")
    sections = _pe_section_count(data)
    if sections > _PE_MAX_SECTIONS:
        problem = (
            f"malformed PE file: NumberOfSections is {sections}, more than the "
            f"{_PE_MAX_SECTIONS} this reader accepts"
        )
        return _partial(name, FORMAT_PE, None, None, (problem,))
    try:
        # pe.close() is not called: it runs gc.collect(), and the mapping is closed by our caller.
        pe = pefile.PE(data=data, fast_load=True)
    except Exception as exc:  # PEFormatError, or struct/Index errors on hostile headers
        headers_end = _pe_headers_end(data)
        if size < headers_end:
            problem = _truncated(size, headers_end, "PE headers")
        else:
            problem = f"malformed PE file: {exc}"
        return _partial(name, FORMAT_PE, None, None, (problem,))

    machine_value = int(pe.FILE_HEADER.Machine)
    machine = _PE_MACHINES.get(machine_value, f"unknown(0x{machine_value:x})")
    bits = _PE_MAGIC_BITS.get(int(pe.OPTIONAL_HEADER.Magic))
    problems: list[str] = []
    if not pe.is_dll():
        problems.append("PE file is not a DLL (IMAGE_FILE_DLL is not set: an executable)")

    declared_end = _pe_declared_end(pe)
    if size < declared_end:
        problems.append(_truncated(size, declared_end, "PE headers and sections"))
        return _partial(name, FORMAT_PE, bits, machine, tuple(problems))
    too_many = _pe_too_many_imports(pe)
    if too_many is not None:
        problems.append(too_many)
        return _partial(name, FORMAT_PE, bits, machine, tuple(problems))

    try:
        entries = pefile.DIRECTORY_ENTRY
        pe.parse_data_directories(
            directories=[
                entries["IMAGE_DIRECTORY_ENTRY_IMPORT"],
                entries["IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT"],
                *([entries["IMAGE_DIRECTORY_ENTRY_EXPORT"]] if want_exports else []),
            ],
            import_dllnames_only=True,
        )
        imports = [_text(entry.dll) for entry in getattr(pe, "DIRECTORY_ENTRY_IMPORT", ())]
        delayed = [_text(entry.dll) for entry in getattr(pe, "DIRECTORY_ENTRY_DELAY_IMPORT", ())]
        export_directory = getattr(pe, "DIRECTORY_ENTRY_EXPORT", None)
        exported = [
            _text(symbol.name)
            for symbol in (export_directory.symbols if export_directory is not None else ())
            if symbol.name  # exports by ordinal only have no name
        ]
    except Exception as exc:  # as above
        problems.append(f"malformed PE file: {exc}")
        return _partial(name, FORMAT_PE, bits, machine, tuple(problems))

    return BinaryInfo(
        path=name,
        format=FORMAT_PE,
        bits=bits,
        machine=machine,
        soname=None,
        needed=_unique([*imports, *delayed]),
        runpath=(),
        rpath=(),
        exports=_unique(exported),
        problems=tuple(problems),
    )


def _pe_declared_end(pe: Any) -> int:
    """The file size the parsed headers promise: headers, section data, the COFF symbol table
    (mingw builds) and the Authenticode signature (NVIDIA's signed DLLs), one of which normally
    ends at or near the end of the file, so a cut download falls short of it. A cut inside the
    COFF string table that follows the symbol table (unsigned mingw builds) goes unnoticed."""
    ends = [int(pe.OPTIONAL_HEADER.SizeOfHeaders)]
    ends.extend(
        int(section.PointerToRawData) + int(section.SizeOfRawData)
        for section in pe.sections
        if section.SizeOfRawData
    )
    if pe.FILE_HEADER.PointerToSymbolTable:
        ends.append(
            int(pe.FILE_HEADER.PointerToSymbolTable)
            + int(pe.FILE_HEADER.NumberOfSymbols) * _PE_COFF_SYMBOL_SIZE
        )
    directories = pe.OPTIONAL_HEADER.DATA_DIRECTORY
    if len(directories) > _PE_SECURITY_DIRECTORY and directories[_PE_SECURITY_DIRECTORY].Size:
        security = directories[_PE_SECURITY_DIRECTORY]
        ends.append(int(security.VirtualAddress) + int(security.Size))
    return max(ends)


def _pe_section_count(data: _Buffer) -> int:
    """NumberOfSections from the COFF header, read before pefile parses the section table
    (0 when the file is too short to have one: pefile then says what is wrong)."""
    if len(data) < _DOS_HEADER_SIZE:
        return 0
    coff = int.from_bytes(data[_PE_E_LFANEW_OFFSET : _PE_E_LFANEW_OFFSET + 4], "little") + 4
    if len(data) < coff + 4:
        return 0
    return int.from_bytes(data[coff + 2 : coff + 4], "little")


def _pe_too_many_imports(pe: Any) -> str | None:
    """The problem sentence when an import table has more than _PE_MAX_IMPORT_DESCRIPTORS
    descriptors before its all-zero one, else None. The descriptors are read as pefile reads
    them (pe.get_data at each RVA, stopping where it would: no data, or all zeros), but only
    counted, and never past the limit."""
    directories = pe.OPTIONAL_HEADER.DATA_DIRECTORY
    for index, width, what in _PE_IMPORT_TABLES:
        if len(directories) <= index or not directories[index].VirtualAddress:
            continue
        rva = int(directories[index].VirtualAddress)
        for _ in range(_PE_MAX_IMPORT_DESCRIPTORS + 1):
            try:
                descriptor = pe.get_data(rva, width)
            except Exception:  # pefile's PEFormatError: an RVA outside the image ends the table
                break
            if len(descriptor) < width or not any(descriptor):
                break
            rva += width
        else:
            return (
                f"malformed PE file: its {what} table has more than "
                f"{_PE_MAX_IMPORT_DESCRIPTORS} descriptors"
            )
    return None


def _pe_headers_end(data: _Buffer) -> int:
    """Where the headers end by the DOS and COFF headers, read as far as `data` goes.

    Used only after pefile gave up, to tell a cut download from a corrupt file: e_lfanew at 0x3C
    points at "PE\\0\\0" and the COFF header; its NumberOfSections and SizeOfOptionalHeader
    size the rest (docs/facts.md section 6.4).
    """
    if len(data) < _DOS_HEADER_SIZE:
        return _DOS_HEADER_SIZE
    coff = int.from_bytes(data[_PE_E_LFANEW_OFFSET : _PE_E_LFANEW_OFFSET + 4], "little") + 4
    if len(data) < coff + _PE_COFF_HEADER_SIZE:
        return coff + _PE_COFF_HEADER_SIZE
    sections = int.from_bytes(data[coff + 2 : coff + 4], "little")
    optional_size = int.from_bytes(data[coff + 16 : coff + 18], "little")
    return coff + _PE_COFF_HEADER_SIZE + optional_size + sections * _PE_SECTION_HEADER_SIZE
