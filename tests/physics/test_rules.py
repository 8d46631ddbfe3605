"""Example tests: each rule with a planted violation it must catch (negative controls)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tavern.physics.clamps as clamps_module
from tavern.physics import (
    ClampContext,
    apply_canon,
    audience_for,
    can_hear,
    can_see,
    clamp_decision,
    digest_line,
    event_audience,
    has_unresolved_action,
    learn_names,
    observe,
    perceives,
    render_for_viewer,
    zone_of,
)
from tavern.physics.identity import initial_identities
from tavern.records import (
    NARRATOR,
    ActionRecord,
    Audience,
    Body,
    Character,
    DirectorDecision,
    EventRecord,
    LinkUpdate,
    Mind,
    NarrationRecord,
    PerceptionEvent,
    Scene,
    SceneDelta,
    SessionState,
    SpeechRecord,
    ThoughtRecord,
    Zone,
    ZoneLink,
    ZoneMove,
)

CAST = {
    "C1": Character(
        id="ana",
        mind=Mind(secrets=["owes the guild"]),
        body=Body(display_name="Ana", appearance="red apron", description_ref="the innkeeper"),
    ),
    "C2": Character(
        id="rui",
        mind=Mind(),
        body=Body(display_name="Rui Lopes", description_ref="the man in the open shirt"),
    ),
    "C3": Character(
        id="tom",
        mind=Mind(),
        body=Body(display_name="Tomas", description_ref="the thin guard"),
    ),
}
FLAT = Scene(location="the inn", present=["C1", "C2", "C3"])
ZONED = Scene(
    location="the inn",
    zones=[Zone(id="hall", label="the hall"), Zone(id="cellar", label="the cellar")],
    links=[ZoneLink(source="hall", target="cellar", sound="open", sight="sealed")],
    positions={"C1": "hall", "C2": "hall", "C3": "cellar"},
    present=["C1", "C2", "C3"],
)


def speech(seq: int, speaker: str, text: str, aud: Audience, **kw: object) -> SpeechRecord:
    return SpeechRecord(
        seq=seq, turn_number=1, speaker=speaker, author="character", text=text, audience=aud, **kw
    )


EVERYONE = Audience(origin="public", perceivers=["C1", "C2", "C3", "C4", "C5"])
"""A public record's audience in a test cast: everyone saw or heard it."""


def attempt(seq: int, speaker: str, text: str, turn: int = 1) -> ActionRecord:
    """An attempt `speaker` stated, backing the Director's events of its acts (clamp `agency`)."""
    return ActionRecord(
        seq=seq,
        turn_number=turn,
        speaker=speaker,
        author="character",
        text=text,
        audience=EVERYONE,
    )


def thought(seq: int, speaker: str, text: str) -> ThoughtRecord:
    return ThoughtRecord(
        seq=seq,
        turn_number=1,
        speaker=speaker,
        author="human",
        text=text,
        audience=Audience(origin="private", perceivers=[speaker]),
    )


def state(scene: Scene = FLAT) -> SessionState:
    return SessionState(
        id="s-rules",
        scenario_id="t",
        title="t",
        world="w",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        cast=CAST,
        controlled_id="C1",
        scene=scene,
    )


# ---- zones and audiences


def test_directed_links_bound_hearing_and_sight() -> None:
    assert can_hear(ZONED, "C3", "hall") and not can_see(ZONED, "C3", "hall")
    assert not can_hear(ZONED, "C1", "cellar")  # no link cellar -> hall
    assert zone_of(ZONED, "C9") is None and zone_of(FLAT, "C1") == "main"


def test_new_zone_is_audible_from_its_origin_until_sealed() -> None:
    move = DirectorDecision(
        zone_moves=[ZoneMove(character_id="C2", to_zone="nook", new_zone_label="a nook")]
    )
    split = apply_canon(FLAT, move)
    assert zone_of(split, "C2") == "nook" and zone_of(split, "C1") == "main"
    assert can_hear(split, "C1", "nook") and can_hear(split, "C2", "main")
    sealed = apply_canon(
        split,
        DirectorDecision(link_updates=[LinkUpdate(source="nook", target="main", sound="sealed")]),
    )
    assert not can_hear(sealed, "C1", "nook") and can_hear(sealed, "C2", "main")


def test_audiences() -> None:
    public = audience_for(ZONED, "C1", "speech")
    assert public.perceivers == ["C1", "C2", "C3"]  # the cellar overhears the hall
    seen = audience_for(ZONED, "C1", "action")
    assert seen.perceivers == ["C1", "C2"]  # but cannot see it
    whisper = audience_for(ZONED, "C1", "speech", whisper_to=["C2", "C3"])
    assert whisper.perceivers == ["C1", "C2"] and whisper.aware == []  # C3 not in the zone
    w = speech(0, "C1", "the key", audience_for(FLAT, "C1", "speech", whisper_to=["C2"]))
    assert w.audience.aware == ["C3"]
    reply = audience_for(FLAT, "C2", "speech", reply_to=w)
    assert reply == w.audience
    outsider = audience_for(FLAT, "C3", "speech", reply_to=w)
    assert outsider.origin == "public"  # cannot reply into a whisper it never heard
    assert audience_for(FLAT, "C1", "thought").perceivers == ["C1"]


def test_perceives_never_gives_thoughts_or_narration_to_others() -> None:
    t = thought(0, "C1", "x").model_copy(update={"audience": event_audience(["C1", "C2"])})
    assert perceives(t, "C1") == "content" and perceives(t, "C2") == "none"
    n = NarrationRecord(
        seq=1,
        turn_number=1,
        speaker=NARRATOR,
        author="renderer",
        text="x",
        audience=event_audience(["C2"]),
    )
    assert perceives(n, "C2") == "none"


# ---- clamps, one planted violation each


def ctx(scene: Scene = ZONED, **kw: object) -> ClampContext:
    return ClampContext(scene=scene, **kw)  # type: ignore[arg-type]


def rules_of(decision: DirectorDecision, context: ClampContext) -> set[str]:
    return {c.rule for c in clamp_decision(decision, context)[1]}


def test_witness_clamp_drops_unseeing_and_unknown_witnesses() -> None:
    ev = PerceptionEvent(
        kind="action_outcome",
        text="Ana drops a cup",
        actor_id="C1",
        witness_ids=["C1", "C2", "C3", "C9"],
    )
    out, changes = clamp_decision(DirectorDecision(events=[ev]), ctx())
    # C3 in the cellar hears the hall (sound open), so it stays; C9 is unknown.
    assert out.events[0].witness_ids == ["C1", "C2", "C3"]
    sealed = ZONED.model_copy(update={"links": []})
    out, _ = clamp_decision(DirectorDecision(events=[ev]), ctx(sealed))
    assert out.events[0].witness_ids == ["C1", "C2"]
    assert "witness_zone" in {c.rule for c in changes}


def test_utterance_event_never_exceeds_its_whisper() -> None:
    w = speech(5, "C1", "psst", audience_for(FLAT, "C1", "speech", whisper_to=["C2"]))
    ev = PerceptionEvent(
        kind="utterance",
        text="Ana whispers",
        actor_id="C1",
        witness_ids=["C1", "C2", "C3"],
        utterance_ref=5,
    )
    out, _ = clamp_decision(DirectorDecision(events=[ev]), ctx(FLAT, history=[w]))
    assert out.events[0].witness_ids == ["C1", "C2", "C3"]  # C3 is aware of the whisper
    w2 = w.model_copy(update={"audience": Audience(origin="whisper", perceivers=["C1", "C2"])})
    out, _ = clamp_decision(DirectorDecision(events=[ev]), ctx(FLAT, history=[w2]))
    assert out.events[0].witness_ids == ["C1", "C2"]


def test_move_and_link_validation() -> None:
    bad = DirectorDecision(
        zone_moves=[
            ZoneMove(character_id="C9", to_zone="hall"),
            ZoneMove(character_id="C1", to_zone="attic"),
            ZoneMove(character_id="C2", to_zone="loft", new_zone_label="the loft"),
            ZoneMove(character_id="C2", to_zone="hall"),
        ],
        link_updates=[
            LinkUpdate(source="hall", target="nowhere", sound="open"),
            LinkUpdate(source="loft", target="cellar", sound="open"),
            LinkUpdate(source="hall", target="hall", sound="open"),
        ],
    )
    climbs = [attempt(0, "C1", "climbs to the attic"), attempt(1, "C2", "climbs to the loft")]
    out, changes = clamp_decision(bad, ctx(history=climbs))
    assert [m.character_id for m in out.zone_moves] == ["C2"]
    assert [(lk.source, lk.target) for lk in out.link_updates] == [("loft", "cellar")]
    assert {c.rule for c in changes} >= {"zone_move", "link_update"}


def test_location_changes_only_when_the_whole_scene_moves() -> None:
    d = DirectorDecision(scene=SceneDelta(new_location="the docks"))
    assert clamp_decision(d, ctx())[0].scene.new_location is None
    assert clamp_decision(d, ctx(FLAT))[0].scene.new_location == "the docks"
    together = d.model_copy(update={"zone_moves": [ZoneMove(character_id="C3", to_zone="hall")]})
    climbs = [attempt(0, "C3", "climbs up to the hall")]
    assert clamp_decision(together, ctx(history=climbs))[0].scene.new_location == "the docks"
    assert clamp_decision(together, ctx())[0].scene.new_location is None  # nobody asked to move


def test_a_move_stays_only_when_an_attempt_asks_for_that_place() -> None:
    move = DirectorDecision(zone_moves=[ZoneMove(character_id="C3", to_zone="hall")])
    kept = [m.character_id for m in clamp_decision(move, ctx())[0].zone_moves]
    assert kept == []
    own = [attempt(0, "C3", "climbs up to the hall")]
    other = [attempt(0, "C2", "drags Tomas into the hall")]
    elsewhere = [attempt(0, "C3", "reaches for the lamp")]
    for history, moved in [(own, ["C3"]), (other, ["C3"]), (elsewhere, [])]:
        out, _ = clamp_decision(move, ctx(history=history, cast=CAST))
        assert [m.character_id for m in out.zone_moves] == moved
    declared = DirectorDecision(
        zone_moves=[ZoneMove(character_id="C1", to_zone="loft", new_zone_label="the granary")]
    )
    hay = [attempt(0, "C1", "hides in the granary")]
    assert clamp_decision(declared, ctx(history=hay))[0].zone_moves == declared.zone_moves


def test_negative_control_without_the_rule_anyone_is_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "agency_move"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    move = DirectorDecision(zone_moves=[ZoneMove(character_id="C3", to_zone="hall")])
    assert clamp_decision(move, ctx())[0].zone_moves == move.zone_moves


def test_speaker_queue() -> None:
    out, _ = clamp_decision(
        DirectorDecision(next_speakers=["C9", "C2", "C2", "C1", "C3", NARRATOR]), ctx()
    )
    assert out.next_speakers == ["C2", "C1", "C3"]
    assert clamp_decision(DirectorDecision(next_speakers=["C7"]), ctx())[0].next_speakers == [
        NARRATOR
    ]


def test_time_skip_bounded_and_refused_mid_action() -> None:
    assert clamp_decision(DirectorDecision(time_skip_ticks=40), ctx())[0].time_skip_ticks == 3
    act = ActionRecord(
        seq=0,
        turn_number=2,
        speaker="C1",
        author="human",
        text="climbs",
        audience=event_audience(["C1"]),
    )
    out, changes = clamp_decision(DirectorDecision(time_skip_ticks=2), ctx(history=[act]))
    assert out.time_skip_ticks == 0 and "time_skip" in {c.rule for c in changes}
    done = act.model_copy(update={"resolved": True})
    assert (
        clamp_decision(DirectorDecision(time_skip_ticks=2), ctx(history=[done]))[0].time_skip_ticks
        == 2
    )


def test_thought_guard_redacts_thought_only_tokens_everywhere() -> None:
    history = [thought(0, "C1", "the vault code is 4471")]
    d = DirectorDecision(
        events=[
            PerceptionEvent(
                kind="world_event", text="A voice says 4471 near the vault", witness_ids=["C1"]
            )
        ],
        scene=SceneDelta(add_facts=["the vault is open"]),
        mood_updates={"C2": "vault-curious"},
    )
    out, changes = clamp_decision(d, ctx(FLAT, history=history))
    assert out.events[0].text == "A voice says [...] near the [...]"
    assert out.scene.add_facts == ["the [...] is open"]
    assert "vault" not in out.mood_updates["C2"]
    assert "thought_guard" in {c.rule for c in changes}
    # Once said aloud, the word is no longer a secret.
    said = [*history, speech(1, "C1", "The vault!", audience_for(FLAT, "C1", "speech"))]
    out, _ = clamp_decision(d, ctx(FLAT, history=said))
    assert "vault" in out.events[0].text and "4471" not in out.events[0].text


def test_perception_guard_redacts_a_whisper_word_when_witnesses_exceed_the_audience() -> None:
    w = speech(0, "C1", "meet at the mill", audience_for(FLAT, "C1", "speech", whisper_to=["C2"]))
    ev = PerceptionEvent(
        kind="world_event", text="Someone mentions the mill", witness_ids=["C1", "C2"]
    )
    out, _ = clamp_decision(DirectorDecision(events=[ev]), ctx(FLAT, history=[w]))
    assert out.events[0].text == "Someone mentions the mill"  # inside the audience
    wide = ev.model_copy(update={"witness_ids": ["C1", "C2", "C3"]})
    out, changes = clamp_decision(DirectorDecision(events=[wide]), ctx(FLAT, history=[w]))
    assert out.events[0].text == "Someone mentions the [...]"
    assert "perception_guard" in {c.rule for c in changes}


# ---- identity and observation


def test_names_are_learned_only_from_perceived_speech_and_false_names_count() -> None:
    ledgers = initial_identities(CAST)
    public = audience_for(FLAT, "C2", "speech")
    led = learn_names(ledgers["C1"], speech(0, "C2", "Call me Lobo.", public), CAST, "C1")
    assert led.identities["C2"].name == "Lobo" and led.identities["C2"].learned_from_seq == 0
    private = Audience(origin="whisper", perceivers=["C2", "C3"], aware=["C1"])
    led3 = learn_names(
        ledgers["C1"], speech(1, "C2", "Tomas, my name is Rui.", private), CAST, "C1"
    )
    assert led3 == ledgers["C1"]  # only aware: nothing learned
    led4 = learn_names(ledgers["C1"], speech(2, "C2", "Tomas, over here!", public), CAST, "C1")
    assert led4.identities["C3"].name == "Tomas"  # overheard while Tomas was present
    pt = learn_names(ledgers["C3"], speech(3, "C1", "Eu me chamo Ana.", public), CAST, "C3")
    assert pt.identities["C1"].name == "Ana"


def test_render_never_shows_ids_or_unlearned_names() -> None:
    led = initial_identities(CAST)["C1"]
    out = render_for_viewer("C2 grins at C3. Rui Lopes and Tomas leave; C7 stays.", "C1", led, CAST)
    assert (
        out == "The man in the open shirt grins at the thin guard. "
        "The man in the open shirt and the thin guard leave; someone stays."
    )


def test_a_surname_alone_is_projected_and_taught() -> None:
    led = initial_identities(CAST)["C1"]
    assert render_for_viewer("Lopes nods.", "C1", led, CAST) == "The man in the open shirt nods."
    public = audience_for(FLAT, "C1", "speech")
    heard = learn_names(led, speech(0, "C3", "Lopes, sit down.", public), CAST, "C1")
    assert heard.identities["C2"].name == "Lopes"
    assert render_for_viewer("Rui Lopes nods.", "C1", heard, CAST) == "Lopes nods."


def test_negative_control_first_names_only_the_surname_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tavern.physics import identity

    def full_and_first(character: Character) -> list[str]:
        full = character.body.display_name
        return [full] + [w for w in full.split()[:1] if w != full]

    monkeypatch.setattr(identity, "_name_forms", full_and_first)
    led = initial_identities(CAST)["C1"]
    assert render_for_viewer("Lopes nods.", "C1", led, CAST) == "Lopes nods."


def test_observation_is_viewer_projected() -> None:
    st = state()
    w = speech(
        0, "C1", "the ledger is forged", audience_for(FLAT, "C1", "speech", whisper_to=["C2"])
    )
    history = [
        w,
        thought(1, "C2", "I distrust the innkeeper"),
        speech(2, "C2", "Fine weather.", audience_for(FLAT, "C2", "speech")),
        EventRecord(
            seq=3,
            turn_number=1,
            speaker="World",
            author="director",
            event_kind="world_event",
            text="C1 hides the forged ledger",
            audience=event_audience(["C3"]),
        ),
        NarrationRecord(
            seq=4,
            turn_number=1,
            speaker=NARRATOR,
            author="renderer",
            text="Rain falls.",
            audience=event_audience(["C3"]),
        ),
    ]
    obs3 = observe(st, history, "C3")
    lines = [line.text for line in obs3.lines]
    assert lines == [
        "The innkeeper whispered something to the man in the open shirt.",
        'The man in the open shirt said: "Fine weather."',
        "The innkeeper hides the [...] [...]",
    ]
    assert [r.ref for r in obs3.roster] == ["the innkeeper", "the man in the open shirt"]
    obs2 = observe(st, history, "C2")
    assert any("forged" in line.text for line in obs2.lines)
    assert any(line.mode == "own_thought" for line in obs2.lines)
    assert not any("distrust" in t for t in observe(st, history, "C1").texts())
    assert "human" not in " ".join(obs3.texts())
    led = initial_identities(CAST)["C3"]
    assert (
        digest_line(history[0], "C3", led, CAST)
        == "The innkeeper whispered something to the man in the open shirt."
    )
    assert digest_line(history[1], "C2", led, CAST) is None
    assert digest_line(history[4], "C3", led, CAST) is None


def test_an_empty_line_keeps_its_quotes() -> None:
    """A speech with no words still reads as one: its closing quote comes after the part
    redaction could touch, even when that part is empty (and an action's trailer likewise)."""
    st = state()
    said = speech(0, "C2", "", audience_for(FLAT, "C2", "speech"))
    whispered = speech(1, "C2", "", audience_for(FLAT, "C2", "speech", whisper_to=["C3"]))
    lines = [line.text for line in observe(st, [said, whispered], "C3").lines]
    assert lines == [
        'The man in the open shirt said: ""',
        'The man in the open shirt whispered to you: ""',
    ]


def test_zoned_roster_hides_what_cannot_be_seen() -> None:
    obs = observe(state(ZONED), [], "C3")
    assert [(r.ref, r.zone, r.appearance) for r in obs.roster] == [
        ("the innkeeper", "the hall", None),
        ("the man in the open shirt", "the hall", None),
    ]
    assert obs.zone == "the cellar"


def test_cast_words_are_never_secrets_when_the_cast_is_given() -> None:
    history = [thought(0, "C2", "I distrust the innkeeper and her 4471")]
    ev = PerceptionEvent(
        kind="world_event", text="4471 coins lie beside the innkeeper", witness_ids=["C1"]
    )
    bare, _ = clamp_decision(DirectorDecision(events=[ev]), ctx(FLAT, history=history))
    assert bare.events[0].text == "[...] coins lie beside the [...]"
    with_cast, _ = clamp_decision(
        DirectorDecision(events=[ev]), ctx(FLAT, history=history, cast=CAST)
    )
    assert with_cast.events[0].text == "[...] coins lie beside the innkeeper"


def _plain_unresolved(history: list[ActionRecord | SpeechRecord]) -> bool:
    """The definition, walked plainly: the highest turn holds an unresolved action."""
    if not history:
        return False
    last = max(r.turn_number for r in history)
    return any(
        isinstance(r, ActionRecord) and not r.resolved and r.turn_number == last for r in history
    )


_beat_record = st.tuples(st.integers(0, 4), st.booleans(), st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.lists(_beat_record, max_size=12))
def test_unresolved_action_equals_the_plain_definition(specs: list[tuple[int, bool, bool]]) -> None:
    # Turn numbers in any order: the check must not assume the history is sorted.
    history: list[ActionRecord | SpeechRecord] = []
    for seq, (turn, is_action, resolved) in enumerate(specs):
        common = {"seq": seq, "turn_number": turn, "speaker": "C1", "author": "character"}
        if is_action:
            history.append(
                ActionRecord(**common, text="x", audience=event_audience(["C1"]), resolved=resolved)
            )
        else:
            history.append(SpeechRecord(**common, text="x", audience=event_audience(["C1"])))
    assert has_unresolved_action(history) == _plain_unresolved(history)


def test_negative_control_trusting_the_last_record_turn_is_caught() -> None:
    act = ActionRecord(
        seq=0, turn_number=5, speaker="C1", author="character", text="x",
        audience=event_audience(["C1"]),
    )  # fmt: skip
    later = SpeechRecord(
        seq=1, turn_number=2, speaker="C1", author="character", text="y",
        audience=event_audience(["C1"]),
    )  # fmt: skip
    history: list[ActionRecord | SpeechRecord] = [act, later]

    def shortcut(records: list[ActionRecord | SpeechRecord]) -> bool:
        last = records[-1].turn_number  # planted: the newest record's turn taken as the max
        return any(isinstance(r, ActionRecord) and r.turn_number == last for r in records)

    assert shortcut(history) != _plain_unresolved(history) == has_unresolved_action(history)
