"""The precision bar on the clean corpus: no clamp rule changes more than `MAX_FP_RATE` of the
clean Director events of a language it declares (`benchmarks.clamps fp` prints the figures).
The boundary guards are held to a looser bound instead: they are never deleted, and what they
mask is the boundary's cost (world events with no witness that name what a sealed room never
perceived). Negative control: a planted rule that drops every event naming the rain is over
the bar."""

from __future__ import annotations

from dataclasses import replace

import pytest

import tavern.physics.clamps as clamps_module
from benchmarks.clamps import BOUNDARY_GUARDS, MAX_FP_RATE, clean_beats, false_positives
from tavern.physics.clamps import CLAMP_RULES, ClampContext, ClampRule
from tavern.physics.dropping import drop_events
from tavern.records import ClampChange, DirectorDecision
from tavern.text import LANGUAGES

CORPUS = clean_beats()


def test_each_language_has_several_hundred_clean_events() -> None:
    assert set(CORPUS) == set(LANGUAGES)
    for beats in CORPUS.values():
        assert sum(len(b.decision.events) for b in beats) >= 300


@pytest.mark.parametrize("language", sorted(CORPUS))
def test_every_rule_meets_the_precision_bar(language: str) -> None:
    rates = {
        name: changed / seen
        for name, (changed, seen, _) in false_positives(CORPUS[language]).items()
    }
    assert set(rates) == {rule.name for rule in CLAMP_RULES}
    assert {
        name: rate
        for name, rate in rates.items()
        if rate > (0.06 if name in BOUNDARY_GUARDS else MAX_FP_RATE)
    } == {}


def _rainless(d: DirectorDecision, ctx: ClampContext) -> tuple[DirectorDecision, list[ClampChange]]:
    return drop_events(d, "planted", lambda ev: "rain" in ev.text.lower() or "chuva" in ev.text)


def test_negative_control_an_over_eager_rule_is_over_the_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        clamps_module, "CLAMP_RULES", [*CLAMP_RULES, ClampRule("planted", _rainless)]
    )
    for beats in CORPUS.values():
        changed, seen, _ = false_positives(beats)["planted"]
        assert changed / seen > MAX_FP_RATE


def test_each_language_has_clean_zone_moves_to_known_and_new_zones() -> None:
    """The rules judging moves (`agency_move`, `zone_move`, the guards on a new zone label)
    are measured on moves, not only on events: without them their 0% says nothing."""
    for beats in CORPUS.values():
        moves = [m for b in beats for m in b.decision.zone_moves]
        assert any(m.new_zone_label for m in moves) and any(not m.new_zone_label for m in moves)


def test_negative_control_a_clean_move_whose_attempt_is_gone_is_counted() -> None:
    """The same clean moves with no attempt waiting: `agency_move` drops each, and the
    false-positive count sees it (a change off the events counts once per decision)."""
    for beats in CORPUS.values():
        moving = [b for b in beats if b.decision.zone_moves]
        bare = [replace(b, ctx=replace(b.ctx, history=[], known=None)) for b in moving]
        changed, _, where = false_positives(bare)["agency_move"]
        assert changed == len(moving) and where == [b.id for b in moving]
