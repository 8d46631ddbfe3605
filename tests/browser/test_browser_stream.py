"""A turn draws line by line as it runs, with per-actor progress, and a quiet beat shows as
one in the interface's words (issue 46: streaming, defect 6)."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from typing import Any

from browser_kit import idle, send, shoot, start
from playwright.sync_api import expect

from tavern.llm.early_stop import EarlyStop, word_pieces
from tavern.llm.fake import FakeProvider, generate_answer
from tavern.llm.provider import ProviderRequest, ProviderResponse

RAIN = "Rain drums on the shutters."
ASSISTANT = "What can I assist you with today?"
"""A sentence the filter `out_of_world` cuts from a narration: it must never be drawn."""
MAREN = "Evening. The ferry is late tonight."
TEODOR = "Nobody crosses before dawn."
GATE_S = 60


def _other(request: ProviderRequest) -> Any:
    assert request.schema is not None
    return generate_answer(request.schema, request, "parrot")


def test_a_turn_draws_line_by_line(scripted_page: Any) -> None:
    gate = threading.Event()

    async def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return {"events": [], "next_speakers": ["C2", "C3"], "time_skip_ticks": 0,
                    "nothing_happens": False}  # fmt: skip
        if request.agent == "prose":
            return {"narration": f"{RAIN} {ASSISTANT}"}
        if request.agent == "character:C2":
            return {"speech": MAREN, "thought": None, "action_intent": None}
        if request.agent == "character:C3":
            await asyncio.to_thread(gate.wait, GATE_S)  # Teodor answers when the test says
            return {"speech": TEODOR, "thought": None, "action_intent": None}
        return _other(request)

    page = scripted_page(answer)
    start(page, "the-toll-house")
    page.fill("[data-testid=c-speech]", "Is the ferry still running?")
    page.click("[data-testid=c-send]")
    transcript = page.locator("[data-testid=transcript]")
    # While Teodor's call runs, the narration and Maren's line are already drawn...
    expect(transcript.locator("li.narration[data-streaming] .text")).to_have_text(RAIN)
    expect(transcript.locator("li.speech[data-streaming]", has_text=MAREN)).to_have_count(1)
    expect(page.locator("#busy-text")).to_have_text("Teodor Vask is answering…")
    expect(transcript.locator("li.speech", has_text=TEODOR)).to_have_count(0)
    assert ASSISTANT not in (transcript.text_content() or "")  # cut before it was drawn
    shoot(page, "stream-01-drawing")
    gate.set()
    idle(page)
    # ...and the committed turn takes their place, Teodor's line with it.
    expect(transcript.locator("li[data-streaming]")).to_have_count(0)
    expect(transcript.locator("li.speech[data-turn='1']", has_text=TEODOR)).to_have_count(1)
    expect(transcript.locator("li.narration[data-turn='1'] .text")).to_have_text(RAIN)
    expect(transcript.locator("li.speech[data-turn='1']", has_text=MAREN)).to_have_count(1)
    assert ASSISTANT not in (transcript.text_content() or "")
    shoot(page, "stream-02-landed")


def test_a_quiet_beat_shows_as_one_in_both_languages(scripted_page: Any) -> None:
    asked: list[str] = []

    def answer(request: ProviderRequest) -> Any:
        asked.append(request.agent)
        if request.agent == "director":
            return {"events": [], "next_speakers": [], "time_skip_ticks": 0,
                    "nothing_happens": True}  # fmt: skip
        if request.agent == "prose":
            return {"narration": "A storm the model invented rattles the roof."}
        return _other(request)

    page = scripted_page(answer)
    start(page, "the-toll-house")
    send(page, speech="I wait and listen.")
    transcript = page.locator("[data-testid=transcript]")
    quiet = transcript.locator("[data-testid=quiet-beat][data-turn='1']")
    expect(quiet).to_have_text("A quiet moment: nothing of note happens.")
    expect(transcript.locator("li.narration")).to_have_count(0)
    assert "Nothing material happens." not in (transcript.text_content() or "")  # kernel's
    assert "prose" not in asked  # the beat cost no narration call
    shoot(page, "stream-03-quiet-beat")
    page.click("[data-testid=setup-open]")
    page.select_option("[data-testid=s-language]", "pt-BR")
    page.click("[data-testid=s-save]")
    page.wait_for_selector("html[lang=pt-BR]")
    expect(quiet).to_have_text("Um momento tranquilo: nada digno de nota acontece.")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    idle(page)
    expect(quiet).to_have_text("Um momento tranquilo: nada digno de nota acontece.")


class Dripping(FakeProvider):
    """The function fake, streaming a narration word by word as a server would, and holding
    before the word that opens its `hold_at` sentence until `gate` is set."""

    def __init__(self, fn: Any, gate: threading.Event, hold_before: str) -> None:
        super().__init__("function", fn=fn)
        self.gate = gate
        self.hold_before = hold_before

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        if request.stop_early is None:
            return await super().complete(request)
        whole = await super().complete(replace(request, stop_early=None))
        answer = EarlyStop(request.stop_early)
        for piece in word_pieces(whole.content):
            if piece.strip() == self.hold_before:
                await asyncio.to_thread(self.gate.wait, GATE_S)
            if answer.feed(piece):
                return ProviderResponse(content=answer.content, stopped_early=True)
            await asyncio.sleep(0)
        return whole


def test_a_narration_shows_its_sentences_while_it_is_written(scripted_page: Any) -> None:
    gate = threading.Event()
    narration = f"{RAIN} {ASSISTANT} The fire gutters low. A dog barks outside."

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return {"events": [], "next_speakers": [], "time_skip_ticks": 0,
                    "nothing_happens": False}  # fmt: skip
        if request.agent == "prose":
            return {"narration": narration}
        return _other(request)

    page = scripted_page(answer, Dripping(answer, gate, hold_before="dog"))
    start(page, "the-toll-house")
    page.fill("[data-testid=c-speech]", "Is anyone awake?")
    page.click("[data-testid=c-send]")
    partial = page.locator("[data-testid=transcript] li.narration[data-partial] .text")
    # Held before "dog": the complete sentences so far are drawn, the cut one never.
    expect(partial).to_have_text(f"{RAIN} The fire gutters low.")
    assert ASSISTANT not in (page.locator("[data-testid=transcript]").text_content() or "")
    shoot(page, "stream-04-partial-narration")
    gate.set()
    idle(page)
    expect(page.locator("li[data-partial]")).to_have_count(0)
    final = page.locator("[data-testid=transcript] li.narration[data-turn='1'] .text")
    expect(final).to_have_text(f"{RAIN} The fire gutters low. A dog barks outside.")


def test_a_regenerated_turn_draws_line_by_line(scripted_page: Any) -> None:
    gate = threading.Event()
    plays: list[str] = []
    first, again = "The lamp burns steady.", "Wind rattles the lamp."

    async def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            plays.append("director")
            return {"events": [], "next_speakers": ["C2", "C3"], "time_skip_ticks": 0,
                    "nothing_happens": False}  # fmt: skip
        if request.agent == "prose":
            return {"narration": first if len(plays) == 1 else again}
        if request.agent == "character:C2":
            return {"speech": MAREN, "thought": None, "action_intent": None}
        if request.agent == "character:C3":
            if len(plays) > 1:
                await asyncio.to_thread(gate.wait, GATE_S)  # the rerun's Teodor waits
            return {"speech": TEODOR, "thought": None, "action_intent": None}
        return _other(request)

    page = scripted_page(answer)
    start(page, "the-toll-house")
    send(page, speech="Is the ferry still running?")
    transcript = page.locator("[data-testid=transcript]")
    expect(transcript.locator("li.narration[data-turn='1'] .text")).to_have_text(first)
    page.click("[data-testid=regenerate]")
    # While the rerun's Teodor call runs, its narration and Maren's line are drawn, and the
    # version it replaces is out of sight...
    streaming = transcript.locator("li.narration[data-streaming] .text")
    expect(streaming).to_have_text(again)
    expect(transcript.locator("li.speech[data-streaming]", has_text=MAREN)).to_have_count(1)
    expect(page.locator("#busy-text")).to_have_text("Teodor Vask is answering…")
    expect(transcript.locator("li.narration:visible")).to_have_count(1)
    shoot(page, "stream-05-regenerating")
    gate.set()
    idle(page)
    # ...and the committed version takes their place: one turn 1, the new one.
    expect(transcript.locator("li[data-streaming]")).to_have_count(0)
    expect(transcript.locator("li.narration[data-turn='1'] .text")).to_have_text(again)
    expect(transcript.locator("li.speech[data-turn='1']", has_text=TEODOR)).to_have_count(1)
    expect(transcript.locator("li.speech[data-turn='1']", has_text=MAREN)).to_have_count(1)
    expect(page.locator("[data-testid=variant-label]")).to_have_text("version 2 of 2")


def test_a_failed_regeneration_gives_back_the_turn_it_would_replace(
    scripted_page: Any,
) -> None:
    gate = threading.Event()
    plays: list[str] = []
    first, again = "The lamp burns steady.", "Wind rattles the lamp."

    async def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            plays.append("director")
            return {"events": [], "next_speakers": ["C2"], "time_skip_ticks": 0,
                    "nothing_happens": False}  # fmt: skip
        if request.agent == "prose":
            return {"narration": first if len(plays) == 1 else again}
        if request.agent == "character:C2":
            if len(plays) > 1:
                await asyncio.to_thread(gate.wait, GATE_S)
                return {"speech": None, "thought": None, "action_intent": None}  # twice: fails
            return {"speech": MAREN, "thought": None, "action_intent": None}
        return _other(request)

    page = scripted_page(answer)
    start(page, "the-toll-house")
    send(page, speech="Is the ferry still running?")
    transcript = page.locator("[data-testid=transcript]")
    page.click("[data-testid=regenerate]")
    expect(transcript.locator("li.narration[data-streaming] .text")).to_have_text(again)
    expect(transcript.locator("li.narration:visible")).to_have_count(1)
    gate.set()
    idle(page)
    expect(transcript.locator("li[data-streaming]")).to_have_count(0)
    expect(transcript.locator("li.narration[data-turn='1']:visible .text")).to_have_text(first)
    expect(transcript.locator("li.speech[data-turn='1']:visible", has_text=MAREN)).to_have_count(1)
