"""Arguments and printing shared by the subcommands."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from harness.evidence import Evidence, Play
from harness.records.results import ProbeResult, RunResult
from harness.records.script import ConfigOverrides
from harness.run import PlayObserver


def add_override_arguments(parser: argparse.ArgumentParser) -> None:
    """`--provider`, `--model`, `--seed`, `--temperature`, `--option KEY=VALUE`."""
    parser.add_argument("--provider", help="provider (fake, local, llama_cpp, deepseek, ...)")
    parser.add_argument("--model", help="model name")
    parser.add_argument("--api-base", help="endpoint of a llama.cpp-compatible server")
    parser.add_argument("--seed", type=int, help="sampling seed")
    parser.add_argument("--temperature", type=float, help="sampling temperature")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="provider option, e.g. mode=adversary for fake (repeatable; VALUE is JSON or text)",
    )


def overrides_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> ConfigOverrides:
    """The command line's overrides (exits 2 on a malformed `--option`)."""
    options: dict[str, str | int | float | bool] = {}
    for item in args.option:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            parser.error(f"--option {item!r}: expected KEY=VALUE")
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        if not isinstance(value, str | int | float | bool):
            parser.error(f"--option {item!r}: expected a string, number or boolean value")
        options[key] = value
    return ConfigOverrides(
        provider=args.provider,
        model=args.model,
        api_base=args.api_base,
        seed=args.seed,
        temperature=args.temperature,
        options=options,
    )


def print_run(run: RunResult, probes: list[ProbeResult], out: TextIO | None = None) -> None:
    """One line for the run, one per failed probe and per failed turn."""
    out = out or sys.stdout
    failed = f", {len(run.turns_failed)} turns failed" if run.turns_failed else ""
    print(
        f"{run.script} ({run.scenario}, {run.language}, {run.provider}/{run.model}): "
        f"{run.turns_played} turns{failed}, {run.probes_passed} of {run.probes} probes passed, "
        f"{run.wall_ms / 1000:.1f} s  [session {run.session_id}]",
        file=out,
    )
    if run.error:
        print(f"  ERROR: {run.error}", file=out)
    for probe in probes:
        if probe.passed:
            continue
        for check in probe.checks:
            if not check.passed:
                who = f", {probe.character}" if probe.character else ""
                print(
                    f"  FAILED {probe.probe} {probe.probe_id} (turn {probe.turn_number}{who}) "
                    f"{check.name}: {check.label}: {check.detail}",
                    file=out,
                )


def play_printer(stream: TextIO | None = None) -> PlayObserver:
    """An observer printing each play as the human's session saw it (for `--verbose`)."""

    def observe(play: Play, evidence: Evidence) -> None:
        out = stream or sys.stdout
        names = {slot: c.body.display_name for slot, c in evidence.cast.items()}
        if play.kind == "turn":
            if play.failure:
                print(f"turn {play.turn_number}: FAILED: {play.failure}", file=out, flush=True)
                return
            records = [r for r in evidence.history if r.turn_number == play.turn_number]
            print(f"turn {play.turn_number}: {len(records)} records", file=out)
            for record in records:
                text = " ".join(str(getattr(record, "text", "")).split())
                who = names.get(record.speaker, record.speaker)
                where = (
                    f" ({record.audience.origin})"
                    if record.audience.origin
                    in (
                        "whisper",
                        "private",
                    )
                    else ""
                )
                print(f"    {record.kind:9s} {who}{where}: {text[:240]}", file=out, flush=True)
        else:
            outcome = f"FAILED: {play.failure}" if play.failure else "done"
            print(f"{play.kind} (turn {play.turn_number}): {outcome}", file=out, flush=True)

    return observe
