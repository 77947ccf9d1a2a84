"""The decisions behind scripts/setup-windows.ps1, as pure functions that run on any OS.

The PowerShell script only orchestrates: it runs `py -0p`, `wsl.exe --status` and `wsl.exe -l -v`,
writes what they print to files, and asks envcheck (`envcheck setup windows-python` and
`envcheck setup wsl-state`, in envcheck.cli.commands.windows_setup) what to do. Reading those
outputs and every decision live here:

- `decode_output`: bytes from a Windows tool -> text (UTF-8, UTF-16LE as wsl.exe prints it, with
  or without a BOM, and UTF-16 that PowerShell already mis-decoded into NUL-interleaved text);
- `parse_py_list` / `choose_python`: the py launcher's list of interpreters (the legacy launcher,
  the 3.11+ launcher and the Python install manager spell it differently) -> the newest 64-bit
  x86_64 CPython that the recommended TensorFlow supports; 32-bit, ARM64, free-threaded and
  pre-release builds are never chosen;
- `plan_windows_python`: which TensorFlow to recommend across the installed Pythons, and whether
  the GPU needs WSL2 (TensorFlow >= 2.11 has no native Windows GPU build);
- `parse_wsl_list` / `wsl_state` / `wsl_message`: is WSL absent, WSL 1 only, WSL 2, or without
  a Linux distribution.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from envcheck.matrix.model import Matrix
from envcheck.recommend.machine import MachineDescription
from envcheck.recommend.rank import Candidate, recommend
from envcheck.record import record
from envcheck.versions import PythonVersion

# envcheck's own requires-python: the venv has to run envcheck too.
MIN_PYTHON = PythonVersion(3, 9)

# The script prints the same sentence when the py launcher's own pick is 32-bit.
REFUSE_32BIT = (
    "32-bit Python cannot be used: TensorFlow has no 32-bit Windows wheels (and a 32-bit process "
    "cannot use the GPU)"
)
INSTALL_64BIT_HINT = (
    "install the 64-bit Python from the python.org 'Windows installer (64-bit)' with the py "
    "launcher option ticked, then run this script again"
)

# WSL states (wsl_state).
WSL_ABSENT = "absent"
WSL1_ONLY = "wsl1-only"
WSL2 = "wsl2"
WSL_NO_DISTRIBUTION = "no-distribution"

# Distributions that tools create for their own use; nobody installs TensorFlow into them.
_INTERNAL_DISTRIBUTIONS = ("docker-desktop", "rancher-desktop")


# --- decoding what Windows tools print ------------------------------------------------------


def _looks_utf16le(data: bytes) -> bool:
    """UTF-16LE text without a BOM: mostly ASCII, so NUL in (nearly) every odd byte."""
    if len(data) < 4:
        return False
    odd = data[1::2]
    even = data[0::2]
    return odd.count(0) >= 0.6 * len(odd) and even.count(0) <= 0.1 * len(even)


def decode_output(data: bytes) -> str:
    """What a Windows console tool printed (or a file PowerShell wrote from it) -> text.

    Handles BOMs (UTF-8, UTF-16LE/BE), UTF-16LE without a BOM (wsl.exe's default), UTF-8, and
    UTF-16 that was already decoded as UTF-8 by PowerShell (characters with NULs in between):
    NULs are dropped. Undecodable bytes become U+FFFD. Line ends become \\n.
    """
    if data.startswith(b"\xff\xfe"):
        text = data[2:].decode("utf-16-le", errors="replace")
    elif data.startswith(b"\xfe\xff"):
        text = data[2:].decode("utf-16-be", errors="replace")
    elif data.startswith(b"\xef\xbb\xbf"):
        text = data[3:].decode("utf-8", errors="replace")
    elif _looks_utf16le(data):
        text = data[: len(data) - len(data) % 2].decode("utf-16-le", errors="replace")
    else:
        text = data.decode("utf-8", errors="replace")
    text = text.replace("\x00", "").replace("\ufeff", "")
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- the py launcher's list -----------------------------------------------------------------

# One interpreter line of `py -0p` / `py --list-paths`:
#   3.11+ launcher:          " -V:3.12 *        C:\...\python.exe"  (default star after the tag)
#   Python install manager:  " -V:3.14[-64] *   C:\...\python.exe"
#   legacy launcher (<3.11): " -3.9-64        C:\...\python.exe *"  (default star after the path)
# Active virtual environments ("  *   path", " (venv)  path"), headers and messages do not start
# with "-" and are skipped.
_PY_LINE = re.compile(
    r"^\s*(?P<arg>-\S+)(?:\s+(?P<star>\*))?(?:\s+(?P<path>.*?))?(?:\s+(?P<tail_star>\*))?\s*$"
)
_TAG = re.compile(
    r"(?P<major>\d+)\.(?P<minor>\d+)(?:\.\d+)?(?P<pre>(?:a|b|rc)\d*|-dev)?(?P<t>t)?"
    r"(?:\[?-(?P<platform>32|64|arm64|arm32)\]?)?",
    re.IGNORECASE,
)
_ARCH = {None: "x86_64", "64": "x86_64", "32": "x86", "arm64": "arm64", "arm32": "arm"}


@record
class PythonInstall:
    """One interpreter as the py launcher lists it."""

    launcher_arg: str  # selects it with py: "-V:3.12", "-V:3.14-64", "-3.9-64"
    company: str  # "PythonCore" for python.org builds (PEP 514)
    tag: str  # "3.12", "3.9-32", "3.13t", "3.12-arm64"
    version: PythonVersion | None  # None when the tag does not say
    arch: str  # "x86_64", "x86", "arm64", "arm" or "unknown"
    free_threaded: bool
    prerelease: bool
    path: str  # "" when listed without paths (py -0)
    default: bool  # what plain `py` runs

    @property
    def problem(self) -> str | None:
        """Why this interpreter cannot hold the TensorFlow venv, or None when it can."""
        if self.version is None:
            return "the launcher does not say which Python version this is"
        if self.arch == "x86":
            return "32-bit"
        if self.arch in ("arm64", "arm"):
            return f"{self.arch.upper()} build: TensorFlow has no Windows ARM wheels"
        if self.arch != "x86_64":
            return "the launcher does not say whether it is 64-bit"
        if self.free_threaded:
            return "free-threaded build: TensorFlow has no wheels for it"
        if self.prerelease:
            return "a pre-release"
        if self.version < MIN_PYTHON:
            return f"older than Python {MIN_PYTHON}, which envcheck needs"
        return None

    def describe(self) -> str:
        where = f" ({self.path})" if self.path else ""
        return f"{self.tag}{where}"


def _install_from(arg: str, path: str, default: bool) -> PythonInstall | None:
    if arg[:3].upper() == "-V:":
        spec = arg[3:]
        # The 3.11+ launcher writes Company/Tag, the install manager Company\Tag.
        parts = re.split(r"[/\\]", spec, maxsplit=1)
        company, tag = (parts[0], parts[1]) if len(parts) == 2 else ("PythonCore", spec)
        # "3.14[-64]": the install manager marks its default platform as optional.
        launcher_arg = "-V:" + spec.replace("[", "").replace("]", "")
    else:
        company, tag = "PythonCore", arg[1:]
        if re.match(r"\d+\.\d+", tag) is None:
            return None  # an option-like line ("-0p ...") that is no interpreter
        launcher_arg = arg
    if not tag:
        return None
    match = _TAG.fullmatch(tag)
    python_org = company.lower() == "pythoncore"
    if match is None:
        return PythonInstall(
            launcher_arg, company, tag, None, "unknown", False, False, path, default
        )
    platform = match.group("platform")
    arch = _ARCH[platform.lower() if platform else None]
    if platform is None and not python_org:
        arch = "unknown"  # other distributors need not follow PythonCore's "-32" convention
    return PythonInstall(
        launcher_arg=launcher_arg,
        company=company,
        tag=tag,
        version=PythonVersion(int(match.group("major")), int(match.group("minor"))),
        arch=arch,
        free_threaded=match.group("t") is not None,
        prerelease=match.group("pre") is not None,
        path=path,
        default=default,
    )


def parse_py_list(text: str) -> tuple[PythonInstall, ...]:
    """The interpreters in `py -0p` (or `py -0`) output, in the launcher's order."""
    installs = []
    for line in text.splitlines():
        match = _PY_LINE.match(line)
        if match is None:
            continue
        install = _install_from(
            match.group("arg"),
            (match.group("path") or "").strip(),
            bool(match.group("star") or match.group("tail_star")),
        )
        if install is not None:
            installs.append(install)
    return tuple(installs)


def choose_python(py_list_output: str, supported: Sequence[str]) -> PythonInstall | None:
    """The newest usable (64-bit x86_64, final, not free-threaded, >= 3.9) interpreter whose X.Y
    is in `supported`; on a tie the launcher's default, else the one listed first."""
    wanted = {PythonVersion.parse(text) for text in supported}
    usable = [i for i in parse_py_list(py_list_output) if i.problem is None and i.version in wanted]
    return max(usable, key=lambda i: (i.version, i.default), default=None)


# --- which Python, which TensorFlow, native or WSL2 -----------------------------------------

_STATUS_RANK = {"compatible": 0, "unverified": 1, "cpu-only": 2}


@record
class WindowsPythonPlan:
    installs: tuple[PythonInstall, ...]
    chosen: PythonInstall | None
    candidate: Candidate | None  # the TensorFlow `envcheck install` will pick for `chosen`
    advice: tuple[str, ...]  # recommend's "what would change the answer"
    wsl: Candidate | None  # the best WSL2 GPU candidate, when it beats the native one
    wsl_advised: bool  # a GPU is here but only WSL2 can use it for the TensorFlow wanted
    message: str


def _rank(candidate: Candidate, python: PythonVersion) -> tuple[object, ...]:
    # recommend's own order (compatible GPU, unverified GPU, CPU only; native kernels before PTX
    # JIT; newest TensorFlow), then the newest Python.
    return (
        -_STATUS_RANK[candidate.status],
        -int(candidate.needs_ptx_jit),
        candidate.tensorflow,
        python,
    )


def _best(
    matrix: Matrix, machine: MachineDescription, pythons: Sequence[PythonVersion], spec: str | None
) -> tuple[PythonVersion, Candidate] | None:
    ranked = []
    for python in pythons:
        result = recommend(matrix, replace(machine, python=python), spec, with_advice=False)
        if result.candidates:
            ranked.append((python, result.candidates[0]))
    return max(ranked, key=lambda pair: _rank(pair[1], pair[0]), default=None)


def _python_range(candidate: Candidate) -> str:
    pythons = candidate.release.python
    if not pythons:
        return "no Python version"
    return str(pythons[0]) if len(pythons) == 1 else f"{pythons[0]}-{pythons[-1]}"


def _what(candidate: Candidate) -> str:
    if candidate.kind == "gpu" and candidate.status == "compatible":
        return f"TensorFlow {candidate.tensorflow} using the GPU (CUDA {candidate.cuda})"
    if candidate.kind == "gpu":
        return f"TensorFlow {candidate.tensorflow}, GPU build (not fully verified here)"
    return f"TensorFlow {candidate.tensorflow}, CPU only"


def no_python_message(
    installs: Sequence[PythonInstall], target: tuple[PythonVersion, Candidate] | None
) -> str:
    """Why no installed interpreter can be used, and which one to install."""
    if target is not None:
        python, candidate = target
        install = (
            f"install the 64-bit Python {python} (TensorFlow {candidate.tensorflow} supports "
            f"Python {_python_range(candidate)}) from the python.org 'Windows installer (64-bit)'"
            " with the py launcher option ticked, then run this script again"
        )
    else:
        install = INSTALL_64BIT_HINT
    if not installs:
        return f"The py launcher lists no Python installation: {install}."
    if all(i.problem == "32-bit" for i in installs):
        found = "; ".join(i.describe() for i in installs)
        return f"Only 32-bit Python is installed ({found}). {REFUSE_32BIT}: {install}."
    lines = [f"No installed Python can hold the TensorFlow environment: {install}."]
    for item in installs:
        lines.append(f"  {item.describe()}: {item.problem or 'no TensorFlow release supports it'}")
    return "\n".join(lines)


def plan_windows_python(
    matrix: Matrix, machine: MachineDescription, py_list_output: str, spec: str | None = None
) -> WindowsPythonPlan:
    """Pick the Python for the venv on native Windows, and say whether the GPU needs WSL2.

    The recommended TensorFlow is the best `recommend` candidate over every usable installed
    Python; the venv gets the newest installed Python that release supports. `machine` gives the
    OS (windows), architecture, driver and GPUs; its Python is ignored.
    """
    installs = parse_py_list(py_list_output)
    pythons = sorted({i.version for i in installs if i.problem is None and i.version}, reverse=True)
    best = _best(matrix, machine, pythons, spec)
    if best is None:
        known = sorted(
            {p for r in matrix.releases_matching(spec) for p in r.python if p >= MIN_PYTHON},
            reverse=True,
        )
        target = _best(matrix, machine, known, spec)
        message = no_python_message(installs, target)
        return WindowsPythonPlan(installs, None, None, (), None, False, message)
    chosen = choose_python(py_list_output, [str(p) for p in best[1].release.python])
    if chosen is None or chosen.version is None:  # pragma: no cover - best came from installs
        raise AssertionError("the best Python is no installed one")
    result = recommend(matrix, replace(machine, python=chosen.version), spec)
    candidate = result.candidates[0]
    wsl_result = recommend(
        matrix, replace(machine, os="wsl", python=chosen.version), spec, with_advice=False
    )
    wsl_top = wsl_result.candidates[0] if wsl_result.candidates else None
    wsl = (
        wsl_top
        if wsl_top is not None
        and wsl_top.kind == "gpu"
        and (candidate.kind != "gpu" or wsl_top.tensorflow > candidate.tensorflow)
        else None
    )
    has_gpu = machine.driver is not None or bool(machine.gpus)
    wsl_advised = has_gpu and wsl is not None and candidate.kind != "gpu"
    lines = [
        f"Python {chosen.version} (64-bit, {chosen.path or chosen.launcher_arg}) for "
        f"{_what(candidate)}."
    ]
    skipped = [i for i in installs if i.problem is not None]
    lines.extend(f"  not used: {i.describe()}: {i.problem}" for i in skipped)
    return WindowsPythonPlan(
        installs, chosen, candidate, result.advice, wsl, wsl_advised, "\n".join(lines)
    )


def wsl_explanation(candidate: Candidate) -> str:
    """Why the GPU needs WSL2 for this TensorFlow, and what to run there."""
    return (
        f"TensorFlow {candidate.tensorflow} can use this NVIDIA GPU only inside WSL2: native "
        "Windows GPU builds ended with TensorFlow 2.10, and from 2.11 on the GPU build runs in a "
        "Linux distribution under WSL2, which uses this Windows driver (install no NVIDIA driver "
        f"inside Linux). Inside WSL2 run: {candidate.commands[0]}"
    )


# --- WSL ------------------------------------------------------------------------------------

# One row of `wsl.exe -l -v`: optional default star, the name, a (localised, maybe multi-word)
# state, and the WSL version as the last column. The header's last word is no digit.
_WSL_ROW = re.compile(r"^\s*(?P<star>\*)?\s*(?P<name>\S+)\s+\S.*?\s(?P<version>[12])\s*$")
# `wsl.exe -l -q` prints bare names.
_WSL_NAME = re.compile(r"^\s*(?P<star>\*)?\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*$")


@record
class WslDistribution:
    name: str
    version: int | None  # 1 or 2; None when listed without versions (-l -q)
    default: bool


def parse_wsl_list(text: str) -> tuple[WslDistribution, ...]:
    """Distributions in `wsl.exe -l -v` (or `-l -q`) output, already decoded."""
    found = []
    for line in text.splitlines():
        row = _WSL_ROW.match(line)
        if row is not None:
            found.append(
                WslDistribution(
                    row.group("name"), int(row.group("version")), bool(row.group("star"))
                )
            )
            continue
        bare = _WSL_NAME.match(line)
        if bare is not None:
            found.append(WslDistribution(bare.group("name"), None, bool(bare.group("star"))))
    return tuple(found)


def user_distributions(list_output: str, list_exit_code: int = 0) -> tuple[WslDistribution, ...]:
    """The listed distributions a person uses (not Docker's or Rancher's own)."""
    if list_exit_code != 0:
        return ()  # the "no installed distributions" text and usage errors list nothing
    return tuple(
        d
        for d in parse_wsl_list(list_output)
        if not d.name.lower().startswith(_INTERNAL_DISTRIBUTIONS)
    )


def wsl_state(status_exit_code: int | None, list_output: str, list_exit_code: int = 0) -> str:
    """The WSL state: "absent", "wsl1-only", "wsl2" or "no-distribution".

    `status_exit_code`: of `wsl.exe --status`, None when wsl.exe is not there at all.
    `list_output`/`list_exit_code`: of `wsl.exe -l -v` (decoded). `--status` fails where WSL is
    not installed (and on builds too old for WSL2); a failed list means no distribution.
    Distributions listed without versions (`-l -q`) count as WSL2 when `--status` works: from
    the WSL releases that have `--status` on, new distributions default to WSL 2.
    """
    if status_exit_code is None:
        return WSL_ABSENT
    distributions = user_distributions(list_output, list_exit_code)
    if not distributions:
        return WSL_NO_DISTRIBUTION if status_exit_code == 0 else WSL_ABSENT
    if any(d.version == 2 for d in distributions):
        return WSL2
    if any(d.version is None for d in distributions) and status_exit_code == 0:
        return WSL2
    return WSL1_ONLY


def wsl_message(state: str, distributions: Sequence[WslDistribution] = ()) -> str:
    """What the person should do next, for a wsl_state."""
    if state == WSL_ABSENT:
        return (
            "WSL is not installed. To use the GPU with TensorFlow >= 2.11, install it yourself "
            "from an Administrator terminal with: wsl --install  (this script never needs or "
            "asks for Administrator rights), restart Windows, then run envcheck doctor inside "
            "the new Linux distribution."
        )
    if state == WSL_NO_DISTRIBUTION:
        return (
            "WSL is installed but has no Linux distribution yet: run  wsl --install -d Ubuntu  "
            "then install TensorFlow inside it (envcheck recommend --os wsl)."
        )
    if state == WSL1_ONLY:
        names = ", ".join(d.name for d in distributions) or "your distribution"
        first = distributions[0].name if distributions else "NAME"
        return (
            f"WSL is installed, but {names} runs WSL 1, which cannot use the GPU: convert it "
            f"with  wsl --set-version {first} 2  and make WSL 2 the default with  "
            "wsl --set-default-version 2"
        )
    if state == WSL2:
        wsl2 = [d for d in distributions if d.version in (2, None)]
        chosen = next((d for d in wsl2 if d.default), wsl2[0] if wsl2 else None)
        where = f"  wsl -d {chosen.name}" if chosen else "  wsl"
        return (
            f"WSL2 is ready. Open it with{where}  and install TensorFlow there (envcheck "
            "recommend --os wsl shows the command); keep the NVIDIA driver on Windows only."
        )
    raise ValueError(f"unknown WSL state {state!r}")
