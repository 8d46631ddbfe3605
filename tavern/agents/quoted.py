"""Dialogue in narration is invented: the prose renderer never read a spoken word.

The renderer's transcript shows every spoken line as a marker ("(Brother Caspar speaks.)"),
and its instructions forbid quoting anyone. Live, the embedded 0.5B model wrote lines for a
Character anyway (soak of the-vintners-wake #7, turn 4): "He says, 'We have no more ideas or
ideas yet. I'm just here to help you with what I've got. What can I assist you with
today?'". Words put in a Character's mouth by the narrator may belong to the character the
human drives, which breaks the agency lock for the reader. `drop_quoted_speech` removes every
sentence that holds a quotation of `MIN_QUOTED_WORDS` or more words, unless the quotation
stands in the public text the renderer was given (a sign or an inscription of the scene).
"""

from __future__ import annotations

from collections.abc import Sequence

from tavern.agents.repetition import sentence_spans
from tavern.physics.quotations import invented_quotations


def drop_quoted_speech(text: str, public: Sequence[str] = ()) -> str:
    """`text` without its sentences that overlap a quotation absent from `public`.

    >>> drop_quoted_speech("Caspar turns. He says, 'We have no ideas. I can help.' Rain falls.")
    'Caspar turns. Rain falls.'
    >>> drop_quoted_speech('"Is it late now?" he asks. Rain falls.')
    'Rain falls.'
    >>> drop_quoted_speech('A sign reads "Tolls in coin only".', ["A sign: tolls in coin only."])
    'A sign reads "Tolls in coin only".'
    """
    if not any(mark in text for mark in "\"'“‘"):
        return text
    invented = invented_quotations(text, " ".join(public).casefold())
    if not invented:
        return text
    kept, dropped = [], False
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        # '"Is it late?" he asks.' splits after the question: its tail goes with it.
        continues = dropped and sentence.lstrip()[:1].islower()
        dropped = continues or any(start < q_end and q_start < end for q_start, q_end in invented)
        if not dropped:
            kept.append(sentence)
    return "".join(kept).strip()
