"""The prompts a session sends do not depend on the process's string-hash seed.

A server restarts with a new PYTHONHASHSEED each time. If any prompt block were ordered by
iterating a set or a hash, the same session would send a different prompt after a restart,
and the provider's prefix cache (the cacheable share `benchmarks.kernel` reports) would be
lost without any test noticing: in one process the order is stable. Each child plays the
same turns on the parrot fake and prints every prompt it sent; two hash seeds must agree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import asyncio, json, sys
from pathlib import Path
from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeProvider
from tavern.llm.wrappers import RetryPolicy
from tavern.records import TurnInput
from tavern.runner import Runner
from tavern.store import JournalWriter, Library, SessionStore

if sys.argv[2] == "plant":  # a block ordered by set iteration: the defect this test is for
    import tavern.agents.director as director
    told = director._now_block
    director._now_block = lambda state, beat: told(state, beat) + " ".join(set(state.cast))

data = Path(sys.argv[1])
prompts = []
client = LlmClient(
    FakeProvider("parrot"),
    sink=lambda line: prompts.append([line.agent, [m.content for m in line.request.messages]]),
    retry=RetryPolicy(max_attempts=2),
)
runner = Runner(SessionStore(data, synchronous="OFF"), Library(data),
                JournalWriter(data, durable=False), client)
TURNS = [
    TurnInput(speech="Who keeps the cellar key tonight?"),
    TurnInput(action="sets the candle on the coffin's edge"),
    TurnInput(thought="The notary is lying."),
    TurnInput(speech="Not here.", whisper_to=["C2"]),
    TurnInput(skip=True),
]
for scenario in ("the-vintners-wake", "the-toll-house"):
    sid = asyncio.run(runner.create_session(scenario)).id
    for turn in TURNS:
        asyncio.run(runner.play_turn(sid, turn))
print(json.dumps(prompts))
"""


def prompts_under(seed: int, tmp_path: Path, plant: bool = False) -> list[object]:
    data = tmp_path / f"seed-{seed}-{'plant' if plant else 'clean'}"
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-c", CHILD, str(data), "plant" if plant else "clean"]
    done = subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    prompts: list[object] = json.loads(done.stdout)
    return prompts


@pytest.mark.parametrize("plant", [False, True], ids=["kernel", "negative-control"])
def test_prompts_agree_across_hash_seeds(tmp_path: Path, plant: bool) -> None:
    first, second = prompts_under(1, tmp_path, plant), prompts_under(2, tmp_path, plant)
    assert len(first) > 20  # every role was asked, in both scenarios
    if plant:
        assert first != second  # the planted set order is seen to differ
    else:
        assert first == second
