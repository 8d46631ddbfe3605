"""Answers follow every input they read: the secrets walk's memo, redaction, rendering,
name learning and projected lines.

Each test asks once, then changes exactly one input and shows the answer changing with it
(a cache keyed on too little would return the stale answer and fail here; the walk memo's
negative controls plant such keys).
"""

from __future__ import annotations

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
    """The same record names Rui for one cast and nobody where C2 is called otherwise."""
    other = _renamed(_CAST, "C2", "Vasco")
    assert [_learned_rui(c) for c in (_CAST, other, _CAST)] == ["Rui", None, "Rui"]


def test_token_table_is_per_turn_and_gives_what_the_plain_walk_gives() -> None:
    """The turn's `TokenTable` tokenizes each text once and changes no verdict; a table
    that answered one text for another (keyed on too little) is caught."""
    from tavern.physics.guards import knowledge_of
    from tavern.physics.redaction import TokenTable

    history = [_whisper("meet at the mill", ["C1", "C2"]), _thought("the ledger 4471")]
    table = TokenTable()
    assert knowledge_of(history, SCENE, (), table) == knowledge_of(history, SCENE)
    assert table("meet at the mill") is table("meet at the mill")
    assert table("Vault 4471") == salient_tokens("Vault 4471")

    class Stale(TokenTable):  # planted: one answer for every text
        def __call__(self, text: str) -> frozenset[str]:
            return super().__call__("meet at the mill")

    assert knowledge_of(history, SCENE, (), Stale()) != knowledge_of(history, SCENE)


def test_redaction_of_a_normalized_set_is_the_same_redaction() -> None:
    """`normalized=True` skips normalizing a set the guards built; it must mask exactly what
    the plain call masks. Control: a set that is not in normalized form is then not read as
    such, so the flag is only for sets from `salient_tokens` and `Knowledge`."""
    text = "The VAULT code is 4471; Ação na Vault."
    hidden = frozenset(salient_tokens("vault 4471 ação"))
    assert redact(text, hidden, normalized=True) == redact(text, hidden)
    assert redact(text, hidden) == "The [...] code is [...]; [...] na [...]."
    assert redact(text, frozenset({"VAULT"}), normalized=True) == text  # control


def test_salient_tokens_reads_each_word_as_normalize_does() -> None:
    """The ASCII fast path (the whole text lowered at once) gives what normalizing word by
    word gives, in both languages; a fast path that lost the digits rule would fail here."""
    from hypothesis import given
    from hypothesis import strategies as st

    from tavern.physics.redaction import _WORD, _salient_normalized, normalize

    def by_word(text: str) -> frozenset[str]:
        return frozenset(t for t in map(normalize, _WORD.findall(text)) if _salient_normalized(t))

    @given(st.text(alphabet=st.sampled_from("aZ9_ .,'Çãé\u0301İ-"), max_size=40))
    def same(text: str) -> None:
        assert salient_tokens(text) == by_word(text)

    same()
    assert salient_tokens("Vault 42 é o CÓDIGO") == frozenset({"vault", "42", "código"})
