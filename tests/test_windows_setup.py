"""scripts/setup-windows.ps1 and the decisions it delegates to envcheck.

Two halves:

1. The Python side (envcheck.recommend.windows_setup and the hidden `envcheck setup` commands): the py
   launcher's list in the formats the three launchers print (the legacy launcher before 3.11,
   CPython's PC/launcher2.c from 3.11, the Python install manager's legacy-paths format),
   with 32-bit, ARM64, free-threaded, Store, conda and active-venv entries, paths with spaces
   and a non-ASCII user name, in the encodings they reach envcheck in; wsl.exe output as
   UTF-16LE (its default), UTF-8 (WSL_UTF8=1) and as PowerShell mangles UTF-16 it decoded as
   UTF-8; and the choice of Python, TensorFlow and native-vs-WSL2 on the bundled matrix.

2. The script itself, checked STATICALLY. PowerShell cannot run here (no pwsh in Debian or on
   PyPI, so no PSScriptAnalyzer either): these tests read the .ps1 as text and enforce its safety
   rules (no Invoke-Expression, no elevation, no registry host names, external programs only via
   `&` with an argument array, -LiteralPath, strict mode, UTF-8 console, ASCII-only source for
   Windows PowerShell 5.1) and check that every envcheck option and JSON field it uses exists.
   They prove nothing about how PowerShell executes it. When the tree-sitter PowerShell grammar
   is installed (`pip install tree-sitter tree-sitter-powershell`, not a test dependency) one
   more test parses the script and checks every command in the syntax tree.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envcheck.cli.options import Command
from envcheck.cli.table import ROOT as CLI_ROOT
from envcheck.matrix.gpu_names import GpuIndex
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.recommend.machine import GpuDescription, MachineDescription
from envcheck.recommend.windows_setup import (
    REFUSE_32BIT,
    WSL1_ONLY,
    WSL2,
    WSL_ABSENT,
    WSL_NO_DISTRIBUTION,
    choose_python,
    decode_output,
    parse_py_list,
    parse_wsl_list,
    plan_windows_python,
    user_distributions,
    wsl_message,
    wsl_state,
)
from envcheck.versions import DriverVersion, PythonVersion

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "setup-windows.ps1"

# Runs the real `envcheck` command line.
CLI = "from envcheck.cli.main import main\nmain()\n"

ZOE = "C:\\Users\\Zo\u00eb M\u00fcller\\AppData\\Local\\Programs\\Python"

# --- py launcher transcripts ----------------------------------------------------------------
# The 3.11+ launcher (PC/launcher2.c): " %-16s %s" of "-V:TAG[ *]" and the path, UTF-8
# (_O_U8TEXT). A 32-bit python.org install registers the tag "X.Y-32", free-threaded "X.Yt".
LAUNCHER2 = (
    f" -V:3.12 *        {ZOE}\\Python312\\python.exe\r\n"
    f" -V:3.11          C:\\Program Files\\Python311\\python.exe\r\n"
    f" -V:3.10          {ZOE}\\Python310\\python.exe\r\n"
    f" -V:3.9-32        {ZOE}\\Python39-32\\python.exe\r\n"
)
# A public transcript: a free-threaded 32-bit default and a 32-bit 3.13 beside 64-bit ones.
LAUNCHER2_FREE_THREADED = (
    " -V:3.13t-32 *    C:\\Python32bit\\python3.13t.exe\r\n"
    " -V:3.13-32       C:\\Python32bit\\python.exe\r\n"
    " -V:3.12          C:\\Python\\Python312\\python.exe\r\n"
    " -V:3.11          C:\\Python64bit\\python.exe\r\n"
)
# An active venv (no tag, marked default), a Store install, conda, an ARM64 build, a pre-release.
LAUNCHER2_MIXED = (
    "  *               C:\\work\\proj\\.venv\\Scripts\\python.exe\r\n"
    " -V:3.14-arm64    C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python314-arm64\\python.exe\r\n"
    " -V:3.13          C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\"
    "PythonSoftwareFoundation.Python.3.13_qbz5n2kfra8p0\\python.exe\r\n"
    " -V:3.15.0a1      C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python315\\python.exe\r\n"
    " -V:ContinuumAnalytics/Anaconda39-64 C:\\Users\\me\\anaconda3\\python.exe\r\n"
    " -V:3.8           C:\\Python38\\python.exe\r\n"
)
# The legacy launcher (Python 3.10 and older): "-X.Y-BITS", the default star after the path,
# a header, and an active venv as "(venv)".
LEGACY = (
    "Installed Pythons found by C:\\WINDOWS\\py.exe Launcher for Windows\r\n"
    " (venv)         C:\\proj\\.env\\Scripts\\python.exe\r\n"
    " -3.10-64       C:\\Users\\vma\\AppData\\Local\\Programs\\Python\\Python310\\python.exe *\r\n"
    " -3.9-32        C:\\Users\\vma\\AppData\\Local\\Programs\\Python\\Python39-32\\python.exe\r\n"
    " -3.8-64        C:\\Users\\vma\\AppData\\Local\\Programs\\Python\\Python38\\python.exe\r\n"
)
# The Python install manager's `py -0p` (list_command.format_legacy, paths=True): the tag
# left-justified to 17, a space, the executable; "[-64]" marks the default platform, and other
# distributors are written Company\Tag.
PYMANAGER = (
    " -V:3.14[-64] *    C:\\Users\\Zo\u00eb M\u00fcller\\AppData\\Local\\Python\\pythoncore-3.14-64\\python.exe\r\n"
    " -V:3.13[-64]      C:\\Users\\Zo\u00eb M\u00fcller\\AppData\\Local\\Python\\pythoncore-3.13-64\\python.exe\r\n"
    " -V:3.13-32        C:\\Users\\Zo\u00eb M\u00fcller\\AppData\\Local\\Python\\pythoncore-3.13-32\\python.exe\r\n"
    " -V:Astral\\CPython3.12.4 C:\\Users\\Zo\u00eb M\u00fcller\\AppData\\Roaming\\uv\\python\\cpython-3.12.4\\python.exe\r\n"
)
ONLY_32BIT = f" -V:3.9-32 *        {ZOE}\\Python39-32\\python.exe\r\n"
NO_PYTHON = "No installed Pythons found!\r\n"

# --- wsl.exe transcripts --------------------------------------------------------------------
WSL_V2 = (
    "  NAME                   STATE           VERSION\r\n"
    "* Ubuntu-22.04           Running         2\r\n"
    "  docker-desktop         Stopped         2\r\n"
    "  docker-desktop-data    Stopped         2\r\n"
)
WSL_V1 = "  NAME            STATE           VERSION\r\n* Ubuntu-20.04    Stopped         1\r\n"
WSL_GERMAN = (
    "  NAME            STATUS             VERSION\r\n"
    "* Debian          Wird ausgef\u00fchrt    2\r\n"
)
WSL_DOCKER_ONLY = (
    "  NAME                   STATE           VERSION\r\n"
    "* docker-desktop         Running         2\r\n"
    "  docker-desktop-data    Stopped         2\r\n"
)
WSL_NONE = (
    "Windows Subsystem for Linux has no installed distributions.\r\n"
    "Distributions can be installed by visiting the Microsoft Store:\r\n"
    "https://aka.ms/wslstore\r\n"
)
WSL_QUIET = "Ubuntu-22.04\r\nDebian\r\n"


def utf16le(text: str, bom: bool = False) -> bytes:
    return (b"\xff\xfe" if bom else b"") + text.encode("utf-16-le")


def powershell_mangled(raw: bytes) -> bytes:
    """What the script writes when an old wsl.exe printed UTF-16LE (ignoring WSL_UTF8): PowerShell
    decoded it as UTF-8 ([Console]::OutputEncoding), split the lines, and the script joined them
    with "\\n" and wrote them as UTF-8 without a BOM."""
    lines = re.split(r"\r\n|\r|\n", raw.decode("utf-8", errors="replace"))
    return "\n".join(lines).encode("utf-8")


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def windows_machine(matrix: Matrix, driver: str | None, gpu: str | None) -> MachineDescription:
    gpus: tuple[GpuDescription, ...] = ()
    if gpu is not None:
        row = GpuIndex.build(matrix.gpus).find(gpu)
        gpus = (GpuDescription(row.name, row.compute_capability),)
    return MachineDescription(
        os="windows",
        arch="x86_64",
        python=PythonVersion(3, 11),  # ignored by plan_windows_python
        driver=DriverVersion.parse(driver) if driver is not None else None,
        gpus=gpus,
        found_via={"driver": "--driver"},
    )


def script_text() -> str:
    return SCRIPT.read_text(encoding="ascii")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CLI, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


# === decoding ===============================================================================


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (LAUNCHER2.encode("utf-8"), LAUNCHER2),
        (b"\xef\xbb\xbf" + LAUNCHER2.encode("utf-8"), LAUNCHER2),
        (utf16le(LAUNCHER2, bom=True), LAUNCHER2),  # Windows PowerShell 5.1: py -0p > file
        (utf16le(WSL_V2), WSL_V2),  # wsl.exe's own output: UTF-16LE, no BOM
        (utf16le(WSL_GERMAN), WSL_GERMAN),
        (b"\xfe\xff" + WSL_V1.encode("utf-16-be"), WSL_V1),
    ],
    ids=["utf8", "utf8-bom", "utf16le-bom", "utf16le-wsl", "utf16le-german", "utf16be-bom"],
)
def test_decode_output_recognises_the_encodings(data: bytes, expected: str) -> None:
    assert decode_output(data) == expected.replace("\r\n", "\n")


def test_decode_output_undoes_powershells_utf16_as_utf8() -> None:
    text = decode_output(powershell_mangled(utf16le(WSL_V2)))
    assert "\x00" not in text
    assert [d.name for d in parse_wsl_list(text)] == [
        "Ubuntu-22.04",
        "docker-desktop",
        "docker-desktop-data",
    ]


def test_decode_output_survives_bad_bytes_and_empty_input() -> None:
    assert decode_output(b"") == ""
    assert decode_output(b" -V:3.12 *   C:\\Zo\xeb\\python.exe\r\n") == (
        " -V:3.12 *   C:\\Zo\ufffd\\python.exe\n"
    )


# === the py launcher's list =================================================================


def test_parse_launcher2_list_with_non_ascii_paths_and_spaces() -> None:
    installs = parse_py_list(decode_output(LAUNCHER2.encode("utf-8")))
    assert [(i.launcher_arg, str(i.version), i.arch, i.default) for i in installs] == [
        ("-V:3.12", "3.12", "x86_64", True),
        ("-V:3.11", "3.11", "x86_64", False),
        ("-V:3.10", "3.10", "x86_64", False),
        ("-V:3.9-32", "3.9", "x86", False),
    ]
    assert installs[0].path == f"{ZOE}\\Python312\\python.exe"
    assert installs[1].path == "C:\\Program Files\\Python311\\python.exe"
    assert installs[3].path == f"{ZOE}\\Python39-32\\python.exe"
    assert [i.problem for i in installs] == [None, None, None, "32-bit"]


def test_the_briefs_32bit_line_without_a_leading_space() -> None:
    (install,) = parse_py_list(f"-V:3.9-32 *        {ZOE}\\Python39-32\\python.exe")
    assert install.tag == "3.9-32"
    assert install.arch == "x86"
    assert install.default
    assert install.path == f"{ZOE}\\Python39-32\\python.exe"
    assert install.problem == "32-bit"


def test_parse_free_threaded_and_32bit_entries() -> None:
    installs = parse_py_list(LAUNCHER2_FREE_THREADED)
    assert [(i.tag, i.arch, i.free_threaded, i.default) for i in installs] == [
        ("3.13t-32", "x86", True, True),
        ("3.13-32", "x86", False, False),
        ("3.12", "x86_64", False, False),
        ("3.11", "x86_64", False, False),
    ]
    assert installs[0].path == "C:\\Python32bit\\python3.13t.exe"


def test_parse_mixed_entries_and_why_each_is_not_used() -> None:
    installs = {i.tag: i for i in parse_py_list(LAUNCHER2_MIXED)}
    assert set(installs) == {"3.14-arm64", "3.13", "3.15.0a1", "Anaconda39-64", "3.8"}
    assert installs["3.14-arm64"].problem == "ARM64 build: TensorFlow has no Windows ARM wheels"
    assert installs["3.13"].problem is None  # a Store install is a PythonCore 64-bit one
    assert installs["3.15.0a1"].problem == "a pre-release"
    conda = installs["Anaconda39-64"]
    assert conda.company == "ContinuumAnalytics"
    assert conda.launcher_arg == "-V:ContinuumAnalytics/Anaconda39-64"
    assert conda.problem == "the launcher does not say which Python version this is"
    assert installs["3.8"].problem == "older than Python 3.9, which envcheck needs"


def test_parse_legacy_launcher_list() -> None:
    installs = parse_py_list(LEGACY)
    assert [(i.launcher_arg, str(i.version), i.arch, i.default) for i in installs] == [
        ("-3.10-64", "3.10", "x86_64", True),
        ("-3.9-32", "3.9", "x86", False),
        ("-3.8-64", "3.8", "x86_64", False),
    ]
    assert installs[0].path == (
        "C:\\Users\\vma\\AppData\\Local\\Programs\\Python\\Python310\\python.exe"
    )


def test_parse_legacy_list_without_paths() -> None:
    installs = parse_py_list(
        "Installed Pythons found by C:\\WINDOWS\\py.exe Launcher for Windows\n"
        " -3.10-64 *\n -3.7-64\n"
    )
    assert [(i.launcher_arg, i.path, i.default) for i in installs] == [
        ("-3.10-64", "", True),
        ("-3.7-64", "", False),
    ]


def test_parse_install_manager_list() -> None:
    installs = parse_py_list(decode_output(PYMANAGER.encode("utf-8")))
    assert [(i.launcher_arg, i.tag, i.arch, i.default) for i in installs] == [
        ("-V:3.14-64", "3.14[-64]", "x86_64", True),
        ("-V:3.13-64", "3.13[-64]", "x86_64", False),
        ("-V:3.13-32", "3.13-32", "x86", False),
        ("-V:Astral\\CPython3.12.4", "CPython3.12.4", "unknown", False),
    ]
    assert installs[0].path.endswith("pythoncore-3.14-64\\python.exe")
    assert "Zo\u00eb M\u00fcller" in installs[0].path
    assert installs[3].company == "Astral"


def test_parse_ignores_messages_and_empty_lists() -> None:
    assert parse_py_list(NO_PYTHON) == ()
    assert parse_py_list("") == ()
    assert parse_py_list("-0p is not an interpreter\n --list-paths\n") == ()


def test_choose_python_newest_supported_64bit() -> None:
    chosen = choose_python(LAUNCHER2, ["3.10", "3.11"])
    assert chosen is not None
    assert chosen.launcher_arg == "-V:3.11"
    assert chosen.path == "C:\\Program Files\\Python311\\python.exe"
    newest = choose_python(LAUNCHER2, ["3.9", "3.10", "3.11", "3.12", "3.13"])
    assert newest is not None
    assert newest.path == f"{ZOE}\\Python312\\python.exe"


def test_choose_python_never_picks_32bit_arm_free_threaded_or_old() -> None:
    assert choose_python(ONLY_32BIT, ["3.9"]) is None
    assert choose_python(LAUNCHER2, ["3.9"]) is None  # only 3.9-32 is installed
    free = choose_python(LAUNCHER2_FREE_THREADED, ["3.11", "3.12", "3.13"])
    assert free is not None
    assert free.tag == "3.12"
    assert choose_python(LAUNCHER2_MIXED, ["3.14", "3.15", "3.8"]) is None
    store = choose_python(LAUNCHER2_MIXED, ["3.13"])
    assert store is not None
    assert "WindowsApps" in store.path
    legacy = choose_python(LEGACY, ["3.8", "3.9", "3.10"])
    assert legacy is not None
    assert legacy.launcher_arg == "-3.10-64"
    manager = choose_python(PYMANAGER, ["3.12", "3.13"])
    assert manager is not None
    assert manager.launcher_arg == "-V:3.13-64"
    assert choose_python(NO_PYTHON, ["3.12"]) is None


def test_choose_python_prefers_the_default_on_a_tie() -> None:
    text = (
        " -V:3.12          C:\\Python312\\python.exe\n"
        " -V:3.12 *        C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python312\\python.exe\n"
    )
    chosen = choose_python(text, ["3.12"])
    assert chosen is not None
    assert chosen.default


# === which Python and TensorFlow; native or WSL2 ============================================


def test_plan_gpu_machine_prefers_native_gpu_build(matrix: Matrix) -> None:
    plan = plan_windows_python(matrix, windows_machine(matrix, "531.79", "RTX 3060"), LAUNCHER2)
    assert plan.chosen is not None
    assert plan.chosen.launcher_arg == "-V:3.10"
    assert plan.candidate is not None
    assert (str(plan.candidate.tensorflow), plan.candidate.kind) == ("2.10.1", "gpu")
    assert plan.candidate.status == "compatible"
    assert not plan.wsl_advised  # the GPU works natively; WSL2 would only be newer
    assert plan.wsl is not None
    # 2.20.0: 2.21.0's own install needs cuSOLVER's path (known_bugs.toml, breaks_gpu_install).
    assert str(plan.wsl.tensorflow) == "2.20.0"
    assert "not used: 3.9-32" in plan.message
    assert any(a.startswith("In WSL2") for a in plan.advice)


def test_plan_tensorflow_211_or_newer_with_gpu_needs_wsl2(matrix: Matrix) -> None:
    machine = windows_machine(matrix, "531.79", "RTX 3060")
    plan = plan_windows_python(matrix, machine, LAUNCHER2, ">=2.11")
    assert plan.chosen is not None
    assert plan.chosen.path == f"{ZOE}\\Python312\\python.exe"  # newest that 2.21 supports
    assert plan.candidate is not None
    assert plan.candidate.kind == "cpu"
    assert plan.wsl_advised
    assert plan.wsl is not None
    assert (
        plan.wsl.commands[0] == 'python -m pip install "tensorflow[and-cuda]==2.20.0"'
    )  # 2.21.0 needs cuSOLVER's path: second


def test_plan_without_an_old_enough_python_needs_wsl2_and_says_which_python(
    matrix: Matrix,
) -> None:
    only_312 = f" -V:3.12 *        {ZOE}\\Python312\\python.exe\n"
    plan = plan_windows_python(matrix, windows_machine(matrix, "531.79", "RTX 3060"), only_312)
    assert plan.chosen is not None
    assert plan.candidate is not None
    assert plan.candidate.status == "cpu-only"
    assert plan.wsl_advised
    assert any("With Python 3.10 instead of 3.12" in a for a in plan.advice)


def test_plan_without_gpu_takes_newest_python_and_no_wsl(matrix: Matrix) -> None:
    plan = plan_windows_python(matrix, windows_machine(matrix, None, None), LAUNCHER2)
    assert plan.chosen is not None
    assert plan.chosen.tag == "3.12"
    assert plan.candidate is not None
    assert (str(plan.candidate.tensorflow), plan.candidate.status) == ("2.21.0", "cpu-only")
    assert not plan.wsl_advised
    assert plan.wsl is None


def test_plan_refuses_32bit_python(matrix: Matrix) -> None:
    plan = plan_windows_python(matrix, windows_machine(matrix, None, None), ONLY_32BIT)
    assert plan.chosen is None
    assert plan.candidate is None
    assert REFUSE_32BIT in plan.message
    assert plan.message.startswith("Only 32-bit Python is installed")
    assert "Zo\u00eb M\u00fcller" in plan.message
    assert "64-bit Python 3.13" in plan.message  # what 2.21 (CPU) supports newest


def test_plan_with_no_python_or_only_unsupported_ones(matrix: Matrix) -> None:
    gpu = windows_machine(matrix, "531.79", "RTX 3060")
    empty = plan_windows_python(matrix, gpu, NO_PYTHON)
    assert empty.chosen is None
    assert empty.message.startswith("The py launcher lists no Python installation")
    assert "64-bit Python 3.10" in empty.message  # the native GPU build's newest Python
    too_new = plan_windows_python(
        matrix, windows_machine(matrix, None, None), " -V:3.14 *   C:\\Python314\\python.exe\n"
    )
    assert too_new.chosen is None
    assert "3.14 (C:\\Python314\\python.exe): no TensorFlow release supports it" in (
        too_new.message
    )


# === WSL ====================================================================================


@pytest.mark.parametrize(
    ("status", "listing", "list_code", "state"),
    [
        (None, "", 0, WSL_ABSENT),  # no wsl.exe at all
        (1, "", 1, WSL_ABSENT),  # the feature is not installed: --status fails
        (-1, WSL_NONE, -1, WSL_ABSENT),
        (0, WSL_NONE, -1, WSL_NO_DISTRIBUTION),
        (0, WSL_DOCKER_ONLY, 0, WSL_NO_DISTRIBUTION),  # Docker's own distributions do not count
        (0, WSL_V1, 0, WSL1_ONLY),
        (0, WSL_V2, 0, WSL2),
        (-1, WSL_V2, 0, WSL2),  # an older WSL without --status that still lists WSL 2
        (0, WSL_GERMAN, 0, WSL2),
        (0, WSL_QUIET, 0, WSL2),  # names only (-l -q): --status works, so WSL 2
        (1, WSL_QUIET, 0, WSL1_ONLY),
    ],
)
def test_wsl_state(status: int | None, listing: str, list_code: int, state: str) -> None:
    assert wsl_state(status, decode_output(utf16le(listing)), list_code) == state


def test_wsl_list_rows() -> None:
    rows = parse_wsl_list(decode_output(utf16le(WSL_V2)))
    assert [(r.name, r.version, r.default) for r in rows] == [
        ("Ubuntu-22.04", 2, True),
        ("docker-desktop", 2, False),
        ("docker-desktop-data", 2, False),
    ]
    assert [d.name for d in user_distributions(WSL_V2)] == ["Ubuntu-22.04"]
    assert user_distributions(WSL_V2, list_exit_code=-1) == ()
    assert [(r.name, r.version) for r in parse_wsl_list(WSL_QUIET)] == [
        ("Ubuntu-22.04", None),
        ("Debian", None),
    ]


def test_wsl_messages_name_the_next_step() -> None:
    assert "wsl --install" in wsl_message(WSL_ABSENT)
    assert "Administrator" in wsl_message(WSL_ABSENT)
    assert "wsl --install -d Ubuntu" in wsl_message(WSL_NO_DISTRIBUTION)
    v1 = user_distributions(WSL_V1)
    assert "wsl --set-version Ubuntu-20.04 2" in wsl_message(WSL1_ONLY, v1)
    assert "wsl -d Ubuntu-22.04" in wsl_message(WSL2, user_distributions(WSL_V2))
    with pytest.raises(ValueError, match="unknown WSL state"):
        wsl_message("banana")


# === the hidden CLI the script calls ========================================================


def test_cli_windows_python_json(tmp_path: Path) -> None:
    listing = tmp_path / "py list.txt"
    listing.write_bytes(utf16le(LAUNCHER2, bom=True))
    result = run_cli(
        "setup", "windows-python", "--py-list", str(listing), "--driver", "531.79",
        "--gpu", "RTX 3060", "--tensorflow", ">=2.11",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.isascii()  # the console code page cannot garble it
    data = json.loads(result.stdout)
    assert data["schema"] == "envcheck.setup-windows-python/1"
    assert data["chosen"]["path"] == f"{ZOE}\\Python312\\python.exe"
    assert data["chosen"]["launcher_arg"] == "-V:3.12"
    assert data["tensorflow"]["status"] == "cpu-only"
    assert data["gpu"] is True
    assert data["wsl2"]["advised"] is True
    assert "WSL2" in data["wsl2"]["explanation"]
    assert [i["problem"] for i in data["installs"]] == [None, None, None, "32-bit"]


def test_cli_windows_python_refuses_32bit_with_exit_1(tmp_path: Path) -> None:
    listing = tmp_path / "py.txt"
    listing.write_bytes(ONLY_32BIT.encode("utf-8"))
    result = run_cli("setup", "windows-python", "--py-list", str(listing), "--driver", "none")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["chosen"] is None
    assert REFUSE_32BIT in data["message"]


@pytest.mark.parametrize(
    "args",
    [
        ["--py-list", "/nonexistent/py.txt", "--driver", "none"],
        ["--py-list", __file__, "--driver", "banana"],
        ["--py-list", __file__, "--driver", "none", "--tensorflow", "two"],
    ],
)
def test_cli_windows_python_usage_errors_are_one_line(args: list[str]) -> None:
    result = run_cli("setup", "windows-python", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1


def test_cli_wsl_state(tmp_path: Path) -> None:
    listing = tmp_path / "wsl.txt"
    listing.write_bytes(utf16le(WSL_V2))
    result = run_cli(
        "setup", "wsl-state", "--status-exit-code=-1", "--list", str(listing),
        "--list-exit-code=0",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["state"] == "wsl2"
    assert data["distributions"] == [{"name": "Ubuntu-22.04", "version": 2, "default": True}]
    absent = json.loads(run_cli("setup", "wsl-state").stdout)
    assert absent["state"] == "absent"


def test_setup_group_is_hidden() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    assert "setup" not in result.stdout.split("Commands:")[-1]


# === the script, statically =================================================================
# PowerShell cannot run here: what follows reads the .ps1 as text.

_EXTERNAL_PROGRAMS = (
    "py", "pyw", "python", "python3", "pythonw", "pip", "pip3", "envcheck", "wsl", "bash",
    "cmd", "powershell", "pwsh", "conda", "winget", "setx", "runas", "reg", "icacls",
)  # fmt: skip
_CMDLET_WITH_LITERAL_PATH = (
    "Test-Path", "Remove-Item", "Get-ChildItem", "Get-Item", "Get-Content", "Set-Content",
    "Add-Content", "Out-File", "Copy-Item", "Move-Item", "Resolve-Path", "Split-Path",
    "Get-ItemProperty", "Rename-Item",
)  # fmt: skip
_KEYWORDS = {
    "if", "elseif", "else", "foreach", "for", "while", "do", "switch", "try", "catch",
    "finally", "function", "param", "return", "throw", "exit", "break", "continue", "begin",
    "process", "end", "filter", "trap", "in",
}  # fmt: skip


def _subexpressions(string: str) -> list[str]:
    """The `$( ... )` parts of a double-quoted string: code that PowerShell runs."""
    found, start = [], string.find("$(")
    while start != -1:
        depth, index = 0, start + 1
        while index < len(string):
            depth += {"(": 1, ")": -1}.get(string[index], 0)
            if depth == 0:
                break
            index += 1
        found.append(string[start : index + 1])
        start = string.find("$(", index)
    return found


def code_only(text: str) -> str:
    """The script without comments, comment blocks, here-strings and string literals (each
    string becomes '' so statements keep their shape); the $( ) subexpressions of
    double-quoted strings stay, since PowerShell runs them. A small lexer, not a parser."""
    text = text.replace("\r\n", "\n")
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("<#", i):
            i = text.index("#>", i) + 2
        elif text.startswith(("@'\n", '@"\n'), i):
            end = text.index("\n" + text[i + 1] + "@", i)
            out.append("''")
            i = end + 3
        elif text[i] == "'":
            j = i + 1
            while j < n and not (text[j] == "'" and text[j + 1 : j + 2] != "'"):
                j += 2 if text[j] == "'" else 1
            out.append("''")
            i = j + 1
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "`" else 1
            out.append("''" + " ".join(_subexpressions(text[i + 1 : j])))
            i = j + 1
        elif text[i] == "#":
            end = text.find("\n", i)
            i = n if end == -1 else end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def test_script_exists_and_is_ascii_for_windows_powershell_51() -> None:
    data = SCRIPT.read_bytes()
    assert data.isascii(), "Windows PowerShell 5.1 reads a BOM-less .ps1 in the ANSI code page"
    assert not data.startswith(b"\xef\xbb\xbf")


def test_script_strict_mode_and_stop_on_errors_before_any_function() -> None:
    text = script_text()
    first_function = text.index("\nfunction ")
    strict = re.search(r"^Set-StrictMode -Version Latest\s*$", text, re.MULTILINE)
    stop = re.search(r"^\$ErrorActionPreference = 'Stop'\s*$", text, re.MULTILINE)
    assert strict is not None
    assert stop is not None
    assert strict.start() < first_function
    assert stop.start() < first_function


def test_script_param_block() -> None:
    text = code_only(script_text())
    match = re.search(r"^\[CmdletBinding\(\)\]\s*param\((?P<body>.*?)^\)", text, re.M | re.S)
    assert match is not None, "a top-level param( block"
    body = match.group("body")
    assert re.search(r"\[string\]\$VenvDir\b", body)
    assert re.search(r"\[string\]\$Source\b", body)
    assert re.search(r"\[switch\]\$Yes\b", body)
    assert re.search(r"\[string\]\$Tensorflow\b", body)
    full = script_text()
    assert "Join-Path $localAppData 'envcheck\\venv'" in full  # the default venv
    assert "$localAppData = $env:LOCALAPPDATA" in full
    assert "[System.IO.Path]::GetDirectoryName($PSScriptRoot)" in full  # the default -Source


def test_script_sets_the_console_to_utf8_and_restores_it() -> None:
    text = script_text()
    assert "[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false" in text
    assert "[Console]::OutputEncoding = $script:SavedConsoleEncoding" in text
    assert "Set-SessionVariable -Name 'PYTHONUTF8' -Value '1'" in text
    assert re.search(r"finally\s*\{\s*Restore-Session\s*\}", text)


def test_script_never_evaluates_strings_or_elevates() -> None:
    code = code_only(script_text())
    for banned in (
        r"\bInvoke-Expression\b", r"\biex\b", r"\bStart-Process\b", r"-Verb\b", r"\bRunAs\b",
        r"\bInvoke-WebRequest\b", r"\bInvoke-RestMethod\b", r"WebClient", r"\bAdd-Type\b",
        r"\[scriptblock\]::Create", r"\bSet-ExecutionPolicy\b", r"HKLM:", r"'Machine'",
        r"\$env:ProgramFiles", r"\$env:SystemRoot", r"\$env:windir",
    ):  # fmt: skip
        assert re.search(banned, code, re.IGNORECASE) is None, banned
    text = script_text()
    assert re.search(r"Invoke-Expression|\biex\b|RunAs", text, re.IGNORECASE) is None
    # Environment changes stay in this process.
    scopes = re.findall(r"SetEnvironmentVariable\([^)]*,\s*'(\w+)'\)", text)
    assert scopes
    assert set(scopes) == {"Process"}


def test_script_names_no_registry_host() -> None:
    text = script_text().lower()
    assert "://" not in text
    for option in ("--index-url", "--extra-index-url", "--trusted-host", "--find-links"):
        assert option not in text
    # No host name at all (a registry's included): the index comes from pip's configuration.
    hostnames = re.findall(r"\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:org|com|net|dev|ms)\b", text)
    assert hostnames == []


def test_script_calls_programs_only_with_the_call_operator_and_an_argument_array() -> None:
    code = code_only(script_text())
    # No program name as a bare word anywhere outside strings: every program is a variable
    # holding a full path, run with `&`.
    for name in _EXTERNAL_PROGRAMS:
        pattern = rf"(?<![\w$.:\\-]){re.escape(name)}(?:\.exe)?(?![\w.\\-])"
        found = re.search(pattern, code, re.IGNORECASE)
        assert found is None, (
            f"bare {name!r}: {code[max(0, found.start() - 40) : found.end() + 40]!r}"
        )
    # `&` is always followed by a variable and a splatted argument array.
    calls = re.findall(r"&\s*(\S+)\s+(@?\w+)", code)
    assert calls
    assert len(calls) == code.count("&")
    for target, arguments in calls:
        assert target == "$FilePath", target
        assert arguments == "@ArgumentList", arguments
    # Every statement starts with a keyword, a Verb-Noun command, a variable, a literal, a type,
    # `&` or a bracket: no bare program.
    verb_noun = re.compile(r"^[A-Z][A-Za-z]+-[A-Z][A-Za-z]+$")
    for line in code.splitlines():
        for segment in re.split(r"[{};|]", line):
            stripped = segment.strip().lstrip("(@!").strip()
            word = re.match(r"[A-Za-z][\w.-]*", stripped)
            if word is None or re.match(r"[A-Za-z][\w]*\s*=", stripped):
                continue  # an expression, or a hashtable key
            token = word.group(0)
            assert token.lower() in _KEYWORDS or verb_noun.match(token), (token, line)


def test_script_uses_literal_paths() -> None:
    code = code_only(script_text())
    for cmdlet in _CMDLET_WITH_LITERAL_PATH:
        for call in re.finditer(rf"\b{cmdlet}\b[^\n]*", code):
            assert "-LiteralPath" in call.group(0), call.group(0)
            assert re.search(r"(?<!\w)-Path\b", call.group(0)) is None, call.group(0)
    assert "New-Item" not in code  # -Path would expand wildcards ([ ] in a user name)
    # Paths are joined with Join-Path, never by gluing strings around a backslash.
    text = script_text()
    assert re.search(r"\+\s*['\"]\\", text) is None
    assert re.search(r"\\['\"]\s*\+", text) is None


def test_script_checks_bitness_and_refuses_32bit() -> None:
    text = script_text()
    assert f"$Refuse32Bit = '{REFUSE_32BIT}'" in text  # the same sentence as envcheck's
    assert "struct.calcsize('P') * 8" in text
    assert "@('-3-64')" in text
    assert text.count("Bits -ne 64") >= 3  # the launcher's pick, the venv, envcheck's choice


def test_script_explains_wsl2_and_checks_wsl() -> None:
    text = script_text()
    explanation = re.search(r"\$WslExplanation = @'\n(?P<body>.*?)\n'@", text, re.DOTALL)
    assert explanation is not None
    body = " ".join(explanation.group("body").split())
    assert "TensorFlow 2.11 and newer has no GPU build for native Windows" in body
    assert "WSL2" in body
    assert "Find-Application -Name 'wsl.exe'" in text
    assert "@('--status')" in text
    assert "@('-l', '-v')" in text
    assert "Set-SessionVariable -Name 'WSL_UTF8' -Value '1'" in text
    assert '"--status-exit-code=$($status.ExitCode)"' in text
    assert '"--list-exit-code=$($list.ExitCode)"' in text
    assert re.search(r"if \(\$choice\.wsl2\.advised\)", text)


def test_script_confirms_before_installing() -> None:
    text = script_text()
    assert "Read-Host -Prompt" in text
    assert "$confirmed = [bool]$Yes" in text
    assert "[Console]::IsInputRedirected" in text
    assert "@('install', '--yes')" in text
    assert "@('doctor')" in text
    assert "Test-Elevated" in text  # it only warns: nothing needs elevation


def test_script_native_stderr_never_stops_it() -> None:
    # Windows PowerShell 5.1 turns redirected native stderr into errors; with 'Stop' that ends
    # the script. The helpers lower the preference around each call and restore it.
    text = script_text()
    assert text.count("$ErrorActionPreference = 'Continue'") == 2
    assert text.count("$ErrorActionPreference = $saved") == 2
    assert "2>&1" not in text
    assert "$PSNativeCommandUseErrorActionPreference = $false" in text


def _script_envcheck_calls(text: str) -> list[list[str]]:
    """The quoted arguments after @($envcheck) in each envcheck call of the script."""
    calls = []
    for match in re.finditer(r"@\(\$[Ee]nvcheck\)\s*\+\s*@\((?P<args>[^)]*)\)", text):
        calls.append(re.findall(r"'([^']*)'", match.group("args")))
    return calls


def test_script_uses_only_envcheck_options_that_exist() -> None:
    text = script_text()
    calls = _script_envcheck_calls(text)
    assert ["setup", "windows-python", "--py-list"] in calls
    assert ["setup", "wsl-state"] in calls
    used = {
        ("setup", "windows-python"): {"--py-list", "--tensorflow"},
        ("setup", "wsl-state"): {"--status-exit-code", "--list", "--list-exit-code"},
        ("install",): {"--yes", "--tensorflow"},
        ("doctor",): set(),
    }
    for path, options in used.items():
        command: Command = CLI_ROOT
        for name in path:
            command = next(c for c in command.subcommands if c.name == name)
        known = {flag for option in command.options for flag in option.flags}
        assert options <= known, (path, options - known)
    for option in ("--status-exit-code=", "--list-exit-code="):
        assert option in text


def test_script_reads_only_json_fields_envcheck_writes(tmp_path: Path) -> None:
    text = script_text()
    listing = tmp_path / "py.txt"
    listing.write_bytes(LAUNCHER2.encode("utf-8"))
    choice = json.loads(
        run_cli(
            "setup", "windows-python", "--py-list", str(listing), "--driver", "531.79",
            "--gpu", "RTX 3060", "--tensorflow", ">=2.11",
        ).stdout
    )  # fmt: skip
    wsl_listing = tmp_path / "wsl.txt"
    wsl_listing.write_bytes(utf16le(WSL_V2))
    state = json.loads(run_cli("setup", "wsl-state", "--list", str(wsl_listing)).stdout)
    for variable, data in (("choice", choice), ("state", state)):
        fields = set(re.findall(rf"\${variable}\.([A-Za-z_][\w.]*)", text))
        assert fields, variable
        for field in fields:
            value: Any = data
            for key in field.split("."):
                assert isinstance(value, dict), (variable, field)
                assert key in value, (variable, field)
                value = value[key]


def test_script_parses_with_the_tree_sitter_powershell_grammar() -> None:
    tree_sitter = pytest.importorskip("tree_sitter")
    grammar = pytest.importorskip("tree_sitter_powershell")
    parser = tree_sitter.Parser(tree_sitter.Language(grammar.language()))
    source = SCRIPT.read_bytes()
    tree = parser.parse(source)
    assert not tree.root_node.has_error
    defined = set(re.findall(r"^function ([\w-]+)", source.decode(), re.MULTILINE))
    cmdlets = {
        "ConvertFrom-Json", "ForEach-Object", "Get-ChildItem", "Get-Command", "Join-Path",
        "New-Object", "Out-Host", "Out-Null", "Read-Host", "Remove-Item", "Select-Object",
        "Set-StrictMode", "Test-Path", "Where-Object", "Write-Host", "Write-Warning",
    }  # fmt: skip
    seen = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "command":
            head = node.children[0]
            name = source[head.start_byte : head.end_byte].decode()
            seen.add(name)
            assert name == "&" or name in defined or name in cmdlets, name
        stack.extend(node.children)
    assert "&" in seen
