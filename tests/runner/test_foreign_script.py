"""Words of a non-Latin script are cut from every answer before any parser reads it
(`runner.foreign_script`, applied by `AgentCaller`); the journal keeps the raw answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tavern.llm.provider import ProviderRequest
from tavern.records import TurnInput
from tavern.runner import calls
from tavern.runner.foreign_script import answer_without_foreign_script, without_foreign_script
from tavern.runner.limits import KernelLimits

from .kit import director_answer, recording_runner, run

LIVE = "Agnese Corvo looks around; the coffin lies open in the中间"
"""Vintners-wake seed 40, rerun at stop 20: the Director's outcome of her look."""


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (LIVE, "Agnese Corvo looks around; the coffin lies open in the"),
        ("中间的棺材 is open。", "is open."),
        ("Он сказал: wait here", ": wait here"),
        ("The lamp gutters，and the hall goes dark！", "The lamp gutters,and the hall goes dark!"),
    ],
)
def test_foreign_words_are_cut(text: str, kept: str) -> None:
    assert without_foreign_script(text) == kept


@pytest.mark.parametrize(
    "text",
    [
        "Ela abre a porta: não há ninguém, só a lâmpada.",
        "Façade, naïve, Zoë, Ægir; 3 coins, 50% off (maybe) 🙂",
        "“Quoted” — with dashes – and ellipses…",
    ],
)
def test_latin_text_with_diacritics_and_symbols_stays(text: str) -> None:
    assert without_foreign_script(text) is text


LATIN = st.characters(
    codec="utf-8", categories=["Lu", "Ll", "Nd", "Po", "Zs", "Sm", "So"], max_codepoint=0x24F
)


@given(st.text(LATIN, max_size=60))
def test_text_below_the_foreign_ranges_is_never_touched(text: str) -> None:
    assert without_foreign_script(text) is text


IDEOGRAPHS = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)


@given(st.text(LATIN, max_size=30), st.text(IDEOGRAPHS, min_size=1, max_size=5))
def test_no_ideograph_survives(latin: str, ideographs: str) -> None:
    cut = without_foreign_script(latin + ideographs + latin)
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in cut)


def test_every_string_of_an_answer_is_cleaned_and_its_keys_kept() -> None:
    answer = {"speech": "Wait中间.", "events": [{"text": "Rain。", "witness_ids": ["C1"]}], "n": 2}
    assert answer_without_foreign_script(answer) == {
        "speech": "Wait.", "events": [{"text": "Rain.", "witness_ids": ["C1"]}], "n": 2,
    }  # fmt: skip


def _director(request: ProviderRequest) -> Any:
    if request.agent == "director":
        event = {"kind": "action_outcome", "text": LIVE, "actor_id": "C1",
                 "witness_ids": ["C1", "C2", "C4"], "utterance_ref": None}  # fmt: skip
        return director_answer([], events=[event])
    return {"narration": "Rain on the shutters."}


def _committed_events(tmp_path: Path) -> tuple[list[str], list[str]]:
    runner, store, lines = recording_runner(tmp_path, _director, KernelLimits())
    sid = run(runner.create_session("the-vintners-wake", "C1")).id
    run(runner.play_turn(sid, TurnInput(action="looks around the chapel")))
    events = [r.text for r in store.history(sid) if r.kind == "event"]
    raw = [line.response or "" for line in lines if line.agent == "director"]
    return events, raw


def test_a_directors_foreign_word_never_reaches_the_history(tmp_path: Path) -> None:
    events, raw = _committed_events(tmp_path)
    # Its clause, left broken off by the cut ("... lies open in the"), goes too (clamp
    # `unfinished_sentence`).
    assert events == ["Agnese Corvo looks around"]
    assert any("中间" in r for r in raw)  # the journal keeps what the model wrote


def test_negative_control_without_the_cut_the_word_is_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(calls, "answer_without_foreign_script", lambda answer: answer)
    events, _ = _committed_events(tmp_path)
    assert events == [LIVE]
