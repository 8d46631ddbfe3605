"""`tavern probe cache --provider NAME`: the prompt-cache probe, for any registered provider."""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime
from pathlib import Path

import httpx

from tavern.llm.errors import LlmCallError
from tavern.llm.local.cache_probe import ProbeResult, run_cache_probe
from tavern.llm.local.provider import LocalProvider
from tavern.llm.registry import build_provider, provider_names
from tavern.records.config import AppConfig
from tavern.records.journal import LlmCallLine
from tavern.settings import get_settings


def register(parser: argparse.ArgumentParser) -> None:
    """Add the `probe` subcommands."""
    sub = parser.add_subparsers(dest="probe", required=True)
    cache = sub.add_parser(
        "cache",
        help="warm call, three identical repeats, a changed-prefix control; "
        "exit 0 only if the repeats reuse more of the prompt than the control",
    )
    cache.add_argument("--provider", default=None, help="registered provider (default: settings)")
    cache.add_argument("--notes", type=int, default=60, help="prefix length (~22 tokens a note)")
    cache.add_argument("--journal", type=Path, default=None, help="JSONL file for the calls")
    cache.set_defaults(handler=_cache)


def _journal_path(explicit: Path | None, provider: str, stamp: str) -> Path:
    if explicit is not None:
        return explicit
    return get_settings().data_dir / "probes" / f"cache-{provider}-{stamp}.jsonl"


def _print(result: ProbeResult, journal: Path) -> None:
    print(f"provider {result.provider}, model {result.model}")
    print(f"{'call':<10} {'hit':>6} {'miss':>6} {'prefill ms':>11} {'total ms':>9}  error")
    for call in result.calls:
        hit = "-" if call.hit_tokens is None else str(call.hit_tokens)
        miss = "-" if call.miss_tokens is None else str(call.miss_tokens)
        prefill = "-" if call.prompt_ms is None else f"{call.prompt_ms:.1f}"
        print(
            f"{call.label:<10} {hit:>6} {miss:>6} {prefill:>11} {call.duration_ms:>9.1f}  "
            f"{call.error or ''}"
        )
    print(f"method: {result.method}")
    print(result.explanation)
    print(f"journal: {journal}")
    print("PASS: the repeated prefix is reused" if result.passed else "FAIL: no reuse shown")


async def _run(name: str, notes: int, journal: Path, session_id: str) -> ProbeResult:
    journal.parent.mkdir(parents=True, exist_ok=True)

    def sink(line: LlmCallLine) -> None:
        with journal.open("a", encoding="utf-8") as out:
            out.write(line.model_dump_json() + "\n")

    async with httpx.AsyncClient() as http:
        provider = build_provider(AppConfig(active_provider=name), http, name)
        try:
            if isinstance(provider, LocalProvider):
                await provider.start()  # model load time stays out of the warm call's figures
            return await run_cache_probe(provider, sink=sink, session_id=session_id, notes=notes)
        finally:
            if isinstance(provider, LocalProvider):
                provider.server.stop()


def _cache(args: argparse.Namespace) -> int:
    name = args.provider or get_settings().provider
    if name not in provider_names():
        print(f"unknown provider {name!r}; known: {', '.join(provider_names())}")
        return 2
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    journal = _journal_path(args.journal, name, stamp)
    try:
        result = asyncio.run(_run(name, args.notes, journal, f"probe-cache-{stamp.lower()}"))
    except LlmCallError as exc:
        print(f"probe failed before its calls: {exc}")
        return 1
    except KeyboardInterrupt:  # the server was stopped on the way out (finally in _run)
        print("interrupted")
        return 130
    _print(result, journal)
    return 0 if result.passed else 1
