"""Sessions: create, list, view, rename, compaction settings, transcript and history pages,
usage, fork, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tavern.app.deps import (
    AfterQuery,
    IdPath,
    LimitQuery,
    RevisionQuery,
    RunnerDep,
    ServicesDep,
    SessionsDep,
    UsageDep,
)
from tavern.app.schemas import HistoryPage, SessionCreate, SessionRename, SessionsPublic
from tavern.app.usage import UsagePublic
from tavern.records import CompactionSettings
from tavern.records.views import SessionView, TranscriptPage
from tavern.store import SessionNotFound, SessionSummary, journal_path, new_session_id

router = APIRouter(prefix="/sessions", tags=["sessions"])

TurnQuery = Annotated[int, Query(ge=0, le=2**31, description="A turn number")]
TurnsQuery = Annotated[int, Query(ge=1, le=200, description="Turns per page (at most 200)")]


@router.post("", status_code=201)
async def create_session(body: SessionCreate, runner: RunnerDep) -> SessionView:
    """Materialize a session from a scenario; `warnings` lists contract violations."""
    return await runner.create_session(
        body.scenario_id, body.controlled_character_id, compaction=body.compaction
    )


@router.get("")
def list_sessions(sessions: SessionsDep) -> SessionsPublic:
    """Every stored session, most recently updated first."""
    data = sessions.list()
    return SessionsPublic(data=data, count=len(data))


def _summary(sessions: SessionsDep, session_id: str) -> SessionSummary:
    found = next((s for s in sessions.list() if s.id == session_id), None)
    if found is None:
        raise SessionNotFound(f"no session {session_id!r}")
    return found


@router.get("/{session_id}")
async def get_session(session_id: IdPath, runner: RunnerDep) -> SessionView:
    """The human's view: recent transcript, scene, cast, whose turn."""
    return await runner.view(session_id)


@router.patch("/{session_id}")
def rename_session(
    session_id: IdPath, body: SessionRename, sessions: SessionsDep
) -> SessionSummary:
    """Name the session in the list (blank clears the name); the story is untouched."""
    name = (body.name or "").strip() or None
    sessions.rename(session_id, name)
    return _summary(sessions, session_id)


@router.put("/{session_id}/compaction")
async def set_compaction(
    session_id: IdPath,
    body: CompactionSettings,
    runner: RunnerDep,
    revision: RevisionQuery = None,
) -> SessionView:
    """Replace the session's compaction settings: automatic compaction on or off, the
    retention (turns kept live) that a manual compaction uses too. A stale revision: 409."""
    return await runner.set_compaction(session_id, body, revision)


@router.get("/{session_id}/transcript")
async def get_transcript(
    session_id: IdPath,
    runner: RunnerDep,
    before: TurnQuery | None = None,
    turns: TurnsQuery = 20,
) -> TranscriptPage:
    """What the human's character perceived over the `turns` turns before `before` (the
    latest ones without it), with a mark per turn: scrollback, a page at a time."""
    return await runner.transcript(session_id, before, turns)


@router.get("/{session_id}/history")
def get_history(
    session_id: IdPath, sessions: SessionsDep, after: AfterQuery = -1, limit: LimitQuery = 100
) -> HistoryPage:
    """A bounded page of the full history: records with `seq > after`, in order."""
    data = sessions.history(session_id, after_seq=after, limit=limit)
    next_after = data[-1].seq if len(data) == limit else None
    return HistoryPage(data=data, count=len(data), next_after=next_after)


@router.get("/{session_id}/usage")
def get_usage(
    session_id: IdPath, sessions: SessionsDep, services: ServicesDep, books: UsageDep
) -> UsagePublic:
    """Tokens, cache hit share, latency and cost per committed turn and for the session."""
    summary = _summary(sessions, session_id)
    path = journal_path(services.data_dir, session_id)
    ledger = books.read(path, session_id, summary.forked_at_turn)
    return ledger.public(summary.turn_number)


@router.post("/{session_id}/fork", status_code=201)
async def fork_session(
    session_id: IdPath, sessions: SessionsDep, runner: RunnerDep, turn: TurnQuery | None = None
) -> SessionView:
    """Copy a session into an independent new one (taken back to right after `turn` when
    given) and return the copy's view."""
    forked = sessions.fork(session_id, new_session_id(), at_turn=turn)
    return await runner.view(forked.id)


@router.delete("/{session_id}")
def delete_session(session_id: IdPath, sessions: SessionsDep) -> SessionsPublic:
    """Delete a session (state, history, journal, checkpoints); answers with those left."""
    sessions.delete(session_id)
    data = sessions.list()
    return SessionsPublic(data=data, count=len(data))
