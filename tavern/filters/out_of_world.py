"""Rule `out_of_world`: words of an assistant, not of a person in the story, are not said.

Such words tell every listener that a model is writing. The patterns, per language, aim at
what no person in a story says: the assistant's vocabulary ("as an AI", "como uma IA"), its
refusal formula whole, its asking for context, its offers of help; a plain "Sorry, I can't
help you" stays. A reply's matching field goes whole; a narration loses matching sentences,
offers of help, talk about the text or the narrator, and sentences opening on "I" ("Eu").

Example: narration "The lamp gutters. What can I assist you with today?" -> "The lamp
gutters."
"""

from __future__ import annotations

import re

from tavern.filters.context import FilterContext, Target
from tavern.filters.rule import BOTH, EVERY, TextRule
from tavern.text import without_sentences

_EN = (
    r"\bas an? (?:ai|artificial intelligence|language model|assistant|chatbot)\b"
    r"|\b(?:ai|language) model\b"
    r"|\bi(?:'m|’m| am) (?:just |only |merely )?(?:an? )?(?:digital |virtual |helpful )?"
    r"(?:ai|assistant|chatbot|bot|computer program|(?:fictional )?character)\b"
    r"|\b(?:can(?:no|'|’)t|cannot|unable to|not able to) assist with (?:that|this)\b"
    r"|\b(?:can(?:no|'|’)t|cannot|unable to|not able to) perform (?:any )?(?:physical )?actions\b"
    r"|\brole[- ]?play"
    r"|\b(?:enough|sufficient) (?:context|information)(?: or (?:context|information))?"
    r" to (?:respond|answer|help)\b"
    r"|\bsorry, but i (?:can(?:no|'|’)t|cannot) help with (?:that|this)(?: request)?"
    r"(?=\s*(?:[.!]|$))"
    r"|\b(?:provide|give|share|offer)(?: me)?(?: with)? (?:more|some|additional|further)"
    r" context\b"
    r"|\bclarify what you(?:'re|’re| are) (?:looking for|asking(?: for)?)\b"
    r"|\b(?:align|aligns|aligned|in line|consistent) with my"
    r" (?:personality|persona|guidelines|programming)\b"
    r"|\b(?:how|what) (?:else )?(?:can|may|could) i (?:assist you|help you(?: with)? today)\b"
    r"|\bhelp you with any (?:other|further|more) (?:information|questions?|tasks?|requests?)\b"
    r"|\bi(?:'m|’m| am) not (?:a )?(?:human|real person)(?: being)?\s*,?\s*(?:so|therefore)\b"
)
_PT = (
    r"\bcomo (?:uma? )?(?:ia|intelig[eê]ncia artificial|assistente|modelo de linguagem)\b"
    r"|\bmodelo de linguagem\b"
    r"|\bsou (?:apenas |s[oó] )?(?:uma? )?(?:ia|assistente|chatbot|personagem)\b"
    r"|\bn[aã]o posso (?:ajudar|auxiliar) com (?:isso|essa solicita[cç][aã]o)\b"
    r"|\bn[aã]o (?:posso|consigo) realizar (?:nenhuma |quaisquer )?a[cç][oõ]es\b"
    r"|\brole[- ]?play|\binterpreta[cç][aã]o de pap[eé]is\b"
    r"|\b(?:contexto|informa[cç](?:[aã]o|[oõ]es)) suficientes? para (?:responder|ajudar)\b"
    r"|\b(?:fornecer|dar|fornecer-me|me dar) mais contexto\b"
    r"|\besclarecer o que (?:voc[eê] )?(?:est[aá] procurando|quer dizer)\b"
    r"|\b(?:alinhad[oa]s?|de acordo|coerentes?) com (?:a )?minha"
    r" (?:personalidade|persona|programa[cç][aã]o|diretrizes)\b"
    r"|\b(?:como|em que) (?:posso|poderia) (?:te |lhe )?(?:ajudar|auxiliar) hoje\b"
    r"|\bn[aã]o sou (?:um )?(?:humano|humana|pessoa real)\s*,?\s*(?:ent[aã]o|portanto|por isso)\b"
)
_EN_NARRATOR = (
    r"|\b(?:how|what) (?:else )?(?:can|may|could) i (?:help|assist|do for)\b"
    r"|\bassist you\b|\bhere to help\b|\bi hope (?:this|that|it) helps\b|\bfeel free to\b"
    r"|\blet me know if\b"
    r"|\b(?:here is|here's) (?:the|a|your) (?:narration|continuation|next beat|story)\b"
    r"|\bthe narrator\b"
    r"|(?:^|(?<=[.!?…]\s)|(?<=\n))\s*i(?=\s|['’]\w)"
)
_PT_NARRATOR = (
    r"|\b(?:em )?que (?:posso|poderia) (?:ajudar|auxiliar)\b|\bespero que (?:isso )?ajude\b"
    r"|\bfique à vontade para\b|\bme avise se\b|\bo narrador\b|\ba narradora\b"
    r"|\b(?:aqui está|segue) (?:a|o) (?:narração|continuação|história)\b"
    r"|(?:^|(?<=[.!?…]\s)|(?<=\n))\s*eu (?:sou|estou|estava)\b"
)
SPEECH = {
    "en": re.compile(_EN, re.IGNORECASE),
    "pt-BR": re.compile(_PT, re.IGNORECASE),
}
"""Words of an assistant in a Character's mouth, per language."""
NARRATION = {
    "en": re.compile(_EN + _EN_NARRATOR, re.IGNORECASE),
    "pt-BR": re.compile(_PT + _PT_NARRATOR, re.IGNORECASE),
}
"""For narration: also help offers to the reader, words about the text or the narrator,
and a sentence opening on the narrator as "I"."""


def _repair(text: str, target: Target, ctx: FilterContext) -> str:
    if target != "narration":
        return "" if SPEECH[ctx.language].search(text) else text
    pattern = NARRATION[ctx.language]
    if not pattern.search(text):
        return text
    return without_sentences(text, lambda sentence: bool(pattern.search(sentence)))


RULE = TextRule("out_of_world", EVERY, BOTH, _repair)
