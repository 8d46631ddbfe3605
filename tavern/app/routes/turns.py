"""Play: turns, undo, reruns and variants of the last turn, compaction and restore,
suggestions, opening sparks and interviews. Long calls stream over SSE on request; writes
take the view's `revision` (a stale one: 409)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import StreamingResponse

from tavern.app.deps import IdPath, RevisionQuery, RunnerDep
from tavern.app.schemas import (
    CompactRequest,
    InterviewAsk,
    OpeningsPublic,
    RerunRequest,
    RestoreRequest,
    SuggestionsPublic,
    VariantsPublic,
)
from tavern.app.sse import EVENT_STREAM, stream_turn, stream_work, wants_event_stream
from tavern.records import TurnInput
from tavern.records.views import CompactResult, InterviewResult, SessionView, TurnResult
from tavern.runner.interface import Progress

router = APIRouter(prefix="/sessions/{session_id}", tags=["play"])

# These routes may answer with a stream instead of their model, so the model is named in the
# decorator: FastAPI cannot derive it from a union with a Response.
_SSE_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {EVENT_STREAM: {"schema": {"type": "string"}}},
        "description": "JSON, or an SSE stream of progress/result/error when asked",
    }
}


VariantPath = Annotated[int, Path(ge=0, le=2**31, description="A variant number")]


@router.post("/turns", response_model=TurnResult, responses=_SSE_DOC)
async def play_turn(
    session_id: IdPath,
    body: TurnInput,
    runner: RunnerDep,
    request: Request,
    revision: RevisionQuery = None,
) -> TurnResult | StreamingResponse:
    """Run one turn; returns what the human may see and whether control returned. As a
    stream, the turn's lines come as they are final (`line` events), before the result."""
    if wants_event_stream(request):
        return stream_turn(
            lambda progress, lines: runner.play_turn(session_id, body, progress, revision, lines)
        )
    return await runner.play_turn(session_id, body, None, revision)


@router.post("/undo")
async def undo_turn(
    session_id: IdPath, runner: RunnerDep, revision: RevisionQuery = None
) -> SessionView:
    """Remove the last turn and restore the pre-turn state; returns the new view."""
    await runner.undo(session_id, revision)
    return await runner.view(session_id)


@router.post("/compact", response_model=CompactResult, responses=_SSE_DOC)
async def compact_session(
    session_id: IdPath,
    runner: RunnerDep,
    request: Request,
    body: CompactRequest | None = None,
    revision: RevisionQuery = None,
) -> CompactResult | StreamingResponse:
    """Fold the history older than the retention window into the story summary, in one
    transaction; streams `summarizing` progress (the share of evicted records folded) when
    asked. Nothing old enough: 409."""
    retention = body.retention_turns if body else None
    if wants_event_stream(request):
        return stream_work(
            lambda progress: runner.compact(session_id, revision, progress, retention)
        )
    return await runner.compact(session_id, revision, None, retention)


@router.post("/restore")
async def restore_session(
    session_id: IdPath,
    runner: RunnerDep,
    body: RestoreRequest | None = None,
    revision: RevisionQuery = None,
) -> CompactResult:
    """Undo the last compaction from its checkpoint, keeping every later turn; a tampered or
    foreign checkpoint, or none: 409 and nothing changes."""
    return await runner.restore(session_id, revision, body.checkpoint_id if body else None)


@router.get("/variants")
async def list_variants(session_id: IdPath, runner: RunnerDep) -> VariantsPublic:
    """Every variant of the last turn (regenerated or edited runs), the committed one marked."""
    view = await runner.view(session_id)
    return VariantsPublic(turn_number=view.turn_number, data=runner.variants(session_id))


@router.post("/rerun", response_model=TurnResult, responses=_SSE_DOC)
async def rerun_turn(
    session_id: IdPath,
    body: RerunRequest,
    runner: RunnerDep,
    request: Request,
    revision: RevisionQuery = None,
) -> TurnResult | StreamingResponse:
    """Play the last turn again, with its own input or an edited one; the committed variant
    is kept, to flip back to."""
    if wants_event_stream(request):
        return stream_turn(
            lambda progress, lines: runner.rerun(session_id, body.input, progress, revision, lines)
        )
    return await runner.rerun(session_id, body.input, None, revision)


@router.post("/variants/{variant}")
async def flip_variant(
    session_id: IdPath, variant: VariantPath, runner: RunnerDep, revision: RevisionQuery = None
) -> TurnResult:
    """Commit another variant of the last turn in place of the one shown."""
    return await runner.flip(session_id, variant, revision)


@router.post("/suggestions", response_model=SuggestionsPublic, responses=_SSE_DOC)
async def suggestions(
    session_id: IdPath, runner: RunnerDep, request: Request
) -> SuggestionsPublic | StreamingResponse:
    """Three candidate moves for the controlled character; nothing is persisted."""

    async def work(progress: Progress | None = None) -> SuggestionsPublic:
        if progress is not None:
            await progress("suggestions", None)
        return SuggestionsPublic(data=await runner.suggestions(session_id))

    if wants_event_stream(request):
        return stream_work(work)
    return await work()


@router.post("/openings", response_model=OpeningsPublic, responses=_SSE_DOC)
async def openings(
    session_id: IdPath, runner: RunnerDep, request: Request
) -> OpeningsPublic | StreamingResponse:
    """Three opening sparks for an empty session."""

    async def work(progress: Progress | None = None) -> OpeningsPublic:
        if progress is not None:
            await progress("openings", None)
        return OpeningsPublic(data=await runner.openings(session_id))

    if wants_event_stream(request):
        return stream_work(work)
    return await work()


@router.post("/interview")
async def interview(session_id: IdPath, body: InterviewAsk, runner: RunnerDep) -> InterviewResult:
    """Ask one character a question out of band: journaled as `interview:<slot>`, never
    committed, never remembered."""
    return await runner.interview(session_id, body.character, body.question)
