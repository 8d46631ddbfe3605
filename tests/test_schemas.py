"""data_schemas/ is generated from the records; drift is caught."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tavern.cli import main
from tavern.schemas import check_schemas, export_schemas, render_schemas

REPO = Path(__file__).resolve().parents[1]


def test_committed_schemas_match_records() -> None:
    assert check_schemas(REPO / "data_schemas") == []


def test_planted_drift_is_caught(tmp_path: Path) -> None:
    target = tmp_path / "schemas"
    shutil.copytree(REPO / "data_schemas", target)
    path = target / "session.schema.json"
    schema = json.loads(path.read_text())
    schema["properties"]["planted_field"] = {"type": "string"}
    path.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n")
    assert check_schemas(target) == [f"drifted: {path}"]
    assert main(["schemas", "check", "--dir", str(target)]) == 1


def test_missing_and_stale_files_are_caught(tmp_path: Path) -> None:
    export_schemas(tmp_path)
    (tmp_path / "character.schema.json").unlink()
    (tmp_path / "ghost.schema.json").write_text("{}")
    problems = check_schemas(tmp_path)
    assert any(p.startswith("missing:") for p in problems)
    assert any(p.startswith("stale:") for p in problems)
    assert main(["schemas", "export", "--dir", str(tmp_path)]) == 0
    assert main(["schemas", "check", "--dir", str(tmp_path)]) == 0


def test_every_schema_refuses_unknown_fields() -> None:
    for name, text in render_schemas().items():
        schema = json.loads(text)
        if schema.get("type") == "object":
            assert schema.get("additionalProperties") is False, name
