"""Narration turns no standing thing over that no event did (filter rule `state_flip`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .kit import narrated_once, without_filters

RAIN = "Rain drips from the shutters."
LIVE = "The toll box is now open, and the lamp is on a hook."
"""Toll-house #53 (seed 67), turn 3: the renderer's sentence; no event had opened the box."""


def _narrated(tmp_path: Path, narration: str) -> list[str]:
    return narrated_once(tmp_path, narration)


def test_the_live_open_box_is_not_narrated(tmp_path: Path) -> None:
    assert _narrated(tmp_path, f"{RAIN} {LIVE}") == [RAIN]


def test_negative_control_without_the_rule_the_open_box_is_narrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_filters(monkeypatch, "state_flip")
    assert _narrated(tmp_path, f"{RAIN} {LIVE}") == [f"{RAIN} {LIVE}"]
