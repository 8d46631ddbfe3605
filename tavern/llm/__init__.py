"""The LLM layer: one provider-neutral client, adapters, fake and replay providers.

Nothing above this package knows a vendor. The runner uses `LlmClient`; providers are built by
name through the registry (`build_provider`). Imports `tavern.records` only.

`ALLOW_LIVE_CALLS`: when False (the test suite's autouse fixture sets it), every real adapter
refuses to send unless its `httpx.AsyncClient` uses an in-process transport
(`httpx.MockTransport` or `httpx.ASGITransport`).
"""

from tavern.llm.client import LlmClient
from tavern.llm.errors import LlmCallError, UrlPolicyError
from tavern.llm.fake import FakeProvider
from tavern.llm.provider import Provider, ProviderRequest, ProviderResponse
from tavern.llm.registry import (
    ProviderSpec,
    build_provider,
    get_spec,
    provider_catalogue,
    provider_names,
    register_provider,
    resolve_settings,
)
from tavern.llm.url_policy import check_api_base
from tavern.llm.wrappers import JournalSink, RetryPolicy

ALLOW_LIVE_CALLS: bool = True
"""Module-wide switch for real network calls; tests set it False (see tests/conftest.py)."""

__all__ = [
    "ALLOW_LIVE_CALLS",
    "FakeProvider",
    "JournalSink",
    "LlmCallError",
    "LlmClient",
    "Provider",
    "ProviderRequest",
    "ProviderResponse",
    "ProviderSpec",
    "RetryPolicy",
    "UrlPolicyError",
    "build_provider",
    "check_api_base",
    "get_spec",
    "provider_catalogue",
    "provider_names",
    "register_provider",
    "resolve_settings",
]
