"""`Runner`: the `TurnRunner` the app, the terminal loop and the harness call.

The runner alone knows which character the human controls. It loads the session per call
under the session's lock, runs the turn transaction in memory and commits it with one store
call; the journal receives the raw and effective input, every model attempt and a commit
(or undo) marker.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable
from typing import Any, Literal

import jsonschema

from tavern.agents import character, director, openings, suggest
from tavern.physics.observation import observe
from tavern.records import (
    WORLD,
    Audience,
    ChatMessage,
    CommitLine,
    CompactionCheckpoint,
    CompactionSettings,
    LlmCallLine,
    SessionState,
    SystemRecord,
    TurnInput,
    TurnInputEffectiveLine,
    TurnInputLine,
    UndoLine,
    VariantLine,
    utc_now,
)
from tavern.records.config import FilterProfile
from tavern.records.views import (
    CompactedSpan,
    CompactResult,
    InterviewResult,
    SessionView,
    Suggestion,
    TranscriptPage,
    TurnResult,
)
from tavern.runner import compaction
from tavern.runner.calls import AgentCaller, JsonClient
from tavern.runner.fit import fitted
from tavern.runner.gate import ContractGate, journal_refusal, sheet_warnings
from tavern.runner.input_filter import filter_input
from tavern.runner.interface import (
    ConflictError,
    InvalidTurnError,
    Lines,
    ModelFailureError,
    Progress,
    RunnerError,
    SessionNotFoundError,
)
from tavern.runner.limits import KernelLimits
from tavern.runner.own_view import own_reply, own_sheet
from tavern.runner.screen import cast_members, display_names, perceived_by, transcript_page
from tavern.runner.turn import TurnOutcome, TurnTransaction
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
    TurnVariant,
    journal_path,
    materialize_session,
    new_session_id,
    read_journal,
    reconcile_journal,
)

log = logging.getLogger(__name__)

VIEW_TURNS = 12
"""Turns of transcript a session view carries (earlier ones: `transcript`)."""
RERUN_SEED_STEP = 1000
"""Seed offset per variant of a rerun turn: with a seeded provider the same prompt draws the
same answer, so each variant samples under its own seeds (ask-again offsets stay below)."""


def check_revision(state: SessionState, expected: int | None) -> None:
    """Refuse a request made from a view older than the session (another tab moved on).

    Raises:
        ConflictError: `expected` is given and is not the session's revision.
    """
    if expected is not None and expected != state.revision:
        raise ConflictError(
            f"session {state.id!r} is at revision {state.revision}, not {expected}:"
            " it changed since this view was loaded"
        )


class _Reseeded:
    """A client whose every call samples `offset` seeds further (see `RERUN_SEED_STEP`)."""

    def __init__(self, inner: JsonClient, offset: int) -> None:
        self.inner = inner
        self.offset = offset

    def call_json(self, **kwargs: Any) -> Awaitable[dict[str, Any]]:
        kwargs["seed_offset"] = kwargs.get("seed_offset", 0) + self.offset
        return self.inner.call_json(**kwargs)


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
        compaction: CompactionSettings | None = None,
    ) -> SessionView:
        """Materialize a session from a scenario; warnings carry contract violations.

        `controlled_character_id` may be a cast slot (`C2`) or a library character id;
        `filter_profile`, when given, is the session's own over the runner's; `compaction`,
        the session's compaction settings (automatic compaction is opt-in there).
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
        if compaction is not None:
            state = state.model_copy(update={"compaction": compaction})
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
        tail = self.store.history_tail(state.id, VIEW_TURNS)
        return SessionView(
            id=state.id,
            title=state.title,
            scenario_id=state.scenario_id,
            language=state.language,
            controlled_id=controlled,
            cast=cast_members(state),
            scene=state.scene,
            tick=state.clock.tick,
            turn_number=state.turn_number,
            revision=state.revision,
            transcript=perceived_by(tail, controlled, display_names(state)),
            whose_turn=controlled,
            warnings=sheet_warnings(state) if warn else [],
            compaction=state.compaction,
        )

    async def transcript(
        self, session_id: str, before: int | None = None, turns: int = VIEW_TURNS
    ) -> TranscriptPage:
        """The human's view of the `turns` turns before turn `before` (the latest turns when
        None): full scrollback, a page at a time, with a mark for every turn."""
        state = self._load(session_id)
        last = state.turn_number if before is None else min(before - 1, state.turn_number)
        through = self.store.compacted_through(session_id)
        first = max(0, last - turns + 1, through + 1)
        compacted = None
        if through >= 0 and first == through + 1:
            compacted = CompactedSpan(last_turn=through, summary=state.story_summary)
        if last < first:  # nothing live in the range: turn 0 passed, or all compacted
            return TranscriptPage(
                data=[], turns=[], first_turn=first, next_before=None, compacted=compacted
            )
        page = self.store.turns(session_id, first, last)
        span = range(first, last + 1)
        shown = transcript_page(
            page.records, page.ticks, span, state.controlled_id, display_names(state)
        )
        if compacted is None:
            return shown
        return shown.model_copy(update={"next_before": None, "compacted": compacted})

    # -- turns ------------------------------------------------------------------------------

    async def _transact(
        self,
        session_id: str,
        base: Snapshot,
        turn: TurnInput,
        progress: Progress | None,
        client: JsonClient,
        lines: Lines | None = None,
    ) -> TurnOutcome:
        """Journal the input, filter it and run the transaction from `base` (nothing is
        committed here), then put the turn's lines on disk at one fsync: every line of a
        turn is on disk before the store commits it."""
        state, history, first_seq = base
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
        caller = AgentCaller(client, session_id, self._gate(state))
        outcome = await TurnTransaction(
            state,
            history,
            effective,
            first_seq,
            caller,
            self.limits,
            progress,
            self.filter_profile,
            lines,
        ).run()
        # The commit line after the commit is synced with the next turn's lines; a process
        # that ends before it is written leaves a turn that the next opening of the session
        # marks as recovered (`_reconcile`).
        self.journal.sync(session_id)
        return outcome

    def _journal_commit(
        self, session_id: str, number: int, outcome: TurnOutcome, stored: SessionState
    ) -> None:
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
                    memory_revisions=outcome.memory_revisions,
                    quiet=outcome.quiet,
                ),
            )
        except BaseException:
            self._reconciled.discard(session_id)  # the next touch marks the turn
            raise

    async def play_turn(
        self,
        session_id: str,
        turn: TurnInput,
        progress: Progress | None = None,
        expected_revision: int | None = None,
        lines: Lines | None = None,
    ) -> TurnResult:
        """Run one turn transaction under the session lock and commit it atomically.

        With `expected_revision`, a session that moved on since (another tab played or
        undid) is refused with `ConflictError` before anything is journaled. `lines`
        receives the turn's visible records while it runs (`interface.Lines`).
        """
        async with self.locks.get(session_id):
            self._reconcile(session_id)
            base = self._snapshot(session_id, self.limits.director_turns, self.limits.window_step)
            check_revision(base.state, expected_revision)
            state = base.state
            number = state.turn_number + 1
            outcome = await self._transact(session_id, base, turn, progress, self.client, lines)
            try:
                stored = self.store.commit_turn(
                    session_id,
                    number,
                    outcome.records,
                    outcome.state,
                    state.revision,
                    turn_input=turn,
                )
            except RevisionConflict as exc:
                raise ConflictError(str(exc)) from exc
            self._journal_commit(session_id, number, outcome, stored)
            if progress is not None:
                await progress("committed", 1.0)
            stored = await self._auto_compact(session_id, stored, progress)
            return self._result(state, outcome.records, stored, outcome)

    async def _auto_compact(
        self, session_id: str, stored: SessionState, progress: Progress | None
    ) -> SessionState:
        """After a committed turn (lock held): compact when the session opted in and the
        upcoming Director prompt passes its threshold (`compaction.auto_due`). The turn is
        committed already, so a failed compaction is logged and journaled by its calls,
        never raised; the session stays as the turn left it."""
        if not stored.compaction.auto:
            return stored
        try:
            measured = await compaction.auto_due(self.store, self.client, session_id, self.limits)
            if measured is None:
                return stored
            done = await compaction.compact(
                self.store,
                self.journal,
                AgentCaller(self.client, session_id, self._gate(stored)),
                session_id,
                trigger="auto",
                measured=measured,
                progress=progress,
                min_turns=stored.compaction.auto_min_turns,
            )
        except RunnerError as exc:
            log.warning("automatic compaction of %s failed: %s", session_id, exc)
            return stored
        except BaseException:
            self._reconciled.discard(session_id)  # a line may be missing: recheck
            raise
        return stored if done is None else done.state

    async def compact(
        self,
        session_id: str,
        expected_revision: int | None = None,
        progress: Progress | None = None,
        retention_turns: int | None = None,
    ) -> CompactResult:
        """Fold the history older than the retention window into the story summary, in one
        transaction under the session lock (`tavern.runner.compaction.compact`).

        Raises:
            ConflictError: a stale `expected_revision`, or nothing old enough to compact.
            ModelFailureError: the summarizer failed; nothing was written.
        """
        async with self.locks.get(session_id):
            self._reconcile(session_id)
            state = self._load(session_id)
            check_revision(state, expected_revision)
            try:
                done = await compaction.compact(
                    self.store,
                    self.journal,
                    AgentCaller(self.client, session_id, self._gate(state)),
                    session_id,
                    retention_turns=retention_turns,
                    expected_revision=state.revision,
                    progress=progress,
                )
            except BaseException:
                self._reconciled.discard(session_id)  # a line may be missing: recheck
                raise
            if done is None:
                raise ConflictError(
                    f"session {session_id!r} has nothing older than its retention window of"
                    f" {retention_turns or state.compaction.retention_turns} turns"
                )
            return _compact_result("compact", done.checkpoint, done.state)

    async def set_compaction(
        self,
        session_id: str,
        settings: CompactionSettings,
        expected_revision: int | None = None,
    ) -> SessionView:
        """Replace the session's compaction settings under its lock (a new revision; the
        story is untouched, and undo, reruns and variant flips keep the new settings).

        Raises:
            ConflictError: a stale `expected_revision`.
        """
        async with self.locks.get(session_id):
            state = self._load(session_id)
            check_revision(state, expected_revision)
            try:
                stored = self.store.replace_state(
                    session_id, state.model_copy(update={"compaction": settings}), state.revision
                )
            except RevisionConflict as exc:
                raise ConflictError(str(exc)) from exc
            return self._view(stored, warn=False)

    async def restore(
        self,
        session_id: str,
        expected_revision: int | None = None,
        checkpoint_id: str | None = None,
    ) -> CompactResult:
        """Undo the last compaction from its checkpoint (last in, first out), keeping every
        later turn (`tavern.runner.compaction.restore`).

        Raises:
            ConflictError: a stale `expected_revision`, nothing to restore, a checkpoint that
                is not the last, or a tampered or foreign one (nothing is changed).
        """
        async with self.locks.get(session_id):
            self._reconcile(session_id)
            state = self._load(session_id)
            check_revision(state, expected_revision)
            try:
                stored, checkpoint = compaction.restore(
                    self.store,
                    self.journal,
                    session_id,
                    checkpoint_id=checkpoint_id,
                    expected_revision=state.revision,
                )
            except BaseException:
                self._reconciled.discard(session_id)  # a line may be missing: recheck
                raise
            return _compact_result("restore", checkpoint, stored)

    def _result(
        self,
        state: SessionState,
        records: list[Any],
        stored: SessionState,
        outcome: TurnOutcome | None,
        variants: list[TurnVariant] | None = None,
    ) -> TurnResult:
        """What the human sees of a committed turn (`state`: the state it was played from)."""
        committed = next((v.variant for v in variants or [] if v.committed), 0)
        return TurnResult(
            session_id=state.id,
            turn_number=stored.turn_number,
            records=perceived_by(records, state.controlled_id, display_names(state)),
            control_returned=outcome.control_returned if outcome else stored.turn_number > 0,
            next_speaker=outcome.next_speaker if outcome else None,
            tick=stored.clock.tick,
            revision=stored.revision,
            variant=committed,
            variants=max(1, len(variants or [])),
        )

    async def undo(self, session_id: str, expected_revision: int | None = None) -> SessionState:
        """Remove the highest turn and restore the pre-turn state (`expected_revision`: as
        for `play_turn`)."""
        async with self.locks.get(session_id):
            self._reconcile(session_id)
            before = self._load(session_id)
            check_revision(before, expected_revision)
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

    # -- variants of the last turn ------------------------------------------------------------

    def variants(self, session_id: str) -> list[TurnVariant]:
        """Every variant of the last turn (the committed one marked), by number."""
        self._load(session_id)
        return self.store.variants(session_id)

    async def rerun(
        self,
        session_id: str,
        turn: TurnInput | None = None,
        progress: Progress | None = None,
        expected_revision: int | None = None,
        lines: Lines | None = None,
    ) -> TurnResult:
        """Play the last turn again from its pre-turn state, with its own input (regenerate)
        or with `turn` (an edited input); the committed variant is kept as an alternative.

        The new variant is computed before anything changes and committed in one store
        transaction, so a failed model call leaves the turn as it was.

        Raises:
            ConflictError: turn 0, a stale `expected_revision`, or a turn whose input was
                never stored (played before it was kept) rerun without a new one.
        """
        async with self.locks.get(session_id):
            self._reconcile(session_id)
            state = self._load(session_id)
            check_revision(state, expected_revision)
            try:
                base = self.store.rerun_base(
                    session_id, self.limits.director_turns, self.limits.window_step
                )
            except NothingToUndo as exc:
                raise ConflictError(f"nothing to play again: {exc}") from exc
            turn = turn or base.turn_input
            if turn is None:
                raise ConflictError("this turn's input was not kept; edit it to play it again")
            known = self.store.variants(session_id)
            offset = RERUN_SEED_STEP * (1 + max(v.variant for v in known))
            client = _Reseeded(self.client, offset)
            outcome = await self._transact(session_id, base.snapshot, turn, progress, client, lines)
            try:
                stored = self.store.replace_last_turn(
                    session_id, outcome.records, outcome.state, base.revision, turn
                )
            except RevisionConflict as exc:
                raise ConflictError(str(exc)) from exc
            variants = self.store.variants(session_id)
            now = next(v.variant for v in variants if v.committed)
            self._journal_variant(session_id, stored, "rerun", now, known, len(outcome.records))
            self._journal_commit(session_id, stored.turn_number, outcome, stored)
            if progress is not None:
                await progress("committed", 1.0)
            return self._result(base.snapshot.state, outcome.records, stored, outcome, variants)

    async def flip(
        self, session_id: str, variant: int, expected_revision: int | None = None
    ) -> TurnResult:
        """Commit a set-aside variant of the last turn in place of the committed one.

        Raises:
            ConflictError: stale `expected_revision`, turn 0, or no such variant.
        """
        async with self.locks.get(session_id):
            self._reconcile(session_id)
            state = self._load(session_id)
            check_revision(state, expected_revision)
            known = self.store.variants(session_id)
            try:
                stored, records = self.store.flip_last_turn(session_id, variant, state.revision)
            except (NothingToUndo, RevisionConflict) as exc:
                raise ConflictError(str(exc)) from exc
            except StoreError as exc:
                raise SessionNotFoundError(str(exc)) from exc
            self._journal_variant(session_id, stored, "flip", variant, known, len(records))
            variants = self.store.variants(session_id)
            return self._result(state, records, stored, None, variants)

    def _journal_variant(
        self,
        session_id: str,
        stored: SessionState,
        action: str,
        committed: int,
        before: list[TurnVariant],
        records: int,
    ) -> None:
        aside = next(v.variant for v in before if v.committed)
        self.journal.append(
            session_id,
            VariantLine(
                ts=utc_now(),
                session_id=session_id,
                turn_number=stored.turn_number,
                revision=stored.revision,
                action="rerun" if action == "rerun" else "flip",
                committed_variant=committed,
                set_aside_variant=aside,
                record_count=records,
            ),
        )
        self.journal.sync(session_id)

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
        """Three scenario-grounded opening sparks for an empty session, kept until used: the
        session's last answered openings call at this turn is read back from its journal
        rather than asked again (each visit used to cost a model call)."""
        state = self._load(session_id)
        kept = self._kept_openings(session_id, state.turn_number)
        if kept is not None:
            return kept
        caller = AgentCaller(self.client, session_id, self._gate(state))
        messages = openings.build_messages(state)
        raw = await caller.call("openings", messages, openings.OUTPUT_SCHEMA, state.turn_number)
        return openings.parse(raw)

    def _kept_openings(self, session_id: str, turn_number: int) -> list[str] | None:
        """The sparks of the journal's last successful openings call at `turn_number`, read
        as the call read them (JSON, the schema, the foreign-script cut); None when there is
        none or it no longer reads."""
        try:
            lines = read_journal(journal_path(self.journal.data_dir, session_id))
        except StoreError:
            return None
        for line in reversed(lines):
            if not (
                isinstance(line, LlmCallLine)
                and line.agent == "openings"
                and line.turn_number == turn_number
                and line.session_id == session_id
                and line.error is None
                and line.response is not None
            ):
                continue
            try:
                answer = json.loads(line.response)
                jsonschema.validate(answer, openings.OUTPUT_SCHEMA)
            except (ValueError, jsonschema.ValidationError):
                return None
            return openings.parse(answer)  # the parser cuts foreign script, as the call did
        return None

    async def interview(self, session_id: str, character_id: str, question: str) -> InterviewResult:
        """Ask one character a question out of band and return its answer.

        The character's own prompt of the last committed turn (its sheet, observation and
        memory), closed by `question` as a message of its own, goes through the contract
        gate to the model as agent `interview:<slot>`. The call is journaled like any other;
        nothing is committed and no ledger changes, so no later prompt can hold the question
        or the answer.

        Args:
            session_id: The session.
            character_id: A slot id (`C2`) or the library id of a cast member.
            question: What the character is asked.

        Raises:
            InvalidTurnError: the character is not in the cast.
            ModelFailureError: the call failed, or its answer held nothing.
        """
        async with self.locks.get(session_id):
            state = self._load(session_id)
            slot = _cast_slot(state, character_id)
            history = self.store.history_tail(session_id, self.limits.perception_turns)
            observation = observe(state, history, slot)
            sheet = own_sheet(state, slot)
            messages = fitted(
                lambda budget: character.build_messages(
                    observation, sheet, state.turn_number, memory_budget_tokens=budget
                ),
                self.limits.character_memory_tokens,
                self.limits.room("character"),
            )
            messages = [*messages, ChatMessage(role="user", content=question)]
            agent = f"interview:{slot}"
            caller = AgentCaller(self.client, session_id, self._gate(state))
            raw = await caller.call(agent, messages, character.OUTPUT_SCHEMA, state.turn_number)
            try:
                reply = own_reply(state, slot, character.parse(raw))
            except ValueError as exc:
                raise ModelFailureError(f"{agent}: unusable reply: {exc}") from exc
        return InterviewResult(
            session_id=session_id,
            character=slot,
            turn_number=state.turn_number,
            question=question,
            reply=reply,
        )

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


def _cast_slot(state: SessionState, character_id: str) -> str:
    """The slot of a cast member named by slot id or library id.

    Raises:
        InvalidTurnError: no such cast member.
    """
    if character_id in state.cast:
        return character_id
    for slot, member in state.cast.items():
        if member.id == character_id:
            return slot
    raise InvalidTurnError(f"{character_id!r} is not in the cast of this session")


def _compact_result(
    action: Literal["compact", "restore"], checkpoint: CompactionCheckpoint, state: SessionState
) -> CompactResult:
    """What a compaction or a restore reports: its checkpoint and the state it left."""
    return CompactResult(
        session_id=state.id,
        action=action,
        checkpoint_id=checkpoint.id,
        cutoff_turn=checkpoint.cutoff_turn,
        records=len(checkpoint.records),
        turn_number=state.turn_number,
        revision=state.revision,
        summary_chars=len(state.story_summary),
    )
