"""Leak sweeps over what a run actually sent and received (the fake provider's requests and
the journal). Each sweep is a plain function so the negative controls run the very same code
against a deliberately leaky build."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tavern.llm.provider import ProviderRequest
from tavern.records import LlmCallLine, SessionState


def prompt_of(request: ProviderRequest) -> str:
    return "\n".join(m.content for m in request.messages)


def call_texts(calls: Iterable[LlmCallLine], agents: set[str] | None = None) -> list[str]:
    """Prompt and response text of journaled calls, optionally only for some agents."""
    out = []
    for call in calls:
        if agents is not None and call.agent not in agents:
            continue
        out.append("\n".join(m.content for m in call.request.messages))
        out.append(call.response or "")
    return out


def leaks(token: str, texts: Iterable[str]) -> list[str]:
    """The texts (trimmed around the hit) in which `token` occurs, case-insensitively."""
    found = []
    for text in texts:
        i = text.lower().find(token.lower())
        if i >= 0:
            found.append(text[max(0, i - 80) : i + 80])
    return found


def outsider_agents(state: SessionState, insiders: set[str]) -> set[str]:
    """Every agent name that is not the Director and not an insider's Character or memory
    revision call."""
    outsiders = [slot for slot in state.cast if slot not in insiders]
    agents = {f"{role}:{slot}" for slot in outsiders for role in ("character", "reviser")}
    return agents | {"prose", "suggest", "openings"}


def unlearned_names(state: SessionState, viewer: str, text: str) -> list[tuple[str, str]]:
    """(slot, form) of every true-name form of another character that `viewer` has not
    learned under that exact form but that occurs in `text`."""
    ledger = state.ledgers[viewer]
    bad = []
    for slot, character in state.cast.items():
        if slot == viewer:
            continue
        full = character.body.display_name
        words = full.split()
        forms = [full] + [w for w in {words[0], words[-1]} if w != full and len(w) >= 3]
        learned = ledger.identities[slot].name if slot in ledger.identities else None
        for form in forms:
            if learned and (form == learned or form in learned.split()):
                continue
            if re.search(rf"\b{re.escape(form)}\b", text):
                bad.append((slot, form))
    return bad
