"""The turn transaction's flow: queue order, agency pauses, thought-only steps, skips,
memory capture, failures that commit nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tavern.agents import character, prose
from tavern.llm.fake import generate_answer
from tavern.llm.provider import ProviderRequest
from tavern.physics.clamps import ClampContext
from tavern.physics.perception import perceives
from tavern.physics.visible import perception_guard
from tavern.records import (
    NARRATOR,
    Audience,
    DirectorDecision,
    EventRecord,
    NarrationRecord,
    SpeechRecord,
    ThoughtRecord,
    TurnInput,
    TurnInputLine,
)
from tavern.runner import InvalidTurnError, ModelFailureError
from tavern.runner.calls import AgentCaller
from tavern.runner.screen import perceived_by
from tavern.store import Library, journal_path, materialize_session, read_journal

from .kit import Kit, KitFactory, director_answer, run
from .sweeps import leaks, prompt_of


def scripted(
    speakers: list[str], replies: dict[str, dict[str, Any]] | None = None, **extra: Any
) -> Callable[[ProviderRequest], Any]:
    """A fake whose Director always routes `speakers`; Characters answer from `replies`."""

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(speakers, **extra)
        slot = request.agent.partition(":")[2]
        if replies and slot in replies:
            return replies[slot]
        assert request.schema is not None
        return generate_answer(request.schema, request, "parrot")

    return answer


def reply(speech: str | None = None, thought: str | None = None, action: str | None = None) -> Any:
    return {"speech": speech, "thought": thought, "action_intent": action}


def test_queue_runs_in_order_and_each_speaker_hears_the_earlier(make_kit: KitFactory) -> None:
    kit = make_kit(fn=scripted(["C2", "C4"], {"C2": reply("Wexmoor owes me a cask.")}))
    sid = kit.create()
    result = kit.play(sid, speech="Well?")
    assert [r.agent for r in kit.requests("character:")] == ["character:C2", "character:C4"]
    assert "Wexmoor" in prompt_of(kit.requests("character:C4")[0])
    assert not result.control_returned


def test_a_director_naming_speakers_by_name_still_reaches_them(make_kit: KitFactory) -> None:
    """Small models write display names where ids belong; the clamp maps them (journaled)."""
    probe = make_kit()
    sid = probe.create()
    names = {slot: c.body.display_name for slot, c in probe.state(sid).cast.items()}
    kit = make_kit(fn=scripted([names["C2"].upper(), f" {names['C4']}"]))
    sid = kit.create()
    kit.play(sid, speech="Well?")
    assert [r.agent for r in kit.requests("character:")] == ["character:C2", "character:C4"]
    commits = [
        line for line in read_journal(journal_path(kit.data_dir, sid)) if line.kind == "commit"
    ]
    assert [c.rule for c in commits[-1].clamp_changes] == ["cast_reference"]


def test_queue_stops_at_the_controlled_character(make_kit: KitFactory) -> None:
    kit = make_kit(fn=scripted(["C2", "C1", "C4"]))
    sid = kit.create(controlled="C1")
    result = kit.play(sid, speech="Well?")
    assert result.control_returned and result.next_speaker == "C1"
    assert [r.agent for r in kit.requests("character:")] == ["character:C2"]


def test_force_speaker_collapses_the_queue_and_still_pauses(make_kit: KitFactory) -> None:
    kit = make_kit(fn=scripted(["C2", "C4", "C5"]))
    sid = kit.create(controlled="C1")
    kit.play(sid, speech="You, then.", force_speaker="C5")
    assert [r.agent for r in kit.requests("character:")] == ["character:C5"]
    result = kit.play(sid, skip=True, force_speaker="C1")
    assert result.control_returned and len(kit.requests("character:")) == 1


def test_thought_only_turn_is_its_own_undoable_step(make_kit: KitFactory) -> None:
    kit = make_kit(fn=scripted(["C2"]))
    sid = kit.create()
    kit.play(sid, thought="Ninefold lanterns, not eight.")
    state = kit.state(sid)
    assert state.turn_number == 1
    thoughts = [r for r in kit.history(sid) if isinstance(r, ThoughtRecord) and r.speaker == "C1"]
    assert [t.turn_number for t in thoughts] == [1] and thoughts[0].author == "human"
    assert "Ninefold" in prompt_of(kit.requests("director")[0])
    assert all("Ninefold" not in prompt_of(r) for r in kit.requests("character:"))
    assert run(kit.runner.undo(sid)).turn_number == 0
    assert not [r for r in kit.history(sid) if isinstance(r, ThoughtRecord)]


def test_skip_without_hint_invites_the_world_to_move(make_kit: KitFactory) -> None:
    kit = make_kit(fn=scripted(["Narrator"], time_skip_ticks=50))
    sid = kit.create()
    kit.play(sid, skip=True)
    assert "Let the world move" in prompt_of(kit.requests("director")[0])
    assert kit.state(sid).clock.tick == 1 + kit.runner.limits.skip_invite_ticks
    kit.play(sid, skip=True, hint="The notary arrives.")
    second = prompt_of(kit.requests("director")[1])
    assert "Let the world move" not in second and "The notary arrives." in second
    assert kit.state(sid).clock.tick == 2 + kit.runner.limits.skip_invite_ticks + (
        kit.runner.limits.max_skip_ticks
    )


def test_memory_gets_one_line_per_perceived_record_and_never_narration(
    make_kit: KitFactory,
) -> None:
    kit = make_kit(fn=scripted(["C2"], {"C2": reply("Evening.", "hm", "bows")}))
    sid = kit.create()
    before = kit.state(sid)
    kit.play(sid, speech="Good evening.", action="nods")
    after = kit.state(sid)
    narration = [r for r in kit.history(sid) if isinstance(r, NarrationRecord)]
    assert narration  # the renderer wrote something...
    for slot, ledger in after.ledgers.items():
        added = ledger.memory[len(before.ledgers[slot].memory) :]
        assert not any(n.text[:40] in line for n in narration for line in added)  # ...unseen
    # C4 shares the hall: speech + action of C1, speech + attempt of C2 (no thoughts), and
    # each event it witnessed (the parrot's outcome of the attempt, when one was committed).
    witnessed = [
        r for r in kit.history(sid) if isinstance(r, EventRecord) and perceives(r, "C4") != "none"
    ]
    assert len(after.ledgers["C4"].memory) == 4 + len(witnessed)
    assert after.ledgers["C3"].memory == []  # the sealed cellar perceived nothing
    # A thought enters its owner's memory, and only its owner's.
    assert "You thought: hm" in after.ledgers["C2"].memory
    assert not [m for s, led in after.ledgers.items() if s != "C2" for m in led.memory if "hm" in m]


def test_the_human_reads_only_that_a_whisper_happened() -> None:
    whisper = SpeechRecord(
        seq=5, turn_number=1, speaker="C2", author="character", text="meet at the mill",
        audience=Audience(origin="whisper", perceivers=["C2", "C4"], aware=["C1"]),
    )  # fmt: skip
    [seen] = perceived_by([whisper], "C1")
    assert seen.text == "(whispered)" and seen.audience == whisper.audience
    assert perceived_by([whisper], "C4") == [whisper] and perceived_by([whisper], "C3") == []


def test_the_human_reads_names_where_the_director_wrote_ids(make_kit: KitFactory) -> None:
    """A live Director wrote 'C1 walks slowly to the window': the screen shows the name."""
    event = {
        "kind": "action_outcome", "text": "C1 waves at C4 and C9.", "actor_id": "C1",
        "witness_ids": ["C1", "C4"], "utterance_ref": None,
    }  # fmt: skip
    kit = make_kit(fn=scripted([NARRATOR], events=[event]))
    sid = kit.create(controlled="C1")
    result = kit.play(sid, action="waves")
    names = {slot: c.body.display_name for slot, c in kit.state(sid).cast.items()}
    wanted = f"{names['C1']} waves at {names['C4']} and C9."
    assert [r.text for r in result.records if r.kind == "event"] == [wanted]
    view = run(kit.runner.view(sid))
    assert [r.text for r in view.transcript if r.kind == "event"] == [wanted]
    # Stored and journaled as the Director wrote it; only the human's view is named.
    assert [r.text for r in kit.history(sid) if r.kind == "event"] == [event["text"]]
    stored = [r for r in kit.history(sid) if r.kind == "event"]
    assert [r.text for r in perceived_by(stored, "C1")] == [event["text"]]  # control


def test_a_failing_model_commits_nothing(make_kit: KitFactory) -> None:
    def broken(request: ProviderRequest) -> Any:
        if request.agent.startswith("character:"):
            return {"speech": 12}  # schema-invalid, every attempt
        return scripted(["C2"])(request)

    kit = make_kit(fn=broken, attempts=2)
    sid = kit.create()
    state, history = kit.state(sid), kit.history(sid)
    with pytest.raises(ModelFailureError):
        kit.play(sid, speech="Anyone?")
    assert kit.state(sid) == state and kit.history(sid) == history
    lines = read_journal(journal_path(kit.data_dir, sid))
    kinds = [line.kind for line in lines]
    assert "commit" not in kinds and kinds[:2] == ["turn_input", "turn_input_effective"]
    failed = [c for c in kit.calls(sid) if c.agent == "character:C2"]
    assert [c.attempt_number for c in failed] == [1, 2] and all(c.error_type for c in failed)


def _blank_unless_told(request: ProviderRequest) -> Any:
    """A seeded model: the same prompt draws the same answer (live: an empty one, twice)."""
    if request.agent.startswith("character:"):
        if request.messages[-1].content.endswith(character.ASK_AGAIN):
            return reply(speech="Evening.")
        return {"speech": "", "thought": None, "action_intent": None}
    return scripted(["C2"])(request)


def test_an_empty_reply_is_asked_again_saying_so(make_kit: KitFactory) -> None:
    """Live (vintners-wake #22, seed 35, turn 1): Caspar's prompt drew an empty answer
    twice, the same prompt under the same seed, and the turn failed."""
    kit = make_kit(fn=_blank_unless_told)
    sid = kit.create()
    result = kit.play(sid, speech="Anyone?")
    assert [r.text for r in result.records if r.kind == "speech"][-1] == "Evening."
    asked = [c.request.messages for c in kit.calls(sid) if c.agent == "character:C2"]
    assert len(asked) == 2 and asked[1][:-1] == asked[0][:-1]
    assert asked[1][-1].content == f"{asked[0][-1].content}\n{character.ASK_AGAIN}"


def test_negative_control_asked_again_alike_the_turn_fails(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(character, "asked_again", lambda messages: messages)
    kit = make_kit(fn=_blank_unless_told)
    sid = kit.create()
    with pytest.raises(ModelFailureError, match="unusable reply twice"):
        kit.play(sid, speech="Anyone?")


def _blank_under_the_session_seed(request: ProviderRequest) -> Any:
    """A seeded model that answers a Character empty under seed 35, whatever the wording."""
    if request.agent.startswith("character:"):
        blank = {"speech": "", "thought": None, "action_intent": None}
        return reply(speech="Evening.") if request.seed != 35 else blank
    return scripted(["C2"])(request)


def test_an_empty_reply_is_asked_again_under_another_seed(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_blank_under_the_session_seed)
    kit.runner.client.seed = 35  # type: ignore[attr-defined]
    sid = kit.create()
    result = kit.play(sid, speech="Anyone?")
    assert [r.text for r in result.records if r.kind == "speech"][-1] == "Evening."
    assert [c.request.seed for c in kit.calls(sid) if c.agent == "character:C2"] == [35, 36]


def test_negative_control_asked_again_under_the_same_seed_the_turn_fails(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = AgentCaller.call

    async def same_seed(self: AgentCaller, *args: Any, seed_offset: int = 0, **kw: Any) -> Any:
        return await real(self, *args, **kw)

    monkeypatch.setattr(AgentCaller, "call", same_seed)
    kit = make_kit(fn=_blank_under_the_session_seed)
    kit.runner.client.seed = 35  # type: ignore[attr-defined]
    sid = kit.create()
    with pytest.raises(ModelFailureError, match="unusable reply twice"):
        kit.play(sid, speech="Anyone?")


def test_impossible_input_is_refused(make_kit: KitFactory) -> None:
    kit = make_kit(fn=scripted(["C2"]))
    sid = kit.create()
    with pytest.raises(InvalidTurnError):
        kit.play(sid, speech="psst", whisper_to=["C9"])
    with pytest.raises(InvalidTurnError):
        kit.play(sid, skip=True, force_speaker="C9")
    with pytest.raises(InvalidTurnError, match="reveal"):
        kit.play(sid, skip=True, hint="Let the player win this one.")
    assert kit.state(sid).turn_number == 0
    raw = [x for x in read_journal(journal_path(kit.data_dir, sid)) if isinstance(x, TurnInputLine)]
    assert len(raw) == 3  # the raw input is journaled before the filters refuse it


def test_an_act_deadline_stages_a_world_event_everyone_present_perceives(
    make_kit: KitFactory,
) -> None:
    kit = make_kit(fn=scripted(["Narrator"], time_skip_ticks=6))
    sid = kit.create()  # the vintner's wake: the midnight bell at tick 8
    for _ in range(3):
        kit.play(sid, skip=True)
    state = kit.state(sid)
    assert state.clock.fired == ["midnight-bell"] and not state.clock.deadlines
    bells = [r for r in kit.history(sid) if isinstance(r, EventRecord) and "bell" in r.text]
    assert len(bells) == 1 and bells[0].author == "kernel"
    assert set(bells[0].audience.perceivers) == set(state.scene.present)
    assert "Scheduled event arriving now" in prompt_of(kit.requests("director")[2])
    assert any("bell tolls midnight" in line for line in state.ledgers["C3"].memory)


def test_progress_reports_each_stage_in_order(make_kit: KitFactory) -> None:
    kit = make_kit(fn=scripted(["C2"]))
    sid = kit.create()
    stages: list[str] = []

    async def progress(stage: str, fraction: float | None) -> None:
        stages.append(stage)

    run(kit.runner.play_turn(sid, TurnInput(speech="Well?"), progress))
    assert stages == ["director", "prose", "speakers", "character:C2", "memory", "committed"]


def test_sheet_violations_are_warnings_and_the_session_still_plays(make_kit: KitFactory) -> None:
    kit = make_kit(fn=scripted(["C2"]))
    maren = kit.library.get_character("maren-holt")
    leaky = maren.model_copy(
        update={
            "id": "maren-leaky",
            "mind": maren.mind.model_copy(
                update={"personality": "Gruff; secretly controlled by the human."}
            ),
        }
    )
    kit.library.put_character(leaky)
    scenario = kit.library.get_scenario("the-toll-house")
    kit.library.put_scenario(
        scenario.model_copy(update={"id": "leaky-house", "cast": {**scenario.cast, "C2": leaky.id}})
    )
    view = run(kit.runner.create_session("leaky-house"))
    assert [(w.where, w.excerpt) for w in view.warnings] == [
        ("character:maren-leaky.mind.personality", "controlled by the human")
    ]
    kit.play(view.id, speech="Evening.")  # the warned sheet text is tolerated, not refused
    assert kit.state(view.id).turn_number == 1


def test_suggestions_and_openings_persist_nothing(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    before, history = kit.state(sid), kit.history(sid)
    suggestions = run(kit.runner.suggestions(sid))
    sparks = run(kit.runner.openings(sid))
    assert len(suggestions) == 3 and len(sparks) == 3
    assert kit.state(sid) == before and kit.history(sid) == history
    assert [c.agent for c in kit.calls(sid)] == ["suggest", "openings"]


def test_an_event_copying_spoken_words_keeps_them_from_the_reader(make_kit: KitFactory) -> None:
    """The Director copies a spoken canary into an event: the record keeps the truth, its
    reader text (fixed at recording) masks it, and no later prose prompt holds it."""
    canary = "Saltmarrow5521"
    event = {
        "kind": "action_outcome",
        "text": f"Everyone hears {canary} repeated.",
        "actor_id": "C1",
        "witness_ids": ["C1", "C2", "C4", "C5"],
        "utterance_ref": None,
    }
    kit, sid = _play_canary_events(make_kit, canary, event)
    events = [r for r in kit.history(sid) if isinstance(r, EventRecord)]
    copied = [r for r in events if r.text.startswith("Everyone hears")]
    assert copied and all(canary in r.text for r in events)  # positive control
    assert all(r.reader_text == "Everyone hears [...] repeated." for r in copied)
    # The parrot's outcomes of the Characters' attempts copy the canary too: masked alike.
    assert all(r.reader_text and canary not in r.reader_text for r in events)
    assert not leaks(canary, [prompt_of(r) for r in kit.requests("prose")])


def test_negative_control_a_transcript_of_stored_truth_leaks(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    canary = "Saltmarrow5521"
    event = {
        "kind": "action_outcome", "text": f"Everyone hears {canary} repeated.",
        "actor_id": "C1", "witness_ids": ["C1", "C2"], "utterance_ref": None,
    }  # fmt: skip
    monkeypatch.setattr(
        prose, "_transcript_lines", lambda records, namer, hidden: [
            (r.seq, prose.reader_line(
                r.model_copy(update={"reader_text": None}) if isinstance(r, EventRecord) else r,
                namer,
            )) for r in records
        ],
    )  # fmt: skip
    kit, _ = _play_canary_events(make_kit, canary, event)
    assert leaks(canary, [prompt_of(r) for r in kit.requests("prose")])


def _play_canary_events(
    make_kit: KitFactory, canary: str, event: dict[str, Any]
) -> tuple[Kit, str]:
    kit = make_kit(fn=scripted(["C2"], events=[event]))
    sid = kit.create(controlled="C1")
    kit.play(sid, speech=f"Remember the word {canary}.")
    kit.play(sid, skip=True)
    kit.play(sid, skip=True)
    return kit, sid


def test_the_perception_guard_covers_every_text_everyone_present_sees(tmp_path: Path) -> None:
    """Hall speech copied into a mood or a new location would reach the sealed cellar: the
    perception guard redacts it there too (the fields come from `physics.redact_visible`)."""
    library = Library(tmp_path)
    state = materialize_session(library.get_scenario("the-vintners-wake"), library, "s-guard")
    hall = Audience(origin="zone", perceivers=["C1", "C2", "C4", "C5"])
    said = SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human", audience=hall,
                        text="The word is Saltmarrow5521.")  # fmt: skip
    decision = DirectorDecision.model_validate(
        director_answer(
            ["C2"],
            mood_updates={"C2": "mutters Saltmarrow5521"},
            scene={"add_facts": [], "remove_facts": [], "new_location": "Saltmarrow5521 hall"},
        )
    )
    ctx = ClampContext(scene=state.scene, history=[said], cast=state.cast)
    guarded, changes = perception_guard(decision, ctx)
    assert "Saltmarrow5521" not in guarded.mood_updates["C2"]
    assert "Saltmarrow5521" not in (guarded.scene.new_location or "")
    assert {c.path for c in changes} == {"mood_updates.C2", "scene.new_location"}
