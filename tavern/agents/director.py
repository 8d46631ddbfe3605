"""The Director: the blind world authority. Typed decisions only, never prose or dialogue.

It sees the public scene with its zone graph, every present character's mind and
appearance, the story summary, the active history window and every private thought (marked
as interiority nobody else perceives). It never learns which character a human plays: the
prompt is a function of the session's public state and history only, and the controlled id
is not among its inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from tavern.agents.blocks import PromptBlock, Stability, assemble, start_in_sums
from tavern.agents.render import roster_line, scene_block, zone_graph_block
from tavern.physics.prompt_labels import INTERIORITY, THOUGHT_LABEL, line_head
from tavern.records import (
    NARRATOR,
    ActionRecord,
    ChatMessage,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    SessionState,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
)

HISTORY_BUDGET_TOKENS = 6000
"""Default token budget of the active history window (large-context models; the runner
sizes it down for small local contexts, see `KernelLimits.for_context`)."""


def window_stride(budget_tokens: int) -> int:
    """Seq stride of the window's first record: about half a window of typical lines.

    The start then jumps every several turns instead of sliding every turn, so consecutive
    prompts share the window as a prefix, and a jump never leaves less than half a window.
    """
    return max(8, budget_tokens // 80)


INSTRUCTIONS = f"""You are the Director of an interactive story: the authority on what physically
happens in the world. Every character is an independent person; you decide only the world.

Answer with typed decisions in JSON, never with prose and never with dialogue: words are
spoken only by the characters themselves. You may refer to something a character said by the
number of its line (utterance_ref).

- blocking: a short spatial draft of this beat (who stands where, what moves). Nobody reads it.
- events: what happens this beat. Each has a kind (action_outcome, world_event, arrival,
  departure, sensory_cue, utterance), neutral text, the actor id if any, and witness_ids: the
  ids of the characters who can perceive it. Adjudicate every unresolved attempt with an
  action_outcome. Attempts may fail.
- next_speakers: 0 to 3 character ids who react next, in order, or ["{NARRATOR}"] when
  nobody needs to.
- scene: facts to add or remove; new_location only when the whole scene moves.
- mood_updates: character id -> one mood word.
- zone_moves, link_updates: movement between zones (you may declare a new zone with a label)
  and opening or sealing the sound or sight of a link.
- time_skip_ticks: compress time when the moment is exhausted; never in the middle of an
  action.
- nothing_happens: true when nothing material happens this beat.

Lines marked {THOUGHT_LABEL} are interiority: only their owner knows them. Use them for
timing, pressure and dramatic intent, never as public fact; nobody else can perceive them."""

MAX_LISTED = 16
"""Most witnesses an event may list: a bound in the schema makes the sampler's grammar close
a list a small model would loop in until its answer is cut off."""
MAX_ZONE_MOVES = 8
"""Most zone moves a beat may make (a whole small party changing rooms)."""
MAX_LINK_UPDATES = 4
"""A beat opens or shuts a door or two (a small model otherwise pairs every character with
every other as a "link" until its answer is cut off)."""
REQUIRED_FIELDS = ("events", "next_speakers", "time_skip_ticks", "nothing_happens")
"""What every beat decides. The rest (blocking, scene, moods, zone moves, link updates) is
optional: a field left out changes nothing. A small model writes every required field out,
mostly as noise; twelve replayed Director prompts took 0.68 of the tokens and time with
these four required, all valid both ways."""
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": list(REQUIRED_FIELDS),
    "properties": {
        "blocking": {"type": "string", "maxLength": 200},
        "events": {
            "type": "array",
            "maxItems": 4,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["kind", "text", "actor_id", "witness_ids", "utterance_ref"],
                "properties": {
                    "kind": {
                        "enum": [
                            "action_outcome",
                            "world_event",
                            "arrival",
                            "departure",
                            "sensory_cue",
                            "utterance",
                        ]
                    },
                    "text": {"type": "string", "maxLength": 200},
                    "actor_id": {"type": ["string", "null"], "maxLength": 48},
                    "witness_ids": {
                        "type": "array",
                        "maxItems": MAX_LISTED,
                        "items": {"type": "string", "maxLength": 48},
                    },
                    "utterance_ref": {"type": ["integer", "null"]},
                },
            },
        },
        "next_speakers": {
            "type": "array",
            "maxItems": 3,
            "items": {"type": "string", "maxLength": 48},
        },
        "scene": {
            "type": "object",
            "additionalProperties": False,
            "required": ["add_facts", "remove_facts", "new_location"],
            "properties": {
                "add_facts": {
                    "type": "array",
                    "maxItems": 3,
                    "items": {"type": "string", "maxLength": 160},
                },
                "remove_facts": {
                    "type": "array",
                    "maxItems": 3,
                    "items": {"type": "string", "maxLength": 160},
                },
                "new_location": {"type": ["string", "null"], "maxLength": 120},
            },
        },
        "mood_updates": {
            "type": "object",
            "additionalProperties": {"type": "string", "maxLength": 24},
        },
        "zone_moves": {
            "type": "array",
            "maxItems": MAX_ZONE_MOVES,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["character_id", "to_zone", "new_zone_label"],
                "properties": {
                    "character_id": {"type": "string", "maxLength": 48},
                    "to_zone": {"type": "string", "maxLength": 48},
                    "new_zone_label": {"type": ["string", "null"], "maxLength": 80},
                },
            },
        },
        "link_updates": {
            "type": "array",
            "maxItems": MAX_LINK_UPDATES,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["source", "target", "sound", "sight"],
                "properties": {
                    "source": {"type": "string", "maxLength": 48},
                    "target": {"type": "string", "maxLength": 48},
                    "sound": {"enum": ["open", "sealed", None]},
                    "sight": {"enum": ["open", "sealed", None]},
                },
            },
        },
        "time_skip_ticks": {"type": "integer", "minimum": 0},
        "nothing_happens": {"type": "boolean"},
    },
}
"""JSON Schema of the Director's answer; `parse` turns it into a `DirectorDecision`."""


@dataclass(frozen=True)
class DirectorBeat:
    """What is asked of the Director this beat, beyond the session and its history."""

    direction: str | None = None
    """A direction for the beat (outside the fiction's records)."""
    let_world_move: bool = False
    """Nobody takes a deliberate step: the world should move, time may be compressed."""
    staged_events: list[str] = field(default_factory=list)
    """Scheduled world events the clock staged for this beat."""
    max_time_skip: int = 0
    """Upper bound the code will accept for `time_skip_ticks`."""


def build_messages(
    state: SessionState,
    history: list[HistoryRecord],
    beat: DirectorBeat,
    *,
    budget_tokens: int = HISTORY_BUDGET_TOKENS,
    context: BeatContext | None = None,
) -> list[ChatMessage]:
    """Build the Director prompt.

    Args:
        state: The session (its controlled id is never read).
        history: A tail of the history, oldest first, including this turn's records so far.
        beat: The request for this beat.
        budget_tokens: Token budget of the history window.
        context: The beat's `BeatContext` of `state` and `history`, when the caller keeps one.

    Returns:
        System and user messages.
    """
    now = PromptBlock("Now", _now_block(state, beat), Stability.VOLATILE)
    blocks = (context or BeatContext(state, history))(budget_tokens)
    return assemble([*blocks, now])


class BeatContext:
    """`context_blocks` of one state and history, built once per budget: the beat's Director
    call and its follow-up calls (`tavern.agents.outcome`) show the same blocks."""

    def __init__(self, state: SessionState, history: list[HistoryRecord]) -> None:
        self.state = state
        self.history = history
        self._built: dict[int, tuple[PromptBlock, ...]] = {}

    def __call__(self, budget_tokens: int) -> tuple[PromptBlock, ...]:
        """`context_blocks(state, history, budget_tokens)` (blocks are frozen: shared)."""
        built = self._built.get(budget_tokens)
        if built is None:
            blocks = context_blocks(self.state, self.history, budget_tokens)
            built = self._built[budget_tokens] = tuple(blocks)
        return built


def context_blocks(
    state: SessionState, history: list[HistoryRecord], budget_tokens: int
) -> list[PromptBlock]:
    """Every block of the Director prompt before its volatile "Now": a follow-up call that
    keeps them (`tavern.agents.outcome`) shares the whole prefix the provider cached."""
    cast_lines = [roster_line(state, slot, with_mind=True) for slot in state.cast]
    world = state.world + "".join(f"\n- {d}" for d in state.tone_directives)
    return [
        PromptBlock("Your role", INSTRUCTIONS, Stability.IDENTITY),
        PromptBlock("World", world, Stability.IDENTITY),
        PromptBlock(
            "Characters (id, name, appearance, mind)", "\n".join(cast_lines), Stability.IDENTITY
        ),
        PromptBlock("Story so far", state.story_summary, Stability.SLOW),
        PromptBlock("Stage", _stage(state), Stability.SLOW),
        PromptBlock(
            "Recent history", history_window(state, history, budget_tokens), Stability.SLOW
        ),
    ]


def history_window(state: SessionState, history: list[HistoryRecord], budget_tokens: int) -> str:
    """Render the history tail that fits the token budget, start snapped to a seq stride.

    Every record of the turn being played (the last record's, when it is past the state's
    turn) is shown whatever the budget: the Director adjudicates this turn, and a prompt
    crowded by a long stage once left it none of the lines its own turn's input had added,
    whispers and thoughts included.

    Example:
        >>> from datetime import UTC, datetime
        >>> from tavern.records import Audience, Scene
        >>> st = SessionState(id="s01", scenario_id="t", title="t", world="w",
        ...      created_at=datetime(2026, 1, 1, tzinfo=UTC), cast={}, controlled_id="C1",
        ...      scene=Scene(location="inn"), turn_number=4)
        >>> now = ThoughtRecord(seq=9, turn_number=5, speaker="C1", author="character",
        ...      text="the 4471 code", audience=Audience(origin="private", perceivers=["C1"]))
        >>> history_window(st, [now], budget_tokens=0)
        '[#9 t0] PRIVATE THOUGHT of C1 (interiority, nobody else perceives it) | the 4471 code'
    """
    shown = [(r, line) for r in history if (line := render_record(state, r))]
    lines = [line for _, line in shown]
    # Seq 0 is the session's opening marker: without it, the caller passed a tail.
    truncated = bool(history) and history[0].seq > 0
    start = start_in_sums(
        [r.seq for r, _ in shown],
        list(accumulate(map(len, lines), initial=0)),
        budget_tokens * 4,
        window_stride(budget_tokens),
        truncated=truncated,
        each=1,  # the newline joining the lines
    )
    played = history[-1].turn_number if history else 0
    if played > state.turn_number:  # the turn being played: its records are all shown
        first = (i for i, (r, _) in enumerate(shown) if r.turn_number == played)
        start = min(start, next(first, start))
    return "\n".join(lines[start:])


def render_record(state: SessionState, record: HistoryRecord) -> str:
    """One history line as the Director sees it (true names plus ids); '' for narration.

    Narration is derived from events the Director already decided, so it is left out of
    its window to save tokens. The record's author is never rendered.
    """
    # Every line opens with its seq and kind, never with a name, and keeps the record's
    # text behind a `|`: a transcript line must not read as a character card.
    who = named(state, record.speaker)
    head = line_head(record.seq, record.tick)
    if isinstance(record, SpeechRecord):
        if record.audience.origin == "whisper":
            to = ", ".join(
                named(state, s) for s in record.audience.perceivers if s != record.speaker
            )
            return f'{head} whisper by {who} to {to} | "{record.text}"'
        return f'{head} speech by {who} | "{record.text}"'
    if isinstance(record, ThoughtRecord):
        return f"{head} {THOUGHT_LABEL} of {who} {INTERIORITY} | " + record.text
    if isinstance(record, ActionRecord):
        return f"{head} attempt by {who} | {record.text}"
    if isinstance(record, EventRecord):
        seen = ", ".join(record.audience.perceivers) or "nobody"
        ref = f", line #{record.utterance_ref}" if record.utterance_ref is not None else ""
        return f"{head} event {record.event_kind}{ref} (perceived by {seen}) | {record.text}"
    if isinstance(record, SystemRecord):
        return f"{head} {record.marker} | {record.text}"
    assert isinstance(record, NarrationRecord)
    return ""


def named(state: SessionState, slot: str) -> str:
    """A character as the Director knows it: true name and slot id."""
    return f"{true_name(state, slot)} ({slot})" if slot in state.cast else slot


def true_name(state: SessionState, slot: str) -> str:
    """The character's display name; the slot id itself when it names nobody of the cast."""
    character = state.cast.get(slot)
    return character.body.display_name if character else slot


def _stage(state: SessionState) -> str:
    """Location, description and zone graph: they change only when the stage does."""
    scene = state.scene
    head = f"Location: {scene.location}" + (f"\n{scene.description}" if scene.description else "")
    return f"{head}\n{zone_graph_block(scene)}"


def now_lines(state: SessionState) -> list[str]:
    """The stage now, the moods and the story time: how every "Now" block opens."""
    lines = [scene_block(state.scene, lambda s: named(state, s), with_place=False)]
    moods = [f"{s} {state.moods[s]}" for s in state.scene.present if s in state.moods]
    lines.append("Moods: " + ("; ".join(moods) or "(none)"))
    lines.append(f"Story time: tick {state.clock.tick}")
    return lines


def _now_block(state: SessionState, beat: DirectorBeat) -> str:
    lines = now_lines(state)
    lines.extend(f"Scheduled event arriving now: {e}" for e in beat.staged_events)
    if beat.let_world_move:
        lines.append(
            "Nobody takes a deliberate step this beat. Let the world move; you may compress "
            f"time (time_skip_ticks up to {beat.max_time_skip})."
        )
    if beat.direction:
        lines.append(f"Direction for this beat: {beat.direction}")
    lines.append("Decide this beat.")
    return "\n".join(lines)


def parse(data: dict[str, Any]) -> DirectorDecision:
    """Turn a schema-valid answer into a `DirectorDecision` (clamps come afterwards)."""
    return DirectorDecision.model_validate(data)
