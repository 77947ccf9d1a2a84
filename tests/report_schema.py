"""The report schema (schemas/envcheck.report-1.json) as a validator for the tests: every
doctor report a test parses passes through `validated` (test_doctor_cli.report_of, the
deadline and output tests, test_report_schema's scenarios)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schemas" / "envcheck.report-1.json"


@functools.cache
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(report: Any) -> list[str]:
    """What the schema says is wrong with `report`, one line each ([] when it validates)."""
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
        for error in validator().iter_errors(report)
    ]


def validated(report: dict[str, Any]) -> dict[str, Any]:
    """`report`, after an AssertionError naming each place it breaks the schema."""
    found = problems(report)
    assert not found, "the report breaks schemas/envcheck.report-1.json:\n" + "\n".join(found)
    return report
