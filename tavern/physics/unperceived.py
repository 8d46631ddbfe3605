"""Unperceived: an event tells only what its witnesses perceive.

- `told_mind`: a clause after a comma opening with a gerund of thinking or deciding
  (", thinking he might ...", ", pensando que ...") is cut to the sentence's end; a sentence
  whose cast-member subject's verb is one of thinking goes. Deciding announces an act, which
  `agency` judges.
- `authored_speech`: the Director never writes dialogue. An event goes when, outside
  quotation marks, it holds a first- or second-person word, a question mark or an opening
  greeting, or when it quotes `MIN_QUOTED_WORDS` words or more no public text holds.

Both read the session language's `Lexicon`. Example: "Ilse Brandt reaches for the door,
thinking he might open the box." -> "Ilse Brandt reaches for the door."
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tavern.physics.acts import Names, read_acts, sentence_spans
from tavern.physics.dropping import drop_events, rewrite_events
from tavern.physics.quotations import QUOTATION, invented_quotations
from tavern.records import ClampChange, DirectorDecision, PerceptionEvent
from tavern.text import WORD, Lexicon, fold, lexicon_for, sentences, words

if TYPE_CHECKING:
    from tavern.physics.clamps import ClampContext

Changes = list[ClampChange]


def _gerunds(lex: Lexicon) -> list[str]:
    """The gerunds of thinking and deciding ("thinking", "planejando")."""
    return sorted(
        w for w in lex.thinking | lex.deciding if any(w.endswith(e) for e in lex.gerund_endings)
    )


def without_thinking_clauses(text: str, lex: Lexicon) -> str:
    """`text` without its clauses after a comma that open on a gerund of thinking.

    >>> without_thinking_clauses("Ilse opens the door, thinking he might open the box.",
    ...                          lexicon_for("en"))
    'Ilse opens the door.'
    >>> without_thinking_clauses("A chuva cai, batendo nas venezianas.", lexicon_for("pt-BR"))
    'A chuva cai, batendo nas venezianas.'
    """
    adverb = "|".join(map(re.escape, sorted(lex.adverb_endings)))
    gerund = "|".join(map(re.escape, _gerunds(lex)))
    clause = re.compile(rf",\s*(?:\w+(?:{adverb})\s+)?(?:{gerund})\b[^.!?]*", re.IGNORECASE)
    return clause.sub("", text)


def without_told_thoughts(text: str, names: Names, lex: Lexicon, actor: str | None = None) -> str:
    """`text` without its thinking clauses and its sentences of a cast member thinking; ""
    when nothing is left. A leading pronoun refers to `actor`."""
    text = without_thinking_clauses(text, lex)
    thinks = lex.thinking - lex.deciding
    if thinks.isdisjoint(words(text)):
        return text.strip()
    kept = []
    before = actor
    for a, b in sentence_spans(text):
        acts, before = read_acts(text[a:b], names, before, lex)
        if not any(act.verb in thinks for act in acts):
            kept.append(text[a:b])
    return "".join(kept).strip()


def drop_told_thoughts(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, Changes]:
    """Cut what an event tells of anyone's thinking; an event left empty goes."""
    if not d.events:
        return d, []
    names = Names.of(ctx.cast or {})
    lex = lexicon_for(ctx.language)

    def rewrite(ev: PerceptionEvent) -> str:
        kept = without_told_thoughts(ev.text, names, lex, ev.actor_id)
        return ev.text if kept == ev.text.strip() else kept

    return rewrite_events(d, "told_mind", rewrite)


def _greets(sentence: str, lex: Lexicon) -> bool:
    """Whether `sentence` opens on one to three greeting words and then a mark ("Hello, C3.",
    "Boa noite!"); "Welcome news arrives." does not."""
    found = re.match(r"\W*((?:[^\W\d_]+\s+){0,2}[^\W\d_]+)\s*[,!.?]", sentence)
    return found is not None and all(w in lex.greetings for w in words(found[1]))


def speaks(text: str, lex: Lexicon) -> bool:
    """Whether `text`, outside quotation marks, is a speaker's: the first or second person,
    a question, a greeting. An upper-case "I" is the English first person; a lower-case "i"
    is none, and neither is a person word after a determiner or a numeral ("dois nós").

    >>> en, pt = lexicon_for("en"), lexicon_for("pt-BR")
    >>> speaks("I think we should open it now.", en), speaks("Maren pulls at the bolt.", en)
    (True, False)
    >>> speaks("Você viu a chave?", pt), speaks("Boa noite, Maren.", pt)
    (True, True)
    >>> speaks("Maren Holt vê a chuva nos barris.", pt), speaks("Dois nós escorregam.", pt)
    (False, False)
    """
    unquoted = QUOTATION.sub(" ", text)
    if "?" in unquoted:
        return True
    determiners = lex.articles | lex.possessives | lex.prepositions | lex.numerals
    previous = ""
    for raw in WORD.findall(unquoted):
        word = fold(raw)
        person = word in lex.second_person or (word in lex.first_person and raw != "i")
        if person and previous not in determiners:  # "os nós dos dedos" are knuckles
            return True
        previous = word
    return any(_greets(sentence, lex) for sentence in sentences(unquoted))


def is_authored_speech(text: str, lex: Lexicon, public: str = "") -> bool:
    """Whether an event text is dialogue: a speaker's words outside quotes (`speaks`), or
    a quotation of `MIN_QUOTED_WORDS` words or more absent from `public` (case-folded).

    >>> is_authored_speech("The sign reads 'No credit given here'.", lexicon_for("en"),
    ...                    public="no credit given here")
    False
    """
    return speaks(text, lex) or bool(invented_quotations(text, public))


def drop_authored_speech(
    d: DirectorDecision, ctx: ClampContext
) -> tuple[DirectorDecision, Changes]:
    """Drop each event whose text is dialogue the Director wrote."""
    if not d.events:
        return d, []
    lex = lexicon_for(ctx.language)
    stage = [ctx.scene.location, ctx.scene.description, *ctx.scene.facts, *ctx.all_public_texts]
    public = " ".join(stage).casefold()
    return drop_events(d, "authored_speech", lambda ev: is_authored_speech(ev.text, lex, public))
