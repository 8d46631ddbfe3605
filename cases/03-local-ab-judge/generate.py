"""Regenerate this case's data: the A/B of `plan.toml` on the embedded local model, then the
blind judge on the local model.

    .venv/bin/pip install -e '.[dev,local]' && .venv/bin/tavern model install
    .venv/bin/python cases/03-local-ab-judge/generate.py            # resumes where it stopped

Each (arm, seed) plays the same four inputs on the toll house and is written as a campaign
partition, `data/campaign=ab/arm=ARM/run=rSEED/{journal,history,memory,session}.parquet`;
a partition already there is not played again. Then the screenplays are exported blind
(`data/blind/judge/` for the judge, `data/blind/key/` apart) and every pair of arms of one
seed is judged in both orders by the local model (`data/judgements.jsonl`, the judge's
journal in `data/judge/`), skipping pairs already judged. Hours on two shared cores.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import httpx

from harness.analysis import connect
from harness.analysis_records import BlindItem, BlindPair, Judgement
from harness.blind import BlindSource, export_blind, read_jsonl, session_screenplays
from harness.export import export_partition, partition_dir
from harness.judge import judge_pairs, load_rubric
from tavern.llm.client import LlmClient
from tavern.records import TurnInput
from tavern.records.config import AppConfig, ProviderSettings
from tavern.runner import build_runner
from tavern.runner.factory import default_limits
from tavern.store import JournalWriter, Library, SessionStore

HERE = Path(__file__).parent
ANSWER_TOKENS = {"director": 900, "prose": 700, "character": 600}
"""The soak's answer limits."""
DATA = HERE / "data"
PLAN: dict[str, Any] = tomllib.loads((HERE / "plan.toml").read_text())
INPUTS = [
    TurnInput(speech="Good evening. Is there room by the fire for one more?"),
    TurnInput(action="sets a wet coin on the counting table and waits"),
    TurnInput(speech="Do not trust the man in the blue coat.", whisper_to=["C2"]),
    TurnInput(speech="Who here keeps the ledger, and what is in it?"),
]


def _config(temperature: float, seed: int) -> AppConfig:
    settings = ProviderSettings(
        max_tokens=ANSWER_TOKENS, temperature=temperature, seed=seed, max_attempts=2
    )
    return AppConfig(active_provider="local", providers={"local": settings})


async def play(arm: str, spec: dict[str, Any], seed: int) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix=f"tavern-case03-{arm}-"))
    config = _config(float(spec["temperature"]), seed)
    limits = default_limits(config)
    if spec.get("director_history") is False:
        limits = dataclasses.replace(limits, director_history_tokens=0, director_turns=0)
    store = SessionStore(data_dir)
    runner = build_runner(config=config, library=Library(data_dir), store=store, limits=limits)
    try:
        view = await runner.create_session(PLAN["scenario"])
        for number, turn in enumerate(INPUTS, start=1):
            result = await runner.play_turn(view.id, turn)
            print(f"{arm} r{seed} turn {number}: {len(result.records)} records", flush=True)
    finally:
        await runner.aclose()
    export_partition(data_dir, view.id, DATA, campaign="ab", arm=arm, run=f"r{seed}", store=store)
    store.close()


def _setting(arm: str) -> str:
    return f"temperature {PLAN['arms'][arm]['temperature']}"


async def judge() -> None:
    con = connect(str(DATA / "campaign=ab" / "**" / "journal.parquet"), sweep=False)
    texts = session_screenplays(con)
    runs = con.execute("SELECT DISTINCT session_id, arm, run FROM sessions ORDER BY ALL").fetchall()
    sources = [
        BlindSource(session_id=sid, arm=arm, text=texts[sid], script=PLAN["script"],
                    repeat=int(run[1:]), secrets=(run, _setting(arm)))
        for sid, arm, run in runs
    ]  # fmt: skip
    blind = DATA / "blind"
    if not (blind / "judge" / "pairs.jsonl").exists():
        export_blind(sources, blind, seed=44)
    items = read_jsonl(blind / "judge" / "items.jsonl", BlindItem)
    pairs = read_jsonl(blind / "judge" / "pairs.jsonl", BlindPair)
    out = DATA / "judgements.jsonl"
    done = (
        [Judgement.model_validate_json(x) for x in out.read_text().splitlines()]
        if out.exists()
        else []
    )
    spec = PLAN["judge"]
    config = _config(float(spec["temperature"]), int(spec["seed"]))
    writer = JournalWriter(DATA / "judge")
    async with httpx.AsyncClient(timeout=None) as http:
        client = LlmClient.from_config(
            config, http, sink=lambda line: writer.append(line.session_id, line)
        )
        with out.open("a", encoding="utf-8") as handle:

            def record(judgement: Judgement) -> None:
                handle.write(judgement.model_dump_json() + "\n")
                handle.flush()
                print(
                    f"judged {judgement.pair_id} order {judgement.order}: {judgement.preferred}",
                    flush=True,
                )

            await judge_pairs(
                client, load_rubric(spec["rubric"]), items, pairs, session_id="judge-ab",
                judge="local/qwen2.5-coder-0.5b-instruct", done=done, record=record,
            )  # fmt: skip


def main() -> None:
    for seed in PLAN["seeds"]:
        for arm, spec in PLAN["arms"].items():
            if (partition_dir(DATA, "ab", arm, f"r{seed}") / "session.parquet").exists():
                continue
            asyncio.run(play(arm, spec, seed))
    asyncio.run(judge())
    print("done", file=sys.stderr)


if __name__ == "__main__":
    main()
