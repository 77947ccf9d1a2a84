"""The one registry of finding codes (envcheck/finding_codes.py, issue 23) against everything
that emits a code and the document generated from it.

Every code a doctor rule (a `Finding(...)` with a literal code, anywhere in the package), a log
signature row (its code and its `code_when` codes) or an error-code row can emit is in the
registry, at no more than the registry's severity; every registered code is emitted somewhere;
docs/finding-codes.md is what scripts/update_finding_codes.py writes.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from envcheck.finding_codes import CODE_TABLE
from envcheck.findings import CODES, Severity
from envcheck.matrix.load import bundled_matrix_dir
from envcheck.matrix.model import load_matrix

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "envcheck"
REGISTRY = {entry.code: entry for entry in CODE_TABLE}
MATRIX = load_matrix(bundled_matrix_dir())
RANK = {s.value: s.rank for s in Severity}


def _script_render() -> str:
    spec = importlib.util.spec_from_file_location(
        "update_finding_codes", ROOT / "scripts" / "update_finding_codes.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text: str = module.render()
    return text


def _finding_calls() -> list[tuple[str, str | None, str]]:
    """(code, severity name or None, where) of each `Finding("code", Severity.X, ...)`."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name != "Finding" or not node.args or not isinstance(node.args[0], ast.Constant):
                continue
            level = node.args[1] if len(node.args) > 1 else None
            severity = level.attr.lower() if isinstance(level, ast.Attribute) else None
            found.append((str(node.args[0].value), severity, f"{path.name}:{node.lineno}"))
    return found


def _matrix_codes() -> list[tuple[str, str | None, str]]:
    """(code, severity or None, row) of each code a matrix row names."""
    found: list[tuple[str, str | None, str]] = []
    for signature in MATRIX.signatures:
        found.append((signature.code, signature.severity.value, signature.id))
        found.extend((code, None, signature.id) for _, _, code in signature.code_when)
    for row in MATRIX.error_codes.rows:
        codes = (row.code, row.in_container, row.in_wsl)
        found.extend((code, None, row.name) for code in codes if code)
    return found


def test_the_registry_is_well_formed() -> None:
    assert len(REGISTRY) == len(CODE_TABLE), "a code is registered twice"
    assert frozenset(REGISTRY) == CODES
    for entry in CODE_TABLE:
        assert entry.severity in RANK, entry.code
        assert entry.meaning.endswith(".") and "\n" not in entry.meaning, entry.code


def test_the_document_is_generated_from_the_registry() -> None:
    written = (ROOT / "docs" / "finding-codes.md").read_text(encoding="utf-8")
    assert written == _script_render(), "run python scripts/update_finding_codes.py"
    for entry in CODE_TABLE:
        assert f"| `{entry.code}` | {entry.severity} | {entry.meaning} |" in written


def test_every_emitted_code_is_registered_at_no_more_than_its_severity() -> None:
    emitted = _finding_calls() + _matrix_codes()
    assert len(emitted) > 100
    for code, severity, where in emitted:
        assert code in REGISTRY, f"{where}: {code!r} is not in envcheck/finding_codes.py"
        if severity is not None:
            registered = REGISTRY[code].severity
            assert RANK[severity] >= RANK[registered], f"{where}: {code} at {severity}"


def test_every_registered_code_is_emitted_somewhere() -> None:
    # A rule may choose its code in a variable: a literal anywhere in the package, outside the
    # registry and the finding records, counts as emitting it.
    literals = {
        node.value
        for path in PACKAGE.rglob("*.py")
        if path.name not in ("finding_codes.py", "findings.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    emitted = literals | {code for code, _, _ in _matrix_codes()}
    assert set(REGISTRY) - emitted == set()
