"""Words of an assistant, not of the story: what neither a Character nor the narrator says.

Live, the embedded 0.5B model fell back on the assistant it was trained to be. A Character
said "I'm sorry, but I can't assist with that." (soak of the-toll-house, turn 10); a
narration ended "What can I assist you with today?" (soak of the-vintners-wake #7, turn 4); a
Character's intent was "I'm not able to perform any actions or act as a person here."
(toll-house soak #11, turn 8), and its thought "... I'm just a digital assistant."; replayed
Character prompts of stop 19's soaks drew "I'm sorry, but I'm just a computer program and
don't have the ability ..."; vintners-wake soak #30 (seed 45, turn 8) had Dorotea Sand say "I
don't have enough context or information to respond to this question.", and in its rerun
"... something that doesn't align with my personality."
Such words tell a reader that a model is writing.

`OUT_OF_WORLD` aims at what no person in a story says: the assistant's own vocabulary ("assist
with", "as an AI", "language model", "role-play", "enough context to respond"), in English
and Brazilian Portuguese, and its refusal formula said whole, "I'm sorry, but I can't help
with that." (toll-house soak #33, seed 47, turn 5, Maren Holt's answer to "I think we should
open it now."), and its opening offer, "How can I assist you today?" (`HELP_OFFER`). A plain
"Sorry, I can't help you" stays: a tavern keeper says it too, and so
does "I'm sorry, but I can't help with that door, it is the guild's.".
`NARRATOR_OUT_OF_WORLD` adds what a person may say but a third-person narrator never
writes outside quotes: offers of help to the reader and talk about the text itself.
"""

from __future__ import annotations

import re

from tavern.agents.repetition import sentence_spans

ENOUGH_CONTEXT = (
    r"|\b(?:enough|sufficient) (?:context|information)(?: or (?:context|information))?"
    r" to (?:respond|answer|help)\b"
    r"|\b(?:contexto|informa[cç](?:[aã]o|[oõ]es)) suficientes? para (?:responder|ajudar)\b"
)
"""An assistant asking for more of its prompt ("enough context or information to respond")."""

REFUSAL_FORMULA = (
    r"|\bsorry, but i (?:can(?:no|'|’)t|cannot) help with (?:that|this)(?: request)?"
    r"(?=\s*(?:[.!]|$))"
)
"""The assistant's refusal said whole (toll-house #33, seed 47, turn 5), not "... help with
that door"."""

ASKS_FOR_CONTEXT = (
    r"|\b(?:provide|give|share|offer)(?: me)?(?: with)? (?:more|some|additional|further)"
    r" context\b"
    r"|\bclarify what you(?:'re|’re| are) (?:looking for|asking(?: for)?)\b"
    r"|\b(?:fornecer|dar|fornecer-me|me dar) mais contexto\b"
    r"|\besclarecer o que (?:voc[eê] )?(?:est[aá] procurando|quer dizer)\b"
)
"""An assistant asking for a clearer prompt: live (vintners-wake #33, seed 48, turn 4),
Dorotea Sand's speech and intent "... Could you please provide more context or clarify what
you're looking for?"."""

OWN_MAKING = (
    r"|\b(?:align|aligns|aligned|in line|consistent) with my"
    r" (?:personality|persona|guidelines|programming)\b"
    r"|\b(?:alinhad[oa]s?|de acordo|coerentes?) com (?:a )?minha"
    r" (?:personalidade|persona|programa[cç][aã]o|diretrizes)\b"
)
"""An assistant measuring a request against what it was made to be: live (vintners-wake #31's
rerun, seed 46, turn 8), Dorotea Sand answered "Who are you, exactly?" with "... It seems
like you're trying to do something that doesn't align with my personality."."""

HELP_OFFER = (
    r"|\b(?:how|what) (?:else )?(?:can|may|could) i (?:assist you|help you(?: with)? today)\b"
    r"|\b(?:como|em que) (?:posso|poderia) (?:te |lhe )?(?:ajudar|auxiliar) hoje\b"
    r"|\bhelp you with any (?:other|further|more) (?:information|questions?|tasks?|requests?)\b"
)
"""The assistant's offers: live (toll-house #48, seed 62, turn 8), Maren Holt answered "Who are
you, exactly?" with "Hello, everyone! How can I assist you today?", and (toll-house #66, seed
80, turn 5) "I think we should open it now." with "... I would be happy to help you with any
other information or tasks you have.". "How can I help you?" and "happy to help you with the
bags" stay: a tavern keeper says them."""

NOT_HUMAN = (
    r"|\bi(?:'m|’m| am) not (?:a )?(?:human|real person)(?: being)?\s*,?\s*(?:so|therefore)\b"
    r"|\bn[aã]o sou (?:um )?(?:humano|humana|pessoa real)\s*,?\s*(?:ent[aã]o|portanto|por isso)\b"
)
"""The assistant's reason for doing nothing: live (toll-house #50, seed 64, turn 1), Maren
Holt's intent was "I am not a human, so I do not have an intent to do anything now.", shown
to the human as her attempt. "I am not human." alone stays: a ghost may say it."""

OUT_OF_WORLD = re.compile(
    r"\bas an? (?:ai|artificial intelligence|language model|assistant|chatbot)\b"
    r"|\b(?:ai|language) model\b"
    r"|\bi(?:'m|’m| am) (?:just |only |merely )?(?:an? )?(?:digital |virtual |helpful )?"
    r"(?:ai|assistant|chatbot|bot|computer program|(?:fictional )?character)\b"
    r"|\b(?:can(?:no|'|’)t|cannot|unable to|not able to) assist with (?:that|this)\b"
    r"|\b(?:can(?:no|'|’)t|cannot|unable to|not able to) perform (?:any )?(?:physical )?actions\b"
    r"|\brole[- ]?play"
    r"|\bcomo (?:uma? )?(?:ia|intelig[eê]ncia artificial|assistente|modelo de linguagem)\b"
    r"|\bmodelo de linguagem\b"
    r"|\bsou (?:apenas |s[oó] )?(?:uma? )?(?:ia|assistente|chatbot|personagem)\b"
    r"|\bn[aã]o posso (?:ajudar|auxiliar) com (?:isso|essa solicita[cç][aã]o)\b"
    r"|\bn[aã]o (?:posso|consigo) realizar (?:nenhuma |quaisquer )?a[cç][oõ]es\b"
    + ENOUGH_CONTEXT
    + REFUSAL_FORMULA
    + ASKS_FOR_CONTEXT
    + OWN_MAKING
    + HELP_OFFER
    + NOT_HUMAN,
    re.IGNORECASE,
)
"""Words of an assistant, not of a person in the world."""

FIRST_PERSON = r"|(?:^|(?<=[.!?…]\s)|(?<=\n))\s*(?:i(?=\s|['’]\w)|eu (?:sou|estou|estava)\b)"
"""A sentence opening on the narrator as "I": live (vintners-wake #56, seed 72, turn 7), "I
am standing in the vintner's house on the hill." opened and closed a committed narration, and
(toll-house #64, seed 78, turn 1) "I can't believe it's happening." was a whole one. A
third-person narrator has no "I"; a Character's "I am" reaches narration only inside quotes
(which `agents.quoted` removes unless the stage holds them), and there the quote mark opens
the sentence."""

NARRATOR_OUT_OF_WORLD = re.compile(
    OUT_OF_WORLD.pattern + r"|\b(?:how|what) (?:else )?(?:can|may|could) i (?:help|assist|do for)\b"
    r"|\bassist you\b|\bhere to help\b|\bi hope (?:this|that|it) helps\b|\bfeel free to\b"
    r"|\blet me know if\b"
    r"|\b(?:here is|here's) (?:the|a|your) (?:narration|continuation|next beat|story)\b"
    r"|\bthe narrator\b|\bo narrador\b"
    + FIRST_PERSON
    + r"|\b(?:em )?que (?:posso|poderia) (?:ajudar|auxiliar)\b|\bespero que (?:isso )?ajude\b",
    re.IGNORECASE,
)
"""For narration: also a help offer to the reader, words about the text itself, a sentence
opening on "I" (`FIRST_PERSON`), and the narrator named by itself: live (vintners-wake #51,
seed 67, turns 2 and 7), "The sound is sealed, suggesting that the narrator is unable to see
the window or the sound clearly." closed two committed narrations."""


def drop_out_of_world(text: str) -> str:
    """`text` without its sentences that match `NARRATOR_OUT_OF_WORLD`.

    >>> drop_out_of_world("The lamp gutters. What can I assist you with today?")
    'The lamp gutters.'
    """
    if NARRATOR_OUT_OF_WORLD.search(text) is None:
        return text
    return "".join(
        text[start:end]
        for start, end in sentence_spans(text)
        if NARRATOR_OUT_OF_WORLD.search(text[start:end]) is None
    ).strip()
