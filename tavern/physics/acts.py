"""Who does what in a sentence: the cast member a sentence names as its subject, and its verb.

Read by the clamps `agency`, `agency_move`, `told_mind` and the narration filters, shallow
on purpose and the same in every language through its `Lexicon`: a subject is a cast name
(id, display name, a name word no other member shares, or description) opening the sentence
or its main clause after a lead-in, several joined by "and", or a pronoun for the one named
just before; the verb is the next word, adverbs and clitics skipped, or the gerund or
participle after an auxiliary. Anything else is no act the rules judge.

    >>> from tavern.records import Body, Character, Mind
    >>> body = Body(display_name="Ilse Brandt", description_ref="the ferryman's girl")
    >>> names = Names.of({"C1": Character(id="ilse", mind=Mind(), body=body)})
    >>> read_act("Ilse Brandt vê a chuva.", names, None, lexicon_for("pt-BR"))[0]
    Act(subjects=('C1',), verb='vê', by_pronoun=False)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tavern.physics.quotations import quotations
from tavern.records import Character
from tavern.text import LANGUAGES, Lexicon, lexicon_for

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\[\.\.\.\]")
"""A word, or the guards' mask, so a masked word still stands before a name."""
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])(?<!\[\.\.\.)[\"'”’)\]]*\s+")
_EN = lexicon_for("en")


def words_of(text: str) -> list[str]:
    """The casefolded words of `text`, the mask "[...]" counted as one.

    >>> words_of("Maren's [...] opens.")
    ["maren's", '[...]', 'opens']
    """
    return _WORD.findall(text.casefold().replace("’", "'"))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of `text`, each with the space after it; a quotation's
    sentences belong to the one that quotes them.

    >>> sentence_spans("Rain. She says, 'Go home. Now.' Wind.")
    [(0, 6), (6, 32), (32, 37)]
    """
    quoted = [(a, b) for a, b, _ in quotations(text)]
    spans, start = [], 0
    for gap in _SENTENCE_BREAK.finditer(text):
        if any(a < gap.start() and gap.end() <= b for a, b in quoted):
            continue
        spans.append((start, gap.end()))
        start = gap.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def without_sentences(
    text: str,
    goes: Callable[[str], bool],
    spans_of: Callable[[str], list[tuple[int, int]]] = sentence_spans,
) -> str:
    """`text` without its sentences (`spans_of`) for which `goes` holds, stripped; `text`
    itself when none goes.

    >>> without_sentences("Rain. Time passes. Wind.", lambda s: s.startswith("Time"))
    'Rain. Wind.'
    """
    spans = spans_of(text)
    kept = [(a, b) for a, b in spans if not goes(text[a:b])]
    if len(kept) == len(spans):
        return text
    return "".join(text[a:b] for a, b in kept).strip()


@dataclass(frozen=True)
class Names:
    """How sentences name the cast: each slot's id, full display name, its description
    without its article (when no one else has it) and every name word no other member
    shares, as word tuples, by first word, longest first; `words`: every name word."""

    forms: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]]
    words: frozenset[str]

    @classmethod
    def of(cls, cast: Mapping[str, Character]) -> Names:
        """The name forms of `cast`.

        >>> from tavern.records import Body, Mind
        >>> body = Body(display_name="Ilse Brandt", description_ref="the barefoot girl")
        >>> names = Names.of({"C1": Character(id="ilse", mind=Mind(), body=body)})
        >>> names.at(["barefoot", "girl", "waits"], 0)
        ('C1', 2)
        """
        articles = frozenset().union(*(lexicon_for(lang).articles for lang in LANGUAGES))
        full = {slot: tuple(words_of(c.body.display_name)) for slot, c in cast.items()}
        owners: dict[str, set[str]] = {}
        for slot, said in full.items():
            for w in said:
                owners.setdefault(w, set()).add(slot)
        forms: set[tuple[tuple[str, ...], str]] = set()
        for slot, said in full.items():
            forms.add(((slot.casefold(),), slot))
            if said:
                forms.add((said, slot))
            forms.update(((w,), slot) for w in said if len(w) >= 3 and owners[w] == {slot})
        described: dict[tuple[str, ...], set[str]] = {}
        for slot, c in cast.items():
            said = tuple(words_of(c.body.description_ref))
            if said and said[0] in articles:  # `read_act` steps over an article
                said = said[1:]
            if any(len(w) >= 3 for w in said):
                described.setdefault(said, set()).add(slot)
        forms.update((said, slot) for said, (slot, *more) in described.items() if not more)
        by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for form in sorted(forms, key=lambda f: (-len(f[0]), f)):
            by_first.setdefault(form[0][0], []).append(form)
        every = frozenset(w for said in full.values() for w in said)
        return cls({first: tuple(found) for first, found in by_first.items()}, every)

    def at(self, words: Sequence[str], i: int) -> tuple[str, int] | None:
        """The slot named at `words[i]` and the index after the name, or None."""
        for form, slot in self.forms.get(words[i], ()):
            if tuple(words[i : i + len(form)]) == form:
                return slot, i + len(form)
        return None


@dataclass(frozen=True)
class Act:
    """A sentence's subjects (slot ids) and its verb."""

    subjects: tuple[str, ...]
    verb: str
    by_pronoun: bool = False
    """Whether the subject is a pronoun naming the one named before."""


def _ends(word: str, endings: frozenset[str], lexicon: Lexicon) -> bool:
    """Whether `word` is a verb form with one of `endings` (two letters at least before it,
    and no stop word: "nothing", "quando")."""
    return (
        not lexicon.is_stop(word)
        and word.isalpha()
        and any(word.endswith(e) and len(word) >= len(e) + 2 for e in endings)
    )


def _past_adverbs(words: Sequence[str], i: int, lexicon: Lexicon) -> int:
    """The index of the first word from `i` that is no adverb or clitic before a verb."""
    while i < len(words) and (
        words[i] in lexicon.pre_verbal or _ends(words[i], lexicon.adverb_endings, lexicon)
    ):
        i += 1
    return i


def read_act(
    sentence: str, names: Names, before: str | None, lexicon: Lexicon = _EN
) -> tuple[Act | None, str | None]:
    """The act `sentence` states, if its subject is the cast, and who a following pronoun
    names (`before`: who the text named last).

    >>> from tavern.records import Body, Mind
    >>> body = Body(display_name="Ilse Brandt", description_ref="the ferryman's girl")
    >>> names = Names.of({"C1": Character(id="ilse", mind=Mind(), body=body)})
    >>> read_act("As Ilse Brandt speaks, she opens the box.", names, None)
    (Act(subjects=('C1',), verb='opens', by_pronoun=True), 'C1')
    >>> read_act("The lamp goes out.", names, "C1")
    (None, 'C1')
    >>> read_act("Ilse Brandt's hands shake.", names, None)
    (None, 'C1')
    """
    lead, comma, main = sentence.partition(",")
    lead_words = words_of(lead)
    if (
        comma
        and lead_words
        and (
            lead_words[0] in lexicon.leads
            or (len(lead_words) == 1 and _ends(lead_words[0], lexicon.adverb_endings, lexicon))
        )
    ):
        in_lead = set(named(lead_words, names))
        if len(in_lead) == 1:
            before = next(iter(in_lead))
        words = words_of(main)
    else:
        words = words_of(sentence) if comma else lead_words  # without a comma, the lead is all
    subjects: list[str] = []
    by_pronoun = False
    # A stray article before a name hides no one ("A Agnese Corvo walks ...").
    i = 1 if len(words) > 1 and words[0] in lexicon.articles and names.at(words, 1) else 0
    while i < len(words):
        found = names.at(words, i)
        if found is not None:
            subjects.append(found[0])
            i = found[1]
        elif not subjects and words[i] in lexicon.third_person and before is not None:
            subjects.append(before)
            by_pronoun = True
            i += 1
        elif subjects and words[i] in lexicon.joins:
            i += 1
            continue
        else:
            break
        if i < len(words) and words[i] in lexicon.joins:
            i += 1
    if not subjects:
        return None, before
    i = _past_adverbs(words, i, lexicon)
    no_verb = lexicon.prepositions | lexicon.articles | lexicon.relatives
    if i >= len(words) or words[i] in no_verb or names.at(words, i) is not None:
        return None, subjects[-1]
    if words[i].endswith("'s"):  # "Maren Holt's keys chime": the keys are the subject
        return None, subjects[-1]
    verb = words[i]
    if verb in lexicon.perfect_auxiliaries:
        done = _past_adverbs(words, i + 1, lexicon)
        if (
            done + 1 < len(words)
            and words[done] in ("been", "estado")
            and _ends(words[done + 1], lexicon.gerund_endings, lexicon)
        ):
            verb = words[done + 1]  # "had been listening" acts
        elif done < len(words) and _ends(words[done], lexicon.participle_endings, lexicon):
            verb = words[done]  # "had opened the box" acts, "had a lantern" undergoes
    elif verb in lexicon.progressive_auxiliaries:
        doing = _past_adverbs(words, i + 1, lexicon)
        if doing < len(words) and _ends(words[doing], lexicon.gerund_endings, lexicon):
            verb = words[doing]  # "is sitting on the table" acts, "is soaked" undergoes
    return Act(tuple(subjects), verb, by_pronoun), subjects[-1]


def _clause_break(lexicon: Lexicon) -> re.Pattern[str]:
    """Where a later clause of a sentence may start with a subject of its own: after a
    comma (with a coordinating conjunction or not), a semicolon, or "and" ("e"). A
    subordinate clause ("..., as Ilse runs") is not read."""
    coordinating = lexicon.conjunctions - lexicon.subordinators
    conjunctions = "|".join(sorted(map(re.escape, coordinating)))
    ands = "|".join(sorted(map(re.escape, lexicon.joins & coordinating)))
    return re.compile(
        rf",\s*(?:{conjunctions})\s+|;\s+|\s+(?:{ands})\s+(?:(?:{conjunctions})\s+)?|,\s*",
        re.IGNORECASE,
    )


def read_acts(
    sentence: str, names: Names, before: str | None, lexicon: Lexicon = _EN
) -> tuple[list[Act], str | None]:
    """The acts of `sentence`: that of the sentence as a whole (`read_act`), that of each
    later clause ("The coffin is open, and Agnese Corvo takes the will."), and the sentence
    read without a phrase between commas after its subject ("Ilse, a girl of fifteen, sits
    down."); and who a following pronoun names.

    >>> from tavern.records import Body, Mind
    >>> body = Body(display_name="Ilse Brandt", description_ref="the ferryman's girl")
    >>> names = Names.of({"C1": Character(id="ilse", mind=Mind(), body=body)})
    >>> [a.verb for a in read_acts("Rain falls, and Ilse runs; she hides.", names, None)[0]]
    ['runs', 'hides']
    >>> [a.verb for a in read_acts("Ilse, a girl of fifteen, sits down.", names, None)[0]]
    ['sits']
    """
    first, *later = _clause_break(lexicon).split(sentence)
    lead = first.split(None, 1)
    if later and len(lead) == 2 and lead[0].casefold() in lexicon.leads:
        later.insert(0, lead[1])  # "As Agnese walks to the window, ..." states an act
    determiners = "|".join(sorted(map(re.escape, lexicon.articles | lexicon.possessives)))
    appositive = re.match(
        rf"^([^,]+?),\s*(?:{determiners})\s[^,]{{1,80}},\s*(\S.*)$", sentence, re.I | re.S
    )
    if appositive:
        later.insert(0, f"{appositive[1]} {appositive[2]}")
    acts = []
    for part in [sentence, *later]:
        act, before = read_act(part, names, before, lexicon)
        if act is not None:
            acts.append(act)
    return acts, before


def named(words: Sequence[str], names: Names) -> list[str]:
    """The slots `words` name, in order.

    >>> from tavern.records import Body, Mind
    >>> body = Body(display_name="Ilse Brandt", description_ref="x")
    >>> named(words_of("Rain on Ilse Brandt."), Names.of({"C1": Character(id="i", mind=Mind(),
    ...     body=body)}))
    ['C1']
    """
    found = []
    i = 0
    while i < len(words):
        hit = names.at(words, i)
        if hit is None:
            i += 1
        else:
            found.append(hit[0])
            i = hit[1]
    return found
