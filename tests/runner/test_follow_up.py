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


UNRELATED = "Agnese Corvo lifts the will out of the notary's satchel."
"""An outcome about the standing facts, not the attempt (as toll-house #46, seed 60, turn 5:
"reaches for the door" got "Ilse Brandt successfully opened the toll box.")."""


def test_an_outcome_about_the_facts_and_not_the_attempt_is_asked_again(
    make_kit: KitFactory,
) -> None:
    _assert_asked_again(make_kit, UNRELATED, follow_up.UNRELATED_RULE)


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


def test_negative_control_without_the_rule_the_facts_become_the_outcome(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow_up, "without_unrelated", lambda text, *a: text)
    kit = make_kit(fn=_refused_then_told(UNRELATED))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert [o[2] for o in _outcomes(kit.history(sid))] == [UNRELATED]


OTHERS = "Lio Mendez succeeds."
"""Vintners-wake #63 (seed 79), turn 9: the answer about Agnese Corvo's "sits down by the
fire", copied from the one about Lio's attempt."""


def _as_live(monkeypatch: pytest.MonkeyPatch) -> None:
    """Live, the clamp `agency` let the sentence through: Lio's own waiting intent ended
    "Lio Mendez succeeds.". Here Lio attempted nothing, so `agency` is taken out."""
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "agency"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)


def test_an_outcome_naming_only_someone_else_is_asked_again(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _as_live(monkeypatch)
    _assert_asked_again(make_kit, OTHERS, follow_up.OTHER_ACTOR_RULE)


def test_negative_control_without_the_rule_anothers_outcome_is_hers(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _as_live(monkeypatch)
    monkeypatch.setattr(follow_up, "names_only_others", lambda text, actor, cast: False)
    kit = make_kit(fn=_refused_then_told(OTHERS))
    sid = kit.create()
    kit.play(sid, action=BOLT)
    assert [o[:3] for o in _outcomes(kit.history(sid))] == [(1, "C1", OTHERS)]


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
    monkeypatch.setattr(turn, "clamp_decision", lambda decision, ctx: (decision, []))
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


WINDOW = "walks slowly to the nearest window and looks outside"
COPY = "Agnese Corvo walks slowly to the nearest window and looks outside."
"""The-vintners-wake soak #18 (seed 32), turn 5: the follow-up's answer to "reaches for the
door", her attempt of turn 2 told again."""


RAIN = "Agnese Corvo sees only rain beyond the glass."


def _copying(make_kit: KitFactory) -> tuple[Kit, str]:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == FOLLOW_UP and "| reaches for the door" in request.messages[-1].content:
            return {"outcome": COPY}
        return _answers(said=RAIN)(request)

    kit = make_kit(fn=answer)
    sid = kit.create()
    kit.play(sid, action=WINDOW)
    kit.play(sid, action="reaches for the door")
    return kit, sid


def test_an_outcome_copying_another_attempt_is_not_told(make_kit: KitFactory) -> None:
    kit, sid = _copying(make_kit)
    assert _outcomes(kit.history(sid)) == [(1, "C1", RAIN, HALL_VIEW)]
    assert FOLLOW_UP in _agents(kit, sid, 2)
    lines = read_journal(journal_path(kit.data_dir, sid))
    commits = [line for line in lines if isinstance(line, CommitLine)]
    assert follow_up.COPY_RULE in [c.rule for c in commits[1].clamp_changes]


def test_negative_control_without_the_copy_rule_the_copy_is_told(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow_up, "without_borrowed", lambda text, *_: text)
    # `duplicate_event` knows an attempt told under its actor's name too: off as well, so the
    # copy rule is seen alone.
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "duplicate_event"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    # And `agency` refuses a walk told for "reaches for the door" (the lexicon's verbs of moving).
    monkeypatch.setattr(
        agency, "lexicon_for", lambda language: replace(lexicon_for(language), moving=frozenset())
    )
    kit, sid = _copying(make_kit)
    assert [o[0] for o in _outcomes(kit.history(sid))] == [1, 2]


def _attempt(seq: int, speaker: str, text: str) -> ActionRecord:
    hall = Audience(origin="zone", perceivers=HALL_VIEW)
    return ActionRecord(
        seq=seq, turn_number=1, speaker=speaker, author="human", text=text, audience=hall
    )


def _told(text: str, attempt: ActionRecord, history: list[HistoryRecord], name: str) -> str:
    return follow_up.without_borrowed(text, attempt, history, name)


def test_another_characters_attempt_is_a_copy_too() -> None:
    """Toll-house soak #13, turn 5: Maren Holt's attempt answered with the human's."""
    door, window = _attempt(14, "C1", "reaches for the door"), _attempt(10, "C2", WINDOW)
    history: list[HistoryRecord] = [window, door]
    assert _told("Maren Holt reaches for the door", window, history, "Maren Holt") == ""
    kept = "Maren Holt walks to the window."
    assert _told(kept, window, history, "Maren Holt") == kept
    # Its own attempt told as done is an outcome, the live text included.
    own = COPY.replace("Agnese Corvo", "Maren Holt")
    assert _told(own, window, history, "Maren Holt") == own
    assert _told("Ilse Brandt reaches for the door.", door, history, "Ilse Brandt") != ""
    short = [_attempt(3, "C1", "sits down"), door]
    assert _told("Ilse Brandt sits down.", door, short, "Ilse Brandt") == "Ilse Brandt sits down."


def test_another_attempt_in_the_stem_form_is_a_copy() -> None:
    """An attempt in "-es" told as "reach", and back: one act (`attempt_told.act_stem`)."""
    door, window = _attempt(14, "C1", "reach for the door"), _attempt(10, "C2", WINDOW)
    told = "Maren Holt reaches for the door."
    assert _told(told, window, [window, door], "Maren Holt") == ""


def test_negative_control_stripping_only_the_s_the_es_copy_is_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(follow_up, "act_stem", lambda word: word.removesuffix("s"))
    door, window = _attempt(14, "C1", "reach for the door"), _attempt(10, "C2", WINDOW)
    told = "Maren Holt reaches for the door."
    assert _told(told, window, [window, door], "Maren Holt") == told


def test_a_sentence_holding_a_run_of_another_attempt_goes_the_rest_stays() -> None:
    """Toll-house soak #14 (seed 32), turn 2: Maren Holt's "read" answered with the human's
    attempt of that beat in a second sentence."""
    read, window = _attempt(5, "C2", "read"), _attempt(7, "C1", WINDOW)
    live = (
        "Maren Holt tries to read the toll box and reads. Maren Holt moves to the nearest"
        " window and looks outside."
    )
    told = _told(live, read, [read, window], "Maren Holt")
    assert told == "Maren Holt tries to read the toll box and reads."
    six = "Maren Holt moves the nearest window and looks outside."  # 6 words of it in a row
    assert _told(six, read, [read, window], "Maren Holt") == six


def test_negative_control_with_runs_of_eight_the_live_copy_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(follow_up, "COPY_RUN_WORDS", 8)
    read, window = _attempt(5, "C2", "read"), _attempt(7, "C1", WINDOW)
    live = "Maren Holt moves to the nearest window and looks outside."
    assert _told(live, read, [read, window], "Maren Holt") == live


FAILED_WINDOW = "Agnese Corvo tries to arrive at the nearest window and looks outside, but fails."
"""The-vintners-wake soak #19 (seed 33), turn 2: the follow-up's outcome of her attempt."""


def _event(turn_number: int, actor: str, text: str) -> EventRecord:
    hall = Audience(origin="zone", perceivers=HALL_VIEW)
    return EventRecord(
        seq=turn_number * 10, turn_number=turn_number, speaker=actor, author="director",
        event_kind="action_outcome", text=text, actor_id=actor, audience=hall,
    )  # fmt: skip


def test_an_outcome_copying_an_event_of_the_beat_is_not_told() -> None:
    """Soak #19, turn 2: Dorotea Sand's "read the will at midnight" answered with Agnese
    Corvo's outcome, decided a moment before, under her own name."""
    read = _attempt(7, "C4", "read the will at midnight")
    decided = [follow_up.outcome_event(_attempt(9, "C1", WINDOW), FAILED_WINDOW)]
    live = "Dorotea Sand attempts to arrive at the nearest window and looks outside, but fails."
    assert follow_up.without_borrowed(live, read, [read], "Dorotea Sand", decided) == ""
    assert follow_up.without_borrowed(live, read, [read], "Dorotea Sand") == live  # control


def test_an_outcome_copying_an_earlier_event_is_not_told_within_the_window() -> None:
    """Soak #19, turn 5: "reaches for the door" answered with her outcome of turn 2."""
    now = 12
    door = _attempt(200, "C1", "reaches for the door").model_copy(update={"turn_number": now})
    live = FAILED_WINDOW.replace("tries", "attempts")
    for back, kept in ((3, ""), (follow_up.EVENT_TURNS, live)):
        history: list[HistoryRecord] = [_event(now - back, "C1", FAILED_WINDOW), door]
        assert follow_up.without_borrowed(live, door, history, "Agnese Corvo") == kept


def test_a_standing_fact_may_be_an_outcome() -> None:
    fact = "The trapdoor to the cellar is shut and bolted from the hall side."
    pull = _attempt(3, "C1", "pulls at the trapdoor")
    history: list[HistoryRecord] = [_event(1, "C1", fact), pull]
    said = "Agnese Corvo pulls at it: the trapdoor to the cellar is shut and bolted."
    told = follow_up.without_borrowed(said, pull, history, "Agnese Corvo", public=[fact])
    assert told == said
    assert follow_up.without_borrowed(said, pull, history, "Agnese Corvo") == ""  # control


def test_another_attempt_inside_a_sentence_about_nothing_of_its_own_goes() -> None:
    """Toll-house soak #16 (seed 33), turn 5: "reaches for the door" answered with Teodor
    Vask's attempt of the beat before, inside a sentence."""
    books, door = (
        _attempt(12, "C3", "Sign the books tonight"),
        _attempt(17, "C1", "reaches for the door"),
    )
    history: list[HistoryRecord] = [books, door]
    live = "Ilse Brandt tries to sign the books tonight."
    assert follow_up.without_borrowed(live, door, history, "Ilse Brandt") == ""
    opened = _attempt(12, "C2", "open the door")
    locked = "Ilse Brandt tries to open the door, but it is locked."  # her own "door"
    assert follow_up.without_borrowed(locked, door, [opened, door], "Ilse Brandt") == locked


def test_negative_control_attempts_of_four_words_too_short_to_count_the_live_copy_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(follow_up, "MIN_COPY_WORDS", 5)
    monkeypatch.setattr(follow_up, "WHOLE_MIN_WORDS", 5)
    books, door = (
        _attempt(12, "C3", "Sign the books tonight"),
        _attempt(17, "C1", "reaches for the door"),
    )
    live = "Ilse Brandt tries to sign the books tonight."
    assert follow_up.without_borrowed(live, door, [books, door], "Ilse Brandt") == live


READ_ALOUD = _attempt(23, "C2", "read aloud")
SITS = _attempt(25, "C1", "sits down by the fire")


def test_another_attempt_of_two_words_inside_a_sentence_about_nothing_of_its_own_goes() -> None:
    """Vintners-wake #55 (seed 71), turn 9: the human's "sits down by the fire" answered with
    Brother Caspar's "read aloud" of that beat, under her name."""
    history: list[HistoryRecord] = [READ_ALOUD, SITS]
    live = "Agnese Corvo reads aloud"
    assert follow_up.without_borrowed(live, SITS, history, "Agnese Corvo") == ""
    kept = "Agnese Corvo sits down by the fire and reads aloud."  # her own "sits", "fire"
    assert follow_up.without_borrowed(kept, SITS, history, "Agnese Corvo") == kept
    read = _attempt(23, "C2", "read")  # one word proves no copy
    alone = "Agnese Corvo reads the room and settles."
    assert follow_up.without_borrowed(alone, SITS, [read, SITS], "Agnese Corvo") == alone


def test_negative_control_with_wholes_of_three_words_the_read_aloud_copy_is_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(follow_up, "WHOLE_MIN_WORDS", 3)
    live = "Agnese Corvo reads aloud"
    assert follow_up.without_borrowed(live, SITS, [READ_ALOUD, SITS], "Agnese Corvo") == live


LIVE_EMPTY = ["Agnese Corvo tries this.", "Agnese Corvo tries this to take action"]
"""Toll-house #19 (seed 36, turn 5) and vintners-wake #22 (seed 35, turn 8), the actor's
name changed: answers that tell no outcome."""
LIVE_QUESTION_COPIES = [
    "Agnese Corvo tries this and succeeds.",
    "Agnese Corvo fails to try this because the water is too high to cross until dawn.",
]
"""Toll-house #24 (seed 41) and #25 (seed 42), turn 2, the actor's name changed: the
question's "tries this" copied, but how it went told. They stay: dropping them left the
human's attempt with no outcome at all."""


@pytest.mark.parametrize("said", LIVE_EMPTY)
def test_an_outcome_telling_nothing_is_not_told(make_kit: KitFactory, said: str) -> None:
    kit = make_kit(fn=_answers(said=said))
    sid = kit.create()
    kit.play(sid, action="reaches for the door")
    assert FOLLOW_UP in _agents(kit, sid, 1)
    assert _outcomes(kit.history(sid)) == []
    commits = [
        x for x in read_journal(journal_path(kit.data_dir, sid)) if isinstance(x, CommitLine)
    ]
    # Refused, so asked once more (`MAX_ASKED_AGAIN`): the same answer is refused again.
    assert [(c.rule, c.before, c.after) for c in commits[0].clamp_changes] == [
        (follow_up.EMPTY_RULE, said, ""),
        (follow_up.EMPTY_RULE, said, ""),
    ]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Agnese Corvo fails.", "Agnese Corvo fails."),
        ("Agnese Corvo tries this. The door is locked.", "The door is locked."),
        ("Agnese Corvo opens it.", "Agnese Corvo opens it."),
        (
            "Agnese Corvo retries this latch and it gives.",
            "Agnese Corvo retries this latch and it gives.",
        ),
    ],
)
def test_a_sentence_with_an_outcome_stays(said: str, kept: str) -> None:
    assert follow_up.without_empty(said, "Agnese Corvo") == kept


def test_negative_control_without_the_empty_rule_the_live_answer_is_told(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(follow_up, "without_empty", lambda text, name: text)
    # Clamp `retold_attempt` takes "tries this" too: off as well, so the rule is seen alone.
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "retold_attempt"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    kit = make_kit(fn=_answers(said=LIVE_EMPTY[0]))
    sid = kit.create()
    kit.play(sid, action="reaches for the door")
    assert _outcomes(kit.history(sid)) == [(1, "C1", LIVE_EMPTY[0], HALL_VIEW)]
