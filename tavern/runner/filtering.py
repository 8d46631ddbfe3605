"""The filter layer inside a turn: contexts built from the turn's state, registries applied.

`TurnTransaction` builds a `FilterContext` for the renderer's narration and one for each
Character reply, runs `filters.NARRATION_RULES` / `REPLY_RULES` under the session's profile,
and keeps every cut for the commit line (`CommitLine.filter_cuts`).
"""

from __future__ import annotations

from collections.abc import Sequence

from tavern.agents import character, prose
from tavern.filters import (
    NARRATION_RULES,
    PROFILES,
    REPLY_RULES,
    FilterContext,
    FilterResult,
    Speaker,
    Target,
    apply_rules,
)
from tavern.records import CharacterReply, HistoryRecord, SessionState
from tavern.records.config import FilterProfile


def narration_context(
    staged: SessionState,
    facts: Sequence[str],
    history: Sequence[HistoryRecord],
    beat: Sequence[HistoryRecord],
    turn: int,
    capped: bool,
) -> FilterContext:
    """The context of beat `turn`'s narration: `staged` is the session after the beat's
    canon, `facts` the standing facts before it, `history` the window before the beat and
    `beat` its records; `capped` whether the answer ran to its length limit."""
    scene = staged.scene
    return FilterContext(
        language=staged.language,
        turn=turn,
        cast=staged.cast,
        title=staged.title,
        stage=(scene.location, scene.description),
        staging=tuple(prose.staging_parts(staged)),
        facts=tuple(facts),
        public=tuple(prose.public_corpus(staged)),
        directives=tuple(staged.tone_directives),
        history=tuple(history),
        beat=tuple(beat),
        capped=frozenset({"narration"}) if capped else frozenset(),
    )


def reply_context(
    staged: SessionState, slot: str, heard: Sequence[HistoryRecord], turn: int
) -> FilterContext:
    """The context of `slot`'s reply in beat `turn`: `heard` is what it perceived so far."""
    member = staged.cast[slot]
    return FilterContext(
        language=staged.language,
        turn=turn,
        cast=staged.cast,
        history=tuple(heard),
        speaker=Speaker(
            slot=slot,
            name=member.body.display_name,
            appearance=member.body.appearance,
            personality=member.mind.personality,
            secrets=tuple(member.mind.secrets),
        ),
        prompt_texts=(character.INSTRUCTIONS.replace("{name}", ""), *character.PROMPT_LINES),
        sheet_labels=character.SHEET_LABELS,
    )


def filtered_narration(text: str, ctx: FilterContext, profile: FilterProfile) -> FilterResult:
    """The narration `text` through `NARRATION_RULES` under `profile`."""
    return apply_rules(NARRATION_RULES, {"narration": text}, ctx, PROFILES[profile])


def filtered_reply(
    reply: CharacterReply, ctx: FilterContext, profile: FilterProfile
) -> tuple[CharacterReply | None, FilterResult]:
    """`reply` through `REPLY_RULES` under `profile`; None when no field is left."""
    texts: dict[Target, str] = {
        "speech": reply.speech or "",
        "thought": reply.thought or "",
        "action_intent": reply.action_intent or "",
    }
    result = apply_rules(REPLY_RULES, texts, ctx, PROFILES[profile])
    kept = result.texts
    if not kept:
        return None, result
    said = CharacterReply(
        speech=kept.get("speech"),
        thought=kept.get("thought"),
        action_intent=kept.get("action_intent"),
    )
    return said, result
