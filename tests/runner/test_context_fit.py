"""Every prompt fits the model's context with its answer's room left (`runner.fit`).

Live, the embedded model's tenth turn failed: a 3,858-token Director prompt left 238 tokens of
a 4,096 context for the answer, which was cut off and could not be parsed, twice.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tavern.agents import director
from tavern.llm.provider import ProviderRequest
from tavern.records import ChatMessage, LlmCallLine, TurnInput
from tavern.records.config import AppConfig, ProviderSettings
from tavern.runner import fit
from tavern.runner.factory import default_limits
from tavern.runner.fit import FIT_LEVELS, fitted, prompt_tokens_ceiling
from tavern.runner.limits import ANSWER_TOKENS, KernelLimits

from .kit import director_answer, recording_runner, run

WORDS = "cask lantern vow ledger bell veil candle satchel cellar notary wax debt".split()


@settings(max_examples=300, deadline=None)
@given(
    fixed=st.integers(0, 3000),
    per_unit=st.integers(1, 4),
    budget=st.integers(0, 5000),
    room=st.integers(1, 3000),
)
def test_the_largest_fitting_prompt_is_built(
    fixed: int, per_unit: int, budget: int, room: int
) -> None:
    built: list[int] = []

    def build(b: int) -> list[ChatMessage]:
        built.append(b)
        # The builders' contract: at most 4 history characters per budget unit.
        return [ChatMessage(role="user", content="s" * fixed + "h" * per_unit * b)]

    messages = fitted(build, budget, room)
    assert built[0] == budget and len(built) in (1, 3)
    bare_fits = prompt_tokens_ceiling(build(0)) <= room
    assert prompt_tokens_ceiling(messages) <= room or not bare_fits
    if len(built) == 3:  # shrunk onto the grid: by no more than one step beyond the need
        step = max(1, budget // FIT_LEVELS)
        assert built[2] < budget and built[2] % step == 0
        assert prompt_tokens_ceiling(build(built[2] + step + 2)) > room - 2 or per_unit < 4
    assert fitted(build, budget, None) == build(budget)


def _answer(request: ProviderRequest) -> Any:
    rng = random.Random(len(request.messages[-1].content))
    words = " ".join(rng.choice(WORDS) for _ in range(40))
    if request.agent == "director":
        event = {
            "kind": "world_event", "text": words[:190], "actor_id": None,
            "witness_ids": ["C1", "C2", "C4", "C5"], "utterance_ref": None,
        }  # fmt: skip
        return director_answer(["C2", "C4"], events=[event])
    if request.agent == "prose":
        return {"narration": words.capitalize() + "."}
    if request.agent.startswith("reviser:"):
        return {"summary": words[:600]}
    return {"speech": words[:300].capitalize() + ".", "thought": None, "action_intent": None}


def _played(data_dir: Path, limits: KernelLimits, turns: int = 24) -> list[LlmCallLine]:
    runner, _, calls = recording_runner(data_dir, _answer, limits)
    sid = run(runner.create_session("the-vintners-wake")).id
    for turn in range(turns):
        speech = " ".join(WORDS[(turn + i) % len(WORDS)] for i in range(30))
        run(runner.play_turn(sid, TurnInput(speech=speech.capitalize() + ".")))
    return calls


def _overflows(calls: list[LlmCallLine], limits: KernelLimits) -> list[str]:
    out = []
    for call in calls:
        role = call.agent.partition(":")[0]
        room = 4096 - limits.answer_tokens[role]  # the sent prompt: call policy included
        if prompt_tokens_ceiling(call.request.messages) > room:
            out.append(f"{call.turn_number} {call.agent}")
    return out


def test_every_prompt_leaves_its_answer_room_in_a_small_context(tmp_path: Path) -> None:
    limits = KernelLimits.for_context(4096)
    calls = _played(tmp_path, limits)
    roles = {c.agent.partition(":")[0] for c in calls}
    assert roles == {"director", "prose", "character", "reviser"}  # memory outgrew its budget
    assert not _overflows(calls, limits)
    director = [prompt_tokens_ceiling(c.request.messages) for c in calls if c.agent == "director"]
    assert max(director) > limits.room("director") - 200  # the history filled what was left


def test_negative_control_shares_of_the_context_alone_overflow(tmp_path: Path) -> None:
    limits = KernelLimits.for_context(4096)
    unfitted = KernelLimits(
        director_history_tokens=limits.director_history_tokens,
        prose_transcript_tokens=limits.prose_transcript_tokens,
        character_memory_tokens=limits.character_memory_tokens,
    )
    over = _overflows(_played(tmp_path, unfitted), limits)
    assert any(o.endswith("director") for o in over)


@pytest.mark.parametrize(
    ("max_tokens", "expected"),
    [
        ({}, ANSWER_TOKENS),
        ({"director": 1200}, {**ANSWER_TOKENS, "director": 1200}),
        (
            {"default": 300, "prose": 500},
            {"director": 300, "prose": 500, "character": 300, "reviser": 300},
        ),
    ],
)
def test_the_configured_output_limits_are_the_answer_room(
    max_tokens: dict[str, int], expected: dict[str, int]
) -> None:
    config = AppConfig(
        active_provider="local",
        providers={
            "local": ProviderSettings(max_tokens=max_tokens, options={"ctx_per_slot": 8192})
        },
    )
    limits = default_limits(config)
    assert limits.context_tokens == 8192
    assert dict(limits.answer_tokens) == expected
    assert default_limits(AppConfig(active_provider="fake")).context_tokens is None


def _window_starts(calls: list[LlmCallLine]) -> list[str]:
    """The first history line's seq of every Director prompt, in order."""
    starts = []
    for call in calls:
        if call.agent == "director":
            text = call.request.messages[-1].content
            history = text.partition("## Recent history\n")[2]
            starts.append(history.partition("]")[0])
    return starts


def _moves(starts: list[str]) -> int:
    return sum(a != b for a, b in zip(starts, starts[1:], strict=False))


def test_a_shrunk_window_moves_in_strides_not_every_turn(tmp_path: Path) -> None:
    # The rest of the Director prompt changes size every turn; on the grid the shrunk history
    # budget (and so the window's snapped start, and the cacheable prefix) holds for turns.
    starts = _window_starts(_played(tmp_path, KernelLimits.for_context(4096), turns=30))
    assert len(starts) >= 30
    # The window holds about three turns here and its stride is two: it moves every other
    # turn at most, and never back.
    assert _moves(starts) <= len(starts) // 2, starts
    seqs = [int(s.partition("#")[2].split()[0]) for s in starts]
    assert seqs == sorted(seqs), starts


def test_negative_control_a_window_sliding_with_its_budget_moves_every_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Planted: budgets shrunk exactly and a window start snapped to no stride. (Exact
    # shrinking alone no longer shows here: the shrunk window is held to the turn being
    # played, whose first record moves at the pace of the turns; `director.history_window`.)
    limits = KernelLimits.for_context(4096)
    on_grid = _moves(_window_starts(_played(tmp_path / "grid", limits, turns=30)))
    monkeypatch.setattr(fit, "FIT_LEVELS", 10**9)  # a step of one unit: exact shrinking
    monkeypatch.setattr(director, "window_stride", lambda budget: 1)
    starts = _window_starts(_played(tmp_path / "exact", limits, turns=30))
    assert _moves(starts) > max(on_grid, len(starts) // 2), starts
