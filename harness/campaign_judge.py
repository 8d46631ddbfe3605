"""A campaign's blind judge, run after its runs when the campaign file has a `[judge]`.

Every finished run's screenplay is exported blind (`harness.blind.export_blind`, under
`blind/` of the campaign directory: `judge/` what the judge reads, `key/` what it never
does), every pair of runs of different arms on the same script and repeat is judged in both
orders (`harness.judge.judge_pairs`; each call journaled under `sessions/judge-<campaign>/`),
and the arms are ranked (`harness.ranking`). `blind/report.json` (`JudgeReport`) says
whether the planted degraded arm ranked last and how often the judge kept a position.

Resumable: an export already written is read back (its opaque ids stay), and every answer
already in `blind/judgements.jsonl` is not asked again.

Example::

    report = judge_campaign(directory, plan.campaign, plan.path.parent)
    report.degraded_last, report.flip_rate
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
from pydantic import ValidationError

from harness.analysis import connect
from harness.analysis_records import BlindItem, BlindPair, Judgement, KeyEntry
from harness.blind import BlindSource, export_blind, read_jsonl, session_screenplays
from harness.config import resolve_config
from harness.judge import flip_report, judge_pairs, load_rubric, pair_results, rubric_source
from harness.ranking import games_from_results, rank_arms, ranks_last
from harness.records.campaign import ArmStrength, Campaign, JudgeReport
from harness.results import RESULTS_NAME, read_results
from tavern.llm.client import LlmClient
from tavern.llm.provider import Provider
from tavern.llm.registry import build_provider, secret_values
from tavern.store import JournalWriter, write_atomic

BLIND_NAME = "blind"
REPORT_NAME = "report.json"
JUDGEMENTS_NAME = "judgements.jsonl"


def _blind_export(
    directory: Path, seed: int
) -> tuple[list[BlindItem], list[BlindPair], list[KeyEntry]]:
    """The campaign's blind export: read back when complete (the key is written last), else
    written from the finished runs' screenplays."""
    blind = directory / BLIND_NAME
    key_path = blind / "key" / "key.jsonl"
    if key_path.exists():
        return (
            read_jsonl(blind / "judge" / "items.jsonl", BlindItem),
            read_jsonl(blind / "judge" / "pairs.jsonl", BlindPair),
            read_jsonl(key_path, KeyEntry),
        )
    runs = sorted(read_results(directory / RESULTS_NAME).runs, key=lambda r: r.run_id)
    with connect(directory) as con:
        texts = session_screenplays(con)
    sources = [
        BlindSource(r.session_id, r.arm or "none", texts.get(r.session_id, ""), r.script,
                    r.repeat, secrets=(r.run_id, r.config_sha256))
        for r in runs
    ]  # fmt: skip
    export = export_blind(sources, blind, seed=seed)
    return export.items, export.pairs, export.key


def _done(path: Path) -> list[Judgement]:
    """Judgements already written; a torn last line (a killed process) is left out."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(Judgement.model_validate_json(line))
        except ValidationError:
            continue
    return out


def judge_campaign(
    directory: Path, campaign: Campaign, base: Path, *, provider: Provider | None = None
) -> JudgeReport:
    """Judge a campaign directory's finished runs blind; write and return its report.

    Args:
        directory: The campaign directory.
        campaign: The campaign (its `judge` section is required).
        base: The campaign file's folder (a rubric path is relative to it).
        provider: The judge's provider (default: built from `judge.config`); tests pass a
            scripted fake.

    Raises:
        ValueError: the campaign has no `[judge]` section.
        KeyLeak: an identifying string of the key in a judge's input (nothing is asked).
    """
    section = campaign.judge
    if section is None:
        raise ValueError("the campaign has no [judge] section")
    assert campaign.name is not None  # set from the file's stem by the loader
    rubric = load_rubric(rubric_source(section.rubric, base))
    resolved = resolve_config(section.config, "en")
    items, pairs, key = _blind_export(directory, section.seed)
    blind = directory / BLIND_NAME
    judgements_path = blind / JUDGEMENTS_NAME
    done = _done(judgements_path)
    journal = JournalWriter(directory)
    name = f"{resolved.provider}/{resolved.model}"

    def record(judgement: Judgement) -> None:
        with judgements_path.open("a", encoding="utf-8") as handle:
            handle.write(judgement.model_dump_json() + "\n")

    async def ask() -> list[Judgement]:
        async with httpx.AsyncClient(timeout=None) as http:
            client = LlmClient(
                provider or build_provider(resolved.config, http),
                sink=lambda line: journal.append(line.session_id, line),
                secrets=secret_values(resolved.config),
            )
            return await judge_pairs(
                client, rubric, items, pairs, session_id=f"judge-{campaign.name}"[:64],
                judge=name, done=done, record=record, key=key,
            )  # fmt: skip

    judgements_path.parent.mkdir(parents=True, exist_ok=True)
    # Rewrite what survived (a torn tail cut) before appending.
    judgements_path.write_text("".join(j.model_dump_json() + "\n" for j in done), "utf-8")
    judgements = asyncio.run(ask())
    degraded = next(arm.name for arm in campaign.arms if arm.degraded)
    games = games_from_results(pair_results(judgements), key)
    ranking = rank_arms(games, resamples=section.resamples, seed=section.seed) if games else None
    flips = flip_report(judgements)
    report = JudgeReport(
        campaign=campaign.name,
        judge=name,
        rubric=rubric.label,
        items=len(items),
        pairs=flips.pairs,
        decided=flips.decided,
        flips=flips.flips,
        flip_rate=flips.flip_rate,
        flagged=flips.flagged,
        first_share=flips.first_share,
        abstentions=flips.abstentions,
        degraded=degraded,
        degraded_last=ranking is not None and ranks_last(ranking, degraded),
        ranking=_strengths(ranking),
    )
    write_atomic(blind / REPORT_NAME, report.model_dump_json(indent=2).encode())
    return report


def _strengths(ranking: pd.DataFrame | None) -> list[ArmStrength]:
    if ranking is None:
        return []
    rows: list[dict[Any, Any]] = ranking.to_dict("records")
    return [
        ArmStrength(
            arm=str(row["arm"]),
            strength=float(row["strength"]),
            low=_finite(row["low"]),
            high=_finite(row["high"]),
            rank=int(row["rank"]),
            games=int(row["games"]),
        )  # fmt: skip
        for row in rows
    ]


def _finite(value: float) -> float | None:
    number = float(value)
    return None if math.isnan(number) else number


def report_line(report: JudgeReport) -> str:
    """One line for the terminal.

    >>> r = JudgeReport(campaign="c", judge="fake/fake", rubric="story-quality@1", items=4,
    ...     pairs=2, decided=2, flips=0, flip_rate=0.0, flagged=False, first_share=0.5,
    ...     abstentions=0, degraded="blind", degraded_last=True, ranking=[])
    >>> report_line(r)
    'judge fake/fake: 2 pairs, flip rate 0.00, 0 abstentions; degraded arm blind ranked last: yes'
    """
    rate = "n/a" if report.flip_rate is None else f"{report.flip_rate:.2f}"
    flagged = " (FLAGGED: position-biased)" if report.flagged else ""
    last = "yes" if report.degraded_last else "NO"
    return (
        f"judge {report.judge}: {report.pairs} pairs, flip rate {rate}{flagged}, "
        f"{report.abstentions} abstentions; degraded arm {report.degraded} ranked last: {last}"
    )
