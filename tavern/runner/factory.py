"""`build_runner`: the one way the app and the terminal loop get a wired `Runner`."""

from __future__ import annotations

import httpx

from tavern.llm.client import LlmClient
from tavern.records import LlmCallLine
from tavern.records.config import AppConfig
from tavern.runner.limits import KernelLimits
from tavern.runner.service import Runner
from tavern.store import JournalWriter, Library, SessionStore


class OwnedRunner(Runner):
    """A runner that owns its HTTP client and closes it with `aclose()`."""

    http_client: httpx.AsyncClient | None = None

    async def aclose(self) -> None:
        """Release the shared HTTP client (and with it any provider connections)."""
        if self.http_client is not None:
            await self.http_client.aclose()
            self.http_client = None


SMALL_CONTEXT_PROVIDERS = {"local": 4096, "llama_cpp": 4096}
"""Providers whose default context per slot is small (option `ctx_per_slot` overrides)."""


def default_limits(config: AppConfig) -> KernelLimits:
    """Prompt budgets for the active provider: sized to its context when it is small."""
    name = config.active_provider
    if name not in SMALL_CONTEXT_PROVIDERS:
        return KernelLimits()
    settings = config.settings_for(name)
    ctx = settings.options.get("ctx_per_slot", SMALL_CONTEXT_PROVIDERS[name])
    return KernelLimits.for_context(int(ctx), settings.max_tokens)


def build_runner(
    *,
    config: AppConfig,
    library: Library,
    store: SessionStore,
    journal: JournalWriter | None = None,
    http_client: httpx.AsyncClient | None = None,
    limits: KernelLimits | None = None,
) -> OwnedRunner:
    """Wire a runner for `config`'s active provider over a store and a library.

    Args:
        config: Provider settings and language.
        library: Scenarios and characters.
        store: The session store; the journal lives beside it in the same data dir.
        journal: Journal writer (default: one under the store's data dir).
        http_client: Shared HTTP client (default: a new one the runner owns and closes).
        limits: Kernel bounds.
    """
    writer = journal or JournalWriter(store.data_dir)
    owned = http_client is None
    client_http = http_client or httpx.AsyncClient(timeout=None)

    def sink(line: LlmCallLine) -> None:
        writer.append(line.session_id, line)

    client = LlmClient.from_config(config, client_http, sink=sink)
    runner = OwnedRunner(
        store,
        library,
        writer,
        client,
        limits=limits or default_limits(config),
        filter_profile=config.filter_profile_for(),
    )
    if owned:
        runner.http_client = client_http
    return runner
