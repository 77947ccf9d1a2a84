"""The console-script entry point (envcheck/cli/entry.py): what it does around the command."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

import pytest

from envcheck.cli import entry


def test_the_objects_alive_at_the_end_are_left_out_of_the_exit_collection() -> None:
    # Run in a child: freezing changes this interpreter's collector for every later test.
    script = textwrap.dedent(
        """
        import gc, sys
        from envcheck.cli import entry
        sys.argv = ["envcheck", "matrix", "validate"]
        try:
            entry.main()
        except SystemExit as exc:
            code = exc.code
        print(code, gc.get_freeze_count() > 1000, gc.get_threshold()[0])
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    # The command's own exit code is kept, and the records it loaded are frozen.
    assert done.stdout.split()[-3:] == ["0", "True", "200000"], done.stdout + done.stderr


def test_a_version_query_freezes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    before = gc.get_freeze_count()
    monkeypatch.setattr(sys, "argv", ["envcheck", "--version"])
    entry.main()
    assert gc.get_freeze_count() == before
