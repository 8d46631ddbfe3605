"""`Runner.interview`: one Character call out of band, journaled, never committed or remembered."""

from __future__ import annotations

import hashlib

import pytest

from tavern.records import SessionState
from tavern.runner import InvalidTurnError

from .kit import Kit, KitFactory, run

CANARY = "Brinewick4410"


def state_hash(kit: Kit, session_id: str) -> str:
    """The whole stored session: state (ledgers, memory, clock, revision) and history."""
    digest = hashlib.sha256(kit.state(session_id).model_dump_json().encode())
    for record in kit.history(session_id):
        digest.update(record.model_dump_json().encode())
    return digest.hexdigest()


def test_an_interview_is_journaled_and_changes_nothing(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, speech="Good evening.", force_speaker="C2")
    before = state_hash(kit, sid)
    answer = run(kit.runner.interview(sid, "caspar-of-lune", f"Have you heard of {CANARY}?"))
    assert state_hash(kit, sid) == before
    assert answer.character == "C2" and answer.turn_number == 1
    assert CANARY in (answer.reply.speech or "")  # the parrot repeats what it was shown
    [call] = [c for c in kit.calls(sid) if c.agent.startswith("interview")]
    assert call.agent == "interview:C2" and call.turn_number == 1
    assert call.request.messages[-1].content == f"Have you heard of {CANARY}?"
    # Never remembered: the next turn's prompt of the same character does not hold it.
    kit.play(sid, speech="Well?", force_speaker="C2")
    [prompt] = kit.requests("character:C2")[-1:]
    assert CANARY not in "\n".join(m.content for m in prompt.messages)
    assert not any(CANARY in line for line in kit.state(sid).ledgers["C2"].memory)


def test_an_interview_that_writes_is_caught_by_the_hash(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, speech="Good evening.", force_speaker="C2")
    before = state_hash(kit, sid)
    honest = kit.runner.interview

    async def remembering(session_id: str, character_id: str, question: str) -> object:
        answer = await honest(session_id, character_id, question)
        state = kit.store.load(session_id)
        ledger = state.ledgers["C2"]
        changed: SessionState = state.model_copy(
            update={
                "ledgers": {
                    **state.ledgers,
                    "C2": ledger.model_copy(update={"memory": [*ledger.memory, question]}),
                }
            }
        )
        kit.store.replace_state(session_id, changed, state.revision)
        return answer

    monkeypatch.setattr(kit.runner, "interview", remembering)
    run(kit.runner.interview(sid, "C2", f"Have you heard of {CANARY}?"))
    assert state_hash(kit, sid) != before


def test_an_unknown_character_is_refused_before_any_call(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    with pytest.raises(InvalidTurnError, match="C9"):
        run(kit.runner.interview(sid, "C9", "Who are you?"))
    assert not kit.calls(sid)
