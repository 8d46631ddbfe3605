"""Director answers under the schema vs under the compact grammar, on the embedded model.

    python -m benchmarks.compact_json JOURNAL [JOURNAL ...] [--calls 8] [--seed 11]

Replays the Director prompts journaled by live sessions (`make soak` writes them) against
the embedded `llama-server`, each twice with the same seed: once with the JSON Schema as
`response_format` (the default), once with the whitespace-free grammar of option
`compact_json` (`tavern.llm.gbnf`). Prints, per prompt and in total, the tokens written, the
wall time, whether the answer is schema-valid, and how many events it proposes: the grammar
is worth turning on only if it saves tokens without changing what the Director decides.
A one-token call first puts the prompt in the server's cache for both runs. Needs
`tavern model install`; not a timed test.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from typing import Any

import httpx
import jsonschema

from benchmarks._journaled import calls_from_arguments, replay_request
from tavern.agents import director
from tavern.llm.llama_cpp import LlamaCppProvider
from tavern.llm.local.paths import local_paths
from tavern.llm.local.provider import shared_server
from tavern.llm.local.server import ServerOptions
from tavern.llm.provider import ProviderResponse
from tavern.records import LlmCallLine


def _judge(response: ProviderResponse, schema: dict[str, Any]) -> tuple[int, bool, int]:
    """(tokens written, valid under `schema`, events proposed)."""
    tokens = (response.usage or {}).get("completion_tokens")
    try:
        answer = json.loads(response.content)
        jsonschema.validate(answer, schema)
    except (ValueError, jsonschema.ValidationError):
        return (tokens if isinstance(tokens, int) else -1), False, 0
    return (tokens if isinstance(tokens, int) else -1), True, len(answer["events"])


Variants = dict[str, tuple[bool, dict[str, Any]]]
"""Name -> (option `compact_json`, the answer's JSON Schema)."""
GRAMMAR: Variants = {
    "schema": (False, director.OUTPUT_SCHEMA),
    "grammar": (True, director.OUTPUT_SCHEMA),
}


async def run(calls: list[LlmCallLine], seed: int, variants: Variants = GRAMMAR) -> None:
    """Replay each call under each variant; print the comparison."""
    server = shared_server(local_paths(), ServerOptions())
    await server.start_async()
    totals = {name: [0, 0.0, 0, 0] for name in variants}
    async with httpx.AsyncClient() as http:
        providers = {
            name: LlamaCppProvider(
                http_client=http,
                api_base=server.api_base,
                structured_output="json_schema",
                compact_json=compact,
            )
            for name, (compact, _) in variants.items()
        }
        for number, call in enumerate(calls, start=1):
            request = replay_request(call, director.OUTPUT_SCHEMA, seed)
            await next(iter(providers.values())).complete(replace(request, max_tokens=1))
            line = [f"[{number}/{len(calls)}] turn {call.turn_number}:"]
            for name, provider in providers.items():
                started = time.perf_counter()
                response = await provider.complete(replace(request, schema=variants[name][1]))
                seconds = time.perf_counter() - started
                tokens, valid, events = _judge(response, variants[name][1])
                total = totals[name]
                total[0] += tokens
                total[1] += seconds
                total[2] += valid
                total[3] += events
                line.append(
                    f"{name} {tokens:4d} tokens {seconds:5.1f} s valid {valid} events {events}"
                )
            print(" | ".join(line), flush=True)
    await asyncio.to_thread(server.stop)
    for name, (n_tokens, n_seconds, n_valid, n_events) in totals.items():
        print(
            f"total {name}: {n_tokens} tokens, {n_seconds:.1f} s, {n_valid}/{len(calls)} valid,"
            f" {n_events} events"
        )
    (first, (t_a, s_a, _, _)), (second, (t_b, s_b, _, _)) = list(totals.items())[:2]
    print(f"{second} / {first}: tokens {t_b / max(t_a, 1):.2f}, time {s_b / max(s_a, 1e-9):.2f}")


def main() -> None:
    """Parse arguments and run."""
    calls, seed = calls_from_arguments("compact_json", __doc__ or "", "director")
    asyncio.run(run(calls, seed))


if __name__ == "__main__":
    main()
