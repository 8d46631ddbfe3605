"""Compaction: old history folded into the story summary, as one reversible transaction.

`compact` (under the session's lock, which the caller holds) reads what a retention window
of distinct turns would evict (`SessionStore.evictable`), folds its public records into the
story summary with the world summarizer (`agents/summarizer.py`, one call per run of
`summarizer.FOLD_CHARS`), seals a checkpoint of the evicted records and the previous summary
(`records.seal_checkpoint`: hashed, its parent the session's last checkpoint), and hands it
to `SessionStore.compact`, which stores it, removes the records, writes the summary and
bumps the revision in one SQLite transaction. A failed call or a refused checkpoint leaves
the session as it was; a journal `compact` line follows the commit.

`restore` undoes the last compaction (last in, first out): the store checks the
checkpoint's hash, id, session and parent link before anything moves, puts its records and
the previous summary back, and keeps every turn played since; a `restore` line follows.

`upcoming_director_tokens` measures the next Director prompt as the runner would send it:
the provider's tokenizer when it has one, else the journal's estimate, said as such on the
`compact` line of an automatic compaction (`auto_due`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tavern.agents import director, summarizer
from tavern.records import (
    ChatMessage,
    CompactionCheckpoint,
    CompactLine,
    RestoreLine,
    SessionState,
    estimate_tokens,
    seal_checkpoint,
    utc_now,
)
from tavern.runner.calls import AgentCaller
from tavern.runner.interface import ConflictError, Progress, WorkDone
from tavern.runner.limits import KernelLimits
from tavern.store import (
    CheckpointError,
    InvalidTurn,
    JournalWriter,
    NothingToUndo,
    RevisionConflict,
    SessionStore,
)

DEFAULT_CONTEXT_TOKENS = 4096
"""The context an automatic compaction measures against when neither the session nor the
runner names one (the embedded model's)."""
AGENT = "summarizer"
"""The agent name of the summarizer's calls in the journal."""

TokenCount = Literal["tokenizer", "estimate"]


@dataclass(frozen=True)
class Measured:
    """The upcoming Director prompt's size against the model's context."""

    prompt_tokens: int
    """Its tokens."""
    token_count: TokenCount
    """`tokenizer` (the provider's own count) or `estimate` (characters / 4)."""
    context_tokens: int
    """The context the threshold is a share of."""

    def share(self) -> float:
        """The prompt's share of the context."""
        return self.prompt_tokens / self.context_tokens


@dataclass(frozen=True)
class Compacted:
    """What one compaction did."""

    state: SessionState
    """The stored state after it."""
    checkpoint: CompactionCheckpoint
    """The sealed checkpoint it stored."""
    evicted_turns: int
    """Distinct turns evicted."""
    kept_turns: int
    """Distinct turns left live."""


async def compact(
    store: SessionStore,
    journal: JournalWriter,
    caller: AgentCaller,
    session_id: str,
    *,
    retention_turns: int | None = None,
    trigger: Literal["manual", "auto"] = "manual",
    measured: Measured | None = None,
    expected_revision: int | None = None,
    progress: Progress | None = None,
    fold_chars: int = summarizer.FOLD_CHARS,
    min_turns: int = 1,
) -> Compacted | None:
    """Compact a session whose lock the caller holds; None when fewer than `min_turns`
    distinct turns are old enough.

    Args:
        store, journal, caller: The runner's store, journal and the session's model caller.
        session_id: The session.
        retention_turns: Distinct turns kept live (the session's setting when None).
        trigger: What started it, for the journal.
        measured: The prompt measure that triggered an automatic compaction.
        expected_revision: Refuse a session that moved since (`ConflictError`).
        progress: Called with ("summarizing", 0.0) before the first summarizer call, then
            ("summarizing", done share) after each one and ("compacted", 1.0) after the
            commit, each with its `WorkDone`: the public evicted records folded so far over
            all of them (plus the commit, counted as one more step), the summarizer calls,
            and the records the commit wrote.
        fold_chars: Characters of event lines per summarizer call.
        min_turns: Fewest distinct turns worth a compaction (an automatic one's
            `CompactionSettings.auto_min_turns`).

    Raises:
        ConflictError: a stale `expected_revision`, or the session moved during the calls.
        ModelFailureError: a summarizer call failed; nothing was written.
    """
    base = store.evictable(session_id, retention_turns or None)
    state = base.state
    if expected_revision is not None and expected_revision != state.revision:
        raise ConflictError(
            f"session {session_id!r} is at revision {state.revision}, not {expected_revision}"
        )
    if base.cutoff_turn < 0 or base.evicted_turns < min_turns:
        return None
    runs = summarizer.chunks(state, base.records, fold_chars)
    total = sum(len(r) for r in runs) + 1
    done = 0
    if progress is not None:
        await progress("summarizing", 0.0, WorkDone(0, total, 0, len(runs)))
    summary = state.story_summary
    for calls, run in enumerate(runs, start=1):
        folding = state.model_copy(update={"story_summary": summary})
        messages = summarizer.build_messages(folding, run)
        raw = await caller.call(AGENT, messages, summarizer.OUTPUT_SCHEMA, state.turn_number)
        summary = summarizer.parse(raw) or summary
        done += len(run)
        if progress is not None:
            await progress("summarizing", done / total, WorkDone(done, total, calls, len(runs)))
    checkpoint = seal_checkpoint(
        session_id,
        base.parent_id,
        base.cutoff_turn,
        base.records,
        state.story_summary,
        summary,
        utc_now(),
    )
    try:
        stored = store.compact(session_id, checkpoint, state.revision)
    except RevisionConflict as exc:
        raise ConflictError(str(exc)) from exc
    except (CheckpointError, InvalidTurn) as exc:
        raise ConflictError(f"compaction refused: {exc}") from exc
    journal.append(
        session_id,
        CompactLine(
            ts=utc_now(),
            session_id=session_id,
            turn_number=stored.turn_number,
            revision=stored.revision,
            checkpoint_id=checkpoint.id,
            parent_id=checkpoint.parent_id,
            cutoff_turn=checkpoint.cutoff_turn,
            evicted_records=len(checkpoint.records),
            evicted_turns=base.evicted_turns,
            kept_turns=base.kept_turns,
            summary_chars=len(summary),
            trigger=trigger,
            prompt_tokens=measured.prompt_tokens if measured else None,
            token_count=measured.token_count if measured else None,
            context_tokens=measured.context_tokens if measured else None,
        ),
    )
    journal.sync(session_id)
    if progress is not None:
        await progress(
            "compacted", 1.0, WorkDone(total, total, len(runs), len(runs), len(checkpoint.records))
        )
    return Compacted(stored, checkpoint, base.evicted_turns, base.kept_turns)


def restore(
    store: SessionStore,
    journal: JournalWriter,
    session_id: str,
    *,
    checkpoint_id: str | None = None,
    expected_revision: int | None = None,
) -> tuple[SessionState, CompactionCheckpoint]:
    """Undo the session's last compaction (the caller holds its lock).

    Raises:
        ConflictError: a stale `expected_revision`, no compaction to restore, a
            `checkpoint_id` that is not the last, or a tampered or foreign checkpoint (the
            message says which; nothing is changed).
    """
    if expected_revision is None:
        expected_revision = store.load(session_id).revision
    try:
        stored, checkpoint = store.restore(session_id, expected_revision, checkpoint_id)
    except (RevisionConflict, NothingToUndo, CheckpointError) as exc:
        raise ConflictError(str(exc)) from exc
    journal.append(
        session_id,
        RestoreLine(
            ts=utc_now(),
            session_id=session_id,
            turn_number=stored.turn_number,
            revision=stored.revision,
            checkpoint_id=checkpoint.id,
            cutoff_turn=checkpoint.cutoff_turn,
            restored_records=len(checkpoint.records),
        ),
    )
    journal.sync(session_id)
    return stored, checkpoint


def upcoming_director_messages(
    store: SessionStore, session_id: str, limits: KernelLimits
) -> list[ChatMessage]:
    """The next Director prompt as a turn would build it now (before the human's input)."""
    snapshot = store.snapshot(session_id, limits.director_turns, limits.window_step)
    return director.build_messages(
        snapshot.state,
        snapshot.tail,
        director.DirectorBeat(max_time_skip=limits.max_skip_ticks),
        budget_tokens=limits.director_history_tokens,
    )


async def measure(
    messages: list[ChatMessage], client: Any, state: SessionState, limits: KernelLimits
) -> Measured:
    """The size of `messages` against the context of `state` (its own setting, else the
    runner's, else `DEFAULT_CONTEXT_TOKENS`): counted by the client's tokenizer when it
    has `count_tokens`, else estimated (characters / 4)."""
    context = state.compaction.context_tokens or limits.context_tokens or DEFAULT_CONTEXT_TOKENS
    counter = getattr(client, "count_tokens", None)
    if counter is not None:
        tokens, how = await counter(messages)
    else:
        tokens, how = estimate_tokens(sum(len(m.content) for m in messages)), "estimate"
    return Measured(tokens, "tokenizer" if how == "tokenizer" else "estimate", context)


async def auto_due(
    store: SessionStore, client: Any, session_id: str, limits: KernelLimits
) -> Measured | None:
    """The measure of the upcoming Director prompt when the session opted in to automatic
    compaction and the prompt passes its threshold share of the context; else None."""
    state = store.load(session_id)
    if not state.compaction.auto:
        return None
    measured = await measure(
        upcoming_director_messages(store, session_id, limits), client, state, limits
    )
    return measured if measured.share() >= state.compaction.threshold else None


__all__ = [
    "AGENT",
    "DEFAULT_CONTEXT_TOKENS",
    "Compacted",
    "Measured",
    "auto_due",
    "compact",
    "measure",
    "restore",
    "upcoming_director_messages",
]
