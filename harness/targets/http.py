"""A running `tavern serve`, driven over real HTTP like any client.

The harness reads the token from `GET /bootstrap`, sets the run's provider, model, endpoint
and language with `PUT /config` (and puts the server's previous values back when it closes),
and then refuses to run unless the server's resolved config equals the run's: over HTTP only
those four can be set, so a script asking for a seed or an option the server does not hold
fails before anything plays. Evidence comes from `GET .../history` and `GET .../journal`.

Example::

    target = HttpTarget("http://127.0.0.1:8765", config=resolved)
    view = await target.create_session("the-toll-house", None)
"""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
from pydantic import TypeAdapter

from harness.config import ResolvedConfig, resolve_config
from harness.records.results import TargetKind
from harness.records.script import ConfigOverrides
from harness.targets import TargetError
from tavern.records import (
    Character,
    HistoryRecord,
    JournalLine,
    Scenario,
    SessionState,
    TurnInput,
)
from tavern.records.config import ProviderSettings
from tavern.records.journal import JOURNAL_LINE_ADAPTER
from tavern.records.views import (
    CompactResult,
    InterviewResult,
    SessionView,
    Suggestion,
    TurnResult,
)

HTTP_SETTABLE = ("provider", "model", "api_base")
"""Overrides `PUT /config` can set (besides the language)."""
PAGE = 500
"""Entries per page of history and journal (the server's maximum)."""
_HISTORY: TypeAdapter[list[HistoryRecord]] = TypeAdapter(list[HistoryRecord])
_SUGGESTIONS: TypeAdapter[list[Suggestion]] = TypeAdapter(list[Suggestion])


def unsettable(overrides: ConfigOverrides) -> list[str]:
    """The overrides a run over HTTP cannot apply (the server keeps its own).

    >>> unsettable(ConfigOverrides(provider="fake", seed=3, options={"mode": "adversary"}))
    ['seed', 'options']
    """
    data = overrides.model_dump(exclude_none=True)
    return [k for k, v in data.items() if k not in HTTP_SETTABLE and v != {}]


class HttpTarget:
    """One `tavern serve`, reached at `url` (loopback, usually)."""

    kind: TargetKind = "http"

    def __init__(
        self,
        url: str,
        *,
        config: ResolvedConfig | None = None,
        client: httpx.AsyncClient | None = None,
        timeout_s: float = 900.0,
    ) -> None:
        self.url = url.rstrip("/")
        self._client = client or httpx.AsyncClient(base_url=self.url, timeout=timeout_s)
        self._owns_client = client is None
        self._token: str | None = None
        self._config = config
        self._restore: dict[str, Any] | None = None

    async def _send(
        self, method: str, path: str, body: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        headers = {}
        if method != "GET":
            if self._token is None:
                self._token = str((await self._send("GET", "/bootstrap"))["access_token"])
            headers["X-Tavern-Token"] = self._token
        try:
            response = await self._client.request(
                method, path, json=body, params=params, headers=headers
            )
        except httpx.HTTPError as exc:
            raise TargetError(0, f"{self.url}{path}: {exc!r}") from exc
        if response.status_code >= 400:
            try:
                detail = str(response.json().get("detail"))
            except ValueError:
                detail = response.text[:300]
            raise TargetError(response.status_code, detail)
        return response.json()

    async def check_config(self) -> None:
        """Refuse, before anything is written, a run whose config the server would not run.

        The server keeps its stored settings for the provider except what `PUT /config` sets
        (provider, model, endpoint, language); the run's resolved config must equal that.

        Raises:
            TargetError: 409 naming the settings that differ; 0 when the server is unreachable.
        """
        if self._config is None:
            return
        current = await self._send("GET", "/config")
        wanted = self._config
        name = wanted.provider
        settings = wanted.config.settings_for()
        stored = _stored_settings(current["providers"].get(name, {}))
        stored = stored.model_copy(update={"model": settings.model, "api_base": settings.api_base})
        overrides = ConfigOverrides(provider=name, **_settings_overrides(stored))
        served = resolve_config(overrides, wanted.config.language)
        if served.sha256 != wanted.sha256:
            differ = _differences(wanted.public, served.public)
            raise TargetError(409, f"the server at {self.url} would not run this config: {differ}")

    async def configure(self) -> None:
        """Set the run's provider, model, endpoint and language on the server, and check
        that the config it then holds is the run's.

        Raises:
            TargetError: 409 when the server's resolved config is not the run's.
        """
        if self._config is None or self._restore is not None:
            return
        current = await self._send("GET", "/config")
        wanted = self._config
        settings = wanted.config.settings_for()
        name = wanted.provider
        previous = current["providers"].get(name, {})
        self._restore = {
            "active_provider": current["active_provider"],
            "language": current["language"],
            "provider": name,
            "model": previous.get("model") or "",
            "api_base": previous.get("api_base") or "",
        }
        await self._send(
            "PUT",
            "/config",
            {
                "active_provider": name,
                "language": wanted.config.language,
                "provider": name,
                "model": settings.model or "",
                "api_base": settings.api_base or "",
            },
        )
        served = await self._send("GET", "/config")
        stored = _stored_settings(served["providers"].get(name, {}))
        overrides = ConfigOverrides(provider=name, **_settings_overrides(stored))
        theirs = resolve_config(overrides, served["language"])
        if theirs.sha256 != wanted.sha256:
            differ = _differences(wanted.public, theirs.public)
            raise TargetError(409, f"the server's config is not the run's: {differ}")

    async def aclose(self) -> None:
        """Put the server's previous provider and language back; close the client."""
        try:
            if self._restore is not None:
                await self._send("PUT", "/config", self._restore)
                self._restore = None
        finally:
            if self._owns_client:
                await self._client.aclose()

    async def create_session(self, scenario_id: str, controlled: str | None) -> SessionView:
        """`POST /sessions`."""
        await self.configure()
        body = {"scenario_id": scenario_id, "controlled_character_id": controlled}
        return SessionView.model_validate(await self._send("POST", "/sessions", body))

    async def view(self, session_id: str) -> SessionView:
        """`GET /sessions/{id}`."""
        return SessionView.model_validate(await self._send("GET", f"/sessions/{session_id}"))

    async def play_turn(self, session_id: str, turn: TurnInput) -> TurnResult:
        """`POST /sessions/{id}/turns`."""
        body = turn.model_dump(mode="json", exclude_defaults=True)
        data = await self._send("POST", f"/sessions/{session_id}/turns", body)
        return TurnResult.model_validate(data)

    async def undo(self, session_id: str) -> SessionView:
        """`POST /sessions/{id}/undo`."""
        return SessionView.model_validate(await self._send("POST", f"/sessions/{session_id}/undo"))

    async def compact(self, session_id: str, retention_turns: int | None) -> CompactResult:
        """`POST /sessions/{id}/compact`."""
        body = {"retention_turns": retention_turns} if retention_turns else {}
        data = await self._send("POST", f"/sessions/{session_id}/compact", body)
        return CompactResult.model_validate(data)

    async def restore(self, session_id: str) -> CompactResult:
        """`POST /sessions/{id}/restore`."""
        data = await self._send("POST", f"/sessions/{session_id}/restore", {})
        return CompactResult.model_validate(data)

    async def suggestions(self, session_id: str) -> list[Suggestion]:
        """`POST /sessions/{id}/suggestions`."""
        data = await self._send("POST", f"/sessions/{session_id}/suggestions")
        return _SUGGESTIONS.validate_python(data["data"])

    async def openings(self, session_id: str) -> list[str]:
        """`POST /sessions/{id}/openings`."""
        data = await self._send("POST", f"/sessions/{session_id}/openings")
        return [str(item) for item in data["data"]]

    async def interview(self, session_id: str, character: str, question: str) -> InterviewResult:
        """`POST /sessions/{id}/interview`."""
        body = {"character": character, "question": question}
        data = await self._send("POST", f"/sessions/{session_id}/interview", body)
        return InterviewResult.model_validate(data)

    async def history_since(self, session_id: str, after_seq: int) -> list[HistoryRecord]:
        """`GET /sessions/{id}/history`, page by page."""
        records: list[HistoryRecord] = []
        after: int | None = after_seq
        while after is not None:
            page = await self._send(
                "GET", f"/sessions/{session_id}/history", params={"after": after, "limit": PAGE}
            )
            records += _HISTORY.validate_python(page["data"])
            after = page["next_after"]
        return records

    async def journal_since(self, session_id: str, count: int) -> list[JournalLine]:
        """`GET /sessions/{id}/journal`, page by page, from line index `count`."""
        lines: list[JournalLine] = []
        after: int | None = count - 1
        while after is not None:
            page = await self._send(
                "GET", f"/sessions/{session_id}/journal", params={"after": after, "limit": PAGE}
            )
            lines += [JOURNAL_LINE_ADAPTER.validate_python(item) for item in page["data"]]
            after = page["next_after"]
        return lines

    async def scenario(self, scenario_id: str) -> Scenario:
        """`GET /scenarios/{id}`."""
        data = await self._send("GET", f"/scenarios/{scenario_id}")
        return Scenario.model_validate(data["scenario"])

    async def character(self, character_id: str) -> Character:
        """`GET /characters/{id}`."""
        data = await self._send("GET", f"/characters/{character_id}")
        return Character.model_validate(data["character"])

    async def state(self, session_id: str) -> SessionState | None:
        """The stored state is not served over HTTP."""
        return None

    async def compacted(self, session_id: str) -> list[HistoryRecord] | None:
        """The checkpoints are not served over HTTP."""
        return None

    async def session_digest(self, session_id: str) -> str:
        """SHA-256 of what the server shows of the session: its view and its history."""
        digest = hashlib.sha256((await self.view(session_id)).model_dump_json().encode())
        for record in await self.history_since(session_id, -1):
            digest.update(record.model_dump_json().encode())
        return digest.hexdigest()


def _stored_settings(entry: dict[str, Any]) -> ProviderSettings:
    """A served provider entry (redacted: `api_key_configured` for the key) as settings."""
    return ProviderSettings.model_validate(
        {k: v for k, v in entry.items() if k != "api_key_configured"}
    )


def _settings_overrides(settings: ProviderSettings) -> dict[str, Any]:
    """Provider settings as `ConfigOverrides` fields."""
    data = settings.model_dump(
        include={"model", "api_base", "temperature", "seed", "max_tokens", "max_attempts"},
        exclude_none=True,
    )
    data["options"] = dict(settings.options)
    if settings.timeout_s is not None:
        data["timeout_s"] = settings.timeout_s
    return data


def _differences(ours: dict[str, Any], theirs: dict[str, Any], prefix: str = "") -> str:
    """`a.b: ours != theirs` for each leaf that differs."""
    out = []
    for key in sorted(set(ours) | set(theirs)):
        a, b = ours.get(key), theirs.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            inner = _differences(a, b, f"{prefix}{key}.")
            if inner:
                out.append(inner)
        elif a != b:
            out.append(f"{prefix}{key}: run {a!r}, server {b!r}")
    return "; ".join(out)
