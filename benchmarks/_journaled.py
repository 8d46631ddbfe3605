"""What the live-replay benchmarks share: journaled calls, chosen from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tavern.llm.provider import ProviderRequest
from tavern.records import LlmCallLine
from tavern.store import read_journal


def answered_calls(journals: list[Path], agent: str, limit: int) -> list[LlmCallLine]:
    """The answered calls of `agent` in the journals, in order, at most `limit`."""
    found = [
        line
        for path in journals
        for line in read_journal(path)
        if isinstance(line, LlmCallLine) and line.agent == agent and line.response
    ]
    return found[:limit]


def calls_from_arguments(name: str, doc: str, agent: str) -> tuple[list[LlmCallLine], int]:
    """Parse `JOURNAL... [--calls N] [--seed S]`: the calls of `agent` to replay and the seed.
    Exits with a message (and writes nothing) on a missing journal or no such call."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("journals", nargs="+", type=Path)
    parser.add_argument("--calls", type=int, default=8)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    missing = [str(p) for p in args.journals if not p.is_file()]
    if missing:
        sys.exit(f"{name}: no such journal: {', '.join(missing)}")
    if args.calls < 1:
        sys.exit(f"{name}: --calls must be at least 1")
    calls = answered_calls(args.journals, agent, args.calls)
    if not calls:
        sys.exit(f"{name}: the journals hold no answered {agent} call")
    return calls, args.seed


def replay_request(
    call: LlmCallLine, schema: dict[str, Any], seed: int, **extra: Any
) -> ProviderRequest:
    """The journaled `call` asked again: its agent, messages, answer limit and temperature,
    with `schema`, `seed` and any further request fields in `extra`."""
    return ProviderRequest(
        agent=call.agent,
        messages=list(call.request.messages),
        schema=schema,
        max_tokens=call.request.max_tokens,
        temperature=call.request.temperature,
        seed=seed,
        **extra,
    )
