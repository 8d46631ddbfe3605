"""Model time saved by stopping a looping narration early, on the embedded local model.

    python -m benchmarks.early_stop JOURNAL [JOURNAL ...] [--calls 8] [--seed 11]

Replays the prose prompts journaled by live sessions (`make soak` writes them) against the
embedded `llama-server`, each twice in a row with the same seed: once read whole, once
streamed with `prose.runaway` as the stop (`tavern.llm.early_stop`). Prints, per prompt and
in total, the tokens written and the wall time of each, and whether the narration `parse`
commits is the same both ways (it should be: the stop only spares what the cut drops). A
one-token call first puts the prompt in the server's cache for both runs.
Needs `tavern model install`; not a timed test.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace

import httpx

from benchmarks._journaled import calls_from_arguments, replay_request
from tavern.agents import prose
from tavern.llm.llama_cpp import LlamaCppProvider
from tavern.llm.local.paths import local_paths
from tavern.llm.local.provider import shared_server
from tavern.llm.local.server import ServerOptions
from tavern.llm.provider import ProviderRequest, ProviderResponse
from tavern.records import LlmCallLine


async def _timed(
    provider: LlamaCppProvider, request: ProviderRequest
) -> tuple[float, ProviderResponse]:
    started = time.perf_counter()
    response = await provider.complete(request)
    return time.perf_counter() - started, response


def _written(response: ProviderResponse) -> int:
    usage = response.usage or {}
    tokens = usage.get("completion_tokens")
    return tokens if isinstance(tokens, int) else -1


async def run(calls: list[LlmCallLine], seed: int) -> None:
    """Replay each call whole and with the stop; print the comparison."""
    server = shared_server(local_paths(), ServerOptions())
    await server.start_async()
    totals = {"whole": [0.0, 0], "stopped": [0.0, 0]}
    same = 0
    async with httpx.AsyncClient() as http:
        whole = LlamaCppProvider(http_client=http, api_base=server.api_base, stop_early=False)
        streamed = LlamaCppProvider(http_client=http, api_base=server.api_base)
        for number, call in enumerate(calls, start=1):
            request = replay_request(call, prose.OUTPUT_SCHEMA, seed, stop_early=prose.runaway)
            # Both runs find the prompt cached: a first run would pay the prefill alone, and
            # a cached prefix changes the arithmetic enough to sample other tokens.
            await whole.complete(replace(request, max_tokens=1, stop_early=None))
            results = {
                "whole": await _timed(whole, request),
                "stopped": await _timed(streamed, request),
            }
            texts = {k: prose.parse(json.loads(r.content)) for k, (_, r) in results.items()}
            same += texts["whole"] == texts["stopped"]
            for key, (seconds, response) in results.items():
                totals[key][0] += seconds
                totals[key][1] += _written(response)
            (t_whole, r_whole), (t_stop, r_stop) = results["whole"], results["stopped"]
            print(
                f"[{number}/{len(calls)}] turn {call.turn_number}: whole {_written(r_whole):4d}"
                f" tokens {t_whole:6.1f} s | streamed {_written(r_stop):4d} tokens"
                f" {t_stop:6.1f} s{' (stopped)' if r_stop.stopped_early else ''}"
                f" | same narration: {texts['whole'] == texts['stopped']}",
                flush=True,
            )
    await asyncio.to_thread(server.stop)
    (s_whole, n_whole), (s_stop, n_stop) = totals["whole"], totals["stopped"]
    print(
        f"total: whole {n_whole} tokens {s_whole:.1f} s; streamed with the stop {n_stop} tokens"
        f" {s_stop:.1f} s (time ratio {s_stop / s_whole:.2f}); same narration {same}/{len(calls)}"
    )


def main() -> None:
    """Parse arguments and run."""
    calls, seed = calls_from_arguments("early_stop", __doc__ or "", "prose")
    asyncio.run(run(calls, seed))


if __name__ == "__main__":
    main()
