"""Runaway repetition is cut from narration (`agents.repetition`), and only runaway repetition.

The loops below are shortened from live sessions on the embedded model, where most long
narrations cycled through the same sentences until the 1,500-character cap closed them.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.agents import repetition
from tavern.agents.repetition import TRAILING_OFF, cut_runaway, sentence_spans

FACTS = (
    "The trapdoor to the cellar is shut and bolted from the hall side. The will is in the "
    "notary's satchel. The coffin lies open in the middle of the hall. "
)
CYCLE = "In the long hall, the air is cold. " + FACTS * 8 + "Dorotea Sand walks slow"
CLAUSE = "I read aloud, and " * 20 + "I read aloud."


def _loops(text: str) -> list[str]:
    """An independent oracle: every repeated long sentence and every thrice-said clause."""
    found = []
    sentences = [" ".join(s.lower().split()) for s in text.replace("!", ".").split(". ")]
    long = [s.rstrip(".") for s in sentences if len(s.split()) >= repetition.MIN_SENTENCE_WORDS]
    found += [s for i, s in enumerate(long) if s in long[:i]]
    words = [w.strip(".,;:!?…\"'") for w in text.lower().split()]
    for unit in range(repetition.MIN_UNIT_WORDS, repetition.MAX_UNIT_WORDS + 1):
        for at in range(len(words) - 3 * unit + 1):
            copies = {tuple(words[at + k * unit : at + (k + 1) * unit]) for k in range(3)}
            if len(copies) == 1:
                found.append(" ".join(words[at : at + unit]))
    return found


def test_a_sentence_cycle_ends_before_its_first_repeat() -> None:
    assert (
        cut_runaway(CYCLE, cap=len(CYCLE)) == "In the long hall, the air is cold. " + FACTS.strip()
    )


def test_a_looping_clause_keeps_one_copy_and_trails_off() -> None:
    assert cut_runaway(CLAUSE) == "I read aloud, and I read aloud" + TRAILING_OFF
    assert cut_runaway("Wind. " + "he said no, " * 3) == "Wind. he said no" + TRAILING_OFF
    assert cut_runaway("Steps — " * 2 + "a bell — " * 4) == "Steps — Steps — a bell" + TRAILING_OFF


def test_a_clause_loop_is_looked_for_in_a_capped_answer_only() -> None:
    assert cut_runaway(CLAUSE, cap=len(CLAUSE)) == "I read aloud, and I read aloud" + TRAILING_OFF
    assert cut_runaway(CLAUSE, cap=len(CLAUSE) + 1) == CLAUSE  # the model stopped by itself


def test_a_capped_text_loses_its_unfinished_sentence_only() -> None:
    capped = "Rain falls on the roof. The candles gutter low and the"
    assert cut_runaway(capped, cap=len(capped)) == "Rain falls on the roof."
    assert cut_runaway(capped, cap=len(capped) + 1) == capped  # the model stopped there itself
    assert cut_runaway("no full stop anywhere", cap=21) == "no full stop anywhere"


@pytest.mark.parametrize(
    "text",
    [
        "Knock, knock, knock. The bell tolls. Nothing moves. The bell tolls.",
        "Again and again and again the rain came down on the cask house.",
        "Mara waits by the door. Rui waits by the door, too. Tomas waits by the window.",
        "She turned. She turned again. She turned once more, slower now.",
    ],
)
def test_ordinary_repetition_in_prose_is_kept(text: str) -> None:
    assert cut_runaway(text) == text


def test_the_oracle_sees_the_planted_loops() -> None:
    assert _loops(CYCLE) and _loops(CLAUSE)
    assert not _loops(cut_runaway(CYCLE, cap=len(CYCLE))) and not _loops(cut_runaway(CLAUSE))


VOCAB = "cask lantern vow ledger bell veil candle satchel cellar notary wax debt rain".split()
clauses = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=14).map(" ".join)
texts = st.lists(
    st.tuples(clauses, st.sampled_from([". ", ", ", " ", "! ", " — "]), st.integers(1, 4)),
    min_size=1,
    max_size=12,
).map(lambda parts: "".join((c + sep) * n for c, sep, n in parts))


@settings(max_examples=400, deadline=None)
@given(text=texts, capped=st.booleans())
def test_the_cut_keeps_a_prefix_with_no_loop_left(text: str, capped: bool) -> None:
    out = cut_runaway(text, cap=len(text) if capped else None)
    assert text.lstrip().startswith(out.removesuffix(TRAILING_OFF))
    assert not _loops(out)
    assert cut_runaway(out) == out


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from(VOCAB), unique=True, min_size=1, max_size=13))
def test_text_without_repeats_is_untouched(words: list[str]) -> None:
    text = ". ".join(" ".join(words[i : i + 4]) for i in range(0, len(words), 4)) + "."
    assert cut_runaway(text) == text


def test_negative_control_without_the_clause_rule_a_loop_survives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(repetition, "_through_first_copy", lambda text: text)
    assert _loops(cut_runaway(CLAUSE))


def test_negative_control_without_the_sentence_rule_a_cycle_survives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(repetition, "_before_repeated_sentence", lambda text: text)
    assert (
        "bolted from the hall side. The will is in the notary's satchel. The coffin lies "
        "open in the middle of the hall. The trapdoor" in cut_runaway(CYCLE, cap=len(CYCLE))
    )


def test_sentences_told_before_are_dropped_and_new_ones_kept() -> None:
    told = repetition.sentence_keys(FACTS)
    beat = "A door bangs upstairs. " + FACTS + "Rain begins, hard, on the roof tiles."
    assert repetition.drop_retold(beat, told) == (
        "A door bangs upstairs. Rain begins, hard, on the roof tiles."
    )
    assert repetition.drop_retold(FACTS, told) == ""
    assert repetition.drop_retold(
        "It was cold. It was cold.", repetition.sentence_keys("It was cold.")
    ) == ("It was cold. It was cold.")  # too short to count as told


LIVE_TOLD = (
    "The Vintner's Wake. A stone house with a long hall, a narrow balcony, and a vaulted cellar"
    " beneath reached by a trapdoor in the hall floor, now shut. The trapdoor to the cellar is"
    " shut and bolted from the hall side. The will is in the notary's satchel. The coffin lies"
    " open in the middle of the hall. The trapd, now sealed, is opened. The trapdoor to the"
    " cellar is now sealed."
)
LIVE_NEXT = (
    "The trapdoor to the cellar is shut and bolted from the hall side. The will is in the"
    " notary's satchel. The coffin lies open in the middle of the hall. The trapd, now sealed,"
    " is opened. The trapdoor to the cellar is now sealed. The trapd"
)
"""Soak vintners-wake #9, turns 6 and 7 (the model closed the second narration mid-word)."""


def test_a_retelling_cut_short_goes_with_the_rest() -> None:
    told = repetition.sentence_keys(LIVE_TOLD)
    assert repetition.drop_retold(LIVE_NEXT, told) == ""
    news = "Rain begins on the roof. The trapdoor to the cel"
    assert repetition.drop_retold(news, told) == "Rain begins on the roof."
    unfinished = "Rain begins on the roof. The notary's satchel slips and"
    assert repetition.drop_retold(unfinished, told) == unfinished  # begins nothing told


def test_negative_control_without_the_fragment_rule_the_stub_is_narrated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(repetition, "_begins_told", lambda text, told: False)
    told = repetition.sentence_keys(LIVE_TOLD)
    assert repetition.drop_retold(LIVE_NEXT, told) == "The trapd"


@settings(max_examples=300, deadline=None)
@given(earlier=texts, text=texts)
def test_a_retold_narration_keeps_only_untold_sentences_in_order(earlier: str, text: str) -> None:
    told = repetition.sentence_keys(earlier)
    out = repetition.drop_retold(text, told)
    assert not repetition.sentence_keys(out) & told
    kept = iter(" ".join(text.split()))  # the output is a subsequence of the text
    assert all(ch in kept for ch in " ".join(out.split()))
    assert repetition.drop_retold(text, frozenset()) == text


def test_the_mask_ends_no_sentence() -> None:
    text = "Teodor tries to [...] the box. He waits... Then goes."
    assert [text[a:b].strip() for a, b in sentence_spans(text)] == [
        "Teodor tries to [...] the box.",
        "He waits...",
        "Then goes.",
    ]


LIVE_EVENT = (
    "Ilse Brandt is presented to Maren Holt and Teodor Vask in the toll house at the river"
    " crossing."
)
LIVE_RETOLD = (
    "Ilse Brandt is presented to Maren Holt and Teodor Vask in a toll house at the river crossing."
)


def test_a_retelling_with_another_article_or_comma_is_retold() -> None:
    """Toll-house soak #18 (seed 35), turn 2: the turn-1 event told again with "a toll
    house"."""
    told = repetition.sentence_keys(LIVE_EVENT)
    assert repetition.drop_retold(f"{LIVE_RETOLD} Rain falls.", told) == "Rain falls."
    assert (
        repetition.drop_retold(
            "Ilse Brandt, is presented to Maren Holt.",
            repetition.sentence_keys("Ilse Brandt is presented to Maren Holt."),
        )
        == ""
    )
    assert repetition.drop_retold(
        "Rain falls. Ilse Brandt is presented to Maren Holt and Teodor Vask in th", told
    ) == ("Rain falls.")
    kept = "Ilse Brandt is presented to the river."
    assert repetition.drop_retold(kept, told) == kept


def test_negative_control_articles_compared_the_retelling_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(repetition, "ARTICLES", frozenset())
    repetition._keys.cache_clear()
    try:
        told = repetition.sentence_keys(LIVE_EVENT)
        assert repetition.drop_retold(LIVE_RETOLD, told) == LIVE_RETOLD
    finally:
        repetition._keys.cache_clear()


LIVE_STUTTER = (
    "Agnese Corvo speaks. Someone speaks. Someone speaks. Someone speaks. Time passes. Time passes."
)
"""Vintners-wake soak #23 (seed 36), turn 5: short sentences said again right away."""


def test_a_short_sentence_said_again_right_away_ends_the_text() -> None:
    assert repetition.cut_runaway(LIVE_STUTTER) == "Agnese Corvo speaks. Someone speaks."
    assert repetition.cut_runaway("Time passes. Time passes") == "Time passes."
    assert repetition.repeats_a_sentence("Rain. Rain. More")
    refrain = "The bell tolls. Rain falls. The bell tolls."
    assert repetition.cut_runaway(refrain) == refrain  # a refrain, not a stutter
    assert repetition.sentence_keys("Rain falls. The coffin lies open.") == {"coffin lies open"}


def test_negative_control_without_the_stutter_test_the_live_text_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(repetition, "_first_stutter", lambda keys: None)
    assert repetition.cut_runaway(LIVE_STUTTER) == LIVE_STUTTER


CLAUSE_THEN_SENTENCE = (
    "In the long hall with the open coffin, a stone house is built. The coffin lies open in the"
    " middle of the hall, and Dorotea Sand opens the coffin. The coffin lies open in the middle"
    " of the hall."
)
"""Vintners-wake #59 (seed 75), turn 8, as committed: a clause told again as a sentence."""


def test_a_sentence_told_before_as_a_clause_ends_the_text() -> None:
    told_once = CLAUSE_THEN_SENTENCE[: CLAUSE_THEN_SENTENCE.rindex(" The coffin")]
    assert cut_runaway(CLAUSE_THEN_SENTENCE) == told_once
    assert repetition.repeats_a_sentence(CLAUSE_THEN_SENTENCE)  # the stream stops there too
    kept = "The door opens, and a cold wind blows in. The wind is cold tonight."
    assert cut_runaway(kept) == kept


def test_negative_control_without_clause_keys_the_clause_is_told_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(repetition, "clause_keys", lambda sentence: [])
    assert cut_runaway(CLAUSE_THEN_SENTENCE) == CLAUSE_THEN_SENTENCE
