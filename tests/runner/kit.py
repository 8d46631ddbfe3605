"""A real runner over a temporary store, wired to the in-process fake provider."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeFunction, FakeProvider, generate_answer
from tavern.llm.provider import ProviderRequest
from tavern.llm.wrappers import RetryPolicy
from tavern.records import (
    EventRecord,
    HistoryRecord,
    LlmCallLine,
    NarrationRecord,
    SessionState,
    SpeechRecord,
    TurnInput,
)
from tavern.records.views import TurnResult
from tavern.runner import Runner
from tavern.runner.limits import KernelLimits
from tavern.store import JournalWriter, Library, SessionStore, journal_path, read_journal

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion (tests stay synchronous, Hypothesis-friendly)."""
    return asyncio.run(coro)


async def no_sleep(_: float) -> None:
    return None


@dataclass
class Kit:
    """A runner plus everything a test inspects."""

    runner: Runner
    provider: FakeProvider
    store: SessionStore
    library: Library
    journal: JournalWriter
    data_dir: Path

    def create(self, scenario: str = "the-vintners-wake", controlled: str | None = None) -> str:
        return run(self.runner.create_session(scenario, controlled)).id

    def play(self, session_id: str, **turn: Any) -> TurnResult:
        return run(self.runner.play_turn(session_id, TurnInput(**turn)))

    def state(self, session_id: str) -> SessionState:
        return self.store.load(session_id)

    def history(self, session_id: str) -> list[HistoryRecord]:
        return self.store.history(session_id)

    def calls(self, session_id: str) -> list[LlmCallLine]:
        lines = read_journal(journal_path(self.data_dir, session_id))
        return [line for line in lines if isinstance(line, LlmCallLine)]

    def requests(self, agent_prefix: str = "") -> list[ProviderRequest]:
        return [r for r in self.provider.requests if r.agent.startswith(agent_prefix)]


KitFactory = Callable[..., Kit]


def director_answer(speakers: list[str], **extra: Any) -> dict[str, Any]:
    """A schema-valid Director answer routing `speakers`, nothing else happening."""
    return {
        "blocking": "",
        "events": [],
        "next_speakers": speakers,
        "scene": {"add_facts": [], "remove_facts": [], "new_location": None},
        "mood_updates": {},
        "zone_moves": [],
        "link_updates": [],
        "time_skip_ticks": 0,
        "nothing_happens": False,
    } | extra


def parrot_narrated(request: ProviderRequest) -> Any:
    """The parrot, with a Director that never declares a quiet beat: every turn asks the
    prose renderer (the parrot's Director says `nothing_happens` to every beat, so a turn
    whose events the clamps removed would otherwise ask no narration)."""
    assert request.schema is not None
    answer = generate_answer(request.schema, request, "parrot")
    if request.agent == "director":
        answer["nothing_happens"] = False
    return answer


def recording_runner(
    data_dir: Path, fn: FakeFunction, limits: KernelLimits
) -> tuple[Runner, SessionStore, list[LlmCallLine]]:
    """A runner over `data_dir` answering from `fn` once per call, and every call it makes."""
    store = SessionStore(data_dir, synchronous="OFF")
    journal = JournalWriter(data_dir, durable=False)
    calls: list[LlmCallLine] = []

    def sink(line: LlmCallLine) -> None:
        calls.append(line)
        journal.append(line.session_id, line)

    client = LlmClient(
        FakeProvider("function", fn=fn),
        sink=sink,
        retry=RetryPolicy(max_attempts=1),
        sleep=no_sleep,
    )
    return Runner(store, Library(data_dir), journal, client, limits=limits), store, calls


def narrated_once(data_dir: Path, narration: str, scenario: str = "the-toll-house") -> list[str]:
    """The narrations committed by one speech turn in which the renderer answers `narration`
    (the Director decides no event; a Character asked answers a line)."""

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([])
        if request.agent == "prose":
            return {"narration": narration}
        if request.agent.startswith("character"):
            return {"speech": "Not tonight.", "thought": None, "action_intent": None}
        return {"outcome": "Nothing comes of it."}

    runner, store, _ = recording_runner(data_dir, answer, KernelLimits())
    sid = run(runner.create_session(scenario)).id
    run(runner.play_turn(sid, TurnInput(speech="Well?")))
    return [r.text for r in store.history(sid) if isinstance(r, NarrationRecord)]


def two_replies(first: dict[str, Any], second: dict[str, Any]) -> FakeFunction:
    """Answers in which the Director queues C2 then C3, the renderer says "Rain.", C2's
    Character answers `first` and C3's `second` (reply dicts)."""

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(["C2", "C3"])
        if request.agent == "prose":
            return {"narration": "Rain."}
        return first if request.agent == "character:C2" else second

    return answer


def said_once(
    data_dir: Path, scenario: str, slot: str, reply: dict[str, Any], speech: str
) -> list[str]:
    """The lines `slot` says in one turn in which the human says `speech`, the Director
    queues only `slot` and its Character answers `reply` (a reply dict)."""

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([slot])
        if request.agent == "prose":
            return {"narration": "Rain."}
        return reply

    runner, store, _ = recording_runner(data_dir, answer, KernelLimits())
    sid = run(runner.create_session(scenario, "C1")).id
    run(runner.play_turn(sid, TurnInput(speech=speech)))
    return [r.text for r in store.history(sid) if isinstance(r, SpeechRecord) and r.speaker == slot]


def events_committed(make_kit: KitFactory, events: list[dict[str, Any]]) -> list[str]:
    """The event texts committed by one thought turn in which the Director proposes `events`
    (answer dicts) and the renderer answers "Candles gutter."."""

    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([], events=events)
        return {"narration": "Candles gutter."}

    kit = make_kit(fn=answer)
    sid = kit.create()
    kit.play(sid, thought="Someone here is lying to me.")
    return [r.text for r in kit.history(sid) if isinstance(r, EventRecord)]


def without_filters(monkeypatch: pytest.MonkeyPatch, *rules: str) -> None:
    """Run the turns of a test under a `small_local` profile without `rules` (a negative
    control of a filter rule inside real turns)."""
    from tavern.filters import PROFILES

    monkeypatch.setitem(PROFILES, "small_local", PROFILES["small_local"] - set(rules))
