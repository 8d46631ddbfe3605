"""Schema-driven fuzzing of every operation in /openapi.json: no input may cause a 5xx.

A bounded run (FUZZ_EXAMPLES per operation, 10 by default, derandomized) keeps it fast in
the suite; the number of cases actually sent is written to test-artifacts/fuzz-cases.txt.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error

from tavern.app.main import create_app
from tavern.app.state import AppServices
from tavern.app.wiring import close_runner, runner_factory
from tavern.records.config import AppConfig
from tavern.store import Library, SessionStore

FUZZ_EXAMPLES = int(os.environ.get("TAVERN_FUZZ_EXAMPLES", "10"))
"""Examples per operation; raise it for a longer run (`TAVERN_FUZZ_EXAMPLES=200`)."""
BASE_URL = "http://127.0.0.1:8765"
COUNT_FILE = Path(__file__).resolve().parents[2] / "test-artifacts" / "fuzz-cases.txt"


@pytest.fixture
def fuzz_app(tavern_data_dir: Path) -> Any:
    library, store = Library(tavern_data_dir), SessionStore(tavern_data_dir)
    services = AppServices(
        data_dir=tavern_data_dir,
        library=library,
        sessions=store,
        runner_factory=runner_factory(library, store),
        close_runner=close_runner,
    )
    return create_app(services, AppConfig(active_provider="fake"))


def _real_ids(app: Any) -> dict[str, str]:
    """A fresh session (one turn played) and library ids, so fuzzed cases reach the runner."""

    async def seed() -> dict[str, str]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
            auth = {"X-Tavern-Token": app.state.access_token}
            session = await client.post(
                "/sessions", json={"scenario_id": "the-toll-house"}, headers=auth
            )
            sid = session.json()["id"]
            await client.post(f"/sessions/{sid}/turns", json={"speech": "hello"}, headers=auth)
            characters = (await client.get("/characters")).json()["data"]
        return {
            "session_id": sid,
            "scenario_id": "the-toll-house",
            "character_id": characters[0]["character"]["id"],
        }

    return anyio.run(seed)


def _fuzzer(operation: Any, app: Any, sent: dict[str, int]) -> Any:
    key = f"{operation.method.upper()} {operation.path}"
    token = app.state.access_token
    params = [p for p in ("session_id", "scenario_id", "character_id") if f"{{{p}}}" in key]
    real = _real_ids(app) if params else {}

    @given(case=operation.as_strategy(), use_real=st.booleans())
    @settings(
        max_examples=FUZZ_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def fuzz(case: Any, use_real: bool) -> None:
        if use_real:
            # Half the cases aim at ids that exist, so bodies are fuzzed past the 404.
            for name in params:
                case.path_parameters[name] = real[name]
        response = case.call(base_url=BASE_URL, headers={"X-Tavern-Token": token})
        sent[key] = sent.get(key, 0) + 1
        case.validate_response(response, checks=[not_a_server_error])

    return fuzz


def test_no_input_causes_a_server_error(fuzz_app: Any) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", fuzz_app)
    sent: dict[str, int] = {}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20  # every route is in the schema
    for operation in operations:
        _fuzzer(operation, fuzz_app, sent)()
    COUNT_FILE.parent.mkdir(parents=True, exist_ok=True)
    COUNT_FILE.write_text(
        f"{sum(sent.values())} cases over {len(sent)} operations\n"
        + "".join(f"{v:4d} {k}\n" for k, v in sorted(sent.items()))
    )
    assert sum(sent.values()) >= len(operations)
