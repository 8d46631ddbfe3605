"""A Character saying "I am" and reading out a cast member's appearance recites a sheet.

Live (toll-house #64, seed 78), Maren Holt answered "What brings everyone here tonight?" with
"I am Maren Holt. I am a young woman in her forties, grey wool shawl, a ring of iron keys at
her belt, ink on her thumb." (turn 1) and again in turn 7: her sheet's appearance, "A
broad-shouldered woman in her forties, grey wool shawl, ...", with one word changed. In turn 8
Teodor Vask, who had heard her, said and thought "I'm Maren Holt, a young woman in my
forties, grey wool shawl, ...": another character's look, claimed as his own. Nobody
introduces themselves by reading out what the others can plainly see; the words are the
prompt's, copied.

A sentence of speech or thought that opens with the speaker saying what they are ("I am a
...", "I'm Maren Holt, a ...") or look like ("I look ...") and holds `LOOK_RUN` words in a row
of any cast member's appearance goes; a field left without a sentence goes, and a reply left
empty says nothing this beat. The rest stays: "I am Maren Holt." is an introduction. Only a
speaker telling of themselves: a character who learned nobody's name speaks of others by what
they look like ("I'm sure the woman with a ring of iron keys at her belt took it"), and that
is how the ledger meant it.

A speaker's own secret read out word for word is the sheet too (`without_recited_secrets`):
live (vintners-wake #63, seed 79, turn 1), Brother Caspar answered "What brings everyone here
tonight?" with "I'm a forger hired by someone in the house to copy the vintner's hand.", his
sheet's "He is no friar: he is a forger hired by someone in the house to copy the vintner's
hand.", to the whole room in the first beat. A sentence of speech holding `SECRET_RUN` words
in a row of the speaker's secrets goes; a secret told in the character's own words stays, and
so does a thought (only its thinker and the Director read it). Over the soak journals kept, no
other speech had such a run; the goals' runs came back as intents ("read the will at midnight
as the law requires"), which is what goals are for.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tavern.agents.repetition import sentence_spans
from tavern.physics.acts import without_sentences
from tavern.physics.copied import Run, holds_run, without_sentences_holding, word_runs
from tavern.records import CharacterReply
from tavern.runner.in_world import reply_with

LOOK_RUN = 6
"""Words in a row of an appearance: the live recitals shared 14 and more. Over the 311
speeches and thoughts of the 23 soak sessions kept on 2026-12-03, the 12 fields this rule
cut were all appearances read out ("... I look like this: A broad-shouldered woman ...")."""

_FIRST_PERSON = re.compile(
    r"\s*[\"'‘“]?I(?:(?:\s+am|['’]m)\s+(?:[^,.!?]{1,40},\s*)?an?\s|\s+look\b)"
)
"""A sentence opening with the speaker said to be someone ("I am a ...", "I'm Maren Holt, a
...", "I'm the woman with the ring of keys, a ...": a name the speaker did not learn is
rendered as its description) or to look like something ("I look like this:"); "I'm sure the
woman with ..." speaks of another."""


SECRET_RUN = 8
"""Words in a row of a secret: as `agents.recital.RECITAL_WORDS`, a copy, not a telling."""


@lru_cache(maxsize=16)
def look_runs(appearances: tuple[str, ...]) -> frozenset[Run]:
    """Every `LOOK_RUN` words in a row of the `appearances` (a session's cast: cached)."""
    return frozenset(run for text in appearances for run in word_runs(text, LOOK_RUN))


def without_recited_look(text: str, runs: frozenset[Run]) -> str:
    """`text` without its first-person sentences holding one of `runs` (see the module).

    >>> runs = look_runs(("A broad woman, a ring of iron keys at her belt.",))
    >>> without_recited_look("I am Maren. I'm a woman, a ring of iron keys at her belt.", runs)
    'I am Maren.'
    >>> without_recited_look("The woman with a ring of iron keys at her belt lies.", runs)
    'The woman with a ring of iron keys at her belt lies.'
    """
    if not holds_run(text, runs, LOOK_RUN):
        return text
    return without_sentences(text, lambda sentence: _recites(sentence, runs), sentence_spans)


def _recites(sentence: str, runs: frozenset[Run]) -> bool:
    return bool(_FIRST_PERSON.match(sentence)) and holds_run(sentence, runs, LOOK_RUN)


def without_recited_looks(reply: CharacterReply, runs: frozenset[Run]) -> CharacterReply | None:
    """`reply` without the first-person recitals of an appearance in its speech and thought;
    None when nothing is left."""
    fields: dict[str, str | None] = {}
    for name, text in (("speech", reply.speech), ("thought", reply.thought)):
        if text:
            kept = without_recited_look(text, runs)
            if kept != text:
                fields[name] = kept or None
    return reply_with(reply, fields)


@lru_cache(maxsize=64)
def _secret_runs(secrets: tuple[str, ...]) -> frozenset[Run]:
    return frozenset(run for text in secrets for run in word_runs(text, SECRET_RUN))


def without_recited_secrets(
    reply: CharacterReply, secrets: tuple[str, ...]
) -> CharacterReply | None:
    """`reply` without the sentences of its speech copying the speaker's `secrets` (see the
    module); None when nothing is left.

    >>> secret = ("He is a forger hired by someone in the house to copy the hand.",)
    >>> reply = CharacterReply(speech="Evening. I'm a forger hired by someone in the house.")
    >>> without_recited_secrets(reply, secret).speech
    'Evening.'
    """
    if not reply.speech:
        return reply
    speech = reply.speech
    kept = without_sentences_holding(speech, _secret_runs(secrets), SECRET_RUN, sentence_spans)
    return reply if kept == speech else reply_with(reply, {"speech": kept or None})
