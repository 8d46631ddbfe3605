"""Live: the real embedded model answers schema-constrained calls, and its prompt cache works.

Run with `make test-live` (it installs the model and builds the server first). Figures are
printed (`-s` shows them): prefill and generation speed from the server's own timings.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import jsonschema
import pytest

from tavern.llm.client import LlmClient
from tavern.llm.local.cache_probe import run_cache_probe
from tavern.llm.local.model_files import installed_model
from tavern.llm.local.paths import MODEL_NAME, local_paths
from tavern.llm.local.provider import LocalProvider
from tavern.llm.local.runtime_build import runtime_info
from tavern.llm.registry import build_provider
from tavern.records.config import AppConfig
from tavern.records.journal import ChatMessage, LlmCallLine

pytestmark = pytest.mark.live

CHARACTER = {
    "type": "object",
    "properties": {
        "speech": {"type": "string", "maxLength": 200},
        "thought": {"type": "string", "maxLength": 200},
        "action_intent": {"type": "string", "maxLength": 120},
    },
    "required": ["speech", "thought", "action_intent"],
    "additionalProperties": False,
}
MOOD = {
    "type": "object",
    "properties": {
        "mood": {"enum": ["calm", "wary", "angry", "afraid", "amused"]},
        "intensity": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["mood", "intensity"],
    "additionalProperties": False,
}
DIRECTOR = {
    "type": "object",
    "properties": {
        "witnesses": {
            "type": "array",
            "items": {"enum": ["C1", "C2", "C3"]},
            "maxItems": 3,
            "uniqueItems": True,
        },
        "time_skip_minutes": {"type": "integer", "minimum": 0, "maximum": 60},
        "next_speaker": {"enum": ["C1", "C2", "C3", "none"]},
    },
    "required": ["witnesses", "time_skip_minutes", "next_speaker"],
    "additionalProperties": False,
}
CALLS: list[tuple[str, dict[str, Any], str]] = [
    (
        "character:C2",
        CHARACTER,
        "You are Maren, the innkeeper. A stranger asks for a room at midnight. "
        "Answer as Maren: what you say, what you privately think, what you try to do.",
    ),
    ("utility", MOOD, "Maren has just been insulted by a drunk guard. Rate her mood."),
    (
        "director",
        DIRECTOR,
        "Scene: the common room. C1 and C2 stand at the bar, C3 sleeps upstairs. C1 whispers "
        "to C2. Who can witness the whisper, how many minutes pass, who speaks next?",
    ),
]


@pytest.fixture(scope="module", autouse=True)
def installed() -> None:
    paths = local_paths()
    if installed_model(paths) is None or runtime_info(paths) is None:
        pytest.fail("the local model is not installed: run `tavern model install`")


def _speeds(line: LlmCallLine) -> tuple[float, float]:
    timings = (line.usage or {}).get("timings") or {}
    return float(timings["prompt_per_second"]), float(timings["predicted_per_second"])


def test_three_schema_constrained_calls_validate() -> None:
    lines: list[LlmCallLine] = []

    async def run() -> list[dict[str, Any]]:
        async with httpx.AsyncClient() as http:
            provider = build_provider(AppConfig(), http)  # the default provider
            assert isinstance(provider, LocalProvider)
            client = LlmClient(provider, sink=lines.append, temperature=0.2, seed=7)
            answers = []
            for turn, (agent, schema, prompt) in enumerate(CALLS, start=1):
                answers.append(
                    await client.call_json(
                        agent=agent,
                        messages=[
                            ChatMessage(role="system", content="Answer with one JSON object."),
                            ChatMessage(role="user", content=prompt),
                        ],
                        schema=schema,
                        session_id="live-local",
                        turn_number=turn,
                        max_tokens=200,
                    )
                )
            return answers

    answers = asyncio.run(run())
    for (_, schema, _), answer in zip(CALLS, answers, strict=True):
        jsonschema.validate(answer, schema)
    ok = [line for line in lines if line.error is None]
    assert len(ok) == 3, [line.error for line in lines]
    assert {line.model for line in lines} == {MODEL_NAME}
    for line, answer in zip(ok, answers, strict=True):
        prefill, generation = _speeds(line)
        print(f"\n{line.agent}: {answer}")
        print(f"  prefill {prefill:.0f} tok/s, generation {generation:.0f} tok/s")


def test_cache_probe_passes_on_the_local_model() -> None:
    async def run() -> Any:
        async with httpx.AsyncClient() as http:
            provider = build_provider(AppConfig(), http, "local")
            return await run_cache_probe(provider, sink=lambda line: None)

    result = asyncio.run(run())
    for call in result.calls:
        print(f"\n{call.label}: hit {call.hit_tokens} miss {call.miss_tokens} {call.prompt_ms}ms")
    print(result.explanation)
    assert result.method == "counters"
    assert result.passed, result.explanation
