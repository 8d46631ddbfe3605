"""Helpers for the LLM layer tests: recorded bodies, mock transports, a list journal sink."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tavern.records import ChatMessage, LlmCallLine

DATA = Path(__file__).parent / "data"
CANARY_KEY = "sk-CANARY-7f3e9d2c41b8a6"

REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "speech": {"type": ["string", "null"]},
        "thought": {"type": ["string", "null"]},
        "action_intent": {"type": ["string", "null"]},
    },
    "required": ["speech"],
}


def load_body(name: str) -> dict[str, Any]:
    """A recorded response body from tests/llm/data/."""
    data: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return data


def mock_http(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.AsyncClient:
    """A shared client whose transport answers in-process."""
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def messages(text: str = "The cellar smells of damp oak.") -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content="You are Brom, the innkeeper (C2)."),
        ChatMessage(role="user", content=text),
    ]


class Journal(list[LlmCallLine]):
    """A sink that keeps every line, and its JSON text as a journal writer would."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def __call__(self, line: LlmCallLine) -> None:
        self.append(line)
        self.texts.append(line.model_dump_json())
