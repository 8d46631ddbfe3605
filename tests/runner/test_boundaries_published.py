"""Publication is relative to perceivers, against the `adversary` fake (issue 41, holes 1-2).

A word said or acted aloud becomes known to the perceivers of that record, not to the world;
a fact derived from what happens in a zone is visible only where that zone can be perceived.
The adversary Director copies every private-looking token it sees into events addressed to
everyone (sealed rooms included) and into new scene facts; its Characters copy every token
they perceived into their lines and attempts.
"""

from __future__ import annotations

from .kit import KitFactory
from .sweeps import call_texts, leaks

WHISPER = "Quillfeather7731"
LEVER = "Brinewheel4410"


def test_a_whisper_word_published_in_the_hall_never_reaches_the_sealed_cellar(
    make_kit: KitFactory,
) -> None:
    kit = make_kit("adversary")
    sid = kit.create()  # C1 controlled; C1, C2, C4 in the hall, C5 above it, C3 sealed below
    # C4 hears the word in a whisper, then (a hostile Character) says and acts it in the hall.
    kit.play(sid, speech=f"Only you: {WHISPER}.", whisper_to=["C4"], force_speaker="C4")
    for speaker in ["C4", "C3", "C3", "C3"]:
        kit.play(sid, skip=True, force_speaker=speaker)
    calls = kit.calls(sid)
    hall = call_texts(calls, {"character:C4"})
    assert leaks(WHISPER, hall)  # positive control: the insider has it
    assert not leaks(WHISPER, call_texts(calls, {"character:C3"}))
    assert not leaks(WHISPER, kit.state(sid).ledgers["C3"].memory)


def test_a_sealed_rooms_attempt_never_becomes_a_fact_the_hall_reads(make_kit: KitFactory) -> None:
    kit = make_kit("adversary")
    sid = kit.create(controlled="C3")  # the human plays the one character in the cellar
    kit.play(sid, action=f"pulls the {LEVER} lever behind the casks", force_speaker="C3")
    for speaker in ["C2", "C4", "C5"]:
        kit.play(sid, skip=True, force_speaker=speaker)
    calls = kit.calls(sid)
    director = call_texts(calls, {"director"})
    assert leaks(LEVER, director)  # positive control: the Director saw the attempt
    hall = call_texts(calls, {"character:C2", "character:C4", "character:C5"})
    assert not leaks(LEVER, hall)
    assert not any(LEVER.lower() in f.lower() for f in kit.state(sid).scene.facts)
