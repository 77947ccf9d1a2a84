"""The documentation's generated blocks are the program's real output (scripts/update_readme_help.py):
the `--help` of every command in docs/commands.md, and every example of a command's output in the
README and docs/."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location(
    "update_readme_help", ROOT / "scripts" / "update_readme_help.py"
)
assert spec is not None and spec.loader is not None
update = importlib.util.module_from_spec(spec)
spec.loader.exec_module(update)

DOCUMENTS = update.documents()
STALE = "is stale: run python scripts/update_readme_help.py"
# A fenced block that shows an envcheck command being run, outside the generated blocks.
SHOWN_RUN = re.compile(r"^(`{3,})(?:console|text|sh|shell)?\n\$ envcheck .*?^\1$", re.S | re.M)


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_command_reference_has_every_commands_help() -> None:
    commands = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    shown = [m.group("args") for m in update.HELP_BLOCK.finditer(commands)]
    wanted = ["", "doctor", "probe", "recommend", "explain", "install", "fetch", "matrix"]
    wanted += ["matrix validate", "fleet", "fleet plan"]
    assert sorted(shown) == sorted(wanted), "docs/commands.md lost a command's --help"


def test_the_readme_and_the_docs_show_real_outputs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = [m.group("args").split()[0] for m in update.OUTPUT_BLOCK.finditer(readme)]
    # The quickstart's recommendation and the report a new user learns to read.
    assert shown == ["recommend", "doctor"], shown


@pytest.mark.parametrize("path", DOCUMENTS, ids=_name)
def test_generated_blocks_are_up_to_date(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert update.render(text) == text, f"{_name(path)} {STALE}"


@pytest.mark.parametrize("path", DOCUMENTS, ids=_name)
def test_every_shown_run_of_envcheck_is_a_generated_block(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    outside = update.OUTPUT_BLOCK.sub("", text)
    hand_written = [m.group(0).splitlines()[1] for m in SHOWN_RUN.finditer(outside)]
    assert not hand_written, (
        f"{_name(path)} shows output that was not produced by running the command; mark it "
        f"<!-- output: ARGS --> ... <!-- /output -->: {hand_written}"
    )


def test_a_stale_output_block_is_found() -> None:
    """The comparison fails on an example the program no longer prints."""
    stale = (
        "<!-- output: matrix --tensorflow 2.21.0 -->\n```console\n$ envcheck matrix "
        "--tensorflow 2.21.0\nTensorFlow 2.21.0: CUDA 99.9\n```\n<!-- /output -->\n"
    )
    rendered = update.render(stale)
    assert rendered != stale
    assert "CUDA 99.9" not in rendered and "2.21" in rendered
    assert update.render(rendered) == rendered


def test_an_output_that_holds_a_fence_gets_a_longer_one() -> None:
    block = (
        "<!-- output: doctor --facts docs/samples/torch-old-driver.facts.json --format markdown"
        " -->\n```console\n```\n<!-- /output -->\n"
    )
    rendered = update.render(block)
    assert "\n````console\n" in rendered and "\n```\n" in rendered  # the report's own fence
    assert update.render(rendered) == rendered
