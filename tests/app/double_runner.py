"""A small in-test TurnRunner over the real store, used until `tavern.runner` lands.

It commits the human's records plus one reply per turn, under the store's per-session
locks, so the app's routes, concurrency and SSE paths are exercised against real storage.
"""

from __future__ import annotations

import asyncio

from tavern.records import (
    Audience,
    ChatMessage,
    HistoryRecord,
    NarrationRecord,
    SessionState,
    SpeechRecord,
    ThoughtRecord,
    TurnInput,
)
from tavern.records.history import ActionRecord
from tavern.records.views import CastMember, SessionView, Suggestion, TurnResult
from tavern.runner.interface import ConflictError, InvalidTurnError, Progress, SessionNotFoundError
from tavern.store import (
    Library,
    NothingToUndo,
    NotInLibrary,
    SessionLocks,
    SessionNotFound,
    SessionStore,
    materialize_session,
    new_session_id,
)


class DoubleRunner:
    def __init__(self, library: Library, store: SessionStore, delay: float = 0.0) -> None:
        self.library = library
        self.store = store
        self.locks = SessionLocks()
        self.delay = delay
        self.closed = False

    def _load(self, session_id: str) -> SessionState:
        try:
            return self.store.load(session_id)
        except SessionNotFound as exc:
            raise SessionNotFoundError(str(exc)) from exc

    async def create_session(
        self, scenario_id: str, controlled_character_id: str | None = None
    ) -> SessionView:
        try:
            scenario = self.library.get_scenario(scenario_id)
        except NotInLibrary as exc:
            raise SessionNotFoundError(str(exc)) from exc
        slot = None
        if controlled_character_id is not None:
            slots = [s for s, c in scenario.cast.items() if controlled_character_id in (s, c)]
            if not slots:
                raise InvalidTurnError(f"{controlled_character_id!r} is not in the cast")
            slot = slots[0]
        state = materialize_session(scenario, self.library, new_session_id(), slot)
        self.store.create(state)
        return await self.view(state.id)

    async def view(self, session_id: str) -> SessionView:
        state = self._load(session_id)
        cast = [
            CastMember(
                slot=slot,
                character_id=c.id,
                name=c.body.display_name,
                appearance=c.body.appearance,
                controlled=slot == state.controlled_id,
            )
            for slot, c in state.cast.items()
        ]
        return SessionView(
            id=state.id,
            title=state.title,
            scenario_id=state.scenario_id,
            language=state.language,
            controlled_id=state.controlled_id,
            cast=cast,
            scene=state.scene,
            tick=state.clock.tick,
            turn_number=state.turn_number,
            revision=state.revision,
            transcript=self.store.history(session_id),
            whose_turn=state.controlled_id,
        )

    async def play_turn(
        self, session_id: str, turn: TurnInput, progress: Progress | None = None
    ) -> TurnResult:
        async with self.locks.get(session_id):
            state = self._load(session_id)
            for target in turn.whisper_to:
                if target not in state.cast:
                    raise InvalidTurnError(f"unknown whisper target {target!r}")
            if progress:
                await progress("director", 0.3)
            await asyncio.sleep(self.delay)
            number = state.turn_number + 1
            seq = self.store.next_seq(session_id)
            me = state.controlled_id
            everyone = Audience(origin="public", perceivers=list(state.cast))
            records: list[HistoryRecord] = []

            def add(record: HistoryRecord) -> None:
                records.append(record)

            base = {"turn_number": number, "tick": state.clock.tick}
            if turn.speech:
                audience = (
                    Audience(origin="whisper", perceivers=[me, *turn.whisper_to])
                    if turn.whisper_to
                    else everyone
                )
                add(
                    SpeechRecord(
                        seq=seq + len(records),
                        speaker=me,
                        author="human",
                        audience=audience,
                        text=turn.speech,
                        **base,
                    )
                )
            if turn.thought:
                add(
                    ThoughtRecord(
                        seq=seq + len(records),
                        speaker=me,
                        author="human",
                        audience=Audience(origin="private", perceivers=[me]),
                        text=turn.thought,
                        **base,
                    )
                )
            if turn.action:
                add(
                    ActionRecord(
                        seq=seq + len(records),
                        speaker=me,
                        author="human",
                        audience=everyone,
                        text=turn.action,
                        **base,
                    )
                )
            add(
                NarrationRecord(
                    seq=seq + len(records),
                    speaker="Narrator",
                    author="renderer",
                    audience=everyone,
                    text=f"Beat {number} passes.",
                    **base,
                )
            )
            if progress:
                await progress("commit", 0.9)
            self.store.commit_turn(session_id, number, records, state, state.revision)
            return TurnResult(
                session_id=session_id,
                turn_number=number,
                records=records,
                control_returned=True,
                next_speaker=me,
                tick=state.clock.tick,
            )

    async def undo(self, session_id: str) -> SessionState:
        async with self.locks.get(session_id):
            self._load(session_id)
            try:
                return self.store.undo(session_id)
            except NothingToUndo as exc:
                raise ConflictError(str(exc)) from exc

    async def suggestions(self, session_id: str) -> list[Suggestion]:
        self._load(session_id)
        return [Suggestion(speech="Good evening."), Suggestion(action="I look around.")]

    async def openings(self, session_id: str) -> list[str]:
        self._load(session_id)
        return ["A knock at the door.", "The lamp gutters.", "Someone laughs too loudly."]

    async def prompt_preview(self, session_id: str) -> list[ChatMessage]:
        state = self._load(session_id)
        return [ChatMessage(role="system", content=f"Direct the scene: {state.world}")]

    async def aclose(self) -> None:
        self.closed = True
