"""The `local` provider: the `llama_cpp` adapter pointed at a server Tavern runs itself.

Building the provider does no I/O (a registry rule). The first call starts the shared
`LocalServer` for this process, waits for its health check and then sends through the
ordinary `llama_cpp` adapter, so request shaping, cache counters and errors are exactly those
of `llama_cpp`; only the name (`local`) and the lifecycle differ.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import httpx

from tavern.llm._http import ensure_live_allowed
from tavern.llm.errors import LlmCallError
from tavern.llm.llama_cpp import LlamaCppProvider, stop_early_option
from tavern.llm.local.paths import MODEL_NAME, LocalPaths, local_paths
from tavern.llm.local.server import LocalServer, LocalServerError, ServerOptions
from tavern.llm.provider import ProviderRequest, ProviderResponse, Source
from tavern.records.config import ProviderSettings
from tavern.records.journal import LlmRequestBody

# The journal shows where a call went; the managed server's port changes every run and says
# nothing, so descriptions name the loopback host only.
_DESCRIBE_BASE = "http://127.0.0.1/v1"

_shared: dict[tuple[str, str, ServerOptions], LocalServer] = {}
_shared_lock = threading.Lock()


def shared_server(paths: LocalPaths, options: ServerOptions) -> LocalServer:
    """Return this process's server for (binary, model, options), creating it unstarted."""
    key = (str(paths.server_binary), str(paths.model_file), options)
    with _shared_lock:
        server = _shared.get(key)
        if server is None:
            server = LocalServer(
                paths.server_binary,
                paths.model_file,
                options,
                log_path=paths.root / "logs" / "llama-server.log",
            )
            _shared[key] = server
        return server


class LocalProvider:
    """`llama_cpp` over a managed `llama-server`, started lazily on the first call."""

    source: Source = "live"

    def __init__(
        self,
        *,
        http_client: httpx.AsyncClient,
        server: Callable[[], LocalServer],
        model: str = MODEL_NAME,
        timeout_s: float = 300.0,
        name: str = "local",
        stop_early: bool = True,
    ) -> None:
        self.name = name
        self.stop_early = stop_early
        self.model = model
        self._http = http_client
        self._server_factory = server
        self._timeout_s = timeout_s
        self._adapter: LlamaCppProvider | None = None
        self._start_lock = asyncio.Lock()
        self._describer = self._make_adapter(_DESCRIBE_BASE)

    def _make_adapter(self, api_base: str) -> LlamaCppProvider:
        # The C++ llama-server takes `json_schema` natively; no need for `auto` probing.
        return LlamaCppProvider(
            http_client=self._http,
            api_base=api_base,
            model=self.model,
            timeout_s=self._timeout_s,
            structured_output="json_schema",
            name=self.name,
            stop_early=self.stop_early,
        )

    @property
    def server(self) -> LocalServer:
        """The managed server (created on first access, not necessarily started)."""
        return self._server_factory()

    def describe(self, request: ProviderRequest) -> LlmRequestBody:
        """The request as sent, for the journal."""
        return self._describer.describe(request)

    async def _ensure_adapter(self) -> LlamaCppProvider:
        server = self.server
        if self._adapter is not None and server.ready:
            return self._adapter
        async with self._start_lock:
            try:
                await server.start_async()
            except LocalServerError as exc:
                raise LlmCallError("provider", f"local model server: {exc}") from exc
            self._adapter = self._make_adapter(server.api_base)
            return self._adapter

    async def start(self) -> None:
        """Start the server now rather than on the first call (keeps load time out of it).

        Raises:
            LlmCallError: `refused` while live calls are disabled, `provider` if the server
                cannot start (model or binary missing, crash, timeout).
        """
        ensure_live_allowed(self._http)
        await self._ensure_adapter()

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        """Start the server if needed, then send one attempt through the `llama_cpp` adapter."""
        ensure_live_allowed(self._http)  # starting a model counts as a live call
        adapter = await self._ensure_adapter()
        return await adapter.complete(request)


def _int_option(settings: ProviderSettings, key: str, default: int | None) -> int | None:
    value: Any = settings.options.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"local: option {key!r} must be an integer, got {value!r}")
    return value


def server_options(settings: ProviderSettings) -> ServerOptions:
    """Server options from the provider settings' `options` (`slots`, `ctx_per_slot`, `threads`).

    Raises:
        ValueError: an option is not an integer.
    """
    defaults = ServerOptions()
    return ServerOptions(
        slots=_int_option(settings, "slots", defaults.slots) or defaults.slots,
        ctx_per_slot=_int_option(settings, "ctx_per_slot", defaults.ctx_per_slot)
        or defaults.ctx_per_slot,
        threads=_int_option(settings, "threads", None),
    )


def build_local_provider(
    settings: ProviderSettings, http_client: httpx.AsyncClient
) -> LocalProvider:
    """Registry factory: no I/O here; the server starts on the first call."""
    options = server_options(settings)
    return LocalProvider(
        http_client=http_client,
        server=lambda: shared_server(local_paths(), options),
        model=settings.model or MODEL_NAME,
        timeout_s=settings.timeout_s or 300.0,
        stop_early=stop_early_option(settings),
    )
