"""`envcheck setup`'s output (the Windows set-up script reads it): installed Pythons and the
TensorFlow candidates, as JSON objects."""

from __future__ import annotations

from typing import Any

from envcheck.recommend.rank import Candidate
from envcheck.recommend.windows_setup import PythonInstall


def install_json(install: PythonInstall) -> dict[str, Any]:
    return {
        "launcher_arg": install.launcher_arg,
        "tag": install.tag,
        "version": str(install.version) if install.version is not None else None,
        "arch": install.arch,
        "path": install.path,
        "default": install.default,
        "problem": install.problem,
    }


def candidate_json(candidate: Candidate | None) -> dict[str, Any] | None:
    if candidate is None:
        return None
    return {
        "version": str(candidate.tensorflow),
        "kind": candidate.kind,
        "status": candidate.status,
        "cuda": candidate.cuda,
        "python": [str(p) for p in candidate.release.python],
        "commands": list(candidate.commands),
    }
