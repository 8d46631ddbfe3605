"""Case tables of the filter rules: each row an input, the text expected, the language, the
source (a live incident, or the test that first held it) and the context it needs.

A row's `context` is a compact JSON form of `FilterContext`: `cast` (slot -> name,
appearance, description, personality, secrets), `title`, `stage`, `staging`, `facts`,
`public`, `directives`, `history` and `beat` (records as the journal writes them: `kind`
and fields), `capped`, `speaker` (a slot of `cast`), `turn`. A reply row's `input` and
`expected` are objects of its fields; a narration row's are strings. A row carried over from
a test of the code before the filter layer whose expected text changed on purpose says so in
`note` (with the text expected before).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tavern.agents import character
from tavern.filters import FilterContext, Speaker
from tavern.records import HISTORY_RECORD_ADAPTER, Body, Character, Mind

CASES = Path(__file__).parent / "cases"


def load(rule: str) -> list[dict[str, Any]]:
    """The rows of `rule`'s table."""
    path = CASES / f"{rule}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def member(slot: str, spec: dict[str, Any]) -> Character:
    """A cast member from a row's compact form."""
    return Character(
        id=spec.get("id", slot.lower()),
        body=Body(
            display_name=spec["name"],
            appearance=spec.get("appearance", ""),
            description_ref=spec.get("description", f"the person called {spec['name']}"),
        ),
        mind=Mind(
            personality=spec.get("personality", ""),
            secrets=spec.get("secrets", []),
        ),
    )


def context(row: dict[str, Any]) -> FilterContext:
    """The `FilterContext` of a row."""
    spec = row.get("context", {})
    cast = {slot: member(slot, m) for slot, m in spec.get("cast", {}).items()}
    speaker = None
    if "speaker" in spec:
        m = cast[spec["speaker"]]
        speaker = Speaker(
            slot=spec["speaker"],
            name=m.body.display_name,
            appearance=m.body.appearance,
            personality=m.mind.personality,
            secrets=tuple(m.mind.secrets),
        )
    return FilterContext(
        language=row.get("language", "en"),
        turn=spec.get("turn", 1),
        cast=cast,
        title=spec.get("title", ""),
        stage=tuple(spec.get("stage", ())),
        staging=tuple(spec.get("staging", ())),
        facts=tuple(spec.get("facts", ())),
        public=tuple(spec.get("public", ())),
        directives=tuple(spec.get("directives", ())),
        history=tuple(HISTORY_RECORD_ADAPTER.validate_python(r) for r in spec.get("history", ())),
        beat=tuple(HISTORY_RECORD_ADAPTER.validate_python(r) for r in spec.get("beat", ())),
        capped=frozenset(("narration",)) if spec.get("capped") else frozenset(),
        speaker=speaker,
        prompt_texts=(character.INSTRUCTIONS.replace("{name}", ""), *character.PROMPT_LINES),
        sheet_labels=character.SHEET_LABELS,
    )


def texts(value: str | dict[str, str]) -> dict[str, str]:
    """A row's `input` or `expected` as the texts of an answer."""
    if isinstance(value, str):
        return {"narration": value} if value else {}
    return {k: v for k, v in value.items() if v}
