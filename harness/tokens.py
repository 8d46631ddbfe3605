"""Real token counts for calls whose provider reported none, from a llama.cpp tokenizer.

A journal line without `usage` has no token count, and characters / 4 is not one: the views
leave such tokens NULL. When a llama.cpp-compatible server for the same model is at hand,
`count_tokens` asks it: `/apply-template` renders the request's messages with the model's
chat template, `/tokenize` counts the result (and the answer), and the counts land in the
`token_counts` table, where `calls` reads them with `token_source = 'tokenizer'`.

Prompt counts are exact: on case 01's 23 calls of the embedded model they equal the
server's own, every one (`tests/harness/test_tokens_live.py`). Completion counts re-tokenize
the journaled answer, which need not split into the tokens the model sampled: they were 6
tokens under to 1 over the server's, on answers of 13 to 276 tokens.

Example (a stub server standing in for llama.cpp):
    >>> import duckdb, httpx
    >>> def server(request):
    ...     if request.url.path == "/apply-template":
    ...         return httpx.Response(200, json={"prompt": "<s>hi there"})
    ...     return httpx.Response(200, json={"tokens": [1, 2, 3]})
    >>> client = httpx.Client(transport=httpx.MockTransport(server))
    >>> con = duckdb.connect()
    >>> create_token_table(con)
    >>> tokenize_text(client, "http://127.0.0.1:8080", "hi there")
    3
"""

from __future__ import annotations

from typing import Any

import duckdb
import httpx

import tavern.llm
from tavern.llm._http import IN_PROCESS_TRANSPORTS

TOKEN_TABLE = """CREATE TABLE IF NOT EXISTS token_counts (
    file VARCHAR, line_no BIGINT, prompt_tokens BIGINT, completion_tokens BIGINT,
    tokenizer VARCHAR)"""


class TokenizerRefused(RuntimeError):
    """Live calls are off (tests) and the client does not use an in-process transport."""


def create_token_table(con: duckdb.DuckDBPyConnection) -> None:
    """Create the (empty) `token_counts` table the `calls` view joins."""
    con.execute(TOKEN_TABLE)


def _check_allowed(client: httpx.Client) -> None:
    in_process = isinstance(getattr(client, "_transport", None), IN_PROCESS_TRANSPORTS)
    if not tavern.llm.ALLOW_LIVE_CALLS and not in_process:
        raise TokenizerRefused("live calls are off: pass a client with an in-process transport")


def _post(client: httpx.Client, base: str, path: str, body: dict[str, Any]) -> Any:
    response = client.post(base.rstrip("/") + path, json=body)
    response.raise_for_status()
    return response.json()


def tokenize_text(client: httpx.Client, base: str, text: str, *, special: bool = False) -> int:
    """Tokens of `text` on the server at `base` (its root, not `/v1`)."""
    _check_allowed(client)
    body = {"content": text, "add_special": special, "parse_special": special}
    tokens = _post(client, base, "/tokenize", body).get("tokens")
    if not isinstance(tokens, list):
        raise ValueError(f"{base}/tokenize answered without a token list")
    return len(tokens)


def tokenize_prompt(client: httpx.Client, base: str, messages: list[dict[str, str]]) -> int:
    """Tokens of a chat request as the model reads it: its chat template applied first."""
    _check_allowed(client)
    prompt = _post(client, base, "/apply-template", {"messages": messages}).get("prompt")
    if not isinstance(prompt, str):
        raise ValueError(f"{base}/apply-template answered without a prompt")
    return tokenize_text(client, base, prompt, special=True)


def count_tokens(
    con: duckdb.DuckDBPyConnection,
    base: str,
    *,
    client: httpx.Client | None = None,
    model: str | None = None,
) -> int:
    """Count the tokens of every call without provider usage and store them.

    Args:
        con: A connection made by `harness.analysis.connect`.
        base: The tokenizer server's root URL, e.g. `http://127.0.0.1:8080`.
        client: HTTP client (default: a new one, closed here).
        model: Count only calls journaled with this model (the tokenizer's own).

    Returns:
        How many calls were counted.
    """
    query = """SELECT file, line_no, messages, response FROM calls
               WHERE token_source = 'none'"""
    params: list[Any] = []
    if model is not None:
        query += " AND model = ?"
        params.append(model)
    rows = con.execute(query, params).fetchall()
    owned = client is None
    client = client or httpx.Client(timeout=60.0)
    counted = []
    try:
        for file, line_no, messages, response in rows:
            prompt = tokenize_prompt(
                client, base, [{"role": m["role"], "content": m["content"]} for m in messages]
            )
            completion = tokenize_text(client, base, response) if response else None
            counted.append((file, line_no, prompt, completion, base))
    finally:
        if owned:
            client.close()
    if counted:  # one statement: `executemany` inserts row by row
        columns = [list(column) for column in zip(*counted, strict=True)]
        con.execute(
            """INSERT INTO token_counts SELECT unnest(?::VARCHAR[]), unnest(?::BIGINT[]),
                   unnest(?::BIGINT[]), unnest(?::BIGINT[]), unnest(?::VARCHAR[])""",
            columns,
        )
    return len(counted)
