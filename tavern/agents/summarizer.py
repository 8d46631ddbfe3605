"""The world summarizer: folds old public history into the story summary (compaction).

A compaction (`tavern.runner.compaction`) replaces the history older than its retention
window with one public summary, which the Director then reads as "Story so far". The
summarizer is the one model call that writes it, so what it is shown bounds what any later
prompt can inherit from it:

- public records only: speech aloud, attempts and events whose audience is `public` or
  `zone` (perceived by whoever was there), and the kernel's markers; never a thought, a
  whisper (nor the mere noticing of one), the reader's narration, or any ledger text;
- display names only: no slot id, no audience list, no author;
- claims kept as claims: a spoken line is given as who said it, and the instructions ask
  to keep it so ("Teodor said the seal was forged", never "the seal was forged").

It answers `{"summary": "..."}` under `OUTPUT_SCHEMA`, whose length bound keeps the summary
(and the Director prompt that carries it) bounded however long the story runs.
"""

from __future__ import annotations

from typing import Any

from tavern.agents.blocks import PromptBlock, Stability, assemble
from tavern.agents.render import LOG
from tavern.records import (
    ActionRecord,
    ChatMessage,
    EventRecord,
    HistoryRecord,
    SessionState,
    SpeechRecord,
    SystemRecord,
)

SUMMARY_MAX_CHARS = 1600
"""Longest summary the schema admits: about 400 tokens, a tenth of a 4,096-token context."""

INSTRUCTIONS = """You keep the record of a long story. Rewrite the story so far as one short
summary that folds in the earlier events below, so the story can go on without them.
Keep who did what, where people went, what was found, given, promised or lost, and every
name, number and object that matters. What someone said is only a claim: keep it as a
claim with its speaker ("Teodor said the seal was forged"), never as a fact ("the seal was
forged"). Events and outcomes are what happened. Do not invent anything, do not guess what
anyone thinks, and do not write dialogue.

Answer in JSON: {"summary": "..."}."""

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["summary"],
    "properties": {"summary": {"type": "string", "minLength": 1, "maxLength": SUMMARY_MAX_CHARS}},
}
"""JSON Schema of the answer: one bounded summary."""

PUBLIC_ORIGINS = frozenset({"public", "zone"})
"""Audience origins a summary may draw on: perceived by whoever was there."""


def is_public(record: HistoryRecord) -> bool:
    """Whether a record may reach the summarizer: speech aloud, attempts, events and kernel
    markers of a public or zone audience; never thoughts, whispers or narration.

    >>> from tavern.records import Audience, ThoughtRecord
    >>> seen = Audience(origin="public", perceivers=["C1", "C2"])
    >>> is_public(SpeechRecord(seq=1, turn_number=1, speaker="C1", author="character",
    ...     audience=seen, text="The seal is forged."))
    True
    >>> is_public(ThoughtRecord(seq=2, turn_number=1, speaker="C1", author="character",
    ...     audience=Audience(origin="private", perceivers=["C1"]), text="4471"))
    False
    """
    if not isinstance(record, SpeechRecord | ActionRecord | EventRecord | SystemRecord):
        return False
    return record.audience.origin in PUBLIC_ORIGINS


def name_of(state: SessionState, slot: str) -> str:
    """A speaker's display name; `Narrator`/`World` and unknown slots read as "the world"."""
    character = state.cast.get(slot)
    return character.body.display_name if character else "the world"


def render_line(state: SessionState, record: HistoryRecord) -> str:
    """One public record as the summarizer reads it: display names, claims as claims.

    A free-text line behind `render.LOG`, like every record line: a record whose text opens
    with a name ("Rosa Aguiar tried: Tomé Valadares, abra") is then no character block to the
    prompt contract, whose structural rules compare those.

    >>> from datetime import UTC, datetime
    >>> from tavern.records import Audience, Body, Character, Mind, Scene
    >>> teo = Character(id="teo", body=Body(display_name="Teodor", description_ref="a clerk"),
    ...                 mind=Mind())
    >>> st = SessionState(id="s01", scenario_id="t", title="t", world="w",
    ...      created_at=datetime(2026, 1, 1, tzinfo=UTC), cast={"C1": teo},
    ...      controlled_id="C1", scene=Scene(location="inn"))
    >>> render_line(st, SpeechRecord(seq=3, turn_number=1, speaker="C1", author="character",
    ...     audience=Audience(origin="public"), text="The seal was forged."))
    '· (turn 1) Teodor said: "The seal was forged."'
    """
    who = name_of(state, record.speaker)
    head = f"{LOG}(turn {record.turn_number})"
    if isinstance(record, SpeechRecord):
        return f'{head} {who} said: "{record.text}"'
    if isinstance(record, ActionRecord):
        return f"{head} {who} tried: {record.text}"
    if isinstance(record, EventRecord):
        return f"{head} happened: {record.text}"
    if isinstance(record, SystemRecord):
        return f"{head} {record.marker.replace('_', ' ')}: {record.text}".rstrip(": ")
    return ""


FOLD_CHARS = 6000
"""Most characters of event lines one summarizer call folds in (about 1,500 tokens, room in
a 4,096-token context for the instructions, the summary so far and the answer)."""


def chunks(
    state: SessionState, evicted: list[HistoryRecord], max_chars: int = FOLD_CHARS
) -> list[list[HistoryRecord]]:
    """The public records of `evicted` in consecutive runs whose lines fit `max_chars` each
    (a longer single line is a run alone): one summarizer call per run, each folding into
    the summary the one before wrote. Never empty: no public record gives one empty run.

    """
    runs: list[list[HistoryRecord]] = [[]]
    size = 0
    for record in evicted:
        if not is_public(record):
            continue
        length = len(render_line(state, record)) + 1
        if runs[-1] and size + length > max_chars:
            runs.append([])
            size = 0
        runs[-1].append(record)
        size += length
    return runs


def build_messages(state: SessionState, evicted: list[HistoryRecord]) -> list[ChatMessage]:
    """Build the summarizer prompt.

    Args:
        state: The session: its world, its cast's display names and its story summary so
            far (never a mind, a ledger or which character is whose).
        evicted: The records the compaction takes out of the history; only the public ones
            (`is_public`) are shown.
    """
    names = ", ".join(c.body.display_name for c in state.cast.values())
    lines = [line for r in evicted if is_public(r) and (line := render_line(state, r))]
    return assemble(
        [
            PromptBlock("Your task", INSTRUCTIONS, Stability.IDENTITY),
            PromptBlock("World", state.world, Stability.IDENTITY),
            PromptBlock("People", names, Stability.IDENTITY),
            PromptBlock("Story so far", state.story_summary, Stability.SLOW),
            PromptBlock("Earlier events to fold in", "\n".join(lines), Stability.VOLATILE),
        ]
    )


def parse(data: dict[str, Any]) -> str:
    """The summary of a schema-valid answer, trimmed."""
    return str(data["summary"]).strip()
