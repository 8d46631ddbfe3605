"""Every model call the runner makes goes through `AgentCaller`.

It asserts the prompt contract on the messages before anything is sent, calls the client
(which validates, retries and journals every attempt) and turns a definitive failure into
`ModelFailureError`, so no caller can forget any step. It returns the answer as written:
its repairs are the clamps' (a Director's) and the filters' (a narration, a reply).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol

from tavern.llm.early_stop import StopEarly
from tavern.llm.errors import LlmCallError
from tavern.records import ChatMessage
from tavern.runner.gate import ContractGate
from tavern.runner.interface import ModelFailureError


class JsonClient(Protocol):
    """The part of `tavern.llm.client.LlmClient` the runner uses."""

    def call_json(
        self,
        *,
        agent: str,
        messages: list[ChatMessage],
        schema: dict[str, Any],
        session_id: str,
        turn_number: int,
        max_tokens: int | None = None,
        stop_early: StopEarly | None = None,
        seed_offset: int = 0,
    ) -> Awaitable[dict[str, Any]]:
        """Ask for a JSON object valid against `schema`."""
        ...


class AgentCaller:
    """Gate, call and map failures for one session."""

    def __init__(self, client: JsonClient, session_id: str, gate: ContractGate) -> None:
        """Bind the client to a session and its contract gate."""
        self.client = client
        self.session_id = session_id
        self.gate = gate

    async def call(
        self,
        agent: str,
        messages: list[ChatMessage],
        schema: dict[str, Any],
        turn_number: int,
        stop_early: StopEarly | None = None,
        seed_offset: int = 0,
    ) -> dict[str, Any]:
        """Check the prompt, call the model, return its validated JSON answer (`stop_early`:
        see `tavern.llm.early_stop`; `seed_offset`: see `LlmClient.call_json`).

        Raises:
            PromptContractError: the prompt breaks the agency lock (nothing is sent).
            ModelFailureError: the call failed after its retries.
        """
        self.gate.check(agent, messages, turn_number)
        try:
            answer = await self.client.call_json(
                agent=agent,
                messages=messages,
                schema=schema,
                session_id=self.session_id,
                turn_number=turn_number,
                stop_early=stop_early,
                seed_offset=seed_offset,
            )
        except LlmCallError as exc:
            raise ModelFailureError(f"{agent}: {exc}") from exc
        return answer
