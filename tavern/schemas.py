"""Generate `data_schemas/` from the records, and detect drift.

The registry below is the list of shapes that get a committed JSON Schema. Other packages
(the harness) add theirs through the `tavern.schemas` entry-point group, so the kernel never
imports them by name.
"""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

from tavern import records
from tavern.records.config import AppConfig

SchemaSource = type[BaseModel] | TypeAdapter[Any]

_REGISTRY: dict[str, SchemaSource] = {
    "character": records.Character,
    "scenario": records.Scenario,
    "session": records.SessionState,
    "history_record": records.HISTORY_RECORD_ADAPTER,
    "journal_line": records.JOURNAL_LINE_ADAPTER,
    "turn_input": records.TurnInput,
    "director_decision": records.DirectorDecision,
    "character_reply": records.CharacterReply,
    "app_config": AppConfig,
    "compaction_checkpoint": records.CompactionCheckpoint,
}


def register_schema(name: str, source: SchemaSource) -> None:
    """Add a record to the exported set (used by the harness for its own records)."""
    _REGISTRY[name] = source


def render_schemas() -> dict[str, str]:
    """Return file name -> JSON text for every registered record, deterministically."""
    _load_extensions()
    out: dict[str, str] = {}
    for name, source in sorted(_REGISTRY.items()):
        if isinstance(source, TypeAdapter):
            schema = source.json_schema()
        else:
            schema = source.model_json_schema()
        schema = {"$id": f"tavern/{name}.schema.json", **schema}
        out[f"{name}.schema.json"] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return out


def export_schemas(target: Path) -> list[Path]:
    """Write every schema under `target`, removing stale schema files."""
    target.mkdir(parents=True, exist_ok=True)
    rendered = render_schemas()
    for stale in target.glob("*.schema.json"):
        if stale.name not in rendered:
            stale.unlink()
    written = []
    for file_name, text in rendered.items():
        path = target / file_name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def check_schemas(target: Path) -> list[str]:
    """Return a list of drift problems between the records and `target` (empty: in sync)."""
    rendered = render_schemas()
    problems = []
    for file_name, text in rendered.items():
        path = target / file_name
        if not path.exists():
            problems.append(f"missing: {path}")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"drifted: {path}")
    for path in sorted(target.glob("*.schema.json")):
        if path.name not in rendered:
            problems.append(f"stale: {path}")
    return problems


def _load_extensions() -> None:
    """Load `tavern.schemas` entry points: each names a dict of schema name -> record."""
    for entry in entry_points(group="tavern.schemas"):
        extra = entry.load()
        for name, source in extra.items():
            register_schema(name, source)
