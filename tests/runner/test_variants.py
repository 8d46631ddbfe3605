"""What the browser's per-message controls and scrollback ask of the runner: reruns that keep
the old variant, flips, stale revisions refused, openings kept until used, transcript pages
with a mark per turn, and the cast panel's hearing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import ProviderRequest
from tavern.llm.wrappers import RetryPolicy
from tavern.records import LlmCallLine, TurnInput, VariantLine
from tavern.runner import ConflictError, ModelFailureError, Runner
from tavern.runner.service import RERUN_SEED_STEP
from tavern.store import JournalWriter, Library, SessionStore, journal_path, read_journal

from .kit import KitFactory, director_answer, no_sleep, run


def seeded_runner(data_dir: Path, seed: int = 7) -> tuple[Runner, FakeProvider]:
    store = SessionStore(data_dir, synchronous="OFF")
    journal = JournalWriter(data_dir, durable=False)
    provider = FakeProvider("parrot")

    def sink(line: LlmCallLine) -> None:
        journal.append(line.session_id, line)

    client = LlmClient(
        provider, sink=sink, retry=RetryPolicy(max_attempts=1), sleep=no_sleep, seed=seed
    )
    return Runner(store, Library(data_dir), journal, client), provider


def _texts(records: list[Any]) -> list[str]:
    return [r.text for r in records]


def test_rerun_keeps_the_old_variant_and_flip_swaps_it_back(tavern_data_dir: Path) -> None:
    runner, provider = seeded_runner(tavern_data_dir)
    sid = run(runner.create_session("the-toll-house")).id
    first = run(runner.play_turn(sid, TurnInput(speech="Is the ferry running?")))
    assert (first.variant, first.variants, first.revision) == (0, 1, 1)
    provider.requests.clear()

    again = run(runner.rerun(sid, expected_revision=first.revision))
    assert (again.turn_number, again.variant, again.variants) == (1, 1, 2)
    assert {r.seed for r in provider.requests} >= {7 + RERUN_SEED_STEP}  # another sample
    assert _texts(again.records) != _texts(first.records)
    assert _texts(again.records)[0] == "Is the ferry running?"  # the same input, played again

    listed = runner.variants(sid)
    assert [(v.variant, v.committed) for v in listed] == [(0, False), (1, True)]
    assert all(v.input == TurnInput(speech="Is the ferry running?") for v in listed)

    back = run(runner.flip(sid, 0, expected_revision=again.revision))
    assert (back.variant, back.variants) == (0, 2) and back.records == first.records
    page = run(runner.transcript(sid))
    assert [r for r in page.data if r.turn_number == 1] == first.records

    edited = run(runner.rerun(sid, TurnInput(speech="Who rang the bell?")))
    assert _texts(edited.records)[0] == "Who rang the bell?" and edited.variants == 3
    lines = read_journal(journal_path(tavern_data_dir, sid))
    marks = [
        (v.action, v.committed_variant, v.set_aside_variant)
        for v in lines
        if isinstance(v, VariantLine)
    ]
    assert marks == [("rerun", 1, 0), ("flip", 0, 1), ("rerun", 2, 0)]


def test_a_failed_rerun_leaves_the_turn_as_it_was(make_kit: KitFactory) -> None:
    failing = {"on": False}

    def answer(request: ProviderRequest) -> Any:
        if failing["on"]:
            return "not json"
        from tavern.llm.fake import generate_answer

        assert request.schema is not None
        return generate_answer(request.schema, request, "parrot")

    kit = make_kit(fn=answer, attempts=1)
    sid = kit.create("the-toll-house")
    played = kit.play(sid, speech="Hello there.")
    before = (kit.history(sid), kit.state(sid))
    failing["on"] = True
    with pytest.raises(ModelFailureError):
        run(kit.runner.rerun(sid))
    assert (kit.history(sid), kit.state(sid)) == before
    assert [v.variant for v in kit.runner.variants(sid)] == [0]
    assert played.variants == 1


def test_stale_revisions_are_refused_before_anything_is_journaled(make_kit: KitFactory) -> None:
    kit = make_kit()
    sid = kit.create("the-toll-house")
    first = kit.play(sid, speech="One.")
    kit.play(sid, speech="Two, from another tab.")
    journal = journal_path(kit.data_dir, sid)
    lines = len(read_journal(journal))
    for stale in (
        kit.runner.play_turn(sid, TurnInput(speech="Three?"), expected_revision=first.revision),
        kit.runner.undo(sid, expected_revision=first.revision),
        kit.runner.rerun(sid, expected_revision=first.revision),
        kit.runner.flip(sid, 0, expected_revision=first.revision),
    ):
        with pytest.raises(ConflictError, match="changed since this view was loaded"):
            run(stale)
    assert len(read_journal(journal)) == lines and kit.state(sid).turn_number == 2
    run(kit.runner.undo(sid, expected_revision=kit.state(sid).revision))  # the fresh one works
    assert kit.state(sid).turn_number == 1
    run(kit.runner.undo(sid))
    with pytest.raises(ConflictError, match="nothing to play again"):
        run(kit.runner.rerun(sid))


def test_openings_are_kept_until_used(make_kit: KitFactory) -> None:
    kit = make_kit()
    sid = kit.create("the-toll-house")
    sparks = run(kit.runner.openings(sid))
    again = run(kit.runner.openings(sid))
    assert again == sparks and len(kit.requests("openings")) == 1  # no second model call
    kit.play(sid, hint=sparks[0])
    run(kit.runner.openings(sid))
    assert len(kit.requests("openings")) == 2  # turn 1 is another moment: asked afresh


def test_openings_of_an_unreadable_answer_are_asked_again(make_kit: KitFactory) -> None:
    kit = make_kit()
    sid = kit.create("the-toll-house")
    run(kit.runner.openings(sid))
    path = journal_path(kit.data_dir, sid)
    text = path.read_text()
    assert '\\"openings\\":' in text
    path.write_text(text.replace('\\"openings\\":', '\\"openingz\\":'))  # planted: damaged
    run(kit.runner.openings(sid))
    assert len(kit.requests("openings")) == 2


def test_transcript_pages_mark_every_turn(make_kit: KitFactory) -> None:
    kit = make_kit()
    sid = kit.create("the-vintners-wake")
    for n in range(5):
        kit.play(sid, speech=f"Line {n}.")
    latest = run(kit.runner.transcript(sid, turns=2))
    assert [m.turn_number for m in latest.turns] == [4, 5] and latest.next_before == 4
    earlier = run(kit.runner.transcript(sid, before=latest.next_before, turns=3))
    assert [m.turn_number for m in earlier.turns] == [1, 2, 3] and earlier.next_before == 1
    start = run(kit.runner.transcript(sid, before=1, turns=3))
    assert [m.turn_number for m in start.turns] == [0] and start.next_before is None
    ticks = [m.tick for m in (*start.turns, *earlier.turns, *latest.turns)]
    assert ticks[0] == 0 and ticks == sorted(ticks)  # story time only moves forward
    assert all(m.visible >= 1 for m in earlier.turns)
    own = {r.turn_number for r in earlier.data if r.speaker == kit.state(sid).controlled_id}
    assert own == {1, 2, 3}


def test_a_turn_showing_nothing_keeps_its_mark(make_kit: KitFactory) -> None:
    def quiet(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer([])
        if request.agent == "prose":
            return {"narration": ""}
        raise AssertionError(f"unexpected call {request.agent}")

    kit = make_kit(fn=quiet)
    sid = kit.create("the-vintners-wake")
    kit.play(sid, skip=True)
    page = run(kit.runner.transcript(sid))
    assert [(m.turn_number, m.visible) for m in page.turns] == [(0, 0), (1, 0)]


def test_cast_panel_says_who_hears_whom(make_kit: KitFactory) -> None:
    kit = make_kit()
    view = run(kit.runner.create_session("the-vintners-wake"))
    by_slot = {c.slot: c for c in view.cast}
    me = by_slot[view.controlled_id]
    assert me.hears_you is None and me.zone == "hall"
    assert by_slot["C3"].zone == "cellar"  # the cellar is sealed from the hall both ways
    assert by_slot["C3"].hears_you is False and by_slot["C3"].you_hear is False
    assert by_slot["C5"].hears_you is True  # the balcony overhears the hall...
    assert by_slot["C5"].you_hear is False  # ...but the hall does not hear the balcony
    assert by_slot["C2"].hears_you is True and by_slot["C2"].you_hear is True
