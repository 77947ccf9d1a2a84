#!/usr/bin/env python3
"""Capture the library layout of a real TensorFlow install as data (envcheck.layout/1).

    python scripts/snapshot_layout.py SITE_PACKAGES "tensorflow[and-cuda]==2.21.0" > layout.json
    python scripts/snapshot_layout.py --records SITE_PACKAGES "what was installed" > records.json
    python scripts/snapshot_layout.py --loading SITE_PACKAGES "what was installed" > loading.json

For each ELF shared object under SITE_PACKAGES/nvidia/ and for TensorFlow's
libtensorflow_framework.so.2: its path relative to site-packages, SONAME, DT_NEEDED,
DT_RUNPATH and DT_RPATH as written, and the version its file name carries. For the framework,
the DSO loader functions it defines (which libraries TensorFlow can dlopen); for cuDNN's shim,
the sub-library names in its strings. For each nvidia-* wheel and TensorFlow: name, version and
the shared objects its RECORD lists. Nothing is loaded: the files are read with envcheck's own
ELF reader.

tests/test_layout_snapshots.py rebuilds each snapshot as gcc-built shared objects with the same
dynamic sections and checks envcheck's choice of copy against the real glibc loader.

--loading (envcheck.loading/1) captures what PyTorch's and JAX's loading needs
(tests/test_layout_snapshots.py rebuilds it and checks envcheck's static loader model against a
child that loads the rebuilt tree): every ELF shared object under nvidia/, torch/ (lib/ and the
_C extension) and jax_plugins/, with its SONAME, DT_NEEDED, DT_RUNPATH and DT_RPATH; the
packages under nvidia/ that have an __init__.py (a regular package wins Python's import over
namespace portions); each nvidia-* wheel's shared objects from its RECORD; torch's CUDA version
(torch/version.py) and the (folder, pattern) table of its torch/__init__.py, and the JAX plugin's
_load(module, [names]) calls, both read here with ast as literals, as data.

--records (envcheck.records/1) captures instead what frameworks sharing one environment need
(tests/test_coresidency.py): the name, version and CUDA Requires-Dist lines of the frameworks, of
every nvidia-* distribution and of cuda-toolkit; for each file under nvidia/ that two RECORDs
list, or whose size is not its one owner's, the RECORD rows naming it, its size on disk and the
owners whose recorded bytes it has, told here with hashlib on the real file (sizes first, hashes
where the sizes are equal), independently of envcheck's probe.
"""

from __future__ import annotations

import ast
import base64
import csv
import hashlib
import json
import re
import sys
from pathlib import Path

from envcheck.probe.binary_files import read_binary, version_from_file_name
from envcheck.probe.libraries import sublibraries_named_by, tensorflow_loader_names

SCHEMA = "envcheck.layout/1"
_SHARED_OBJECT = re.compile(r"\.so(\.\d+)*$")
_FRAMEWORK = "tensorflow/libtensorflow_framework.so.2"


def elf_entry(site: Path, path: Path) -> dict[str, object]:
    info = read_binary(path, exports=False)
    relative = path.relative_to(site).as_posix()
    entry: dict[str, object] = {
        "path": relative,
        "soname": info.soname,
        "needed": list(info.needed),
        "runpath": list(info.runpath),
        "rpath": list(info.rpath),
        "version": version_from_file_name(path.name),
    }
    if relative == _FRAMEWORK:
        entry["loader_functions"] = sorted(tensorflow_loader_names(path) or ())
    if re.fullmatch(r"libcudnn\.so\.\d+", path.name):
        entry["cudnn_sublibraries"] = list(sublibraries_named_by(path))
    return entry


def wheel_entries(site: Path) -> list[dict[str, object]]:
    wheels = []
    for dist_info in sorted(site.glob("*.dist-info")):
        name_version = dist_info.name[: -len(".dist-info")]
        name, _, version = name_version.partition("-")
        normalized = name.replace("_", "-").lower()
        if not (normalized.startswith("nvidia-") or normalized in ("tensorflow", "tensorflow-cpu")):
            continue
        record = (dist_info / "RECORD").read_text(errors="replace").splitlines()
        files = sorted(
            line.split(",", 1)[0]
            for line in record
            if _SHARED_OBJECT.search(line.split(",", 1)[0])
            and (line.startswith("nvidia/") or line.startswith(_FRAMEWORK))
        )
        wheels.append({"name": normalized, "version": version, "files": files})
    return wheels


def _is_elf(path: Path) -> bool:
    with path.open("rb") as stream:
        return stream.read(4) == b"\x7fELF"


def tensorflow_build(site: Path) -> dict[str, object]:
    """build_info.py's OrderedDict([...]) literal, read with ast (never imported)."""
    text = (site / "tensorflow/python/platform/build_info.py").read_text()
    match = re.search(r"OrderedDict\((\[.*\])\)", text, re.DOTALL)
    return dict(ast.literal_eval(match.group(1))) if match else {}


def tensorflow_requires(site: Path) -> list[str]:
    """The nvidia-* Requires-Dist lines of TensorFlow's METADATA (its and-cuda floors)."""
    for dist_info in site.glob("tensorflow-*.dist-info"):
        lines = (dist_info / "METADATA").read_text(errors="replace").splitlines()
        prefix = "Requires-Dist:"
        return [
            line[len(prefix) :].strip()
            for line in lines
            if line.startswith(prefix) and "nvidia" in line
        ]
    return []


def snapshot(site: Path, captured_from: str) -> dict[str, object]:
    objects = sorted(
        p
        for p in [*site.glob("nvidia/**/*"), site / _FRAMEWORK]
        if p.is_file() and not p.is_symlink() and _SHARED_OBJECT.search(p.name)
    )
    return {
        "schema": SCHEMA,
        "captured_from": captured_from,
        "objects": [elf_entry(site, p) for p in objects if _is_elf(p)],
        "wheels": wheel_entries(site),
        "tensorflow_build": tensorflow_build(site),
        "tensorflow_requires": tensorflow_requires(site),
    }


RECORDS_SCHEMA = "envcheck.records/1"
_FRAMEWORKS = re.compile(r"^(?:tensorflow|torch|jax|jaxlib|jax-cuda\d+-(?:plugin|pjrt))$")


def _metadata(dist_info: Path) -> tuple[str, str, list[str]]:
    """Name, version and the Requires-Dist lines that name CUDA wheels (as the probe keeps)."""
    name = version = ""
    requires = []
    for line in (
        (dist_info / "METADATA").read_text(errors="replace").split("\n\n", 1)[0].splitlines()
    ):
        key, _, value = line.partition(": ")
        if key == "Name":
            name = value.strip()
        elif key == "Version":
            version = value.strip()
        elif key == "Requires-Dist" and any(w in value.lower() for w in ("nvidia", "cuda")):
            requires.append(value.strip())
    return re.sub(r"[-_.]+", "-", name).lower(), version, requires


def _same_bytes(path: Path, rows: list[list[str]]) -> list[int]:
    """Indexes of the RECORD rows whose size (and, where sizes are equal, hash) the file has."""
    if path.is_symlink() or not path.is_file():
        return []
    size = path.stat().st_size
    same = [i for i, row in enumerate(rows) if row[2] == str(size)]
    if len(same) < 2:
        return same
    matching = []
    for i in same:
        algorithm, _, digest = rows[i][1].partition("=")
        actual = base64.urlsafe_b64encode(hashlib.new(algorithm, path.read_bytes()).digest())
        if actual.rstrip(b"=").decode() == digest.rstrip("="):
            matching.append(i)
    return matching


def records_snapshot(site: Path, captured_from: str) -> dict[str, object]:
    distributions = []
    owners: dict[str, list[tuple[str, list[str]]]] = {}
    for dist_info in sorted(site.glob("*.dist-info")):
        name, version, requires = _metadata(dist_info)
        record = (dist_info / "RECORD").read_text(errors="replace").splitlines()
        rows = [row for row in csv.reader(record) if row and row[0].startswith("nvidia/")]
        if not (rows or _FRAMEWORKS.match(name) or name == "cuda-toolkit"):
            continue
        distributions.append({"name": name, "version": version, "requires": requires,
                              "record": rows})  # fmt: skip
        for row in rows:
            owners.setdefault(row[0], []).append((name, row))
    disk = {}
    for relative, listed in sorted(owners.items()):
        path = site / relative
        size = path.stat().st_size if path.is_file() and not path.is_symlink() else None
        if len(listed) > 1 or (listed[0][1][2] and listed[0][1][2] != str(size)):
            same = _same_bytes(path, [row for _, row in listed])
            disk[relative] = {"size": size, "same_bytes_as": [listed[i][0] for i in same]}
    # Only the rows of those files are kept: an intact file of one owner is no fact the rules
    # read (the probe does not list it), and the snapshot stays small.
    for dist in distributions:
        dist["record"] = [row for row in dist["record"] if row[0] in disk]
    return {
        "schema": RECORDS_SCHEMA,
        "captured_from": captured_from,
        "distributions": distributions,
        "disk": disk,
    }


LOADING_SCHEMA = "envcheck.loading/1"
_LOADING_TREES = ("nvidia", "torch", "jax_plugins")


def _literal_assignments(text: str, name: str) -> list[object]:
    """The literal values assigned to `name` anywhere in a Python source."""
    values = []
    for node in ast.walk(ast.parse(text)):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else ([node.target] if isinstance(node, ast.AnnAssign) else [])
        )
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            try:
                values.append(ast.literal_eval(node.value))  # type: ignore[arg-type]
            except ValueError:
                continue
    return values


def torch_facts(site: Path) -> dict[str, object]:
    """torch/version.py's cuda and torch/__init__.py's preload table, as literals."""
    init = site / "torch/__init__.py"
    if not init.is_file():
        return {}
    text = init.read_text()
    tables = _literal_assignments(text, "cuda_libs")
    table = tables[0] if tables else []
    pairs = list(table.items()) if isinstance(table, dict) else [tuple(p) for p in table]
    # The single preloads after the table's loop (libnvToolsExt) are calls with two literals.
    extra = re.findall(r'_preload_cuda_lib\(\s*"(\w+)",\s*"([^"]+)"', text)
    cuda = _literal_assignments((site / "torch/version.py").read_text(), "cuda")
    return {"cuda": cuda[0] if cuda else None, "preload": [list(p) for p in [*pairs, *extra]]}


def jax_plugin_loads(site: Path) -> dict[str, list[list[object]]]:
    """Plugin directory -> its _load("module", ["name", ...]) calls, in order."""
    found = {}
    for init in sorted(site.glob("jax_plugins/*/__init__.py")):
        calls = []
        for node in ast.walk(ast.parse(init.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "_load"
                and len(node.args) == 2
                and isinstance(node.args[0], ast.Constant)
            ):
                calls.append([node.args[0].value, ast.literal_eval(node.args[1])])
        found[init.parent.relative_to(site).as_posix()] = calls
    return found


def loading_snapshot(site: Path, captured_from: str) -> dict[str, object]:
    objects = sorted(
        p
        for tree in _LOADING_TREES
        for p in (site / tree).glob("**/*")
        if p.is_file() and not p.is_symlink() and _SHARED_OBJECT.search(p.name) and _is_elf(p)
        and (tree != "torch" or p.parent.name == "lib" or p.name.startswith("_C."))
    )  # fmt: skip
    packages = sorted(
        p.parent.relative_to(site).as_posix() for p in (site / "nvidia").glob("**/__init__.py")
    )
    return {
        "schema": LOADING_SCHEMA,
        "captured_from": captured_from,
        "objects": [elf_entry(site, p) for p in objects],
        "packages": packages,
        "wheels": [w for w in wheel_entries(site) if w["name"].startswith("nvidia-")],
        "torch": torch_facts(site),
        "jax_plugins": jax_plugin_loads(site),
    }


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[1] == "--loading":
        json.dump(loading_snapshot(Path(argv[2]), argv[3]), sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    if len(argv) == 4 and argv[1] == "--records":
        json.dump(records_snapshot(Path(argv[2]), argv[3]), sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    site = Path(argv[1])
    if not (site / _FRAMEWORK).is_file():
        print(f"error: {site} holds no {_FRAMEWORK}", file=sys.stderr)
        return 2
    json.dump(snapshot(site, argv[2]), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
