"""The prompt-cache probe: does a provider reuse a repeated prefix? Works for any provider.

Five calls through the ordinary client (each journaled): a warm call with a never-sent long
prefix, three identical repeats, and a control whose prefix differs from its first tokens.
The repeats must reuse more than the control. Evidence, best first: `counters` (cached
prompt tokens reported: the smallest repeat above the control), `prefill_time` (the
server's prompt time: the repeats' mean at most half the control's), `wall_time` (only
durations: the same 2x margin and a control of at least `MIN_CONCLUSIVE_MS`; an in-process
fake is inconclusive and fails).
"""

from __future__ import annotations

import random
import secrets
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from tavern.llm.client import LlmClient
from tavern.llm.errors import LlmCallError
from tavern.llm.provider import Provider
from tavern.llm.wrappers import RetryPolicy
from tavern.records.journal import ChatMessage, LlmCallLine

Method = Literal["counters", "prefill_time", "wall_time"]
LABELS = ("warm", "repeat-1", "repeat-2", "repeat-3", "control")
MIN_CONCLUSIVE_MS = 50.0
TIME_MARGIN = 0.5
PROBE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 20}},
    "required": ["answer"],
    "additionalProperties": False,
}
_WORDS = (
    "lantern cellar harbour ledger copper orchard tallow barrel compass ribbon granite "
    "meadow whistle saddle thimble furnace quarry lattice beacon parchment"
).split()


def probe_prefix(nonce: str, notes: int = 60) -> str:
    """A long system prompt that starts with `nonce` and is deterministic given it.

    The nonce comes first so that two different nonces share no prefix beyond the chat
    template's own opening tokens.
    """
    rng = random.Random(nonce)
    lines = [f"Probe {nonce}. Reference notes for a cache measurement; do not summarise."]
    for number in range(1, notes + 1):
        a, b, c = rng.sample(_WORDS, 3)
        lines.append(f"Note {number}: the {a} of the {b} is kept beside the {c}, shelf {number}.")
    return "\n".join(lines)


def probe_messages(nonce: str, notes: int = 60) -> list[ChatMessage]:
    """The probe's request: the long prefix, then a tiny question with a tiny answer."""
    return [
        ChatMessage(role="system", content=probe_prefix(nonce, notes)),
        ChatMessage(role="user", content='Reply with the JSON object {"answer": "ok"}.'),
    ]


@dataclass(frozen=True)
class ProbeCall:
    """The figures of one probe call, read from its journal line."""

    label: str
    hit_tokens: int | None
    miss_tokens: int | None
    prompt_ms: float | None
    duration_ms: float
    error: str | None = None


@dataclass
class ProbeResult:
    """The verdict of the probe, with what it was based on."""

    provider: str
    model: str
    method: Method
    calls: list[ProbeCall]
    repeat_figure: float
    control_figure: float
    passed: bool
    explanation: str
    lines: list[LlmCallLine] = field(default_factory=list)


def _prompt_ms(line: LlmCallLine) -> float | None:
    timings = (line.usage or {}).get("timings")
    value = timings.get("prompt_ms") if isinstance(timings, dict) else None
    return float(value) if isinstance(value, int | float) else None


def call_figures(label: str, line: LlmCallLine) -> ProbeCall:
    """Extract one call's figures from its journal line."""
    return ProbeCall(
        label=label,
        hit_tokens=line.prompt_cache.hit_tokens,
        miss_tokens=line.prompt_cache.miss_tokens,
        prompt_ms=_prompt_ms(line),
        duration_ms=line.duration_ms,
        error=line.error,
    )


def judge(calls: list[ProbeCall]) -> tuple[Method, float, float, bool, str]:
    """Decide from the five calls' figures (in `LABELS` order) whether the prefix was reused.

    Returns:
        (method, repeat figure, control figure, passed, explanation).
    """
    repeats, control = calls[1:4], calls[4]
    failed = [c.label for c in calls if c.error is not None]
    if failed:
        return "wall_time", 0.0, 0.0, False, "calls failed: " + ", ".join(failed)
    if all(c.hit_tokens is not None for c in (*repeats, control)):
        repeat_hits = float(min(c.hit_tokens or 0 for c in repeats))
        control_hits = float(control.hit_tokens or 0)
        passed = repeat_hits > control_hits
        return (
            "counters",
            repeat_hits,
            control_hits,
            passed,
            f"cached prompt tokens: repeats reuse at least {repeat_hits:.0f}, the changed-prefix "
            f"control {control_hits:.0f}",
        )
    if all(c.prompt_ms is not None for c in (*repeats, control)):
        method: Method = "prefill_time"
        repeat_ms = statistics.mean(c.prompt_ms or 0.0 for c in repeats)
        control_ms = control.prompt_ms or 0.0
        conclusive = True
        what = "server-reported prefill time (no cache counters)"
    else:
        method = "wall_time"
        repeat_ms = statistics.mean(c.duration_ms for c in repeats)
        control_ms = control.duration_ms
        conclusive = control_ms >= MIN_CONCLUSIVE_MS
        what = "call wall time (no cache counters, no prefill timings)"
    ratio = repeat_ms / control_ms if control_ms > 0 else 1.0
    passed = conclusive and ratio <= TIME_MARGIN
    explanation = (
        f"{what}: repeats {repeat_ms:.1f} ms mean, control {control_ms:.1f} ms, ratio "
        f"{ratio:.2f} (pass needs <= {TIME_MARGIN})"
    )
    if not conclusive:
        explanation += f"; inconclusive, the control took under {MIN_CONCLUSIVE_MS:.0f} ms"
    return method, repeat_ms, control_ms, passed, explanation


async def run_cache_probe(
    provider: Provider,
    *,
    sink: Callable[[LlmCallLine], None],
    session_id: str = "probe-cache",
    nonce: str | None = None,
    notes: int = 60,
) -> ProbeResult:
    """Run the five probe calls through an `LlmClient` over `provider` and judge them.

    Each call is one attempt (no retry: a retried call would blur the figures); every line
    goes to `sink` as well as into the result.
    """
    nonce = nonce or secrets.token_hex(8)
    lines: list[LlmCallLine] = []

    def tee(line: LlmCallLine) -> None:
        lines.append(line)
        sink(line)

    client = LlmClient(provider, sink=tee, retry=RetryPolicy(max_attempts=1), temperature=0.0)
    control_nonce = "control-" + nonce
    calls: list[ProbeCall] = []
    for turn, label in enumerate(LABELS):
        messages = probe_messages(control_nonce if label == "control" else nonce, notes)
        try:
            await client.call_json(
                agent="probe",
                messages=messages,
                schema=PROBE_SCHEMA,
                session_id=session_id,
                turn_number=turn,
                max_tokens=16,
            )
        except LlmCallError:  # the failed attempt's journal line carries the error
            if not lines or lines[-1].turn_number != turn:
                raise
        calls.append(call_figures(label, lines[-1]))
    method, repeat, control, passed, explanation = judge(calls)
    return ProbeResult(
        provider=provider.name,
        model=provider.model,
        method=method,
        calls=calls,
        repeat_figure=repeat,
        control_figure=control,
        passed=passed,
        explanation=explanation,
        lines=lines,
    )
