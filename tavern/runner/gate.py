"""The prompt contract, asserted on every prompt the runner builds.

`tavern.contract` is the one definition of revealing the human. Before any message leaves
the runner it is checked; a violation refuses the call (`PromptContractError`, nothing of
the turn is committed) and is journaled as a never-sent attempt (`journal_refusal`).
Violations that come verbatim from the session's own scenario or character sheets were
already reported as warnings when the session started; they are tolerated so that such a
session stays playable, and everything else refuses.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from tavern import contract
from tavern.records import (
    ChatMessage,
    LlmCallLine,
    LlmRequestBody,
    SessionState,
    estimate_tokens,
    utc_now,
)
from tavern.records.views import ContractWarning
from tavern.runner.interface import RunnerError
from tavern.store import JournalWriter

log = logging.getLogger(__name__)


class PromptContractError(RunnerError):
    """A prompt the runner built would reveal the human; it was not sent.

    A 422: what a client authored (a scenario, a sheet, a turn) is what put the revealing text
    into the prompt, so the input is what must change; nothing of the turn is written.
    """

    status = 422


def sheet_texts(state: SessionState) -> list[tuple[str, str]]:
    """(where, text) for every authored text a session carries from its scenario and cast."""
    out = [("scenario.world", state.world), ("scene.description", state.scene.description)]
    out += [(f"scenario.tone[{i}]", t) for i, t in enumerate(state.tone_directives)]
    out += [(f"scene.facts[{i}]", f) for i, f in enumerate(state.scene.facts)]
    for slot, c in state.cast.items():
        where = f"character:{c.id}"
        out += [
            (f"{where}.mind.personality", c.mind.personality),
            (f"{where}.body.appearance", c.body.appearance),
            (f"{where}.body.description_ref", c.body.description_ref),
        ]
        out += [(f"{where}.mind.secrets[{i}]", s) for i, s in enumerate(c.mind.secrets)]
        out += [(f"{where}.mind.goals[{i}]", g) for i, g in enumerate(c.mind.goals)]
        del slot
    return [(w, t) for w, t in out if t]


def sheet_warnings(state: SessionState) -> list[ContractWarning]:
    """Contract violations found in the session's scenario and character sheets."""
    warnings = []
    for where, text in sheet_texts(state):
        for v in contract.check_text(text, where):
            warnings.append(ContractWarning(rule=v.rule, where=where, excerpt=v.excerpt))
    return warnings


Refusal = Callable[[str, list[ChatMessage], int, str], None]
"""Called with (agent, messages, turn number, reason) before a refusal is raised."""


def journal_refusal(journal: JournalWriter, session_id: str) -> Refusal:
    """A `Refusal` that journals the refused prompt as a failed attempt that was never sent.

    The line is an `llm_call` with `provider="contract"` and `error_type="contract"`, so the
    harness sweeps and the analysis views see refused prompts beside every other attempt.
    """

    def write(agent: str, messages: list[ChatMessage], turn_number: int, reason: str) -> None:
        chars = sum(len(m.content) for m in messages)
        journal.append(
            session_id,
            LlmCallLine(
                ts=utc_now(),
                session_id=session_id,
                turn_number=turn_number,
                agent=agent,
                provider="contract",
                model="-",
                request=LlmRequestBody(messages=messages),
                error=reason,
                error_type="contract",
                duration_ms=0.0,
                attempt_number=1,
                prompt_chars=chars,
                prompt_estimated_tokens=estimate_tokens(chars),
            ),
        )

    return write


class ContractGate:
    """Checks prompts against the contract for one session."""

    def __init__(self, state: SessionState, *, on_refusal: Refusal | None = None) -> None:
        """Remember the session's cast names and the sheet texts already warned about."""
        self.on_refusal = on_refusal
        self.cast_names = [c.body.display_name for c in state.cast.values()]
        self.tolerated = [t for _, t in sheet_texts(state)]
        self.refused = 0

    def _tolerated(self, excerpt: str) -> bool:
        return any(excerpt and excerpt in text for text in self.tolerated)

    def violations(self, messages: list[ChatMessage]) -> list[contract.Violation]:
        """Violations of `messages` not explained by the session's own sheets."""
        found: Iterable[contract.Violation] = contract.check_prompt(messages, self.cast_names)
        return [v for v in found if not self._tolerated(v.excerpt)]

    def check(self, agent: str, messages: list[ChatMessage], turn_number: int = 0) -> None:
        """Raise `PromptContractError` (after journaling it) when the prompt breaks the contract."""
        bad = self.violations(messages)
        if bad:
            self.refused += 1
            reason = f"{agent} prompt breaks the prompt contract: " + "; ".join(
                f"{v.rule}: {v.excerpt!r}" for v in bad[:3]
            )
            log.error("prompt contract refused %s prompt: %s", agent, bad)
            if self.on_refusal is not None:
                self.on_refusal(agent, messages, turn_number, reason)
            raise PromptContractError(reason)
