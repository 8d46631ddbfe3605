"""Tone directives copied into events (clamp `directive_copy`, `physics.copied`) and into
narration (`without_directive_copies`) go; the clamp's cases are rows of its case table."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import strategies as st

from tavern.physics import clamps as clamps_module
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


def test_the_builtin_directive_is_the_live_one() -> None:
    assert SECRETS in _directives("the-vintners-wake")


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
    without = [r for r in clamps_module.CLAMP_RULES if r.name != "directive_copy"]
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
