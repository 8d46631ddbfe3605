"""A Character's words that step out of the world are not said.

Live, the embedded 0.5B model answered for Characters as the assistant it was trained to be:
"I'm sorry, but I can't assist with that." (soak of the-toll-house, turn 10), and earlier "I'm
just a character in a story". Such a line tells every listener, and the reader, that a model
is talking, and it enters the listeners' memories. Each field of a reply (speech, thought,
intent) that matches `OUT_OF_WORLD` is dropped; a reply left empty says nothing this beat.
The journal keeps the model's answer.

The patterns aim at what no person in a story says: the assistant's own vocabulary ("assist
with", "as an AI", "language model", "role-play"), in English and Brazilian Portuguese. A
plain "Sorry, I can't help you" stays: a tavern keeper says it too.
"""

from __future__ import annotations

import re

from tavern.records import CharacterReply

OUT_OF_WORLD = re.compile(
    r"\bas an? (?:ai|artificial intelligence|language model|assistant|chatbot)\b"
    r"|\b(?:ai|language) model\b"
    r"|\bi(?:'m|’m| am) (?:just |only |merely )?(?:an? )?(?:ai|assistant|chatbot|bot|"
    r"(?:fictional )?character)\b"
    r"|\b(?:can(?:no|'|’)t|cannot|unable to|not able to) assist with (?:that|this)\b"
    r"|\brole[- ]?play"
    r"|\bcomo (?:uma? )?(?:ia|intelig[eê]ncia artificial|assistente|modelo de linguagem)\b"
    r"|\bmodelo de linguagem\b"
    r"|\bsou (?:apenas |s[oó] )?(?:uma? )?(?:ia|assistente|chatbot|personagem)\b"
    r"|\bn[aã]o posso (?:ajudar|auxiliar) com (?:isso|essa solicita[cç][aã]o)\b",
    re.IGNORECASE,
)
"""Words of an assistant, not of a person in the world."""


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
