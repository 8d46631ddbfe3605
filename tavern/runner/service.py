"""`Runner`: the `TurnRunner` the app, the terminal loop and the harness call.

The runner alone knows which character the human controls. It loads the session per call
under the session's lock, runs the turn transaction in memory and commits it with one store
call; the journal receives the raw and effective input, every model attempt and a commit
(or undo) marker.
"""

from __future__ import annotations

from tavern.agents import director, openings, suggest
from tavern.physics.observation import observe
from tavern.records import (
    WORLD,
    Audience,
    ChatMessage,
    CommitLine,
    SessionState,
    SystemRecord,
    TurnInput,
    TurnInputEffectiveLine,
    TurnInputLine,
    UndoLine,
    utc_now,
)
from tavern.records.config import FilterProfile
from tavern.records.views import CastMember, SessionView, Suggestion, TurnResult
from tavern.runner.calls import AgentCaller, JsonClient
from tavern.runner.gate import ContractGate, journal_refusal, sheet_warnings
from tavern.runner.input_filter import filter_input
from tavern.runner.interface import (
    ConflictError,
    InvalidTurnError,
    Progress,
    RunnerError,
    SessionNotFoundError,
)
from tavern.runner.limits import KernelLimits
from tavern.runner.own_view import own_sheet
from tavern.runner.screen import display_names, perceived_by
from tavern.runner.turn import TurnTransaction
from tavern.store import (
    JournalWriter,
    Library,
    NothingToUndo,
    NotInLibrary,
    RevisionConflict,
    SchemaVersionMismatch,
    SessionLocks,
    SessionNotFound,
    SessionStore,
    Snapshot,
    StoreError,
    materialize_session,
    new_session_id,
    reconcile_journal,
)

VIEW_TURNS = 12
"""Turns of transcript a session view carries."""


class Runner:
    """The turn runner over one store, library, journal and model client."""

    def __init__(
        self,
        store: SessionStore,
        library: Library,
        journal: JournalWriter,
        client: JsonClient,
        *,
        locks: SessionLocks | None = None,
        limits: KernelLimits | None = None,
        filter_profile: FilterProfile = "small_local",
    ) -> None:
        """Wire the runner; nothing is opened or called here.

        `filter_profile` repairs the model's narration and replies of a session that names
        no profile of its own (`AppConfig.filter_profile_for` gives the provider's).
        """
        self.store = store
        self.library = library
        self.journal = journal
        self.client = client
        self.locks = locks or SessionLocks()
        self.limits = limits or KernelLimits()
        self._reconciled: set[str] = set()
        """Sessions whose journal this runner has made agree with the store."""
        self.filter_profile: FilterProfile = filter_profile

    def _gate(self, state: SessionState) -> ContractGate:
        refusal = journal_refusal(self.journal, state.id)
        return ContractGate(state, on_refusal=refusal)

    # -- sessions ---------------------------------------------------------------------------

    def _reconcile(self, session_id: str) -> None:
        """On this runner's first touch of a session (hold its lock): make the journal agree
        with the store, whatever process ended between a commit and its line
        (`store.reconcile_journal`). A missing session is left to the caller's read."""
        if session_id in self._reconciled:
            return
        try:
            reconcile_journal(self.store, self.journal, session_id)
        except SessionNotFound:
            return
        except SchemaVersionMismatch as exc:
            raise ConflictError(str(exc)) from exc
        except StoreError as exc:
            raise RunnerError(str(exc)) from exc
        self._reconciled.add(session_id)

    def _load(self, session_id: str) -> SessionState:
        return self._snapshot(session_id, 0).state

    def _snapshot(self, session_id: str, turns: int, step: int = 1) -> Snapshot:
        try:
            return self.store.snapshot(session_id, turns, step)
        except SessionNotFound as exc:
            raise SessionNotFoundError(str(exc)) from exc
        except SchemaVersionMismatch as exc:
            raise ConflictError(str(exc)) from exc
        except StoreError as exc:
            raise RunnerError(str(exc)) from exc

    async def create_session(
        self,
        scenario_id: str,
        controlled_character_id: str | None = None,
        filter_profile: FilterProfile | None = None,
    ) -> SessionView:
        """Materialize a session from a scenario; warnings carry contract violations.

        `controlled_character_id` may be a cast slot (`C2`) or a library character id;
        `filter_profile`, when given, is the session's own over the runner's.
        """
        try:
            scenario = self.library.get_scenario(scenario_id)
        except (NotInLibrary, StoreError) as exc:
            raise SessionNotFoundError(f"no scenario {scenario_id!r}") from exc
        slot = controlled_character_id
        if slot is not None and slot not in scenario.cast:
            by_character = [s for s, cid in scenario.cast.items() if cid == slot]
            if not by_character:
                raise InvalidTurnError(f"{slot!r} is not in the cast of {scenario_id!r}")
            slot = by_character[0]
        try:
            state = materialize_session(scenario, self.library, new_session_id(), slot)
        except NotInLibrary as exc:
            raise SessionNotFoundError(str(exc)) from exc
        except StoreError as exc:
            raise InvalidTurnError(str(exc)) from exc
        if filter_profile is not None:
            state = state.model_copy(update={"filter_profile": filter_profile})
        start = SystemRecord(
            seq=0,
            turn_number=0,
            speaker=WORLD,
            author="kernel",
            audience=Audience(origin="public"),
            marker="session_start",
            text=scenario.title,
        )
        self.store.create(state, [start])
        return self._view(state, warn=True)

    async def view(self, session_id: str) -> SessionView:
        """The human's view of a session (opening it reconciles its journal, once)."""
        if session_id not in self._reconciled:
            async with self.locks.get(session_id):
                self._reconcile(session_id)
        return self._view(self._load(session_id), warn=True)

    def _view(self, state: SessionState, *, warn: bool) -> SessionView:
        controlled = state.controlled_id
        cast = [
            CastMember(
                slot=slot,
                character_id=c.id,
                name=c.body.display_name,
                appearance=c.body.appearance,
                zone=state.scene.positions.get(slot),
                mood=state.moods.get(slot),
                controlled=slot == controlled,
            )
            for slot, c in state.cast.items()
        ]
        tail = self.store.history_tail(state.id, VIEW_TURNS)
        return SessionView(
            id=state.id,
            title=state.title,
            scenario_id=state.scenario_id,
            language=state.language,
            controlled_id=controlled,
            cast=cast,
            scene=state.scene,
            tick=state.clock.tick,
            turn_number=state.turn_number,
            revision=state.revision,
            transcript=perceived_by(tail, controlled, display_names(state)),
            whose_turn=controlled,
            warnings=sheet_warnings(state) if warn else [],
        )

    # -- turns ------------------------------------------------------------------------------

    async def play_turn(
        self, session_id: str, turn: TurnInput, progress: Progress | None = None
    ) -> TurnResult:
        """Run one turn transaction under the session lock and commit it atomically."""
        async with self.locks.get(session_id):
            self._reconcile(session_id)
            state, history, first_seq = self._snapshot(
                session_id, self.limits.director_turns, self.limits.window_step
            )
            number = state.turn_number + 1
            self.journal.append(
                session_id,
                TurnInputLine(ts=utc_now(), session_id=session_id, turn_number=number, input=turn),
            )
            effective = filter_input(turn, state)
            self.journal.append(
                session_id,
                TurnInputEffectiveLine(
                    ts=utc_now(),
                    session_id=session_id,
                    turn_number=number,
                    input=effective.turn,
                    effective_force_speaker=effective.force_speaker,
                    transformed_fields=effective.transformed_fields,
                ),
            )
            if progress is not None:
                await progress("director", None)
            caller = AgentCaller(self.client, session_id, self._gate(state))
            outcome = await TurnTransaction(
                state,
                history,
                effective,
                first_seq,
                caller,
                self.limits,
                progress,
                self.filter_profile,
            ).run()
            # One fsync a turn: every line of the turn is on disk before the store commits
            # it. The commit line after the commit is synced with the next turn's lines; a
            # process that ends before it is written leaves a turn that the next opening of
            # the session marks as recovered (`_reconcile`).
            self.journal.sync(session_id)
            try:
                stored = self.store.commit_turn(
                    session_id, number, outcome.records, outcome.state, state.revision
                )
            except RevisionConflict as exc:
                raise ConflictError(str(exc)) from exc
            try:
                self.journal.append(
                    session_id,
                    CommitLine(
                        ts=utc_now(),
                        session_id=session_id,
                        turn_number=number,
                        revision=stored.revision,
                        record_count=len(outcome.records),
                        tick=stored.clock.tick,
                        control_returned=outcome.control_returned,
                        clamp_changes=outcome.clamp_changes,
                        filter_cuts=outcome.filter_cuts,
                        filter_profile=outcome.filter_profile,
                        filter_skipped=outcome.filter_skipped,
                    ),
                )
            except BaseException:
                self._reconciled.discard(session_id)  # the next touch marks the turn
                raise
            if progress is not None:
                await progress("committed", 1.0)
            return TurnResult(
                session_id=session_id,
                turn_number=number,
                records=perceived_by(outcome.records, state.controlled_id, display_names(state)),
                control_returned=outcome.control_returned,
                next_speaker=outcome.next_speaker,
                tick=stored.clock.tick,
            )

    async def undo(self, session_id: str) -> SessionState:
        """Remove the highest turn and restore the pre-turn state."""
        async with self.locks.get(session_id):
            self._reconcile(session_id)
            before = self._load(session_id)
            last = self.store.history_tail(session_id, 1)
            removed = [r for r in last if r.turn_number == before.turn_number]
            try:
                restored = self.store.undo(session_id)
            except NothingToUndo as exc:
                raise ConflictError(str(exc)) from exc
            try:
                self.journal.append(
                    session_id,
                    UndoLine(
                        ts=utc_now(),
                        session_id=session_id,
                        turn_number=before.turn_number,
                        revision=restored.revision,
                        removed_turn=before.turn_number,
                        removed_records=len(removed),
                    ),
                )
            except BaseException:
                self._reconciled.discard(session_id)  # the next touch marks the undo
                raise
            self.journal.sync(session_id)
            return restored

    # -- helpers for the human ----------------------------------------------------------------

    async def suggestions(self, session_id: str) -> list[Suggestion]:
        """Three candidate moves for the controlled character; nothing is persisted."""
        state = self._load(session_id)
        slot = state.controlled_id
        history = self.store.history_tail(session_id, self.limits.perception_turns)
        observation = observe(state, history, slot)
        sheet = own_sheet(state, slot)
        messages = suggest.build_messages(
            observation, sheet, state.turn_number, self.limits.character_memory_tokens
        )
        caller = AgentCaller(self.client, session_id, self._gate(state))
        raw = await caller.call("suggest", messages, suggest.OUTPUT_SCHEMA, state.turn_number)
        return suggest.parse(raw)

    async def openings(self, session_id: str) -> list[str]:
        """Three scenario-grounded opening sparks for an empty session."""
        state = self._load(session_id)
        caller = AgentCaller(self.client, session_id, self._gate(state))
        messages = openings.build_messages(state)
        raw = await caller.call("openings", messages, openings.OUTPUT_SCHEMA, state.turn_number)
        return openings.parse(raw)

    async def prompt_preview(self, session_id: str) -> list[ChatMessage]:
        """The next Director prompt, built without calling a model."""
        state = self._load(session_id)
        history = self.store.history_tail(session_id, self.limits.director_turns)
        return director.build_messages(
            state,
            history,
            director.DirectorBeat(max_time_skip=self.limits.max_skip_ticks),
            budget_tokens=self.limits.director_history_tokens,
        )
