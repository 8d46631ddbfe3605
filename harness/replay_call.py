"""Single-call replay: one journaled call, edited, fired K times at any provider.

Pick the call by agent, turn and occurrence (the n-th first attempt of that agent in that
turn), edit its messages (replace a text, or append to a message), and send the prompt as
it was sent (the call-time policy is already in the journaled messages, so it is not added
again) K times, seed after seed. Every answer is journaled to `replay-calls.jsonl` like any
call (an `llm_call` line under the original agent, session `replay-<call id>`), and the
command prints the recorded answer and the K new ones side by side.

Example::

    picked = pick_call(read_journal(path), "character:C2", turn=3)
    messages = edit_messages(picked.request.messages, replace=[("wet", "dry")])
    lines = asyncio.run(fire(picked, messages, resolved, times=3, sink=...))
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence
from typing import Any

import httpx

from harness.config import ResolvedConfig
from harness.evidence import reply_text
from tavern.agents import character, director, openings, outcome, prose, suggest
from tavern.llm.errors import LlmCallError
from tavern.llm.provider import ProviderRequest
from tavern.llm.registry import build_provider, secret_values
from tavern.llm.wrappers import JournalSink, RecordingProvider, ValidatingProvider
from tavern.records import ChatMessage, JournalLine, LlmCallLine

SCHEMAS: dict[str, dict[str, Any]] = {
    "director": director.OUTPUT_SCHEMA,
    "director:outcome": outcome.OUTPUT_SCHEMA,
    "prose": prose.OUTPUT_SCHEMA,
    "character": character.OUTPUT_SCHEMA,
    "interview": character.OUTPUT_SCHEMA,
    "suggest": suggest.OUTPUT_SCHEMA,
    "openings": openings.OUTPUT_SCHEMA,
}
"""Agent (or role) -> the kernel's answer schema, which a replayed call is asked for."""


class CallNotFound(LookupError):
    """No journaled call matches the selection; the message lists what there is."""


def pick_call(
    lines: Sequence[JournalLine], agent: str, turn: int, occurrence: int = 1
) -> LlmCallLine:
    """The `occurrence`-th call (first attempts) of `agent` in `turn`.

    Raises:
        CallNotFound: naming the calls the journal has in that turn.
    """
    calls = [line for line in lines if isinstance(line, LlmCallLine)]
    matching = [
        c for c in calls if c.agent == agent and c.turn_number == turn and c.attempt_number == 1
    ]
    if 1 <= occurrence <= len(matching):
        return matching[occurrence - 1]
    there = sorted({c.agent for c in calls if c.turn_number == turn})
    raise CallNotFound(
        f"no call #{occurrence} of {agent!r} in turn {turn} ({len(matching)} found); "
        f"agents in that turn: {there}"
    )


def edit_messages(
    messages: Sequence[ChatMessage],
    *,
    replace: Sequence[tuple[str, str]] = (),
    append: str | None = None,
    message: int = -1,
) -> list[ChatMessage]:
    """`messages` with each `(old, new)` replaced (in every message) and `append` added to
    message `message` (default the last).

    Raises:
        ValueError: an `old` text found in no message, or no such message.

    >>> m = [ChatMessage(role="system", content="Be brief."),
    ...      ChatMessage(role="user", content="Hi")]
    >>> [x.content for x in edit_messages(m, replace=[("brief", "long")], append="Now.")]
    ['Be long.', 'Hi\\nNow.']
    """
    out = list(messages)
    for old, new in replace:
        if not any(old in m.content for m in out):
            raise ValueError(f"{old!r} is in no message of the call")
        out = [m.model_copy(update={"content": m.content.replace(old, new)}) for m in out]
    if append is not None:
        if not -len(out) <= message < len(out):
            raise ValueError(f"the call has {len(out)} messages; no message {message}")
        target = out[message]
        out[message] = target.model_copy(update={"content": f"{target.content}\n{append}"})
    return out


def schema_for(agent: str) -> dict[str, Any] | None:
    """The kernel's answer schema of `agent` (by its full name, then its role)."""
    return SCHEMAS.get(agent) or SCHEMAS.get(agent.split(":", 1)[0])


async def fire(
    picked: LlmCallLine,
    messages: list[ChatMessage],
    resolved: ResolvedConfig,
    *,
    times: int,
    sink: JournalSink,
    seed: int | None = None,
) -> list[LlmCallLine]:
    """Send `messages` as `picked`'s agent `times` times; each attempt is journaled to `sink`.

    The seed of shot k is `seed + k` (the provider's configured seed, else 0, when `seed` is
    None), so seeded providers draw K samples rather than one K times.
    """
    settings = resolved.config.settings_for()
    base = seed if seed is not None else (settings.seed or 0)
    answers: list[LlmCallLine] = []

    def keep(line: LlmCallLine) -> None:
        answers.append(line)
        sink(line)

    async with httpx.AsyncClient(timeout=None) as http:
        provider = build_provider(resolved.config, http)
        recording = RecordingProvider(
            ValidatingProvider(provider), keep, secrets=secret_values(resolved.config)
        )
        for shot in range(times):
            request = ProviderRequest(
                agent=picked.agent,
                messages=messages,
                schema=schema_for(picked.agent),
                max_tokens=picked.request.max_tokens,
                temperature=settings.temperature,
                seed=base + shot,
                session_id=f"replay-{picked.session_id}"[:64],
                turn_number=picked.turn_number,
            )
            try:
                await recording.complete(request)
            except LlmCallError:
                continue  # journaled with its error; the table shows it
    return answers


def side_by_side(recorded: LlmCallLine, answers: Sequence[LlmCallLine], width: int = 0) -> str:
    """The recorded answer and each new one in columns of equal width.

    >>> from tavern.records import LlmRequestBody
    >>> import datetime as dt
    >>> def line(text: str) -> LlmCallLine:
    ...     return LlmCallLine(ts=dt.datetime.now(dt.UTC), session_id="s", turn_number=1,
    ...         agent="prose", provider="fake", model="fake", duration_ms=0, attempt_number=1,
    ...         prompt_chars=0, prompt_estimated_tokens=0, request=LlmRequestBody(messages=[]),
    ...         response=text)
    >>> print(side_by_side(line('{"narration": "Rain."}'), [line('{"narration": "Snow."}')], 40))
    recorded           | shot 1
    Rain.              | Snow.
    """
    width = width or shutil.get_terminal_size((160, 40)).columns
    columns = 1 + len(answers)
    inner = max(16, (width - 3 * (columns - 1)) // columns)
    texts = [reply_text(recorded)] + [
        reply_text(a) if a.error is None else f"[{a.error_type}] {a.error}" for a in answers
    ]
    wrapped = [textwrap.wrap(t, inner) or [""] for t in texts]
    heads = ["recorded"] + [f"shot {k}" for k in range(1, len(answers) + 1)]
    rows = [" | ".join(h.ljust(inner) for h in heads).rstrip()]
    for index in range(max(map(len, wrapped))):
        cells = [(w[index] if index < len(w) else "").ljust(inner) for w in wrapped]
        rows.append(" | ".join(cells).rstrip())
    return "\n".join(rows)
