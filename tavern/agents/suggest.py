"""Suggestions: three candidate moves for a character, asked generically.

The prompt is the Character prompt with a different final request, so it is built from the
same observation and reveals nothing about who will use the answer. Nothing is persisted.
"""

from __future__ import annotations

from typing import Any

from tavern.agents import character
from tavern.filters.stage_direction import split_directions
from tavern.physics.observation import Observation
from tavern.records import Character, ChatMessage
from tavern.records.views import Suggestion
from tavern.text import without_foreign_script

REQUEST = """Propose three different things you could do next, each as a short line of speech
and/or a physical attempt (no outcomes). Make them distinct: one cautious, one bold, one
unexpected. Answer in JSON: {"suggestions": [{"speech": ..., "action": ...}, x3]}."""

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["suggestions"],
    "properties": {
        "suggestions": {
            "type": "array",
            "minItems": 3,
            "maxItems": 3,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["speech", "action"],
                "properties": {
                    "speech": {"type": ["string", "null"], "maxLength": 600},
                    "action": {"type": ["string", "null"], "maxLength": 300},
                },
            },
        }
    },
}
"""JSON Schema of the answer."""


def build_messages(
    observation: Observation,
    sheet: Character,
    turn_number: int,
    memory_budget_tokens: int = character.MEMORY_BUDGET_TOKENS,
) -> list[ChatMessage]:
    """The Character prompt of `observation`, with the suggestion request as its last line."""
    system, user = character.build_messages(
        observation, sheet, turn_number, memory_budget_tokens=memory_budget_tokens
    )
    head, _, _ = user.content.rpartition("## Your turn")
    return [system, user.model_copy(update={"content": f"{head}## Your turn\n{REQUEST}"})]


def parse(data: dict[str, Any]) -> list[Suggestion]:
    """Three suggestions; empty fields become None, stage directions move to the action,
    letters of another script go (`text.without_foreign_script`; nothing is committed, and
    the journal's call line keeps the answer as written)."""
    out = []
    for item in data["suggestions"][:3]:
        speech, moved = split_directions(_text(item.get("speech")) or "")
        action = "; ".join(x for x in (_text(item.get("action")), moved) if x) or None
        out.append(Suggestion(speech=speech or None, action=action))
    return out


def _text(value: Any) -> str | None:
    text = without_foreign_script(str(value)).strip() if value is not None else ""
    return text or None
