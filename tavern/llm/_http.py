"""The one HTTP send path of every adapter: the live-call guard, the connect-time URL check
and error mapping.

When `tavern.llm.ALLOW_LIVE_CALLS` is False (the test suite sets it), a send is refused
unless the client uses an in-process transport (`httpx.MockTransport`, `ASGITransport`).
A send given an `Endpoint` resolves the host then, checks every address against the
provider's policy and connects to the checked one (`url_policy.pin`), so a name rebound
since the URL was saved reaches nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from tavern.llm.errors import ErrorType, LlmCallError, UrlPolicyError
from tavern.llm.url_policy import Endpoint

IN_PROCESS_TRANSPORTS = (httpx.MockTransport, httpx.ASGITransport)
MAX_ERROR_CHARS = 500


def uses_in_process_transport(client: httpx.AsyncClient) -> bool:
    """True when `client` answers in-process (no socket is ever opened)."""
    # httpx exposes no public accessor for the transport; `_transport` is stable since 0.18.
    transport = getattr(client, "_transport", None)
    return isinstance(transport, IN_PROCESS_TRANSPORTS)


def ensure_live_allowed(client: httpx.AsyncClient) -> None:
    """Raise `LlmCallError('refused')` if a real network call is disabled right now."""
    import tavern.llm  # read the flag at call time so tests can flip it

    if not tavern.llm.ALLOW_LIVE_CALLS and not uses_in_process_transport(client):
        raise LlmCallError(
            "refused",
            "live model calls are disabled (tavern.llm.ALLOW_LIVE_CALLS is False); "
            "mark the test `live` or inject an httpx.MockTransport",
        )


@dataclass(frozen=True)
class Target:
    """Where one send goes: its URL, the headers and the request extensions pinning it."""

    url: str
    headers: dict[str, str]
    extensions: dict[str, Any]


async def connect_target(
    client: httpx.AsyncClient,
    url: str,
    headers: dict[str, str] | None,
    endpoint: Endpoint | None,
) -> Target:
    """`url` pinned to the address its endpoint's policy checked just now.

    Raises:
        LlmCallError: `refused` when the policy refuses the URL or what its host resolves to.
    """
    sent = dict(headers or {})
    if endpoint is None or uses_in_process_transport(client):
        return Target(url, sent, {})
    try:
        pinned = await endpoint.pin(url)
    except UrlPolicyError as exc:
        raise LlmCallError("refused", str(exc)) from None
    extensions = {} if pinned.server_name is None else {"sni_hostname": pinned.server_name}
    return Target(pinned.url, {**sent, "Host": pinned.host_header}, extensions)


def _provider_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:MAX_ERROR_CHARS]
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])[:MAX_ERROR_CHARS]
        if isinstance(error, str):
            return error[:MAX_ERROR_CHARS]
    return json.dumps(body)[:MAX_ERROR_CHARS]


async def post_json(
    client: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    *,
    headers: dict[str, str] | None = None,
    timeout_s: float,
    secrets: tuple[str, ...] = (),
    endpoint: Endpoint | None = None,
) -> dict[str, Any]:
    """POST `body` as JSON and return the decoded JSON object.

    Args:
        endpoint: The provider's URL policy: the host is resolved and checked now, and the
            request connects to the checked address (`connect_target`).

    Raises:
        LlmCallError: `refused` (live calls off, or the URL policy), `timeout`, `transport`,
            `http_4xx`, `http_5xx` or `parse` (a 2xx that is not a JSON object). Secrets
            never appear in the message.
    """
    ensure_live_allowed(client)
    target = await connect_target(client, url, headers, endpoint)

    def scrub(text: str) -> str:
        for secret in secrets:
            if secret:
                text = text.replace(secret, "[redacted]")
        return text

    try:
        response = await client.post(
            target.url,
            json=body,
            headers=target.headers,
            timeout=timeout_s,
            extensions=target.extensions,
        )
    except httpx.TimeoutException as exc:
        raise LlmCallError(
            "timeout", f"no answer within {timeout_s}s ({type(exc).__name__})"
        ) from None
    except httpx.TransportError as exc:
        raise LlmCallError("transport", scrub(f"{type(exc).__name__}: {exc}")) from None
    if response.status_code >= 400:
        raise status_error(response, scrub)
    return json_object(response)


def json_object(response: httpx.Response) -> dict[str, Any]:
    """The (read) body as a JSON object.

    Raises:
        LlmCallError: `parse` when it is not JSON, or not an object.
    """
    try:
        data = response.json()
    except ValueError:
        raise LlmCallError("parse", "provider answered with a non-JSON body") from None
    if not isinstance(data, dict):
        raise LlmCallError("parse", "provider answered with a non-object JSON body")
    return data


def status_error(response: httpx.Response, scrub: Callable[[str], str]) -> LlmCallError:
    """The error for an HTTP error status (the body must have been read)."""
    kind: ErrorType = "http_5xx" if response.status_code >= 500 else "http_4xx"
    # 408 and 429 are "try again later", not a verdict on the request.
    if response.status_code in (408, 429):
        kind = "rate_limit"
    message = scrub(f"HTTP {response.status_code}: {_provider_message(response)}")
    return LlmCallError(kind, message, status_code=response.status_code)


def first_choice_content(data: dict[str, Any]) -> str:
    """Extract `choices[0].message.content` of an OpenAI-style answer.

    Raises:
        LlmCallError: `parse` when the shape is wrong or the content is empty.
    """
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise LlmCallError("parse", "answer has no choices[0].message.content") from None
    if not isinstance(content, str) or not content.strip():
        raise LlmCallError("parse", "answer content is empty")
    return content
