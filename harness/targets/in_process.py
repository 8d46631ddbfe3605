"""The kernel in this process: a `tavern.runner` runner over a data dir.

Example::

    target = InProcessTarget.open(data_dir, config, limits)
    view = await target.create_session("the-toll-house", None)
    await target.play_turn(view.id, TurnInput(speech="Evening."))
    await target.aclose()
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

from harness.records.results import TargetKind
from harness.targets import TargetError
from tavern.records import (
    Character,
    HistoryRecord,
    JournalLine,
    Scenario,
    SessionState,
    TurnInput,
)
from tavern.records.config import AppConfig
from tavern.records.journal import parse_journal_line
from tavern.records.views import (
    CompactResult,
    InterviewResult,
    SessionView,
    Suggestion,
    TurnResult,
)
from tavern.runner import KernelLimits, OwnedRunner, RunnerError, build_runner
from tavern.store import (
    JournalWriter,
    Library,
    NotInLibrary,
    SessionStore,
    StoreError,
    journal_path,
)

T = TypeVar("T")


async def _mapped(work: Awaitable[T]) -> T:
    try:
        return await work
    except RunnerError as exc:
        raise TargetError(exc.status, str(exc)) from exc


class LibraryCatalog:
    """A data dir's library as a `Catalog`; reading it writes nothing."""

    def __init__(self, library: Library) -> None:
        self.library = library

    async def scenario(self, scenario_id: str) -> Scenario:
        """A scenario of the library."""
        try:
            return self.library.get_scenario(scenario_id)
        except (NotInLibrary, StoreError) as exc:
            raise TargetError(404, f"no scenario {scenario_id!r}") from exc

    async def character(self, character_id: str) -> Character:
        """A character sheet of the library."""
        try:
            return self.library.get_character(character_id)
        except (NotInLibrary, StoreError) as exc:
            raise TargetError(404, f"no character {character_id!r}") from exc


class InProcessTarget(LibraryCatalog):
    """A runner for one config over a store, library and journal that may be shared.

    The target closes the store only when it opened it (`open`); a campaign shares one store
    between the targets of its runs.
    """

    kind: TargetKind = "in_process"

    def __init__(
        self,
        runner: OwnedRunner,
        store: SessionStore,
        library: Library,
        *,
        owns_store: bool = False,
    ) -> None:
        super().__init__(library)
        self.runner = runner
        self.store = store
        self.data_dir = store.data_dir
        self._owns_store = owns_store
        self._read: dict[str, tuple[int, int]] = {}
        """Session -> (lines read, byte offset after them) of its journal."""

    @classmethod
    def open(
        cls,
        data_dir: Path,
        config: AppConfig,
        limits: KernelLimits,
        *,
        store: SessionStore | None = None,
        library: Library | None = None,
        journal: JournalWriter | None = None,
    ) -> InProcessTarget:
        """A target for `config` over `data_dir` (or the given shared store and library)."""
        owns = store is None
        store = store or SessionStore(data_dir)
        library = library or Library(data_dir)
        runner = build_runner(
            config=config, library=library, store=store, journal=journal, limits=limits
        )
        return cls(runner, store, library, owns_store=owns)

    async def create_session(self, scenario_id: str, controlled: str | None) -> SessionView:
        """A new session."""
        return await _mapped(self.runner.create_session(scenario_id, controlled))

    async def view(self, session_id: str) -> SessionView:
        """The human's view, without the sheet warnings `create_session` already gave (they
        re-check every sheet against the contract: most of a view's cost)."""
        try:
            state = self.store.load(session_id)
        except StoreError as exc:
            raise TargetError(404, str(exc)) from exc
        return self.runner._view(state, warn=False)

    async def play_turn(self, session_id: str, turn: TurnInput) -> TurnResult:
        """One turn."""
        return await _mapped(self.runner.play_turn(session_id, turn))

    async def undo(self, session_id: str) -> SessionView:
        """Undo the last turn."""
        await _mapped(self.runner.undo(session_id))
        return await self.view(session_id)

    async def compact(self, session_id: str, retention_turns: int | None) -> CompactResult:
        """Compact the old history."""
        return await _mapped(self.runner.compact(session_id, retention_turns=retention_turns))

    async def restore(self, session_id: str) -> CompactResult:
        """Undo the last compaction."""
        return await _mapped(self.runner.restore(session_id))

    async def suggestions(self, session_id: str) -> list[Suggestion]:
        """Candidate moves."""
        return await _mapped(self.runner.suggestions(session_id))

    async def openings(self, session_id: str) -> list[str]:
        """Opening sparks."""
        return await _mapped(self.runner.openings(session_id))

    async def interview(self, session_id: str, character: str, question: str) -> InterviewResult:
        """A question out of band."""
        return await _mapped(self.runner.interview(session_id, character, question))

    async def history_since(self, session_id: str, after_seq: int) -> list[HistoryRecord]:
        """History records after `after_seq`."""
        try:
            return self.store.history(session_id, after_seq=after_seq)
        except StoreError as exc:
            raise TargetError(404, str(exc)) from exc

    async def journal_since(self, session_id: str, count: int) -> list[JournalLine]:
        """Journal lines after the first `count`, reading on from where the last read stopped
        (a line still being written is left for the next read)."""
        read, offset = self._read.get(session_id, (0, 0))
        if read != count:
            read, offset = 0, 0
        path = journal_path(self.data_dir, session_id)
        try:
            with open(path, "rb") as handle:
                handle.seek(offset)
                data = handle.read()
        except FileNotFoundError:
            return []
        complete = data[: data.rfind(b"\n") + 1]
        lines = [
            parse_journal_line(raw, f"{path}:{read + number}")
            for number, raw in enumerate(complete.split(b"\n")[:-1], start=1)
        ]
        self._read[session_id] = (read + len(lines), offset + len(complete))
        return lines[count - read :]

    async def state(self, session_id: str) -> SessionState | None:
        """The stored state."""
        try:
            return self.store.load(session_id)
        except StoreError as exc:
            raise TargetError(404, str(exc)) from exc

    async def compacted(self, session_id: str) -> list[HistoryRecord] | None:
        """The records the stored checkpoints hold, oldest compaction first."""
        try:
            return [r for cp in self.store.checkpoints(session_id) for r in cp.records]
        except StoreError as exc:
            raise TargetError(404, str(exc)) from exc

    async def session_digest(self, session_id: str) -> str:
        """SHA-256 of the stored state (ledgers, memory, clock, revision) and history."""
        digest = hashlib.sha256(self.store.load(session_id).model_dump_json().encode())
        for record in self.store.history(session_id):
            digest.update(record.model_dump_json().encode())
        return digest.hexdigest()

    async def aclose(self) -> None:
        """Close the runner's HTTP client, and the store when this target opened it."""
        await self.runner.aclose()
        if self._owns_store:
            self.store.close()
