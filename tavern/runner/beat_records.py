"""Building one beat's history records: the human's input, clamped events, character replies.

Audiences come from `physics.perception` only. The human's records carry `author="human"`,
an internal marker that no prompt builder renders: prompts see records only through
projections keyed by speaker, so a human line reads exactly like anyone else's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from tavern.physics.perception import audience_for, event_audience
from tavern.physics.redaction import redact
from tavern.records import (
    WORLD,
    ActionRecord,
    Audience,
    CharacterReply,
    DirectorDecision,
    EventRecord,
    HistoryRecord,
    Scene,
    SpeechRecord,
    SystemRecord,
    ThoughtRecord,
    TurnInput,
)
from tavern.records.history import Author


@dataclass
class BeatLog:
    """The records of the turn being built, with seq allocation."""

    turn_number: int
    next_seq: int
    tick: int
    records: list[HistoryRecord] = field(default_factory=list)

    def _seq(self) -> int:
        seq = self.next_seq
        self.next_seq += 1
        return seq

    def __iter__(self) -> Iterator[HistoryRecord]:
        return iter(self.records)

    def add_speech(
        self,
        scene: Scene,
        speaker: str,
        author: Author,
        text: str,
        whisper_to: list[str] | None = None,
        reply_to: SpeechRecord | None = None,
    ) -> SpeechRecord:
        """Append spoken (or whispered) words with their computed audience."""
        audience = audience_for(scene, speaker, "speech", whisper_to or (), reply_to)
        record = SpeechRecord(
            seq=self._seq(),
            turn_number=self.turn_number,
            speaker=speaker,
            author=author,
            audience=audience,
            tick=self.tick,
            text=text,
            reply_to=reply_to.seq
            if reply_to is not None and audience.origin == "whisper"
            else None,
        )
        self.records.append(record)
        return record

    def add_action(self, scene: Scene, speaker: str, author: Author, text: str) -> ActionRecord:
        """Append a physical attempt, seen by whoever can see the actor's zone."""
        record = ActionRecord(
            seq=self._seq(),
            turn_number=self.turn_number,
            speaker=speaker,
            author=author,
            audience=audience_for(scene, speaker, "action"),
            tick=self.tick,
            text=text,
        )
        self.records.append(record)
        return record

    def add_thought(self, scene: Scene, speaker: str, author: Author, text: str) -> ThoughtRecord:
        """Append a private thought (its owner only; the Director reads it too)."""
        record = ThoughtRecord(
            seq=self._seq(),
            turn_number=self.turn_number,
            speaker=speaker,
            author=author,
            audience=audience_for(scene, speaker, "thought"),
            tick=self.tick,
            text=text,
        )
        self.records.append(record)
        return record

    def add_system(self, marker: str, text: str) -> SystemRecord:
        """Append a kernel marker (staged deadline, time skip)."""
        record = SystemRecord(
            seq=self._seq(),
            turn_number=self.turn_number,
            speaker=WORLD,
            author="kernel",
            audience=Audience(origin="public"),
            tick=self.tick,
            marker=marker,
            text=text,
        )
        self.records.append(record)
        return record

    def add_world_event(
        self, scene: Scene, text: str, reader_mask: frozenset[str] = frozenset()
    ) -> EventRecord:
        """Append a code-staged world event (an act deadline) that everyone present perceives."""
        record = EventRecord(
            seq=self._seq(),
            turn_number=self.turn_number,
            speaker=WORLD,
            author="kernel",
            audience=event_audience(scene.present),
            tick=self.tick,
            event_kind="world_event",
            text=text,
            reader_text=redact(text, reader_mask),
        )
        self.records.append(record)
        return record

    def add_events(
        self, decision: DirectorDecision, reader_mask: frozenset[str] = frozenset()
    ) -> list[EventRecord]:
        """Append the clamped decision's events, each heard by exactly its witnesses.

        `reader_mask`: the words the prose renderer must not read (spoken-only words so far);
        each event keeps its text masked with them as its `reader_text`.
        """
        out = []
        for ev in decision.events:
            record = EventRecord(
                seq=self._seq(),
                turn_number=self.turn_number,
                speaker=ev.actor_id or WORLD,
                author="director",
                audience=event_audience(ev.witness_ids),
                tick=self.tick,
                event_kind=ev.kind,
                text=ev.text,
                actor_id=ev.actor_id,
                utterance_ref=ev.utterance_ref,
                reader_text=redact(ev.text, reader_mask),
            )
            self.records.append(record)
            out.append(record)
        return out

    def add_human(self, scene: Scene, controlled: str, turn: TurnInput) -> None:
        """Append the human's records under the controlled character's id."""
        if turn.speech and turn.speech.strip():
            self.add_speech(
                scene, controlled, "human", turn.speech.strip(), whisper_to=list(turn.whisper_to)
            )
        if turn.action and turn.action.strip():
            self.add_action(scene, controlled, "human", turn.action.strip())
        if turn.thought and turn.thought.strip():
            self.add_thought(scene, controlled, "human", turn.thought.strip())

    def add_reply(self, scene: Scene, speaker: str, reply: CharacterReply) -> None:
        """Append a Character's reply; inside a whispered exchange the speech stays whispered."""
        if reply.speech:
            self.add_speech(
                scene, speaker, "character", reply.speech, reply_to=self.whisper_reaching(speaker)
            )
        if reply.action_intent:
            self.add_action(scene, speaker, "character", reply.action_intent)
        if reply.thought:
            self.add_thought(scene, speaker, "character", reply.thought)

    def mark_actions_resolved(self) -> None:
        """The Director has adjudicated every attempt appended so far in this beat."""
        self.records = [
            r.model_copy(update={"resolved": True}) if isinstance(r, ActionRecord) else r
            for r in self.records
        ]

    def whisper_reaching(self, viewer: str) -> SpeechRecord | None:
        """The latest whisper of this beat whose audience holds `viewer` (not its author)."""
        for record in reversed(self.records):
            if (
                isinstance(record, SpeechRecord)
                and record.audience.origin == "whisper"
                and record.speaker != viewer
                and viewer in record.audience.perceivers
            ):
                return record
        return None
