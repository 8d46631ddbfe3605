"""The admitted decision's events reach `lines` before the follow-up calls (issue 46).

A follow-up call only adds an outcome to the decision and clamps it again, so the events
admitted before it are final: `TurnTransaction._show_early` gives them to the screen while
the follow-ups run, and the turn commits them with the same seq and text. The check
(`early_lines_kept`) holds over the parrot and adversary sweeps, and catches a planted
follow-up that rewrites an earlier event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tavern.llm.provider import ProviderRequest
from tavern.physics.clamps import clamp_decision
from tavern.records import ClampChange, DirectorDecision, HistoryRecord, TurnInput
from tavern.runner import follow_up

from .kit import KitFactory, director_answer, run

GUST = {
    "kind": "sensory_cue", "text": "A gust shakes the shutters.", "actor_id": None,
    "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None,
}  # fmt: skip
OUTCOME = "Ilse Brandt opens the door; it creaks on its hinges."


class Recorder:
    """The `lines` callback: each final batch, with the follow-up calls made before it."""

    def __init__(self, kit: Any) -> None:
        self.kit = kit
        self.batches: list[tuple[int, list[HistoryRecord]]] = []

    async def __call__(self, records: Sequence[HistoryRecord], partial: bool = False) -> None:
        if not partial:
            self.batches.append((len(self.kit.requests("director:outcome")), list(records)))

    def streamed(self) -> list[HistoryRecord]:
        return [r for _, batch in self.batches for r in batch]


def early_lines_kept(streamed: list[HistoryRecord], committed: list[HistoryRecord]) -> list[str]:
    """What the screen was given that the turn did not commit as given, or gave twice."""
    kept = {(r.seq, r.text) for r in committed}
    problems = [
        f"not committed: {r.seq} {r.text!r}" for r in streamed if (r.seq, r.text) not in kept
    ]
    seqs = [r.seq for r in streamed]
    problems += [f"given twice: {s}" for s in sorted({s for s in seqs if seqs.count(s) > 1})]
    return problems


def scripted(request: ProviderRequest) -> Any:
    if request.agent == "director":
        return director_answer(["C4"], events=[GUST])  # the door's outcome left out
    if request.agent == "director:outcome":
        return {"outcome": OUTCOME}
    if request.agent == "prose":
        return {"narration": "Rain drums on the roof."}
    return {"speech": "Evening.", "thought": None, "action_intent": None}


def play(kit: Any, sid: str, recorder: Recorder, **turn: Any) -> list[HistoryRecord]:
    result = run(kit.runner.play_turn(sid, TurnInput(**turn), None, None, recorder))
    return list(result.records)


def test_the_admitted_events_show_before_the_follow_up_call(make_kit: KitFactory) -> None:
    kit = make_kit(fn=scripted)
    sid = kit.create(controlled="C1")
    recorder = Recorder(kit)
    committed = play(kit, sid, recorder, action="opens the door")
    assert len(kit.requests("director:outcome")) == 1  # the door's outcome was asked
    first_calls, first = recorder.batches[0]
    assert first_calls == 0  # given before the follow-up was asked
    assert [r.text for r in first if r.kind == "event"] == [GUST["text"]]
    events = [r.text for r in recorder.streamed() if r.kind == "event"]
    assert events == [GUST["text"], OUTCOME]  # the outcome after it, each once
    assert early_lines_kept(recorder.streamed(), committed) == []


def test_without_a_follow_up_the_events_come_with_the_decision(make_kit: KitFactory) -> None:
    """Control: nothing waits, so no early batch; the events come in the one batch."""
    kit = make_kit(fn=scripted)
    sid = kit.create(controlled="C1")
    recorder = Recorder(kit)
    committed = play(kit, sid, recorder, speech="Good evening.")
    assert kit.requests("director:outcome") == []
    kinds = [[r.kind for r in batch] for _, batch in recorder.batches]
    assert kinds[0] == ["speech", "event"]
    assert early_lines_kept(recorder.streamed(), committed) == []


@pytest.mark.parametrize("mode", ["parrot", "adversary"])
def test_every_line_given_early_is_committed_as_given(make_kit: KitFactory, mode: str) -> None:
    kit = make_kit(mode)
    sid = kit.create(controlled="C1")
    inputs = [
        {"action": "opens the door"},
        {"speech": "Who is there?", "action": "lifts the lamp"},
        {"action": "reads the ledger"},
        {"skip": True},
        {"action": "sets a coin on the table", "thought": "They lie."},
    ]
    early = 0
    for turn in inputs * 2:
        recorder = Recorder(kit)
        asked = len(kit.requests("director:outcome"))
        committed = play(kit, sid, recorder, **turn)
        assert early_lines_kept(recorder.streamed(), committed) == []
        followed = len(kit.requests("director:outcome")) > asked
        early += followed and any(
            calls == asked and any(r.kind == "event" for r in batch)
            for calls, batch in recorder.batches
        )
    assert early  # the sweep did give events before a follow-up call


def test_negative_control_a_follow_up_that_rewrites_an_event_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-clamp that changed an admitted event would make the early line a lie: the
    check above sees it."""

    def rewriting(
        decision: DirectorDecision, ctx: Any
    ) -> tuple[DirectorDecision, list[ClampChange]]:
        clamped, changes = clamp_decision(decision, ctx)
        first = clamped.events[0].model_copy(update={"text": "The shutters hold still."})
        return clamped.model_copy(update={"events": [first, *clamped.events[1:]]}), changes

    monkeypatch.setattr(follow_up, "clamp_decision", rewriting)
    kit = make_kit(fn=scripted)
    sid = kit.create(controlled="C1")
    recorder = Recorder(kit)
    committed = play(kit, sid, recorder, action="opens the door")
    [gust] = [r for r in recorder.batches[0][1] if r.kind == "event"]
    assert early_lines_kept(recorder.streamed(), committed) == [
        f"not committed: {gust.seq} {GUST['text']!r}",
        f"given twice: {gust.seq}",  # its rewrite went out as a line of its own
    ]
