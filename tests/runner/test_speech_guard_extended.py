"""`spoken_words` pools a context whose payloads continue a remembered context's by adding
only the new lines to that context's pools (a turn's context is the last one's, its beat
committed). The pooling as it was stays here as the reference; a property test compares old
and new over sequences of contexts that grow, move and come back as copies, and a realistic
turn sequence; the results never depend on the remembered pools; the negative control (a
remembered context matched by its length alone) is caught."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress
from operator import itemgetter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tavern.physics import continued
from tavern.records import Audience, HistoryRecord, SessionState, SpeechRecord
from tavern.runner import speech_guard as guard_module
from tavern.runner.speech_guard import SpokenWords
from tavern.store import Library, materialize_session

WORDS = ["saltmarrow", "quillbrook", "ledger", "vintner", "midnight", "cellar", "the"]
SLOTS = ["C1", "C2", "C3", "C4", "C5"]


def spoken_words_as_it_was(state: SessionState, context: Sequence[HistoryRecord]) -> SpokenWords:
    """The reference: `spoken_words` before it extended remembered pools."""
    payloads = guard_module._payloads(state, context)
    heard_by, tokens = list(map(itemgetter(0), payloads)), list(map(itemgetter(1), payloads))
    by_audience = {
        audience: frozenset().union(*compress(tokens, map(audience.__eq__, heard_by)))
        for audience in dict.fromkeys(heard_by)
    }
    present = set(state.scene.present)
    everywhere = frozenset().union(
        *(toks for audience, toks in by_audience.items() if not present <= audience)
    )
    return SpokenWords(by_audience, everywhere)


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> SessionState:
    library = Library(tmp_path_factory.mktemp("library"))
    return materialize_session(library.get_scenario("the-vintners-wake"), library, "s-extended")


def said(seq: int, words: list[int], hearers: list[int], whisper: bool = False) -> SpeechRecord:
    audience = Audience(origin="whisper" if whisper else "zone",
                        perceivers=sorted({SLOTS[h] for h in hearers} | {"C1"}))  # fmt: skip
    text = " ".join(WORDS[w] for w in words) + f" {seq}x."
    return SpeechRecord(seq=seq, turn_number=1, speaker="C1", author="character",
                        audience=audience, text=text)  # fmt: skip


def _agree(
    state: SessionState,
    contexts: list[list[HistoryRecord]],
    pooled: Callable[[SessionState, Sequence[HistoryRecord]], SpokenWords],
) -> None:
    guard_module._POOLS.clear()
    for context in contexts:
        new, old = pooled(state, context), spoken_words_as_it_was(state, context)
        assert new == old
        assert list(new.by_audience) == list(old.by_audience)  # the same order too


line = st.tuples(
    st.lists(st.integers(0, len(WORDS) - 1), max_size=4),
    st.lists(st.integers(0, len(SLOTS) - 1), max_size=4),
    st.booleans(),
)
contexts_spec = st.lists(
    st.tuples(st.integers(0, 14), st.integers(0, 14), st.integers(0, 15), st.booleans()),
    max_size=8,
)


def _contexts(lines: list[Any], spec: list[tuple[int, int, int, bool]]) -> list[list[Any]]:
    """Contexts of a pool of lines that grow, move or shrink; from some item on, copies of the
    records (as a committed beat comes back) with the same or with other words."""
    pool = [said(i, *spoken) for i, spoken in enumerate(lines)]
    contexts = []
    for start, length, fresh_from, same_words in spec:
        context = pool[start : start + length]
        extra = "" if same_words else " midnight"
        contexts.append(
            context[:fresh_from]
            + [r.model_copy(update={"text": r.text + extra}) for r in context[fresh_from:]]
        )
    return contexts


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(line, min_size=1, max_size=15), spec=contexts_spec)
def test_spoken_words_equal_the_pooling_as_it_was(
    state: SessionState, lines: list[Any], spec: list[tuple[int, int, int, bool]]
) -> None:
    _agree(state, _contexts(lines, spec), guard_module.spoken_words)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(line, min_size=1, max_size=15), spec=contexts_spec)
def test_spoken_words_never_depend_on_the_remembered_pools(
    state: SessionState, lines: list[Any], spec: list[tuple[int, int, int, bool]]
) -> None:
    for context in _contexts(lines, spec):
        remembered = guard_module.spoken_words(state, context)
        guard_module._POOLS.clear()
        assert guard_module.spoken_words(state, context) == remembered


def test_spoken_words_over_turns_of_committed_beats(state: SessionState) -> None:
    """Realistic: each turn's context is the last one's with its beat committed (new objects,
    same words), grown beat by beat; now and then the start moves."""
    history: list[HistoryRecord] = [said(i, [i % 7, (i * 3) % 7], [i % 5, 2]) for i in range(150)]
    contexts = []
    for turn in range(10):
        beat = [said(1000 + turn * 10 + k, [k, turn % 7], [k % 5]) for k in range(4)]
        contexts += [history + beat[:1], history + beat]
        history = history[6 if turn % 4 == 3 else 0 :] + [r.model_copy() for r in beat]
    _agree(state, contexts, guard_module.spoken_words)


def test_negative_control_a_context_matched_by_its_length_is_caught(
    state: SessionState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planted: a remembered context is taken as continued whenever it is not longer."""

    def by_length(items: Any, old: list[Any]) -> bool:
        return len(old) <= len(items)

    first = [said(0, [0], [1]), said(1, [1], [2])]
    moved = [said(5, [3], [1]), said(6, [4], [2]), said(7, [2], [3])]
    monkeypatch.setattr(continued, "continues", by_length)
    with pytest.raises(AssertionError):
        _agree(state, [first, moved], guard_module.spoken_words)
    monkeypatch.undo()
    _agree(state, [first, moved], guard_module.spoken_words)
