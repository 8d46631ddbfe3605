"""Ledger memory capture and name learning, after each beat and before its commit.

Each character gains one digest line per record of the beat it perceived (content or bare
awareness of a whisper), rendered in its own names and redacted for it. Narration never
enters memory: characters do not perceive reader-facing prose, and prose could retell what
a whisper's outsiders must not know. A thought enters its owner's memory only.

When a ledger's lines outgrow the Character memory budget, one model call (the reviser,
`agents/reviser.py`) folds the oldest of them into the ledger's first-person
`memory_summary` (`revise_memory`). Code then checks the answer (`summary_problem`): every
code and number of the folded lines kept verbatim (`physics.verbatim`), no name its owner
has not learned (`physics.identity.unlearned_names`), no word hidden from its owner that its
prompt did not show. A refused answer, a failed or timed-out call leave the lines and the
summary as they were and never fail the turn; every revision goes on the commit line
(`CommitLine.memory_revisions`). The summary is part of the ledger, so undo restores it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from tavern.agents import reviser
from tavern.physics.guards import Knowledge, cast_public_texts, knowledge_of
from tavern.physics.identity import name_learner, renderer, unlearned_names
from tavern.physics.observation import digest_line
from tavern.physics.perception import perceives
from tavern.physics.redaction import Tokenizer, salient_tokens
from tavern.physics.verbatim import codes, dropped
from tavern.records import (
    Character,
    ChatMessage,
    HistoryRecord,
    MemoryRevision,
    PerspectiveLedger,
    Scene,
    SessionState,
    ThoughtRecord,
)
from tavern.runner.calls import AgentCaller
from tavern.runner.fit import prompt_tokens_ceiling
from tavern.runner.gate import PromptContractError
from tavern.runner.interface import ModelFailureError
from tavern.runner.limits import KernelLimits
from tavern.runner.own_view import own_sheet
from tavern.text import lexicon_for

MEMORY_LOW_WATER = 0.2
"""Share of the memory budget a ledger keeps as lines after a revision (or an eviction).

A ledger whose lines outgrow the budget folds its oldest lines at once, down to this
share, rather than one line per beat: between revisions the memory block only grows at its
end, so consecutive Character prompts share it as a cached prefix, and a revision (the one
beat that re-reads the whole block) comes rarely and re-reads a short block. Measured by
`benchmarks.kernel` (cacheable share per role)."""

MEMORY_CEILING = 3.0
"""Multiple of the memory budget that a ledger's lines may reach while its revisions are
refused or fail; past it the oldest are evicted unsummarized (`evict`, outcome `evicted`),
so a model that never writes an acceptable summary cannot grow a ledger without bound."""


def capture_memory(
    ledgers: Mapping[str, PerspectiveLedger],
    cast: Mapping[str, Character],
    beat: Sequence[HistoryRecord],
    context: Sequence[HistoryRecord],
    scene: Scene,
    budget_chars: int | None = None,
    tokens: Tokenizer = salient_tokens,
) -> dict[str, PerspectiveLedger]:
    """Every ledger after the beat: names learned and one digest line per perceived record.

    Args:
        ledgers: Ledgers before the beat.
        cast: The session cast.
        beat: This beat's records, in order.
        context: Recent history including the beat (for the secret-token guards).
        scene: The stage after the beat.
        budget_chars: When given, lines past this many characters are evicted at once
            (`evict`), with no summary: a model-free capture (the kernel benchmark's
            synthetic sessions). A turn passes None and then calls `revise_memory`.
        tokens: What the guards tokenize texts with (the turn's `redaction.TokenTable`).

    Returns:
        New ledgers (unchanged ones are the same objects).
    """
    out = dict(ledgers)
    # The same public words as the viewer's observation (`physics.observe`): its memory
    # line of a record then masks exactly what its view of it masked.
    known = knowledge_of(context, scene, cast_public_texts(cast), tokens)
    for viewer in cast:
        perceived = [r for r in beat if perceives(r, viewer) != "none"]
        ledger = ledgers.get(viewer) or PerspectiveLedger(owner=viewer)
        if not perceived:
            continue
        hidden = known.hidden_from(viewer)
        lines = []
        learn = name_learner(cast, viewer)
        render, rendering = renderer(viewer, ledger, cast), ledger
        for record in perceived:
            ledger = learn(ledger, record)
            if rendering is not ledger:  # a ledger that learned nothing is the same object
                render, rendering = renderer(viewer, ledger, cast), ledger
            line = digest_line(record, viewer, ledger, cast, hidden, render)
            if isinstance(record, ThoughtRecord) and record.speaker == viewer:
                # Its own thought: the one private line its owner keeps (nobody else has it).
                line = "You thought: " + render(record.text)
            if line:
                lines.append(line)
        memory = [*ledger.memory, *lines]
        if budget_chars is not None:
            memory = evict(memory, budget_chars)
        out[viewer] = ledger.model_copy(update={"memory": memory})
    return out


def evict(memory: list[str], budget_chars: int) -> list[str]:
    """`memory` unchanged while it fits `budget_chars`; else its newest lines that fit
    `MEMORY_LOW_WATER` of it (a line counts its length plus a newline).

    >>> evict(["a" * 9] * 4, 40)
    ['aaaaaaaaa', 'aaaaaaaaa', 'aaaaaaaaa', 'aaaaaaaaa']
    >>> evict(["a" * 9] * 6, 50)
    ['aaaaaaaaa']
    """
    total = sum(map(len, memory)) + len(memory)
    if total <= budget_chars:
        return memory
    target, start = budget_chars * MEMORY_LOW_WATER, 0
    while start < len(memory) and total > target:
        total -= len(memory[start]) + 1
        start += 1
    return memory[start:]


def over(memory: Sequence[str], budget_chars: int) -> bool:
    """Whether `memory` takes more than `budget_chars` (a line counts its length plus a
    newline, as in `evict`).

    >>> over(["a" * 9] * 4, 40), over(["a" * 9] * 5, 40)
    (False, True)
    """
    return sum(map(len, memory)) + len(memory) > budget_chars


def to_fold(memory: Sequence[str], budget_chars: int) -> int:
    """How many of the oldest lines a revision folds: those `evict` would drop, at most
    `budget_chars` of them (after refusals the lines may stand far past the budget; the
    reviser's prompt then stays the size of a Character prompt's memory), at least one.

    >>> to_fold(["a" * 9] * 6, 50), to_fold(["a" * 9] * 30, 50)
    (5, 5)
    """
    count = len(memory) - len(evict(list(memory), budget_chars))
    size, fits = 0, 0
    for line in memory[:count]:
        size += len(line) + 1
        if size > budget_chars:
            break
        fits += 1
    return max(1, fits)


def summary_problem(
    summary: str,
    folded: Sequence[str],
    shown: str,
    owner: str,
    state: SessionState,
    known: Knowledge,
) -> tuple[str, list[str]] | None:
    """Why a revised summary must be refused, as (reason, detail), or None when it holds.

    Args:
        summary: The answer's summary.
        folded: The memory lines its prompt asked to fold.
        shown: The whole prompt the reviser was shown.
        owner: Whose summary it is.
        state: The session after the beat (its ledgers hold every name learned).
        known: Who knows which word of the recent history (`guards.knowledge_of`).

    Reasons, in the order they are checked: `empty`; `unlearned_name` (a name or a slot
    id its owner would not write, `identity.unlearned_names`); `dropped_code` (a code or
    number of the folded lines missing verbatim, `verbatim.dropped`); `unperceived` (a
    word hidden from its owner that its prompt did not show).
    """
    if not summary:
        return "empty", []
    ledger = state.ledgers.get(owner) or PerspectiveLedger(owner=owner)
    names = unlearned_names(summary, owner, ledger, state.cast)
    if names:
        return "unlearned_name", names
    lost = dropped(folded, summary, lexicon_for(state.language))
    if lost:
        return "dropped_code", lost
    hidden = known.hidden_from(owner) & salient_tokens(summary) - salient_tokens(shown)
    if hidden:
        return "unperceived", sorted(hidden)
    return None


async def revise_memory(
    state: SessionState,
    context: Sequence[HistoryRecord],
    caller: AgentCaller,
    turn_number: int,
    limits: KernelLimits,
    tokens: Tokenizer = salient_tokens,
) -> tuple[dict[str, PerspectiveLedger], list[MemoryRevision]]:
    """Every ledger after its revision, if it needs one, and what each revision did.

    A ledger whose lines outgrow `limits.character_memory_tokens` (in characters, 4 a
    token) gets one reviser call folding its oldest lines (`to_fold`) into its summary.
    A budget of 0 turns memory off: every line goes, with no call (as before revisions).
    An answer `summary_problem` accepts replaces the summary and drops the folded lines; a
    refused answer or a failed call (a model failure, `limits.revision_seconds` passed, a
    prompt the contract gate refused) leaves both; past `MEMORY_CEILING` times the budget
    the oldest lines are then evicted. Ledgers are revised one after the other, in cast
    order.

    Args:
        state: The session after the beat, its ledgers captured (`capture_memory`).
        context: Recent history including the beat (who knows which word).
        caller: The turn's model caller (agent `reviser:<slot>`).
        turn_number: The turn being played.
        limits: The kernel's budgets, room and timeout.
        tokens: What the guards tokenize texts with (the turn's `redaction.TokenTable`, which
            `capture_memory` already filled with the same context's texts).
    """
    budget = limits.character_memory_tokens * 4
    ledgers = dict(state.ledgers)
    revisions: list[MemoryRevision] = []
    if budget <= 0:  # memory off: nothing to fold, nothing kept (a harness arm starves it)
        emptied = {o: led.model_copy(update={"memory": []}) for o, led in ledgers.items()}
        return emptied, revisions
    known: Knowledge | None = None
    for owner in state.cast:
        ledger = ledgers.get(owner)
        if ledger is None or not over(ledger.memory, budget):
            continue
        if known is None:
            known = knowledge_of(context, state.scene, cast_public_texts(state.cast), tokens)
        revision, ledger = await _revise(state, owner, ledger, known, caller, turn_number, limits)
        revisions.append(revision)
        if revision.outcome != "revised" and over(ledger.memory, int(budget * MEMORY_CEILING)):
            kept = evict(ledger.memory, budget)
            revisions.append(
                MemoryRevision(
                    owner=owner,
                    outcome="evicted",
                    reason=revision.reason,
                    folded_lines=len(ledger.memory) - len(kept),
                    summary_chars=len(ledger.memory_summary),
                )
            )
            ledger = ledger.model_copy(update={"memory": kept})
        ledgers[owner] = ledger
    return ledgers, revisions


def reviser_prompt(
    state: SessionState, owner: str, ledger: PerspectiveLedger, lines: list[str], room: int | None
) -> tuple[list[ChatMessage], int]:
    """The reviser prompt for `owner` folding the oldest of `lines`, and how many it folds:
    all of them, or the oldest half again and again until the prompt fits `room` tokens."""
    sheet = own_sheet(state, owner)
    name = state.cast[owner].body.display_name
    lex = lexicon_for(state.language)
    count = len(lines)
    while True:
        keep = codes("\n".join(lines[:count]), lex)
        messages = reviser.build_messages(name, sheet, ledger.memory_summary, lines[:count], keep)
        if room is None or count <= 1 or prompt_tokens_ceiling(messages) <= room:
            return messages, count
        count //= 2


async def _revise(
    state: SessionState,
    owner: str,
    ledger: PerspectiveLedger,
    known: Knowledge,
    caller: AgentCaller,
    turn_number: int,
    limits: KernelLimits,
) -> tuple[MemoryRevision, PerspectiveLedger]:
    budget = limits.character_memory_tokens * 4
    count = to_fold(ledger.memory, budget)
    messages, count = reviser_prompt(
        state, owner, ledger, ledger.memory[:count], limits.room("reviser")
    )
    folded = ledger.memory[:count]

    def outcome(
        kind: str, reason: str | None = None, detail: Sequence[str] = (), after: str = ""
    ) -> MemoryRevision:
        return MemoryRevision.model_validate(
            {
                "owner": owner,
                "outcome": kind,
                "reason": reason,
                "detail": list(detail),
                "folded_lines": count,
                "summary_chars": len(after or ledger.memory_summary),
            }
        )

    agent = f"reviser:{owner}"
    try:
        raw = await asyncio.wait_for(
            caller.call(agent, messages, reviser.OUTPUT_SCHEMA, turn_number),
            limits.revision_seconds,
        )
    except TimeoutError:
        return outcome("failed", "timeout", [f"{limits.revision_seconds} s"]), ledger
    except ModelFailureError as exc:
        return outcome("failed", "model", [str(exc)]), ledger
    except PromptContractError as exc:
        return outcome("failed", "contract", [str(exc)]), ledger
    summary = reviser.parse(raw)
    shown = "\n".join(m.content for m in messages)
    problem = summary_problem(summary, folded, shown, owner, state, known)
    if problem is not None:
        return outcome("refused", *problem), ledger
    revised = ledger.model_copy(update={"memory_summary": summary, "memory": ledger.memory[count:]})
    return outcome("revised", after=summary), revised
