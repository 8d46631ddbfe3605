"""The blind prose renderer: reader-facing narration of confirmed public facts only.

It receives the public scene and zone staging, the cast's appearance (no minds), a reader
transcript in which every spoken line is a content-free marker, and the clamped events of
this beat. It never receives minds, thoughts, ledgers or the words anyone spoke, so it cannot
leak them: it cannot quote anyone's real words. What it invents in their place, and every
other repair of its text, is the filter layer's (`tavern.filters`, run by the runner).

Events are written by the Director, which did read the words. As a second, code-level
boundary every salient token that occurs in a spoken line (or a thought) of the window but
nowhere in the public corpus (location, zones, cast appearance) is masked from the whole
user message.
"""

from __future__ import annotations

import re
from typing import Any

from tavern.agents.blocks import PromptBlock, Stability, assemble, snapped_start
from tavern.agents.render import (
    log_lines,
    scene_block,
    staging,
    tokens_in,
    zone_graph_block,
)
from tavern.filters.loop import repeats_a_sentence
from tavern.physics.identity import UNKNOWN_REF, display_names, replace_slot_ids
from tavern.physics.redaction import Tokenizer, redact, salient_tokens
from tavern.records import (
    ActionRecord,
    ChatMessage,
    EventRecord,
    HistoryRecord,
    NarrationRecord,
    SessionState,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
)
from tavern.text import lexicon_for

TRANSCRIPT_BUDGET_TOKENS = 2500
"""Default token budget of the reader transcript."""

INSTRUCTIONS = """You are the narrator of an interactive story, writing for a reader.
Turn the confirmed events of this beat into vivid narration in the third person, past tense.

- Narrate only what the events and the scene establish. Never invent outcomes, never decide
  what anyone does next, never describe what anyone thinks or feels inside.
- Never write dialogue or quote anyone: spoken lines appear to you only as markers.
- Resolve the latest physical consequence first, then ground it in sensory detail.
- When nothing material happens, one short sentence is enough.

Answer in JSON: {"narration": "..."}."""

NARRATION_MAX_CHARS = 1500
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["narration"],
    "properties": {"narration": {"type": "string", "maxLength": NARRATION_MAX_CHARS}},
}
"""JSON Schema of the renderer's answer."""


def build_messages(
    state: SessionState,
    earlier: list[HistoryRecord],
    beat: list[HistoryRecord],
    *,
    budget_tokens: int = TRANSCRIPT_BUDGET_TOKENS,
    tokens: Tokenizer = salient_tokens,
) -> list[ChatMessage]:
    """Build the prose prompt (`tokens`: the turn's `redaction.TokenTable`).

    Args:
        state: The session after this beat's canon was applied.
        earlier: History tail before this turn, oldest first.
        beat: This turn's records (the human's, the clamped events, staged world events).
        budget_tokens: Token budget of the reader transcript.

    Returns:
        System and user messages.
    """
    names = display_names(state.cast)

    def namer(slot: str) -> str:
        return names.get(slot, slot)

    cast = "\n".join(
        f"- {c.body.display_name}: {c.body.appearance or '(plain)'}" for c in state.cast.values()
    )
    tone = "\n".join(f"- {d}" for d in state.tone_directives)
    # Spoken words, whispers and thoughts of the window, minus what the stage and the cast's
    # bodies show anyway. This is a superset of `physics.guards.hidden_tokens_for` for a
    # reader who perceives nothing (thought-only tokens and whisper payloads), because the
    # public corpus subtracted here is smaller than the guards' one.
    hidden = spoken_only_tokens(state, [*earlier, *beat], tokens)
    lines = _transcript_lines(earlier, namer, hidden)
    start = snapped_start(
        [seq for seq, _ in lines],
        [len(text) for _, text in lines],
        budget_tokens * 4,
        max(4, budget_tokens // 75),  # about half a window, in seqs (~6 records a beat)
        truncated=bool(earlier) and earlier[0].seq > 0,
        each=1,  # the newline joining the lines
    )
    transcript = log_lines(text for _, text in lines[start:])
    this_beat = log_lines(text for r in beat if (text := reader_line(r, namer)))
    blocks = [
        PromptBlock("Your role", INSTRUCTIONS, Stability.IDENTITY),
        PromptBlock("Tone", tone, Stability.IDENTITY),
        PromptBlock("Cast (appearance)", cast, Stability.IDENTITY),
        PromptBlock("Stage", redact(zone_graph_block(state.scene), hidden), Stability.SLOW),
        PromptBlock("Story so far", redact(state.story_summary, hidden), Stability.SLOW),
        # Already masked line by line: a past line never changes, so it stays cacheable.
        PromptBlock("Transcript", transcript, Stability.SLOW),
        PromptBlock(
            "Scene now",
            redact(scene_block(state.scene, namer, with_zone_ids=False), hidden),
            Stability.VOLATILE,
        ),
        PromptBlock(
            "This beat",
            redact(this_beat, hidden) or "Nothing material happens.",
            Stability.VOLATILE,
        ),
    ]
    messages = assemble(blocks)
    # Stored texts may carry raw slot ids (a Director may write "C2 stumbles"); the reader
    # knows people by name, so ids become names.
    content = replace_slot_ids(messages[1].content, lambda m: names.get(m.group(), UNKNOWN_REF))
    return [messages[0], messages[1].model_copy(update={"content": content})]


def _transcript_lines(
    records: list[HistoryRecord], namer: Any, hidden: frozenset[str]
) -> list[tuple[int, str]]:
    """(seq, line) of each past record that shows in the transcript.

    An event's masked reader text was fixed when it was recorded; the reader's own
    narration holds no spoken word it could have read; speech, attempts and thoughts are
    content-free markers. Only events recorded before reader texts existed (and system
    lines) are masked with today's words.
    """
    lines = []
    for record in records:
        line = reader_line(record, namer)
        fixed = isinstance(record, NarrationRecord | SpeechRecord | ActionRecord | ThoughtRecord)
        fixed = fixed or (isinstance(record, EventRecord) and record.reader_text is not None)
        if line and not fixed:
            line = redact(line, hidden)
        if line:
            lines.append((record.seq, line))
    return lines


def reader_line(record: HistoryRecord, namer: Any) -> str:
    """A record as the reader transcript shows it; spoken words become a marker.

    Thoughts are absent; speech and attempts are content-free markers; utterance events
    keep only who spoke.
    """
    who = namer(record.speaker)
    if isinstance(record, SpeechRecord):
        if record.audience.origin == "whisper":
            return f"({who} whispers something.)"
        return f"({who} speaks.)"
    if isinstance(record, ThoughtRecord):
        return ""
    if isinstance(record, ActionRecord):
        return f"({who} makes an attempt.)"
    if isinstance(record, EventRecord):
        if record.event_kind == "utterance":
            actor = namer(record.actor_id) if record.actor_id else "someone"
            return f"({actor} speaks.)"
        return f"(event) {record.text if record.reader_text is None else record.reader_text}"
    if isinstance(record, NarrationRecord):
        return record.text
    assert isinstance(record, SystemRecord)
    return f"({record.text})" if record.text else ""


def spoken_only_tokens(
    state: SessionState, records: list[HistoryRecord], tokens: Tokenizer = salient_tokens
) -> frozenset[str]:
    """Salient tokens of spoken lines (and thoughts) that the public corpus does not contain.

    Thoughts are included as a second line of defence: the clamps' thought guard already
    redacts them from events.
    """
    spoken = frozenset().union(
        *(tokens(r.text) for r in records if isinstance(r, SpeechRecord | ThoughtRecord))
    )
    return spoken - tokens_in(public_corpus(state))


def public_corpus(state: SessionState) -> list[str]:
    """Text whose words any reader may see: the stage, the scenario's own facts and the
    cast's bodies. Facts the Director added are not in it: it could copy spoken words there."""
    return [
        state.scene.location,
        state.scene.description,
        *state.opening_facts,
        *(z.label for z in state.scene.zones),
        *(z.id for z in state.scene.zones),
        *(c.body.display_name for c in state.cast.values()),
        *(c.body.appearance for c in state.cast.values()),
    ]


def parse(data: dict[str, Any]) -> str:
    """The narration text of a schema-valid answer, as the model wrote it (the filter layer
    repairs it: `tavern.filters.NARRATION_RULES`).

    >>> parse({"narration": "Teodor speaks to Maren."})
    'Teodor speaks to Maren.'
    """
    return str(data["narration"])


def staging_parts(state: SessionState) -> list[str]:
    """The parts of the prompt's staging line, who is where (`parse`'s `staged`)."""
    names = display_names(state.cast)
    return staging(state.scene, lambda slot: names.get(slot, slot), with_zone_ids=False)


_NARRATION_OPENS = re.compile(r'"narration"\s*:\s*"')


def runaway(answer_so_far: str, language: str = "en") -> bool:
    """For `tavern.llm.early_stop`: True once the streamed narration repeats a finished
    sentence, from where the filter rule `loop` would cut it anyway (`language`: the
    session's).

    >>> runaway('{"narration": "Rain falls on the roof. Rain falls on the roof.')
    True
    """
    opening = _NARRATION_OPENS.search(answer_so_far)
    return opening is not None and repeats_a_sentence(
        answer_so_far[opening.end() :], lexicon_for(language)
    )
