"""The secrets walks are filed under a number standing for their scene and public texts
(`guards._CONTEXTS.number`), not the texts themselves: answers never depend on it. Walks of
generated histories under several contexts, interleaved (so a walk may continue another's),
equal fresh walks with every memo emptied, also after the numbers are forgotten. The
negative control plants one number for every context, and stale answers are caught.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import guards
from tavern.physics.guards import hidden_tokens_for, thought_only_tokens, whisper_payloads
from tavern.records import Scene, SpeechRecord, ThoughtRecord

from .test_memoization import _record

_SCENES = [Scene(location="the inn"), Scene(location="the mill"), Scene(location="the inn")]
_PUBLIC: list[tuple[str, ...]] = [(), ("a ledger on the desk",), ("the ring",)]
_WORDS = ["ledger", "mill", "dagger", "ring", "seal"]


_POOL = [
    _record(k, i, w, s)
    for i, (k, w, s) in enumerate(
        (k, w, s) for k in ("thought", "whisper", "speech") for w in _WORDS for s in ("C1", "C3")
    )
]

_CALLS = st.lists(
    st.tuples(
        st.integers(0, len(_SCENES) - 1),
        st.integers(0, len(_PUBLIC) - 1),
        st.lists(st.integers(0, len(_POOL) - 1), max_size=8),
    ),
    min_size=1,
    max_size=6,
)


def _answers(
    history: list[SpeechRecord | ThoughtRecord], scene: Scene, public: tuple[str, ...]
) -> tuple[object, ...]:
    return (
        thought_only_tokens(history, scene, public),
        whisper_payloads(history, scene, public),
        hidden_tokens_for(history, scene, "C2", public),
        hidden_tokens_for(history, scene, "C3", public),
    )


def _forget() -> None:
    guards._WALKS.clear()
    guards._LATEST.clear()
    guards._CONTEXTS._numbers.clear()


def _stale_answers(calls: list[tuple[int, int, list[int]]]) -> list[int]:
    """Indexes of the calls whose memoized answer differs from a fresh walk's."""
    _forget()
    histories = []
    for scene_at, public_at, picks in calls:
        history = [_POOL[i] for i in picks]
        prefix = history[: len(history) // 2]
        _answers(prefix, _SCENES[scene_at], _PUBLIC[public_at])  # a walk to continue
        histories.append((history, _SCENES[scene_at], _PUBLIC[public_at]))
    memoized = [_answers(*h) for h in histories]
    stale = []
    for i, h in enumerate(histories):
        _forget()
        if _answers(*h) != memoized[i]:
            stale.append(i)
    _forget()
    return stale


@settings(max_examples=150, deadline=None)
@given(_CALLS)
def test_walks_filed_by_context_number_equal_fresh_walks(
    calls: list[tuple[int, int, list[int]]],
) -> None:
    assert _stale_answers(calls) == []


def test_forgotten_context_numbers_are_never_reused() -> None:
    _forget()
    history = [_POOL[_WORDS.index("mill") * 2]]  # C1 thinks "the mill"
    first = _answers(history, _SCENES[0], ())
    numbers = dict(guards._CONTEXTS._numbers)
    guards._CONTEXTS._numbers.clear()
    assert _answers(history, _SCENES[1], ()) != first  # "mill" is public on that stage
    assert set(guards._CONTEXTS._numbers.values()).isdisjoint(numbers.values())
    _forget()


def test_negative_control_one_number_for_every_context_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: every context gets number 0, so a walk under one stage answers for another."""
    monkeypatch.setattr(guards._CONTEXTS, "number", lambda _texts: 0)
    mill_thought = _POOL[_WORDS.index("mill") * 2]  # C1 thinks "the mill"
    calls = [(0, 0, [_POOL.index(mill_thought)]), (1, 0, [_POOL.index(mill_thought)])]
    assert _stale_answers(calls) != []
