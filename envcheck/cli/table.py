"""Every envcheck command with its options, help and ENVCHECK_* variables: the CLI's contract.

Only data: the code that runs a command lives in envcheck/commands/<name>.py and is imported
when that command runs, so `envcheck doctor` never loads the installer or the download stack.
Options that several commands share are defined once here.
"""

from __future__ import annotations

from envcheck.cli.options import FLAG, INTEGER, LIST, NUMBER, Command, Option
from envcheck.cli.report_output import OUTPUT, format_option, output_option
from envcheck.report.formats import FleetFormat, Format, NodeFormat

# Each reporting command's formats, text (the default) first, as report/formats.py names them.
EXPLAIN_FORMATS = tuple(f.value for f in Format)
DOCTOR_FORMATS = EXPLAIN_FORMATS + tuple(f.value for f in NodeFormat)
FLEET_FORMATS = tuple(f.value for f in FleetFormat)
PROBE_FORMATS = RECOMMEND_FORMATS = (Format.TEXT.value, Format.JSON.value)

# A day: any longer is a typo, and the platform's timers overflow somewhere above it.
MAX_TIMEOUT_S = 86_400.0

MATRIX = Option(
    ("--matrix",),
    "matrix_option",
    "Use the matrix data in DIR instead of the bundled one.",
    envvar="ENVCHECK_MATRIX",
    metavar="DIR",
)
JSON = Option(("--json",), "as_json", "Print JSON.", kind=FLAG)
FRAMEWORK = Option(
    ("--framework",),
    "framework",
    "Judge only this framework (default: every one installed).",
    envvar="ENVCHECK_FRAMEWORK",
    metavar="tensorflow|torch|jax",
)
# recommend, install and fetch: one framework, whose builds come from one recipe
# (envcheck/matrix/recipes.py), so the three commands agree.
FRAMEWORK_CHOICE = Option(
    ("--framework",),
    "framework",
    "Which framework: TensorFlow releases, PyTorch builds (release x CUDA variant) or JAX "
    "CUDA plugins.",
    envvar="ENVCHECK_FRAMEWORK",
    metavar="tensorflow|torch|jax",
    default="tensorflow",
)
FRAMEWORK_VERSION = Option(
    ("--framework-version",),
    "framework_version",
    "With --framework torch or jax: only these versions (2.14, 2.14.1, '>=2.10').",
    envvar="ENVCHECK_FRAMEWORK_VERSION",
    metavar="SPEC",
)
TORCH_INDEX_URL = Option(
    ("--torch-index-url",),
    "torch_index_url",
    "The base URL of PyTorch's wheel index (its variants are BASE/cu126, BASE/cpu, ...); "
    "without it the commands name the index as a placeholder, and install and fetch refuse "
    "a build that needs it.",
    envvar="ENVCHECK_TORCH_INDEX_URL",
    metavar="URL",
)
FORMAT_JSON = Option(("--json",), "as_json", "Same as --format json.", kind=FLAG)
TENSORFLOW_SPEC = Option(
    ("--tensorflow",),
    "tensorflow",
    "Only consider these TensorFlow versions (2.15, 2.15.1, '>=2.12').",
    envvar="ENVCHECK_TENSORFLOW",
    metavar="SPEC",
)
DRIVER = Option(
    ("--driver",),
    "driver",
    "The NVIDIA driver release, e.g. 535.104.05, or 'none' (default: detected).",
    envvar="ENVCHECK_DRIVER_VERSION",
    metavar="VER",
)
GPU = Option(
    ("--gpu",),
    "gpu",
    "The GPU model, e.g. 'RTX 3060' (default: detected).",
    envvar="ENVCHECK_GPU",
    metavar="NAME",
)
COMPUTE_CAPABILITY = Option(
    ("--compute-capability",),
    "compute_capability",
    "The GPU's compute capability, e.g. 8.6.",
    envvar="ENVCHECK_COMPUTE_CAPABILITY",
    metavar="X.Y",
)
# install and fetch: the build to take instead of the one the machine can use (recommend's).
CPU_BUILD = Option(
    ("--cpu",),
    "cpu_build",
    "Take the CPU package even where the machine could use the GPU build.",
    kind=FLAG,
    envvar="ENVCHECK_CPU_BUILD",
)
GPU_BUILD = Option(
    ("--gpu",),
    "gpu_build",
    "Take the GPU build (CUDA wheels) even where no usable NVIDIA driver is found.",
    kind=FLAG,
    envvar="ENVCHECK_GPU_BUILD",
)
INDEX_URL = Option(
    ("--index-url",),
    "index_url",
    "The package index (default: your pip configuration, else pip's default).",
    envvar="ENVCHECK_INDEX_URL",
    metavar="URL",
)


def _deadline(help_text: str, envvar: str) -> Option:
    """--deadline: an overall time limit in seconds (fetch: per file; doctor: the whole run),
    parsed alike wherever it appears."""
    return Option(
        ("--deadline",),
        "deadline",
        help_text,
        kind=NUMBER,
        envvar=envvar,
        metavar="SECONDS",
        minimum=0.1,
        maximum=MAX_TIMEOUT_S,
    )


def _python_version(help_text: str) -> Option:
    return Option(
        ("--python-version",),
        "python_version",
        help_text,
        envvar="ENVCHECK_PYTHON_VERSION",
        metavar="X.Y",
    )


def _python_executable(help_text: str) -> Option:
    return Option(
        ("--python",),
        "python",
        help_text,
        envvar="ENVCHECK_PYTHON_EXECUTABLE",
        metavar="PATH",
    )


MATRIX_COMMAND = Command(
    "matrix",
    "Show the version matrix rows, or validate a matrix directory.",
    description="Show TensorFlow releases with their Python, CUDA, cuDNN, driver and GPU targets.",
    handler="envcheck.cli.commands.matrix:rows",
    options=(
        Option(
            ("--tensorflow",),
            "tensorflow",
            "Only TensorFlow releases matching VER (2.15, 2.15.1 or '>=2.12,<2.16').",
            envvar="ENVCHECK_TENSORFLOW",
            metavar="VER",
        ),
        Option(
            ("--cuda",),
            "cuda",
            "Only releases built with this CUDA (12 or 12.5).",
            envvar="ENVCHECK_CUDA",
            metavar="VER",
        ),
        JSON,
        MATRIX,
    ),
    subcommands=(
        Command(
            "validate",
            "Check a matrix directory: every row parses, cites a source, and agrees with the "
            "others.",
            handler="envcheck.cli.commands.matrix:validate",
            options=(MATRIX, JSON),
        ),
    ),
)

RECOMMEND_COMMAND = Command(
    "recommend",
    "Rank TensorFlow releases for this machine (or one described by flags), with commands.",
    handler="envcheck.cli.commands.recommend:run",
    options=(
        Option(
            ("--os",),
            "os_name",
            "The target OS (default: this machine).",
            envvar="ENVCHECK_OS",
            metavar="linux|windows|wsl|macos",
        ),
        Option(
            ("--arch",),
            "arch",
            "The target CPU architecture (default: this machine).",
            envvar="ENVCHECK_ARCH",
            metavar="x86_64|aarch64",
        ),
        _python_version("The target Python (default: --python's, else this interpreter's)."),
        _python_executable(
            "Describe this interpreter instead of envcheck's own: its Python version and CPU "
            "architecture (e.g. a project's venv)."
        ),
        DRIVER,
        GPU,
        COMPUTE_CAPABILITY,
        TENSORFLOW_SPEC,
        FRAMEWORK_CHOICE,
        FRAMEWORK_VERSION,
        TORCH_INDEX_URL,
        FORMAT_JSON,
        format_option(RECOMMEND_FORMATS, envvar="ENVCHECK_RECOMMEND_FORMAT"),
        output_option("ENVCHECK_RECOMMEND_OUTPUT"),
        Option(("--all",), "show_all", "List every candidate, not the best three.", kind=FLAG),
        MATRIX,
    ),
)

PROBE_COMMAND = Command(
    "probe",
    "Collect the facts: platform, driver and GPUs, frameworks, and the CUDA/cuDNN libraries.",
    handler="envcheck.cli.commands.probe:run",
    options=(
        Option(
            ("--json",), "as_json", "Same as --format json (schema envcheck.facts/1).", kind=FLAG
        ),
        format_option(PROBE_FORMATS, envvar="ENVCHECK_PROBE_FORMAT"),
        output_option("ENVCHECK_PROBE_OUTPUT"),
        _python_executable("Probe the environment of this interpreter (e.g. a project's venv)."),
        Option(
            ("--step-timeout",),
            "timeout",
            "Time limit of each isolated step (NVML, libcuda, a library's version call).",
            old_flags=("--timeout",),
            kind=NUMBER,
            envvar="ENVCHECK_STEP_TIMEOUT",
            metavar="SECONDS",
            default=10.0,
            minimum=0.1,
            maximum=MAX_TIMEOUT_S,
        ),
        Option(
            ("--import-frameworks",),
            "import_frameworks",
            "Also import TensorFlow (in a child process) for tf.sysconfig.get_build_info().",
            kind=FLAG,
            envvar="ENVCHECK_IMPORT_FRAMEWORKS",
        ),
        Option(
            ("--all-libraries",),
            "all_libraries",
            "Without TensorFlow, also list as 'not found' every CUDA and cuDNN name the matrix "
            "knows (CUDA 10-12, cuDNN 7-9); by default only the copies that exist are listed.",
            kind=FLAG,
            envvar="ENVCHECK_ALL_LIBRARIES",
        ),
        MATRIX,
    ),
)

DOCTOR_COMMAND = Command(
    "doctor",
    "Diagnose: will the installed frameworks use the GPU here, and if not, which link is broken "
    "and the fix.",
    handler="envcheck.cli.commands.doctor:run",
    options=(
        FRAMEWORK,
        Option(
            ("--no-smoke",),
            "no_smoke",
            "Skip the smoke test (importing TensorFlow and running a tiny conv, LSTM, matmul).",
            kind=FLAG,
            envvar="ENVCHECK_NO_SMOKE",
        ),
        Option(
            ("--smoke-timeout",),
            "timeout",
            "Time limit of each framework's smoke test (the probe's steps: at most 10 s each).",
            old_flags=("--timeout",),
            kind=NUMBER,
            envvar="ENVCHECK_SMOKE_TIMEOUT",
            metavar="SECONDS",
            default=120.0,
            minimum=1.0,
            maximum=MAX_TIMEOUT_S,
        ),
        _deadline(
            "Bound the whole run, smoke tests and probe children included: past it they are "
            "killed, the report says what was not checked, the verdict is unknown (exit 4).",
            "ENVCHECK_DOCTOR_DEADLINE",
        ),
        FORMAT_JSON,
        format_option(
            DOCTOR_FORMATS,
            " prometheus for node_exporter's textfile collector, nfd for a "
            "node-feature-discovery feature file, junit for CI test reports.",
        ),
        OUTPUT,
        Option(
            ("--node",),
            "node",
            "The node's name in the report (default: this host's name).",
            envvar="ENVCHECK_NODE",
            metavar="NAME",
        ),
        Option(
            ("--strict",), "strict", "Exit 1 on warnings too.", kind=FLAG, envvar="ENVCHECK_STRICT"
        ),
        _python_executable("Diagnose the environment of this interpreter."),
        Option(
            ("--facts",),
            "facts_file",
            "Diagnose a facts file from `envcheck probe --json` (no probing here).",
            envvar="ENVCHECK_FACTS",
            metavar="FILE",
        ),
        Option(
            ("--target-driver",),
            "target_driver",
            "Docker build: the driver of the machines the image will run on.",
            envvar="ENVCHECK_TARGET_DRIVER",
            metavar="VER",
        ),
        Option(
            ("--target-gpu",),
            "target_gpu",
            "Docker build: the GPU model the image will run on.",
            envvar="ENVCHECK_TARGET_GPU",
            metavar="NAME",
        ),
        Option(
            ("--target-compute-capability",),
            "target_cc",
            "Docker build: the target GPU's compute capability.",
            envvar="ENVCHECK_TARGET_COMPUTE_CAPABILITY",
            metavar="X.Y",
        ),
        MATRIX,
    ),
)

EXPLAIN_COMMAND = Command(
    "explain",
    "Explain a pasted TensorFlow / CUDA / cuDNN log: what is wrong and what to do.",
    handler="envcheck.cli.commands.explain:run",
    options=(
        Option((), "source", "The log file; - reads stdin.", metavar="FILE|-", default="-"),
        FORMAT_JSON,
        format_option(EXPLAIN_FORMATS),
        output_option("ENVCHECK_EXPLAIN_OUTPUT"),
        MATRIX,
    ),
)

INSTALL_COMMAND = Command(
    "install",
    "Install the recommended TensorFlow, PyTorch or JAX (and its CUDA wheels) into one "
    "environment, safely.",
    handler="envcheck.cli.commands.install:run",
    options=(
        FRAMEWORK_CHOICE,
        TENSORFLOW_SPEC,
        FRAMEWORK_VERSION,
        _python_executable("Install into the environment of this interpreter (default: this one)."),
        CPU_BUILD,
        GPU_BUILD,
        Option(
            ("--dry-run",),
            "dry_run_only",
            "Show the plan and the installer's check; install nothing.",
            kind=FLAG,
            envvar="ENVCHECK_DRY_RUN",
        ),
        Option(
            ("--yes",),
            "yes",
            "Install without asking (for scripts; without it a terminal prompt confirms).",
            kind=FLAG,
            envvar="ENVCHECK_YES",
        ),
        Option(
            ("--installer",),
            "installer",
            "Run the target's pip, or uv (when on PATH).",
            envvar="ENVCHECK_INSTALLER",
            metavar="pip|uv",
            default="pip",
        ),
        INDEX_URL,
        TORCH_INDEX_URL,
        Option(
            ("--constraints-out",),
            "constraints_out",
            "Also write a pip constraints file for the plan (atomically).",
            envvar="ENVCHECK_CONSTRAINTS_OUT",
            metavar="FILE",
        ),
        MATRIX,
    ),
)

FETCH_COMMAND = Command(
    "fetch",
    "Download the wheels a target machine needs (any platform and Python) into a wheelhouse.",
    handler="envcheck.cli.commands.fetch:run",
    options=(
        FRAMEWORK_CHOICE,
        Option(
            ("--dest",),
            "dest",
            "The wheelhouse directory to download into (created if missing).",
            envvar="ENVCHECK_DEST",
            metavar="DIR",
        ),
        Option(
            ("--tensorflow",),
            "tensorflow",
            "TensorFlow versions to choose from (2.15, 2.15.1, '>=2.12'); default: the newest "
            "that fits the target.",
            envvar="ENVCHECK_TENSORFLOW",
            metavar="SPEC",
        ),
        FRAMEWORK_VERSION,
        Option(
            ("--driver",),
            "driver",
            "The target's NVIDIA driver, e.g. 580.65.06, or 'none', which decides the CPU or "
            "CUDA build as recommend does (default: detected here; required for a target with "
            "another OS unless --cpu or --gpu says which).",
            envvar="ENVCHECK_DRIVER_VERSION",
            metavar="VER",
        ),
        CPU_BUILD,
        GPU_BUILD,
        Option(
            ("--platform",),
            "platform",
            "A target's wheel platform tag (manylinux_2_17_x86_64, win_amd64, "
            "macosx_12_0_arm64); repeat for several targets. Default: this machine.",
            kind=LIST,
            envvar="ENVCHECK_PLATFORM",
            metavar="TAG",
        ),
        _python_version("The target Python (default: --python's, else this interpreter's)."),
        _python_executable("Fetch for this interpreter's Python version (e.g. a project's venv)."),
        Option(
            ("--index-url",),
            "index_url",
            "The index's simple API root (default: pip's configuration, then pip's default).",
            envvar="ENVCHECK_INDEX_URL",
            metavar="URL",
        ),
        TORCH_INDEX_URL,
        Option(
            ("--with-deps",),
            "with_deps",
            "Fetch the full dependency closure (resolved by pip download).",
            kind=FLAG,
            envvar="ENVCHECK_WITH_DEPS",
        ),
        Option(
            ("--verify",),
            "verify",
            "Check the wheelhouse DIR against its wheelhouse.json instead of downloading.",
            envvar="ENVCHECK_VERIFY",
            metavar="DIR",
        ),
        Option(
            ("--dry-run",),
            "dry_run_only",
            "Show the plan (each file, its size, the total) and download nothing.",
            kind=FLAG,
            envvar="ENVCHECK_DRY_RUN",
        ),
        JSON,
        Option(
            ("--read-timeout",),
            "timeout",
            "Time limit of each network read (a connection, a block of a download); timeouts "
            "and 5xx answers are retried with backoff.",
            old_flags=("--timeout",),
            kind=NUMBER,
            envvar="ENVCHECK_FETCH_TIMEOUT",
            metavar="SECONDS",
            default=60.0,
            minimum=0.1,
            maximum=MAX_TIMEOUT_S,
        ),
        _deadline(
            "Overall time limit per file and per index page, all retries included; an "
            "unfinished file is kept as a .part that the next run resumes (default: 10 minutes, "
            "or the file's size at 100 kB/s when longer).",
            "ENVCHECK_FETCH_DEADLINE",
        ),
        MATRIX,
    ),
)

_FLEET_FORMAT = format_option(FLEET_FORMATS)
_MAX_AGE = Option(
    ("--max-age",),
    "max_age",
    "Set apart node reports older than this (24h, 30m, 90s, 2d, or seconds).",
    envvar="ENVCHECK_MAX_AGE",
    metavar="AGE",
)
_FLEET_OUTPUT = OUTPUT

FLEET_COMMAND = Command(
    "fleet",
    "Merge many nodes' doctor reports (--format json) into groups of nodes alike, worst first, "
    "with one fix per group.",
    handler="envcheck.cli.commands.fleet:merge_reports",
    options=(
        Option(
            (),
            "sources",
            "Report files, directories (their *.json files) or - (standard input).",
            kind=LIST,
            metavar="PATH",
        ),
        _FLEET_FORMAT,
        _MAX_AGE,
        _FLEET_OUTPUT,
    ),
    subcommands=(
        Command(
            "plan",
            "Before a rollout: will the image (its doctor report from the Docker build) run on "
            "each group of nodes, and why not.",
            handler="envcheck.cli.commands.fleet:plan",
            options=(
                Option(
                    ("--image",),
                    "image",
                    "The image's report: envcheck doctor --format json run in its Docker build.",
                    envvar="ENVCHECK_IMAGE_REPORT",
                    metavar="REPORT",
                    required=True,
                ),
                Option(
                    ("--nodes",),
                    "nodes",
                    "The nodes' reports: files, directories or - (repeatable).",
                    kind=LIST,
                    envvar="ENVCHECK_NODE_REPORTS",
                    metavar="DIR",
                    required=True,
                ),
                _FLEET_FORMAT,
                _MAX_AGE,
                _FLEET_OUTPUT,
                MATRIX,
            ),
        ),
    ),
)

SETUP_COMMAND = Command(
    "setup",
    "Decisions for scripts/setup-windows.ps1 (not meant to be run by hand).",
    hidden=True,
    subcommands=(
        Command(
            "windows-python",
            "Which installed Python the TensorFlow venv should use, and whether the GPU needs "
            "WSL2.",
            handler="envcheck.cli.commands.windows_setup:windows_python",
            options=(
                Option(
                    ("--py-list",),
                    "py_list",
                    "What `py -0p` printed (any encoding).",
                    metavar="FILE",
                    required=True,
                ),
                Option(
                    ("--tensorflow",),
                    "tensorflow",
                    "Only consider these TensorFlow versions (2.15, '>=2.11').",
                    envvar="ENVCHECK_TENSORFLOW",
                    metavar="SPEC",
                ),
                Option(
                    ("--driver",),
                    "driver",
                    "The NVIDIA driver release, or 'none' (default: detected).",
                    envvar="ENVCHECK_DRIVER_VERSION",
                    metavar="VER",
                ),
                Option(("--gpu",), "gpu", "The GPU model.", envvar="ENVCHECK_GPU", metavar="NAME"),
                Option(
                    ("--compute-capability",),
                    "compute_capability",
                    "The GPU's compute capability.",
                    envvar="ENVCHECK_COMPUTE_CAPABILITY",
                    metavar="X.Y",
                ),
                Option(
                    ("--matrix",),
                    "matrix_option",
                    "Another matrix.",
                    envvar="ENVCHECK_MATRIX",
                    metavar="DIR",
                ),
            ),
        ),
        Command(
            "wsl-state",
            "Is WSL absent, WSL 1 only, WSL 2, or without a Linux distribution; and what to do.",
            handler="envcheck.cli.commands.windows_setup:wsl_state",
            options=(
                Option(
                    ("--status-exit-code",),
                    "status_exit_code",
                    "The exit code of `wsl.exe --status`; leave out when wsl.exe does not exist.",
                    kind=INTEGER,
                    metavar="N",
                ),
                Option(
                    ("--list",),
                    "list_file",
                    "What `wsl.exe -l -v` printed (any encoding).",
                    metavar="FILE",
                ),
                Option(
                    ("--list-exit-code",),
                    "list_exit_code",
                    "The exit code of `wsl.exe -l -v`.",
                    kind=INTEGER,
                    metavar="N",
                    default=0,
                ),
            ),
        ),
    ),
)

ROOT = Command(
    "envcheck",
    "Will TensorFlow, CUDA, cuDNN, the NVIDIA driver and this GPU work together?",
    subcommands=(
        MATRIX_COMMAND,
        RECOMMEND_COMMAND,
        PROBE_COMMAND,
        DOCTOR_COMMAND,
        EXPLAIN_COMMAND,
        INSTALL_COMMAND,
        FETCH_COMMAND,
        FLEET_COMMAND,
        SETUP_COMMAND,
    ),
)
