"""A sentence repeating a run of a tone directive is neither an event nor narration
(`physics.directive_copy`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.physics import clamps as clamps_module
from tavern.physics import directive_copy
from tavern.physics.acts import sentence_spans
from tavern.physics.clamps import ClampContext, clamp_decision
from tavern.physics.directive_copy import copies_a_directive, directive_runs
from tavern.records import NARRATOR, DirectorDecision, PerceptionEvent, Scene
from tavern.store import Library

from .kit import KitFactory, events_committed, narrated_once, without_filters

SECRETS = "Reveal secrets through action and slips, never through confession on demand."
LIVE = (
    "This is an unspoken attempt to read the will in the notary's satchel and reveal secrets"
    " through action and slips."
)
"""Vintners-wake #55 (seed 71), turn 2: the second sentence of the Director's event for the
human's walk to the window; the renderer narrated it again."""
SATCHEL = "The will is in the notary's satchel."


def _directives(scenario: str) -> list[str]:
    return Library(Path("/nonexistent")).get_scenario(scenario).tone_directives


DIRECTIVES = _directives("the-vintners-wake") + _directives("the-toll-house")
RUNS = directive_runs(tuple(DIRECTIVES))


def test_the_builtin_directive_is_the_live_one() -> None:
    assert SECRETS in _directives("the-vintners-wake")


@pytest.mark.parametrize(
    "text",
    [
        LIVE,
        "What is said in one place may be overheard.",
        "Keep descriptions concrete: rain, rope, coin.",
    ],
)
def test_a_run_of_a_directive_is_a_copy(text: str) -> None:
    assert copies_a_directive(text, RUNS)


@pytest.mark.parametrize(
    "text",
    [
        "Rain, rope and coin lie on the counting table.",
        "Brother Caspar reveals a secret through a slip of the tongue.",
        "Candles gutter; wax drips on the wine.",
        "No one moves.",
        "Let rooms matter, Agnese Corvo thinks.",  # four words in a row: too few to tell
        "No one is a villain here.",  # five: a story may say it
    ],
)
def test_sentences_of_the_story_stay(text: str) -> None:
    assert not copies_a_directive(text, RUNS)


def test_the_copied_sentence_goes_and_the_rest_of_its_event_stays() -> None:
    events = [
        PerceptionEvent(kind="world_event", text=f"{SATCHEL} {LIVE}", witness_ids=["C1"]),
        PerceptionEvent(kind="world_event", text=LIVE, witness_ids=["C1"]),
    ]
    ctx = ClampContext(scene=Scene(location="x", present=["C1"]), directives=[SECRETS])
    out, changes = clamp_decision(DirectorDecision(events=events, next_speakers=[NARRATOR]), ctx)
    assert [e.text for e in out.events] == [SATCHEL]
    assert {c.rule for c in changes} == {directive_copy.RULE}
    assert clamp_decision(out, ctx) == (out, [])


EVENT = {
    "kind": "world_event", "text": f"Candles gutter. {LIVE}", "actor_id": None,
    "witness_ids": ["C1", "C2", "C4", "C5"], "utterance_ref": None,
}  # fmt: skip


def _events(make_kit: KitFactory) -> list[str]:
    return events_committed(make_kit, [EVENT])


def test_the_live_event_sentence_is_not_committed(make_kit: KitFactory) -> None:
    assert _events(make_kit) == ["Candles gutter."]


def test_negative_control_without_the_rule_it_is_witnessed(
    make_kit: KitFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = [(n, r) for n, r in clamps_module.CLAMP_RULES if n != directive_copy.RULE]
    monkeypatch.setattr(clamps_module, "CLAMP_RULES", without)
    assert _events(make_kit) == [f"Candles gutter. {LIVE}"]


NARRATED = "This is an unspoken attempt to reveal secrets through action and slips."
"""The same beat's narration, second sentence."""


def test_the_live_narration_sentence_is_not_narrated(tmp_path: Path) -> None:
    told = narrated_once(tmp_path, f"Candles gutter. {NARRATED}", "the-vintners-wake")
    assert told == ["Candles gutter."]


def test_negative_control_without_the_cut_it_is_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_filters(monkeypatch, "prompt_copy")
    told = narrated_once(tmp_path, f"Candles gutter. {NARRATED}", "the-vintners-wake")
    assert told == [f"Candles gutter. {NARRATED}"]


_SENTENCE = st.sampled_from(
    [LIVE, SATCHEL, NARRATED, "Rain.", "Keep descriptions concrete: rain, rope, coin, ink.",
     "The lamp gutters", "Rain, rope and coin."]
)  # fmt: skip


@given(st.lists(_SENTENCE, max_size=6), st.sampled_from([" ", "  ", "\n"]))
def test_what_stays_holds_no_directive_run_and_only_sentences_of_the_text(
    sentences: list[str], gap: str
) -> None:
    text = gap.join(sentences)
    kept = directive_copy.without_directive_copies(text, DIRECTIVES)
    for a, b in sentence_spans(kept):
        assert not copies_a_directive(kept[a:b], RUNS)
        assert kept[a:b].strip() in text
    assert directive_copy.without_directive_copies(kept, DIRECTIVES) == kept
