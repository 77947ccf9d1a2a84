"""Rewrite the generated blocks of README.md and docs/*.md from the real program (a test checks
that they match).

Two kinds of block, each between an opening and a closing comment:

- `<!-- help: ARGS -->` ... `<!-- /help -->`: the output of `envcheck ARGS --help` (the command
  reference, docs/commands.md);
- `<!-- output: ARGS -->` ... `<!-- /output -->`: a `$ envcheck ARGS` line and what that command
  prints on standard output, so that every example in the documentation is the program's own
  answer and goes stale only together with a failing test.

Every command runs from the repository root (paths in ARGS are the repository's) in a fixed
environment: 100 columns, no colour, no `ENVCHECK_*` settings of the caller, no matrix cache.
Run: python scripts/update_readme_help.py
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
HELP_BLOCK = re.compile(
    r"(<!-- help: (?P<args>[^>]*?) -->\n)```text\n.*?```\n(<!-- /help -->)", re.S
)
# An output that holds a fence itself (the doctor's markdown) gets a longer fence around it.
OUTPUT_BLOCK = re.compile(
    r"(<!-- output: (?P<args>[^>]*?) -->\n)(?P<fence>`{3,})console\n.*?(?P=fence)\n"
    r"(?P<close><!-- /output -->)",
    re.S,
)
# Kept for callers of the help-only form (the test and the lead's merge routine).
BLOCK = HELP_BLOCK
# An example may show a negative answer (the doctor's exit 1 is a finding); a usage error or an
# internal error is never what a page means to show.
ANSWER_CODES = (0, 1)


def documents() -> list[Path]:
    """The files whose blocks this script keeps: the README and every page under docs/."""
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    return {**env, "COLUMNS": "100", "TERM": "dumb", "NO_COLOR": "1", "ENVCHECK_CACHE_DIR": "off"}


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envcheck", *args],
        capture_output=True, text=True, env=_environment(), cwd=ROOT, check=False, timeout=120,
    )  # fmt: skip


def help_text(args: str) -> str:
    completed = _run([*args.split(), "--help"])
    if completed.returncode != 0:
        code = completed.returncode
        raise SystemExit(f"envcheck {args} --help exited {code}: {completed.stderr}")
    return completed.stdout


def output_text(args: str) -> str:
    """`$ envcheck ARGS` and what it printed on standard output."""
    completed = _run(shlex.split(args))
    if completed.returncode not in ANSWER_CODES:
        raise SystemExit(f"envcheck {args} exited {completed.returncode}: {completed.stderr}")
    return f"$ envcheck {args}\n{completed.stdout}"


def render(text: str) -> str:
    def replace_help(match: re.Match[str]) -> str:
        body = help_text(match.group("args"))
        return f"{match.group(1)}```text\n{body}```\n{match.group(3)}"

    def replace_output(match: re.Match[str]) -> str:
        body = output_text(match.group("args"))
        runs = re.findall(r"^`{3,}", body, re.M)
        fence = "`" * max([3, *(len(run) + 1 for run in runs)])
        return f"{match.group(1)}{fence}console\n{body}{fence}\n{match.group('close')}"

    return OUTPUT_BLOCK.sub(replace_output, HELP_BLOCK.sub(replace_help, text))


def main() -> None:
    for path in documents():
        text = path.read_text(encoding="utf-8")
        rendered = render(text)
        if rendered != text:
            path.write_text(rendered, encoding="utf-8")
            print(f"rewrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
