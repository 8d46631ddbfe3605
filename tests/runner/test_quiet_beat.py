"""Legal silence and the turn's lines as they become final.

A Director that admits nothing material (`nothing_happens` and no event) gets no prose call:
the turn commits a `quiet` kernel marker, the commit line says `quiet`, and the human's
screen shows the marker (the interface words it). The `lines` callback receives the human's
records and the clamped events, then the narration, then each reply, each as the filter
layer left it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tavern.llm.provider import ProviderRequest
from tavern.records import (
    NARRATOR,
    CommitLine,
    HistoryRecord,
    SystemRecord,
    TurnInput,
)
from tavern.runner.screen import QUIET_MARKER, QUIET_TEXT, perceived_by
from tavern.store import journal_path, read_journal

from .kit import KitFactory, director_answer, run

RAIN = "Rain drums on the shutters."
EVENT = {
    "kind": "action_outcome", "text": "C1 opens the door; it creaks.", "actor_id": "C1",
    "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None,
}  # fmt: skip
ASSISTANT = "What can I assist you with today?"
"""A sentence the filter `out_of_world` cuts from a narration (its case table's first row)."""
REFUSAL = "I'm sorry, but I can't assist with that."
"""A reply speech the same rule cuts whole."""


def director(speakers: list[str], nothing: bool, events: list[Any] | None = None) -> Any:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(speakers, nothing_happens=nothing, events=events or [])
        if request.agent == "prose":
            return {"narration": f"{RAIN} {ASSISTANT}"}
        if request.agent == "character:C2":
            return {"speech": REFUSAL, "thought": "The stranger lies.", "action_intent": None}
        return {"speech": "Evening.", "thought": None, "action_intent": None}

    return answer


def commit_of(kit: Any, sid: str) -> CommitLine:
    lines = read_journal(journal_path(kit.data_dir, sid))
    return [line for line in lines if isinstance(line, CommitLine)][-1]


def test_a_quiet_beat_asks_no_narration_and_commits_a_kernel_marker(
    make_kit: KitFactory,
) -> None:
    kit = make_kit(fn=director([NARRATOR], nothing=True))
    sid = kit.create(controlled="C1")
    result = kit.play(sid, speech="Quiet night.")
    assert kit.requests("prose") == []  # no model call for a beat where nothing happens
    assert commit_of(kit, sid).quiet
    [marker] = [r for r in kit.history(sid) if isinstance(r, SystemRecord) and r.turn_number]
    assert (marker.marker, marker.text) == (QUIET_MARKER, QUIET_TEXT)  # kernel words
    shown = [r for r in result.records if r.kind == "system"]
    assert shown == [marker]  # the human's screen carries it; the interface words it
    assert not any(r.kind == "narration" for r in result.records)
    view = run(kit.runner.view(sid))
    assert any(r.kind == "system" and r.marker == QUIET_MARKER for r in view.transcript)
    # The next Director sees the marker as a kernel line, never as a narration.
    kit.play(sid, speech="Hello?")
    prompt = kit.requests("director")[-1].messages[-1].content
    assert f"quiet | {QUIET_TEXT}" in prompt


def test_a_quiet_beat_still_runs_its_speakers(make_kit: KitFactory) -> None:
    kit = make_kit(fn=director(["C4"], nothing=True))
    sid = kit.create(controlled="C1")
    result = kit.play(sid, speech="Anyone there?")
    assert kit.requests("prose") == [] and len(kit.requests("character:C4")) == 1
    assert [r.text for r in result.records if r.kind == "speech" and r.speaker != "C1"] == [
        "Evening."
    ]


def test_the_flag_beside_an_event_is_not_silence(make_kit: KitFactory) -> None:
    """Live Directors said `nothing_happens` beside events they listed (every such answer
    in the committed recordings): the events win and the prose renderer is asked."""
    kit = make_kit(fn=director([NARRATOR], nothing=True, events=[EVENT]))
    sid = kit.create(controlled="C1")
    result = kit.play(sid, action="opens the door")
    assert len(kit.requests("prose")) == 1 and not commit_of(kit, sid).quiet
    assert not any(r.kind == "system" for r in result.records)


def test_without_the_flag_the_narration_is_asked(make_kit: KitFactory) -> None:
    """Control: the same empty beat without `nothing_happens` is narrated as before."""
    kit = make_kit(fn=director([NARRATOR], nothing=False))
    sid = kit.create(controlled="C1")
    result = kit.play(sid, speech="Quiet night.")
    assert len(kit.requests("prose")) == 1 and not commit_of(kit, sid).quiet
    assert [r.text for r in result.records if r.kind == "narration"] == [RAIN]


def test_other_kernel_markers_stay_off_the_screen() -> None:
    from tavern.records import Audience

    def marker(name: str) -> SystemRecord:
        return SystemRecord(
            seq=1, turn_number=1, speaker="World", author="kernel",
            audience=Audience(origin="public"), marker=name, text="Time passes.",
        )  # fmt: skip

    assert perceived_by([marker("time_skip")], "C1") == []
    assert perceived_by([marker(QUIET_MARKER)], "C1") == [marker(QUIET_MARKER)]


def test_lines_arrive_in_order_as_the_filters_leave_them(make_kit: KitFactory) -> None:
    kit = make_kit(fn=director(["C2", "C4"], nothing=False, events=[EVENT]))
    sid = kit.create(controlled="C1")
    batches: list[list[HistoryRecord]] = []
    partials: list[str] = []
    stages: list[str] = []

    async def lines(records: Sequence[HistoryRecord], partial: bool = False) -> None:
        if partial:
            partials.extend(r.text for r in records)
            assert not any(r.kind == "narration" for batch in batches for r in batch)
        else:
            batches.append(list(records))

    async def progress(stage: str, fraction: float | None) -> None:
        stages.append(stage)

    result = run(
        kit.runner.play_turn(sid, TurnInput(action="opens the door"), progress, None, lines)
    )
    kinds = [[r.kind for r in batch] for batch in batches]
    # C2's speech is cut whole and its thought is its own: C2 adds no line; C4's speech does.
    assert kinds == [["action", "event"], ["narration"], ["speech"]]
    streamed = [r for batch in batches for r in batch]
    assert [r.text for r in streamed] == [r.text for r in result.records]  # what commits
    texts = " ".join(r.text for r in streamed) + " ".join(partials)
    assert ASSISTANT not in texts and REFUSAL not in texts  # cut before they were shown
    assert partials == [RAIN]  # its first sentence, complete once the second began
    assert {c.rule for c in commit_of(kit, sid).filter_cuts} == {"out_of_world"}
    assert stages.index("character:C2") < stages.index("character:C4")
    assert "character:C1" not in stages


def test_lines_carry_only_what_the_human_perceived(make_kit: KitFactory) -> None:
    """A whisper between two others reaches the lines only as the screen shows it."""
    whisper = {"speech": "The cask is empty.", "thought": "He knows.", "action_intent": None}

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(["C2"])
        if request.agent == "prose":
            return {"narration": RAIN}
        return whisper

    kit = make_kit(fn=answer)
    sid = kit.create(controlled="C1")
    batches: list[HistoryRecord] = []

    async def lines(records: Sequence[HistoryRecord], partial: bool = False) -> None:
        batches.extend(records)

    run(kit.runner.play_turn(sid, TurnInput(speech="Hello."), None, None, lines))
    assert "He knows." not in [r.text for r in batches]  # C2's thought is C2's alone
    history = kit.history(sid)
    assert any(r.text == "He knows." for r in history)  # control: it was recorded
