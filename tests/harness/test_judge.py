"""The blind judge: what a reader sees, opaque ids with the key apart, both orders, flip rate,
abstentions, Bradley-Terry, human labels; negative controls for a position-biased judge, a
key leak and a degraded arm that must rank last."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.optimize import minimize

from harness.analysis_records import BlindItem, BlindPair, CastEntry, KeyEntry, SessionExport
from harness.blind import BlindSource, KeyLeak, export_blind, read_jsonl, screenplay
from harness.judge import (
    AGENT,
    flip_report,
    judge_pairs,
    load_rubric,
    pair_results,
)
from harness.ranking import (
    agreement,
    bradley_terry,
    games_from_results,
    rank_arms,
    ranks_last,
    read_human_labels,
)
from tavern.llm.client import LlmClient
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import ProviderRequest
from tavern.llm.wrappers import RetryPolicy
from tavern.records import (
    Audience,
    EventRecord,
    LlmCallLine,
    NarrationRecord,
    SpeechRecord,
    ThoughtRecord,
)
from tavern.store import JournalWriter, journal_path, read_journal

SESSION = SessionExport(
    session_id="s20261201-run-7", scenario_id="the-toll-house", title="The Toll House",
    language="en", controlled_id="C1", turn_number=2, tick=2, exported_at=datetime.now(UTC),
    characters=[CastEntry(slot="C1", name="Ilse Brandt", description_ref="the girl"),
                CastEntry(slot="C2", name="Maren Holt", description_ref="the woman"),
                CastEntry(slot="C3", name="Teodor Vask", description_ref="the man")],
)  # fmt: skip
ALL = Audience(origin="public", perceivers=["C1", "C2", "C3"])


def test_screenplay_is_what_the_human_read() -> None:
    records = [
        SpeechRecord(seq=1, turn_number=1, speaker="C1", author="human", text="Evening.",
                     audience=ALL),
        EventRecord(seq=2, turn_number=1, speaker="World", author="director",
                    event_kind="action_outcome", text="C2 sets down the lamp.", audience=ALL),
        SpeechRecord(seq=3, turn_number=1, speaker="C2", author="character", text="The code.",
                     audience=Audience(origin="whisper", perceivers=["C2", "C3"], aware=["C1"])),
        ThoughtRecord(seq=4, turn_number=2, speaker="C3", author="character", text="Run.",
                      audience=Audience(origin="private", perceivers=["C3"])),
        ThoughtRecord(seq=5, turn_number=2, speaker="C1", author="human", text="Odd.",
                      audience=Audience(origin="private", perceivers=["C1"])),
        NarrationRecord(seq=6, turn_number=2, speaker="Narrator", author="renderer",
                        text="Rain.", audience=Audience(origin="public")),
    ]  # fmt: skip
    text = screenplay(records, SESSION)
    assert text.split("\n\n") == [
        "ILSE BRANDT: Evening.",
        "Maren Holt sets down the lamp.",
        "MAREN HOLT (whispering to Teodor Vask): (whispered)",
        "ILSE BRANDT (thinking): Odd.",
        "Rain.",
    ]
    assert not re.search(r"\bC\d\b", text) and SESSION.session_id not in text


def _sources(texts: dict[str, list[str]]) -> list[BlindSource]:
    return [
        BlindSource(session_id=f"s-{arm}-{k}", arm=arm, text=t, script="toll", repeat=k,
                    secrets=(f"cfg-{arm}-hash",))
        for arm, arm_texts in texts.items()
        for k, t in enumerate(arm_texts)
    ]  # fmt: skip


TEXTS = {
    "baseline": ["Maren waits by the hearth. The rain keeps on.", "Ilse pays the toll."],
    "coldtemp": ["Maren nods and counts the coins twice over.", "Ilse sits down."],
    "degraded": ["Rain.", "Rain."],
}


def test_export_writes_opaque_items_and_keeps_the_key_apart(tmp_path: Path) -> None:
    export = export_blind(_sources(TEXTS), tmp_path, seed=3)
    assert sorted(p.name for p in export.judge_dir.iterdir()) == ["items.jsonl", "pairs.jsonl"]
    assert [p.name for p in export.key_dir.iterdir()] == ["key.jsonl"]
    judge_files = "".join(p.read_text() for p in export.judge_dir.iterdir())
    for entry in export.key:
        for secret in (entry.session_id, entry.arm, *entry.secrets):
            assert secret not in judge_files
    assert all(re.fullmatch(r"item-[0-9a-f]{10}", i.item_id) for i in export.items)
    arm = {e.item_id: (e.arm, e.repeat) for e in export.key}
    assert len(export.pairs) == 6  # 3 arm pairs x 2 repeats, never within an arm or repeat
    for pair in export.pairs:
        assert arm[pair.a][0] != arm[pair.b][0] and arm[pair.a][1] == arm[pair.b][1]
    assert read_jsonl(export.judge_dir / "pairs.jsonl", BlindPair) == export.pairs
    again = export_blind(_sources(TEXTS), tmp_path / "again", seed=3)
    assert again.pairs == export.pairs  # seeded


@pytest.mark.parametrize("planted", ["the Degraded Director", "run s-baseline-0 ended",
                                     "built with cfg-coldtemp-hash"])  # fmt: skip
def test_negative_control_a_key_leak_is_refused(tmp_path: Path, planted: str) -> None:
    texts = {arm: list(t) for arm, t in TEXTS.items()}
    texts["baseline"][1] = f"Ilse pays the toll. {planted}."
    with pytest.raises(KeyLeak):
        export_blind(_sources(texts), tmp_path)
    assert not (tmp_path / "judge").exists() and not (tmp_path / "key").exists()


def test_arm_labels_too_short_to_check_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="too short"):
        export_blind(_sources({"a": ["x"], "b": ["y"]}), tmp_path)


# -- the judge ---------------------------------------------------------------------------


def _excerpts(request: ProviderRequest) -> tuple[str, str]:
    user = request.messages[-1].content
    first = user.split("## First excerpt\n", 1)[1].split("\n\n## Second excerpt", 1)[0]
    second = user.split("## Second excerpt\n", 1)[1].split("\n\nWhich excerpt", 1)[0]
    return first, second


def _by_length(first: str, second: str, *, longer: bool) -> str:
    if len(first) == len(second):
        return "tie"
    return "first" if (len(first) > len(second)) == longer else "second"


def longer(request: ProviderRequest) -> dict[str, Any]:
    """A scripted judge that prefers the longer excerpt, whatever its position."""
    first, second = _excerpts(request)
    choice = (
        "tie" if len(first) == len(second) else ("first" if len(first) > len(second) else "second")
    )
    return {"reason": "longer", "preferred": choice}


def shorter(request: ProviderRequest) -> dict[str, Any]:
    first, second = _excerpts(request)
    choice = (
        "tie" if len(first) == len(second) else ("first" if len(first) < len(second) else "second")
    )
    return {"reason": "shorter", "preferred": choice}


def always_first(request: ProviderRequest) -> dict[str, Any]:
    """A judge that reads nothing: it always prefers the first position."""
    return {"reason": "first", "preferred": "first"}


def broken(request: ProviderRequest) -> str:
    return '{"reason": "no choice"}'  # fails the schema every time


def _judge(data_dir: Path, tmp: Path, fn: Any, **kw: Any) -> tuple[list[Any], Any, FakeProvider]:
    export = export_blind(_sources(TEXTS), tmp, seed=1)
    provider = FakeProvider("function", fn=fn)
    writer = JournalWriter(data_dir, durable=False)

    async def no_sleep(_: float) -> None:
        return None

    client = LlmClient(provider, sink=lambda line: writer.append(line.session_id, line),
                       retry=RetryPolicy(max_attempts=2), sleep=no_sleep)  # fmt: skip
    judgements = asyncio.run(
        judge_pairs(client, load_rubric("story-quality"), export.items, export.pairs,
                    session_id="judge-run", judge="fake/function", **kw)
    )  # fmt: skip
    return judgements, export, provider


def test_a_consistent_judge_ranks_the_degraded_arm_last(
    tavern_data_dir: Path, tmp_path: Path
) -> None:
    judgements, export, _ = _judge(tavern_data_dir, tmp_path, longer)
    assert len(judgements) == 2 * len(export.pairs)
    report = flip_report(judgements)
    assert (report.pairs, report.flips, report.flip_rate, report.flagged) == (6, 0, 0.0, False)
    ranking = rank_arms(games_from_results(pair_results(judgements), export.key), resamples=200)
    assert ranks_last(ranking, "degraded")
    row = ranking.set_index("arm").loc["degraded"]
    assert row.low <= row.strength <= row.high
    # Every call is journaled under the judge role.
    lines = read_journal(journal_path(tavern_data_dir, "judge-run"))
    calls = [line for line in lines if isinstance(line, LlmCallLine)]
    assert len(calls) == 12 and {c.agent for c in calls} == {AGENT}


def test_negative_control_degraded_not_last_is_reported(
    tavern_data_dir: Path, tmp_path: Path
) -> None:
    judgements, export, _ = _judge(tavern_data_dir, tmp_path, shorter)
    ranking = rank_arms(games_from_results(pair_results(judgements), export.key), resamples=50)
    assert not ranks_last(ranking, "degraded")


def test_negative_control_a_first_position_judge_is_flagged(
    tavern_data_dir: Path, tmp_path: Path
) -> None:
    judgements, export, _ = _judge(tavern_data_dir, tmp_path, always_first)
    report = flip_report(judgements)
    assert (report.flips, report.flip_rate, report.first_share, report.flagged) == (
        6,
        1.0,
        1.0,
        True,
    )
    results = pair_results(judgements)
    assert {r.outcome for r in results} == {"tie"}  # it made no winner


def test_a_schema_failure_is_retried_then_abstains(tavern_data_dir: Path, tmp_path: Path) -> None:
    judgements, export, provider = _judge(tavern_data_dir, tmp_path, broken)
    assert all(j.abstained and j.preferred is None and j.error_type == "schema" for j in judgements)
    assert len(provider.requests) == 2 * len(judgements)  # each asked twice
    assert flip_report(judgements).abstentions == 12
    assert all(r.outcome is None for r in pair_results(judgements))


def test_a_key_leak_at_judge_time_is_refused_before_any_call(
    tavern_data_dir: Path, tmp_path: Path
) -> None:
    leaky = [KeyEntry(item_id="item-x", session_id="s-other", arm="hearth")]  # planted
    with pytest.raises(KeyLeak):
        _judge(tavern_data_dir, tmp_path, longer, key=leaky)


def test_an_interrupted_run_resumes_without_asking_again(
    tavern_data_dir: Path, tmp_path: Path
) -> None:
    first, export, _ = _judge(tavern_data_dir, tmp_path, longer)
    kept = first[:5]
    rest, _, provider = _judge(tavern_data_dir, tmp_path / "b", longer, done=kept)
    assert len(provider.requests) == len(first) - 5 and len(rest) == len(first)


# -- Bradley-Terry and human labels ------------------------------------------------------


def test_bradley_terry_matches_the_maximum_likelihood() -> None:
    rng = np.random.default_rng(5)
    arms = ["a", "b", "c", "d"]
    truth = {"a": 0.0, "b": 0.7, "c": -0.5, "d": 1.2}
    games = []
    for _ in range(300):
        i, j = rng.choice(4, 2, replace=False)
        p = 1 / (1 + np.exp(truth[arms[j]] - truth[arms[i]]))
        games.append((arms[i], arms[j], float(rng.random() < p)))
    ours = bradley_terry(games, prior=0.0)

    def nll(x: np.ndarray) -> float:
        s = dict(zip(arms, np.append(x, -x.sum()), strict=True))
        return -sum(
            w * np.log(1 / (1 + np.exp(s[j] - s[i])))
            + (1 - w) * np.log(1 / (1 + np.exp(s[i] - s[j])))
            for i, j, w in games
        )

    fitted = minimize(nll, np.zeros(3), method="BFGS").x
    theirs = dict(zip(arms, np.append(fitted, -fitted.sum()), strict=True))
    for arm in arms:
        assert ours[arm] == pytest.approx(theirs[arm], abs=1e-4)


def test_a_prior_keeps_a_sweep_finite() -> None:
    games = [("b", "a", 1.0)] * 4
    fit = bradley_terry(games, prior=1.0)
    assert fit["b"] - fit["a"] == pytest.approx(np.log(4.5 / 0.5))


def test_human_labels_are_scored_the_same_way(tavern_data_dir: Path, tmp_path: Path) -> None:
    judgements, export, _ = _judge(tavern_data_dir, tmp_path, longer)
    rows = ["rater,pair_id,order,preferred"]
    for pair in export.pairs:
        text = {i.item_id: i.text for i in export.items}
        a_longer = len(text[pair.a]) > len(text[pair.b])
        rows.append(f"r1,{pair.pair_id},1,{'first' if a_longer else 'second'}")
        rows.append(f"r1,{pair.pair_id},2,{'second' if a_longer else 'first'}")
    labels = tmp_path / "labels.csv"
    labels.write_text("\n".join(rows) + "\n")
    human = read_human_labels(labels, export.pairs)
    assert agreement(pair_results(human), pair_results(judgements)) == 1.0
    ranking = rank_arms(games_from_results(pair_results(human), export.key), resamples=50)
    assert ranks_last(ranking, "degraded")
    ranked = tmp_path / "ranks.csv"
    order = sorted(export.items, key=lambda i: -len(i.text))
    ranked.write_text("rater,item_id,rank\n" + "".join(
        f"r2,{item.item_id},{k}\n" for k, item in enumerate(order, start=1)))  # fmt: skip
    from_ranks = read_human_labels(ranked, export.pairs)
    assert agreement(pair_results(from_ranks), pair_results(judgements)) == 1.0


def test_judge_prompt_holds_the_rubric_and_both_excerpts() -> None:
    rubric = load_rubric("story-quality")
    from harness.judge import judge_messages

    messages = judge_messages(rubric, "x" * 6000, "short")
    assert "coherence" in messages[0].content and json.dumps("first") in messages[0].content
    assert messages[1].content.count("[... the excerpt goes on]") == 1
    assert BlindItem(item_id="item-1", text="t").item_id == "item-1"
