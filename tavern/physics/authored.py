"""Clamp `authored_speech`: an event whose text is dialogue the Director wrote.

Words are spoken only by Characters; the Director may refer to a line by its number
(`utterance_ref`) and describes events in neutral third-person text. Live, the embedded 0.5B
Director wrote lines instead: of 303 events in the journals of six soaks, 42 were in the
first or second person or asked a question ("I'm sorry, but I can't assist with that.", "I
don't have any plans or goals yet. I'm just here to help you with what I need.", "Good evening
to you all. What brings everyone here tonight? What brings you here tonight? What brings you
here tonight? ..."). Exact copies of a spoken line already go (`spoken_copy`); the others
reached screens with the spoken words masked ("I [...]'t have any [...]") and the narrator
re-invented the masked words. None of the 261 other events had such a word.

An event goes when its text, outside quotation marks, has a first- or second-person word
(English or Portuguese), a question mark or a sentence opening on a greeting (`GREETING`), or
when it quotes `MIN_QUOTED_WORDS` or more words that are not in the public text of the scene
(its location, description and facts, the cast's public words, the context's public texts: a
sign, an inscription). It runs before the guards, on the text as the Director wrote it. A
Roman numeral one ("Item I of the will") reads as "I" and goes too; no live event had one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.dropping import drop_events
from tavern.physics.quotations import QUOTATION, invented_quotations
from tavern.records import ClampChange, DirectorDecision, PerceptionEvent

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

FIRST_PERSON = re.compile(
    r"\bI\b"  # upper case only: "i" is no pronoun in a neutral text
    r"|(?i:\b(?:me|my|mine|myself|we|us|our|ours|ourselves)\b)"
    r"|(?i:\b(?:eu|meu|minha|meus|minhas|comigo|n[oó]s|nosso|nossa|nossos|nossas)\b)"
)
"""First-person words: a narrator of events never says them, a speaker does."""
GREETING = (
    r"|(?i:(?:^|(?<=[.!?]\s))\s*(?:hello|hi|hey|greetings|welcome|goodbye|farewell"
    r"|good (?:morning|evening|night|day|afternoon))(?:\s+there)?\s*[,!.])"
)
"""A sentence opening on a greeting said to someone ("Hello, C3.", "Hey there!"): live
(toll-house #65, seed 79, turns 2, 4, 8-10), the Director's events "Hello, C1." and "Hello,
Maren Holt." were committed, the first a line for the human's character. "Welcome news
arrives." stays: the greeting must stand alone before its comma or mark."""
SPOKEN_MARKS = re.compile(
    FIRST_PERSON.pattern + r"|(?i:\b(?:you|your|yours|yourself|yourselves)\b)"
    r"|(?i:\b(?:voc[eê]s?|tu|te|teu|tua|teus|tuas|contigo)\b)"
    r"|\?" + GREETING
)
"""What marks a speaker: the first or the second person, a question or a greeting."""
_UPPER_I = re.compile(r"\bI\b")
_SPOKEN_LOWER = re.compile(SPOKEN_MARKS.pattern.replace(r"\bI\b|", "", 1).replace("(?i:", "(?:"))
"""`SPOKEN_MARKS` but "I", for lower-cased text: without IGNORECASE, `re` tries the
alternation faster (21 against 34 us on a 14-word event)."""


def is_authored_speech(text: str, public: str = "") -> bool:
    """Whether an event text is dialogue: the first or second person or a question outside
    quotes (`SPOKEN_MARKS`), or a quotation of `MIN_QUOTED_WORDS` or more words absent from
    `public` (case-folded).

    >>> is_authored_speech("I think we should open it now.")
    True
    >>> is_authored_speech("Maren pulls at the bolt; it holds.")
    False
    >>> is_authored_speech("The sign reads 'No credit given here'.", public="no credit given here")
    False
    """
    unquoted = QUOTATION.sub(" ", text)
    lowered = unquoted.lower()
    if len(lowered) != len(unquoted):  # (then lower-casing could shift a match: no shortcut)
        if SPOKEN_MARKS.search(unquoted):
            return True
    elif _UPPER_I.search(unquoted) or _SPOKEN_LOWER.search(lowered):
        return True
    return bool(invented_quotations(text, public))


def drop_authored_speech(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """Drop each event whose text is dialogue (`is_authored_speech`)."""
    if not d.events:
        return d, []
    public: list[str] = []  # the scene's public text, read only for an event with a quote

    def goes(ev: PerceptionEvent) -> bool:
        if not public and QUOTATION.search(ev.text):
            stage = [ctx.scene.location, ctx.scene.description, *ctx.scene.facts]
            public.append(" ".join([*stage, *ctx.all_public_texts]).casefold())
        return is_authored_speech(ev.text, public[0] if public else "")

    return drop_events(d, "authored_speech", goes)
