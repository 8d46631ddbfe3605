"""Answers follow every input they read: the secrets walk's memo, redaction, rendering,
name learning and projected lines.

Each test asks once, then changes exactly one input and shows the answer changing with it
(a cache keyed on too little would return the stale answer and fail here; the walk memo's
negative controls plant such keys).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.physics import guards, secret_fold
from tavern.physics.guards import hidden_tokens_for, thought_only_tokens, whisper_payloads
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


def test_secrets_walk_follows_a_changed_record_text() -> None:
    assert "ledger" in thought_only_tokens([_thought("the ledger is forged")], SCENE)
    changed = thought_only_tokens([_thought("the dagger is hidden")], SCENE)
    assert "ledger" not in changed and "dagger" in changed


def test_secrets_walk_follows_a_changed_audience_and_scene() -> None:
    history = [_whisper("meet at the mill", ["C1", "C2"])]
    assert "mill" in hidden_tokens_for(history, SCENE, "C3")
    widened = [_whisper("meet at the mill", ["C1", "C2", "C3"])]
    assert "mill" not in hidden_tokens_for(widened, SCENE, "C3")
    # The stage naming the mill makes the word public: no longer a payload.
    assert whisper_payloads(history, Scene(location="the mill"))[0].tokens == frozenset({"meet"})


def test_secrets_walk_follows_public_texts() -> None:
    history = [_thought("the ledger is forged")]
    assert "ledger" in thought_only_tokens(history, SCENE)
    assert "ledger" not in thought_only_tokens(history, SCENE, ["a ledger on the desk"])


def test_thought_owner_map_is_a_copy_callers_may_change() -> None:
    history = [_thought("the ledger is forged")]
    first = thought_only_tokens(history, SCENE)
    first.clear()
    assert "ledger" in thought_only_tokens(history, SCENE)


def test_redaction_follows_the_hidden_set() -> None:
    text = "The vault code is 4471.\nThe lamp is red."
    assert redact(text, frozenset({"4471"})) == "The vault code is [...].\nThe lamp is red."
    assert redact(text, frozenset({"lamp"})) == "The vault code is 4471.\nThe [...] is red."
    assert redact(text, frozenset()) == text
    assert salient_tokens("Vault 4471") == frozenset({"vault", "4471"})


def test_rendering_follows_a_learned_name() -> None:
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


def _fresh_thought_walks(walk: object) -> list[bool]:
    """Walk 200 one-record histories made and dropped in turn, cycling three texts.

    Each answer must follow its own record: a freed record's memory (and so its id) is
    reused at once (the allocator cycles through one or two addresses), so an identity key
    that did not keep its records alive would answer for an earlier, different text.
    """
    results = []
    for i in range(200):
        word = ("ledger", "dagger", "mill")[i % 3]
        owners = walk([_thought(f"the {word} is forged")])  # type: ignore[operator]
        results.append(word in owners)
    return results


def test_secrets_walk_identity_key_keeps_its_records_alive() -> None:
    assert all(_fresh_thought_walks(lambda h: thought_only_tokens(h, SCENE)))


def test_secrets_walk_checks_its_records_when_identities_collide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A walk is filed by its records' identities at both ends, then used only for the very
    records asked about: all records sharing one identity (what a dead record's reused
    address would look like) must still get their own answers."""
    monkeypatch.setattr(guards, "id", lambda _record: 1, raising=False)
    guards._WALKS.clear()
    assert all(_fresh_thought_walks(lambda h: thought_only_tokens(h, SCENE)))
    guards._WALKS.clear()


def test_negative_control_colliding_identities_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted fault: colliding identities, and a memo trusting its slot without checking
    the records (`_same_records`); the check above then sees stale answers."""
    monkeypatch.setattr(guards, "id", lambda _record: 1, raising=False)
    monkeypatch.setattr(guards, "_same_records", lambda _a, _b: True)
    guards._WALKS.clear()
    assert not all(_fresh_thought_walks(lambda h: thought_only_tokens(h, SCENE)))
    guards._WALKS.clear()


def test_hidden_tokens_are_cached_per_viewer() -> None:
    history = [_whisper("meet at the mill", ["C1", "C2"])]
    assert "mill" in hidden_tokens_for(history, SCENE, "C3")
    assert hidden_tokens_for(history, SCENE, "C2") == frozenset()
    assert "mill" in hidden_tokens_for(history, SCENE, "C3")


_WORDS = ["ledger", "mill", "dagger", "seal", "ring"]


def _record(kind: str, seq: int, word: str, speaker: str) -> SpeechRecord | ThoughtRecord:
    if kind == "thought":
        return ThoughtRecord(
            seq=seq, turn_number=1, speaker=speaker, author="character", text=f"the {word}",
            audience=Audience(origin="private", perceivers=[speaker]),
        )  # fmt: skip
    origin = "whisper" if kind == "whisper" else "public"
    return SpeechRecord(
        seq=seq, turn_number=1, speaker=speaker, author="character", text=f"the {word}",
        audience=Audience(origin=origin, perceivers=[speaker, "C2"]),
    )  # fmt: skip


_records = st.lists(
    st.tuples(
        st.sampled_from(["thought", "whisper", "speech"]),
        st.sampled_from(_WORDS),
        st.sampled_from(["C1", "C3"]),
    ),
    min_size=2,
    max_size=12,
)


def _branching_walks(spec: list[tuple[str, str, str]], cut: int) -> tuple[object, object]:
    """Walk a prefix, one extension of it, then another: the second extension's answer
    (continued from the prefix's walk) and a fresh walk's answer of the same history."""
    records = [_record(k, i, w, s) for i, (k, w, s) in enumerate(spec)]
    prefix, other = records[:cut], _record("speech", 99, "ledger", "C2")
    hidden_tokens_for(prefix, SCENE, "C2")
    hidden_tokens_for([*prefix, other], SCENE, "C2")
    history = records

    def answers() -> tuple[object, ...]:
        return (
            thought_only_tokens(history, SCENE),
            whisper_payloads(history, SCENE),
            hidden_tokens_for(history, SCENE, "C2"),
            hidden_tokens_for(history, SCENE, "C3"),
        )

    continued = answers()
    guards._WALKS.clear()
    return continued, answers()


@given(_records, st.integers(min_value=1, max_value=11))
def test_a_continued_walk_equals_a_fresh_one(spec: list[tuple[str, str, str]], cut: int) -> None:
    guards._WALKS.clear()
    continued, fresh = _branching_walks(spec, min(cut, len(spec) - 1))
    assert continued == fresh


def test_negative_control_a_shared_walk_state_goes_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secret_fold.SecretFold, "copy", lambda self: self)  # planted: no copy
    guards._WALKS.clear()
    spec = [("thought", "ledger", "C1"), ("thought", "mill", "C1")]
    continued, fresh = _branching_walks(spec, 1)
    assert continued != fresh  # the branch that said "ledger" aloud leaked into this one


@given(_records, _records)
def test_walks_filed_alike_answer_for_their_own_records(
    middle: list[tuple[str, str, str]], other: list[tuple[str, str, str]]
) -> None:
    """Two histories of one length sharing both end records share a slot: the second still
    gets a fresh walk's answers."""
    ends = _record("speech", 0, "ring", "C1"), _record("thought", 99, "seal", "C3")
    size = min(len(middle), len(other))
    first = [ends[0], *(_record(k, i, w, s) for i, (k, w, s) in enumerate(middle[:size])), ends[1]]
    second = [ends[0], *(_record(k, i, w, s) for i, (k, w, s) in enumerate(other[:size])), ends[1]]

    def answers() -> tuple[object, ...]:
        return thought_only_tokens(second, SCENE), hidden_tokens_for(second, SCENE, "C2")

    guards._WALKS.clear()
    thought_only_tokens(first, SCENE)
    hidden_tokens_for(first, SCENE, "C2")
    remembered = answers()
    guards._WALKS.clear()
    assert remembered == answers()


_CAST = {
    s: Character(id=s.lower(), mind=Mind(), body=Body(display_name=n, description_ref=d))
    for s, n, d in [
        ("C1", "Ana Sol", "the tall woman"), ("C2", "Rui", "the man in grey"),
        ("C3", "Tomas", "the boy"),
    ]
}  # fmt: skip
_LINES = ["Call me Lobo.", "Rui, over here!", "Ana, wait.", "Tomas and Ana.", "Eu me chamo Zé.",
          "Nothing.", "I am Rui."]  # fmt: skip


def test_projected_lines_follow_the_hidden_set() -> None:
    """The same records under a stage that makes a thought's word public: the line must
    change, and change back."""
    from datetime import UTC, datetime

    from tavern.physics import observation
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
    assert lines("the inn") == ["The [...] burns."]


@given(st.lists(st.sampled_from(["the ledger is forged", "meet at the mill", "Rui waves"])))
def test_thought_only_words_are_the_keys_of_thought_only_tokens(texts: list[str]) -> None:
    from tavern.physics.guards import thought_only_words

    history = [_thought(t) for t in texts]
    assert thought_only_words(history, SCENE) == set(thought_only_tokens(history, SCENE))


def test_memory_lines_follow_growth_eviction_and_names() -> None:
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


@given(_records, st.lists(st.integers(min_value=1, max_value=11), max_size=4))
def test_a_chain_of_continued_walks_answers_a_new_viewer_as_a_fresh_walk(
    spec: list[tuple[str, str, str]], cuts: list[int]
) -> None:
    """Walks continuing walks (each kept alive by the memo): a viewer first asked about at
    the end gets the fresh walk's answer, read through the whole chain."""
    records = [_record(k, i, w, s) for i, (k, w, s) in enumerate(spec)]
    guards._WALKS.clear()
    for cut in sorted(cuts):
        thought_only_tokens(records[:cut], SCENE)
    continued = [hidden_tokens_for(records, SCENE, v) for v in ("C2", "C3", "C1")]
    guards._WALKS.clear()
    assert continued == [hidden_tokens_for(records, SCENE, v) for v in ("C2", "C3", "C1")]


def test_negative_control_a_chain_trusting_its_base_alone_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = guards._legit

    def base_only(secrets: Any, viewer: str) -> frozenset[str]:
        base = secrets.base()
        return real(base, viewer) if base is not None else real(secrets, viewer)  # planted

    # C1 whispers the word to C2; C3 then thinks it itself, which makes it C3's to read.
    records = [_record("whisper", 0, "ledger", "C1"), _record("thought", 1, "ledger", "C3")]
    guards._WALKS.clear()
    thought_only_tokens(records[:1], SCENE)
    monkeypatch.setattr(guards, "_legit", base_only)
    assert "ledger" in hidden_tokens_for(records, SCENE, "C3")  # its own thought, hidden
    monkeypatch.undo()
    guards._WALKS.clear()
    assert "ledger" not in hidden_tokens_for(records, SCENE, "C3")


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
    """The same record names Rui for one cast and nobody where C2 is called otherwise."""
    other = _renamed(_CAST, "C2", "Vasco")
    assert [_learned_rui(c) for c in (_CAST, other, _CAST)] == ["Rui", None, "Rui"]


def _plain_feed(public: set[str], history: list[Any]) -> tuple[Any, ...]:
    """The secrets fold as first written: each event word tested against every whisper."""
    from tavern.records import ActionRecord, EventRecord, SystemRecord

    owners: dict[str, set[str]] = {}
    whispers: list[tuple[int, frozenset[str], set[str]]] = []
    for record in history:
        if isinstance(record, ThoughtRecord):
            for token in salient_tokens(record.text) - public:
                owners.setdefault(token, set()).add(record.speaker)
        elif isinstance(record, SpeechRecord) and record.audience.origin == "whisper":
            payload = set(salient_tokens(record.text) - public)
            for token in payload:
                owners.pop(token, None)
            whispers.append((record.seq, frozenset(record.audience.perceivers), payload))
        elif isinstance(record, SpeechRecord | ActionRecord):
            said = salient_tokens(record.text)
            public |= said
            for token in said:
                owners.pop(token, None)
            for _seq, _who, payload in whispers:
                payload -= said
        elif isinstance(record, EventRecord | SystemRecord):
            public.update(
                token
                for token in salient_tokens(record.text)
                if token not in owners and not any(token in p for _s, _w, p in whispers)
            )
    return public, owners, whispers


def _any_record(kind: str, seq: int, words: list[str], speaker: str) -> Any:
    from tavern.records import EventRecord

    if kind == "event":
        return EventRecord(
            seq=seq, turn_number=1, speaker="World", author="director", event_kind="world_event",
            text=" ".join(words), audience=Audience(origin="public", perceivers=["C1", "C2"]),
        )  # fmt: skip
    return _record(kind, seq, " ".join(words), speaker)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["thought", "whisper", "speech", "event"]),
            st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3),
            st.sampled_from(["C1", "C3"]),
        ),
        max_size=14,
    )
)
def test_secrets_fold_equals_its_plain_form(spec: list[tuple[str, list[str], str]]) -> None:
    history = [_any_record(k, i, w, s) for i, (k, w, s) in enumerate(spec)]
    fold = secret_fold.SecretFold({"ring"})
    fold.feed(history)
    assert (fold.public, fold.owners, fold.whispers) == _plain_feed({"ring"}, history)


def test_an_event_repeating_a_whispered_word_does_not_make_it_public() -> None:
    """The planted fault the property above was seen catching: an event fold that forgets
    the whispers would publish "mill" here."""
    history = [_any_record("whisper", 0, ["mill"], "C1"), _any_record("event", 1, ["mill"], "C1")]
    fold = secret_fold.SecretFold(set())
    fold.feed(history)
    assert "mill" not in fold.public and fold.whispers[0][2] == {"mill"}
