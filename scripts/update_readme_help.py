"""Rewrite the README's `--help` blocks from the real command line (tests check they match).

Each block in README.md between `<!-- help: ARGS -->` and `<!-- /help -->` is replaced by the
output of `envcheck ARGS --help` at a fixed width. Run: python scripts/update_readme_help.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"(<!-- help: (?P<args>[^>]*?) -->\n)```text\n.*?```\n(<!-- /help -->)", re.S)


def help_text(args: str) -> str:
    env = {**os.environ, "COLUMNS": "100", "TERM": "dumb", "NO_COLOR": "1"}
    completed = subprocess.run(
        [sys.executable, "-m", "envcheck", *args.split(), "--help"],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    return completed.stdout


def render(readme: str) -> str:
    def replace(match: re.Match[str]) -> str:
        text = help_text(match.group("args"))
        return f"{match.group(1)}```text\n{text}```\n{match.group(3)}"

    return BLOCK.sub(replace, readme)


def main() -> None:
    README.write_text(render(README.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
