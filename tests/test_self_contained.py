"""The repository is whole on its own: no tracked line points at a file a fresh clone lacks.

A fresh clone has nothing beside it, so a citation of a file outside the repository cannot be
followed by a reader and a test that reads one fails for every user. Two rules over every tracked
text file:

- nothing names the workplace's `shared/` folder (seed notes, reference sheets) or `/work/`;
- a path that starts at one of this repository's top-level folders (`tests/seeds/...`,
  `docs/facts.md`, `matrix/...`) names a tracked file or folder, and a bare `*.md` / `*.toml`
  name is one of ours, unless it is an upstream document named as such (UPSTREAM_NAMES).

Paths inside URLs are the public world's and are not checked here. `.ci/run` runs the suite in a
fresh clone in an empty directory, so a read outside the repository also fails there.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Places outside the repository that earlier revisions pointed at. "/work/" only as a path's
# first folder: conda's build paths in public logs hold ".../pytorch_1524586445097/work/aten".
OUTSIDE = re.compile(
    r"\.\./shared\b|\bshared/(?:seeds|reference|hooks)\b|(?<![\w.-])/work/|matrix-facts"
    r"|testing-without-gpu"
)
# A file name with an extension that a citation or a test would name.
PATH_TOKEN = re.compile(
    r"(?<![\w/.:@-])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:md|toml|py|txt|log|sh|c|h|json|cfg))\b"
)
URL_BEFORE = re.compile(r"\S*://\S*$")
# Bare document names that are upstream files, each named next to its repository where cited.
UPSTREAM_NAMES = {
    "pip.md": "tensorflow/docs site/en/install/pip.md",
    "supported-tags.md": "NVIDIA's container-images/cuda doc/supported-tags.md",
    "config.toml": "the NVIDIA Container Toolkit's and containerd's own configuration files",
    "OperatorKernels.md": "microsoft/onnxruntime docs/OperatorKernels.md",
}
# Whole files that are data quoted from elsewhere, not our own citations, and this file, whose
# examples of dangling references are deliberate (the tests below check the scanner on them).
QUOTED = ("tests/seeds/", "tests/test_self_contained.py")
# The logs of the explain corpus are programs' output quoted from public threads: their paths
# are the posters' projects (a `deploy/...` of theirs is not this repository's deploy/).
QUOTED_LOGS = ("tests/corpus", ".log")


@dataclass(frozen=True)
class Dangling:
    path: str
    line: int
    target: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.target}"


def tracked_files(root: Path) -> list[str]:
    done = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z"],
        capture_output=True,
        check=False,
        timeout=60,
    )
    if done.returncode != 0:
        pytest.skip("not a git checkout (an unpacked sdist): nothing to compare citations with")
    return [name for name in done.stdout.decode().split("\0") if name]


def dangling_references(path: str, text: str, tracked: Iterable[str]) -> Iterator[Dangling]:
    """Each reference in `text` (the file `path`) that leaves the repository."""
    files = set(tracked)
    folders = {str(Path(name).parent) for name in files} | {
        "/".join(name.split("/")[: i + 1]) for name in files for i in range(name.count("/"))
    }
    tops = {name.split("/", 1)[0] for name in files if "/" in name} | {"docs"}
    basenames = {Path(name).name for name in files}
    for number, line in enumerate(text.splitlines(), 1):
        outside = OUTSIDE.search(line)
        if outside:
            yield Dangling(path, number, outside.group(0))
        for match in PATH_TOKEN.finditer(line):
            target = match.group(1)
            if URL_BEFORE.search(line[: match.start(1)]):
                continue
            if "/" in target:
                if target.split("/", 1)[0] in tops and target not in files | folders:
                    yield Dangling(path, number, target)
            elif (
                target.endswith((".md", ".toml"))
                and target not in basenames
                and target not in UPSTREAM_NAMES
                and not _quoted_alone(line, match.start(1), match.end(1))
            ):
                yield Dangling(path, number, target)


def _quoted_alone(line: str, start: int, end: int) -> bool:
    """A bare name that is a whole string literal ("report.md") names a file a test or the
    code writes, not a document it cites."""
    return start > 0 and end < len(line) and line[start - 1] == line[end] and line[end] in "'\""


def test_no_tracked_line_points_outside_the_repository() -> None:
    tracked = tracked_files(ROOT)
    found: list[Dangling] = []
    for name in tracked:
        if name.startswith(QUOTED) or (
            name.startswith(QUOTED_LOGS[0]) and name.endswith(QUOTED_LOGS[1])
        ):
            continue
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue  # binary, or deleted in the work tree and not yet committed
        found.extend(dangling_references(name, text, tracked))
    assert not found, "\n".join(map(str, found))


_S, _M, _W = "shared", "matrix", "work"
TRACKED = ["README.md", "docs/facts.md", "tests/seeds/003_x.txt", "matrix/tensorflow.toml"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # Built with f-strings so that this file does not itself hold what it forbids (the
        # standing checks grep for the plain text).
        (f"see ../{_S}/seeds/003_x.txt line 2", [f"../{_S}"]),
        (f"({_S}/reference/{_M}-facts.md section 5.3)", [f"{_S}/reference"]),
        (f"per {_M}-facts 5.3", [f"{_M}-facts"]),
        (f"numbers in /{_W}/main/README.md", [f"/{_W}/"]),
        ("the seed tests/seeds/004_y.txt", ["tests/seeds/004_y.txt"]),
        ("written up in docs/loader.md", ["docs/loader.md"]),
        ("cited by STYLE.md", ["STYLE.md"]),
        ('see "STYLE.md section 2"', ["STYLE.md"]),
        ("matrix/gpus.toml rows", ["matrix/gpus.toml"]),
    ],
)
def test_a_reference_outside_the_repository_is_found(line: str, expected: list[str]) -> None:
    found = [d.target for d in dangling_references("x.md", line, TRACKED)]
    for target in expected:
        assert any(target in f for f in found), (line, found)


@pytest.mark.parametrize(
    "line",
    [
        "the seed tests/seeds/003_x.txt line 255 and docs/facts.md section 7 row 3",
        "rows in matrix/tensorflow.toml and the README.md table; tests/seeds/ holds them",
        "https://github.com/tensorflow/docs/blob/master/site/en/install/pip.md",
        "tensorflow/docs site/en/install/pip.md and tensorflow/python/platform/build_info.py",
        "upstream tsl/platform/default/dso_loader.cc at v2.15.0",
        'out = tmp_path / "report.md"',
    ],
)
def test_references_inside_the_repository_or_upstream_pass(line: str) -> None:
    assert list(dangling_references("x.md", line, TRACKED)) == []


# SHA-256 (first 16 hex digits) of package registries' host names: the project never writes
# one (the index comes from pip's configuration), and this list must not either, so it holds
# their digests. The index's, its file host, pip's old one, TestPyPI, NVIDIA's two, conda's
# three, PyTorch's wheel index, npm's and Docker Hub's.
_REGISTRY_DIGESTS = {
    "a4aa2ac280bb8d1a", "8b5bb5eb9d758455", "d6d7019ca9fcbf07", "9495278a74715c7e",
    "bd848f96e7140691", "df62e3961d508122", "51c6b9f69c48a75b", "4db460c55b85212e",
    "15bdb44dafa6843b", "03e390c8d8a6f2cf", "0dc11026ac75c015", "dcb6cc3991f9799e",
}  # fmt: skip
_HOSTNAME = re.compile(r"\b(?:[a-z0-9-]+\.)+(?:org|com|io|net)\b")


def _is_registry(host: str) -> bool:
    parts = host.split(".")
    # The host and each of its parent domains ("files.x.org" and "x.org").
    return any(
        hashlib.sha256(".".join(parts[i:]).encode()).hexdigest()[:16] in _REGISTRY_DIGESTS
        for i in range(len(parts) - 1)
    )


def test_no_tracked_file_names_a_package_registry() -> None:
    found = []
    for name in tracked_files(ROOT):
        path = ROOT / name
        if path.suffix in {".whl", ".png", ".gz"} or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace").lower()
        found += [f"{name}: {host}" for host in set(_HOSTNAME.findall(text)) if _is_registry(host)]
    assert not found, found


def test_the_registry_check_recognises_a_registry_host() -> None:
    # Built from parts so that this file does not spell one out either.
    host = ".".join(["files", "pythonhosted", "org"])
    assert _is_registry(host) and not _is_registry("example.org")
