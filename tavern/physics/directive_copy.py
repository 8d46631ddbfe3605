"""Clamp `directive_copy`: a sentence that repeats a run of a scenario's tone directive.

The tone directives ("Reveal secrets through action and slips, never through confession on
demand.") tell the Director and the renderer how to tell the story; they are not the story.
Live (vintners-wake #55, seed 71, turn 2), the embedded Director gave the human's walk to
the window the event "This is an unspoken attempt to read the will in the notary's satchel
and reveal secrets through action and slips.", and the renderer narrated it again: every
witness remembered an instruction as something that happened.

A sentence goes when it holds `RUN_WORDS` words in a row of one directive (case and
punctuation aside). Fewer would take a story's own sentences: five take "No one is a villain
here." from the toll house's "No one is a villain; everyone is cornered.". The clamp cuts
event sentences; the runner cuts narration sentences with the same function. An event left
without a sentence goes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from tavern.physics.dropping import rewrite_events
from tavern.physics.mind_copy import Run, holds_run, without_sentences_holding, word_runs
from tavern.records import ClampChange, DirectorDecision, PerceptionEvent

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

RULE = "directive_copy"
RUN_WORDS = 6
"""Words in a row of a directive that make a sentence its copy ("reveal secrets through
action and slips" is six)."""


@lru_cache(maxsize=16)
def directive_runs(directives: tuple[str, ...]) -> frozenset[Run]:
    """Every run of `RUN_WORDS` words of each directive (runs never cross two directives)."""
    return frozenset(run for d in directives for run in word_runs(d, RUN_WORDS))


def copies_a_directive(sentence: str, runs: frozenset[Run]) -> bool:
    """Whether `sentence` holds one of the directive `runs`.

    >>> runs = directive_runs(("Reveal secrets through action and slips.",))
    >>> copies_a_directive("He tries to reveal secrets through action and slips.", runs)
    True
    >>> copies_a_directive("She reveals a secret through a slip.", runs)
    False
    """
    return bool(runs) and holds_run(sentence, runs, RUN_WORDS)


def without_directive_copies(text: str, directives: Sequence[str]) -> str:
    """`text` without its sentences that copy a run of one of the `directives`.

    >>> without_directive_copies("Rain falls. Keep descriptions concrete: rain, rope, coin.",
    ...                          ["Keep descriptions concrete: rain, rope, coin, ink."])
    'Rain falls.'
    """
    return without_sentences_holding(text, directive_runs(tuple(directives)), RUN_WORDS)


def drop_directive_copies(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, list[ClampChange]]:
    """`d` without the event sentences that copy a tone directive (see the module)."""
    if not d.events or not ctx.directives:
        return d, []

    def rewrite(ev: PerceptionEvent) -> str:
        return without_directive_copies(ev.text, ctx.directives)

    return rewrite_events(d, RULE, rewrite)
