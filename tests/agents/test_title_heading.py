"""The session title as a sentence's heading in a narration: the heading goes, the sentence
stays (`agents.prompt_echo.without_title_heading`)."""

from __future__ import annotations

import pytest

from tavern.agents import prompt_echo, prose

TITLE = "The Vintner's Wake"
LIVE = [
    (
        "The Vintner's Wake - The trapdoor to the cellar is closed and bolted from the hall side.",
        "The trapdoor to the cellar is closed and bolted from the hall side.",
    ),
    (
        "The Vintner's Wake - The Chapel bell tolls midnight; by custom the will must now be read"
        " aloud over the coffin. The Vintner's Wake - The will is in the notary's satchel.",
        "The Chapel bell tolls midnight; by custom the will must now be read aloud over the"
        " coffin. The will is in the notary's satchel.",
    ),
    (
        "The Vintner's Wake, the trapdoor to the cellar is shut and bolted from the hall side.",
        "The trapdoor to the cellar is shut and bolted from the hall side.",
    ),
]
"""Vintners-wake soaks #28 (seed 42, turns 4 and 5) and #27 (seed 41, turn 3)."""


@pytest.mark.parametrize(("said", "kept"), LIVE)
def test_the_title_heading_goes_and_its_sentence_stays(said: str, kept: str) -> None:
    assert prose.parse({"narration": said}, title=TITLE) == kept


def test_the_title_inside_a_sentence_stays() -> None:
    said = "Mourners gather for the vintner's wake, candles in hand."
    assert prose.parse({"narration": said}, title=TITLE) == said


def test_negative_control_without_the_heading_rule_the_title_is_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prompt_echo, "without_title_heading", lambda text, title: text)
    assert all(TITLE in prose.parse({"narration": said}, title=TITLE) for said, _ in LIVE)
