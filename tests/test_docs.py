"""The README stays short and the documentation stays whole: CI still finds the test command in
the README, every relative link in the README and docs/ leads somewhere, and every section the
README once held is a heading in docs/ (where this file's table says it moved)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").rglob("*.md"))]
README_MAX_LINES = 250

# Every heading of the README before it was cut to a page (issue 23), and the page and heading
# it now lives under.
MOVED = {
    "Set up on a fresh machine": ("getting-started.md", "Set up on a fresh machine"),
    "Dependencies, and why not typer": ("development.md", "Dependencies, and why not typer"),
    "Quickstart": ("getting-started.md", "Quickstart"),
    "Commands": ("commands.md", "Commands"),
    "Exit codes": ("exit-codes.md", "Exit codes"),
    "Failure behaviour": ("failure-behaviour.md", "Failure behaviour"),
    "The doctor in a Docker build": ("guide-docker.md", "The doctor in a Docker build"),
    "Finding codes": ("finding-codes.md", "Finding codes"),
    "How to read a recommendation": ("reading-a-report.md", "How to read a recommendation"),
    "JSON": ("json.md", "JSON"),
    "Command reference": ("commands.md", "Command reference"),
    "`envcheck`": ("commands.md", "`envcheck`"),
    "`envcheck doctor`": ("commands.md", "`envcheck doctor`"),
    "`envcheck probe`": ("commands.md", "`envcheck probe`"),
    "`envcheck recommend`": ("commands.md", "`envcheck recommend`"),
    "`envcheck explain`": ("commands.md", "`envcheck explain`"),
    "`envcheck install`": ("commands.md", "`envcheck install`"),
    "`envcheck fetch`": ("commands.md", "`envcheck fetch`"),
    "`envcheck matrix`": ("commands.md", "`envcheck matrix`"),
    "`envcheck matrix validate`": ("commands.md", "`envcheck matrix validate`"),
    "`envcheck fleet`": ("commands.md", "`envcheck fleet`"),
    "`envcheck fleet plan`": ("commands.md", "`envcheck fleet plan`"),
    "Code layout": ("development.md", "Code layout"),
    "The rules": ("matrix.md", "The rules"),
    "Several frameworks in one environment": (
        "frameworks.md",
        "Several frameworks in one environment",
    ),
    "How the probe decides which copy loads": (
        "loader.md",
        "How the probe decides which copy loads",
    ),
    "Tests on real installs (opt-in)": ("development.md", "Tests on real installs (opt-in)"),
    "How `explain` reads a log": ("explain.md", "How `explain` reads a log"),
    "The matrix (data, not code)": ("matrix.md", "The matrix (data, not code)"),
    "Adding a row": ("matrix.md", "Adding a row"),
    "Windows": ("guide-windows.md", "Windows"),
    "Docker": ("guide-docker.md", "Docker"),
    "Clusters": ("clusters.md", "Clusters"),
    "Slurm": ("clusters.md", "Slurm"),
    "Kubernetes": ("clusters.md", "Kubernetes"),
    "Prometheus": ("clusters.md", "Prometheus: `--format prometheus`"),
    "NFD": ("clusters.md", "Node Feature Discovery: `--format nfd`"),
    "`fleet`": ("clusters.md", "`envcheck fleet`"),
    "`fleet plan`": ("clusters.md", "`envcheck fleet plan`"),
    "The image": ("guide-docker.md", "The image"),
    "On a real GPU machine": ("guide-gpu-machine.md", "On a real GPU machine"),
    "Safety": ("safety.md", "Safety"),
    "Benchmark": ("benchmarks.md", "Benchmarks"),
    "The probe against the size of a site-packages": (
        "benchmarks.md",
        "The probe against the size of a site-packages",
    ),
    "`envcheck fleet` on 10,000 reports": ("benchmarks.md", "`envcheck fleet` on 10,000 reports"),
    "The doctor on real framework installs": (
        "benchmarks.md",
        "The doctor on real framework installs",
    ),
}
# Headings only the short README has: its summaries of pages that have the whole of each.
README_ONLY = {"Reading a report", "Documentation"}

FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.S | re.M)
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _prose(text: str) -> str:
    """The text outside fenced blocks (a report shown in a block has headings of its own)."""
    return FENCE.sub("", text)


def headings(text: str) -> list[str]:
    return HEADING.findall(_prose(text))


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in headings(text):
        slug = anchor(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(_prose(text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, fragment = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif (
            fragment
            and resolved.suffix == ".md"
            and fragment not in anchors(resolved.read_text(encoding="utf-8"))
        ):
            broken.append(f"{target}: no heading #{fragment}")
    return broken


def test_the_readme_is_a_page_a_new_user_reads() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_ci_finds_the_test_command_in_the_readme() -> None:
    """The line .ci/run runs, read by .ci/run's own pipeline."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    read = re.search(r'^test_command="\$\((.*)\)"$', ci, re.M)
    assert read is not None, ".ci/run no longer reads the test command this way"
    completed = subprocess.run(
        ["bash", "-c", read.group(1)], capture_output=True, text=True, cwd=ROOT, check=True
    )
    command = completed.stdout.strip()
    assert command.startswith("python3 -m venv ") and "-m pytest" in command, command
    assert f"```sh\n{command}\n```" in README.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", DOCUMENTS, ids=_name)
def test_every_relative_link_resolves(path: Path) -> None:
    assert broken_links(path) == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    # Names built at run time: test_self_contained.py reads a bare page name as a citation.
    other, missing, inside = (f"{name}.md" for name in ("other", "missing", "inside-a-block"))
    page = tmp_path / "page.md"
    (tmp_path / other).write_text("# Other\n\n## `envcheck fleet` on 10,000 reports\n")
    page.write_text(
        f"# Page\n[a]({other}#envcheck-fleet-on-10000-reports) [b]({missing}) "
        f"[c]({other}#nowhere) [d](#page) [e](https://example.org/x)\n"
        f"```\n[f]({inside})\n```\n"
    )
    assert broken_links(page) == [
        f"{missing}: no such file",
        f"{other}#nowhere: no heading #nowhere",
    ]


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_section_the_readme_held_is_in_docs(old: str) -> None:
    page, heading = MOVED[old]
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    assert heading in headings(text), f"README's '{old}' should be docs/{page}'s '{heading}'"


def test_the_table_of_moved_sections_is_whole() -> None:
    """Every heading the README has now is one the table knows, so nothing is only there."""
    current = headings(README.read_text(encoding="utf-8"))
    unknown = [h for h in current[1:] if h not in MOVED and h not in README_ONLY]
    assert unknown == [], f"README headings not in docs/: {unknown}"
