"""Clamp `prompt_copy`: an event sentence that is one of the Director's own prompt sentences.

The Director's prompts hold fixed sentences: its instructions, the follow-up's question, the
stage line of a scene without zones. Live (toll-house #49, seed 63, turn 2), the embedded
Director answered the events "Everyone present sees and hears everyone." (the stage line) and,
for the human's walk, "No dialogue, no thoughts." (the follow-up's "No dialogue and no
thoughts."): both reached the human and the renderer narrated them. Nothing in them happened.

A sentence goes when its content words (`restated.content_words`, cast name words aside)
are two or more and all of them are words of one prompt sentence (`ClampContext.prompt_
sentences`, given by the runner: physics does not import the agents that hold them), unless
it says an outcome (`attempt_told.BARE_OUTCOMES`, and "fail" in any form): "This attempts
fail." holds the words of the instructions' "Attempts may fail." and is the outcome of the
human's walk (vintners-wake #47, seed 63, turn 2, where the first version of this rule took
it and the walk got no outcome). An event left without a sentence goes. Over the Director's
and follow-up's answers of 26 soak journals, the test picked those four sentences and no
other.

A sentence that opens with the session's title goes too (`ClampContext.title`), unless the
stage calls a place by it (its words are all in the location, the description or a zone's
label): the title names the story, not a thing in it. Live, the embedded Director made it a
subject three times in the toll-house: "The toll House at Low Water is now open." (#59, seed
73, turn 1), "The toll house at Low Water opens with a small sigh and an audible voice."
(#61, seed 75, turn 1) and "The toll House at Low Water arrives at the river crossing."
(#62, seed 76, turn 9, the outcome of the human's "sits down by the fire").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from tavern.physics.acts import sentence_spans, without_sentences
from tavern.physics.attempt_told import BARE_OUTCOMES
from tavern.physics.dropping import rewrite_events
from tavern.physics.restated import content_words
from tavern.records import ClampChange, DirectorDecision

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

RULE = "prompt_copy"
MIN_WORDS = 2
"""Fewer content words say too little to be told apart from a prompt's ("Nobody moves.")."""


def copies_a_prompt_sentence(
    sentence: str, prompt: Sequence[frozenset[str]], names: frozenset[str] = frozenset()
) -> bool:
    """Whether the `sentence`'s content words, `names` aside, are `MIN_WORDS` or more and
    all words of one of the `prompt` sentences (`prompt_keys`).

    >>> keys = prompt_keys(("One open space: everyone present sees and hears everyone.",))
    >>> copies_a_prompt_sentence("Everyone present sees and hears everyone.", keys)
    True
    >>> copies_a_prompt_sentence("Everyone hears the bell.", keys)
    False
    >>> copies_a_prompt_sentence("This attempts fail.", prompt_keys(("Attempts may fail.",)))
    False
    """
    said = content_words(sentence) - names
    if len(said) < MIN_WORDS or not said.isdisjoint(_OUTCOME_WORDS):
        return False
    if any(said <= words for words in prompt):
        return True
    return _blends(sentence, said, prompt, names)


def _blends(
    sentence: str, said: set[str], prompt: Sequence[frozenset[str]], names: frozenset[str]
) -> bool:
    """Whether the sentence's words all come from the prompt sentences and one of its clauses
    copies one of them: live (toll-house #63, seed 77, turn 9), the follow-up's outcome of "sits
    down by the fire" ended "The moment is exhausted, so no one needs to.", the instructions'
    "compress time when the moment is exhausted" and "... when nobody needs to" in one."""
    if "," not in sentence and ";" not in sentence:
        return False
    if not said <= _vocabulary(tuple(prompt)):
        return False
    clauses = (content_words(c) - names for c in _CLAUSE.split(sentence))
    return any(len(c) >= MIN_WORDS and any(c <= words for words in prompt) for c in clauses)


_CLAUSE = re.compile(r"[,;]")


@lru_cache(maxsize=8)
def _vocabulary(prompt: tuple[frozenset[str], ...]) -> frozenset[str]:
    return frozenset().union(*prompt)


_OUTCOME_WORDS = BARE_OUTCOMES | {"failure", "fails", "success", "succeeds"}


@lru_cache(maxsize=8)
def prompt_keys(sentences: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    """The content words of each sentence of `sentences` (each may hold several)."""
    keys = []
    for text in sentences:
        flat = " ".join(text.split())
        keys += [frozenset(content_words(flat[a:b])) for a, b in sentence_spans(flat)]
    return tuple(key for key in keys if key)


def drop_prompt_copies(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """`d` without the event sentences that copy a prompt sentence (see the module)."""
    if not d.events or not (ctx.prompt_sentences or ctx.title):
        return d, []
    keys = prompt_keys(tuple(ctx.prompt_sentences))
    names = _name_words(tuple(c.body.display_name for c in (ctx.cast or {}).values()))
    title = _title_opening(ctx.title, _place_texts(ctx))

    def copies(sentence: str) -> bool:
        if title is not None and title.match(sentence):
            return True
        return bool(keys) and copies_a_prompt_sentence(sentence, keys, names)

    return rewrite_events(d, RULE, lambda ev: without_sentences(ev.text, copies))


def _place_texts(ctx: ClampContext) -> str:
    scene = ctx.scene
    return " ".join([scene.location, scene.description, *(z.label for z in scene.zones)])


@lru_cache(maxsize=16)
def _title_opening(title: str, places: str) -> re.Pattern[str] | None:
    """What a sentence opening with `title` begins with (any case and spacing), or None when
    there is no title or the stage's `places` hold all its content words.

    >>> _title_opening("The Toll House at Low Water", "the toll house").match(
    ...     "The toll House at  Low Water arrives.") is not None
    True
    >>> _title_opening("The Red Inn", "the Red Inn by the road") is None
    True
    """
    words = title.split()
    if not words or content_words(title) <= content_words(places):
        return None
    return re.compile(r"\s*" + r"\s+".join(map(re.escape, words)) + r"\b", re.IGNORECASE)


@lru_cache(maxsize=16)
def _name_words(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for name in names for w in content_words(name))
