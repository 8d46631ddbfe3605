"""The debug drawer's data: journal pages and the next Director prompt."""

from __future__ import annotations

from fastapi import APIRouter

from tavern.app.deps import (
    AfterQuery,
    IdPath,
    LimitQuery,
    RunnerDep,
    ServicesDep,
    SessionsDep,
    SlotDep,
)
from tavern.app.schemas import JournalPage, PromptPreview
from tavern.app.secrets import scrub_secrets
from tavern.records import JOURNAL_LINE_ADAPTER
from tavern.store import SessionNotFound, journal_path, read_journal

router = APIRouter(prefix="/sessions/{session_id}", tags=["debug"])


@router.get("/journal")
def get_journal(
    session_id: IdPath,
    sessions: SessionsDep,
    services: ServicesDep,
    slot: SlotDep,
    after: AfterQuery = -1,
    limit: LimitQuery = 100,
) -> JournalPage:
    """A bounded page of the session's journal: lines whose index is greater than `after`."""
    if not sessions.exists(session_id):
        raise SessionNotFound(f"no session {session_id!r}")
    lines = read_journal(journal_path(services.data_dir, session_id))
    start = max(after + 1, 0)
    page = lines[start : start + limit]
    # Defence in depth: the LLM layer never journals a key, and this proves it per response.
    page = [JOURNAL_LINE_ADAPTER.validate_python(scrub_secrets(line, slot.config)) for line in page]
    indexes = list(range(start, start + len(page)))
    next_after = indexes[-1] if start + len(page) < len(lines) else None
    return JournalPage(data=page, indexes=indexes, count=len(page), next_after=next_after)


@router.get("/prompt-preview")
async def prompt_preview(session_id: IdPath, runner: RunnerDep) -> PromptPreview:
    """The next Director prompt, built without calling a model."""
    return PromptPreview(messages=await runner.prompt_preview(session_id))
