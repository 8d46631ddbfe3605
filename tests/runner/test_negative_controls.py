"""Negative controls: each sweep assertion, run against a deliberately leaky build, fires.

Every test plants one leak (a prompt builder variant, a disabled clamp, a marked roster) and
shows that the very assertion the boundary tests rely on catches it. If a sweep could not
fail, these tests would.
"""

from __future__ import annotations

from typing import Any

import pytest

import tavern.agents.director as director_module
import tavern.agents.prose as prose_module
import tavern.physics.clamps as clamps_module
import tavern.physics.observation as observation_module
import tavern.runner.memory as memory_module
import tavern.runner.turn as turn_module
from tavern.physics.clamps import CLAMP_RULES
from tavern.physics.guards import Knowledge
from tavern.physics.observation import observe
from tavern.records import HistoryRecord, SessionState
from tavern.runner import PromptContractError

from .kit import KitFactory, parrot_narrated, run
from .sweeps import call_texts, leaks, outsider_agents, prompt_of, unlearned_names
from .test_boundaries_adversary import HALL, THOUGHT, copying_adversary

WHISPER = "Quillfeather7731"
SPOKEN = "Saltlantern9153"
GUARDS = ("thought_guard", "perception_guard")


def _nobody_knows_anything(*_args: Any, **_kwargs: Any) -> Knowledge:
    """Planted: a memory capture whose knowledge hides nothing from anyone."""
    return Knowledge(frozenset(), {}, frozenset())


def test_leaky_prose_builder_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    honest = prose_module.reader_line

    def leaky(record: HistoryRecord, namer: Any) -> str:
        text = honest(record, namer)
        return f"{text} {record.text}" if record.kind == "speech" else text  # type: ignore[union-attr]

    monkeypatch.setattr(prose_module, "reader_line", leaky)
    monkeypatch.setattr(prose_module, "redact", lambda text, tokens: text)  # no second line
    kit = make_kit(fn=parrot_narrated)  # a quiet beat would ask no narration at all
    sid = kit.create()
    kit.play(sid, speech=f"Mark my words: {SPOKEN}.")
    assert leaks(SPOKEN, [prompt_of(r) for r in kit.requests("prose")])


def test_leaky_observation_is_caught(make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    def insider_view(
        state: SessionState, history: list[HistoryRecord], viewer: str, *rest: Any
    ) -> Any:
        return observe(state, history, "C2", *rest)  # everyone sees what the insider sees

    monkeypatch.setattr(turn_module, "observe", insider_view)
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, speech=f"The key is {WHISPER}.", whisper_to=["C2"], force_speaker="C4")
    state = kit.state(sid)
    assert leaks(WHISPER, call_texts(kit.calls(sid), outsider_agents(state, {"C1", "C2"})))


def test_disabled_thought_guards_are_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def without_guards(d: Any, ctx: Any) -> tuple[Any, list[Any]]:
        for rule in CLAMP_RULES:
            if rule.name not in GUARDS:
                d, _ = rule.apply(d, ctx)
        return d, []

    # The clamps, and the per-viewer and prose redactions behind them (defence in depth).
    monkeypatch.setattr(turn_module, "clamp_decision", without_guards)
    monkeypatch.setattr(observation_module, "hidden_tokens_for", lambda *a, **k: frozenset())
    monkeypatch.setattr(memory_module, "knowledge_of", _nobody_knows_anything)
    monkeypatch.setattr(prose_module, "spoken_only_tokens", lambda *a, **k: set())
    kit = make_kit(fn=copying_adversary)
    sid = kit.create()
    kit.play(sid, thought=f"{THOUGHT} now")
    kit.play(sid, skip=True, force_speaker="C4")
    state = kit.state(sid)
    assert leaks(THOUGHT, call_texts(kit.calls(sid), outsider_agents(state, {"C1"})))


def test_unlearned_names_are_caught(make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    def true_name(slot: str, viewer: str, ledger: Any, cast: Any) -> str:
        return str(cast[slot].body.display_name) if slot in cast else "someone"

    monkeypatch.setattr(observation_module, "ref_for", true_name)
    kit = make_kit("parrot")
    sid = kit.create()
    kit.play(sid, skip=True, force_speaker="C4")
    state = kit.state(sid)
    request = kit.requests("character:C4")[0]
    assert unlearned_names(state, "C4", prompt_of(request))


def test_a_director_prompt_marking_the_controlled_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    honest = director_module.roster_line

    def marking(state: SessionState, slot: str, *, with_mind: bool) -> str:
        line = honest(state, slot, with_mind=with_mind)
        return line.replace(":", " (you):", 1) if slot == state.controlled_id else line

    monkeypatch.setattr(director_module, "roster_line", marking)
    kit = make_kit("parrot")
    first, second = kit.create(controlled="C1"), kit.create(controlled="C2")
    # The permutation assertion fails on the marked build...
    assert run(kit.runner.prompt_preview(first)) != run(kit.runner.prompt_preview(second))
    # ...and the contract gate refuses to send such a prompt at all.
    with pytest.raises(PromptContractError):
        kit.play(first, skip=True)
    assert kit.state(first).turn_number == 0
    [refused] = kit.calls(first)  # journaled, never sent
    assert refused.error_type == "contract" and "structural_marker_tag" in (refused.error or "")
    assert not kit.requests("director")


def test_an_undo_that_forgets_the_state_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = make_kit("parrot")
    sid = kit.create()
    before = kit.state(sid)
    kit.play(sid, speech="Good evening.", force_speaker="C2")
    honest_undo = kit.store.undo

    def history_only_undo(session_id: str) -> SessionState:
        kept = kit.store.load(session_id)
        honest_undo(session_id)
        restored = kit.store.load(session_id)
        return kit.store.replace_state(
            session_id, kept.model_copy(update={"turn_number": 0}), restored.revision
        )

    monkeypatch.setattr(kit.store, "undo", history_only_undo)
    after = run(kit.runner.undo(sid))
    # The round-trip assertion of test_undo_property fails on this broken undo.
    assert after.model_copy(update={"revision": before.revision}) != before


def test_a_disabled_perception_guard_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [r for r in CLAMP_RULES if r.name != "perception_guard"]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    monkeypatch.setattr(observation_module, "hidden_tokens_for", lambda *a, **k: frozenset())
    monkeypatch.setattr(memory_module, "knowledge_of", _nobody_knows_anything)
    kit = make_kit(fn=copying_adversary)
    sid = kit.create()
    kit.play(sid, speech=f"Everyone in this hall, hear me: {HALL}!", force_speaker="C3")
    kit.play(sid, skip=True, force_speaker="C3")
    texts = call_texts(kit.calls(sid), {"character:C3"}) + kit.state(sid).ledgers["C3"].memory
    assert leaks(HALL, texts)  # the sealed cellar heard the hall through a Director event
