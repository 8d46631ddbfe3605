"""Sessions: create, list, view, history pages, fork, delete."""

from __future__ import annotations

from fastapi import APIRouter

from tavern.app.deps import AfterQuery, IdPath, LimitQuery, RunnerDep, SessionsDep
from tavern.app.schemas import HistoryPage, SessionCreate, SessionsPublic
from tavern.records.views import SessionView
from tavern.store import new_session_id

router = APIRouter(prefix="/sessions", tags=["sessions"])


@router.post("", status_code=201)
async def create_session(body: SessionCreate, runner: RunnerDep) -> SessionView:
    """Materialize a session from a scenario; `warnings` lists contract violations."""
    return await runner.create_session(body.scenario_id, body.controlled_character_id)


@router.get("")
def list_sessions(sessions: SessionsDep) -> SessionsPublic:
    """Every stored session, most recently updated first."""
    data = sessions.list()
    return SessionsPublic(data=data, count=len(data))


@router.get("/{session_id}")
async def get_session(session_id: IdPath, runner: RunnerDep) -> SessionView:
    """The human's view: transcript, scene, cast, whose turn."""
    return await runner.view(session_id)


@router.get("/{session_id}/history")
def get_history(
    session_id: IdPath, sessions: SessionsDep, after: AfterQuery = -1, limit: LimitQuery = 100
) -> HistoryPage:
    """A bounded page of the full history: records with `seq > after`, in order."""
    data = sessions.history(session_id, after_seq=after, limit=limit)
    next_after = data[-1].seq if len(data) == limit else None
    return HistoryPage(data=data, count=len(data), next_after=next_after)


@router.post("/{session_id}/fork", status_code=201)
async def fork_session(session_id: IdPath, sessions: SessionsDep, runner: RunnerDep) -> SessionView:
    """Copy a session into an independent new one and return the copy's view."""
    forked = sessions.fork(session_id, new_session_id())
    return await runner.view(forked.id)


@router.delete("/{session_id}")
def delete_session(session_id: IdPath, sessions: SessionsDep) -> SessionsPublic:
    """Delete a session (state, history, journal, checkpoints); answers with those left."""
    sessions.delete(session_id)
    data = sessions.list()
    return SessionsPublic(data=data, count=len(data))
