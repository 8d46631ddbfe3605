"""An attempt the Director's decision leaves without an outcome gets one follow-up call
(`runner.follow_up`), for every character alike, and its answer goes through the clamps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

import tavern.physics.agency as agency
import tavern.physics.clamps as clamps_module
from tavern.agents import outcome
from tavern.llm.provider import ProviderRequest
from tavern.records import (
    ActionRecord,
    Audience,
    CommitLine,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
)
from tavern.runner import follow_up, turn
from tavern.runner.follow_up import AGENT as FOLLOW_UP
from tavern.runner.follow_up import MAX_FOLLOW_UPS
from tavern.runner.interface import ModelFailureError
from tavern.store import journal_path, read_journal
from tavern.text import lexicon_for

from .kit import Kit, KitFactory, director_answer
from .test_permutation import _with_controlled

BOLT = "pulls at the bolt of the trapdoor"
OUTCOME = "Agnese Corvo pulls at the bolt; it holds fast."
HALL_VIEW = ["C1", "C2", "C4", "C5"]  # the hall, and the balcony that sees and hears it
INTENTS = {
    "C2": "opens the notary's satchel",
    "C4": "lights a second candle by the coffin",
    "C5": "leans far over the balcony rail",
}


def _answers(
    events: list[dict[str, Any]] | None = None,
    said: str = OUTCOME,
    speakers: tuple[str, ...] = ("C2",),
) -> Callable[[ProviderRequest], Any]:
    """A Director giving `events`, a follow-up saying `said`, Characters attempting INTENTS."""

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(list(speakers), events=events or [])
        if request.agent == FOLLOW_UP:
            return {"outcome": said}
        if request.agent == "prose":
            return {"narration": "Candles gutter."}
        slot = request.agent.split(":")[1]
        return {"speech": None, "thought": None, "action_intent": INTENTS[slot]}

    return answer


def _outcomes(history: list[HistoryRecord]) -> list[tuple[int, str | None, str, list[str]]]:
    return [
        (r.turn_number, r.actor_id, r.text, list(r.audience.perceivers))
        for r in history
        if isinstance(r, EventRecord) and r.event_kind == "action_outcome"
    ]


def _agents(kit: Kit, sid: str, turn_number: int) -> list[str]:
    return [c.agent for c in kit.calls(sid) if c.turn_number == turn_number]


def test_an_attempt_left_without_outcome_gets_one(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_answers())
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert _agents(kit, sid, 1) == ["director", FOLLOW_UP, "prose", "character:C2"]
    assert _outcomes(kit.history(sid)) == [(1, "C1", OUTCOME, HALL_VIEW)]
    prose_prompt = [c for c in kit.calls(sid) if c.agent == "prose"][0].request.messages
    assert "it holds fast" in prose_prompt[-1].content  # the renderer tells the outcome
    attempt = [r for r in kit.history(sid) if isinstance(r, ActionRecord)][0]
    assert attempt.resolved


def test_negative_control_without_the_follow_up_the_attempt_stays_unanswered(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def nothing_asked(
        caller: Any, context: Any, decision: DirectorDecision, *a: Any, **k: Any
    ) -> tuple[DirectorDecision, list[Any]]:
        return decision, []

    monkeypatch.setattr(turn, "follow_up", nothing_asked)
    kit = make_kit(fn=_answers())
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert _outcomes(kit.history(sid)) == []


def _outcome_of_c1(text: str) -> dict[str, Any]:
    """The Director's action_outcome event for C1's attempt, seen from the hall."""
    return {
        "kind": "action_outcome",
        "text": text,
        "actor_id": "C1",
        "witness_ids": HALL_VIEW,
        "utterance_ref": None,
    }


def test_an_attempt_the_director_answered_needs_no_follow_up(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_answers([_outcome_of_c1("The bolt does not move.")]))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert FOLLOW_UP not in _agents(kit, sid, 1)
    assert _outcomes(kit.history(sid)) == [(1, "C1", "The bolt does not move.", HALL_VIEW)]


WALKED_OFF = "Agnese Corvo walks slowly to the nearest window."
"""As vintners-wake #64 (seed 80), turn 2, told for "read the will": a walk for an attempt
that never moved (clamp `agency`, the lexicon's verbs of moving)."""


def test_a_directors_outcome_that_walks_off_goes_and_the_attempt_is_asked_about(
    make_kit: KitFactory,
) -> None:
    kit = make_kit(fn=_answers([_outcome_of_c1(WALKED_OFF)]))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert _agents(kit, sid, 1).count(FOLLOW_UP) == 1
    assert _outcomes(kit.history(sid)) == [(1, "C1", OUTCOME, HALL_VIEW)]


def test_a_follow_up_that_walks_off_is_asked_again(make_kit: KitFactory) -> None:
    _assert_asked_again(make_kit, WALKED_OFF, "agency")


def test_negative_control_without_verbs_of_moving_the_walk_is_her_outcome(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        agency, "lexicon_for", lambda language: replace(lexicon_for(language), moving=frozenset())
    )
    kit = make_kit(fn=_refused_then_told(WALKED_OFF))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert [o[2] for o in _outcomes(kit.history(sid))] == [WALKED_OFF]


ARRIVAL = {
    "kind": "arrival",
    "text": "Agnese Corvo pulls at the bolt of the trapdoor, and it holds.",
    "actor_id": "C1",
    "witness_ids": HALL_VIEW,
    "utterance_ref": None,
}
"""The Director telling the attempt under another kind (vintners-wake #42, seed 58, turn 2)."""


def test_an_attempt_told_under_another_kind_needs_no_follow_up(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_answers([ARRIVAL]))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert FOLLOW_UP not in _agents(kit, sid, 1)
    assert _outcomes(kit.history(sid)) == [(1, "C1", ARRIVAL["text"], HALL_VIEW)]


def test_negative_control_without_outcome_kind_the_attempt_is_told_twice(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "outcome_kind"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    kit = make_kit(fn=_answers([ARRIVAL]))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert FOLLOW_UP in _agents(kit, sid, 1)
    told = [r.text for r in kit.history(sid) if isinstance(r, EventRecord)]
    assert told == [ARRIVAL["text"], OUTCOME]


def test_a_speech_turn_asks_nothing(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_answers(speakers=()))
    sid = kit.create()
    kit.play(sid, speech="Good evening.")
    assert _agents(kit, sid, 1) == ["director", "prose"]


def test_the_follow_up_prompt_extends_the_directors_prefix(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_answers())
    sid = kit.create()
    kit.play(sid, action=BOLT)
    calls = {c.agent: c.request.messages for c in kit.calls(sid)}
    decision, asked = calls["director"], calls[FOLLOW_UP]
    assert asked[0] == decision[0]
    head = decision[1].content.split("## Now")[0]
    assert asked[1].content.startswith(head + "## Now")
    now = asked[1].content.split("## Now")[1]
    assert "attempt by Agnese Corvo (C1) | " + BOLT in now
    assert outcome.ask("Agnese Corvo") in now


def test_a_characters_attempt_is_followed_up_next_beat_whoever_is_controlled(
    make_kit: KitFactory,
) -> None:
    opened = "Brother Caspar opens the satchel: the will is inside."
    kit = make_kit(fn=_answers(said=opened))
    base = kit.create(controlled="C1")
    kit.play(base, speech="Brother, the satchel.")  # C2 answers with an attempt
    sessions = {"C1": base} | {slot: _with_controlled(kit, base, slot) for slot in ("C3", "C4")}
    asked = {}
    for slot, sid in sessions.items():
        kit.play(sid, skip=True)
        asked[slot] = [c.request.messages for c in kit.calls(sid) if c.agent == FOLLOW_UP]
        assert _outcomes(kit.history(sid)) == [(2, "C2", opened, HALL_VIEW)]
    assert len(asked["C1"]) == 1
    assert "attempt by Brother Caspar (C2) | " + INTENTS["C2"] in asked["C1"][0][1].content
    assert all(prompts == asked["C1"] for prompts in asked.values())


def test_at_most_max_follow_ups_a_beat_newest_first(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_answers(said="Nothing comes of it.", speakers=("C2", "C4", "C5")))
    sid = kit.create()
    kit.play(sid, speech="Everyone, listen.")  # C2, C4 and C5 each attempt something
    kit.play(sid, action=BOLT)  # four attempts wait: theirs and the human's
    asked = [c.request.messages[1].content for c in kit.calls(sid) if c.agent == FOLLOW_UP]
    assert len(asked) == MAX_FOLLOW_UPS == 2
    assert "(C1) | " + BOLT in asked[0] and "(C5) | " + INTENTS["C5"] in asked[1]
    assert [o[1] for o in _outcomes(kit.history(sid))] == ["C1", "C5"]


def test_a_blank_outcome_adds_nothing(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_answers(said="   "))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert _agents(kit, sid, 1).count(FOLLOW_UP) == 1  # nothing refused: not asked again
    assert _outcomes(kit.history(sid)) == []


def _refused_then_told(said_first: str) -> Callable[[ProviderRequest], Any]:
    """A follow-up answering `said_first` to `outcome.ask` and OUTCOME to `ask_again`."""
    plain = _answers()

    def answer(request: ProviderRequest) -> Any:
        if request.agent == FOLLOW_UP:
            again = outcome.ask_again("Agnese Corvo") in request.messages[-1].content
            return {"outcome": OUTCOME if again else said_first}
        return plain(request)

    return answer


LIVE_SAID = "I think we should open it now."
"""Toll-house #32 (seed 46), turn 5: "reaches for the door" was answered with these words,
the human's own speech of the beat, which the clamps refused as an outcome."""


def test_a_refused_answer_is_asked_again_worded_apart(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_refused_then_told(LIVE_SAID))
    sid = kit.create()
    kit.play(sid, speech=LIVE_SAID, action=BOLT)
    asked = [c.request.messages[-1].content for c in kit.calls(sid) if c.agent == FOLLOW_UP]
    assert len(asked) == 2
    assert outcome.ask("Agnese Corvo") in asked[0]
    assert outcome.ask_again("Agnese Corvo") in asked[1]
    assert [o[2] for o in _outcomes(kit.history(sid))] == [OUTCOME]


def test_negative_control_never_asked_again_the_attempt_stays_unanswered(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow_up, "MAX_ASKED_AGAIN", 0)
    kit = make_kit(fn=_refused_then_told(LIVE_SAID))
    sid = kit.create()
    kit.play(sid, speech=LIVE_SAID, action=BOLT)
    assert _agents(kit, sid, 1).count(FOLLOW_UP) == 1
    assert _outcomes(kit.history(sid)) == []


def _assert_asked_again(make_kit: KitFactory, refused: str, rule: str) -> None:
    """The first answer, `refused`, is refused by `rule` and asked again; OUTCOME is told."""
    kit = make_kit(fn=_refused_then_told(refused))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert _agents(kit, sid, 1).count(FOLLOW_UP) == 2
    assert [o[2] for o in _outcomes(kit.history(sid))] == [OUTCOME]
    commit = [line for line in read_journal(journal_path(kit.data_dir, sid))
              if isinstance(line, CommitLine)][-1]  # fmt: skip
    assert rule in {c.rule for c in commit.clamp_changes}


UNRELATED = "Agnese Corvo lifts the will out of the notary's satchel."
"""An answer about the standing facts, not the attempt (clamp `borrowed_outcome`; its case
table holds the live incidents)."""


def test_a_borrowed_answer_is_refused_by_the_clamp_and_asked_again(
    make_kit: KitFactory,
) -> None:
    _assert_asked_again(make_kit, UNRELATED, "borrowed_outcome")


def test_negative_control_without_the_asked_attempts_the_facts_become_the_outcome(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow_up, "replace", lambda ctx, **changes: ctx)  # `asked` left empty
    kit = make_kit(fn=_refused_then_told(UNRELATED))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert [o[2] for o in _outcomes(kit.history(sid))] == [UNRELATED]


SESSION_SEED = 50


def _seeded_copy(request: ProviderRequest) -> Any:
    """A seeded model: under the session's seed the follow-up copies the human's speech,
    whatever the wording (toll-house #36, seed 50, turn 5); another seed tells an outcome."""
    if request.agent == FOLLOW_UP:
        return {"outcome": LIVE_SAID if request.seed == SESSION_SEED else OUTCOME}
    return _answers()(request)


def _seeded_kit(make_kit: KitFactory) -> tuple[Kit, str]:
    kit = make_kit(fn=_seeded_copy)
    kit.runner.client.seed = SESSION_SEED  # type: ignore[attr-defined]
    sid = kit.create()
    kit.play(sid, speech=LIVE_SAID, action=BOLT)
    return kit, sid


def test_asked_again_under_another_seed(make_kit: KitFactory) -> None:
    kit, sid = _seeded_kit(make_kit)
    seeds = [c.request.seed for c in kit.calls(sid) if c.agent == FOLLOW_UP]
    assert seeds == [SESSION_SEED, SESSION_SEED + follow_up.RESEED]
    assert [o[2] for o in _outcomes(kit.history(sid))] == [OUTCOME]


def test_negative_control_asked_again_under_the_same_seed_the_copy_comes_back(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow_up, "RESEED", 0)
    kit, sid = _seeded_kit(make_kit)
    assert _agents(kit, sid, 1).count(FOLLOW_UP) == 2
    assert _outcomes(kit.history(sid)) == []


def test_asked_again_at_most_max_asked_again_a_beat(make_kit: KitFactory) -> None:
    kit = make_kit(fn=_answers(said="Agnese Corvo tries this.", speakers=("C2", "C4", "C5")))
    sid = kit.create()
    kit.play(sid, speech="Everyone, listen.")
    kit.play(sid, action=BOLT)  # four attempts wait; every answer tells nothing
    asked = [c.request.messages[-1].content for c in kit.calls(sid) if c.agent == FOLLOW_UP]
    assert len(asked) == MAX_FOLLOW_UPS + follow_up.MAX_ASKED_AGAIN == 3
    assert "(C1) | " + BOLT in asked[2] and outcome.ask_again("Agnese Corvo") in asked[2]


CANARY = "Zqxvorn"


def _thought_leak(make_kit: KitFactory) -> tuple[Kit, str]:
    kit = make_kit(fn=_answers(said=f"Agnese Corvo pulls at the bolt and finds {CANARY}."))
    sid = kit.create()
    kit.play(sid, action=BOLT, thought=f"the bolt hides {CANARY}")
    raw = [c.response for c in kit.calls(sid) if c.agent == FOLLOW_UP]
    assert raw and CANARY in str(raw[0])  # the planted leak, in the follow-up's answer
    return kit, sid


def test_the_outcome_goes_through_the_clamps(make_kit: KitFactory) -> None:
    """A follow-up answer carrying a private thought's word: the thought guard redacts it
    before anyone perceives the event."""
    kit, sid = _thought_leak(make_kit)
    (event,) = _outcomes(kit.history(sid))
    assert CANARY not in event[2] and event[1] == "C1"
    for call in kit.calls(sid):
        if call.agent in ("prose", "character:C2"):
            assert CANARY not in str(call.request.messages)


def test_negative_control_unclamped_the_thought_reaches_the_event(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow_up, "clamp_decision", lambda decision, ctx: (decision, []))
    kit, sid = _thought_leak(make_kit)
    (event,) = _outcomes(kit.history(sid))
    assert CANARY in event[2]


def test_a_failed_follow_up_fails_the_turn_and_commits_nothing(make_kit: KitFactory) -> None:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == FOLLOW_UP:
            return {"speech": "not an outcome"}  # fails the schema, every attempt
        return _answers()(request)

    kit = make_kit(fn=answer)
    sid = kit.create()
    before = kit.state(sid)
    with pytest.raises(ModelFailureError, match=FOLLOW_UP):
        kit.play(sid, action=BOLT)
    assert kit.state(sid) == before and kit.history(sid)[-1].turn_number == 0
    failed = [c for c in kit.calls(sid) if c.agent == FOLLOW_UP]
    assert len(failed) == 2 and all(c.error for c in failed)


def test_an_actor_answered_by_an_earlier_follow_up_is_not_asked_again() -> None:
    hall = Audience(origin="zone", perceivers=HALL_VIEW)
    attempts = [
        ActionRecord(
            seq=seq, turn_number=1, speaker="C2", author="character", text=text, audience=hall
        )
        for seq, text in ((5, "opens the satchel"), (6, "reads the will"))
    ]
    decision = DirectorDecision(events=[follow_up.outcome_event(attempts[0], "It opens.")])
    assert follow_up.answered(decision, "C2") and not follow_up.answered(decision, "C4")
    assert follow_up.unanswered(list(attempts), 2, decision) == []
    assert follow_up.unanswered(list(attempts), 2, DirectorDecision()) == attempts
