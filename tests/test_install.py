"""`envcheck install` against a real package index on 127.0.0.1 and real throwaway venvs.

The index is pypiserver (a test dependency, fallback to any outside index disabled) serving tiny
packages built here: a TensorFlow-named 2.15.1 wheel whose METADATA declares the `and-cuda`
extra with the real 2.15 cuDNN pin, that cuDNN wheel (and an older one to replace), and a 2.15.0
sdist whose build fails, for an installation that passes the dry-run check and then fails. pip
runs for real in venvs made with `python -m venv`; the machine's own pip configuration is shut
out (PIP_CONFIG_FILE=/dev/null, no PIP_* variables) and the driver is described with
ENVCHECK_DRIVER_VERSION. Plan-level cases (native Windows, range pins) run without processes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from envcheck.acquire.install_constraints import constraints_text
from envcheck.acquire.install_errors import NoPlanError
from envcheck.acquire.install_plan import (
    Action,
    TargetInterpreter,
    make_plan,
    read_target,
    target_machine,
)
from envcheck.acquire.install_run import (
    Change,
    DryRun,
    ResolvedPackage,
    freeze_changes,
    installer_error_lines,
    parse_freeze,
    parse_pip_report,
    parse_uv_dry_run,
    resolved_versions,
)
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import Matrix, load_matrix
from envcheck.recommend.machine import MachineDescription
from envcheck.recommend.rank import Candidate
from envcheck.report.install import plan_text
from envcheck.urls import redact, secret_masker
from envcheck.versions import DriverVersion, PythonVersion

DRIVER = "550.54.14"
SECRET = "s3cr3t-pa55"
CUDNN_2_15 = "8.9.4.25"  # the 2.15 and-cuda pin (matrix/tensorflow.toml)
CUDNN_OLD = "8.9.2.26"

# Runs the real `envcheck` command line.
CLI = "from envcheck.cli.main import main\nmain()\n"

FAILING_BACKEND = """\
import os
METADATA = (
    "Metadata-Version: 2.1\\nName: tensorflow\\nVersion: 2.15.0\\nProvides-Extra: and-cuda\\n"
    'Requires-Dist: nvidia-cudnn-cu12==8.9.4.25; extra == "and-cuda"\\n'
)
def get_requires_for_build_wheel(config_settings=None):
    return []
def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    path = os.path.join(metadata_directory, "tensorflow-2.15.0.dist-info")
    os.makedirs(path)
    with open(os.path.join(path, "METADATA"), "w") as stream:
        stream.write(METADATA)
    return "tensorflow-2.15.0.dist-info"
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise RuntimeError("this fake TensorFlow 2.15.0 cannot be built")
"""


# --- packages, index, venvs -----------------------------------------------------------------


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(
    directory: Path, name: str, version: str, files: dict[str, str], headers: tuple[str, ...] = ()
) -> Path:
    """A py3-none-any wheel written by hand: the files, METADATA, WHEEL and a correct RECORD."""
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", *headers]
    entries = {
        **files,
        f"{dist_info}/METADATA": "\n".join(metadata) + "\n",
        f"{dist_info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: envcheck-tests\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        ),
    }
    record = [f"{p},sha256={_digest(t.encode())},{len(t.encode())}" for p, t in entries.items()]
    entries[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    path = directory / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, text in entries.items():
            archive.writestr(member, text)
    return path


def write_failing_sdist(directory: Path) -> Path:
    """tensorflow-2.15.0.tar.gz: metadata prepares (the dry run passes), the build fails."""
    files = {
        "PKG-INFO": "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.0\n",
        "pyproject.toml": (
            '[build-system]\nrequires = []\nbuild-backend = "failing_backend"\n'
            'backend-path = ["."]\n'
        ),
        "failing_backend.py": FAILING_BACKEND,
    }
    path = directory / "tensorflow-2.15.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for member, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"tensorflow-2.15.0/{member}")
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_healthy(url: str, process: subprocess.Popen[bytes], deadline: float) -> bool:
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The simple-API URL of a pypiserver on 127.0.0.1 with credentials in it."""
    root = tmp_path_factory.mktemp("index")
    packages = root / "packages"
    packages.mkdir()
    write_wheel(
        packages,
        "tensorflow",
        "2.15.1",
        {"tensorflow/__init__.py": "__version__ = '2.15.1'\n"},
        (
            "Provides-Extra: and-cuda",
            f'Requires-Dist: nvidia-cudnn-cu12=={CUDNN_2_15}; extra == "and-cuda"',
        ),
    )
    write_failing_sdist(packages)
    write_wheel(
        packages,
        "nvidia-cudnn-cu12",
        CUDNN_2_15,
        {"nvidia/cudnn/__init__.py": "", "nvidia/cudnn/lib/libcudnn.so.8": "not a library\n"},
    )
    write_wheel(packages, "nvidia-cudnn-cu12", CUDNN_OLD, {"nvidia/cudnn/__init__.py": ""})
    log = (root / "server.log").open("wb")
    for _attempt in range(3):
        port = _free_port()
        command = [sys.executable, "-m", "pypiserver", "run", "-p", str(port), "-i", "127.0.0.1"]
        command += ["--disable-fallback", "--backend", "simple-dir", "--log-stream", "stderr"]
        server = subprocess.Popen([*command, str(packages)], stdout=log, stderr=log)
        if _wait_healthy(f"http://127.0.0.1:{port}/health", server, time.monotonic() + 30):
            break
        server.terminate()
        server.wait(timeout=10)
    else:
        pytest.fail(f"pypiserver did not start: {(root / 'server.log').read_text()[-2000:]}")
    try:
        yield f"http://envcheck:{SECRET}@127.0.0.1:{port}/simple/"
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without pip's or envcheck's settings: the machine's pip configuration
    (extra index, find-links, constraints) must not leak into the test's installs."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PIP_", "ENVCHECK_", "UV_"))
    }
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_CACHE_DIR="1", ENVCHECK_DRIVER_VERSION=DRIVER)
    env.update(UV_NO_CONFIG="1", UV_NO_CACHE="1")
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def template_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real venv with pip, made once; tests install into copies of it."""
    venv = tmp_path_factory.mktemp("template") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=clean_env())
    return venv


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@pytest.fixture
def venv(template_venv: Path, tmp_path: Path) -> Path:
    """A fresh copy of the template venv (0.3 s instead of 4 s for `python -m venv`): its
    interpreter finds its prefix from pyvenv.cfg, and pip runs as `python -m pip`."""
    copy = tmp_path / "venv"
    shutil.copytree(template_venv, copy, symlinks=True)
    return copy


def pip(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv_python(venv)), "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=True,
        timeout=120,
    )


def freeze(venv: Path) -> str:
    return pip(venv, "freeze", "--all").stdout


def site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python3*/site-packages")) or [venv / "Lib" / "site-packages"]
    return found[0]


def envcheck_install(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`envcheck install ARGS` as a process with no terminal; the secret never shows."""
    result = subprocess.run(
        [sys.executable, "-c", CLI, "install", *args],
        capture_output=True,
        text=True,
        env=env or clean_env(),
        stdin=subprocess.DEVNULL,
        timeout=240,
        check=False,
    )
    assert SECRET not in result.stdout + result.stderr
    # envcheck's own traceback would start a line; pip indents a build backend's.
    assert not any(line.startswith("Traceback") for line in result.stderr.splitlines())
    return result


# --- the plan, without processes ------------------------------------------------------------


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(bundled_matrix_dir())


def described(
    os_name: str = "linux", python: str = "3.11", driver: str | None = DRIVER
) -> MachineDescription:
    return MachineDescription(
        os=os_name,
        arch="x86_64",
        python=PythonVersion.parse(python),
        driver=DriverVersion.parse(driver, "driver") if driver else None,
        gpus=(),
        found_via={"driver": "ENVCHECK_DRIVER_VERSION"} if driver else {"driver": "not found"},
    )


def target(
    distributions: dict[str, str] | None = None, python: str = "3.11.7"
) -> TargetInterpreter:
    return TargetInterpreter(
        path="/envs/project/bin/python",
        executable="/envs/project/bin/python",
        python=python,
        machine="x86_64",
        prefix="/envs/project",
        base_prefix="/usr",
        conda=False,
        distributions={} if distributions is None else distributions,
    )


def test_plan_for_linux_python_3_11_and_tf_2_15(matrix: Matrix) -> None:
    plan = make_plan(matrix, described(), "2.15", target())
    assert plan.requirements == ("tensorflow[and-cuda]==2.15.1",)
    # The same requirement `envcheck recommend` prints for this machine.
    assert plan.requirements[0] in plan.candidate.commands[0]
    assert isinstance(plan.candidate, Candidate)
    release = matrix.release_for(plan.candidate.tensorflow)
    assert release is not None
    by_name = {p.name: p for p in plan.packages}
    assert by_name["tensorflow"].specifier == "==2.15.1"
    assert by_name["nvidia-cudnn-cu12"].specifier == f"=={CUDNN_2_15}"
    assert by_name["nvidia-cudnn-cu12"].via == "tensorflow[and-cuda]"
    assert len(plan.packages) == 1 + len(release.and_cuda) + len(release.install_pins)
    assert {p.action for p in plan.packages} == {Action.INSTALL}
    assert plan.manual_steps == ()
    assert not any("--compute-capability" in note for note in plan.notes)  # not install's flags


def test_target_machine_reads_the_interpreter_and_the_driver_override(
    matrix: Matrix, template_venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENVCHECK_DRIVER_VERSION", DRIVER)
    found = read_target(str(venv_python(template_venv)))
    assert found.is_environment
    assert found.python.startswith(f"{sys.version_info.major}.{sys.version_info.minor}.")
    assert found.distributions is not None and "pip" in found.distributions
    machine = target_machine(matrix, found)
    assert machine.python == PythonVersion(sys.version_info.major, sys.version_info.minor)
    assert str(machine.driver) == DRIVER
    assert machine.found_via["driver"] == "ENVCHECK_DRIVER_VERSION"
    assert "target interpreter" in machine.found_via["python"]


def test_plan_shows_what_is_replaced_kept_and_shadowed(matrix: Matrix) -> None:
    installed = {
        "nvidia-cudnn-cu12": CUDNN_OLD,
        "nvidia-cublas-cu12": "12.2.5.6",
        "tensorflow-cpu": "2.15.0",
    }
    plan = make_plan(matrix, described(), "2.15", target(installed))
    actions = {p.name: p.action for p in plan.packages}
    assert actions["nvidia-cudnn-cu12"] is Action.REPLACE
    assert actions["nvidia-cublas-cu12"] is Action.KEEP
    assert actions["tensorflow"] is Action.INSTALL
    text = plan_text(plan)
    assert f"Will replace: nvidia-cudnn-cu12 {CUDNN_OLD} (=={CUDNN_2_15})" in text
    assert "tensorflow-cpu 2.15.0 is installed too" in text


def test_native_windows_with_a_newer_tensorflow_explains_wsl2(matrix: Matrix) -> None:
    with pytest.raises(NoPlanError) as caught:
        make_plan(matrix, described("windows", driver="551.61"), "2.15", target())
    message = str(caught.value)
    assert "native Windows" in message and "WSL2" in message
    assert "tensorflow[and-cuda]==2.15.1" in message  # what to run inside WSL2
    assert "--tensorflow 2.10" in message  # the native alternative
    assert "\n" not in message


def test_native_windows_2_10_pins_and_manual_cuda_steps(matrix: Matrix) -> None:
    plan = make_plan(
        matrix, described("windows", "3.10", "551.61"), "2.10", target(python="3.10.11")
    )
    assert isinstance(plan.candidate, Candidate)
    release = matrix.release_for(plan.candidate.tensorflow)
    assert release is not None and release.windows_gpu
    assert plan.requirements == (f"tensorflow=={release.latest}", *release.install_pins)
    assert "numpy<2" in plan.requirements
    assert plan.manual_steps == release.cuda_setup and plan.manual_steps
    text = plan_text(plan)
    assert "Manual steps" in text and release.cuda_setup[0] in text


def test_no_driver_on_linux_plans_the_cpu_build(matrix: Matrix) -> None:
    plan = make_plan(matrix, described(driver=None), "2.15", target())
    assert plan.candidate.kind == "cpu"
    assert plan.requirements == ("tensorflow==2.15.1",)
    assert "CPU only" in plan.notes[0]


def test_the_recommended_cpu_build_already_installed_is_nothing_to_do(matrix: Matrix) -> None:
    plan = make_plan(matrix, described(driver=None), "2.15", target({"tensorflow-cpu": "2.15.1"}))
    assert plan.already_installed == "tensorflow-cpu 2.15.1"
    assert plan.conflicts == ()
    older = make_plan(matrix, described(driver=None), "2.15", target({"tensorflow-cpu": "2.15.0"}))
    assert older.already_installed is None
    assert older.conflicts == ("tensorflow-cpu",)


def test_python_without_a_release_is_a_negative_answer(matrix: Matrix) -> None:
    with pytest.raises(NoPlanError, match=r"TensorFlow 2\.15\.1: .*Python"):
        make_plan(matrix, described(python="3.13"), "2.15", target(python="3.13.1"))


def test_range_pins_resolve_from_the_report_or_stay_ranges(matrix: Matrix) -> None:
    plan = make_plan(matrix, described(), "2.21", target({"nvidia-nccl-cu12": "2.28.3"}))
    check = DryRun(True, True, (ResolvedPackage("nvidia-cublas-cu12", "12.9.1.4", False),), ())
    versions = resolved_versions(plan, check)
    assert versions == {"nvidia-cublas-cu12": "12.9.1.4", "nvidia-nccl-cu12": "2.28.3"}
    lines = constraints_text(plan, versions).splitlines()
    assert "tensorflow==2.21.0" in lines
    assert "nvidia-cublas-cu12==12.9.1.4" in lines  # from the dry-run report
    assert "nvidia-nccl-cu12==2.28.3" in lines  # installed already, inside the range
    assert "nvidia-cudnn-cu12<10.0,>=9.3.0.75" in lines  # nothing resolved it
    assert any(
        line.startswith("# nvidia-cudnn-cu12: ") and "kept as a range" in line for line in lines
    )
    assert not any("[" in line for line in lines if not line.startswith("#"))  # no extras


# --- parsers, on recorded output ------------------------------------------------------------


def test_an_unreachable_index_is_named_in_the_error_lines(tmp_path: Path) -> None:
    # pip's own output for an index nobody listens on: its ERROR lines only say "no matching
    # distribution"; the retry warning before them is what says why, and it is kept.
    closed = f"http://127.0.0.1:{_free_port()}/simple/"
    env = {**clean_env(), "PIP_RETRIES": "1", "PIP_DEFAULT_TIMEOUT": "5"}
    env.pop("PIP_FIND_LINKS", None)
    completed = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--index-url", closed,
         "tensorflow==2.21.0", "-d", str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert completed.returncode != 0
    lines = installer_error_lines(completed.stdout + completed.stderr, lambda text: text)
    assert "No matching distribution found for tensorflow==2.21.0" in lines[-1]
    assert any("Retrying" in line and "NewConnectionError" in line for line in lines), lines


def test_parse_pip_report() -> None:
    report = {
        "version": "1",
        "install": [
            {"metadata": {"name": "nvidia_cudnn_cu12", "version": CUDNN_2_15}, "requested": False},
            {"metadata": {"name": "TensorFlow", "version": "2.15.1"}, "requested": True},
            {"download_info": {}},
        ],
    }
    assert parse_pip_report(report) == (
        ResolvedPackage("nvidia-cudnn-cu12", CUDNN_2_15, False),
        ResolvedPackage("tensorflow", "2.15.1", True),
    )


def test_parse_uv_dry_run() -> None:
    output = (
        "Resolved 2 packages in 12ms\nWould download 1 package\nWould uninstall 1 package\n"
        "Would install 2 packages\n - nvidia-cudnn-cu12==8.9.2.26\n + nvidia-cudnn-cu12==8.9.4.25\n"
        " + tensorflow==2.15.1\n"
    )
    assert [(p.name, p.version) for p in parse_uv_dry_run(output)] == [
        ("nvidia-cudnn-cu12", CUDNN_2_15),
        ("tensorflow", "2.15.1"),
    ]


def test_freeze_changes() -> None:
    before = parse_freeze(
        f"nvidia-cudnn-cu12=={CUDNN_OLD}\npip==23.2.1\n-e git+https://x/y#egg=z\n"
    )
    after = parse_freeze(f"nvidia_cudnn_cu12=={CUDNN_2_15}\npip==23.2.1\ntensorflow==2.15.1\n")
    assert freeze_changes(before, after) == (
        Change(
            "nvidia-cudnn-cu12",
            f"nvidia-cudnn-cu12=={CUDNN_OLD}",
            f"nvidia_cudnn_cu12=={CUDNN_2_15}",
        ),
        Change("tensorflow", None, "tensorflow==2.15.1"),
        Change("z", "-e git+https://x/y#egg=z", None),
    )


def test_credentials_are_masked() -> None:
    url = f"https://alice:{SECRET}@index.invalid/simple/"
    assert redact(url) == "https://alice:****@index.invalid/simple/"
    assert redact("https://tok3n@index.invalid/simple/") == "https://****@index.invalid/simple/"
    mask = secret_masker(urls=(url,))
    assert SECRET not in mask(f"GET {url} failed; password was {SECRET}")
    assert mask("ordinary words stay") == "ordinary words stay"


# --- the command, against the local index ---------------------------------------------------


@pytest.fixture(scope="module")
def dry_run(
    index: str, template_venv: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[subprocess.CompletedProcess[str], Path, str, Path]:
    out = tmp_path_factory.mktemp("constraints") / "constraints.txt"
    before = freeze(template_venv)
    python = str(venv_python(template_venv))
    result = envcheck_install(
        "--python", python, "--tensorflow", "2.15", "--dry-run", "--index-url", index,
        "--constraints-out", str(out),
    )  # fmt: skip
    return result, template_venv, before, out


def test_dry_run_lists_the_report_and_installs_nothing(
    dry_run: tuple[subprocess.CompletedProcess[str], Path, str, Path],
) -> None:
    result, venv, before, _ = dry_run
    assert result.returncode == 0, result.stderr
    assert "Requirements: tensorflow[and-cuda]==2.15.1" in result.stdout
    assert "would install 2 package(s)" in result.stdout
    assert f"+ nvidia-cudnn-cu12 {CUDNN_2_15}" in result.stdout
    assert "+ tensorflow 2.15.1" in result.stdout
    assert "Dry run: nothing was installed." in result.stdout
    assert not list(site_packages(venv).glob("tensorflow*"))
    assert freeze(venv) == before


def test_index_url_is_shown_without_its_password(
    dry_run: tuple[subprocess.CompletedProcess[str], Path, str, Path],
) -> None:
    result = dry_run[0]
    assert "Index: http://envcheck:****@127.0.0.1:" in result.stdout
    assert SECRET not in result.stdout + result.stderr


def test_constraints_out(dry_run: tuple[subprocess.CompletedProcess[str], Path, str, Path]) -> None:
    out = dry_run[3]
    lines = out.read_text().splitlines()
    assert "tensorflow==2.15.1" in lines
    assert f"nvidia-cudnn-cu12=={CUDNN_2_15}" in lines
    pins = [line for line in lines if not line.startswith("#")]
    assert all("==" in line and "[" not in line for line in pins)
    assert sorted(p.name for p in out.parent.iterdir()) == ["constraints.txt"]  # no temp file left


def test_install_replaces_and_installs_then_runs_the_doctor(index: str, venv: Path) -> None:
    pip(
        venv,
        "install",
        "--index-url",
        index.replace(f"envcheck:{SECRET}@", ""),
        f"nvidia-cudnn-cu12=={CUDNN_OLD}",
    )
    python = str(venv_python(venv))
    result = envcheck_install(
        "--python", python, "--tensorflow", "2.15", "--yes", "--index-url", index
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Will replace: nvidia-cudnn-cu12 {CUDNN_OLD}" in result.stdout
    assert f"+ nvidia-cudnn-cu12 {CUDNN_2_15} (replaces {CUDNN_OLD})" in result.stdout
    assert "Successfully installed" in result.stderr  # pip's own output, on stderr
    assert "added tensorflow==2.15.1" in result.stdout
    assert "doctor before: " in result.stdout and "doctor after:  " in result.stdout
    frozen = freeze(venv).splitlines()
    assert "tensorflow==2.15.1" in frozen and f"nvidia-cudnn-cu12=={CUDNN_2_15}" in frozen
    imported = subprocess.run(
        [python, "-c", "import tensorflow; print(tensorflow.__version__)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert imported.stdout.strip() == "2.15.1"


def test_a_version_the_index_lacks_fails_before_installing(index: str, venv: Path) -> None:
    before = freeze(venv)
    python = str(venv_python(venv))
    result = envcheck_install(
        "--python", python, "--tensorflow", "2.14", "--yes", "--index-url", index
    )
    assert result.returncode == 1
    assert "No matching distribution found for tensorflow[and-cuda]==2.14.1" in result.stderr
    assert "nothing was installed and the environment is unchanged" in result.stderr
    assert freeze(venv) == before


def test_a_failed_build_leaves_the_environment_unchanged(index: str, venv: Path) -> None:
    before = freeze(venv)
    python = str(venv_python(venv))
    result = envcheck_install(
        "--python", python, "--tensorflow", "2.15.0", "--yes", "--index-url", index
    )
    assert result.returncode == 1
    assert "+ tensorflow 2.15.0" in result.stdout  # the dry run passed: metadata prepares
    assert "Failed building wheel for tensorflow" in result.stderr  # pip's error
    assert "pip install failed (exit code 1); the environment was left unchanged" in result.stderr
    assert "The environment was left unchanged: pip freeze lists the same" in result.stdout
    assert freeze(venv) == before


def test_a_failure_midway_says_what_changed(index: str, venv: Path) -> None:
    # pip installs tensorflow first (equal depth: reverse name order), then cuDNN, whose file
    # cannot be written over this directory: tensorflow stays installed, cuDNN is rolled back.
    (site_packages(venv) / "nvidia" / "cudnn" / "lib" / "libcudnn.so.8").mkdir(parents=True)
    before = parse_freeze(freeze(venv))
    python = str(venv_python(venv))
    result = envcheck_install(
        "--python", python, "--tensorflow", "2.15.1", "--yes", "--index-url", index
    )
    assert result.returncode == 1
    assert "Could not install packages due to an OSError" in result.stderr
    after = parse_freeze(freeze(venv))
    assert freeze_changes(before, after) == (Change("tensorflow", None, "tensorflow==2.15.1"),)
    assert "The environment WAS changed before pip stopped" in result.stdout
    assert "added tensorflow==2.15.1" in result.stdout
    assert f"{python} -m pip uninstall -y tensorflow" in result.stdout
    assert "the environment WAS changed" in result.stderr


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv is not on PATH")
def test_install_with_uv(index: str, venv: Path) -> None:
    python = str(venv_python(venv))
    result = envcheck_install(
        "--python", python, "--tensorflow", "2.15", "--yes", "--installer", "uv", "--index-url", index
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Check (uv pip install --dry-run): would install 2 package(s)" in result.stdout
    assert "+ tensorflow 2.15.1" in result.stdout
    assert "added tensorflow==2.15.1" in result.stdout
    assert "tensorflow==2.15.1" in freeze(venv).splitlines()


def test_no_terminal_and_no_yes_refuses(venv: Path) -> None:
    before = freeze(venv)
    result = envcheck_install("--python", str(venv_python(venv)), "--tensorflow", "2.15")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert (
        "no terminal" in result.stderr and "--yes" in result.stderr and "--dry-run" in result.stderr
    )
    assert freeze(venv) == before


@pytest.mark.skipif(os.name == "nt", reason="a pseudo-terminal stands in for the user")
def test_on_a_terminal_it_asks_and_no_means_nothing_installed(index: str, venv: Path) -> None:
    import pty  # noqa: PLC0415 - POSIX only

    before = freeze(venv)
    python = str(venv_python(venv))
    args = ["install", "--python", python, "--tensorflow", "2.15", "--index-url", index]
    controller, terminal = pty.openpty()
    try:
        os.write(controller, b"n\n")
        result = subprocess.run(
            [sys.executable, "-c", CLI, *args],
            stdin=terminal, capture_output=True, text=True, env=clean_env(), timeout=120,
            check=False,
        )  # fmt: skip
    finally:
        os.close(terminal)
        os.close(controller)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Install tensorflow[and-cuda]==2.15.1 into " in result.stderr  # the question
    assert "Nothing was installed." in result.stdout
    assert freeze(venv) == before


@pytest.mark.skipif(os.name == "nt", reason="a pseudo-terminal stands in for the user")
def test_the_plan_is_shown_before_the_question(index: str, venv: Path) -> None:
    # stdout piped (block-buffered without PYTHONUNBUFFERED), the question on the terminal:
    # the plan must reach the reader before envcheck waits for the answer.
    import pty  # noqa: PLC0415 - POSIX only

    python = str(venv_python(venv))
    args = ["install", "--python", python, "--tensorflow", "2.15", "--index-url", index]
    env = clean_env()
    env.pop("PYTHONUNBUFFERED", None)
    controller, terminal = pty.openpty()
    try:
        os.write(controller, b"n\n")
        result = subprocess.run(
            [sys.executable, "-c", CLI, *args],
            stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=env, timeout=120, check=False,
        )  # fmt: skip
    finally:
        os.close(terminal)
        os.close(controller)
    output = result.stdout
    assert result.returncode == 1, output
    assert output.index("Requirements: ") < output.index("Install tensorflow[and-cuda]==2.15.1")


def _fake_distribution(venv: Path, name: str, version: str) -> None:
    """A distribution as importlib.metadata sees it: its dist-info directory and METADATA."""
    dist_info = site_packages(venv) / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    )
    (dist_info / "RECORD").write_text("")


def test_another_tensorflow_distribution_is_not_installed_over(index: str, venv: Path) -> None:
    # tensorflow-cpu and tensorflow both own site-packages/tensorflow/: pip would install one
    # over the other and uninstalling either later breaks both. envcheck refuses, unchanged.
    _fake_distribution(venv, "tensorflow-cpu", "2.15.0")
    before = freeze(venv)
    result = envcheck_install(
        "--python", str(venv_python(venv)), "--tensorflow", "2.15", "--yes", "--index-url", index
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "Uninstall it first" in result.stderr and "pip uninstall -y tensorflow-cpu" in result.stderr
    )
    assert result.stderr.count("\n") == 1
    assert freeze(venv) == before


def test_the_recommended_cpu_build_already_there_installs_nothing(venv: Path) -> None:
    _fake_distribution(venv, "tensorflow-cpu", "2.15.1")
    env = clean_env()
    env["ENVCHECK_DRIVER_VERSION"] = ""  # no driver: the CPU build is the recommendation
    result = envcheck_install(
        "--python", str(venv_python(venv)), "--tensorflow", "2.15", "--yes", env=env
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Nothing to install: tensorflow-cpu 2.15.1 already is the recommended" in result.stdout
    assert "Checking the plan" not in result.stderr  # no installer ran


def test_a_system_interpreter_is_refused(index: str) -> None:
    base = Path(sys.base_prefix) / ("python.exe" if os.name == "nt" else "bin/python3")
    if not base.exists() or sys.base_prefix == sys.prefix:
        pytest.skip("the tests run in a venv whose base interpreter is at a known place")
    result = envcheck_install(
        "--python", str(base), "--tensorflow", "2.15", "--yes", "--index-url", index
    )
    assert result.returncode == 2
    assert "is not a virtual or conda environment" in result.stderr


def test_a_dry_run_into_a_system_interpreter_says_the_real_run_refuses(index: str) -> None:
    # Issue 23 (5): the dry run planned, checked and exited 0, then the real run refused.
    base = Path(sys.base_prefix) / ("python.exe" if os.name == "nt" else "bin/python3")
    if not base.exists() or sys.base_prefix == sys.prefix:
        pytest.skip("the tests run in a venv whose base interpreter is at a known place")
    args = ("--python", str(base), "--tensorflow", "2.15", "--index-url", index)
    dry = envcheck_install(*args, "--dry-run")
    real = envcheck_install(*args, "--yes")
    assert dry.returncode == real.returncode == 2, dry.stdout + dry.stderr
    assert "Dry run: nothing was installed." not in dry.stdout
    last = dry.stderr.splitlines()[-1]
    assert last.startswith("envcheck: error: dry run: nothing was installed, and the real run ")
    assert "is not a virtual or conda environment" in last


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--installer", "conda"), "--installer 'conda' is not one of pip, uv"),
        (("--tensorflow", "2.x!"), "is neither a version"),
        (
            ("--python", "/nonexistent/bin/python"),
            "--python '/nonexistent/bin/python' does not exist",
        ),
        (
            ("--index-url", f"ftp://envcheck:{SECRET}@127.0.0.1/simple/"),
            "is not an http(s):// or file://",
        ),
        (
            ("--constraints-out", "/nonexistent/dir/c.txt"),
            "the directory '/nonexistent/dir' does not exist",
        ),
        (("--installer", "uv"), "uv is not on PATH"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    env = clean_env(PATH=os.devnull)  # no uv on this PATH
    result = envcheck_install("--dry-run", "--tensorflow", "2.15", *args, env=env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("envcheck: error: ")
    assert result.stderr.count("\n") == 1
    assert message in result.stderr
