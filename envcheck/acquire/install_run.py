"""Call the installer of the target environment: check the plan, install, and say what changed.

The installer is `TARGET -m pip` or, when asked and on PATH, `uv pip ... --python TARGET`; both
run as subprocesses into that one environment. The index is the user's: `--index-url` is handed
to the installer through its environment variable (never on the command line, where other users
could read it), and without it nothing is passed, so the user's pip configuration or pip's own
default applies. Credentials in an index URL are masked in everything this module prints.
pip installs package by package (a failing package is rolled back, the ones before it stay), so
a failed install is judged by comparing `pip freeze` before and after, never assumed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from envcheck.acquire.install_errors import InstallerError
from envcheck.acquire.install_plan import Action, InstallPlan
from envcheck.diagnose.run import run_doctor
from envcheck.distribution_names import canonical_name
from envcheck.errors import EnvcheckError, InputError, Interrupted
from envcheck.index.config import check_index_url
from envcheck.matrix.model import Matrix
from envcheck.record import record
from envcheck.urls import secret_masker

# `pip install --dry-run --report` appeared in pip 22.2.
PIP_REPORT_SINCE = Version("22.2")
QUERY_TIMEOUT_S = 120.0
_TAIL_LINES = 200
_SHOWN_ERROR_LINES = 20
_UV_LINE = re.compile(r"^\s*([+-])\s+([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(\S+)")


class Installer(str, Enum):
    PIP = "pip"
    UV = "uv"


def parse_installer(text: str) -> Installer:
    try:
        return Installer(text.strip().lower())
    except ValueError:
        raise InputError(f"--installer {text!r} is not one of pip, uv") from None


# --- the installer command ------------------------------------------------------------------


@record
class InstallerCommand:
    """How to run one installer for one target interpreter."""

    installer: Installer
    python: str
    uv: str | None  # the uv executable, for Installer.UV
    index_url: str | None
    environ: Mapping[str, str]

    @property
    def label(self) -> str:
        return "pip" if self.installer is Installer.PIP else "uv pip"

    def env(self) -> dict[str, str]:
        env = dict(self.environ)
        if self.index_url is not None:
            env["PIP_INDEX_URL" if self.installer is Installer.PIP else "UV_INDEX_URL"] = (
                self.index_url
            )
        return env

    def _base(self, verb: str) -> list[str]:
        if self.installer is Installer.PIP:
            return [self.python, "-m", "pip", verb, "--disable-pip-version-check"]
        return [self.uv or "uv", "pip", verb, "--python", self.python]

    def install_args(
        self, requirements: Sequence[str], dry_run: bool = False, report: Path | None = None
    ) -> list[str]:
        args = self._base("install")
        if self.installer is Installer.PIP:
            args.append("--no-input")  # a hidden credentials prompt would hang; fail instead
        if dry_run:
            args.append("--dry-run")
        if report is not None:
            args += ["--report", str(report)]
        return [*args, *requirements]

    def shown(self, verb: str, *args: str) -> str:
        """A command line for the user to run, e.g. to undo a change."""
        if self.installer is Installer.PIP:
            confirm = ["-y"] if verb == "uninstall" else []  # uv pip uninstall never asks
            return " ".join([self.python, "-m", "pip", verb, *confirm, *args])
        return " ".join(["uv", "pip", verb, "--python", self.python, *args])

    def freeze_args(self) -> list[str]:
        args = self._base("freeze")
        return [*args, "--all"] if self.installer is Installer.PIP else args


def installer_command(
    installer: Installer,
    python: str,
    index_url: str | None,
    environ: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
) -> InstallerCommand:
    uv = None
    if installer is Installer.UV:
        uv = which("uv")
        if uv is None:
            raise InputError("--installer uv: uv is not on PATH; install it or use --installer pip")
    return InstallerCommand(
        installer=installer,
        python=python,
        uv=uv,
        index_url=(
            check_index_url(index_url, "--index-url", allow_file=True)
            if index_url is not None
            else None
        ),
        environ=dict(os.environ if environ is None else environ),
    )


def _run(
    command: InstallerCommand, args: list[str], timeout: float | None = QUERY_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            args,
            capture_output=True,
            text=True,
            errors="replace",
            env=command.env(),
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise InstallerError(
            f"{command.label} did not finish within {timeout or 0:.0f} s: {' '.join(args[:4])}"
        ) from exc
    except OSError as exc:
        raise InstallerError(f"{command.label} cannot be run: {exc.strerror or exc}") from exc


def pip_version(command: InstallerCommand) -> Version:
    """The target's pip version; InputError when the target has no pip."""
    completed = _run(command, [command.python, "-m", "pip", "--version"])
    match = re.match(r"pip (\S+)", completed.stdout)
    if completed.returncode != 0 or match is None:
        raise InputError(
            f"--python {command.python!r} has no pip: add it with {command.python} -m ensurepip, "
            "or use --installer uv"
        )
    try:
        return Version(match.group(1))
    except InvalidVersion:
        raise InputError(
            f"the pip of {command.python!r} reports version {match.group(1)!r}"
        ) from None


# --- the dry-run check ----------------------------------------------------------------------


@record
class ResolvedPackage:
    name: str  # canonical
    version: str
    requested: bool  # named on the command line (vs pulled in as a dependency)


@record
class DryRun:
    """The installer's own check of the plan: what it would install, or why it cannot."""

    checked: bool  # False: this installer has no dry run; nothing is known
    ok: bool
    packages: tuple[ResolvedPackage, ...]  # what would be installed (already satisfied: absent)
    error_lines: tuple[str, ...]  # the installer's error, credentials masked
    note: str | None = None


def parse_pip_report(data: Any) -> tuple[ResolvedPackage, ...]:
    """`pip install --dry-run --report` JSON (format version 1) -> what would be installed."""
    if not isinstance(data, dict) or not isinstance(data.get("install"), list):
        raise InstallerError("pip's --report file has no 'install' list")
    packages = []
    for item in data["install"]:
        metadata = item.get("metadata") if isinstance(item, dict) else None
        if not isinstance(metadata, dict):
            continue
        name, version = metadata.get("name"), metadata.get("version")
        if isinstance(name, str) and isinstance(version, str):
            requested = item.get("requested") is True
            packages.append(ResolvedPackage(canonical_name(name), version, requested))
    return tuple(sorted(packages, key=lambda p: p.name))


def parse_uv_dry_run(text: str) -> tuple[ResolvedPackage, ...]:
    """`uv pip install --dry-run` output (' + name==version' lines) -> what would be installed."""
    packages = []
    for line in text.splitlines():
        match = _UV_LINE.match(line)
        if match is not None and match.group(1) == "+":
            packages.append(ResolvedPackage(canonical_name(match.group(2)), match.group(3), False))
    return tuple(sorted(packages, key=lambda p: p.name))


# pip's words for an index it could not reach; its ERROR lines then only say "no matching
# distribution", which reads as if the release did not exist.
_UNREACHABLE = re.compile(
    r"Retrying \(Retry\(|NewConnectionError|Max retries exceeded|Could not fetch URL|"
    r"Temporary failure in name resolution|ConnectTimeout|Connection refused"
)


def installer_error_lines(output: str, mask: Callable[[str], str]) -> tuple[str, ...]:
    lines = [mask(line.rstrip()) for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"\s*(ERROR|error)\b", line)]
    shown = (errors or lines)[-_SHOWN_ERROR_LINES:]
    unreachable = [line for line in lines if _UNREACHABLE.search(line)]
    if unreachable and unreachable[-1] not in shown:
        shown = [unreachable[-1], *shown[1 - _SHOWN_ERROR_LINES :]]
    return tuple(shown)


def dry_run(command: InstallerCommand, requirements: Sequence[str]) -> DryRun:
    """Ask the installer what installing `requirements` would do, changing nothing.

    No time limit: an index without PEP 658 metadata makes pip download every wheel to read
    its dependencies, gigabytes for TensorFlow with CUDA.
    """
    mask = secret_masker(urls=(command.index_url,))
    if command.installer is Installer.PIP:
        version = pip_version(command)
        if version < PIP_REPORT_SINCE:
            note = (
                f"pip {version} has no --dry-run --report (pip {PIP_REPORT_SINCE}+), so the plan "
                f"was not checked before installing; upgrade pip in the target to get the check"
            )
            return DryRun(False, True, (), (), note)
        with tempfile.TemporaryDirectory(prefix="envcheck-install-") as directory:
            report = Path(directory) / "report.json"
            completed = _run(command, command.install_args(requirements, True, report), None)
            if completed.returncode != 0:
                output = completed.stderr + "\n" + completed.stdout
                return DryRun(True, False, (), installer_error_lines(output, mask))
            try:
                data = json.loads(report.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise InstallerError(f"pip's --report file cannot be read: {exc}") from exc
        return DryRun(True, True, parse_pip_report(data), ())
    completed = _run(command, command.install_args(requirements, True), None)
    output = completed.stderr + "\n" + completed.stdout
    if completed.returncode != 0:
        return DryRun(True, False, (), installer_error_lines(output, mask))
    return DryRun(True, True, parse_uv_dry_run(output), ())


def plan_mismatches(plan: InstallPlan, resolved: Sequence[ResolvedPackage]) -> tuple[str, ...]:
    """Where the installer would install other versions than the matrix pins (pure)."""
    by_name = {p.name: p for p in resolved}
    problems = []
    for package in plan.packages:
        found = by_name.get(package.name)
        if found is None:
            continue
        try:
            fits = Version(found.version) in SpecifierSet(package.specifier)
        except InvalidVersion:
            fits = False
        if not fits:
            problems.append(
                f"{package.name} {found.version} would be installed, but the plan wants "
                f"{package.specifier} ({package.via}): the index serves other metadata than the "
                "matrix records"
            )
    return tuple(problems)


def resolved_versions(plan: InstallPlan, check: DryRun | None) -> dict[str, str]:
    """Exact versions for the plan's packages: from the check, else the fitting installed one."""
    versions: dict[str, str] = {}
    for package in plan.packages:
        if package.action is Action.KEEP and package.installed is not None:
            versions[package.name] = package.installed
    if check is not None and check.ok:
        versions.update({p.name: p.version for p in check.packages})
    return versions


# --- freeze snapshots -----------------------------------------------------------------------


@record
class Change:
    name: str
    before: str | None  # the freeze line before, None when newly added
    after: str | None  # the freeze line after, None when removed

    def describe(self) -> str:
        if self.before is None:
            return f"added {self.after}"
        if self.after is None:
            return f"removed {self.before}"
        return f"{self.before} -> {self.after}"


def parse_freeze(text: str) -> dict[str, str]:
    """`pip freeze` output -> canonical name -> its line ('name==1.0', 'name @ file://...')."""
    lines: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-e ", "--editable")):
            # '-e git+https://...#egg=name', or '-e /path' (no name: the line is the key)
            egg = re.search(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)", line)
            lines[canonical_name(egg.group(1)) if egg else line] = line
            continue
        match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)", line)
        if match is not None:
            lines[canonical_name(match.group(1))] = line
    return lines


def freeze_changes(before: Mapping[str, str], after: Mapping[str, str]) -> tuple[Change, ...]:
    names = sorted(set(before) | set(after))
    return tuple(
        Change(name, before.get(name), after.get(name))
        for name in names
        if before.get(name) != after.get(name)
    )


def snapshot(command: InstallerCommand) -> dict[str, str] | None:
    """The target's `pip freeze --all` (or `uv pip freeze`); None when it cannot be read."""
    try:
        completed = _run(command, command.freeze_args())
    except InstallerError:
        return None
    return parse_freeze(completed.stdout) if completed.returncode == 0 else None


# --- the installation -----------------------------------------------------------------------


@record
class InstallResult:
    ok: bool
    returncode: int | None
    error_lines: tuple[str, ...]  # the installer's error (or its last lines), masked
    changes: tuple[Change, ...] | None  # None: the snapshots could not be compared
    interrupted: bool = False

    @property
    def summary(self) -> str:
        """A few words on the environment's state, for the one-line error."""
        if self.changes is None:
            return "whether the environment changed is unknown (see above)"
        if not self.changes:
            return "the environment was left unchanged"
        return "the environment WAS changed (see above for what, and how to go back)"

    def state(self, command: InstallerCommand) -> str:
        """A plain sentence: did the environment change, and how to undo it."""
        if self.changes is None:
            return (
                f"Whether the environment changed is unknown: {command.label} freeze could not be "
                f"read before and after. Check it with {command.shown('freeze')}."
            )
        if not self.changes:
            return (
                f"The environment was left unchanged: {command.label} freeze lists the same "
                f"distributions as before. ({command.label} installs package by package, not "
                "as one transaction; this time it stopped before changing any.)"
            )
        undo = [
            command.shown("uninstall", c.name)
            if c.before is None
            else command.shown("install", f'"{c.before}"')
            for c in self.changes
        ]
        return (
            f"The environment WAS changed before {command.label} stopped ({command.label} "
            "installs package by package, not as one transaction): "
            + "; ".join(c.describe() for c in self.changes)
            + ". To go back: "
            + " && ".join(undo)
        )


def run_install(
    command: InstallerCommand, requirements: Sequence[str], echo: Callable[[str], None]
) -> InstallResult:
    """Install, streaming the installer's output (masked) to `echo`; compare freeze around it."""
    mask = secret_masker(urls=(command.index_url,))
    before = snapshot(command)
    tail: deque[str] = deque(maxlen=_TAIL_LINES)
    interrupted = False
    returncode: int | None = None
    try:
        process = subprocess.Popen(
            command.install_args(requirements),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            env=command.env(),
        )
    except OSError as exc:
        raise InstallerError(f"{command.label} cannot be run: {exc.strerror or exc}") from exc
    with process:
        try:
            assert process.stdout is not None
            for line in process.stdout:
                masked = mask(line.rstrip("\n"))
                tail.append(masked)
                echo(masked)
            returncode = process.wait()
        except KeyboardInterrupt as exc:
            # The installer got the same Ctrl-C; let it finish rolling back, then look. A
            # SIGTERM or SIGHUP reached envcheck alone: pass the installer the Ctrl-C it rolls
            # back on (never a second one after a real Ctrl-C: that would cut the rollback).
            if isinstance(exc, Interrupted) and exc.signum != signal.SIGINT:
                with contextlib.suppress(OSError):
                    process.send_signal(signal.SIGINT)
            interrupted = True
            try:
                returncode = process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                returncode = process.wait()
    after = snapshot(command)
    changes = freeze_changes(before, after) if before is not None and after is not None else None
    ok = returncode == 0 and not interrupted
    errors = () if ok else installer_error_lines("\n".join(tail), lambda text: text)
    return InstallResult(ok, returncode, errors, changes, interrupted)


# --- the doctor around the installation -----------------------------------------------------


def doctor_status(matrix: Matrix, python: str) -> str:
    """One line: the doctor's status and verdict for `python`, without the smoke test."""
    try:
        report = run_doctor(matrix, python=python, smoke=False)
    except EnvcheckError as exc:
        return f"unknown: the doctor could not run: {exc}"
    return f"{report.status}: {report.verdict()}"
