"""A soak: play a scripted, varied session of a scenario and report what went wrong.

    python -m harness.soak the-vintners-wake --turns 12            # the embedded model
    python -m harness.soak the-toll-house --provider fake --turns 3

The fake provider cannot show how a real model misbehaves: the defects that made it into
the kernel's clamps and guards (names written where ids belong, narration looping to its cap,
characters echoing the human, prompts outgrowing the context) were each found by a soak on
the embedded model. The script cycles through every kind of input: speech, action, a
thought alone, a skip, speech with an action, a whisper, a question. Each turn prints what the
human's screen shows; the end prints every model call by role and outcome, every failed
attempt from the journal, and what the story did for the human (`harness.soak_report`: its
attempts with an outcome, its questions answered, Character replies that made it into the
story) with the clamps' changes by rule. The session stays in the data dir for `harness.analysis`.

Exit status: 0 when every turn committed, 1 when one failed, 2 for bad arguments (nothing
written).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from harness.soak_report import clamp_counts, story_counts
from tavern.llm.registry import provider_names
from tavern.records import HistoryRecord, JournalLine, LlmCallLine, TurnInput
from tavern.records.config import AppConfig, ProviderSettings
from tavern.records.views import SessionView
from tavern.runner import OwnedRunner, RunnerError, build_runner
from tavern.store import Library, SessionStore, journal_path, read_journal
from tavern.store.library import builtin_scenario_ids

ANSWER_TOKENS = {"director": 900, "prose": 700, "character": 600}
"""Per-role answer limits: those the soaks that found the kernel's live defects used."""


def script(whisper_to: str) -> list[TurnInput]:
    """The inputs a soak cycles through (every kind of turn, in a natural order)."""
    return [
        TurnInput(speech="Good evening to you all. What brings everyone here tonight?"),
        TurnInput(action="walks slowly to the nearest window and looks outside"),
        TurnInput(thought="Someone here is lying to me."),
        TurnInput(skip=True),
        TurnInput(speech="I think we should open it now.", action="reaches for the door"),
        TurnInput(speech="Keep your voice down.", whisper_to=[whisper_to]),
        TurnInput(skip=True),
        TurnInput(speech="Who are you, exactly?"),
        TurnInput(action="sits down by the fire"),
        TurnInput(speech="Let's get on with it."),
    ]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m harness.soak", description=__doc__)
    parser.add_argument("scenario", help="scenario id, e.g. the-vintners-wake")
    parser.add_argument("--turns", type=int, default=12, help="turns to play (default 12)")
    parser.add_argument("--provider", default="local", help="provider name (default local)")
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--data-dir", type=Path, help="session data dir (default: a temp dir)")
    return parser


def _config(args: argparse.Namespace) -> AppConfig:
    settings = ProviderSettings(
        max_tokens=ANSWER_TOKENS, temperature=args.temperature, seed=args.seed, max_attempts=2
    )
    return AppConfig(active_provider=args.provider, providers={args.provider: settings})


async def _play(runner: OwnedRunner, args: argparse.Namespace, out: TextIO) -> tuple[str, int]:
    """Play the soak; returns the session id and the number of failed turns."""
    view: SessionView = await runner.create_session(args.scenario)
    names = {member.slot: member.name for member in view.cast}
    others = [m.slot for m in view.cast if m.slot != view.controlled_id]
    inputs = script(others[0] if others else view.controlled_id)
    print(f"session {view.id}: {view.title}, playing {names[view.controlled_id]}", file=out)
    for warning in view.warnings:
        print(f"  warning: {warning.rule} in {warning.where}: {warning.excerpt}", file=out)
    failed = 0
    for number in range(1, args.turns + 1):
        started = time.monotonic()
        try:
            result = await runner.play_turn(view.id, inputs[(number - 1) % len(inputs)])
        except RunnerError as exc:
            failed += 1
            seconds = time.monotonic() - started
            print(f"turn {number}: FAILED after {seconds:.0f} s: {exc}", file=out, flush=True)
            continue
        seconds = time.monotonic() - started
        after = f", your move as {names[view.controlled_id]}" if result.control_returned else ""
        print(f"turn {number}: {len(result.records)} records in {seconds:.0f} s{after}", file=out)
        for record in result.records:
            text = " ".join(str(getattr(record, "text", "")).split())
            who = names.get(record.speaker, record.speaker)
            print(f"    {record.kind:9s} {who}: {text[:240]}", file=out, flush=True)
    return view.id, failed


def report_calls(calls: Sequence[LlmCallLine], out: TextIO) -> None:
    """Calls by role and outcome, then every failed attempt."""
    outcomes = collections.Counter((c.agent.split(":")[0], c.error_type or "ok") for c in calls)
    print("calls by role and outcome:", file=out)
    for (role, outcome), count in sorted(outcomes.items()):
        print(f"    {role:10s} {outcome:16s} {count}", file=out)
    for call in calls:
        if call.error:
            error = " ".join(call.error.split())[:300]
            print(
                f"  failed: turn {call.turn_number} {call.agent} attempt {call.attempt_number}"
                f" ({call.error_type}): {error}",
                file=out,
            )


def report_story(
    history: Sequence[HistoryRecord], lines: Sequence[JournalLine], controlled: str, out: TextIO
) -> None:
    """What the story did for the human (`soak_report.story_counts`), and the clamps the
    Director kept busy."""
    print("story:", file=out)
    for line in story_counts(history, lines, controlled).lines():
        print(line, file=out)
    clamps = ", ".join(f"{rule} {n}" for rule, n in sorted(clamp_counts(lines).items()))
    print(f"    clamp changes: {clamps or 'none'}", file=out)


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    """Run a soak from command-line arguments; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.turns < 1:
        parser.error("--turns must be at least 1")
    if args.provider not in provider_names():
        parser.error(f"unknown provider {args.provider!r}; known: {provider_names()}")
    if args.data_dir is not None and args.data_dir.exists() and not args.data_dir.is_dir():
        parser.error(f"--data-dir {args.data_dir} is not a directory")
    if args.data_dir is None:
        known = builtin_scenario_ids()
    else:  # reading the library writes nothing
        known = [s.id for s in Library(args.data_dir).list_scenarios()]
    if args.scenario not in known:
        parser.error(f"no scenario {args.scenario!r}; known: {known}")
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="tavern-soak-"))
    library = Library(data_dir)
    store = SessionStore(data_dir)
    runner = build_runner(config=_config(args), library=library, store=store)

    async def run() -> tuple[str, int]:
        try:
            return await _play(runner, args, out)
        finally:
            await runner.aclose()

    try:
        session_id, failed = asyncio.run(run())
        history = store.history(session_id)
        controlled = store.load(session_id).controlled_id
    finally:
        store.close()
    lines = read_journal(journal_path(data_dir, session_id))
    report_calls([line for line in lines if isinstance(line, LlmCallLine)], out)
    report_story(history, lines, controlled, out)
    print(f"{args.turns - failed} of {args.turns} turns committed; data dir {data_dir}", file=out)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
