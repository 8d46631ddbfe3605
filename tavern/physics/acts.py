"""Who does what in a sentence: the cast member a sentence names as its subject, and its verb.

Read by the clamps `agency` and `agency_move` (`physics.agency`). The reading is shallow on
purpose: a subject is a cast name (its id, its full display name, or a name word no other
member shares) at the start of the sentence or of its main clause after a leading "As ...,"
"When ...," or "Suddenly,", several joined by "and", or "he"/"she"/"they" for the one named
just before; the verb is the next word, adverbs in -ly skipped, a participle after a
form of "be" ("is sitting"), and one after a form of "have" ("had opened", "had been
listening"). Anything else is no act the rules judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from tavern.physics import quotations as quoting
from tavern.physics.quotations import quotations
from tavern.records import Character

_BE = frozenset("is are was were".split())
_DOING = re.compile(r"(?!being$|nothing$|something$|during$)[a-z]{2,}ing")
"""A present participle after a form of "be" is the act ("Ilse Brandt is explaining the
toll box", toll-house soak #9, turn 3, a beat in which she only thought)."""
_HAVE = frozenset("has have had".split())
_DONE = re.compile(r"[a-z]{2,}(?:ed|en)")
"""A regular or "-en" past participle after a form of "have" is the act: live (toll-house
soak #21, seed 38, turn 1) the renderer wrote "He had been listening to the sound of the river
crossing and wondered if the toll box was still locked. ... he had been thinking about how
long it would take", which read as "had", a verb of undergoing, for a beat with no event.
"had a lantern", "has heard" (an irregular participle) and "had been soaked" undergo."""
_ADVERBS = frozenset("then also just already never still often even ever".split())
"""Adverbs between a subject and its verb, besides those in -ly ("often" and "even" would
otherwise read as "-en" participles)."""
_PRONOUNS = frozenset(("he", "she", "they"))
_ARTICLES = frozenset(("a", "an", "the"))
_LEADS = frozenset("as when while after before once then suddenly meanwhile now".split())
_JOINS = frozenset(("and", "with"))
_NO_VERB = frozenset(
    "in at on by with near beside inside outside of the a an who whose which that s".split()
)
"""Words after a name that show it is no clause's subject ("Felix Aubert in the hall")."""
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\[\.\.\.\]")
"""A word, or the guards' mask, so a masked word still stands before a name."""
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])(?<!\[\.\.\.)[\"'”’)\]]*\s+")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of `text`, each with the space after it; a quotation's
    sentences belong to the one that quotes them."""
    return list(_sentence_spans(text, quoting.QUOTATION))


@lru_cache(maxsize=64)  # the agency rules and the clamps split the same narration in turn
def _sentence_spans(text: str, quotation: re.Pattern[str]) -> tuple[tuple[int, int], ...]:
    """`sentence_spans`; `quotation` (the pattern `quotations` reads) is in the key, so that
    a pattern replaced at run time (a test's negative control) is not answered from here."""
    quoted = [(a, b) for a, b, _ in quotations(text)]
    spans, start = [], 0
    for gap in _SENTENCE_BREAK.finditer(text):
        if any(a < gap.start() and gap.end() <= b for a, b in quoted):
            continue
        spans.append((start, gap.end()))
        start = gap.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return tuple(spans)


def without_sentences(
    text: str,
    goes: Callable[[str], bool],
    spans_of: Callable[[str], list[tuple[int, int]]] = sentence_spans,
) -> str:
    """`text` without its sentences (`spans_of`, by default `sentence_spans`) for which
    `goes` holds, stripped; `text` itself when none goes.

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
    without its article ("barefoot girl in the oilskin", when no one else has it) and every
    name word no other cast member shares, as lower-case word tuples, by first word, longest first.

    The description is a name: the Director reads the sheets and copies it as a subject
    ("The barefoot girl in the oilskin tried to walk slowly to the nearest window.", toll-house
    soak #23, turns 4, 6 and 7: the human's turn-2 attempt told as her act three times)."""

    forms: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]]
    words: frozenset[str]

    @classmethod
    def of(cls, cast: Mapping[str, Character]) -> Names:
        """The name forms of `cast`."""
        return _names(
            tuple((slot, c.body.display_name, c.body.description_ref) for slot, c in cast.items())
        )

    @classmethod
    def _build(cls, cast: tuple[tuple[str, str, str], ...]) -> Names:
        full = {slot: tuple(words_of(name)) for slot, name, _ in cast}
        owners: dict[str, set[str]] = {}
        for slot, words in full.items():
            for w in words:
                owners.setdefault(w, set()).add(slot)
        forms: set[tuple[tuple[str, ...], str]] = set()
        for slot, words in full.items():
            forms.add(((slot.casefold(),), slot))
            if words:
                forms.add((words, slot))
            forms.update(((w,), slot) for w in words if len(w) >= 3 and owners[w] == {slot})
        described: dict[tuple[str, ...], set[str]] = {}
        for slot, _, description in cast:
            words = tuple(words_of(description))
            if words and words[0] in _ARTICLES:  # `read_act` steps over an article
                words = words[1:]
            if any(len(w) >= 3 for w in words):
                described.setdefault(words, set()).add(slot)
        forms.update((words, slot) for words, (slot, *more) in described.items() if not more)
        by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for form in sorted(forms, key=lambda f: (-len(f[0]), f)):
            by_first.setdefault(form[0][0], []).append(form)
        names = frozenset(w for words in full.values() for w in words)
        return cls({first: tuple(found) for first, found in by_first.items()}, names)

    def at(self, words: Sequence[str], i: int) -> tuple[str, int] | None:
        """The slot named at `words[i]` and the index after the name, or None."""
        for form, slot in self.forms.get(words[i], ()):
            if tuple(words[i : i + len(form)]) == form:
                return slot, i + len(form)
        return None


@lru_cache(maxsize=16)  # a session's cast changes seldom; a server holds a few sessions
def _names(cast: tuple[tuple[str, str, str], ...]) -> Names:
    return Names._build(cast)


@dataclass(frozen=True)
class Act:
    """A sentence's subjects (slot ids) and its verb."""

    subjects: tuple[str, ...]
    verb: str
    by_pronoun: bool = False
    """Whether the subject is a pronoun naming the one named before."""


def read_act(sentence: str, names: Names, before: str | None) -> tuple[Act | None, str | None]:
    """The act `sentence` states, if its subject is the cast, and who a following pronoun
    names (`before`: who the text named last).

    >>> from tavern.records import Body, Character, Mind
    >>> body = Body(display_name="Ilse Brandt", description_ref="the ferryman's girl")
    >>> ilse = Character(id="ilse", mind=Mind(), body=body)
    >>> names = Names.of({"C1": ilse})
    >>> read_act("As Ilse Brandt speaks, she opens the box.", names, None)
    (Act(subjects=('C1',), verb='opens', by_pronoun=True), 'C1')
    >>> read_act("The lamp goes out.", names, "C1")
    (None, 'C1')
    """
    lead, comma, main = sentence.partition(",")
    lead_words = words_of(lead)
    if (
        comma
        and lead_words
        and (lead_words[0] in _LEADS or (len(lead_words) == 1 and lead_words[0].endswith("ly")))
    ):
        in_lead = set(named(lead_words, names))
        if len(in_lead) == 1:
            before = next(iter(in_lead))
        words = words_of(main)
    else:
        words = words_of(sentence) if comma else lead_words  # without a comma, the lead is all
    subjects: list[str] = []
    by_pronoun = False
    # "A Agnese Corvo walks ..." (an earlier vintners-wake soak, turn 2): a stray article
    # hides no one.
    i = 1 if len(words) > 1 and words[0] in _ARTICLES and names.at(words, 1) else 0
    while i < len(words):
        found = names.at(words, i)
        if found is not None:
            subjects.append(found[0])
            i = found[1]
        elif not subjects and words[i] in _PRONOUNS and before is not None:
            subjects.append(before)
            by_pronoun = True
            i += 1
        elif subjects and words[i] in _JOINS:
            i += 1
            continue
        else:
            break
        if i < len(words) and words[i] in _JOINS:
            i += 1
    if not subjects:
        return None, before
    i = _past_adverbs(words, i)
    if i >= len(words) or words[i] in _NO_VERB or names.at(words, i) is not None:
        return None, subjects[-1]
    verb = words[i]
    if verb in _HAVE:
        done = _past_adverbs(words, i + 1)
        if done + 1 < len(words) and words[done] == "been" and _DOING.fullmatch(words[done + 1]):
            verb = words[done + 1]  # "had been listening" acts
        elif done < len(words) and words[done] != "been" and _DONE.fullmatch(words[done]):
            verb = words[done]  # "had opened the box" acts, "had a lantern" undergoes
    elif verb in _BE and i + 1 < len(words) and _DOING.fullmatch(words[i + 1]):
        verb = words[i + 1]  # "is sitting on the table" acts, "is soaked" undergoes
    return Act(tuple(subjects), verb, by_pronoun), subjects[-1]


def _past_adverbs(words: Sequence[str], i: int) -> int:
    """The index of the first word from `i` that is no adverb in -ly or of `_ADVERBS`."""
    while i < len(words) and (words[i].endswith("ly") or words[i] in _ADVERBS):
        i += 1
    return i


_CLAUSE = re.compile(r",\s*(?:and|but|then|so)\s+|;\s+|\s+and\s+(?:then\s+)?|,\s*")
"""Where a later clause of a sentence may start with a subject of its own ("The coffin is
open, and Agnese Corvo decides to take it out.", "The coffin is now open and Agnese Corvo
decides ...", vintners-wake soak #14, turn 2), also after a fronted phrase ("The Vintner's
Wake, Agnese Corvo speaks.", vintners-wake soak #16, turn 2, a beat in which she only walked
to the window). A later part that starts with no name or pronoun ("... and opens it", "Ilse
and Maren", "the Vintner's Wake") states no act of its own."""


_APPOSITIVE = re.compile(
    r"^([^,]+?),\s*(?:a|an|the|his|her|their)\s[^,]{1,80},\s*(\S.*)$", re.IGNORECASE | re.DOTALL
)
"""A subject, then a phrase between commas that names it again: "Ilse Brandt, a girl of about
fifteen, sits on the counting table" (toll-house soak #54, seed 68, turn 1: the renderer sat
the human's character on the table on a beat in which she only spoke). The sentence is also
read without the phrase."""


def read_acts(sentence: str, names: Names, before: str | None) -> tuple[list[Act], str | None]:
    """The acts of `sentence`: that of the sentence as a whole (`read_act`) and that of each
    later clause, and who a following pronoun names.

    >>> from tavern.records import Body, Mind
    >>> body = Body(display_name="Ilse Brandt", description_ref="the ferryman's girl")
    >>> names = Names.of({"C1": Character(id="ilse", mind=Mind(), body=body)})
    >>> [a.verb for a in read_acts("Rain falls, and Ilse runs; she hides.", names, None)[0]]
    ['runs', 'hides']
    >>> [a.verb for a in read_acts("Ilse, a girl of fifteen, sits down.", names, None)[0]]
    ['sits']
    """
    acts = []
    # Every `_CLAUSE` branch holds a comma, a semicolon or "and": a sentence without any is one
    # clause, and the split (tried at each position) is not run.
    if "," in sentence or ";" in sentence or "and" in sentence:
        first, *later = _CLAUSE.split(sentence)
    else:
        first, later = sentence, []
    # A leading "As/When/While ... ," clause states an act of its own: "As Agnese Corvo walks
    # slowly to the nearest window and looks outside, ..." (vintners-wake soak #16, turn 4,
    # a skipped beat telling turn 2's attempt again).
    lead = first.split(None, 1)
    if later and len(lead) == 2 and lead[0].casefold() in _LEADS:
        later.insert(0, lead[1])
    appositive = _APPOSITIVE.match(sentence)
    if appositive:
        later.insert(0, f"{appositive[1]} {appositive[2]}")
    for part in [sentence, *later]:
        act, before = read_act(part, names, before)
        if act is not None:
            acts.append(act)
    return acts, before


def named(words: Sequence[str], names: Names) -> list[str]:
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


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.casefold())
