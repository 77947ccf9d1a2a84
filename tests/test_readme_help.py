"""The README's `--help` blocks are the program's real output (scripts/update_readme_help.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location(
    "update_readme_help", ROOT / "scripts" / "update_readme_help.py"
)
assert spec is not None and spec.loader is not None
update = importlib.util.module_from_spec(spec)
spec.loader.exec_module(update)


def test_readme_help_blocks_match_the_program() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = update.BLOCK.findall(readme)
    assert len(blocks) >= 9, "the README lost its command reference"
    assert update.render(readme) == readme, (
        "README.md --help blocks are stale: run python scripts/update_readme_help.py"
    )
