"""The terminal loop: typed lines become turns on the same store and journal as the server."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from tavern.cli.play_cmd import _loop, parse_line
from tavern.records import TurnInput

from .kit import KitFactory, run


def test_parse_line_covers_every_kind_of_move() -> None:
    assert parse_line("hello") == TurnInput(speech="hello")
    assert parse_line("/think hm") == TurnInput(thought="hm")
    assert parse_line("/do opens it") == TurnInput(action="opens it")
    assert parse_line("/whisper C2 psst") == TurnInput(speech="psst", whisper_to=["C2"])
    assert parse_line("/skip the bell") == TurnInput(skip=True, hint="the bell")
    assert parse_line("/force C3") == TurnInput(skip=True, force_speaker="C3")
    assert parse_line("/undo") == "undo" and parse_line("/nonsense") == "help"
    assert parse_line("   ") is None


def test_loop_plays_whispers_thinks_and_undoes(
    make_kit: KitFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    kit = make_kit("parrot")
    lines: Iterator[str] = iter(
        ["Good evening.", "/whisper C2 the ledger is false", "/think he knows", "/undo", "/quit"]
    )
    args = argparse.Namespace(scenario="the-toll-house", slot=None, session=None)
    assert run(_loop(kit.runner, args, lambda _prompt: next(lines))) == 0  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert "You play Ilse Brandt (C1)" in out and "(undone: back to turn 2)" in out
    session = kit.store.list()[0]
    assert session.turn_number == 2
    kinds = [r.kind for r in kit.history(session.id)]
    assert kinds.count("speech") >= 2 and "thought" not in kinds
