"""Ledger memory revision: bounded by the budget, and cache-friendly between revisions.

A Character prompt's memory block must only grow at its end from one of that character's
prompts to the next, except at a revision (its oldest lines folded into the summary), and
revisions must be rare: that is what lets a provider's prefix cache reuse the block. The
negative control folds one line at a time (a sliding window) and shows the check going red.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.llm.provider import ProviderRequest
from tavern.physics.observation import observe
from tavern.records import (
    Audience,
    EventRecord,
    HistoryRecord,
    ThoughtRecord,
    TurnInput,
)
from tavern.runner import KernelLimits
from tavern.runner import memory as memory_module
from tavern.runner.memory import capture_memory, evict
from tavern.store import Library, materialize_session

from .kit import director_answer, recording_runner, run

BUDGET_TOKENS = 400
WORDS = "candle cellar ledger notary coffin balcony lantern satchel bell stair".split()


@given(st.lists(st.text(max_size=40), max_size=60), st.integers(min_value=1, max_value=600))
def test_evict_keeps_the_longest_suffix_under_the_low_water_mark(
    memory: list[str], budget: int
) -> None:
    kept = evict(memory, budget)
    size = sum(len(line) + 1 for line in memory)
    if size <= budget:
        assert kept == memory
        return
    assert kept == memory[len(memory) - len(kept) :]
    target = budget * memory_module.MEMORY_LOW_WATER
    assert sum(len(line) + 1 for line in kept) <= target
    one_more = memory[len(memory) - len(kept) - 1 :]
    assert sum(len(line) + 1 for line in one_more) > target


def _answer(request: ProviderRequest) -> dict[str, Any]:
    rng = random.Random(len(request.messages[-1].content))
    words = " ".join(rng.choice(WORDS) for _ in range(12))
    if request.agent == "director":
        return director_answer(["C2"])
    if request.agent == "prose":
        return {"narration": "Candles gutter."}
    if request.agent.startswith("reviser:"):
        return {"summary": "I remember the cellar, the candle and the bell."}
    return {"speech": words.capitalize() + ".", "thought": None, "action_intent": None}


def _memory_blocks(data_dir: Path, turns: int) -> list[str]:
    limits = KernelLimits(character_memory_tokens=BUDGET_TOKENS)
    runner, store, calls = recording_runner(data_dir, _answer, limits)
    sid = run(runner.create_session("the-vintners-wake")).id
    for turn in range(turns):
        speech = " ".join(WORDS[(turn + i) % len(WORDS)] for i in range(10))
        run(runner.play_turn(sid, TurnInput(speech=speech.capitalize() + ".")))
    ledgers = store.load(sid).ledgers
    assert all(
        sum(len(line) + 1 for line in ledger.memory) <= BUDGET_TOKENS * 4
        for ledger in ledgers.values()
    )
    prompts = [c.request.messages[-1].content for c in calls if c.agent == "character:C2"]
    return [p.split("## What you remember\n")[1].split("\n\n## ")[0] for p in prompts]


def _breaks(blocks: list[str]) -> int:
    """Prompts whose memory block does not extend the previous one's (the cache misses)."""
    # The previous prompt's last lines were "this beat"; they are in the next block too.
    return sum(not new.startswith(old) for old, new in zip(blocks, blocks[1:], strict=False))


def test_memory_block_only_grows_at_its_end_between_rare_evictions(tmp_path: Path) -> None:
    blocks = _memory_blocks(tmp_path, 40)
    assert len(blocks) == 40
    assert max(len(b) for b in blocks) > BUDGET_TOKENS * 4 * 0.8  # the budget was reached
    assert 1 <= _breaks(blocks) <= 8  # 5 measured: one per ~7 beats at this budget


def test_negative_control_a_sliding_window_breaks_the_prefix_every_beat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_module, "MEMORY_LOW_WATER", 1.0)
    blocks = _memory_blocks(tmp_path, 40)
    assert _breaks(blocks) > 20


def test_a_memory_line_masks_exactly_what_the_observation_masked(tmp_path: Path) -> None:
    """A thought naming a description word ("veil") must not turn that word into a secret
    in memory while the viewer's own observation of the same record shows it."""
    library = Library(tmp_path)
    state = materialize_session(library.get_scenario("the-vintners-wake"), library, "s-mem")
    hall = Audience(origin="zone", perceivers=["C1", "C2", "C4", "C5"])
    context: list[HistoryRecord] = [
        ThoughtRecord(seq=1, turn_number=1, speaker="C2", author="character",
                      text="That veil hides a forged ledger.",
                      audience=Audience(origin="private", perceivers=["C2"])),
        EventRecord(seq=2, turn_number=1, speaker="C1", author="director", audience=hall,
                    event_kind="action_outcome", actor_id="C1",
                    text="C1 lifts her veil and the ledger falls."),
    ]  # fmt: skip
    ledgers = capture_memory(state.ledgers, state.cast, context, context, state.scene)
    seen = observe(state, context, "C4").lines[-1].text
    assert ledgers["C4"].memory[-1] == seen[:1].upper() + seen[1:]
    assert "veil" in ledgers["C4"].memory[-1]  # a description word stays public
    assert "ledger" not in ledgers["C4"].memory[-1]  # the thought-only word stays hidden
