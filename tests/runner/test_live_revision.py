"""Live: ledger memory revisions on the real embedded model (`local`), as a monitor.

Run with `pytest --runlive tests/runner/test_live_revision.py -s`. Three ledgers of a
built-in scenario hear a code, a password and a whisper (one of them outside it), then each
gets one reviser call on the local model. What is asserted is the code's, never the model's
prose: every answer is either accepted with every check holding, or refused or failed with a
reason; the turn machinery never raises; no summary holds the whisper's canary for the
ledger outside it. The outcomes are printed (`-s`) for the record.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tavern.llm.local.model_files import installed_model
from tavern.llm.local.paths import local_paths
from tavern.llm.local.runtime_build import runtime_info
from tavern.physics.guards import cast_public_texts, knowledge_of
from tavern.physics.perception import audience_for
from tavern.records import HistoryRecord, MemoryRevision, PerspectiveLedger, Scene, SpeechRecord
from tavern.records.config import AppConfig, ProviderSettings
from tavern.runner import KernelLimits, build_runner
from tavern.runner.calls import AgentCaller
from tavern.runner.gate import ContractGate
from tavern.runner.memory import capture_memory, revise_memory, summary_problem
from tavern.store import Library, SessionStore, materialize_session

pytestmark = pytest.mark.live

WHISPER = "Quillfeather7731"
SAID = [
    "Good evening. The gate code is 4471, and the bell rings at 23:15.",
    "The password for the cellar is heron. Remember it.",
    "The notary keeps the will in his satchel; three of us saw him take it.",
    "Nobody leaves before the bell, and the candles will not last the night.",
]


def _history(state_scene: Scene) -> list[HistoryRecord]:
    records: list[HistoryRecord] = []
    for i, text in enumerate(SAID, start=1):
        audience = audience_for(state_scene, "C1", "speech")
        records.append(SpeechRecord(seq=i, turn_number=i, speaker="C1", author="human",
                                    text=text, audience=audience))  # fmt: skip
    whisper = audience_for(state_scene, "C1", "speech", whisper_to=["C2"])
    records.append(SpeechRecord(seq=9, turn_number=5, speaker="C1", author="human",
                                text=f"Tell no one: {WHISPER}.", audience=whisper))  # fmt: skip
    return records


@pytest.mark.timeout(3600)
def test_live_revisions_hold_every_check(tavern_data_dir: Path) -> None:
    paths = local_paths()
    if installed_model(paths) is None or runtime_info(paths) is None:
        pytest.fail("the local model is not installed: run `tavern model install`")
    settings = ProviderSettings(
        max_tokens={"reviser": 500}, temperature=0.3, seed=7, timeout_s=900, max_attempts=2
    )
    config = AppConfig(active_provider="local", providers={"local": settings})
    library = Library(tavern_data_dir)
    runner = build_runner(config=config, library=library, store=SessionStore(tavern_data_dir))
    state = materialize_session(library.get_scenario("the-vintners-wake"), library, "s-live-rev")
    history = _history(state.scene)
    ledgers = capture_memory(state.ledgers, state.cast, history, history, state.scene)
    state = state.model_copy(update={"ledgers": ledgers})
    limits = KernelLimits(character_memory_tokens=40, revision_seconds=900)

    async def revise() -> tuple[dict[str, PerspectiveLedger], list[MemoryRevision]]:
        try:
            caller = AgentCaller(runner.client, state.id, ContractGate(state))
            return await revise_memory(state, history, caller, 6, limits)
        finally:
            await runner.aclose()

    revised, revisions = asyncio.run(revise())
    known = knowledge_of(history, state.scene, cast_public_texts(state.cast))
    for revision in revisions:
        print(revision.model_dump_json())
        assert revision.outcome in ("revised", "refused", "failed", "evicted")
    for owner, ledger in revised.items():
        summary = ledger.memory_summary
        print(owner, repr(summary))
        if summary:
            folded = [line for line in ledgers[owner].memory if line not in ledger.memory]
            assert summary_problem(summary, folded, summary + "\n".join(folded), owner, state,
                                   known) is None  # fmt: skip
        if owner not in ("C1", "C2"):
            assert WHISPER not in summary
