"""The filter layer inside real turns: what a turn commits, what its commit line journals,
the profiles, the session's language, and the narration's early stop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tavern.agents import prose
from tavern.filters.loop import repeats_a_sentence
from tavern.llm.provider import ProviderRequest
from tavern.records import CommitLine, LlmCallLine, NarrationRecord, SpeechRecord, TurnInput
from tavern.records.config import AppConfig, FilterProfile, ProviderSettings
from tavern.runner.factory import build_runner
from tavern.runner.limits import KernelLimits
from tavern.runner.service import Runner
from tavern.store import Library, SessionStore, journal_path, read_journal
from tavern.text import lexicon_for

from .kit import director_answer, recording_runner, run

MARKER = "Teodor Vask makes an attempt. The lamp dies."
"""Toll-house soaks #3 and #4: the transcript's attempt marker narrated as prose."""
REFUSAL = {"speech": "I'm sorry, but I can't assist with that.", "thought": "Hm."}
"""The soak of the-toll-house, turn 10: a Character answering as an assistant."""


def _answers(narration: str, reply: dict[str, Any]) -> Any:
    def answer(request: ProviderRequest) -> Any:
        if request.agent == "director":
            return director_answer(["C2"])
        if request.agent == "prose":
            return {"narration": narration}
        if request.agent.startswith("character"):
            return {"speech": None, "thought": None, "action_intent": None} | reply
        return {"outcome": "Nothing comes of it."}

    return answer


def _turn(
    tmp_path: Path,
    narration: str = MARKER,
    reply: dict[str, Any] = REFUSAL,
    *,
    scenario: str = "the-toll-house",
    session_profile: FilterProfile | None = None,
    runner_profile: FilterProfile = "small_local",
) -> tuple[list[Any], CommitLine, list[LlmCallLine]]:
    runner, store, calls = recording_runner(tmp_path, _answers(narration, reply), KernelLimits())
    runner.filter_profile = runner_profile
    sid = run(runner.create_session(scenario, "C1", filter_profile=session_profile)).id
    run(runner.play_turn(sid, TurnInput(speech="Well?")))
    commits = [x for x in read_journal(journal_path(tmp_path, sid)) if isinstance(x, CommitLine)]
    return list(store.history(sid)), commits[-1], calls


def _narration(records: list[Any]) -> list[str]:
    return [r.text for r in records if isinstance(r, NarrationRecord)]


def _said(records: list[Any], slot: str) -> list[str]:
    return [r.text for r in records if isinstance(r, SpeechRecord) and r.speaker == slot]


def test_a_cut_is_committed_and_journaled_with_its_rule_target_and_language(
    tmp_path: Path,
) -> None:
    records, commit, _ = _turn(tmp_path)
    assert _narration(records) == ["The lamp dies."]
    assert _said(records, "C2") == []
    cuts = {(c.rule, c.target, c.language, c.before, c.after) for c in commit.filter_cuts}
    assert ("prompt_copy", "narration", "en", MARKER, "The lamp dies.") in cuts
    assert ("out_of_world", "reply:C2.speech", "en", REFUSAL["speech"], "") in cuts
    assert commit.filter_profile == "small_local" and commit.filter_skipped == []


def test_negative_control_a_session_under_profile_off_commits_what_the_models_wrote(
    tmp_path: Path,
) -> None:
    records, commit, _ = _turn(tmp_path, session_profile="off")
    assert _narration(records) == [MARKER]
    assert _said(records, "C2") == [REFUSAL["speech"]]
    assert commit.filter_cuts == [] and commit.filter_profile == "off"


def test_the_sessions_profile_wins_over_the_runners(tmp_path: Path) -> None:
    _, commit, _ = _turn(tmp_path, session_profile="small_local", runner_profile="off")
    assert commit.filter_profile == "small_local" and commit.filter_cuts


def test_profile_minimal_guards_the_fiction_and_leaves_repetition(tmp_path: Path) -> None:
    looping = "Rain falls on the roof all night. Rain falls on the roof all night."
    records, commit, _ = _turn(tmp_path, looping, runner_profile="minimal")
    assert _narration(records) == [looping]
    assert _said(records, "C2") == []  # the assistant's words go under every profile but off
    assert {c.rule for c in commit.filter_cuts} == {"out_of_world"}


def test_the_provider_picks_the_profile(tmp_path: Path) -> None:
    assert AppConfig(active_provider="local").filter_profile_for() == "small_local"
    assert AppConfig(active_provider="deepseek").filter_profile_for() == "minimal"
    own = ProviderSettings(filter_profile="off")
    config = AppConfig(active_provider="fake", providers={"fake": own})
    runner = build_runner(config=config, library=Library(tmp_path), store=SessionStore(tmp_path))
    assert runner.filter_profile == "off"
    run(runner.aclose())


@pytest.fixture
def portuguese(tmp_path: Path) -> str:
    """A copy of the toll house whose response language is Brazilian Portuguese."""
    library = Library(tmp_path)
    scenario = library.get_scenario("the-toll-house").model_copy(
        update={"id": "a-casa-do-pedagio", "language": "pt-BR"}
    )
    library.put_scenario(scenario)
    return scenario.id


def test_a_portuguese_narration_is_read_in_its_language(tmp_path: Path, portuguese: str) -> None:
    narration = "Maren Holt vê a chuva. Teodor Vask abre a caixa."
    records, commit, _ = _turn(tmp_path, narration, {"speech": "Boa noite."}, scenario=portuguese)
    assert _narration(records) == ["Maren Holt vê a chuva."]
    assert [(c.rule, c.language) for c in commit.filter_cuts] == [("unconfirmed_act", "pt-BR")]


FACTS = (
    "The trapdoor to the cellar is shut and bolted from the hall side. The will is in the "
    "notary's satchel. The coffin lies open in the middle of the hall. "
)
CYCLE = "In the long hall, the air is cold. " + FACTS * 8


def _loop_turn(tmp_path: Path) -> tuple[list[str], list[LlmCallLine]]:
    records, _, calls = _turn(
        tmp_path,
        CYCLE[: prose.NARRATION_MAX_CHARS],
        {"speech": "Hm."},
        scenario="the-vintners-wake",
    )
    return _narration(records), [c for c in calls if c.agent == "prose"]


def test_a_looping_narration_stops_at_its_first_repeat(tmp_path: Path) -> None:
    """The fake streams its answer word by word, as a server would (`llm.early_stop`); the
    facts the loop repeats are a list the rule `retold` cuts as well."""
    narration, calls = _loop_turn(tmp_path)
    assert narration == ["In the long hall, the air is cold."]
    assert [(c.stopped_early, (c.response or "").count("The trapdoor")) for c in calls] == [
        (True, 2)
    ]
    said = json.loads(calls[0].response or "{}")["narration"]
    assert CYCLE.startswith(said) and repeats_a_sentence(said, lexicon_for("en"))


def test_negative_control_without_the_stop_the_loop_runs_to_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prose, "runaway", lambda answer_so_far, language="en": False)
    narration, calls = _loop_turn(tmp_path)
    assert narration == ["In the long hall, the air is cold."]  # cut all the same, later
    assert [(c.stopped_early, (c.response or "").count("The trapdoor")) for c in calls] == [
        (False, 8)
    ]


def test_the_runner_defaults_to_small_local(tmp_path: Path) -> None:
    runner, _, _ = recording_runner(tmp_path, _answers("Rain.", {}), KernelLimits())
    assert isinstance(runner, Runner) and runner.filter_profile == "small_local"
