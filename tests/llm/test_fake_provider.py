"""Fake provider: parrot surfaces planted tokens, adversary is hostile yet valid, determinism."""

from __future__ import annotations

import asyncio
import json

import jsonschema
import pytest

from tavern.agents import character, director
from tavern.llm import FakeProvider, LlmClient, fake_choosers
from tavern.llm.provider import ProviderRequest
from tavern.records import CharacterReply, ChatMessage, DirectorDecision

from .helpers import REPLY_SCHEMA, Journal

pytestmark = pytest.mark.anyio
DIRECTOR_SCHEMA = director.OUTPUT_SCHEMA  # what the kernel sends
CANARY = "ZEPHYR_CANARY_3141"
PROMPT = [
    ChatMessage(role="system", content="You direct a tavern scene. Cast: C1 Brom, C2 Ilsa, C3."),
    ChatMessage(
        role="user",
        content=f"Private thought of C2 (interiority): the ledger hides {CANARY}. Beat 5.",
    ),
]


async def _ask(
    provider: FakeProvider, schema: dict[str, object], journal: Journal
) -> dict[str, object]:
    client = LlmClient(provider, sink=journal)
    return await client.call_json(
        agent="director", messages=PROMPT, schema=schema, session_id="s", turn_number=5
    )


async def test_parrot_surfaces_a_planted_canary_in_free_text(journal: Journal) -> None:
    out = await _ask(FakeProvider("parrot", seed=3), DIRECTOR_SCHEMA, journal)
    DirectorDecision.model_validate(out)
    assert CANARY in out["blocking"]
    assert journal[0].source == "fake" and journal[0].provider == "fake"


async def test_parrot_without_the_canary_does_not_invent_it(journal: Journal) -> None:
    # Negative control: the detector reports only what it was shown.
    clean = [PROMPT[0], ChatMessage(role="user", content="Beat 5.")]
    client = LlmClient(FakeProvider("parrot"), sink=journal)
    out = await client.call_json(
        agent="director", messages=clean, schema=DIRECTOR_SCHEMA, session_id="s", turn_number=5
    )
    assert CANARY not in json.dumps(out)


async def test_parrot_character_reply_is_valid_for_the_record(journal: Journal) -> None:
    out = await _ask(FakeProvider("parrot"), character.OUTPUT_SCHEMA, journal)
    reply = CharacterReply.model_validate(out)
    assert CANARY in (reply.speech or "") + (reply.thought or "") + (reply.action_intent or "")


async def test_adversary_is_schema_valid_yet_hostile(journal: Journal) -> None:
    schema = {
        **DIRECTOR_SCHEMA,
        "properties": {
            **DIRECTOR_SCHEMA["properties"],
            "time_skip_ticks": {"type": "integer", "minimum": 0, "maximum": 12},
        },
    }
    out = await _ask(FakeProvider("adversary"), schema, journal)
    jsonschema.validate(out, schema)
    decision = DirectorDecision.model_validate(out)
    everyone = {"C1", "C2", "C3", "Narrator", "C97", "C98", "C99"}
    assert decision.time_skip_ticks == 12  # maximal skip
    assert decision.next_speakers == ["C1", "C2", "C3"]  # the longest queue the schema allows
    # every event reaches everyone, invented ids included
    assert decision.events and all(set(e.witness_ids) == everyone for e in decision.events)
    assert CANARY in decision.blocking  # copies the private token it saw
    assert decision.zone_moves and decision.link_updates  # every optional lever pulled
    assert set(decision.mood_updates) >= {"C1", "C97"}


async def test_function_mode_sync_and_async() -> None:
    async def answer(request: ProviderRequest) -> dict[str, object]:
        await asyncio.sleep(0)
        return {"speech": request.agent}

    journal = Journal()
    sync = await _ask(
        FakeProvider("function", fn=lambda r: {"speech": "hi"}), REPLY_SCHEMA, journal
    )
    asyn = await _ask(FakeProvider("function", fn=answer), REPLY_SCHEMA, journal)
    assert sync == {"speech": "hi"} and asyn == {"speech": "director"}
    with pytest.raises(ValueError):
        FakeProvider("function")


async def test_deterministic_per_seed_and_request() -> None:
    one = await _ask(FakeProvider("parrot", seed=7), DIRECTOR_SCHEMA, Journal())
    two = await _ask(FakeProvider("parrot", seed=7), DIRECTOR_SCHEMA, Journal())
    assert one == two
    others = [
        await _ask(FakeProvider("parrot", seed=s), DIRECTOR_SCHEMA, Journal()) for s in range(8)
    ]
    assert any(o != one for o in others)  # the seed matters


INSTRUCTIONS = " ".join(
    a + b + c + d for a in "bkmrt" for b in "aeiou" for c in ("ld", "rn", "st", "v") for d in "aeo"
)
"""Fixed instructions: 300 distinct words (a kernel prompt holds hundreds), 2,400 characters."""
LONG_PROMPT = [
    ChatMessage(role="system", content=f"{INSTRUCTIONS}. " * 3),
    ChatMessage(role="user", content=f"Beat 5. Wexmoor hears {CANARY} at the cellar door."),
]


async def _long_reply(journal: Journal, mode: str) -> str:
    client = LlmClient(FakeProvider("parrot" if mode == "parrot" else "adversary"), sink=journal)
    out = await client.call_json(
        agent="character:C2",
        messages=LONG_PROMPT,
        schema=character.OUTPUT_SCHEMA,  # the kernel's: speech up to 600 characters
        session_id="s",
        turn_number=5,
    )
    reply = CharacterReply.model_validate(out)
    return " ".join(t for t in (reply.speech, reply.thought, reply.action_intent) if t)


@pytest.mark.parametrize("mode", ["parrot", "adversary"])
async def test_fakes_surface_the_tail_of_a_long_prompt(journal: Journal, mode: str) -> None:
    # A kernel prompt opens with thousands of characters of fixed instructions and a field
    # holds a few hundred: the beat's own words must be what surfaces.
    said = await _long_reply(journal, mode)
    assert CANARY in said and "Wexmoor" in said


async def test_negative_control_in_prompt_order_the_tail_never_surfaces(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fake_choosers, "ranked_tokens", fake_choosers.salient_tokens)
    said = await _long_reply(journal, "parrot")
    assert CANARY not in said and "Wexmoor" not in said
