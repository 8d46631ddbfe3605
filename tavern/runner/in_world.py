"""A Character's words that step out of the world are not said.

Live, the embedded 0.5B model answered for Characters as the assistant it was trained to be:
"I'm sorry, but I can't assist with that." (soak of the-toll-house, turn 10), and earlier "I'm
just a character in a story". Such a line tells every listener, and the reader, that a model
is talking, and it enters the listeners' memories. Each field of a reply (speech, thought,
intent) that matches `OUT_OF_WORLD` is dropped; a reply left empty says nothing this beat.
The journal keeps the model's answer.

The patterns are `agents.out_of_world.OUT_OF_WORLD`, shared with the narration's filter.
"""

from __future__ import annotations

from tavern.agents.out_of_world import OUT_OF_WORLD
from tavern.records import CharacterReply


def in_world(reply: CharacterReply) -> CharacterReply | None:
    """`reply` without its fields that step out of the world; None when nothing is left.

    >>> in_world(CharacterReply(speech="I'm sorry, but I can't assist with that.", thought="Hm."))
    CharacterReply(speech=None, thought='Hm.', action_intent=None)
    >>> in_world(CharacterReply(speech="Sorry, I can't help you with the door.")).speech
    "Sorry, I can't help you with the door."
    """
    fields = {
        name: None
        for name, text in (
            ("speech", reply.speech),
            ("thought", reply.thought),
            ("action_intent", reply.action_intent),
        )
        if text and OUT_OF_WORLD.search(text)
    }
    if not fields:
        return reply
    if len(fields) == sum(1 for t in (reply.speech, reply.thought, reply.action_intent) if t):
        return None
    return reply.model_copy(update=fields)
