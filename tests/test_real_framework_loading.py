"""The static loader model for PyTorch and JAX, judged by the real loader in the real installs.

Opt-in, like tests/test_real_installs.py (ENVCHECK_REAL_INSTALLS=1; the environments live in
ENVCHECK_REAL_INSTALLS_DIR; one that is already there, bin/python and all, is used as it is and
never reinstalled or changed). For each environment, `envcheck probe --json` says which file
each CUDA library of PyTorch or JAX resolves to (Facts.framework_libraries, read from the
installed files without importing either); the judge is a child of the environment's own Python
that really loads the framework (`import torch`; `import jax; jax.devices()`, which runs the CUDA
plugin's initialize() and its preloads even without a GPU, then falls back to the CPU) and
reads /proc/self/maps. Every file the model names must be the one mapped (by real path), and
every CUDA library mapped must be one the model names. A library the model says XLA asks for
only when a GPU starts is mapped only where one does; without a GPU it is reported, not judged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envcheck.probe.copy_owners import library_key
from tests.test_real_installs import CACHE, INSTALLS, clean_env, environment

ENABLED = os.environ.get("ENVCHECK_REAL_INSTALLS") == "1"
pytestmark = [
    pytest.mark.skipif(not ENABLED, reason="opt-in: set ENVCHECK_REAL_INSTALLS=1 (~7 GB)"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux wheels"),
]
INSTALLS.setdefault("jax", [["jax[cuda12]==0.10.2"]])
LOADS = {
    "torch": "import torch",
    "jax": "import jax\njax.devices()",
}
MAPS = r"""
import json, sys
exec(sys.argv[1])
paths = []
for line in open("/proc/self/maps"):
    parts = line.split()
    if len(parts) >= 6 and parts[5].startswith("/") and parts[5] not in paths:
        paths.append(parts[5])
print(json.dumps(paths))
"""
GPU_START = "dlopen by xla_cuda_plugin.so when a GPU starts"


def venv(name: str) -> Path:
    """An environment already there is used as it is (and never changed); else it is made."""
    existing = CACHE / name
    return existing if (existing / "bin" / "python").exists() else environment(name)


def probe(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "envcheck", "probe", "--json", "--python", str(path / "bin/python")],
        capture_output=True, text=True, env=clean_env(), timeout=600, check=True,
    )  # fmt: skip
    facts: dict[str, Any] = json.loads(done.stdout)
    return facts


def mapped(path: Path, framework: str) -> list[str]:
    done = subprocess.run(
        [str(path / "bin/python"), "-c", MAPS, LOADS[framework]],
        capture_output=True, text=True, env=clean_env(), timeout=600, check=True, cwd="/",
    )  # fmt: skip
    paths: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return paths


def compare(model: dict[str, Any], maps: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(mismatches, libraries mapped that the model does not name, lines of the comparison)."""
    real = {os.path.realpath(p) for p in maps}
    named = set()
    wrong, lines = [], []
    for library in model["libraries"]:
        path = library["path"]
        if path is None:
            lines.append(f"{library['library']}: predicted none ({library['problems']})")
            continue
        named.add(os.path.realpath(path))
        seen = os.path.realpath(path) in real
        same_key = [p for p in maps if library_key(p) == library_key(path)]
        if not seen and library["how"].startswith(GPU_START):
            lines.append(f"{library['library']}: {path} (when a GPU starts: not checked here)")
            continue
        lines.append(f"{library['library']}: predicted {path}; mapped {same_key or 'nothing'}")
        if not seen:
            wrong.append(f"{library['library']}: predicted {path}, mapped {same_key or 'nothing'}")
    unnamed = [p for p in maps if library_key(p) and os.path.realpath(p) not in named]
    return wrong, unnamed, lines


@pytest.mark.parametrize(
    ("name", "framework"),
    [("torch", "torch"), ("tf-torch", "torch"), ("jax", "jax"), ("tf-jax", "jax")],
)
def test_the_static_model_names_the_files_the_real_loader_maps(name: str, framework: str) -> None:
    path = venv(name)
    facts = probe(path)
    (model,) = [m for m in facts["framework_libraries"] if m["framework"] == framework]
    assert not model["model"].startswith(("unknown", "not modelled")), model["model"]
    maps = mapped(path, framework)
    wrong, unnamed, lines = compare(model, maps)
    report = os.environ.get("ENVCHECK_LOADING_REPORT")
    if report:
        with Path(report).open("a") as out:
            out.write(f"== {name} ({framework}): {model['model']}\n")
            out.writelines(f"  {line}\n" for line in lines)
            out.writelines(f"  mapped, not in the model: {p}\n" for p in unnamed)
    assert len(model["libraries"]) >= 10, model
    assert wrong == [], "\n".join(wrong)
    assert unnamed == [], unnamed


def test_torch_beside_tensorflow_gets_the_cuda_12_copies_the_doctor_names() -> None:
    path = venv("tf-torch")
    done = subprocess.run(
        [sys.executable, "-m", "envcheck", "doctor", "--json", "--no-smoke", "--python",
         str(path / "bin/python"), "--target-driver", "580.65.06", "--target-gpu", "A100"],
        capture_output=True, text=True, env=clean_env(), timeout=600, check=False,
    )  # fmt: skip
    report = json.loads(done.stdout)
    static = {
        f["data"]["library"]: f
        for f in report["findings"]
        if f["code"] == "framework-conflict" and f["data"].get("found_by") == "static loader model"
    }
    maps = {os.path.realpath(p) for p in mapped(path, "torch")}
    assert set(static) == {"libcurand.so.10", "libcusparse.so.12"}, static
    for library, finding in static.items():
        (copy,) = finding["data"]["copies"]["static loader model"].values()
        assert os.path.realpath(copy) in maps and "/nvidia/cu13/" not in copy
        assert finding["data"]["copy_cuda"] == {copy: "12"}
        assert finding["data"]["built_for_cuda"] == {"torch": "13"}
        assert library in copy
