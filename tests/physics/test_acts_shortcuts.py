"""`physics.acts.read_acts`' shortcuts answer what its plain reading answered.

A sentence holding no comma, semicolon or "and" is one clause: the clause split, a regex
tried at every position, is not run for it; and a sentence without a comma has no lead, so
its words are read once. The reading as it was is kept here as the reference, and the
property compares them over sentences made of names, pronouns, leads, joins and verbs.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import acts
from tavern.physics.acts import Act, Names, named, words_of
from tavern.records import Body, Character, Mind

CAST = {
    "C1": Character(
        id="ilse", mind=Mind(), body=Body(display_name="Ilse Brandt", description_ref="the girl")
    ),
    "C2": Character(
        id="maren", mind=Mind(), body=Body(display_name="Maren Holt", description_ref="the keeper")
    ),
}
NAMES = Names.of(CAST)
PIECES = [
    "Ilse Brandt", "Maren", "Holt", "she", "they", "As", "When", "Suddenly,", "then", "slowly",
    "is", "sitting", "had", "opened", "been", "listening", "opens", "the", "box", "and", "with",
    "in", "hall", ",", ";", ", and", "but", "or", "Rain", "falls", "a girl of fifteen", ".",
    "Then", "AND", "sand", "C1",
]  # fmt: skip
SENTENCES = st.lists(st.sampled_from(PIECES), max_size=12).map(" ".join)


def _read_act(sentence: str, names: Names, before: str | None) -> tuple[Act | None, str | None]:
    """`acts.read_act` as it was: the words read again when there is no lead."""
    lead, comma, main = sentence.partition(",")
    lead_words = words_of(lead)
    if (
        comma
        and lead_words
        and (
            lead_words[0] in acts._LEADS or (len(lead_words) == 1 and lead_words[0].endswith("ly"))
        )
    ):
        in_lead = set(named(lead_words, names))
        if len(in_lead) == 1:
            before = next(iter(in_lead))
        words = words_of(main)
    else:
        words = words_of(sentence)
    subjects: list[str] = []
    by_pronoun = False
    i = 1 if len(words) > 1 and words[0] in acts._ARTICLES and names.at(words, 1) else 0
    while i < len(words):
        found = names.at(words, i)
        if found is not None:
            subjects.append(found[0])
            i = found[1]
        elif not subjects and words[i] in acts._PRONOUNS and before is not None:
            subjects.append(before)
            by_pronoun = True
            i += 1
        elif subjects and words[i] in acts._JOINS:
            i += 1
            continue
        else:
            break
        if i < len(words) and words[i] in acts._JOINS:
            i += 1
    if not subjects:
        return None, before
    i = acts._past_adverbs(words, i)
    if i >= len(words) or words[i] in acts._NO_VERB or names.at(words, i) is not None:
        return None, subjects[-1]
    verb = words[i]
    if verb in acts._HAVE:
        done = acts._past_adverbs(words, i + 1)
        if (
            done + 1 < len(words)
            and words[done] == "been"
            and acts._DOING.fullmatch(words[done + 1])
        ):
            verb = words[done + 1]
        elif done < len(words) and words[done] != "been" and acts._DONE.fullmatch(words[done]):
            verb = words[done]
    elif verb in acts._BE and i + 1 < len(words) and acts._DOING.fullmatch(words[i + 1]):
        verb = words[i + 1]
    return Act(tuple(subjects), verb, by_pronoun), subjects[-1]


def _read_acts(sentence: str, names: Names, before: str | None) -> tuple[list[Act], str | None]:
    """`acts.read_acts` as it was: the clause split run on every sentence."""
    found = []
    first, *later = acts._CLAUSE.split(sentence)
    lead = first.split(None, 1)
    if later and len(lead) == 2 and lead[0].casefold() in acts._LEADS:
        later.insert(0, lead[1])
    appositive = acts._APPOSITIVE.match(sentence)
    if appositive:
        later.insert(0, f"{appositive[1]} {appositive[2]}")
    for part in [sentence, *later]:
        act, before = _read_act(part, names, before)
        if act is not None:
            found.append(act)
    return found, before


def _agrees(sentence: str, before: str | None) -> bool:
    return acts.read_acts(sentence, NAMES, before) == _read_acts(sentence, NAMES, before)


@settings(max_examples=400)
@given(SENTENCES, st.sampled_from([None, "C1", "C2"]))
def test_read_acts_answers_what_the_plain_reading_answers(
    sentence: str, before: str | None
) -> None:
    assert _agrees(sentence, before)


def test_negative_control_a_clause_mark_the_shortcut_does_not_know_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Were a clause also to open at "or", a sentence with no comma, semicolon or "and"
    would be split by the reference and not by the shortcut: the property sees it."""
    sentence = "Rain falls or Maren opens the box."
    assert _agrees(sentence, None)
    monkeypatch.setattr(acts, "_CLAUSE", re.compile(acts._CLAUSE.pattern + r"|\s+or\s+"))
    assert not _agrees(sentence, None)
