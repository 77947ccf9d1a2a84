"""The layers of envcheck point one way: every import goes to a lower layer (docs/architecture.md).

The graph is read from the source (every `from envcheck... import`, also those inside functions,
which are imports all the same), per top-level package or module of envcheck. A new top-level
name must be given a layer here; an import that points up or sideways fails with its file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "envcheck"

# Lowest first. Within a layer, names must not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("record",),
    ("__init__", "errors", "finding_codes"),
    (
        "versions",
        "digests",
        "platforms",
        "findings",
        "atomic_file",
        "bounded_input",
        "framework_names",
        "distribution_names",
        "urls",
    ),
    ("matrix", "index"),
    ("probe", "explain"),
    ("recommend",),
    ("diagnose",),
    ("acquire", "fleet"),
    ("report",),
    ("cli",),
    ("__main__",),
)
LAYER = {name: number for number, names in enumerate(LAYERS) for name in names}


def owner(path: Path) -> str:
    """The top-level name a file belongs to: probe/driver.py -> probe, machine.py -> machine."""
    first = path.relative_to(PACKAGE).parts[0]
    return first.removesuffix(".py")


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level name) of every envcheck import in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] != "envcheck" or node.level:
                continue
            if len(parts) > 1:
                found.append((node.lineno, parts[1]))
            else:  # from envcheck import x
                found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "envcheck" and len(parts) > 1:
                    found.append((node.lineno, parts[1]))
    return [(line, "__init__" if name == "__version__" else name) for line, name in found]


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "children" not in p.parts)


def test_every_top_level_name_has_a_layer() -> None:
    names = {owner(p) for p in SOURCES}
    assert names <= set(LAYER), sorted(names - set(LAYER))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path) -> None:
    source = owner(path)
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line} imports envcheck.{target}"
        for line, target in imports(path)
        if target != source and LAYER.get(target, len(LAYERS)) >= LAYER[source]
    ]
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_an_upward_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "x.py"
    module.write_text(
        "import envcheck.versions\n"
        "def f():\n    from envcheck.diagnose.doctor import diagnose\n"
        "from envcheck import __version__, findings\n"
    )
    assert sorted(imports(module)) == [
        (1, "versions"),
        (3, "diagnose"),
        (4, "__init__"),
        (4, "findings"),
    ]
    assert LAYER["diagnose"] > LAYER["probe"]  # so a probe module importing it would fail


def test_every_package_has_its_row_in_the_architecture_table() -> None:
    # docs/architecture.md's "Who owns what" is the map a maintainer reads: a package (a folder
    # of envcheck with modules, such as acquire/) that is not in it is one nobody can find.
    table = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    packages = sorted(
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists() and p.name in LAYER
    )
    assert "acquire" in packages
    assert [name for name in packages if f"`{name}/`" not in table] == []
