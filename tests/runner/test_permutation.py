"""Controlled-character permutation: which character the human plays changes no Director or
prose prompt, byte for byte, and no Character call is ever made for the controlled one."""

from __future__ import annotations

from tavern.records import ChatMessage

from .kit import Kit, KitFactory, run


def _with_controlled(kit: Kit, source: str, slot: str) -> str:
    """A copy of `source` (same history rows, same state) in which `slot` is controlled."""
    new_id = f"{source[:40]}-as-{slot.lower()}"
    copy = kit.store.fork(source, new_id)
    kit.store.replace_state(new_id, copy.model_copy(update={"controlled_id": slot}), copy.revision)
    return new_id


def _prompts(kit: Kit, sid: str, agent: str, turn: int) -> list[list[ChatMessage]]:
    return [
        c.request.messages for c in kit.calls(sid) if c.agent == agent and c.turn_number == turn
    ]


def test_director_and_prose_prompts_ignore_who_is_controlled(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    base = kit.create(controlled="C1")
    kit.play(base, speech="Good evening. My name is Agnese Corvo.", force_speaker="C2")
    kit.play(base, speech="Not here.", whisper_to=["C4"], thought="the letter burns")
    kit.play(base, action="lifts the candle toward the balcony", force_speaker="C5")
    sessions = {"C1": base} | {
        slot: _with_controlled(kit, base, slot) for slot in ("C2", "C3", "C4", "C5")
    }
    previews = {slot: run(kit.runner.prompt_preview(sid)) for slot, sid in sessions.items()}
    assert all(p == previews["C1"] for p in previews.values())
    for slot, sid in sessions.items():
        result = kit.play(sid, skip=True)  # no human record: histories stay identical
        # The fork copied the journal of turns 1-3 (played with C1 controlled): look at 4.
        assert not _prompts(kit, sid, f"character:{slot}", 4)
        if result.control_returned:
            assert result.next_speaker == slot
    for agent in ("director", "prose"):
        seen = {slot: _prompts(kit, sid, agent, 4) for slot, sid in sessions.items()}
        assert len(seen["C1"]) == 1
        assert all(p == seen["C1"] for p in seen.values()), agent


def test_forcing_the_controlled_character_still_pauses(make_kit: KitFactory) -> None:
    kit = make_kit("parrot")
    for slot in ("C1", "C3"):
        sid = kit.create(controlled=slot)
        result = kit.play(sid, skip=True, force_speaker=slot)
        assert result.control_returned and result.next_speaker == slot
        assert [c.agent for c in kit.calls(sid)] == ["director", "prose"]
