"""Live: three turns of a built-in scenario against the real embedded model (`local`).

Run with `make test-live` (or `pytest --runlive tests/runner/test_live_kernel.py -s`). The
invariants are the code's, so they must hold with a real model exactly as with the fake:
no Character call for the controlled character, the whisper and the thought reach nobody
they must not, every prompt passes the contract; and the journal shows real usage.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tavern import contract
from tavern.llm.local.model_files import installed_model
from tavern.llm.local.paths import local_paths
from tavern.llm.local.runtime_build import runtime_info
from tavern.records import LlmCallLine, TurnInput
from tavern.records.config import AppConfig, ProviderSettings
from tavern.runner import build_runner
from tavern.store import Library, SessionStore, journal_path, read_journal

from .sweeps import call_texts, leaks

pytestmark = pytest.mark.live

WHISPER = "Quillfeather7731"
THOUGHT = "Marrowgate4402"


@pytest.mark.timeout(3600)  # a CPU-only 0.5B model on a shared machine: minutes per call
def test_three_live_turns_hold_every_invariant(tavern_data_dir: Path) -> None:
    paths = local_paths()
    if installed_model(paths) is None or runtime_info(paths) is None:
        pytest.fail("the local model is not installed: run `tavern model install`")
    # Generous output limits: a truncated JSON answer can only fail; the schemas bound it.
    limits = {"director": 900, "prose": 700, "character": 600}
    settings = ProviderSettings(
        max_tokens=limits, temperature=0.3, seed=7, timeout_s=900, max_attempts=2
    )  # a shared 2-core machine can be slow: patience rather than spurious timeouts
    config = AppConfig(active_provider="local", providers={"local": settings})
    store = SessionStore(tavern_data_dir)
    runner = build_runner(config=config, library=Library(tavern_data_dir), store=store)
    turns = [
        TurnInput(speech="Good evening. My name is Ilse Brandt, inspector of the guild."),
        TurnInput(
            speech=f"The password is {WHISPER}.", whisper_to=["C2"], thought=f"{THOUGHT} again"
        ),
        TurnInput(action="lifts the lamp toward the toll box", force_speaker="C3"),
    ]

    async def play() -> str:
        try:
            view = await runner.create_session("the-toll-house")
            for turn in turns:
                await runner.play_turn(view.id, turn)
            return view.id
        finally:
            await runner.aclose()

    sid = asyncio.run(play())
    state = store.load(sid)
    assert state.turn_number == 3
    calls = [
        c for c in read_journal(journal_path(tavern_data_dir, sid)) if isinstance(c, LlmCallLine)
    ]
    ok = [c for c in calls if c.error is None]
    assert {c.agent for c in ok} >= {"director", "prose", "character:C3"}
    assert not [c for c in calls if c.agent == f"character:{state.controlled_id}"]
    assert not leaks(WHISPER, call_texts(calls, {"prose", "character:C3"}))
    assert not leaks(THOUGHT, call_texts(calls, {"prose", "character:C2", "character:C3"}))
    names = [c.body.display_name for c in state.cast.values()]
    for call in ok:
        assert not contract.check_prompt(call.request.messages, names), call.agent
        assert call.usage and call.prompt_cache.hit_tokens is not None
        print(
            f"{call.turn_number} {call.agent:14} prompt {call.usage.get('prompt_tokens')} tok, "
            f"cache hit {call.prompt_cache.hit_tokens} miss {call.prompt_cache.miss_tokens}, "
            f"{call.duration_ms:.0f} ms"
        )
