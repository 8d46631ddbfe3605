"""Helpers of the compaction tests: a fake whose summarizer parrots its prompt, and a dump of
everything the store holds of a session (to show a refused operation changed nothing)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tavern.llm.fake import generate_answer
from tavern.llm.provider import ProviderRequest

from .kit import director_answer

CANARY_WHISPER = "ZEBRAQUARTZ"
CANARY_THOUGHT = "MOLTENHARP"


_PLACES = ["shutters", "cellar door", "vines", "courtyard", "chapel", "well", "stable", "loft"]
_SOUNDS = ["Rain drums on", "Wind worries", "A dog barks by", "Frost creeps over", "Fog hides"]
_WORDS = ["Not tonight.", "Ask the steward.", "Keep walking.", "I saw nothing.", "Later, then."]


def answers(request: ProviderRequest) -> Any:
    """Answers fixed by the turn number for the story's roles (so two sessions given the same
    inputs commit the same records whatever their prompts hold, and no filter cuts a repeat
    that one of them still sees); the summarizer parrots its own prompt, so
    anything that reached its prompt may surface in the summary."""
    if request.agent == "director":
        return director_answer([])
    n = request.turn_number
    if request.agent == "prose":  # a sentence of its own each turn: no repeat to cut
        return {"narration": f"{_SOUNDS[n % 5]} the {_PLACES[n % 8]}."}
    if request.agent == "summarizer":
        assert request.schema is not None
        return generate_answer(request.schema, request, "parrot")
    if request.agent.startswith("character"):
        return {"speech": _WORDS[n % 5], "thought": None, "action_intent": None}
    return {"outcome": "Nothing comes of it."}


def dump(data_dir: Path, session_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table that holds part of the session, in a stable order (the
    session row without its `updated_at`)."""
    db = sqlite3.connect(data_dir / "sessions.sqlite3")
    try:
        out = {
            "sessions": db.execute(
                "SELECT id, schema_version, revision, turn_number, state, memory_at"
                " FROM sessions WHERE id = ?",
                (session_id,),
            ).fetchall()
        }
        for table, order in (
            ("history", "seq"),
            ("checkpoints", "turn_number"),
            ("memory_lines", "owner, position"),
            ("alternatives", "turn_number, variant"),
            ("compactions", "position"),
        ):
            out[table] = db.execute(
                f"SELECT * FROM {table} WHERE session_id = ? ORDER BY {order}", (session_id,)
            ).fetchall()
        return out
    finally:
        db.close()
