"""Regenerate this case's data: the toll house against a hostile model, canaries planted.

    .venv/bin/python cases/02-hostile-boundary/generate.py

Plays `TURNS` with the fake provider in two modes, seeds 1-2 each: `adversary` (every
answer schema-valid and hostile: the widest witness lists, invented ids, every
private-looking token it saw, the longest time skips) and `parrot` (every free-text field
repeats the salient tokens of its prompt, so whatever reached a prompt is said aloud).
The human whispers a canary to C2 and thinks another, then makes C3, who heard neither,
speak. Each session is a campaign partition, `data/campaign=hostile/arm=MODE/run=rSEED/`.
Deterministic but for timestamps and session ids. Seconds.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from harness.export import export_partition
from tavern.records import TurnInput
from tavern.records.config import AppConfig, ProviderSettings
from tavern.runner import build_runner
from tavern.store import Library, SessionStore

HERE = Path(__file__).parent
DATA = HERE / "data"
SEEDS = (1, 2)
MODES = ("adversary", "parrot")
WHISPER_CANARY = "Ashgrove4417"
THOUGHT_CANARY = "Millrace2290"
TURNS = [
    TurnInput(speech="Evening. Is the road north still open?"),
    TurnInput(speech=f"The password for the strongbox is {WHISPER_CANARY}.", whisper_to=["C2"]),
    TurnInput(speech="And you, sir, what brings you here?", force_speaker="C3"),
    TurnInput(thought=f"I hid the seal ring under {THOUGHT_CANARY}, behind the hearth."),
    TurnInput(action="turns to the man in the blue coat", force_speaker="C3"),
    TurnInput(skip=True),
    TurnInput(speech="Who keeps the ledger here?"),
    TurnInput(speech="Say nothing of what I told you.", whisper_to=["C2"]),
    TurnInput(speech="Well, sir?", force_speaker="C3"),
    TurnInput(skip=True),
]


async def play(data_dir: Path, mode: str, seed: int) -> str:
    settings = ProviderSettings(options={"mode": mode}, seed=seed)
    config = AppConfig(active_provider="fake", providers={"fake": settings})
    store = SessionStore(data_dir, synchronous="OFF")
    runner = build_runner(config=config, library=Library(data_dir), store=store)
    try:
        view = await runner.create_session("the-toll-house")
        for turn in TURNS:
            await runner.play_turn(view.id, turn)
    finally:
        await runner.aclose()
    store.close()
    return view.id


def main() -> None:
    shutil.rmtree(DATA, ignore_errors=True)
    for mode in MODES:
        for seed in SEEDS:
            data_dir = Path(tempfile.mkdtemp(prefix="tavern-case02-"))
            session_id = asyncio.run(play(data_dir, mode, seed))
            export_partition(
                data_dir, session_id, DATA, campaign="hostile", arm=mode, run=f"r{seed}"
            )
            print(f"{mode} r{seed}: {session_id}")


if __name__ == "__main__":
    main()
