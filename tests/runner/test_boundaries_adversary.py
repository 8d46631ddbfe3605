"""Every boundary against the `adversary` fake: hostile but schema-valid answers.

The adversary Director names every id it saw plus invented ones as witnesses, speakers and
actors, copies every private-looking token into events and facts, and asks for the largest
time skip; its Characters stuff every field. The kernel's code must hold regardless.
"""

from __future__ import annotations

from typing import Any

import pytest

import tavern.physics.clamps as clamps_module
from tavern.llm.fake import generate_answer
from tavern.llm.provider import ProviderRequest
from tavern.physics.masked import emptied_by_masks
from tavern.physics.redaction import MASK
from tavern.records import NARRATOR, WORLD, CommitLine, EventRecord, SpeechRecord
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.store import journal_path, read_journal

from .kit import Kit, KitFactory
from .sweeps import call_texts, leaks, outsider_agents

WHISPER = "Quillfeather7731"
THOUGHT = "Marrowgate4402"
HALL = "Saltlantern9153"
INVENTED = ("C97", "C98", "C99")


def copying_adversary(request: ProviderRequest) -> dict[str, Any]:
    """The adversary, plus a Director that copies every canary it can see into every text
    it writes (events, facts, new zone labels), so the guards are certainly exercised."""
    assert request.schema is not None
    value: dict[str, Any] = generate_answer(request.schema, request, "adversary")
    if request.agent != "director":
        return value
    prompt = "\n".join(m.content for m in request.messages)
    seen = " ".join(c for c in (WHISPER, THOUGHT, HALL) if c in prompt)
    for event in value["events"]:
        event["text"] = f"{seen} {event['text']}"[:200]
    value["scene"]["add_facts"] = [f"{seen} is written on the wall"[:160]]
    return value


def _commits(kit: Kit, sid: str) -> list[CommitLine]:
    lines = read_journal(journal_path(kit.data_dir, sid))
    return [line for line in lines if isinstance(line, CommitLine)]


def _play_hostile(kit: Kit) -> str:
    """Eight beats: a whisper with a thought, hall speech, then skips with forced speakers."""
    sid = kit.create()  # C1 controlled; C1, C2, C4 in the hall, C3 sealed in the cellar
    kit.play(sid, speech=f"Only you: {WHISPER}.", whisper_to=["C2"], thought=f"{THOUGHT} now")
    kit.play(sid, speech=f"Everyone in this hall, hear me: {HALL}!", force_speaker="C3")
    for i in range(6):
        kit.play(sid, skip=True, force_speaker=["C3", "C4", "C5"][i % 3])
    return sid


def _director_events(kit: Kit, sid: str) -> list[EventRecord]:
    return [r for r in kit.history(sid) if isinstance(r, EventRecord) and r.author == "director"]


def test_adversary_cannot_leak_whispers_thoughts_or_hall_speech(make_kit: KitFactory) -> None:
    kit = make_kit(fn=copying_adversary)
    sid = _play_hostile(kit)
    state = kit.state(sid)
    calls = kit.calls(sid)
    assert not leaks(WHISPER, call_texts(calls, outsider_agents(state, {"C1", "C2"})))
    assert not leaks(THOUGHT, call_texts(calls, outsider_agents(state, {"C1"})))
    # The cellar is sealed both ways: nothing said in the hall reaches it, whatever the
    # Director witnesses or writes.
    assert not leaks(HALL, call_texts(calls, {"character:C3"}))
    assert not leaks(HALL, state.ledgers["C3"].memory)
    # Positive controls: the Director saw everything; the hall's own people heard the hall.
    director = call_texts(calls, {"director"})
    assert leaks(WHISPER, director) and leaks(THOUGHT, director) and leaks(HALL, director)
    assert leaks(HALL, call_texts(calls, {"character:C4"}))
    # And the clamps and guards visibly worked on these proposals.
    rules = {c.rule for commit in _commits(kit, sid) for c in commit.clamp_changes}
    assert {"witness_zone", "perception_guard", "thought_guard"} <= rules
    # Not vacuous: hostile events got past the dialogue and label filters to the guards and
    # were committed masked; none of them is nothing but masks.
    events = _director_events(kit, sid)
    assert sum(MASK in r.text for r in events) >= 2
    assert not any(emptied_by_masks(r.text) for r in events)


def test_negative_control_without_the_emptied_rule_masks_are_committed(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "redacted_event"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    kit = make_kit(fn=copying_adversary)
    sid = _play_hostile(kit)
    assert any(emptied_by_masks(r.text) for r in _director_events(kit, sid))


def test_adversary_ids_witnesses_and_time_stay_admissible(make_kit: KitFactory) -> None:
    kit = make_kit("adversary")
    sid = kit.create()
    cast = set(kit.state(sid).cast)
    ticks = [kit.state(sid).clock.tick]
    kit.play(sid, action="tries the bolt on the trapdoor", force_speaker="C4")
    ticks.append(kit.state(sid).clock.tick)
    for speaker in ["Narrator", "Narrator", "C2", "C5", "Narrator"]:
        kit.play(sid, skip=True, force_speaker=speaker)
        ticks.append(kit.state(sid).clock.tick)
    state = kit.state(sid)
    history = kit.history(sid)
    for record in history:
        assert record.speaker in cast | {NARRATOR, WORLD}
        assert set(record.audience.perceivers) <= cast
        if isinstance(record, EventRecord):
            assert record.actor_id is None or record.actor_id in cast
    assert set(state.scene.positions) <= cast and set(state.moods) <= cast
    assert not any(i in state.model_dump_json() for i in INVENTED)
    assert {c.agent for c in kit.calls(sid)} <= {
        "director",
        FOLLOW_UP,
        "prose",
        *(f"character:{s}" for s in cast - {"C1"}),
    }
    # Time: +1 per beat plus a bounded skip; never a skip over the unresolved attempt.
    steps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    limits = kit.runner.limits
    assert all(1 <= s <= 1 + limits.skip_invite_ticks for s in steps)
    assert steps[0] == 1  # the beat adjudicating the attempt on the trapdoor
    assert steps[1] == 1  # C4 replied with an attempt: still mid-action
    assert steps[2] == 1 + limits.skip_invite_ticks  # nothing pending: the largest skip
    assert steps[4] == 1  # C2 replied with an attempt just before


def test_adversary_whisper_reply_inherits_the_whisper(make_kit: KitFactory) -> None:
    kit = make_kit("adversary")
    sid = kit.create()
    kit.play(sid, speech="Between us.", whisper_to=["C2"], force_speaker="C2")
    replies = [r for r in kit.history(sid) if isinstance(r, SpeechRecord) and r.speaker == "C2"]
    assert replies and all(r.audience.origin == "whisper" for r in replies)
    assert all(set(r.audience.perceivers) == {"C1", "C2"} for r in replies)
