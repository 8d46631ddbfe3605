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
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from tavern.physics.acts import sentence_spans, without_sentences
from tavern.physics.attempt_told import BARE_OUTCOMES
from tavern.physics.dropping import rewrite_events
from tavern.physics.restated import content_words
from tavern.records import ClampChange, DirectorDecision, PerceptionEvent

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
    return any(said <= words for words in prompt)


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
    if not d.events or not ctx.prompt_sentences:
        return d, []
    keys = prompt_keys(tuple(ctx.prompt_sentences))
    names = _name_words(tuple(c.body.display_name for c in (ctx.cast or {}).values()))

    def rewrite(ev: PerceptionEvent) -> str:
        return without_sentences(
            ev.text, lambda sentence: copies_a_prompt_sentence(sentence, keys, names)
        )

    return rewrite_events(d, RULE, rewrite)


@lru_cache(maxsize=16)
def _name_words(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for name in names for w in content_words(name))
