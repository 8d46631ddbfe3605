"""Process state of one app instance: services, the token, and the swappable runner."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tavern.app.config_store import save_config
from tavern.records.config import AppConfig
from tavern.runner.interface import RunnerError, TurnRunner
from tavern.store import Library, SessionStore

RunnerFactory = Callable[[AppConfig], TurnRunner]
"""Builds the runner for a config; called again whenever the provider settings change."""
Closer = Callable[[TurnRunner], Awaitable[None]]
"""Releases what a replaced runner holds (HTTP clients, an embedded server)."""


async def _close_nothing(runner: TurnRunner) -> None:
    return None


@dataclass
class AppServices:
    """Everything the routes need, injected so tests can substitute any part."""

    data_dir: Path
    """Data directory; config.json lives here."""
    library: Library
    """Scenarios and characters (built-ins read-only)."""
    sessions: SessionStore
    """Session list, history pages, fork, delete."""
    runner_factory: RunnerFactory
    """Builds a runner for a config."""
    close_runner: Closer = _close_nothing
    """Called on a runner after it has been replaced, and at shutdown."""
    extra_hosts: frozenset[str] = field(default_factory=frozenset)
    """Host names served besides loopback (for a deliberate LAN bind)."""


class ProviderStartError(RunnerError):
    """The runner for a new provider config could not be built (model missing, bad options)."""

    status = 422


class RunnerSlot:
    """The active (config, runner) pair, replaced atomically under a lock.

    Readers take `runner` without locking: a request that started on the old runner finishes
    on it, the next request sees the new one, and no request ever sees a config that does not
    match its runner. Writers serialize on `lock`, so two PUT /config calls cannot interleave
    their read-modify-write, file write and swap.
    """

    def __init__(self, config: AppConfig, runner: TurnRunner) -> None:
        """Start with a built runner for `config`."""
        self._pair = (config, runner)
        self.lock = asyncio.Lock()
        self._leases: dict[int, int] = {}
        self._idle: dict[int, asyncio.Event] = {}
        self._closing: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def lease(self) -> AsyncIterator[TurnRunner]:
        """Use the current runner; a replaced runner is closed only when its leases end."""
        runner = self.runner
        key = id(runner)
        self._leases[key] = self._leases.get(key, 0) + 1
        self._idle.setdefault(key, asyncio.Event()).clear()
        try:
            yield runner
        finally:
            self._leases[key] -= 1
            if self._leases[key] == 0:
                del self._leases[key]
                self._idle.pop(key).set()

    async def _close_when_idle(self, services: AppServices, runner: TurnRunner) -> None:
        idle = self._idle.get(id(runner))
        if idle is not None:
            await idle.wait()
        await services.close_runner(runner)

    async def drain(self) -> None:
        """Wait until every replaced runner has been closed (used at shutdown and in tests)."""
        while self._closing:
            await asyncio.gather(*self._closing)

    @property
    def config(self) -> AppConfig:
        """The active config."""
        return self._pair[0]

    @property
    def runner(self) -> TurnRunner:
        """The active runner."""
        return self._pair[1]

    async def update(
        self, services: AppServices, change: Callable[[AppConfig], AppConfig]
    ) -> AppConfig:
        """Apply `change` to the active config, build its runner, persist, and swap together.

        When `change` or the factory raises, nothing is written and nothing is swapped.

        Args:
            services: Where the factory, data dir and closer come from.
            change: Validates and returns the new config from the current one.

        Returns:
            The config now active.
        """
        async with self.lock:
            old_config, old_runner = self._pair
            config = change(old_config)
            new_runner = old_runner
            if config != old_config:
                # Any setting may be captured by the runner (language included), so any
                # change builds a fresh one; in-flight turns finish on the old runner.
                try:
                    new_runner = services.runner_factory(config)
                except RunnerError:
                    raise
                except Exception as exc:  # the factory's refusal is the client's answer
                    raise ProviderStartError(
                        f"cannot use provider {config.active_provider!r}: {exc}"
                    ) from exc
                save_config(services.data_dir, config)
                self._pair = (config, new_runner)
        if new_runner is not old_runner:
            # In-flight turns keep the old runner's HTTP client open until they finish.
            task = asyncio.create_task(self._close_when_idle(services, old_runner))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        return config
