"""A campaign's `[judge]`: validated at load, run after the runs (blind export, both orders,
journaled), its report saying whether the planted degraded arm ranked last; negative
controls: a judge preferring the degraded arm, and one that always picks the first position."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.analysis_records import BlindItem, KeyEntry
from harness.blind import read_jsonl
from harness.campaign import campaign_status, plan_campaign, run_campaign
from harness.campaign_judge import judge_campaign
from harness.cli import main
from harness.loading import InputError
from harness.records.campaign import JudgeReport
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import ProviderRequest
from tavern.records import LlmCallLine
from tavern.store import journal_path, read_journal

SCRIPT = {
    "schema_version": 1,
    "id": "tiny",
    "title": "two turns",
    "scenario": "the-toll-house",
    "events": [
        {"kind": "turn", "speech": "Good evening, all.", "force_speaker": "C2"},
        {"kind": "turn", "speech": "Who keeps this house?", "force_speaker": "C3"},
    ],
}
CAMPAIGN = """
scripts = ["tiny.json"]
repeats = 3
seeds = [1, 2, 3]

[[arms]]
name = "parrot"
config = { provider = "fake" }

[[arms]]
name = "hostile"
degraded = true
config = { provider = "fake", options = { mode = "adversary" } }

[preregistration]
metrics = ["calls_per_run"]
primary_metric = "calls_per_run"
control = "parrot"
treatment = "hostile"
better = "lower"
decision_rule = "fewer calls is better"

[judge]
rubric = "story-quality"
config = { provider = "fake" }
resamples = 50
"""


def _campaign(folder: Path, text: str = CAMPAIGN) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny.json").write_text(json.dumps(SCRIPT))
    path = folder / "judged.toml"
    path.write_text(text)
    return path


def _excerpts(request: ProviderRequest) -> tuple[str, str]:
    user = request.messages[-1].content
    first = user.split("## First excerpt\n", 1)[1].split("\n\n## Second excerpt", 1)[0]
    second = user.split("## Second excerpt\n", 1)[1].split("\n\nWhich excerpt", 1)[0]
    return first, second


def _arm_judge(out: Path, *, prefer_degraded: bool) -> FakeProvider:
    """A scripted judge that tells the degraded arm's screenplays apart by their text (the
    test reads the key to build it; the judge's input holds no key)."""

    def arm_of(text: str) -> str | None:
        items = read_jsonl(out / "blind" / "judge" / "items.jsonl", BlindItem)
        key = {k.item_id: k.arm for k in read_jsonl(out / "blind" / "key" / "key.jsonl", KeyEntry)}
        arms = {key[i.item_id] for i in items if i.text == text}
        return arms.pop() if len(arms) == 1 else None

    def fn(request: ProviderRequest) -> dict[str, Any]:
        first, second = (arm_of(t) for t in _excerpts(request))
        if first == second or None in (first, second):
            return {"reason": "same", "preferred": "tie"}
        first_degraded = first == "hostile"
        choice = "first" if first_degraded == prefer_degraded else "second"
        return {"reason": "arm", "preferred": choice}

    return FakeProvider("function", fn=fn)


def test_campaign_run_judges_blind_after_its_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _campaign(tmp_path / "exp")
    out = tmp_path / "out"
    assert main(["campaign", "run", str(path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    report = JudgeReport.model_validate_json((out / "blind" / "report.json").read_bytes())
    assert (report.items, report.pairs, report.degraded) == (6, 3, "hostile")
    assert "judge fake/" in printed and "degraded arm hostile ranked last" in printed
    judgements = (out / "blind" / "judgements.jsonl").read_text().splitlines()
    assert len(judgements) == 2 * report.pairs  # both orders
    calls = [
        line
        for line in read_journal(journal_path(out, "judge-judged"))
        if isinstance(line, LlmCallLine)
    ]
    assert {c.agent for c in calls} == {"judge"} and len(calls) >= len(judgements)
    for name in ("items.jsonl", "pairs.jsonl"):  # what the judge reads names no arm
        text = (out / "blind" / "judge" / name).read_text()
        assert "hostile" not in text and "parrot" not in text
    assert "ranked last" in "\n".join(campaign_status(plan_campaign(path), out))
    # Judged again (a resume): nothing is asked twice.
    before = len(calls)
    judge_campaign(out, plan_campaign(path).campaign, path.parent)
    again = [x for x in read_journal(journal_path(out, "judge-judged")) if x.kind == "llm_call"]
    assert len(again) == before


def test_a_judge_telling_the_arms_apart_ranks_the_degraded_arm_last(tmp_path: Path) -> None:
    plan = plan_campaign(_campaign(tmp_path / "exp"))
    out = tmp_path / "out"
    judge = _arm_judge(out, prefer_degraded=False)
    assert run_campaign(plan, out, command="run", judge_provider=judge) == 0
    report = JudgeReport.model_validate_json((out / "blind" / "report.json").read_bytes())
    assert report.decided == 3 and report.flips == 0 and not report.flagged
    assert report.degraded_last and [r.arm for r in report.ranking] == ["parrot", "hostile"]


def test_negative_control_a_judge_preferring_the_degraded_arm_is_reported(
    tmp_path: Path,
) -> None:
    plan = plan_campaign(_campaign(tmp_path / "exp"))
    out = tmp_path / "out"
    judge = _arm_judge(out, prefer_degraded=True)
    assert run_campaign(plan, out, command="run", judge_provider=judge) == 0
    report = JudgeReport.model_validate_json((out / "blind" / "report.json").read_bytes())
    assert not report.degraded_last and report.ranking[-1].arm == "parrot"


def test_negative_control_a_first_position_judge_is_flagged(tmp_path: Path) -> None:
    plan = plan_campaign(_campaign(tmp_path / "exp"))
    out = tmp_path / "out"
    first = FakeProvider("function", fn=lambda r: {"reason": "x", "preferred": "first"})
    assert run_campaign(plan, out, command="run", judge_provider=first) == 0
    report = JudgeReport.model_validate_json((out / "blind" / "report.json").read_bytes())
    assert (report.flip_rate, report.flagged, report.degraded_last) == (1.0, True, False)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("degraded = true\n", ""), "exactly one arm with degraded = true"),
        (('rubric = "story-quality"', 'rubric = "no-such-rubric"'), "judge.rubric: expected"),
        (('config = { provider = "fake" }\nresamples', "config = {}\nresamples"),
         "judge.config.provider is required"),
        (('config = { provider = "fake" }\nresamples',
          'config = { provider = "nope" }\nresamples'), "judge.config.provider"),
        (("[judge]", "[not_judge]"), "degraded but no [judge]"),
    ],
)  # fmt: skip
def test_a_bad_judge_section_is_refused_at_load(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    assert edit[0] in CAMPAIGN
    text = CAMPAIGN.replace(*edit)
    if edit[0] == "[judge]":  # drop the whole section
        text = text.split("[not_judge]")[0]
    path = _campaign(tmp_path / "exp", text)
    with pytest.raises(InputError, match=message.replace("[", r"\[")):
        plan_campaign(path)
    assert main(["campaign", "run", str(path), "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()
