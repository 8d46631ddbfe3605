"""Publication is relative to perceivers, against the `adversary` fake (issue 41, holes 1-2).

A word said or acted aloud becomes known to the perceivers of that record, not to the world;
a fact derived from what happens in a zone is visible only where that zone can be perceived.
The adversary Director copies every private-looking token it sees into events addressed to
everyone (sealed rooms included) and into new scene facts; its Characters copy every token
they perceived into their lines and attempts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

import tavern.physics.clamps as clamps_module
import tavern.runner.memory as memory_module
from tavern.physics import guards
from tavern.physics.guards import Knowledge
from tavern.physics.redaction import salient_tokens
from tavern.records import ActionRecord, HistoryRecord, SpeechRecord

from .kit import KitFactory
from .sweeps import call_texts, leaks

WHISPER = "Quillfeather7731"
LEVER = "Brinewheel4410"


def _whisper_published_in_the_hall(make_kit: KitFactory) -> tuple[list[str], list[str]]:
    """(C4's prompts, everything C3 read or remembers) after C1 whispers a word to C4, who
    then (a hostile Character) says and acts it in the hall, and the Director's events for
    everyone (sealed cellar included) copy it."""
    kit = make_kit("adversary")
    sid = kit.create()  # C1 controlled; C1, C2, C4 in the hall, C5 above it, C3 sealed below
    kit.play(sid, speech=f"Only you: {WHISPER}.", whisper_to=["C4"], force_speaker="C4")
    for speaker in ["C4", "C3", "C3", "C3"]:
        kit.play(sid, skip=True, force_speaker=speaker)
    calls = kit.calls(sid)
    cellar = call_texts(calls, {"character:C3"}) + kit.state(sid).ledgers["C3"].memory
    return call_texts(calls, {"character:C4"}), cellar


def _attempt_in_the_cellar(make_kit: KitFactory) -> tuple[list[str], list[str]]:
    """(Director prompts, everything the hall read plus the stage facts) after the human,
    playing the one character in the sealed cellar, pulls a lever there."""
    kit = make_kit("adversary")
    sid = kit.create(controlled="C3")
    kit.play(sid, action=f"pulls the {LEVER} lever behind the casks", force_speaker="C3")
    for speaker in ["C2", "C4", "C5"]:
        kit.play(sid, skip=True, force_speaker=speaker)
    calls = kit.calls(sid)
    hall = call_texts(calls, {"character:C2", "character:C4", "character:C5"})
    return call_texts(calls, {"director"}), hall + kit.state(sid).scene.facts


def test_a_whisper_word_published_in_the_hall_never_reaches_the_sealed_cellar(
    make_kit: KitFactory,
) -> None:
    insider, cellar = _whisper_published_in_the_hall(make_kit)
    assert leaks(WHISPER, insider)  # positive control: the insider has it
    assert not leaks(WHISPER, cellar)


def test_a_sealed_rooms_attempt_never_becomes_a_fact_the_hall_reads(make_kit: KitFactory) -> None:
    director, hall = _attempt_in_the_cellar(make_kit)
    assert leaks(LEVER, director)  # positive control: the Director saw the attempt
    assert not leaks(LEVER, hall)


def _published_to_the_world(real: Callable[..., Knowledge]) -> Callable[..., Knowledge]:
    """Planted: what a speech or an attempt said aloud is known to everyone, as the guards
    once had it (a whisper's and a thought's words stay with their insiders)."""

    def broadened(history: Iterable[HistoryRecord], *args: Any, **kwargs: Any) -> Knowledge:
        records = list(history)
        known = real(records, *args, **kwargs)
        aloud = {
            token
            for r in records
            if isinstance(r, ActionRecord)
            or (isinstance(r, SpeechRecord) and r.audience.origin != "whisper")
            for token in salient_tokens(r.text)
        }
        knowers = {t: who for t, who in known.knowers.items() if t not in aloud}
        return Knowledge(known.public | aloud, knowers, known.thought_only - aloud)

    return broadened


def test_negative_control_a_word_published_to_the_world_is_caught(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = _published_to_the_world(guards.knowledge_of)
    for module in (guards, clamps_module, memory_module):
        monkeypatch.setattr(module, "knowledge_of", planted)
    assert leaks(WHISPER, _whisper_published_in_the_hall(make_kit)[1])
    assert leaks(LEVER, _attempt_in_the_cellar(make_kit)[1])
