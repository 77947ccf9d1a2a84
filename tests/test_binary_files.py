"""binary_files on real artefacts: ELF objects built with gcc, Windows DLLs cross-built with
mingw-w64, and broken files cut from them. Nothing is mocked.

The PE tests need x86_64-w64-mingw32-gcc and i686-w64-mingw32-gcc (Debian: gcc-mingw-w64-x86-64,
gcc-mingw-w64-i686) and skip naming the missing one.
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import os
import platform
import random
import shutil
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pefile  # type: ignore[import-untyped]
import pytest
from elftools.elf.dynamic import DynamicSegment
from elftools.elf.elffile import ELFFile
from elftools.elf.enums import ENUM_E_MACHINE

from envcheck.probe.binary_files import (
    BinaryInfo,
    compatible_with,
    expand_origin,
    machine_from_platform,
    python_machine,
    read_binary,
    read_once,
    version_from_file_name,
)

MINGW_64 = "x86_64-w64-mingw32-gcc"
MINGW_32 = "i686-w64-mingw32-gcc"
# Written by a constructor that runs only if a library is actually loaded.
LOADED_MARKER = "loaded.marker"


def _run(*args: str | Path, cwd: Path) -> None:
    result = subprocess.run(
        [str(arg) for arg in args], cwd=cwd, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        pytest.fail(f"{' '.join(map(str, args))} failed:\n{result.stderr}")


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------ ELF artefacts


@dataclass(frozen=True)
class ElfLibs:
    directory: Path
    cudnn: Path  # soname libcudnn.so.8, exports cudnnGetVersion and cudnnVersionTable
    dep: Path  # soname libdep.so.1
    user: Path  # DT_NEEDED libdep.so.1 then libcudnn.so.8
    runpath: Path  # DT_RUNPATH $ORIGIN/../nvidia/cudnn/lib:$ORIGIN/../nvidia/cublas/lib
    rpath: Path  # DT_RPATH /opt/x
    trap: Path  # a constructor writes LOADED_MARKER next to it when loaded
    executable: Path  # gcc -no-pie: ET_EXEC
    object_file: Path  # gcc -c: ET_REL
    elf32: Path | None  # gcc -m32, or None where this gcc cannot target i386
    elf32_error: str


@pytest.fixture(scope="session")
def elf_libs(tmp_path_factory: pytest.TempPathFactory) -> ElfLibs:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found; the ELF tests build real shared objects with it")
    out = tmp_path_factory.mktemp("elf")
    shared = ("gcc", "-shared", "-fPIC", "-O2")
    _write(
        out,
        "cudnn.c",
        "#include <stdio.h>\n"
        "int cudnnVersionTable[4] = {8, 9, 7, 0};\n"
        "static int hidden_helper(void) { return 7; }\n"
        'int cudnnGetVersion(void) { puts("x"); return 8900 + hidden_helper(); }\n',
    )
    _run(*shared, "-Wl,-soname,libcudnn.so.8", "-o", "libcudnn.so.8", "cudnn.c", cwd=out)
    _write(out, "dep.c", "int dep_value(void) { return 1; }\n")
    _run(*shared, "-Wl,-soname,libdep.so.1", "-o", "libdep.so", "dep.c", cwd=out)
    _write(
        out,
        "user.c",
        "int dep_value(void); int cudnnGetVersion(void);\n"
        "int user_value(void) { return dep_value() + cudnnGetVersion(); }\n",
    )
    _run(
        *shared, "-Wl,--no-as-needed", "-o", "libuser.so", "user.c",
        "libdep.so", "libcudnn.so.8", cwd=out,
    )  # fmt: skip
    _run(
        *shared,
        "-Wl,--enable-new-dtags",
        "-Wl,-rpath,$ORIGIN/../nvidia/cudnn/lib:$ORIGIN/../nvidia/cublas/lib",
        "-o", "librunpath.so", "dep.c", cwd=out,
    )  # fmt: skip
    _run(
        *shared, "-Wl,--disable-new-dtags", "-Wl,-rpath,/opt/x", "-o", "librpath.so", "dep.c",
        cwd=out,
    )  # fmt: skip
    _write(
        out,
        "trap.c",
        "#include <stdio.h>\n"
        "__attribute__((constructor)) static void mark(void) {\n"
        f'  FILE *f = fopen("{out / LOADED_MARKER}", "w"); if (f) fclose(f);\n'
        "}\n"
        "int trap_value(void) { return 3; }\n",
    )
    _run(*shared, "-o", "libtrap.so", "trap.c", cwd=out)
    _write(out, "main.c", "int main(void) { return 0; }\n")
    _run("gcc", "-no-pie", "-o", "main", "main.c", cwd=out)
    _run("gcc", "-c", "-o", "dep.o", "dep.c", cwd=out)
    # Debian's gcc without gcc-multilib has no 32-bit crt files or libgcc; -nostdlib needs
    # neither and still gives a real i386 shared object.
    _write(out, "tiny.c", "int tiny_value(void) { return 32; }\n")
    m32 = "gcc -m32 -shared -fPIC -nostdlib -Wl,-soname,libtiny32.so -o libtiny32.so tiny.c"
    result = subprocess.run(
        m32.split(),
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    return ElfLibs(
        directory=out,
        cudnn=out / "libcudnn.so.8",
        dep=out / "libdep.so",
        user=out / "libuser.so",
        runpath=out / "librunpath.so",
        rpath=out / "librpath.so",
        trap=out / "libtrap.so",
        executable=out / "main",
        object_file=out / "dep.o",
        elf32=out / "libtiny32.so" if result.returncode == 0 else None,
        elf32_error=result.stderr.strip()[-300:],
    )


def test_elf_soname_exports_and_machine(elf_libs: ElfLibs) -> None:
    info = read_binary(elf_libs.cudnn)
    assert info.format == "elf"
    assert (info.machine, info.bits) == python_machine()
    assert info.soname == "libcudnn.so.8"
    assert info.path == str(elf_libs.cudnn)
    assert "cudnnGetVersion" in info.exports
    assert "cudnnVersionTable" in info.exports  # an exported object, not only functions
    assert "hidden_helper" not in info.exports  # static: not in .dynsym
    assert "puts" not in info.exports  # imported (SHN_UNDEF), not defined here
    assert "libc.so.6" in info.needed
    assert info.problems == ()


def test_elf_needed_in_link_order(elf_libs: ElfLibs) -> None:
    info = read_binary(elf_libs.user)
    assert info.needed[:2] == ("libdep.so.1", "libcudnn.so.8")
    assert info.soname is None
    assert info.runpath == ()
    assert info.rpath == ()
    assert "user_value" in info.exports
    assert "dep_value" not in info.exports


def test_elf_runpath_as_written(elf_libs: ElfLibs) -> None:
    info = read_binary(elf_libs.runpath)
    assert info.runpath == ("$ORIGIN/../nvidia/cudnn/lib", "$ORIGIN/../nvidia/cublas/lib")
    assert info.rpath == ()
    site = str(elf_libs.directory / "tensorflow")
    assert expand_origin(info.runpath, site)[0] == str(
        elf_libs.directory / "nvidia" / "cudnn" / "lib"
    )


def test_elf_rpath_as_written(elf_libs: ElfLibs) -> None:
    info = read_binary(elf_libs.rpath)
    assert info.rpath == ("/opt/x",)
    assert info.runpath == ()


def test_elf_32_bit(elf_libs: ElfLibs) -> None:
    if elf_libs.elf32 is None:
        pytest.skip(
            f"gcc -m32 cannot build here (no 32-bit binutils support?): {elf_libs.elf32_error}"
        )
    info = read_binary(elf_libs.elf32)
    assert (info.format, info.bits, info.machine) == ("elf", 32, "i386")
    assert info.soname == "libtiny32.so"
    assert info.exports == ("tiny_value",)
    assert not compatible_with(info, "x86_64", 64)
    assert compatible_with(info, "i386", 32)


def test_elf_executable_is_read_with_a_note(elf_libs: ElfLibs) -> None:
    info = read_binary(elf_libs.executable)
    assert info.format == "elf"
    assert info.bits == python_machine()[1]
    assert "libc.so.6" in info.needed
    assert info.problems == ("ELF file is not a shared library (type ET_EXEC)",)


def test_elf_object_file_has_no_dynamic_facts(elf_libs: ElfLibs) -> None:
    info = read_binary(elf_libs.object_file)
    assert info.problems == ("ELF file is not a shared library (type ET_REL)",)
    assert (info.needed, info.exports, info.soname) == ((), (), None)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc/self/maps")
def test_reading_never_loads_the_library(elf_libs: ElfLibs) -> None:
    info = read_binary(elf_libs.trap)
    assert "trap_value" in info.exports
    assert not (elf_libs.directory / LOADED_MARKER).exists(), "the constructor ran"
    assert str(elf_libs.trap) not in Path("/proc/self/maps").read_text()


def test_symlink_is_followed_and_path_kept(elf_libs: ElfLibs, tmp_path: Path) -> None:
    link = tmp_path / "libcudnn.so"
    link.symlink_to(elf_libs.cudnn)
    info = read_binary(str(link))
    assert info.path == str(link)
    assert info.soname == "libcudnn.so.8"


# ------------------------------------------------------------------------------- PE artefacts


@dataclass(frozen=True)
class PeLibs:
    cudnn64: Path  # x86_64 cudnn_cnn_infer64_8.dll importing uncompress from zlibwapi.dll
    zlib64: Path  # x86_64 zlibwapi.dll exporting uncompress, compress2
    delayed64: Path  # x86_64 DLL that delay-loads zlibwapi.dll
    exe64: Path  # x86_64 .exe
    zlib32: Path | None  # i686 zlibwapi.dll; None when i686-w64-mingw32-gcc is missing


ZLIB_C = (
    "__declspec(dllexport) int uncompress(void) { return 0; }\n"
    "__declspec(dllexport) int compress2(void) { return 0; }\n"
)
CUDNN_C = (
    "int uncompress(void);\n"
    "__declspec(dllexport) int cudnnGetVersion(void) { return 8907 + uncompress(); }\n"
)


def _require(tool: str, package: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} not found; install the Debian package {package}")
    return path


@pytest.fixture(scope="session")
def pe_libs(tmp_path_factory: pytest.TempPathFactory) -> PeLibs:
    gcc64 = _require(MINGW_64, "gcc-mingw-w64-x86-64")
    out = tmp_path_factory.mktemp("pe")
    _write(out, "zlib.c", ZLIB_C)
    _write(out, "cudnn.c", CUDNN_C)
    _run(
        gcc64, "-shared", "-O2", "-o", "zlibwapi.dll", "zlib.c",
        "-Wl,--out-implib,libzlibwapi.a", cwd=out,
    )  # fmt: skip
    cudnn_dir = out / "cudnn"
    cudnn_dir.mkdir()
    _run(
        gcc64, "-shared", "-O2", "-o", cudnn_dir / "cudnn_cnn_infer64_8.dll", "cudnn.c",
        "-L.", "-lzlibwapi", cwd=out,
    )  # fmt: skip
    _build_delay_loading_dll(gcc64, out)
    _write(out, "main.c", "int main(void) { return 0; }\n")
    _run(gcc64, "-O2", "-o", "main.exe", "main.c", cwd=out)

    zlib32 = None
    gcc32 = shutil.which(MINGW_32)
    if gcc32 is not None:
        x86_dir = out / "dll_x86"
        x86_dir.mkdir()
        _run(gcc32, "-shared", "-O2", "-o", x86_dir / "zlibwapi.dll", "zlib.c", cwd=out)
        zlib32 = x86_dir / "zlibwapi.dll"
    return PeLibs(
        cudnn64=cudnn_dir / "cudnn_cnn_infer64_8.dll",
        zlib64=out / "zlibwapi.dll",
        delayed64=out / "delayed.dll",
        exe64=out / "main.exe",
        zlib32=zlib32,
    )


def _build_delay_loading_dll(gcc64: str, out: Path) -> None:
    """A DLL that delay-loads zlibwapi.dll, with its delay-import directory filled in.

    binutils' ld (2.40 in Debian 12) links the delay-load descriptor from dlltool's delay
    library but leaves the optional header's delay-import directory empty, where Microsoft's
    link.exe points it at the descriptor; the test sets it the way link.exe does, with pefile.
    """
    tools = Path(gcc64).parent
    dlltool = tools / "x86_64-w64-mingw32-dlltool"
    nm = tools / "x86_64-w64-mingw32-nm"
    if not (dlltool.exists() and nm.exists()):
        pytest.skip("x86_64-w64-mingw32-dlltool/nm not found; install binutils-mingw-w64-x86-64")
    _write(out, "zlibwapi.def", "LIBRARY zlibwapi.dll\nEXPORTS\nuncompress\ncompress2\n")
    _run(
        dlltool, "--input-def", "zlibwapi.def", "--dllname", "zlibwapi.dll",
        "--output-delaylib", "libzdelay.a", cwd=out,
    )  # fmt: skip
    _run(gcc64, "-shared", "-O2", "-o", "delayed.dll", "cudnn.c", "-L.", "-lzdelay", cwd=out)
    symbols = subprocess.run(
        [str(nm), "delayed.dll"], cwd=out, capture_output=True, text=True, check=True
    ).stdout
    address = next(
        int(line.split()[0], 16)
        for line in symbols.splitlines()
        if line.endswith("__DELAY_IMPORT_DESCRIPTOR_libzdelay_a")
    )
    pe = pefile.PE(str(out / "delayed.dll"))
    directory = pe.OPTIONAL_HEADER.DATA_DIRECTORY[
        pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT"]
    ]
    directory.VirtualAddress = address - pe.OPTIONAL_HEADER.ImageBase
    directory.Size = 32  # one ImgDelayDescr
    data = pe.write()
    pe.close()
    (out / "delayed.dll").write_bytes(bytes(data))


def test_pe_64_bit_cudnn_sub_library_imports_zlibwapi(pe_libs: PeLibs) -> None:
    info = read_binary(pe_libs.cudnn64)
    assert (info.format, info.bits, info.machine) == ("pe", 64, "x86_64")
    assert info.needed[0] == "zlibwapi.dll"  # original case, first import
    assert "KERNEL32.dll" in info.needed
    assert info.exports == ("cudnnGetVersion",)
    assert (info.soname, info.runpath, info.rpath) == (None, (), ())
    assert info.problems == ()
    assert compatible_with(info, "x86_64", 64)
    assert not compatible_with(info, "i386", 32)


def test_pe_64_bit_zlibwapi_exports(pe_libs: PeLibs) -> None:
    info = read_binary(pe_libs.zlib64)
    assert (info.bits, info.machine) == (64, "x86_64")
    assert set(info.exports) == {"uncompress", "compress2"}
    assert "zlibwapi.dll" not in info.needed


def test_pe_32_bit_zlibwapi_is_the_error_193_case(pe_libs: PeLibs) -> None:
    if pe_libs.zlib32 is None:
        pytest.skip(f"{MINGW_32} not found; install the Debian package gcc-mingw-w64-i686")
    info = read_binary(pe_libs.zlib32)
    assert (info.format, info.bits, info.machine) == ("pe", 32, "i386")
    assert set(info.exports) == {"uncompress", "compress2"}
    assert info.problems == ()
    # What a 64-bit Python on Windows would make of it: error 193.
    assert not compatible_with(info, "x86_64", 64)
    assert compatible_with(info, "i386", 32)


def test_pe_delay_load_imports_come_after_normal_ones(pe_libs: PeLibs) -> None:
    info = read_binary(pe_libs.delayed64)
    assert info.needed[-1] == "zlibwapi.dll"
    assert "KERNEL32.dll" in info.needed[:-1]
    assert info.exports == ("cudnnGetVersion",)


def test_pe_executable_is_read_with_a_note(pe_libs: PeLibs) -> None:
    info = read_binary(pe_libs.exe64)
    assert (info.format, info.bits, info.machine) == ("pe", 64, "x86_64")
    assert info.problems == ("PE file is not a DLL (IMAGE_FILE_DLL is not set: an executable)",)


# -------------------------------------------------------------------------------- bad files


def _cut(source: Path, size: int, target: Path) -> Path:
    target.write_bytes(source.read_bytes()[:size])
    return target


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "libcudnn.so.8"
    path.write_bytes(b"")
    info = read_binary(path)
    assert info.format == "unknown"
    assert info.problems == ("file is empty",)


def test_truncated_elf_keeps_header_facts(elf_libs: ElfLibs, tmp_path: Path) -> None:
    info = read_binary(_cut(elf_libs.cudnn, 100, tmp_path / "libcudnn.so.8"))
    assert info.format == "elf"
    assert (info.machine, info.bits) == python_machine()
    assert len(info.problems) == 1
    assert info.problems[0].startswith("truncated: the file is 100 bytes")
    assert (info.needed, info.exports, info.soname) == ((), (), None)


def test_elf_shorter_than_its_header(elf_libs: ElfLibs, tmp_path: Path) -> None:
    info = read_binary(_cut(elf_libs.cudnn, 20, tmp_path / "libcut.so"))
    assert info.format == "elf"
    assert info.problems == ("truncated: the file is 20 bytes, shorter than an ELF header",)


def test_elf_cut_inside_its_data(elf_libs: ElfLibs, tmp_path: Path) -> None:
    full = elf_libs.cudnn.stat().st_size
    info = read_binary(_cut(elf_libs.cudnn, full // 2, tmp_path / "libcut.so"))
    assert info.problems[0].startswith("truncated:")


@pytest.mark.parametrize("size", [10, 100, 200, 300, 1500])
def test_truncated_pe(pe_libs: PeLibs, tmp_path: Path, size: int) -> None:
    # 200 bytes cuts into the optional header (pefile gives up); 300 and 1500 keep the headers
    # pefile needs, but not the sections they describe.
    info = read_binary(_cut(pe_libs.cudnn64, size, tmp_path / "cudnn64_8.dll"))
    assert info.format == "pe"
    assert len(info.problems) == 1
    assert info.problems[0].startswith(f"truncated: the file is {size} bytes")
    assert info.needed == ()


def test_pe_cut_inside_its_sections(pe_libs: PeLibs, tmp_path: Path) -> None:
    full = pe_libs.cudnn64.stat().st_size
    info = read_binary(_cut(pe_libs.cudnn64, full // 2, tmp_path / "cudnn64_8.dll"))
    assert info.problems[0].startswith("truncated:")
    assert (info.bits, info.machine) == (64, "x86_64")


def test_random_bytes(tmp_path: Path) -> None:
    data = random.Random(193).randbytes(4096)
    assert not data.startswith((b"\x7fELF", b"MZ"))
    path = tmp_path / "zlibwapi.dll"
    path.write_bytes(data)
    info = read_binary(path)
    assert info.format == "unknown"
    assert info.problems == (
        f"not an ELF or PE file: it begins with the bytes {data[:8].hex(' ')}",
    )


def test_mz_file_without_pe_header(tmp_path: Path) -> None:
    path = tmp_path / "old.dll"
    path.write_bytes(b"MZ" + bytes(4094))  # e_lfanew = 0: the "PE" signature is missing
    info = read_binary(path)
    assert info.format == "pe"
    assert info.problems[0].startswith("malformed PE file:")


def test_text_file_named_like_a_library(tmp_path: Path) -> None:
    path = tmp_path / "libfoo.so"
    path.write_text("INPUT(-lfoo_real)\n")
    info = read_binary(path)
    assert info.format == "unknown"
    assert info.problems == ("not an ELF or PE file: it is text beginning 'INPUT(-lfoo_real)'",)


def test_directory(tmp_path: Path) -> None:
    assert read_binary(tmp_path).problems == ("is a directory",)


def test_missing_file(tmp_path: Path) -> None:
    assert read_binary(tmp_path / "cudnn64_8.dll").problems == ("does not exist",)


def test_dangling_symlink(tmp_path: Path) -> None:
    link = tmp_path / "libcudnn.so.8"
    link.symlink_to(tmp_path / "libcudnn.so.8.9.7")
    info = read_binary(link)
    assert info.format == "unknown"
    assert info.problems == (f"dangling symlink to {tmp_path / 'libcudnn.so.8.9.7'}",)


def test_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "a.so").symlink_to(tmp_path / "b.so")
    (tmp_path / "b.so").symlink_to(tmp_path / "a.so")
    assert read_binary(tmp_path / "a.so").problems == ("symlink loop",)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this OS")
def test_fifo_is_not_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "libfifo.so"
    os.mkfifo(fifo)
    assert read_binary(fifo).problems == ("is not a regular file (a device, socket or FIFO)",)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root reads files whatever their mode, so permission denied cannot be produced",
)
def test_permission_denied(elf_libs: ElfLibs, tmp_path: Path) -> None:
    locked_dir = tmp_path / "locked"
    locked_dir.mkdir()
    unreadable = tmp_path / "libunreadable.so"
    shutil.copyfile(elf_libs.cudnn, unreadable)
    unreadable.chmod(0)
    locked_dir.chmod(0)
    try:
        assert read_binary(locked_dir / "libcudnn.so.8").problems == (
            "cannot be read: Permission denied",
        )
        assert read_binary(unreadable).problems == ("cannot be read: Permission denied",)
    finally:
        locked_dir.chmod(0o700)
        unreadable.chmod(0o600)


# ------------------------------------------------------------------------ hand-built ELF files
# No cross compiler is needed for big-endian and 32-bit layouts: these files are written field by
# field from the System V gABI, and pyelftools, reading them independently, confirms they are
# what they claim to be.

DT_NULL, DT_NEEDED, DT_HASH, DT_STRTAB, DT_STRSZ = 0, 1, 4, 5, 10
DT_SONAME, DT_RPATH, DT_RUNPATH = 14, 15, 29
HAND_VADDR = 0x10000
HAND_STRINGS = b"\0libc.so.6\0libm.so.6\0libhand.so.1\0$ORIGIN/../lib:/opt/a\0/opt/rpath\0"


def _string_offset(text: str) -> int:
    return HAND_STRINGS.index(b"\0" + text.encode() + b"\0") + 1


@dataclass(frozen=True)
class HandElf:
    """A minimal shared object: ELF header, two program headers (a PT_LOAD over the whole file
    and a PT_DYNAMIC), the string table, then the dynamic entries; no section headers. The
    fields after `machine` break it in one chosen way."""

    bits: int = 64
    order: str = "<"
    machine: int = 62
    e_phnum: int = 2
    strtab: int | None = None  # DT_STRTAB's address; None: where the table really is
    strsz: int | None = None  # DT_STRSZ; None: the table's real size
    omit: frozenset[int] = frozenset()  # honest entries left out
    extra: tuple[tuple[int, int], ...] = ()  # entries after the honest ones
    dt_null: bool = True

    def _entries(self, strtab_address: int) -> list[tuple[int, int]]:
        entries = [
            (DT_NEEDED, _string_offset("libc.so.6")),
            (DT_NEEDED, _string_offset("libm.so.6")),
            (DT_SONAME, _string_offset("libhand.so.1")),
            (DT_RUNPATH, _string_offset("$ORIGIN/../lib:/opt/a")),
            (DT_RPATH, _string_offset("/opt/rpath")),
            (DT_STRTAB, strtab_address if self.strtab is None else self.strtab),
            (DT_STRSZ, len(HAND_STRINGS) if self.strsz is None else self.strsz),
        ]
        entries = [entry for entry in entries if entry[0] not in self.omit]
        entries.extend(self.extra)
        if self.dt_null:
            entries.append((DT_NULL, 0))
        return entries

    def build(self) -> bytes:
        wide = self.bits == 64
        order = self.order
        header_size, phdr_size = (64, 56) if wide else (52, 32)
        strtab_offset = header_size + 2 * phdr_size
        dynamic_offset = (strtab_offset + len(HAND_STRINGS) + 7) // 8 * 8
        entry = struct.Struct(order + ("qQ" if wide else "iI"))
        dynamic = b"".join(entry.pack(*pair) for pair in self._entries(HAND_VADDR + strtab_offset))
        file_size = dynamic_offset + len(dynamic)
        ident = b"\x7fELF" + bytes([2 if wide else 1, 1 if order == "<" else 2, 1]) + bytes(9)
        layout = "HHIQQQIHHHHHH" if wide else "HHIIIIIHHHHHH"
        header = ident + struct.pack(
            order + layout, 3, self.machine, 1, 0, header_size, 0, 0,
            header_size, phdr_size, self.e_phnum, 64 if wide else 40, 0, 0,
        )  # fmt: skip
        program_headers = self._program_header(0x1, 0, file_size, 5, 0x1000) + (
            self._program_header(0x2, dynamic_offset, len(dynamic), 6, 8)
        )
        padding = bytes(dynamic_offset - strtab_offset - len(HAND_STRINGS))
        return header + program_headers + HAND_STRINGS + padding + dynamic

    def _program_header(self, kind: int, offset: int, size: int, flags: int, align: int) -> bytes:
        address = HAND_VADDR + offset
        if self.bits == 64:
            # p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align
            return struct.pack(
                self.order + "IIQQQQQQ", kind, flags, offset, address, address, size, size, align
            )
        # p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, p_align
        return struct.pack(
            self.order + "IIIIIIII", kind, offset, address, address, size, size, flags, align
        )

    def write(self, path: Path) -> Path:
        path.write_bytes(self.build())
        return path


def _pyelftools_dynamic(path: Path) -> tuple[int, str, dict[str, list[str]]]:
    """(bits, byte order, string-valued dynamic tags) as pyelftools reads them: the oracle."""
    with path.open("rb") as stream:
        elf = ELFFile(stream)
        tags: dict[str, list[str]] = {}
        for segment in elf.iter_segments():
            if isinstance(segment, DynamicSegment):
                for tag in segment.iter_tags():
                    kind = str(tag.entry.d_tag)
                    field = kind.removeprefix("DT_").lower()
                    if kind in {"DT_NEEDED", "DT_SONAME", "DT_RUNPATH", "DT_RPATH"}:
                        tags.setdefault(kind, []).append(str(getattr(tag, field)))
                break
        return int(elf.elfclass), "<" if elf.little_endian else ">", tags


@pytest.mark.parametrize(
    ("bits", "order", "machine", "name"),
    [
        (64, "<", 62, "x86_64"),
        (64, ">", 183, "aarch64"),  # aarch64_be
        (64, ">", 43, "unknown(0x2b)"),  # EM_SPARCV9
        (32, "<", 3, "i386"),
        (32, ">", 40, "arm"),  # armeb
        (32, "<", 50, "ia64"),
    ],
)
def test_hand_built_elf_of_each_class_and_byte_order(
    tmp_path: Path, bits: int, order: str, machine: int, name: str
) -> None:
    path = HandElf(bits=bits, order=order, machine=machine).write(tmp_path / "libhand.so.1")
    assert _pyelftools_dynamic(path) == (
        bits,
        order,
        {
            "DT_NEEDED": ["libc.so.6", "libm.so.6"],
            "DT_SONAME": ["libhand.so.1"],
            "DT_RUNPATH": ["$ORIGIN/../lib:/opt/a"],
            "DT_RPATH": ["/opt/rpath"],
        },
    )
    expected = BinaryInfo(
        path=str(path),
        format="elf",
        bits=bits,
        machine=name,
        soname="libhand.so.1",
        needed=("libc.so.6", "libm.so.6"),
        runpath=("$ORIGIN/../lib", "/opt/a"),
        rpath=("/opt/rpath",),
        exports=(),  # no symbol table at all
        problems=(),
    )
    assert read_binary(path, exports=False) == expected
    assert read_binary(path) == expected  # the pyelftools path reads the same file cleanly


def test_hand_built_elf_without_dt_strsz(tmp_path: Path) -> None:
    # ld.so does not need DT_STRSZ; the strings are then bounded by their PT_LOAD segment.
    path = HandElf(omit=frozenset({DT_STRSZ})).write(tmp_path / "libhand.so.1")
    info = read_binary(path, exports=False)
    assert (info.soname, info.rpath, info.problems) == ("libhand.so.1", ("/opt/rpath",), ())


def test_hand_built_elf_ignores_other_tags_and_padding_after_dt_null(tmp_path: Path) -> None:
    padded = HandElf(extra=((DT_HASH, HAND_VADDR),)).build() + bytes(64)
    path = tmp_path / "libhand.so.1"
    path.write_bytes(padded)
    info = read_binary(path, exports=False)
    assert (info.needed, info.problems) == (("libc.so.6", "libm.so.6"), ())


def _hostile_cases() -> list[tuple[str, HandElf, str]]:
    rpath = _string_offset("/opt/rpath")
    table = len(HAND_STRINGS)
    return [
        (
            "strtab-outside-every-load",
            HandElf(strtab=0x900000),
            "malformed ELF file: DT_STRTAB 0x900000 is outside the file data of every PT_LOAD "
            "segment",
        ),
        (
            "string-offset-beyond-strsz",
            HandElf(extra=((DT_NEEDED, table + 100),)),
            f"malformed ELF file: DT_NEEDED names string offset {table + 100}, outside the "
            f"{table}-byte string table",
        ),
        (
            "strsz-ends-inside-a-string",
            HandElf(strsz=rpath + 3),
            f"malformed ELF file: the DT_RPATH string at offset {rpath} has no terminating NUL "
            "within the string table or 1048576 bytes",
        ),
        (
            "string-offset-past-the-load-segment",
            HandElf(strsz=1 << 40, extra=((DT_NEEDED, 1 << 30),)),
            f"malformed ELF file: DT_NEEDED names string offset {1 << 30}, outside the",
        ),
        (
            "no-dt-null",
            HandElf(dt_null=False),
            "malformed ELF file: the dynamic segment has no DT_NULL in its first 7 entries",
        ),
        (
            "no-dt-null-in-a-huge-segment",
            HandElf(dt_null=False, extra=((DT_HASH, 0),) * 70_000),
            "malformed ELF file: the dynamic segment has no DT_NULL in its first 65536 entries",
        ),
        (
            "no-dt-strtab",
            HandElf(omit=frozenset({DT_STRTAB})),
            "malformed ELF file: it has DT_NEEDED but no DT_STRTAB",
        ),
        (
            "e_phnum-65535-in-a-tiny-file",
            HandElf(e_phnum=0xFFFF),
            "truncated: the file is ",
        ),
    ]


@pytest.mark.parametrize(
    ("elf", "problem"),
    [pytest.param(elf, problem, id=case) for case, elf, problem in _hostile_cases()],
)
@pytest.mark.parametrize("exports", [False, True])
def test_hostile_hand_built_elf(tmp_path: Path, elf: HandElf, problem: str, exports: bool) -> None:
    path = elf.write(tmp_path / "libhand.so.1")
    start = time.perf_counter()
    info = read_binary(path, exports=exports)
    assert time.perf_counter() - start < 2.0  # bounded work, however many entries are claimed
    assert (info.format, info.bits, info.machine) == ("elf", 64, "x86_64")
    assert len(info.problems) == 1
    assert info.problems[0].startswith(problem)
    assert (info.soname, info.needed, info.runpath, info.rpath) == (None, (), (), ())


def test_e_phnum_65535_is_a_truncation_of_its_headers(tmp_path: Path) -> None:
    path = HandElf(e_phnum=0xFFFF).write(tmp_path / "libhand.so.1")
    size = path.stat().st_size
    assert read_binary(path, exports=False).problems == (
        f"truncated: the file is {size} bytes but its ELF headers need {64 + 0xFFFF * 56} bytes",
    )


@pytest.mark.parametrize(
    ("offset", "value", "problem"),
    [
        (4, 3, "malformed ELF header: EI_CLASS is 3 and EI_DATA is 1, where each must be 1 or 2"),
        (5, 0, "malformed ELF header: EI_CLASS is 2 and EI_DATA is 0, where each must be 1 or 2"),
        (
            0x36,  # e_phentsize, low byte
            40,
            "malformed ELF header: e_phentsize is 40, not the 56 bytes of an ELF64 program header",
        ),
    ],
)
def test_malformed_hand_built_elf_header(
    tmp_path: Path, offset: int, value: int, problem: str
) -> None:
    data = bytearray(HandElf().build())
    data[offset] = value
    path = tmp_path / "libhand.so.1"
    path.write_bytes(bytes(data))
    info = read_binary(path, exports=False)
    assert info.format == "elf"
    assert info.problems == (problem,)


def test_32_bit_elf_header_fits_in_52_bytes(tmp_path: Path) -> None:
    path = tmp_path / "libhand32.so"
    path.write_bytes(HandElf(bits=32, machine=3).build()[:52])
    info = read_binary(path, exports=False)
    assert (info.bits, info.machine) == (32, "i386")
    assert info.problems[0].startswith("truncated: the file is 52 bytes but its ELF headers need")
    path.write_bytes(HandElf(bits=32, machine=3).build()[:51])
    assert read_binary(path, exports=False).problems == (
        "truncated: the file is 51 bytes, shorter than an ELF header",
    )


def test_corrupted_hand_built_elf_never_raises(tmp_path: Path) -> None:
    rng = random.Random(0xE1F)
    sources = [HandElf().build(), HandElf(bits=32, order=">", machine=40).build()]
    path = tmp_path / "libhand.so.1"
    for _ in range(400):
        data = bytearray(rng.choice(sources))
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        path.write_bytes(bytes(data[: rng.randint(1, len(data))]))
        info = read_binary(path, exports=False)  # raising or hanging fails the test
        assert info.format in {"elf", "unknown"}


# ------------------------------------------------------------------- the reader against pyelftools


def _real_elf_files(elf_libs: ElfLibs) -> list[Path]:
    libs = [elf_libs.cudnn, elf_libs.user, elf_libs.runpath, elf_libs.rpath, elf_libs.executable]
    libs.extend(path for path in (elf_libs.elf32, _system_libc(), _tensorflow_framework()) if path)
    return libs


def _tensorflow_framework() -> Path | None:
    """TensorFlow's libtensorflow_framework.so.2 when tensorflow is installed, found without
    importing it."""
    spec = importlib.util.find_spec("tensorflow")
    for directory in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(directory) / "libtensorflow_framework.so.2"
        if candidate.is_file():
            return candidate
    return None


def test_reader_agrees_with_pyelftools(elf_libs: ElfLibs) -> None:
    machines = {62: "x86_64", 3: "i386", 183: "aarch64", 40: "arm", 50: "ia64"}
    for path in _real_elf_files(elf_libs):
        with path.open("rb") as stream:
            value = ELFFile(stream)["e_machine"]  # an EM_* name, or the number when unnamed
        number = value if isinstance(value, int) else ENUM_E_MACHINE[value]
        bits, _order, tags = _pyelftools_dynamic(path)
        info = read_binary(path, exports=False)
        assert (info.bits, info.machine) == (bits, machines.get(number, f"unknown(0x{number:x})"))
        assert info.soname == (tags["DT_SONAME"][-1] if "DT_SONAME" in tags else None), path
        assert list(info.needed) == tags.get("DT_NEEDED", []), path
        assert ":".join(info.runpath) == ":".join(tags.get("DT_RUNPATH", [])), path
        assert ":".join(info.rpath) == ":".join(tags.get("DT_RPATH", [])), path
        assert info.exports == ()


def test_reading_without_exports_does_not_import_pyelftools(elf_libs: ElfLibs) -> None:
    code = (
        "import sys\n"
        "from envcheck.probe.binary_files import read_binary\n"
        f"info = read_binary({str(elf_libs.user)!r}, exports=False)\n"
        "print(info.needed[:2], sorted(m for m in sys.modules if m.startswith('elftools')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "('libdep.so.1', 'libcudnn.so.8') []"


# ---------------------------------------------------------------------- a real system library


def _system_libc() -> Path | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    for directory in (
        f"/lib/{platform.machine()}-linux-gnu",
        f"/usr/lib/{platform.machine()}-linux-gnu",
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
    ):
        candidate = Path(directory) / name
        if candidate.is_file():
            return candidate
    return None


def test_system_c_library_is_read_quickly() -> None:
    libc = _system_libc()
    if libc is None or not sys.platform.startswith("linux"):
        pytest.skip("no glibc shared library found in the usual Linux directories")
    assert libc.stat().st_size > 1_000_000
    read_binary(libc)  # the first call also imports pyelftools
    start = time.perf_counter()
    info = read_binary(libc)
    elapsed = time.perf_counter() - start
    print(f"\nread_binary({libc}): {elapsed * 1000:.1f} ms, {len(info.exports)} exports")
    assert (info.machine, info.bits) == python_machine()
    assert info.soname == libc.name
    assert "printf" in info.exports
    assert "memcpy" in info.exports  # an IFUNC in glibc
    assert info.problems == ()


# ------------------------------------------------------------------------------ pure helpers


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        (("$ORIGIN/../nvidia/cudnn/lib",), ("/site/nvidia/cudnn/lib",)),
        (("${ORIGIN}/../../nvidia/nccl/lib",), ("/nvidia/nccl/lib",)),
        (("$ORIGIN",), ("/site/tensorflow",)),
        (("/opt/x", "$ORIGIN/."), ("/opt/x", "/site/tensorflow")),
        (("$ORIGINAL/lib",), ("$ORIGINAL/lib",)),  # not $ORIGIN, as in ld.so
        (("$LIB/x", "$PLATFORM"), ("$LIB/x", "$PLATFORM")),  # left as written
        (("",), (".",)),
        ((), ()),
    ],
)
def test_expand_origin(entries: tuple[str, ...], expected: tuple[str, ...]) -> None:
    if os.sep != "/":
        pytest.skip("POSIX paths")
    assert expand_origin(entries, "/site/tensorflow") == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("libcudnn.so.8.9.7", "8.9.7"),
        ("libcudart.so.12.5.82", "12.5.82"),
        ("libcudnn.so.8", "8"),
        ("libnvidia-ml.so.535.104.05", "535.104.05"),
        ("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "1"),
        ("libcudnn.so", None),
        ("libcudnn_ops_infer.so.8", "8"),
        ("cudart64_110.dll", None),
        ("cudnn64_8.dll", None),
        ("C:\\CUDA\\bin\\cublas64_12.dll", None),
        ("libfoo.so.1.2a", None),
    ],
)
def test_version_from_file_name(name: str, expected: str | None) -> None:
    assert version_from_file_name(name) == expected


def _info(bits: int | None, machine: str | None) -> BinaryInfo:
    return BinaryInfo(
        path="x",
        format="pe",
        bits=bits,
        machine=machine,
        soname=None,
        needed=(),
        runpath=(),
        rpath=(),
        exports=(),
        problems=(),
    )


@pytest.mark.parametrize(
    ("bits", "machine", "python", "expected"),
    [
        (64, "x86_64", ("x86_64", 64), True),
        (32, "i386", ("x86_64", 64), False),  # error 193
        (64, "x86_64", ("i386", 32), False),
        (64, "aarch64", ("x86_64", 64), False),
        (64, "arm64", ("aarch64", 64), True),  # one architecture, ELF and PE names
        (64, "unknown(0x5)", ("x86_64", 64), True),
        (None, None, ("x86_64", 64), True),
        (32, None, ("x86_64", 64), False),
        (64, "x86_64", ("ppc64le", 64), False),
    ],
)
def test_compatible_with(
    bits: int | None, machine: str | None, python: tuple[str, int], expected: bool
) -> None:
    assert compatible_with(_info(bits, machine), *python) is expected


def test_compatible_with_unknown_format_is_not_a_mismatch() -> None:
    info = replace(_info(None, None), format="unknown", problems=("file is empty",))
    assert compatible_with(info, "x86_64", 64)


@pytest.mark.parametrize(
    ("raw", "bits", "expected"),
    [
        ("x86_64", 64, "x86_64"),
        ("AMD64", 64, "x86_64"),
        ("AMD64", 32, "i386"),  # 32-bit Python on 64-bit Windows
        ("win-amd64", 64, "x86_64"),
        ("win32", 32, "i386"),
        ("i686", 32, "i386"),
        ("aarch64", 64, "aarch64"),
        ("win-arm64", 64, "arm64"),
        ("arm64", 64, "arm64"),
        ("armv7l", 32, "arm"),
        ("aarch64", 32, "arm"),
        ("ia64", 64, "ia64"),
        ("ppc64le", 64, "ppc64le"),
    ],
)
def test_machine_from_platform(raw: str, bits: int, expected: str) -> None:
    assert machine_from_platform(raw, bits) == expected


def test_python_machine_matches_this_interpreter() -> None:
    machine, bits = python_machine()
    assert bits == struct.calcsize("P") * 8
    if platform.machine().lower() in {"x86_64", "amd64"} and bits == 64:
        assert machine == "x86_64"
    assert machine == machine.lower()


def test_repeated_strings_are_bounded_in_total(tmp_path: Path) -> None:
    # 60,000 RUNPATH entries naming one 21-byte string: 1.3 MB of names from a ~1 MB file.
    runpath = (DT_RUNPATH, _string_offset("$ORIGIN/../lib:/opt/a"))
    path = HandElf(extra=(runpath,) * 60_000).write(tmp_path / "libhand.so.1")
    info = read_binary(path, exports=False)
    assert info.runpath == ()
    assert info.problems == (
        "malformed ELF file: its dynamic entries name more than 1048576 bytes of strings",
    )
    # Far below the budget, repeats are kept as the loader reads them.
    few = HandElf(extra=(runpath,) * 3).write(tmp_path / "libfew.so.1")
    assert read_binary(few, exports=False).runpath.count("/opt/a") == 4


def test_read_once_reads_each_file_once_and_only_inside_its_block(tmp_path: Path) -> None:
    # The probe reads the same libraries from three places (search, libraries, loader model);
    # inside read_once() the second read is the first one's answer, outside it a file that
    # changed is read again.
    lib = tmp_path / "libx.so.1"
    lib.write_bytes(b"\x7fELF" + b"\0" * 12)  # an ELF that is cut short
    with read_once():
        first = read_binary(lib, exports=False)
        lib.write_bytes(b"not an object file at all")
        assert read_binary(lib, exports=False) is first
    assert read_binary(lib, exports=False) != first
