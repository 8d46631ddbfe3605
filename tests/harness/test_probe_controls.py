"""Negative controls: each probe kind and invariant, run on a kernel with one planted fault,
fails with its label; the same script on the clean kernel passes.

The faults are monkeypatched into the kernel's own modules (a whisper audience that lets a
bystander in, a thought every character perceives, the cellar hearing the hall, names
taught before anyone says them, a question routed to the wrong hearer, memory never
captured, a prompt builder that names the operator, a clock that stops or runs backwards,
an interview that moves it, a commit or an undo never journaled, a failed turn that
commits, an undo that keeps the tick, an interview that writes). The probes compute what
they expect from the script and the kernel's definitions, not from what the faulty kernel
stored. The reply levels of `recall` and `interview` are checked against a planted model
(the only author of a reply).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness_kit import (
    TargetHook,
    failed,
    failed_checks,
    plant_audience,
    play,
    probe,
    whispers_reach_everyone,
)

import tavern.agents.character as character_module
import tavern.physics.clamps as clamps_module
import tavern.physics.clock as clock_module
import tavern.physics.observation as observation_module
import tavern.physics.perception as perception_module
import tavern.physics.structure as questions_module
import tavern.runner.memory as memory_module
import tavern.runner.turn as turn_module
from harness.run import RunOutcome
from harness.targets.in_process import InProcessTarget
from tavern.llm.provider import ProviderRequest
from tavern.records import (
    NARRATOR,
    Audience,
    Character,
    CommitLine,
    HistoryRecord,
    JournalLine,
    PerspectiveLedger,
    Scene,
    SessionState,
    ThoughtRecord,
    TurnInput,
    UndoLine,
)
from tavern.records.views import TurnResult
from tavern.runner import ModelFailureError
from tavern.runner.calls import AgentCaller
from tavern.runner.gate import ContractGate
from tavern.store import JournalWriter


def assert_leaked(
    outcome: RunOutcome, expected: dict[str, str], canary: str, viewer: str
) -> dict[str, str | None]:
    """Each probe of `expected` failed with its label, and the canary's boundary check names
    `viewer` as a prompt it reached; every failed probe's label, for further asserts."""
    labels = failed(outcome)
    assert {probe_id: labels.get(probe_id) for probe_id in expected} == expected
    [leak] = failed_checks(outcome, f"canary:{canary}")
    assert f"character:{viewer}" in leak.detail
    return labels


def test_a_whisper_routed_to_a_bystander_fails_boundary_recall_and_interview(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = play("whisper-secrecy", tavern_data_dir / "clean")
    assert clean.run.probes_passed == clean.run.probes, failed(clean)
    plant_audience(monkeypatch, whispers_reach_everyone)
    faulty = play("whisper-secrecy", tavern_data_dir / "faulty")
    expected = {
        "boundary-6": "leak",
        "bystander-never-heard-it": "forbidden_in_prompt",
        "bystander-asked": "forbidden_in_prompt",
    }
    assert_leaked(faulty, expected, "Quill7731", "C3")


def test_a_name_taught_too_early_fails_the_names_invariant(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = play("learned-names", tavern_data_dir / "clean")
    assert clean.run.probes_passed == clean.run.probes, failed(clean)

    def eager(cast: dict[str, Character], viewer: str) -> Any:
        def learn(ledger: PerspectiveLedger, record: HistoryRecord) -> PerspectiveLedger:
            known = {
                slot: entry.model_copy(update={"name": cast[slot].body.display_name})
                for slot, entry in ledger.identities.items()
            }
            return ledger.model_copy(update={"identities": known})

        return learn

    monkeypatch.setattr(memory_module, "name_learner", eager)
    faulty = play("learned-names", tavern_data_dir / "faulty")
    names = failed_checks(faulty, "names")
    assert names and all(c.label == "unlearned_name" for c in names)
    assert "character:C3 shows 'Maren Holt' (C2)" in names[0].detail


QUIET_REPLY = {"speech": "Not tonight.", "thought": None, "action_intent": None}


def narrator_director(request: ProviderRequest) -> Any:
    """A Director that queues no one (the kernel's question clamp must find the hearer)."""
    if request.agent == "director":
        return {
            "events": [],
            "next_speakers": [NARRATOR],
            "time_skip_ticks": 0,
            "nothing_happens": True,
        }
    if request.agent == "prose":
        return {"narration": "Rain drums on the shutters."}
    if request.agent.startswith(("character", "interview")):
        return QUIET_REPLY
    return {"outcome": "Nothing comes of it."}


def test_a_routing_bug_fails_the_routing_probe(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = play("routing-by-address", tavern_data_dir / "clean", fn=narrator_director)
    assert clean.run.probes_passed == clean.run.probes, failed(clean)
    monkeypatch.setattr(questions_module, "_hearer", lambda question, hearers, *a: hearers[-1])
    faulty = play("routing-by-address", tavern_data_dir / "faulty", fn=narrator_director)
    named = probe(faulty, "named-aloud")
    assert named.label == "routed_elsewhere" and "['C3']" in named.checks[0].detail
    assert probe(faulty, "whispered-to").passed  # one hearer: the bug cannot misroute it


def test_a_turn_with_no_character_call_fails_routing_with_its_own_label(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "unanswered_question"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    faulty = play("routing-by-address", tavern_data_dir, fn=narrator_director)
    assert probe(faulty, "named-aloud").label == "no_character_call"


def test_memory_never_captured_fails_recall(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Director deciding no events: the parrot's would copy the password into this beat,
    # where the hall hears it again whatever its memory holds.
    clean = play("zones-cellar", tavern_data_dir / "clean", fn=narrator_director)
    assert clean.run.probes_passed == clean.run.probes, failed(clean)
    monkeypatch.setattr(turn_module, "capture_memory", lambda ledgers, *a, **k: dict(ledgers))
    faulty = play("zones-cellar", tavern_data_dir / "faulty", fn=narrator_director)
    assert failed(faulty)["hall-heard"] == "missing_in_prompt"


def test_a_recall_of_a_character_never_called_fails_with_its_own_label(
    tavern_data_dir: Path,
) -> None:
    outcome = play("zones-cellar", tavern_data_dir, fn=narrator_director)
    assert outcome.run.probes_passed == outcome.run.probes  # forced speakers are called
    from harness.loading import LoadedScript, load_script

    loaded = load_script("zones-cellar")
    events = list(loaded.script.events)
    events[1] = events[1].model_copy(update={"force_speaker": NARRATOR})  # C3 never asked
    script = loaded.script.model_copy(update={"events": events})
    again = LoadedScript(script, loaded.source)
    outcome = play(again, tavern_data_dir / "again", fn=narrator_director)
    assert failed(outcome)["cellar-did-not-hear"] == "no_character_call"


def test_operator_vocabulary_is_refused_by_the_gate_and_caught_past_it(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    revealing = character_module.INSTRUCTIONS + "\nYou are controlled by the human."
    monkeypatch.setattr(character_module, "INSTRUCTIONS", revealing)
    gated = play("whisper-secrecy", tavern_data_dir / "gated")
    contract = failed_checks(gated, "contract")
    assert contract and contract[0].label == "contract_refusal"
    assert gated.run.turns_failed  # the gate refused the turn; nothing committed
    assert not failed_checks(gated, "atomic")

    monkeypatch.setattr(ContractGate, "check", lambda self, *args, **kwargs: None)
    swept = play("whisper-secrecy", tavern_data_dir / "ungated")
    contract = failed_checks(swept, "contract")
    assert contract and contract[0].label == "operator_vocabulary"
    assert "controlled by the human" in contract[0].detail


def test_a_stopped_clock_fails_the_clock_invariant(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(clock_module, "advance", lambda clock, ticks=0: clock)
    faulty = play("whisper-secrecy", tavern_data_dir)
    labels = {c.label for c in failed_checks(faulty, "clock")}
    assert labels == {"clock_stopped"}


def journal_without(monkeypatch: pytest.MonkeyPatch, kind: type[JournalLine]) -> None:
    """Plant a journal that never writes lines of `kind`."""
    honest = JournalWriter.append

    def forgetful(self: JournalWriter, session_id: str, line: JournalLine, **kw: Any) -> None:
        if not isinstance(line, kind):
            honest(self, session_id, line, **kw)

    monkeypatch.setattr(JournalWriter, "append", forgetful)


def test_a_commit_never_journaled_fails_the_journal_invariant(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal_without(monkeypatch, CommitLine)
    faulty = play("whisper-secrecy", tavern_data_dir)
    journal = failed_checks(faulty, "journal")
    assert journal and "0 commit lines" in journal[0].detail


def test_a_failed_turn_that_commits_fails_the_atomic_invariant(tavern_data_dir: Path) -> None:
    def commit_then_fail(target: InProcessTarget) -> None:
        honest = target.runner.play_turn

        async def play_turn(session_id: str, turn: TurnInput, progress: Any = None) -> TurnResult:
            result = await honest(session_id, turn, progress)
            if result.turn_number == 2:
                raise ModelFailureError("prose: planted failure after the commit")
            return result

        target.runner.play_turn = play_turn  # type: ignore[method-assign]

    faulty = play("whisper-secrecy", tavern_data_dir, hook=commit_then_fail)
    [atomic] = failed_checks(faulty, "atomic")
    assert atomic.label == "not_atomic" and "records of failed turn 2" in atomic.detail


def test_an_undo_that_keeps_the_tick_fails_the_clock_invariant(tavern_data_dir: Path) -> None:
    def tick_keeping_undo(target: InProcessTarget) -> None:
        store = target.store
        honest = store.undo

        def undo(session_id: str) -> SessionState:
            kept = store.load(session_id)
            restored = honest(session_id)
            state = restored.model_copy(update={"clock": kept.clock})
            return store.replace_state(session_id, state, restored.revision)

        store.undo = undo  # type: ignore[method-assign]

    clean = play("undo-replay", tavern_data_dir / "clean")
    assert clean.run.probes_passed == clean.run.probes, failed(clean)
    faulty = play("undo-replay", tavern_data_dir / "faulty", hook=tick_keeping_undo)
    [clock] = failed_checks(faulty, "clock")
    assert clock.label == "undo_tick_mismatch"


def interview_then(write: Callable[[SessionState, str, str], SessionState]) -> TargetHook:
    """A hook planting an interview that, after answering, stores `write(state, character,
    question)`: an interview must never write."""

    def hook(target: InProcessTarget) -> None:
        honest = target.runner.interview
        store = target.store

        async def interview(session_id: str, character_id: str, question: str) -> Any:
            answer = await honest(session_id, character_id, question)
            state = store.load(session_id)
            changed = write(state, answer.character, question)
            store.replace_state(session_id, changed, state.revision)
            return answer

        target.runner.interview = interview  # type: ignore[method-assign]

    return hook


def test_an_interview_that_writes_fails_state_unchanged(tavern_data_dir: Path) -> None:
    def remembering(state: SessionState, character: str, question: str) -> SessionState:
        ledger = state.ledgers[character]
        ledgers = {
            **state.ledgers,
            character: ledger.model_copy(update={"memory": [*ledger.memory, question]}),
        }
        return state.model_copy(update={"ledgers": ledgers})

    faulty = play("learned-names", tavern_data_dir, hook=interview_then(remembering))
    assert failed(faulty)["who-is-she"] == "state_changed"


def test_a_thought_heard_by_the_room_fails_boundary_recall_and_interview(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = play("thought-privacy", tavern_data_dir / "clean")
    assert clean.run.probes_passed == clean.run.probes, failed(clean)
    honest = perception_module.perceives

    def overheard(record: HistoryRecord, viewer: str) -> Any:
        return "content" if isinstance(record, ThoughtRecord) else honest(record, viewer)

    # The kernel's readers of perception (prompts, memory), not the probe's own import.
    monkeypatch.setattr(observation_module, "perceives", overheard)
    monkeypatch.setattr(memory_module, "perceives", overheard)
    faulty = play("thought-privacy", tavern_data_dir / "faulty")
    expected = {
        "boundary-5": "leak",
        "ouvinte-nao-sabe": "forbidden_in_prompt",
        "perguntada": "forbidden_in_prompt",
    }
    assert_leaked(faulty, expected, "Verde4402", "C2")


def test_the_cellar_hearing_the_hall_fails_boundary_and_recall(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = play("zones-cellar", tavern_data_dir / "clean", fn=narrator_director)
    assert clean.run.probes_passed == clean.run.probes, failed(clean)

    def walls_down(scene: Scene, kind: Any, audience: Audience) -> Audience:
        if kind != "speech" or audience.origin == "whisper":
            return audience
        return audience.model_copy(update={"perceivers": list(scene.present)})

    plant_audience(monkeypatch, walls_down)
    faulty = play("zones-cellar", tavern_data_dir / "faulty", fn=narrator_director)
    expected = {"cellar-did-not-hear": "forbidden_in_prompt", "boundary-5": "leak"}
    labels = assert_leaked(faulty, expected, "Cellarmoth5150", "C3")
    assert "hall-heard" not in labels  # the hall still hears it: only the wall is down


def test_a_clock_running_backwards_fails_the_clock_invariant(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = iter([3, -2, 1])  # forward, then back past where it was, then forward again

    def erratic(clock: Any, skip_ticks: int = 0) -> Any:
        return clock.model_copy(update={"tick": clock.tick + next(steps, 1)})

    monkeypatch.setattr(clock_module, "advance", erratic)
    faulty = play("whisper-secrecy", tavern_data_dir)
    [clock] = failed_checks(faulty, "clock")
    assert clock.label == "clock_backwards" and clock.detail == "tick 3 -> 1"


def test_an_interview_that_moves_the_clock_fails_the_clock_invariant(
    tavern_data_dir: Path,
) -> None:
    def ticking(state: SessionState, character: str, question: str) -> SessionState:
        clock = state.clock.model_copy(update={"tick": state.clock.tick + 1})
        return state.model_copy(update={"clock": clock})

    faulty = play("learned-names", tavern_data_dir, hook=interview_then(ticking))
    [clock] = failed_checks(faulty, "clock")
    assert clock.label == "clock_moved"


def test_an_undo_never_journaled_fails_the_journal_invariant(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal_without(monkeypatch, UndoLine)
    faulty = play("undo-replay", tavern_data_dir)
    [journal] = failed_checks(faulty, "journal")
    assert journal.label == "journal_disagrees" and "0 undo lines removing turn 1" in journal.detail


def test_the_reply_level_catches_what_a_character_says_or_leaves_unsaid(
    tavern_data_dir: Path,
) -> None:
    """The planted fault is in the model, the only author of a reply: a bystander who blurts
    the code when interviewed, and an insider who never repeats it."""

    def blurting(request: ProviderRequest) -> Any:
        if request.agent == "interview:C3":
            return {"speech": "Quill7731?", "thought": None, "action_intent": None}
        return narrator_director(request)

    clean = play("whisper-secrecy", tavern_data_dir / "clean")
    assert clean.run.probes_passed == clean.run.probes, failed(clean)  # the parrot repeats it
    faulty = play("whisper-secrecy", tavern_data_dir / "faulty", fn=blurting)
    asked = probe(faulty, "bystander-asked")
    prompt, reply = (c for c in asked.checks if c.name in ("prompt", "reply"))
    assert prompt.passed  # the kernel kept the secret; the model said it anyway
    assert reply.label == "forbidden_in_reply" and "Quill7731" in (reply.detail or "")
    assert probe(faulty, "bystander-never-heard-it").passed
    prompt, reply = probe(faulty, "insider-heard-it").checks
    assert prompt.passed and reply.label == "missing_in_reply"
    assert "'Quill7731'" in (reply.detail or "")


def test_a_failed_turn_fails_routing_with_its_own_label(tavern_data_dir: Path) -> None:
    def broken_director(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return {"next": "whoever"}  # not the Director's schema: the turn fails
        return narrator_director(request)

    faulty = play("routing-by-address", tavern_data_dir, fn=broken_director)
    assert faulty.run.turns_failed == [1, 1]  # nothing committed: both plays are turn 1
    for probe_id in ("named-aloud", "whispered-to"):
        routed = probe(faulty, probe_id)
        assert routed.label == "turn_failed" and "model_failure" in (routed.checks[0].detail or "")
    assert not failed_checks(faulty, "atomic")


def test_an_interview_journaled_as_the_character_fails_with_no_character_call(
    tavern_data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    honest = AgentCaller.call

    async def disguised(self: AgentCaller, agent: str, *args: Any, **kwargs: Any) -> Any:
        if agent.startswith("interview:"):
            agent = agent.replace("interview:", "character:")  # passes for an in-story call
        return await honest(self, agent, *args, **kwargs)

    monkeypatch.setattr(AgentCaller, "call", disguised)
    faulty = play("learned-names", tavern_data_dir)
    asked = probe(faulty, "who-is-she")
    labels = {c.name: c.label for c in asked.checks}
    assert labels == {"prompt": "no_character_call", "reply": "no_character_call",
                      "state_unchanged": None}  # fmt: skip
