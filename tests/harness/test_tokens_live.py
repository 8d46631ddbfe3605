"""Live: the llama.cpp tokenizer's counts against the server's own, for journaled calls of the
embedded model (case 01's session). Run with `make test-live`.

Prompt counts are exact (23 of 23 on 2026-12-06). An answer re-tokenized need not split into
the tokens the model sampled, so completion counts differ a little (then: -6 to +1 tokens
on answers of 13-276 tokens)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from harness.analysis import connect
from harness.tokens import tokenize_prompt, tokenize_text
from tavern.llm.local.paths import local_paths
from tavern.llm.local.server import LocalServer, ServerOptions

pytestmark = pytest.mark.live

CASE = Path(__file__).parents[2] / "cases" / "01-prompt-cache-local" / "data"


def test_tokenizer_counts_match_the_servers_own() -> None:
    paths = local_paths()
    con = connect(CASE, sweep=False)
    rows = con.execute(
        """SELECT messages, response, provider_prompt_tokens, provider_completion_tokens
           FROM calls WHERE ok ORDER BY line_no"""
    ).fetchall()
    gaps = []
    with (
        LocalServer(paths.server_binary, paths.model_file, ServerOptions(slots=1)) as server,
        httpx.Client(timeout=120.0) as client,
    ):
        for messages, response, prompt_tokens, completion_tokens in rows:
            sent = [{"role": m["role"], "content": m["content"]} for m in messages]
            assert tokenize_prompt(client, server.base_url, sent) == prompt_tokens
            counted = tokenize_text(client, server.base_url, response)
            gaps.append((counted - completion_tokens, completion_tokens))
    print(f"{len(rows)} calls; completion count gaps (tokenizer - server, of): {gaps}")
    assert all(abs(gap) <= max(8, 0.06 * n) for gap, n in gaps)
