"""The seams between envcheck's modules (issue 23): a module is used through its public names,
and a module's name says what it holds, not where it sits.

- No module imports another module's private names (`from envcheck.x import _name`, or
  `x._name` on an imported envcheck module): what is private may change without a reader
  noticing, so a name another module needs is public.
- No `setup.py` inside the package (the name belongs to setuptools' build script) and no module
  named like its own package (`explain/explain.py`): the folder already says that much, and two
  files of one name in one traceback tell the reader nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "envcheck"


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_uses(module: str, path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported: dict[str, str] = {}  # local name -> envcheck module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("envcheck"):
                continue
            for alias in node.names:
                if node.module != module and _private(alias.name):
                    yield f"{module}:{node.lineno} imports {node.module}.{alias.name}"
                imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("envcheck"):
                    imported[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported
            and _private(node.attr)
        ):
            yield f"{module}:{node.lineno} uses {imported[node.value.id]}.{node.attr}"


def test_no_module_uses_another_modules_private_names() -> None:
    uses = [use for module, path in _modules() for use in _private_uses(module, path)]
    assert uses == []


def test_the_check_sees_a_private_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from envcheck.matrix.load import _Row, Matrix\n"
        "from envcheck import findings\n"
        "x = findings._hidden\n"
    )
    assert [use.split(" ", 1)[1] for use in _private_uses("envcheck.m", module)] == [
        "imports envcheck.matrix.load._Row",
        "uses envcheck.findings._hidden",
    ]


def test_no_setup_module_and_no_module_named_like_its_package() -> None:
    wrong = [
        str(path.relative_to(PACKAGE.parent))
        for _, path in _modules()
        if path.name == "setup.py" or path.stem == path.parent.name
    ]
    assert wrong == []
