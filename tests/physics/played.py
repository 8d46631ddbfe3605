"""A realistic recorded sequence: the kernel benchmark's session of "the-vintners-wake" (20
turns of history), played on for a few turns by its scripted fake provider, with the
inputs of every `clamp_decision` and `capture_memory` call recorded on the way.

Property tests compare rewritten physics with their references on generated inputs; these
recordings add the shapes a real session makes (long windows, committed records coming
back from the store, ledgers that learned names), built once per test process.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from tavern.physics.clamps import ClampContext
from tavern.records import DirectorDecision, HistoryRecord, SessionState
from tavern.runner import turn as turn_module

REPO = str(Path(__file__).resolve().parents[2])
if REPO not in sys.path:  # benchmarks/ is a top-level folder, not an installed package
    sys.path.insert(0, REPO)

from benchmarks import kernel  # noqa: E402

PLAYED_TURNS = 6


@dataclass
class Played:
    """What the play recorded."""

    state: SessionState
    """The session after the play."""
    history: list[HistoryRecord]
    """Its whole history, as the store hands it out."""
    clamps: list[tuple[DirectorDecision, ClampContext]] = field(default_factory=list)
    """Each `clamp_decision` call's arguments, in order."""
    captures: list[dict[str, Any]] = field(default_factory=list)
    """Each `capture_memory` call's arguments, by name, in order."""


@lru_cache(maxsize=1)
def played() -> Played:
    """The recorded play (once per process: about a second)."""
    data_dir = Path(tempfile.mkdtemp(prefix="tavern-played-"))
    session_id = kernel.build_sessions(data_dir, [20], "the-vintners-wake", "large")[20]
    runner, _ = kernel._runner(data_dir, durable=False)
    clamps: list[tuple[DirectorDecision, ClampContext]] = []
    captures: list[dict[str, Any]] = []
    clamp, capture = turn_module.clamp_decision, turn_module.capture_memory

    def recorded_clamp(decision: DirectorDecision, ctx: ClampContext) -> Any:
        clamps.append((decision, replace(ctx, history=list(ctx.history))))
        return clamp(decision, ctx)

    def recorded_capture(*args: Any, **kwargs: Any) -> Any:
        names = ["ledgers", "cast", "beat", "context", "scene", "budget_chars"]
        found = dict(zip(names, args, strict=False)) | kwargs
        # The beat and its context are the turn's live lists, which grow on after the call.
        captures.append(found | {"beat": list(found["beat"]), "context": list(found["context"])})
        return capture(*args, **kwargs)

    async def play() -> None:
        for i in range(PLAYED_TURNS):
            await runner.play_turn(session_id, kernel.INPUTS[i % len(kernel.INPUTS)])

    turn_module.clamp_decision, turn_module.capture_memory = recorded_clamp, recorded_capture
    try:
        asyncio.run(play())
    finally:
        turn_module.clamp_decision, turn_module.capture_memory = clamp, capture
    state = runner.store.load(session_id)
    return Played(state, runner.store.history(session_id), clamps, captures)
