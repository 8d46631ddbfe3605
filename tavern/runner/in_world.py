"""A Character's words that step out of the world are not said.

Live, the embedded 0.5B model answered for Characters as the assistant it was trained to be:
"I'm sorry, but I can't assist with that." (soak of the-toll-house, turn 10), and earlier "I'm
just a character in a story". Such a line tells every listener, and the reader, that a model
is talking, and it enters the listeners' memories. Each field of a reply (speech, thought,
intent) that matches `OUT_OF_WORLD` is dropped; a reply left empty says nothing this beat.
The journal keeps the model's answer.

The patterns are `agents.out_of_world.OUT_OF_WORLD`, shared with the narration's filter.

A field that copies the Character's own instructions, five words or more in a row, steps out
too: vintners-wake soak #14, turn 1, two Characters stated the intents "do not state its
outcome, the world decides what happens." and "do not state its outcome". So does one copying
the prompt's other fixed sentences (`agents.character.PROMPT_LINES`): the Character prompts of
two soaks (toll-house #10, vintners-wake #15), replayed 78 times, drew the thoughts "Nothing
new since the last line you remember." and "No new information since the last line you
remember." three times.

A word of the answer's schema is taken out of a field ("talk_event", toll-house soak #22,
seed 39: `physics.prompt_labels.without_schema_words`); a field left without a word goes.

So does a field holding a label of the character's own sheet (`SHEET_LABELS`): toll-house
soak #16 (seed 33, turn 7), Teodor Vask's speech and thought were his sheet read out, "I am
Teodor Vask, a thin man in a rain-soaked blue greatcoat ... Personality: Courteous, precise,
and lonely; ... Secrets: He was sent because the river guild suspects someone at this
crossing; ...": his secrets, said aloud to the room and into every listener's memory, by a
prompt copied, not by a choice. A character may still tell a secret in its own words. A label
turned to the first person ("I look like this:", `OWN_LABELS`) is the sheet's too.
"""

from __future__ import annotations

from tavern.agents.character import INSTRUCTIONS, PROMPT_LINES, SHEET_LABELS
from tavern.agents.out_of_world import OUT_OF_WORLD
from tavern.physics.mind_copy import holds_run, word_runs
from tavern.physics.prompt_labels import without_schema_words
from tavern.records import CharacterReply

INSTRUCTION_RUN = 5
"""Words in a row of the instructions that make a copy (over the 172 Character records of
the sixteen soak sessions kept here, the longest run shared otherwise was three: "try to
do")."""

_INSTRUCTION_RUNS = frozenset(
    run
    for text in (INSTRUCTIONS.replace("{name}", ""), *PROMPT_LINES)
    for run in word_runs(text, INSTRUCTION_RUN)
)


OWN_LABELS = tuple(label.replace("You ", "I ", 1) for label in SHEET_LABELS if "You " in label)
"""The sheet's labels said in the first person: live (toll-house #59's rerun, seed 73, turn
8), Maren Holt answered "Who are you, exactly?" with "I'm a dry patient who quickly with
numbers and slow to anger. I look like this: A broad-shouldered woman in her forties, ...",
her personality and appearance read out behind "I look like this:"."""


def _steps_out(text: str) -> bool:
    if OUT_OF_WORLD.search(text) is not None or any(
        label in text for label in (*SHEET_LABELS, *OWN_LABELS)
    ):
        return True
    return holds_run(text, _INSTRUCTION_RUNS, INSTRUCTION_RUN)


def in_world(reply: CharacterReply) -> CharacterReply | None:
    """`reply` without its fields that step out of the world; None when nothing is left.

    >>> in_world(CharacterReply(speech="I'm sorry, but I can't assist with that.", thought="Hm."))
    CharacterReply(speech=None, thought='Hm.', action_intent=None)
    >>> in_world(CharacterReply(speech="Sorry, I can't help you with the door.")).speech
    "Sorry, I can't help you with the door."
    """
    fields: dict[str, str | None] = {}
    for name, text in (
        ("speech", reply.speech),
        ("thought", reply.thought),
        ("action_intent", reply.action_intent),
    ):
        if not text:
            continue
        kept = without_schema_words(text)
        if not kept or _steps_out(kept):
            fields[name] = None
        elif kept != text:
            fields[name] = kept
    return reply_with(reply, fields)


def reply_with(reply: CharacterReply, fields: dict[str, str | None]) -> CharacterReply | None:
    """`reply` with `fields` replaced (a reply filter's cuts; None drops a field); None when
    nothing is left, so the reply says nothing this beat.

    >>> reply_with(CharacterReply(speech="Hm.", thought="No."), {"speech": None}).thought
    'No.'
    >>> reply_with(CharacterReply(speech="Hm."), {"speech": None}) is None
    True
    """
    if not fields:
        return reply
    left = reply.model_copy(update=fields)
    return left if left.speech or left.thought or left.action_intent else None
