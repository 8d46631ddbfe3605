"""The turn transaction of DESIGN.md "A turn, as data", under the session lock.

Stages: journal the input, filter it, append the human's records, stage clock deadlines,
Director -> clamps -> canon, prose concurrently with ledger preparation, the speaker queue,
moods, clock, ledger memory, then ONE atomic store commit. Nothing is written to the store
before that commit, so a failure anywhere leaves the session exactly as it was; the journal
keeps every attempt.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from tavern.agents import character, director, outcome, prose
from tavern.llm.early_stop import StopEarly
from tavern.physics import clock as story_clock
from tavern.physics.canon import apply_canon
from tavern.physics.clamps import ClampContext, clamp_decision, has_unresolved_action
from tavern.physics.observation import Observation, observe
from tavern.physics.prompt_labels import TIME_PASSES
from tavern.physics.redaction import TokenTable
from tavern.records import (
    NARRATOR,
    ActionRecord,
    Audience,
    CharacterReply,
    ClampChange,
    DirectorDecision,
    FilterCut,
    HistoryRecord,
    MemoryRevision,
    NarrationRecord,
    SessionState,
)
from tavern.records.config import FilterProfile
from tavern.runner.beat_records import BeatLog
from tavern.runner.calls import AgentCaller
from tavern.runner.filtering import (
    filtered_narration,
    filtered_reply,
    narration_context,
    reply_context,
)
from tavern.runner.fit import fitted
from tavern.runner.follow_up import follow_up, unanswered
from tavern.runner.input_filter import EffectiveTurn
from tavern.runner.interface import Lines, ModelFailureError, Progress
from tavern.runner.limits import KernelLimits
from tavern.runner.memory import capture_memory, revise_memory
from tavern.runner.own_view import own_reply, own_sheet
from tavern.runner.partial import PartialNarration
from tavern.runner.screen import QUIET_MARKER, QUIET_TEXT, display_names, perceived_by

PROMPT_SENTENCES = outcome.prompt_sentences()
"""What the Director's answers may not copy as events (clamp `prompt_copy`)."""


@dataclass
class TurnOutcome:
    """What the transaction produced, before the commit."""

    state: SessionState
    records: list[HistoryRecord]
    control_returned: bool
    next_speaker: str | None
    clamp_changes: list[ClampChange] = field(default_factory=list)
    filter_cuts: list[FilterCut] = field(default_factory=list)
    filter_profile: FilterProfile = "small_local"
    filter_skipped: list[str] = field(default_factory=list)
    memory_revisions: list[MemoryRevision] = field(default_factory=list)
    quiet: bool = False
    """A legal silence: the Director admitted nothing material, so no narration was asked."""


def is_quiet(decision: DirectorDecision) -> bool:
    """Whether an admitted decision is a legal silence: it says nothing material happens and
    holds no event. A small model often says `nothing_happens` beside events it lists; the
    events win (the prose renderer is asked), so a flag alone never silences a beat.

    >>> is_quiet(DirectorDecision(nothing_happens=True))
    True
    >>> is_quiet(DirectorDecision(nothing_happens=False))
    False
    """
    return decision.nothing_happens and not decision.events


class TurnTransaction:
    """One turn, computed in memory from a loaded session; `run` returns what to commit."""

    def __init__(
        self,
        state: SessionState,
        history: Sequence[HistoryRecord],
        effective: EffectiveTurn,
        next_seq: int,
        caller: AgentCaller,
        limits: KernelLimits,
        progress: Progress | None = None,
        filter_profile: FilterProfile = "small_local",
        lines: Lines | None = None,
    ) -> None:
        self.progress = progress
        self.lines = lines
        self._shown = 0
        """How many of the beat's records `lines` has been given (or passed over)."""
        self._early: set[tuple[int, str]] = set()
        """(seq, text) of the events `lines` was given before the follow-ups (`_show_early`)."""
        self.filter_profile: FilterProfile = state.filter_profile or filter_profile
        self.cuts: list[FilterCut] = []
        self.skipped: list[str] = []
        self.state = state
        self.history = list(history)
        self.effective = effective
        self.caller = caller
        self.limits = limits
        self.turn_number = state.turn_number + 1
        self.log = BeatLog(self.turn_number, next_seq, state.clock.tick)
        self._perceived: list[HistoryRecord] | None = None
        self._observations: dict[str, Observation] = {}
        self.tokens = TokenTable()  # every guard and mask of this turn tokenizes through it

    def _context(self) -> list[HistoryRecord]:
        """Recent history plus this beat so far (what observations and guards look at)."""
        return self._perceived_history() + self.log.records

    def _perceived_history(self) -> list[HistoryRecord]:
        if self._perceived is None:
            step = self.limits.window_step
            floor = (self.turn_number - self.limits.perception_turns) // step * step
            self._perceived = [r for r in self.history if r.turn_number > floor]
        return self._perceived

    async def _report(self, stage: str, fraction: float | None) -> None:
        if self.progress is not None:
            await self.progress(stage, fraction)

    async def _show(self) -> None:
        """Give `lines` the beat's records added since the last call, as the human's screen
        shows them. Called only once those records are final (clamped, filtered)."""
        fresh = self.log.records[self._shown :]
        self._shown = len(self.log.records)
        if self.lines is None or not fresh:
            return
        state = self.state
        seen = perceived_by(fresh, state.controlled_id, display_names(state))
        seen = [r for r in seen if (r.seq, r.text) not in self._early]
        if seen:
            await self.lines(seen)

    async def _show_early(self, decision: DirectorDecision) -> None:
        """Show the admitted decision's events while follow-up calls still run.

        A follow-up only adds an outcome event and clamps the decision again: the events
        admitted here keep their text (clamping is idempotent, and the clamp that reads a
        follow-up's answer, `borrowed_outcome`, reads only the asked attempts' outcomes,
        which this decision lacks) and their place, so their seqs are the ones the turn
        commits; a repeat merges into them, widening their witnesses only. So the lines
        given here are final; `_show` passes over them later (`_early`), and gives any
        that came out otherwise (a bug; `tests/runner/test_early_events.py` catches it) as new."""
        preview = replace(self.log, records=list(self.log.records))
        staged = self.state.model_copy(update={"scene": apply_canon(self.state.scene, decision)})
        events = preview.add_events(decision, self._reader_mask(staged))
        fresh = self.log.records[self._shown :]  # the human's own lines and the clock's events
        self._shown = len(self.log.records)
        names = display_names(self.state)
        seen = perceived_by([*fresh, *events], self.state.controlled_id, names)
        self._early.update((r.seq, r.text) for r in seen if r.kind == "event")
        if seen and self.lines is not None:
            await self.lines(seen)

    async def run(self) -> TurnOutcome:
        """Play the beat and return the new state and records (not yet committed)."""
        state, turn = self.state, self.effective.turn
        self.log.add_human(state.scene, state.controlled_id, turn)
        clock = state.clock
        due = story_clock.due_deadlines(clock)
        for deadline in due:
            self.log.add_world_event(state.scene, deadline.event, self._reader_mask(state))
        clock = story_clock.fire(clock, [d.id for d in due])
        invited = turn.skip and not turn.hint
        decision, changes = await self._direct(
            director.DirectorBeat(
                direction=turn.hint,
                let_world_move=invited,
                staged_events=[d.event for d in due],
                max_time_skip=self._skip_bound(invited),
            ),
            invited,
        )
        self.log.mark_actions_resolved()
        scene = apply_canon(state.scene, decision)
        staged = state.model_copy(update={"scene": scene})
        self.log.add_events(decision, self._reader_mask(staged))
        await self._show()  # the human's own lines and the clamped events are final
        quiet = is_quiet(decision)
        if quiet:
            # Legal silence: no prose call. The marker's kernel words are for later prompts;
            # the screen shows the interface's own words for it, never a model's.
            self.log.add_system(QUIET_MARKER, QUIET_TEXT)
            await self._prepare_ledgers(staged, decision.next_speakers)
        else:
            await self._report("prose", 0.4)
            narration, _ = await asyncio.gather(
                self._narrate(staged), self._prepare_ledgers(staged, decision.next_speakers)
            )
            self._add_narration(narration)
        await self._show()
        await self._report("speakers", 0.6)
        returned, next_speaker = await self._speakers(staged, decision.next_speakers)
        moods = {**state.moods, **decision.mood_updates}
        clock = story_clock.advance(clock, decision.time_skip_ticks)
        if decision.time_skip_ticks:
            self.log.add_system("time_skip", TIME_PASSES)
        await self._report("memory", 0.9)
        context = self._context()
        ledgers = capture_memory(
            state.ledgers, state.cast, self.log.records, context, scene, tokens=self.tokens
        )
        captured = staged.model_copy(update={"moods": moods, "clock": clock, "ledgers": ledgers})
        ledgers, revisions = await revise_memory(
            captured, context, self.caller, self.turn_number, self.limits, self.tokens
        )
        new_state = captured.model_copy(update={"ledgers": ledgers})
        return TurnOutcome(
            new_state,
            self.log.records,
            returned,
            next_speaker,
            changes,
            self.cuts,
            self.filter_profile,
            sorted(set(self.skipped)),
            revisions,
            quiet,
        )

    def _reader_mask(self, state: SessionState) -> frozenset[str]:
        """Words the prose renderer must not read: so far only ever spoken (or thought)."""
        return prose.spoken_only_tokens(state, [*self.history, *self.log.records], self.tokens)

    def _skip_bound(self, invited: bool) -> int:
        return self.limits.skip_invite_ticks if invited else self.limits.max_skip_ticks

    async def _direct(
        self, beat: director.DirectorBeat, invited: bool
    ) -> tuple[DirectorDecision, list[ClampChange]]:
        state = self.state
        history = [*self.history, *self.log.records]
        context = director.BeatContext(state, history)  # the follow-ups' prompts share it
        messages = fitted(
            lambda budget: director.build_messages(
                state, history, beat, budget_tokens=budget, context=context
            ),
            self.limits.director_history_tokens,
            self.limits.room("director"),
        )
        raw = await self.caller.call("director", messages, director.OUTPUT_SCHEMA, self.turn_number)
        proposal = director.parse(raw)
        public = _clamp_public(state)
        # Mid-action: an attempt of this beat, or one a Character stated after the last
        # Director call, still awaits adjudication; time must not jump over it.
        pending = has_unresolved_action(self.history) or any(
            isinstance(r, ActionRecord) and not r.resolved for r in self.log.records
        )
        ctx = ClampContext(
            scene=state.scene,
            history=history,  # the window the Director was shown; the call adds no record
            max_skip_ticks=self._skip_bound(invited),
            unresolved_action=pending,
            public_texts=public,
            cast=state.cast,
            turn_number=self.turn_number,
            prompt_sentences=PROMPT_SENTENCES,
            directives=state.tone_directives,
            title=state.title,
            language=state.language,
            tokens=self.tokens,
        )

        decision, changes = clamp_decision(proposal, ctx)
        if self.lines is not None and unanswered(context.history, self.turn_number, decision):
            await self._show_early(decision)  # the follow-ups only add to these events
        decision, answered = await follow_up(
            self.caller,
            context,
            decision,
            ctx,  # the follow-up's outcomes go through the same clamps
            turn=self.turn_number,
            budget_tokens=self.limits.director_history_tokens,
            room=self.limits.room("director"),
        )
        changes += answered
        force = self.effective.force_speaker
        if force is not None and decision.next_speakers != [force]:
            changes.append(
                ClampChange(
                    rule="force_speaker",
                    path="next_speakers",
                    before=decision.next_speakers,
                    after=[force],
                )
            )
            decision = decision.model_copy(update={"next_speakers": [force]})
        return decision, changes

    async def _narrate(self, staged: SessionState) -> str:
        beat = list(self.log.records)
        messages = fitted(
            lambda budget: prose.build_messages(
                staged, self.history, beat, budget_tokens=budget, tokens=self.tokens
            ),
            self.limits.prose_transcript_tokens,
            self.limits.room("prose"),
        )
        runaway = partial(prose.runaway, language=staged.language)
        shows: list[asyncio.Task[None]] = []
        watch = None if self.lines is None else self._partial_narration(staged, beat, shows)

        def watching(answer_so_far: str) -> bool:
            if watch is not None:
                watch.see(answer_so_far)
            return runaway(answer_so_far)

        stop_early: StopEarly = runaway if watch is None else watching
        try:
            raw = await self.caller.call(
                "prose", messages, prose.OUTPUT_SCHEMA, self.turn_number, stop_early=stop_early
            )
        finally:
            await asyncio.gather(*shows)  # every partial goes out before the narration
        text = prose.parse(raw)
        capped = len(text) >= prose.NARRATION_MAX_CHARS
        ctx = narration_context(
            staged, self.state.scene.facts, self.history, beat, self.turn_number, capped
        )
        result = filtered_narration(text, ctx, self.filter_profile)
        self.cuts += result.cuts
        self.skipped += result.skipped
        return result.texts.get("narration", "")

    def _partial_narration(
        self, staged: SessionState, beat: list[HistoryRecord], shows: list[asyncio.Task[None]]
    ) -> PartialNarration:
        """A watch over the streamed narration that shows its filtered complete sentences
        (`runner.partial`); each showing is a task, gathered before the narration is used."""
        assert self.lines is not None
        lines = self.lines
        ctx = narration_context(
            staged, self.state.scene.facts, self.history, beat, self.turn_number, False
        )
        log = self.log

        def repair(text: str) -> str:
            return filtered_narration(text, ctx, self.filter_profile).texts.get("narration", "")

        def show(text: str) -> None:
            record = _narration(log, log.next_seq, text)  # seq not taken: the final one takes it

            async def send() -> None:
                await lines([record], True)

            shows.append(asyncio.get_running_loop().create_task(send()))

        return PartialNarration(repair, show)

    async def _prepare_ledgers(self, staged: SessionState, queue: list[str]) -> None:
        """Warm the routed speakers' observations while the prose renderer works."""
        self._observations = {
            slot: observe(staged, self._context(), slot, self.tokens)
            for slot in queue
            if slot in staged.cast and slot != staged.controlled_id
        }

    def _add_narration(self, text: str) -> None:
        if not text:
            return
        self.log.records.append(_narration(self.log, self.log._seq(), text))

    async def _speakers(self, staged: SessionState, queue: list[str]) -> tuple[bool, str | None]:
        """Run the queue in order; reaching the controlled character returns control."""
        first = True
        for slot in queue:
            if slot == NARRATOR or slot not in staged.cast:
                continue
            if slot == staged.controlled_id:
                return True, slot
            # The first speaker's observation was prepared beside the prose; later ones
            # must hear the earlier replies, so they are observed afresh.
            prepared = self._observations.get(slot) if first else None
            heard = self._context()  # what this speaker heard; its reply is not in it yet
            observation = prepared or observe(staged, heard, slot, self.tokens)
            first = False
            await self._report(f"character:{slot}", 0.6)
            answer = await self._character(staged, slot, observation)
            ctx = reply_context(staged, slot, heard, self.turn_number)
            reply, result = filtered_reply(answer, ctx, self.filter_profile)
            self.cuts += result.cuts
            self.skipped += result.skipped
            if reply is not None:
                self.log.add_reply(staged.scene, slot, reply)
                await self._show()  # the reply as the filters left it
        return False, None

    async def _character(
        self, staged: SessionState, slot: str, observation: Observation
    ) -> CharacterReply:
        """One Character call; an answer with nothing in it is asked again once, saying so."""
        sheet = own_sheet(staged, slot)
        messages = fitted(
            lambda budget: character.build_messages(
                observation, sheet, self.turn_number, memory_budget_tokens=budget
            ),
            self.limits.character_memory_tokens,
            self.limits.room("character"),
        )
        agent = f"character:{slot}"
        for attempt in (1, 2):
            raw = await self.caller.call(
                agent, messages, character.OUTPUT_SCHEMA, self.turn_number, seed_offset=attempt - 1
            )
            try:
                return own_reply(staged, slot, character.parse(raw))
            except ValueError as exc:
                if attempt == 2:
                    raise ModelFailureError(f"{agent}: unusable reply twice: {exc}") from exc
                messages = character.asked_again(messages)
        raise AssertionError("unreachable")


def _clamp_public(state: SessionState) -> list[str]:
    """Public words the clamps add to the stage's: the session title (the first line of every
    history), the cast's appearances and names."""
    return [state.title, *(c.body.appearance for c in state.cast.values())] + [
        c.body.display_name for c in state.cast.values()
    ]


def _narration(log: BeatLog, seq: int, text: str) -> NarrationRecord:
    """The renderer's public narration record of the beat `log` keeps, at `seq`: the final
    one, or a partial one shown while the prose call streams (`_partial_narration`)."""
    return NarrationRecord(
        seq=seq,
        turn_number=log.turn_number,
        speaker=NARRATOR,
        author="renderer",
        audience=Audience(origin="public"),
        tick=log.tick,
        text=text,
    )
