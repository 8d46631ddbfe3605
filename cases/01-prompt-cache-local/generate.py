"""Regenerate this case's data: a six-turn toll-house session on the embedded local model.

    .venv/bin/pip install -e '.[dev,local]' && .venv/bin/tavern model install
    .venv/bin/python cases/01-prompt-cache-local/generate.py

Plays the soak's first six inputs (speech, action, a lone thought, a skip, speech with an
action, a whisper) at temperature 0.7, seed 11, with the soak's answer limits, then writes
the session's journal and its store export into `data/<session id>/` (replacing what was
there). About 20-70 s a turn on two shared cores.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

from harness.export import export_session
from tavern.records import TurnInput
from tavern.records.config import AppConfig, ProviderSettings
from tavern.runner import build_runner
from tavern.store import Library, SessionStore, session_dir

HERE = Path(__file__).parent
ANSWER_TOKENS = {"director": 900, "prose": 700, "character": 600}
"""The soak's answer limits."""


def script(whisper_to: str) -> list[TurnInput]:
    """The soak's first six inputs (as `harness/soak.py` had them when this data was made)."""
    return [
        TurnInput(speech="Good evening to you all. What brings everyone here tonight?"),
        TurnInput(action="walks slowly to the nearest window and looks outside"),
        TurnInput(thought="Someone here is lying to me."),
        TurnInput(skip=True),
        TurnInput(speech="I think we should open it now.", action="reaches for the door"),
        TurnInput(speech="Keep your voice down.", whisper_to=[whisper_to]),
    ]


async def play(data_dir: Path) -> str:
    settings = ProviderSettings(max_tokens=ANSWER_TOKENS, temperature=0.7, seed=11, max_attempts=2)
    config = AppConfig(active_provider="local", providers={"local": settings})
    store = SessionStore(data_dir)
    runner = build_runner(config=config, library=Library(data_dir), store=store)
    try:
        view = await runner.create_session("the-toll-house")
        others = [m.slot for m in view.cast if m.slot != view.controlled_id]
        for number, turn in enumerate(script(others[0]), start=1):
            result = await runner.play_turn(view.id, turn)
            print(f"turn {number}: {len(result.records)} records", flush=True)
    finally:
        await runner.aclose()
    export_session(data_dir, view.id, store)
    store.close()
    return view.id


def main() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="tavern-case01-"))
    session_id = asyncio.run(play(data_dir))
    target = HERE / "data"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(session_dir(data_dir, session_id), target / session_id)
    print(f"wrote {target / session_id}", file=sys.stderr)


if __name__ == "__main__":
    main()
