"""A Character: one independent person, prompted only from what it perceived.

The prompt is built from `physics.observe(...)` output and nothing else: the character's
own mind, its ledger projection of the people present (learned names or descriptions), its
memory lines, the records it perceived this beat and the earlier replies of this beat's
queue that reached it. Every character's prompt has the same blocks in the same order,
whoever plays it.
"""

from __future__ import annotations

from typing import Any

from tavern.agents.blocks import PromptBlock, Stability, assemble, snapped_start
from tavern.agents.render import log_lines
from tavern.physics.observation import Observation, ObservedLine
from tavern.records import Character, CharacterReply, ChatMessage

MEMORY_BUDGET_TOKENS = 8000
"""Token budget of the memory lines shown (large-context models; the runner sizes it down
for small contexts). When a ledger's memory outgrows this budget the runner folds its oldest
lines into the ledger's summary, down to a low-water mark (`runner.memory.revise_memory`),
so the memory fits whole: the block then only changes at its end, except at a revision, and
consecutive prompts share it as a prefix."""

INSTRUCTIONS = """You are {name}. This is your own life, happening now: you live it as
yourself and speak and act for yourself only.

Answer in JSON with three fields, each a string or null, at least one of them set:
- speech: the words you say aloud now (only words; no descriptions of actions).
- thought: what you privately think.
- action_intent: a physical thing you try to do. It is an attempt: do not state its outcome,
  the world decides what happens.

You know people only as you have come to know them: call someone by a name only if you
learned it; otherwise refer to them as you see them."""
"""Opens every Character prompt. Never a word of fiction, story or role: a person does not
know a story exists, and a small model told it is "a person inside a story" answered in a
live session "I'm just a character in a story" (three of four Characters, one beat)."""

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["speech", "thought", "action_intent"],
    "properties": {
        "speech": {"type": ["string", "null"], "maxLength": 600},
        "thought": {"type": ["string", "null"], "maxLength": 400},
        "action_intent": {"type": ["string", "null"], "maxLength": 240},
    },
}
"""JSON Schema of a Character's answer."""

MEMORY_STRIDE_LINES = 64
"""Granularity of the memory window's first line (an index into the ledger's memory) when a
ledger holds more than the budget, e.g. a session written under a larger budget: the
window then jumps by whole strides instead of sliding every beat, until the next capture
folds the ledger down to the budget."""


def build_messages(
    observation: Observation,
    sheet: Character,
    turn_number: int,
    *,
    memory_budget_tokens: int = MEMORY_BUDGET_TOKENS,
) -> list[ChatMessage]:
    """Build a Character prompt from the character's observation and its own sheet.

    Args:
        observation: What `physics.observe` says this character may perceive.
        sheet: The character's own sheet (its mind is its own to know), already rendered
            in the character's own names (`physics.identity.render_for_viewer`).
        memory_budget_tokens: Token budget of the memory lines shown.
        turn_number: The beat being played: perceived lines of this turn form the volatile
            tail; earlier turns reach the character through its memory.

    Returns:
        System and user messages.
    """
    mind = sheet.mind
    looks, nature, secrets, goals = SHEET_LABELS
    identity = (
        INSTRUCTIONS.format(name=observation.self_name)
        + f"\n\n{looks} {sheet.body.appearance or '(plain)'}"
        + f"\n{nature} {mind.personality or '(unremarkable)'}"
        + f"\n{secrets} {'; '.join(mind.secrets) or '(none)'}"
        + f"\n{goals} {'; '.join(mind.goals) or '(none)'}"
    )
    memory = list(observation.memory)
    start = snapped_start(
        list(range(len(memory))),
        list(map(len, memory)),
        memory_budget_tokens * 4,
        MEMORY_STRIDE_LINES,
        each=1,  # the newline joining the lines
    )
    now = [line for line in observation.lines if line.turn_number == turn_number]
    # This beat's lines continue the memory log instead of opening a block of their own:
    # they become the next memory lines in the same order and form (`digest_line`
    # capitalizes), so the character's next prompt shares them as a prefix too.
    remembered = log_lines(
        [
            *([observation.memory_summary] if observation.memory_summary else []),
            *memory[start:],
            *(x.text[:1].upper() + x.text[1:] for x in now),
        ]
    )
    blocks = [
        PromptBlock("Who you are", identity, Stability.IDENTITY),
        PromptBlock("Where you are", _place(observation), Stability.SLOW),
        PromptBlock("People here", _people(observation), Stability.SLOW),
        # Facts change only when the Director adds or removes one; the memory log grows
        # every beat, so it goes last among the slow blocks and only its end changes.
        PromptBlock("Facts", log_lines(observation.facts) or "(none)", Stability.SLOW),
        PromptBlock("What you remember", remembered, Stability.SLOW),
        PromptBlock("What just happened", _just_now(len(now)), Stability.VOLATILE),
        PromptBlock("Your turn", _turn_line(now), Stability.VOLATILE),
    ]
    return assemble(blocks)


def _place(observation: Observation) -> str:
    lines = [observation.location]
    if observation.description:
        lines.append(observation.description)
    if observation.zone:
        lines.append(f"You are in {observation.zone}.")
    return "\n".join(lines)


def _people(observation: Observation) -> str:
    """One line per person, every line with the same fields in the same form."""
    out = []
    for person in observation.roster:
        where = person.zone or "here"
        looks = person.appearance or "(heard, not seen)"
        out.append(f"- {person.ref}. Where: {where}. Looks: {looks}")
    return "\n".join(out)


NOTHING_NEW = "Nothing new since the last line you remember."
ONE_NEW = "The last line of what you remember happened just now."
SOME_NEW = "The last {count} lines of what you remember happened just now."
IN_A_WHISPER = "You are in a whispered exchange; what you say now stays inside it."
SHEET_LABELS = ("You look like this:", "Personality:", "Secrets:", "Goals:")
"""The labels of the character's own sheet in its prompt; a reply holding one recites the
sheet (filter rule `prompt_copy`)."""
ASK_AGAIN = "Say, think or try something: set at least one of the three fields."
"""Added to the prompt when a Character is asked again after an answer with nothing in it:
under the client's fixed seed the same prompt draws the same empty answer."""
PROMPT_LINES = (NOTHING_NEW, ONE_NEW, SOME_NEW.format(count=""), IN_A_WHISPER, ASK_AGAIN)
"""The prompt's own sentences beside `INSTRUCTIONS` that a reply may copy (filter rule
`prompt_copy`). "What do you do now?" is not among them: one person may well ask it of
another."""


def _just_now(count: int) -> str:
    if count == 0:
        return NOTHING_NEW
    if count == 1:
        return ONE_NEW
    return SOME_NEW.format(count=count)


def _turn_line(now: list[ObservedLine]) -> str:
    whispered_to_you = any(
        line.kind == "speech" and line.mode == "content" and " whispered to you" in line.text
        for line in now
    )
    if whispered_to_you:
        return f"{IN_A_WHISPER} What do you do?"
    return "What do you do now?"


def parse(data: dict[str, Any]) -> CharacterReply:
    """Turn a schema-valid answer into a `CharacterReply`, each field as the model wrote it,
    stripped (the filter layer repairs it: `tavern.filters.REPLY_RULES`).

    Raises:
        ValueError: When every field is empty (the caller retries once).

    >>> parse({"speech": " Stay back. ", "thought": "", "action_intent": None}).speech
    'Stay back.'
    """
    return CharacterReply(
        speech=_clean(data.get("speech")),
        thought=_clean(data.get("thought")),
        action_intent=_clean(data.get("action_intent")),
    )


def asked_again(messages: list[ChatMessage]) -> list[ChatMessage]:
    """`messages` with `ASK_AGAIN` closing the last one: the prompt of a second ask."""
    last = messages[-1]
    return [*messages[:-1], last.model_copy(update={"content": f"{last.content}\n{ASK_AGAIN}"})]


def _clean(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None
