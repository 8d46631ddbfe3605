"""Replay: recorded sessions replay byte-equal (prompts, answers, final state), in-process and
over HTTP through the loopback replay server; a planted prompt change is reported at the
call it changes; a failed turn is left out; single calls fire again, edited, K times."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from harness_kit import play
from serve_process import tavern_serve

import tavern.agents.character as character_module
from harness.cli import main
from harness.loading import LoadedScript, load_script
from harness.replay import read_recording, replay_in_process, replay_over_http
from harness.replay_call import CallNotFound, edit_messages, pick_call
from tavern.llm.provider import ProviderRequest
from tavern.store import read_journal

DATA = Path(__file__).parent / "data" / "replay"
FAKE = DATA / "fake-whisper-secrecy"
LOCAL = DATA.parent / "live-local" / "sessions" / "s20261206-004045-f1186ca9"
"""The whisper-secrecy session of the committed live sample (embedded local model)."""
RERECORD = (
    "the committed recording no longer replays byte-equal: the kernel's prompts changed. "
    "If that was meant, rebase it: `tavern-harness replay {dir} --out NEW` and copy "
    "NEW/sessions/*/journal.jsonl and final.json over it (tests/harness/data/replay/README.md)."
)


def _session_dir(data_dir: Path) -> Path:
    [found] = list((data_dir / "sessions").iterdir())
    return found


@pytest.mark.parametrize(
    "name", ["whisper-secrecy", "undo-replay", "idle-scene", "learned-names"]
)  # between them: turns, whispers, undo, openings, suggestions, interviews
def test_a_fresh_recording_replays_byte_equal(tmp_path: Path, name: str) -> None:
    play(name, tmp_path / "recorded")
    recording = read_recording(_session_dir(tmp_path / "recorded"))
    kinds = {op.kind for op in recording.operations}
    assert "turn" in kinds
    report = asyncio.run(replay_in_process(recording, tmp_path / "replayed"))
    assert report.equal, (report.divergence, report.state_divergence, report.errors)
    assert report.calls == len(recording.tape) > 0


@pytest.mark.parametrize("folder", [FAKE, LOCAL], ids=["fake", "local"])
def test_a_committed_recording_replays_byte_equal(tmp_path: Path, folder: Path) -> None:
    recording = read_recording(folder)
    report = asyncio.run(replay_in_process(recording, tmp_path))
    assert report.equal, RERECORD.format(dir=folder) + f"\n{report.divergence}"
    assert report.calls == len(recording.tape) >= 10
    assert recording.snapshot is not None and recording.snapshot.state is not None


def test_a_planted_prompt_change_is_reported_at_its_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = read_recording(FAKE)
    first = next(i for i, c in enumerate(recording.tape) if c.agent.startswith("character:"))
    planted = character_module.INSTRUCTIONS + "\nKeep it short."
    monkeypatch.setattr(character_module, "INSTRUCTIONS", planted)
    report = asyncio.run(replay_in_process(recording, tmp_path))
    assert report.divergence is not None and not report.equal
    assert report.divergence.call == first and report.divergence.what == "prompt"
    assert report.divergence.agent == recording.tape[first].agent
    assert "+Keep it short." in report.divergence.diff
    assert "-Keep it short." not in report.divergence.diff


def test_a_failed_turn_is_left_out_of_the_replay(tmp_path: Path) -> None:
    director_calls = {"n": 0}

    def flaky(request: ProviderRequest) -> Any:
        if request.agent == "director":
            director_calls["n"] += 1
            if director_calls["n"] == 2:
                return "not JSON at all"  # the second turn fails, nothing committed
            return {"events": [], "next_speakers": ["C2"], "time_skip_ticks": 0,
                    "nothing_happens": False}  # fmt: skip
        if request.agent == "prose":
            return {"narration": "Rain."}
        return {"speech": "Not tonight.", "thought": None, "action_intent": None}

    loaded = load_script("learned-names")
    events = [
        {"kind": "turn", "speech": "Evening."},
        {"kind": "turn", "speech": "Cold out."},
        {"kind": "turn", "speech": "Colder now."},
    ]
    script = loaded.script.model_validate({**loaded.script.model_dump(), "events": events})
    outcome = play(LoadedScript(script, loaded.source), tmp_path / "recorded", fn=flaky)
    assert outcome.run.turns_failed == [2]
    recording = read_recording(_session_dir(tmp_path / "recorded"))
    assert recording.skipped_turns == [2]
    said = [op.input.speech for op in recording.operations if op.input]
    assert said == ["Evening.", "Colder now."]
    report = asyncio.run(replay_in_process(recording, tmp_path / "replayed"))
    assert report.equal, (report.divergence, report.state_divergence, report.errors)


@pytest.mark.timeout(600)
def test_recordings_replay_byte_equal_over_http(tmp_path: Path) -> None:
    with tavern_serve(tmp_path / "server") as url:
        for folder in (FAKE, LOCAL):
            report = asyncio.run(
                replay_over_http(read_recording(folder), url, tmp_path / folder.name)
            )
            assert report.equal, (folder, report.divergence, report.state_divergence, report.errors)
            journal = tmp_path / folder.name / "sessions" / report.session_id / "journal.jsonl"
            providers = {x.provider for x in read_journal(journal) if x.kind == "llm_call"}
            assert providers == {"llama_cpp"}  # the tape came back through the real adapter


def test_the_replay_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FAKE), "--out", str(tmp_path / "a")]) == 0
    assert "byte-equal: all 13 prompts and answers, and the final state" in capsys.readouterr().out
    assert main(["replay", str(tmp_path / "nowhere")]) == 2
    assert "expected a session directory holding journal.jsonl" in capsys.readouterr().err


def test_a_single_call_fires_again_edited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = read_journal(FAKE / "journal.jsonl")
    picked = pick_call(lines, "character:C3", 2)
    with pytest.raises(CallNotFound, match="agents in that turn: \\['character:C3', 'director'"):
        pick_call(lines, "character:C9", 2)
    with pytest.raises(ValueError, match="is in no message"):
        edit_messages(picked.request.messages, replace=[("no such words", "x")])
    args = [
        "replay-call", str(FAKE), "--agent", "character:C3", "--turn", "2",
        "--replace", "What do you do now?", "What do you make of the coins?",
        "--append", "Answer in one line.", "--times", "3", "--seed", "5",
        "--option", "mode=adversary", "--out", str(tmp_path),
    ]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "character:C3, turn 2, fired 3 times at fake/fake" in out
    assert out.splitlines()[1].split(" | ")[0].strip() == "recorded" and "shot 3" in out
    fired = [json.loads(x) for x in (tmp_path / "replay-calls.jsonl").read_text().splitlines()]
    assert [f["request"]["seed"] for f in fired] == [5, 6, 7]
    assert all(f["agent"] == "character:C3" and f["error"] is None for f in fired)
    last = fired[0]["request"]["messages"][-1]["content"]
    assert last.endswith("What do you make of the coins?\nAnswer in one line.")
    assert fired[0]["request"]["provider_options"] == {"mode": "adversary"}
    assert main([*args[:4], "--turn", "99", "--out", str(tmp_path)]) == 2


def test_every_kind_of_call_divergence_is_reported_at_its_call() -> None:
    """Negative controls of the comparison itself: a changed answer, a call missing, one too
    many, another agent in a call's place; the unchanged tape compares equal."""
    from harness.replay import compare_calls

    tape = read_recording(FAKE).tape
    assert compare_calls(tape, list(tape)) is None
    at = len(tape) // 2
    answer = tape[at].model_copy(update={"response": (tape[at].response or "") + " planted"})
    found = compare_calls(tape, [*tape[:at], answer, *tape[at + 1 :]])
    assert found is not None and (found.call, found.what) == (at, "response")
    assert "planted" in found.diff
    found = compare_calls(tape, tape[:-1])
    assert found is not None and (found.call, found.what) == (len(tape) - 1, "missing")
    found = compare_calls(tape[:-1], tape)
    assert found is not None and (found.call, found.what) == (len(tape) - 1, "extra")
    other = tape[at].model_copy(update={"agent": "character:C9"})
    found = compare_calls(tape, [*tape[:at], other, *tape[at + 1 :]])
    assert found is not None and (found.call, found.what) == (at, "call")
    assert "replayed character:C9" in found.diff


def test_a_final_state_divergence_is_reported_by_its_field() -> None:
    """A history record, the stored state and the view are each compared."""
    from harness.replay import compare_state

    snapshot = read_recording(FAKE).snapshot
    assert snapshot is not None and snapshot.state is not None
    assert compare_state(snapshot, snapshot.model_copy(deep=True)) is None
    history = list(snapshot.history)
    last = history[-1]
    history[-1] = last.model_copy(update={"turn_number": last.turn_number + 7})
    changed = compare_state(snapshot, snapshot.model_copy(update={"history": history}))
    assert changed is not None and changed.startswith(f"history record {len(history) - 1}")
    shorter = compare_state(snapshot, snapshot.model_copy(update={"history": history[:-1]}))
    assert shorter == f"history has {len(history)} records recorded, {len(history) - 1} replayed"
    clock = snapshot.state.clock.model_copy(update={"tick": snapshot.state.clock.tick + 1})
    state = snapshot.state.model_copy(update={"clock": clock, "id": "s-other"})
    changed = compare_state(snapshot, snapshot.model_copy(update={"state": state}))
    assert changed is not None and changed.startswith("state.clock differs")
    view = snapshot.view.model_copy(update={"turn_number": snapshot.view.turn_number + 1})
    assert compare_state(snapshot, snapshot.model_copy(update={"view": view})) == (
        "view.turn_number differs"
    )


def test_a_call_is_picked_by_its_occurrence_in_the_turn() -> None:
    lines = read_journal(FAKE / "journal.jsonl")
    outcomes = [
        x for x in lines if x.kind == "llm_call" and x.agent == "director:outcome"
        and x.turn_number == 2 and x.attempt_number == 1
    ]  # fmt: skip
    assert len(outcomes) == 2 and outcomes[0].request != outcomes[1].request
    assert pick_call(lines, "director:outcome", 2) is outcomes[0]
    assert pick_call(lines, "director:outcome", 2, occurrence=2) is outcomes[1]
    with pytest.raises(CallNotFound, match="no call #3 of 'director:outcome' in turn 2 \\(2 found"):
        pick_call(lines, "director:outcome", 2, occurrence=3)
