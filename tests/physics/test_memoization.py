"""The physics memo caches never answer for inputs they were not computed from.

Each test first warms a cache, then changes exactly one input the cached function reads and
shows the answer changing with it (the negative control: a cache keyed on too little would
return the stale, warmed answer and fail here).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics.identity import initial_identities, learn_all, learn_names, render_for_viewer
from tavern.physics.redaction import redact, salient_tokens
from tavern.records import Audience, Body, Character, Mind, Scene, SpeechRecord, ThoughtRecord

SCENE = Scene(location="the inn")


def _thought(text: str) -> ThoughtRecord:
    return ThoughtRecord(
        seq=1, turn_number=1, speaker="C1", author="character", text=text,
        audience=Audience(origin="private", perceivers=["C1"]),
    )  # fmt: skip


def _whisper(text: str, perceivers: list[str]) -> SpeechRecord:
    return SpeechRecord(
        seq=2, turn_number=1, speaker="C1", author="character", text=text,
        audience=Audience(origin="whisper", perceivers=perceivers),
    )  # fmt: skip


def test_redaction_cache_follows_the_hidden_set() -> None:
    text = "The vault code is 4471.\nThe lamp is red."
    assert redact(text, frozenset({"4471"})) == "The vault code is [...].\nThe lamp is red."
    assert redact(text, frozenset({"lamp"})) == "The vault code is 4471.\nThe [...] is red."
    assert redact(text, frozenset()) == text
    assert salient_tokens("Vault 4471") == frozenset({"vault", "4471"})


def test_render_cache_follows_a_learned_name() -> None:
    cast = {
        s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n, description_ref=d))
        for s, n, d in [("C1", "Ana", "the tall woman"), ("C2", "Rui", "the man in grey")]
    }
    ledger = initial_identities(cast)["C1"]
    assert render_for_viewer("Rui waves.", "C1", ledger, cast) == "The man in grey waves."
    heard = SpeechRecord(
        seq=3, turn_number=1, speaker="C2", author="character", text="Call me Rui.",
        audience=Audience(origin="public", perceivers=["C1", "C2"]),
    )  # fmt: skip
    learned = learn_names(ledger, heard, cast, "C1")
    assert render_for_viewer("Rui waves.", "C1", learned, cast) == "Rui waves."
    assert render_for_viewer("Rui waves.", "C1", ledger, cast) == "The man in grey waves."


_CAST = {
    s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n, description_ref=d))
    for s, n, d in [
        ("C1", "Ana Sol", "the tall woman"), ("C2", "Rui", "the man in grey"),
        ("C3", "Tomas", "the boy"),
    ]
}  # fmt: skip
_LINES = ["Call me Lobo.", "Rui, over here!", "Ana, wait.", "Tomas and Ana.", "Eu me chamo Zé.",
          "Nothing.", "I am Rui."]  # fmt: skip


def _reference_learn(ledger: Any, record: Any, viewer: str) -> Any:
    """The fold before lessons were remembered: every search, every time."""
    from tavern.physics.identity import _INTRO, _name_forms, _teach, _whole_word
    from tavern.physics.perception import perceives

    if not isinstance(record, SpeechRecord) or perceives(record, viewer) != "content":
        return ledger
    for match in _INTRO.finditer(record.text):
        if record.speaker != viewer:
            ledger = _teach(ledger, record.speaker, match.group(1), record.seq)
    for slot, character in _CAST.items():
        if slot == viewer or slot not in record.audience.perceivers:
            continue
        for form in _name_forms(character):
            if _whole_word(form).search(record.text):
                ledger = _teach(ledger, slot, form, record.seq)
                break
    return ledger


_speeches = st.builds(
    lambda seq, who, text, heard: SpeechRecord(
        seq=seq, turn_number=1, speaker=who, author="character", text=text,
        audience=Audience(origin="public", perceivers=sorted({who, *heard})),
    ),
    st.integers(0, 50), st.sampled_from(list(_CAST)), st.sampled_from(_LINES),
    st.sets(st.sampled_from(list(_CAST))),
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_speeches, max_size=12), st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)))
)
def test_remembered_lessons_equal_a_fresh_fold(records: list[Any], windows: list[Any]) -> None:
    """Windows over the same records, for every viewer, in any order: learning from the
    remembered lessons gives the ledger a fresh search of every record gives."""
    start = initial_identities(_CAST)
    for lo, n in [(0, len(records)), *windows]:
        window = records[lo : lo + n]
        for viewer in _CAST:
            expected = start[viewer]
            for record in window:
                expected = _reference_learn(expected, record, viewer)
            assert learn_all(start[viewer], window, _CAST, viewer) == expected


def test_negative_control_lessons_remembered_for_another_viewer_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tavern.physics import identity

    heard = SpeechRecord(
        seq=3, turn_number=1, speaker="C2", author="character", text="Ana, wait.",
        audience=Audience(origin="public", perceivers=["C1", "C2", "C3"]),
    )  # fmt: skip
    start = initial_identities(_CAST)
    # Planted: the memo key forgets the viewer.
    monkeypatch.setattr(identity._LESSONS, "number", lambda key: 0)
    identity._LESSONS._last.clear()
    learn_all(start["C1"], [heard], _CAST, "C1")  # C1 is not taught its own name
    stale = learn_all(start["C3"], [heard], _CAST, "C3")
    assert stale != _reference_learn(start["C3"], heard, "C3")


def test_negative_control_projected_lines_keyed_without_the_hidden_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same records under a stage that makes a thought's word public: the line must
    change. A key that forgets the hidden set serves the masked line again."""
    from datetime import UTC, datetime

    from tavern.physics import observation
    from tavern.physics.record_memo import RecordMemo
    from tavern.records import EventRecord, SessionState

    def state(location: str) -> SessionState:
        return SessionState(
            id="s-memo", scenario_id="t", title="t", world="w",
            created_at=datetime(2026, 1, 1, tzinfo=UTC), cast=_CAST, controlled_id="C1",
            scene=Scene(location=location, present=["C1", "C2", "C3"]),
        )  # fmt: skip

    event = EventRecord(
        seq=2, turn_number=1, speaker="World", author="director", event_kind="world_event",
        text="The ledger burns.", audience=Audience(origin="public", perceivers=["C1", "C2"]),
    )  # fmt: skip
    history = [_thought("the ledger is forged"), event]

    def lines(location: str) -> list[str]:
        return [x.text for x in observation.observe(state(location), history, "C2").lines]

    assert lines("the inn") == ["The [...] burns."]
    assert lines("the ledger room") == ["The ledger burns."]
    monkeypatch.setattr(observation, "_LINES", RecordMemo())
    monkeypatch.setattr(observation._LINES, "number", lambda key: hash(key[:2]))  # planted
    assert lines("the inn") == ["The [...] burns."]
    assert lines("the ledger room") == ["The [...] burns."]  # stale: caught


_ID_PIECES = ["C1", "C12", "C99", "C0", "C123", "XC2", "_C3", "éC4", "C5x", "C6_", " ", "\n",
              "-", "C", "1", "Cc7", "ΣC8", "C9é", "word"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ID_PIECES), max_size=30).map("".join))
def test_fast_slot_id_replacement_equals_the_regex_sub(text: str) -> None:
    from tavern.physics.identity import SLOT_ID, replace_slot_ids

    def name(m: Any) -> str:
        return f"<{m.group()}>"

    assert replace_slot_ids(text, name) == SLOT_ID.sub(name, text)


def test_negative_control_a_search_without_the_leading_boundary_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import re

    from tavern.physics import identity

    text = "XC2 met C1"
    expected = identity.SLOT_ID.sub("?", text)
    # Planted: candidates confirmed without the leading \b.
    monkeypatch.setattr(identity, "SLOT_ID", re.compile(r"C[1-9][0-9]?\b"))
    assert identity.replace_slot_ids(text, lambda m: "?") != expected


def test_remembered_memory_lines_follow_growth_eviction_and_names() -> None:
    """A ledger's memory grows, drops its front and learns a name: every observation renders
    it exactly as rendering each line afresh would."""
    from datetime import UTC, datetime

    from tavern.physics.observation import observe
    from tavern.records import SessionState

    state = SessionState(
        id="s-mem", scenario_id="t", title="t", world="w",
        created_at=datetime(2026, 1, 1, tzinfo=UTC), cast=_CAST, controlled_id="C1",
        scene=Scene(location="the inn", present=["C1", "C2", "C3"]),
    )  # fmt: skip
    ledger = initial_identities(_CAST)["C1"]
    lines = [f"Rui said {i}." for i in range(6)]
    memories = [lines[:3], lines[:5], lines[2:6], lines[3:6] + ["Tomas nods."]]
    heard = SpeechRecord(
        seq=3, turn_number=1, speaker="C2", author="character", text="Call me Rui.",
        audience=Audience(origin="public", perceivers=["C1", "C2"]),
    )  # fmt: skip
    for learned in (False, True):
        current = learn_names(ledger, heard, _CAST, "C1") if learned else ledger
        for memory in memories:
            viewed = current.model_copy(update={"memory": memory})
            seen = state.model_copy(update={"ledgers": {"C1": viewed}})
            expected = tuple(render_for_viewer(m, "C1", viewed, _CAST) for m in memory)
            assert observe(seen, [], "C1").memory == expected


def _renamed(cast: dict[str, Character], slot: str, name: str) -> dict[str, Character]:
    body = cast[slot].body.model_copy(update={"display_name": name})
    return {**cast, slot: cast[slot].model_copy(update={"body": body})}


_CALLED = SpeechRecord(
    seq=4, turn_number=1, speaker="C1", author="character", text="Rui, over here!",
    audience=Audience(origin="public", perceivers=["C1", "C2", "C3"]),
)  # fmt: skip


def _learned_rui(cast: dict[str, Character]) -> str | None:
    start = initial_identities(cast)["C3"]
    return learn_all(start, [_CALLED], cast, "C3").identities["C2"].name


def test_what_a_speech_names_follows_the_cast_names() -> None:
    """The per-record search (`identity._heard`) is shared by viewers, never by casts: the
    same record names Rui for one cast and nobody where C2 is called otherwise."""
    other = _renamed(_CAST, "C2", "Vasco")
    assert [_learned_rui(c) for c in (_CAST, other, _CAST)] == ["Rui", None, "Rui"]


def test_negative_control_a_search_memo_keyed_without_the_cast_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tavern.physics import identity

    monkeypatch.setattr(identity, "_LESSONS", type(identity._LESSONS)())  # start cold
    monkeypatch.setattr(identity, "_HEARD", type(identity._HEARD)())
    monkeypatch.setattr(identity._HEARD, "number", lambda key: 0)  # planted: one key for all
    assert _learned_rui(_CAST) == "Rui"
    assert _learned_rui(_renamed(_CAST, "C2", "Vasco")) == "Rui"  # stale: nobody said Vasco
