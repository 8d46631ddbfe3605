"""The spoken-token union of a window, extended from a remembered window, equals the plain
union over every record (property test); the negative control trusts a remembered window by
its length alone."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.agents import prose
from tavern.records import Audience, SpeechRecord

_WORDS = ["lantern", "cellar", "ledger", "candle", "harvest", "notary"]


def _pool(n: int) -> list[SpeechRecord]:
    return [
        SpeechRecord(
            seq=i, turn_number=1, speaker="C1", author="character",
            text=f"{_WORDS[i % len(_WORDS)]} {_WORDS[(i * 5 + 1) % len(_WORDS)]} {i}{i}",
            audience=Audience(origin="public", perceivers=["C1", "C2"]),
        )
        for i in range(n)
    ]  # fmt: skip


def _plain(records: list[Any]) -> frozenset[str]:
    return frozenset().union(*(prose._spoken_tokens(r) for r in records))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(0, 21)), max_size=10))
def test_spoken_union_equals_the_plain_union(windows: list[tuple[int, int, int]]) -> None:
    """Windows that grow, move or shrink, from some item on made of fresh records (new
    identities, other words)."""
    pool = _pool(21)
    prose._UNIONS.clear()
    for start, length, fresh_from in windows:
        window: list[Any] = pool[start : start + length]
        window = window[:fresh_from] + [
            r.model_copy(update={"text": r.text + " quillbrook"}) for r in window[fresh_from:]
        ]
        assert prose._spoken_union(window) == _plain(window)


def test_negative_control_a_window_trusted_by_length_is_caught() -> None:
    """Planted: remember the last union and reuse it for any window at least as long."""
    pool = _pool(6)
    first = pool[:3]
    moved = [pool[0], pool[1], pool[2].model_copy(update={"text": "quillbrook"}), *pool[3:]]
    remembered = _plain(first)

    def by_length(records: list[Any]) -> frozenset[str]:
        tail = records[len(first) :]
        return remembered.union(*(prose._spoken_tokens(r) for r in tail))

    assert by_length(moved) != _plain(moved)
    prose._UNIONS.clear()
    prose._spoken_union(first)
    assert prose._spoken_union(moved) == _plain(moved)


def _stage(description: str) -> Any:
    from tavern.records import Scene

    class Stage:  # what `public_corpus` reads of a state
        scene = Scene(location="hall", description=description)
        opening_facts: list[str] = []
        cast: dict[str, Any] = {}

    return Stage()


def _check(asks: list[tuple[int, int, str]], spoken_only: Any) -> None:
    pool = _pool(12)
    prose._UNIONS.clear()
    prose._ONLY.clear()
    for start, length, shown in asks:
        state = _stage(f"A {shown} hall")
        window = pool[start : start + length]
        public = prose.tokens_in(prose.public_corpus(state))
        assert spoken_only(state, window) == _plain(window) - public


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 12), st.integers(0, 12), st.sampled_from(["", "ledger", "cellar"])
        ),
        max_size=12,
    )
)
def test_spoken_only_tokens_equal_the_plain_difference(
    asks: list[tuple[int, int, str]],
) -> None:
    """Windows asked again with nothing new (the remembered union object comes back) and
    stages whose public words change: the difference never comes from another stage."""
    _check(asks, prose.spoken_only_tokens)


def test_negative_control_a_difference_found_by_the_spoken_set_alone_is_caught() -> None:
    """Planted: a remembered difference matched on the spoken union only."""

    def by_spoken_only(state: Any, records: list[Any]) -> frozenset[str]:
        spoken = prose._spoken_union(records)
        for known, _, only in prose._ONLY:
            if known is spoken:
                return only
        only = spoken - prose.tokens_in(prose.public_corpus(state))
        prose._ONLY.append((spoken, frozenset(), only))
        return only

    asks = [(0, 4, ""), (0, 4, "ledger")]
    with pytest.raises(AssertionError):
        _check(asks, by_spoken_only)
    _check(asks, prose.spoken_only_tokens)
