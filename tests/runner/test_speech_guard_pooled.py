"""The speech guard pools its spoken words once a beat (`spoken_words`, one object the
beat's clamps share); the guard as it was before pooling stays here as the reference. A
property test compares old and new, with and without the pooled words handed in (the result
never depends on that reuse), on generated contexts and decisions; a realistic case guards a
hall's speech; the negative control plants pooled words of a beat before and is caught."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.agents.render import tokens_in
from tavern.physics.clamps import redact_visible
from tavern.physics.guards import scene_texts
from tavern.physics.redaction import salient_tokens
from tavern.records import (
    Audience,
    ClampChange,
    DirectorDecision,
    HistoryRecord,
    SessionState,
    SpeechRecord,
)
from tavern.runner import speech_guard as guard_module
from tavern.runner.speech_guard import RULE, speech_guard, spoken_words
from tavern.store import Library, materialize_session

from .kit import director_answer

WORDS = ["saltmarrow", "quillbrook", "ledger", "vintner", "midnight", "cellar", "the"]
SLOTS = ["C1", "C2", "C3", "C4", "C5"]


def guarded_as_it_was(
    decision: DirectorDecision, state: SessionState, context: Sequence[HistoryRecord]
) -> tuple[DirectorDecision, list[ClampChange]]:
    """The reference: `speech_guard` before its words were pooled once a beat."""
    public = tokens_in(
        [
            *scene_texts(state.scene),
            state.world,
            *(c.body.display_name for c in state.cast.values()),
            *(c.body.appearance for c in state.cast.values()),
            *(c.body.description_ref for c in state.cast.values()),
        ]
    )
    frozen = frozenset(public)
    payloads = [
        (frozenset(r.audience.perceivers), salient_tokens(r.text) - frozen)
        for r in context
        if isinstance(r, SpeechRecord) and r.audience.origin != "whisper"
    ]
    payloads = [p for p in payloads if p[1]]
    if not payloads:
        return decision, []
    by_audience: dict[frozenset[str], set[str]] = {}
    for audience, toks in payloads:
        by_audience.setdefault(audience, set()).update(toks)
    present = set(state.scene.present)
    everywhere = set().union(
        *(toks for audience, toks in by_audience.items() if not present <= audience)
    )

    def hidden_in_event(i: int) -> set[str]:
        witnesses = set(decision.events[i].witness_ids)
        return set().union(
            *(
                toks
                for audience, toks in by_audience.items()
                if not witnesses or not witnesses <= audience
            )
        )

    return redact_visible(decision, RULE, hidden_in_event, everywhere)


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> SessionState:
    library = Library(tmp_path_factory.mktemp("library"))
    return materialize_session(library.get_scenario("the-vintners-wake"), library, "s-pooled")


def said(seq: int, words: list[int], hearers: list[int], whisper: bool) -> SpeechRecord:
    audience = Audience(origin="whisper" if whisper else "zone",
                        perceivers=sorted({SLOTS[h] for h in hearers} | {"C1"}))  # fmt: skip
    text = " ".join(WORDS[w] for w in words) + "."
    return SpeechRecord(seq=seq, turn_number=1, speaker="C1", author="character",
                        audience=audience, text=text)  # fmt: skip


def decided(texts: list[tuple[list[int], list[int]]], mood: list[int]) -> DirectorDecision:
    events = [
        {"kind": "world_event", "text": " ".join(WORDS[w] for w in words) + ".",
         "actor_id": None, "witness_ids": [SLOTS[h] for h in seen], "utterance_ref": None}
        for words, seen in texts
    ]  # fmt: skip
    mood_text = " ".join(WORDS[w] for w in mood) or "calm"
    return DirectorDecision.model_validate(
        director_answer(
            ["C2"],
            events=events,
            mood_updates={"C2": mood_text},
            scene={"add_facts": [mood_text], "remove_facts": [], "new_location": None},
        )  # fmt: skip
    )


def _agree(state: SessionState, context: list[HistoryRecord], decision: DirectorDecision) -> None:
    expected = guarded_as_it_was(decision, state, context)
    assert guard_module.speech_guard(decision, state, context) == expected
    pooled = guard_module.spoken_words(state, context)
    assert guard_module.speech_guard(decision, state, context, pooled) == expected


word_lists = st.lists(st.integers(0, len(WORDS) - 1), max_size=5)
hearer_lists = st.lists(st.integers(0, len(SLOTS) - 1), max_size=5)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(st.tuples(word_lists, hearer_lists, st.booleans()), max_size=12),
    events=st.lists(st.tuples(word_lists, hearer_lists), max_size=4),
    mood=word_lists,
)
def test_pooled_guard_equals_the_guard_as_it_was(
    state: SessionState,
    lines: list[tuple[list[int], list[int], bool]],
    events: list[tuple[list[int], list[int]]],
    mood: list[int],
) -> None:
    context: list[HistoryRecord] = [said(i, *line) for i, line in enumerate(lines)]
    _agree(state, context, decided(events, mood))


def test_pooled_guard_equals_the_guard_as_it_was_on_a_hall(state: SessionState) -> None:
    """Realistic: the hall says a word, the cellar does not hear it, an event seen from the
    cellar and a mood copy it."""
    hall = Audience(origin="zone", perceivers=["C1", "C2", "C4", "C5"])
    context: list[HistoryRecord] = [
        SpeechRecord(
            seq=i,
            turn_number=1,
            speaker="C1",
            author="human",
            audience=hall,
            text=f"The word is Saltmarrow{i}.",
        )  # fmt: skip
        for i in range(40)
    ]
    decision = decided([([0], [2]), ([1, 2], [1, 3])], [0])
    decision = decision.model_copy(
        update={
            "mood_updates": {"C2": "mutters Saltmarrow3"},
            "events": [
                e.model_copy(update={"text": "Saltmarrow7 echoes."}) for e in decision.events
            ],
        }  # fmt: skip
    )
    _agree(state, context, decision)
    guarded, changes = speech_guard(decision, state, context, spoken_words(state, context))
    assert changes and "Saltmarrow3" not in guarded.mood_updates["C2"]


def test_negative_control_words_pooled_a_beat_before_are_caught(
    state: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planted: the pooled words of an earlier, shorter context are handed in."""
    stale = spoken_words(state, [])
    real = guard_module.spoken_words
    monkeypatch.setattr(guard_module, "spoken_words", lambda state, context: stale)
    context: list[HistoryRecord] = [said(0, [0], [1], False)]
    decision = decided([([0], [2])], [0])
    with pytest.raises(AssertionError):
        _agree(state, context, decision)
    monkeypatch.setattr(guard_module, "spoken_words", real)
    _agree(state, context, decision)


def test_negative_control_an_audience_pooling_only_its_first_line_is_caught(
    state: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planted: each audience keeps the tokens of its first line only."""

    def first_lines(state: SessionState, context: Sequence[HistoryRecord]) -> Any:
        pooled = real(state, context)
        first: dict[frozenset[str], frozenset[str]] = {}
        for audience, toks in guard_module._payloads(state, context):
            first.setdefault(audience, toks)
        return guard_module.SpokenWords(first, pooled.everywhere)

    real = guard_module.spoken_words
    monkeypatch.setattr(guard_module, "spoken_words", first_lines)
    context: list[HistoryRecord] = [said(0, [0], [1], False), said(1, [1], [1], False)]
    with pytest.raises(AssertionError):
        _agree(state, context, decided([([1], [2])], []))
