"""The physics memo caches never answer for inputs they were not computed from.

Each test first warms a cache, then changes exactly one input the cached function reads and
shows the answer changing with it (the negative control: a cache keyed on too little would
return the stale, warmed answer and fail here).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.physics import guards
from tavern.physics.guards import hidden_tokens_for, thought_only_tokens, whisper_payloads
from tavern.physics.identity import initial_identities, learn_names, render_for_viewer
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


def test_negative_control_colliding_identities_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The keep-alive guarantees that no two live keys share an identity. Planted fault: all
    records share one identity (what a dead record's reused address would look like to a
    memo that did not keep it alive); the check above then sees stale answers."""
    monkeypatch.setattr(guards, "id", lambda _record: 1, raising=False)
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
    monkeypatch.setattr(guards._Fold, "copy", lambda self: self)  # planted: no copy
    guards._WALKS.clear()
    spec = [("thought", "ledger", "C1"), ("thought", "mill", "C1")]
    continued, fresh = _branching_walks(spec, 1)
    assert continued != fresh  # the branch that said "ledger" aloud leaked into this one
